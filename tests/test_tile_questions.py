"""The camera's questions about a tile, answered on the phone in one tap: the tracker offers its
likeliest ways of lying, the fix page shows them as buttons, and a tap records the tile."""

from __future__ import annotations

import html
import json
import re
import threading
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
from conftest import Site, make_site, record_lines
from test_browser import _browser_or_skip, _fits_the_phone, _phone_browser, _wait, join_the_table
from test_gallery import LABELS, START, box_picture, reading_of, window_of

from companion.games.base import Player, Setup
from companion.games.starwars.reader.tracker import Prompt, Tracker
from companion.games.starwars.tiles import parse_tile
from companion.table.links import EngineLink
from companion.vision.watcher import Observation

SHOT = Path(__file__).resolve().parent.parent / "build" / "screenshots" / "fix-camera-asks-phone.png"
# route-three.jsonl: the start tile, then Ana lays a T of trade routes at (1, 0)
T_OF_ROUTES = {
    "features": [
        {"kind": "route", "edges": "E"},
        {"kind": "route", "edges": "S"},
        {"kind": "route", "edges": "W"},
    ]
}
STRAIGHT = {"features": [{"kind": "route", "edges": "EW"}]}


def test_an_unsure_tile_offers_the_model_s_likeliest_legal_ways_first() -> None:
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    link = EngineLink(setup)
    tracker = Tracker(link, LABELS)
    link.add(
        {"event": "tile", "player": None, "at": [0, 0], "tile": START.to_json(), "meta": {"source": "phone"}}
    )
    tracker.learning.art.familiar = True
    cell = (1, 0)
    legal = [t for t in tracker._lyings if t is not None and link.game.board.fit_error(cell, t) is None]
    illegal = next(
        t for t in tracker._lyings if t is not None and link.game.board.fit_error(cell, t) is not None
    )
    probs = np.zeros(len(LABELS.classes), np.float32)
    probs[LABELS.classes.index(legal[3].to_json())] = 0.5
    probs[LABELS.classes.index(legal[7].to_json())] = 0.3
    probs[LABELS.classes.index(illegal.to_json())] = 0.2  # likelier than most, but it cannot lie there
    seen = reading_of(cell, window_of(box_picture(START)), None)
    seen = type(seen)(cell, probs, seen.spots, seen.embedding, seen.window)
    assert tracker.observe(Observation([seen])) == []
    (prompt,) = tracker.open_prompts()
    assert prompt.code == "unsure-tile"
    assert prompt.choices[:2] == (legal[3], legal[7])
    assert illegal not in prompt.choices and len(prompt.choices) == 3
    assert all(link.game.board.fit_error(cell, t) is None for t in prompt.choices)


def _ask(cell: list[int], *choices: dict[str, Any]) -> dict[str, Any]:
    tiles = tuple(parse_tile(c) for c in choices)
    return Prompt(
        "unfamiliar-tile", f"enter the tile at {cell} on the phone", (tuple(cell),), tiles
    ).to_json()  # type: ignore[arg-type]


def _buttons(page: str) -> list[dict[str, Any]]:
    found = re.findall(
        r'<button type="button" class="choice" data-at="([^"]*)" data-player="([^"]*)" '
        r'data-tile="([^"]*)">([^<]*)</button>',
        page,
    )
    return [
        {"at": json.loads(html.unescape(a)), "player": p, "tile": json.loads(html.unescape(t)), "text": x}
        for a, p, t, x in found
    ]


def test_the_fix_page_offers_the_camera_s_choices_and_a_choice_records_the_tile(site: Site) -> None:
    site.play("route-three.jsonl", events=1)
    assert 'id="answer-asks"' not in site.client.get("/").get_data(as_text=True)
    site.table.set_camera(
        "reading the table", ["enter the tile at [1, 0]"], asks=[_ask([1, 0], T_OF_ROUTES, STRAIGHT)]
    )
    assert site.client.get("/api/state").get_json()["camera"]["asks"][0]["choices"] == [T_OF_ROUTES, STRAIGHT]
    assert 'id="answer-asks"' in site.client.get("/").get_data(as_text=True)
    page = site.client.get("/fix").get_data(as_text=True)
    assert "The camera asks" in page and "enter the tile at [1, 0] on the phone" in page
    buttons = _buttons(page)
    assert [b["text"] for b in buttons] == ["trade route E; trade route S; trade route W", "trade route EW"]
    assert buttons[0] == {**buttons[0], "at": [1, 0], "player": "Ana", "tile": T_OF_ROUTES}
    # what fix.js sends for a tap on the first
    tap = {
        "event": "tile",
        "player": "Ana",
        "at": buttons[0]["at"],
        "tile": buttons[0]["tile"],
        "meta": {"source": "phone"},
    }
    assert site.post("/api/event", tap).status_code == 200
    last = json.loads(site.client.get("/api/record").get_data(as_text=True).splitlines()[-1])
    assert (last["event"], last["player"], last["at"], last["tile"]) == ("tile", "Ana", [1, 0], T_OF_ROUTES)


def test_a_choice_that_is_not_a_tile_is_left_out_of_the_page(site: Site) -> None:
    site.play("route-three.jsonl", events=1)
    bad = _ask([1, 0], STRAIGHT)
    bad["choices"].append({"features": [{"kind": "comet"}]})
    site.table.set_camera(None, [], asks=[bad])
    assert [b["text"] for b in _buttons(site.client.get("/fix").get_data(as_text=True))] == ["trade route EW"]


def test_a_camera_question_is_answered_with_one_tap_in_a_real_browser(tmp_path: Path) -> None:
    """A phone opens the fix page while the camera asks about the tile at (1, 0), taps the first
    choice, and the record gets that tile, laid by the player whose turn it is."""
    _browser_or_skip()
    from werkzeug.serving import make_server

    site = make_site(tmp_path / "state")
    header, events = record_lines("route-three.jsonl")
    assert site.post("/api/games", header).status_code == 201
    assert site.post("/api/event", events[0]).status_code == 200
    site.table.set_camera(
        "reading the table", ["enter the tile at [1, 0]"], asks=[_ask([1, 0], T_OF_ROUTES, STRAIGHT)]
    )
    server = make_server("127.0.0.1", 0, site.app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        with _phone_browser(tmp_path / "profile", tmp_path) as driver:
            join_the_table(driver, base)
            driver.get(f"{base}/fix")
            _fits_the_phone(driver)
            choice = driver.find_element("css selector", "#camera-asks button.choice")
            assert choice.text == "trade route E; trade route S; trade route W"
            SHOT.parent.mkdir(parents=True, exist_ok=True)
            SHOT.unlink(missing_ok=True)
            assert driver.save_screenshot(str(SHOT))
            choice.click()

            def last_event() -> dict[str, Any]:
                with urllib.request.urlopen(f"{base}/api/record", timeout=10) as response:
                    return dict(json.loads(response.read().decode().splitlines()[-1]))

            entered = _wait("the tile in the record", last_event, lambda e: e.get("at") == [1, 0])
    finally:
        server.shutdown()
        site.table.store.close()
    assert (entered["event"], entered["player"], entered["tile"]) == ("tile", "Ana", T_OF_ROUTES)
    assert entered["meta"] == {"source": "phone"}
    assert SHOT.stat().st_size > 5_000


def test_the_runner_hands_the_scoreboard_the_camera_s_tile_questions_in_full(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from test_runner import TILES, runner_over

    from companion.games.starwars.reader.maker import StarWarsReader
    from companion.games.starwars.sim.table_games import SimulatedGames
    from companion.live.table import Table
    from companion.store import GameStore

    table = Table(GameStore(tmp_path))
    runner, _, _ = runner_over(table, SimulatedGames(table, fps=0, first_seed=3, games=1, tiles=TILES))
    tile = parse_tile(STRAIGHT)
    asked = Prompt("unfamiliar-tile", "enter the tile at [1, 0] on the phone", ((1, 0),), (tile,))
    stray = Prompt("stray-meeple", "a meeple at [0, 0] the game does not have", ((0, 0),))
    tracker = SimpleNamespace(open_prompts=lambda: [asked, stray], status=None)
    reader = StarWarsReader(SimpleNamespace(tracker=tracker, last=None), runner.link)  # type: ignore[arg-type]
    runner._tell_scoreboard(reader)
    camera = table.state()["camera"]
    assert camera["asks"] == [asked.to_json()] and camera["asks"][0]["choices"] == [STRAIGHT]
    assert table.state()["prompts"] == [asked.message, stray.message]


def test_a_choice_is_entered_for_the_player_whose_tile_comes_next_not_the_one_still_placing_a_meeple(
    site: Site,
) -> None:
    site.play("route-three.jsonl", events=2)  # Ana's T of routes is down; her meeple may follow
    state = site.client.get("/api/state").get_json()
    assert (state["turn_of"], state["extras"]["next_player"]) == ("Ana", "Ben")
    site.table.set_camera(None, [], asks=[_ask([2, 0], STRAIGHT)])
    page = site.client.get("/fix").get_data(as_text=True)
    assert [b["player"] for b in _buttons(page)] == ["Ben"] and "enters it for Ben" in page


def test_a_choice_for_the_start_tile_is_no_one_s(site: Site) -> None:
    header, _ = record_lines("route-three.jsonl")
    assert site.post("/api/games", header).status_code == 201
    site.table.set_camera(None, [], asks=[_ask([0, 0], STRAIGHT)])
    page = site.client.get("/fix").get_data(as_text=True)
    assert [b["player"] for b in _buttons(page)] == [""] and "as the start tile" in page


def test_a_game_over_offers_no_taps(site: Site) -> None:
    site.play("route-three.jsonl")
    assert site.client.get("/api/state").get_json()["finished"]
    site.table.set_camera(None, [], asks=[_ask([5, 5], STRAIGHT)])
    page = site.client.get("/fix").get_data(as_text=True)
    assert _buttons(page) == [] and "The camera asks" not in page
