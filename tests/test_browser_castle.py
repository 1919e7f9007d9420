"""A short Castle game played on the phone, in taps, to its winner screen.

A phone-sized headless Chromium (tests/test_browser.py's helpers) joins the table, sets up a
Castle game on the standard board, and enters every event the camera cannot read yet: each tile
by tapping its space and picking its shape from the box (turning it where it lies turned), one
tile by drawing its sides, the followers by tapping where they stand, the wall tile a marker
landed on by its number; it ends the game, plays the wall tile 9 it took at the final scoring,
and sees the winner. Screenshots go to build/screenshots/castle-*.png.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_site
from test_browser import (
    _browser_or_skip,
    _fits_a_small_phone,
    _fits_the_phone,
    _phone_browser,
    _server,
    _wait,
    join_the_table,
)

from companion.games.castle.engine import CastleGame
from companion.games.castle.tiles import parse_tile
from companion.live.table import Table

REPO = Path(__file__).resolve().parent.parent
SHOTS = REPO / "build" / "screenshots"

# The game: (player, the space, the box's shape or None when its sides are drawn, the tile as it
# lies, the follower's role or None). Worked out by hand on the standard board (our
# approximation): Ana's knight completes her tower with the start space at [3, 0] (2 tiles: 4);
# small towers inside tiles are complete when laid (2 each), the second lands her on space 8, a
# corner tower, where she turns up wall tile 9; Ben's herald scores his path from the start space
# at [6, 0] (3 tiles: 3). After the end Ana plays her wall tile 9 (5): 13 against 3.
TILES: list[tuple[str, tuple[int, int], str | None, dict[str, Any], str | None]] = [
    (
        "Ana",
        (3, 0),
        "tower-house-courtyard",
        {
            "features": [
                {"kind": "tower", "edges": "N"},
                {"kind": "house", "edges": "E"},
                {"kind": "courtyard", "edges": "S W", "markets": 1},
            ]
        },
        "knight",
    ),
    (
        "Ben",
        (6, 0),
        "straight-tower-house",
        {
            "features": [
                {"kind": "path", "edges": "N S"},
                {"kind": "tower", "edges": "Nw W Sw"},
                {"kind": "house", "edges": "Ne E Se"},
            ]
        },
        "herald",
    ),
    (
        "Ana",
        (4, 0),
        "small-tower",
        {"features": [{"kind": "tower"}, {"kind": "courtyard", "edges": "N E S W", "markets": 1}]},
        "knight",
    ),
    (
        "Ben",
        (6, 1),
        None,
        {"features": [{"kind": "path", "edges": "N"}, {"kind": "tower", "edges": "E S W"}]},
        None,
    ),
    (
        "Ana",
        (5, 0),
        "small-tower",
        {"features": [{"kind": "tower"}, {"kind": "courtyard", "edges": "N E S W", "markets": 1}]},
        "knight",
    ),
    (
        "Ben",
        (4, 1),
        "house-courtyard",
        {
            "features": [
                {"kind": "house", "edges": "S W"},
                {"kind": "courtyard", "edges": "N E", "markets": 1},
            ]
        },
        None,
    ),
]
TAKE_AFTER = 4  # Ana's fifth tile (index 4) lands her marker on space 8
WALL = 9


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Table]]:
    from werkzeug.serving import make_server

    site = make_site(tmp_path / "state")
    server = make_server("127.0.0.1", 0, site.app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", site.table
    finally:
        server.shutdown()
        site.table.store.close()


def shot(driver: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"castle-{name}.png"
    path.unlink(missing_ok=True)
    assert driver.save_screenshot(str(path))


def tap(driver: Any, css: str) -> None:
    element = driver.find_element("css selector", css)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def events_of(table: Table) -> int:
    return len(table.live.steps) if table.live is not None else 0


def until_recorded(table: Table, count: int) -> None:
    _wait(f"{count} events recorded", lambda: events_of(table), lambda n: n >= count, timeout=15)


def engine(table: Table) -> CastleGame:
    assert table.live is not None and isinstance(table.live.engine, CastleGame)
    return table.live.engine


def enter_tile(
    driver: Any, base: str, table: Table, at: tuple[int, int], shape: str | None, lying: dict[str, Any]
) -> int:
    """Tap the space, pick the shape (turned until it lies as ``lying``) or draw its sides, place
    it. Returns the taps."""
    before = events_of(table)
    driver.get(f"{base}/fix")
    tap(driver, f'#castle-tile .target[data-cell="{at[0]},{at[1]}"]')
    taps = 1
    if shape is None:
        tap(driver, "#castle-tile button.castle-draw")
        taps += 1
        for feature in lying["features"]:
            for part in parts_of(feature):
                for _ in range(CLICKS[feature["kind"]]):
                    tap(driver, f'#castle-tile button.castle-part[data-part="{part}"]')
                    taps += 1
        shot(driver, "drawn")
        tap(driver, "#castle-tile form.castle-drawn button[type=submit]")
    else:
        tap(driver, f'#castle-tile button.castle-way[data-shape="{shape}"]:not([hidden])')
        taps += 1
        for _ in range(4):
            picked = driver.find_element("css selector", "#castle-tile button.castle-way.picked")
            if parse_tile(json.loads(picked.get_attribute("data-tile")))[0] == parse_tile(lying)[0]:
                break
            tap(driver, "#castle-tile button.castle-turn")
            taps += 1
        if before == 0:
            shot(driver, "tile")
        tap(driver, "#castle-tile button.castle-place")
    until_recorded(table, before + 1)
    return taps + 1


# How many taps turn a half to a kind (nothing -> tower -> house -> courtyard), or a middle to a path.
CLICKS = {"tower": 1, "house": 2, "courtyard": 3, "path": 1}


def parts_of(feature: dict[str, Any]) -> list[str]:
    """The parts a drawn feature's edges name, as the drawing's buttons are named."""
    names = []
    for token in feature.get("edges", "").split():
        if feature["kind"] == "path" or len(token) == 2:
            names.append(token)
        else:
            names += [token + half for half in ({"N": "we", "S": "we", "E": "ns", "W": "ns"}[token])]
    return names


def enter_follower(driver: Any, base: str, table: Table, role: str) -> int:
    before = events_of(table)
    driver.get(f"{base}/fix")
    spot = driver.execute_script(
        "return [...document.querySelectorAll('#castle-follower .spot')]"
        ".find((s) => (s.getAttribute('aria-label') || '').startsWith(arguments[0]));",
        f"a {role}",
    )
    assert spot is not None, f"no ring for a {role}"
    if before == 1:
        shot(driver, "follower")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", spot)
    spot.click()
    until_recorded(table, before + 1)
    return 1


def test_a_short_castle_game_is_played_on_the_phone_in_taps(
    served: tuple[str, Table], tmp_path: Path
) -> None:
    _browser_or_skip()
    base, table = served
    taps = 0
    with _phone_browser(tmp_path / "profile", tmp_path) as driver:
        taps += join_the_table(driver, base)
        # --- setup: the Castle, two players, the standard castle
        driver.get(f"{base}/setup?game=castle")
        rows = driver.find_elements("css selector", "#players-form .player-row")
        assert len(rows) == 2
        for row, name in zip(rows, ("Ana", "Ben"), strict=True):
            row.find_element("name", "name").send_keys(name)
            taps += len(name)
        _fits_the_phone(driver)
        shot(driver, "setup")
        tap(driver, "#setup button[type=submit]")
        taps += 1
        _wait("the game started", lambda: table.live is not None, bool)
        # the setup page goes on to the scoreboard by itself once the game is stored: wait for
        # it, or its navigation lands after the next page is asked for and replaces it
        _wait("the scoreboard", lambda: driver.current_url, lambda url: url == f"{base}/")
        assert engine(table).setup.options == {"board": "standard"}
        # --- play: every tile, follower and wall tile in taps
        for index, (player, at, shape, lying, role) in enumerate(TILES):
            assert engine(table).next_player == player
            taps += enter_tile(driver, base, table, at, shape, lying)
            assert engine(table).board.tiles[at] == parse_tile(lying)[0]
            if role is not None:
                taps += enter_follower(driver, base, table, role)
            if index == TAKE_AFTER:
                before = events_of(table)
                driver.get(f"{base}/")
                assert "Ana's marker landed on space 8" in driver.find_element("id", "prompts").text
                shot(driver, "landed")
                driver.get(f"{base}/fix")
                shot(driver, "take")
                tap(driver, f'#castle-take button.castle-wall[data-wall="{WALL}"]')
                taps += 1
                until_recorded(table, before + 1)
        assert engine(table).scores() == {"Ana": 8, "Ben": 3}
        assert engine(table).held["Ana"] == [WALL]
        driver.get(f"{base}/")
        _fits_the_phone(driver)
        _fits_a_small_phone(driver)
        shot(driver, "scoreboard")
        assert driver.find_elements("css selector", "section.castle .castle-board svg .track .marker")
        # --- the end, then wall tile 9 at the final scoring, and the winner
        driver.get(f"{base}/setup")
        tap(driver, "#end-game")
        driver.switch_to.alert.accept()
        taps += 2
        # the setup page goes to the scoreboard once the end is stored: the winner screen, with
        # Ana's wall tile 9 still to play
        _wait("the game over", lambda: driver.find_elements("css selector", "#winner h1"), bool, timeout=15)
        assert engine(table).finished
        before = events_of(table)
        driver.get(f"{base}/fix")
        button = driver.find_element("css selector", "#castle-uses button.castle-use")
        assert "wall tile 9" in button.text
        shot(driver, "final-wall-tile")
        button.click()
        taps += 1
        until_recorded(table, before + 1)
        driver.get(f"{base}/")
        heading = _wait(
            "the winner screen", lambda: driver.find_elements("css selector", "#winner h1"), bool, timeout=15
        )[0].text
        _fits_the_phone(driver)
        _fits_a_small_phone(driver)
        shot(driver, "winner")
    game = engine(table)
    assert game.finished and game.scores() == {"Ana": 13, "Ben": 3}
    assert heading == "Ana wins"
    assert [c.reason for c in game.log][-1] == "wall tile 9 = 5"
    record = [json.loads(line) for line in table.record_text().splitlines()[1:]]  # type: ignore[union-attr]
    assert all((e.get("meta") or {}).get("source") == "phone" for e in record if e["event"] != "end")
    print(
        f"\nplayed a {len(TILES)}-tile Castle game on the phone with {taps} taps and keys; "
        f"screenshots in {SHOTS}"
    )


def test_the_scoring_order_is_entered_in_taps(served: tuple[str, Table], tmp_path: Path) -> None:
    """tests/records/castle/scoring-order-chosen.jsonl on the phone: Ana's tile completes her
    tower, her path and Ben's house; she taps her path first, then her tower and Ben's house (his
    come after hers), lands on space 2 and takes wall tile 4 there."""
    _browser_or_skip()
    base, table = served
    record = REPO / "tests" / "records" / "castle" / "scoring-order-chosen.jsonl"
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    table.start({k: v for k, v in lines[0].items() if k != "meta"})
    for event in lines[1:7]:  # up to Ana's herald on the path her tile completes
        table.add(event)
    with _phone_browser(tmp_path / "profile", tmp_path) as driver:
        join_the_table(driver, base)
        driver.get(f"{base}/fix")
        buttons = driver.find_elements("css selector", "#castle-order button.castle-ordered")
        # the features that score, by default order: Ana's (the placer's) first, laid first first
        assert [b.text.split(" (")[0] for b in buttons] == [
            "Ana's tower at [0, 0]",
            "Ana's path at [1, 0]",
            "Ben's house at [1, 0]",
        ]
        for index in (1, 0, 2):
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", buttons[index])
            buttons[index].click()
        chosen = [
            li.text for li in driver.find_elements("css selector", "#castle-order .castle-order-chosen li")
        ]
        assert [text.split(" at ")[0] for text in chosen] == ["Ana's path", "Ana's tower", "Ben's house"]
        shot(driver, "order")
        before = events_of(table)
        tap(driver, "#castle-order button.castle-order-send")
        until_recorded(table, before + 1)
        assert engine(table).dues_now() == [("Ana", 2)]
        driver.get(f"{base}/fix")
        tap(driver, '#castle-take button.castle-wall[data-wall="4"]')
        until_recorded(table, before + 2)
    game = engine(table)
    assert game.held["Ana"] == [4]
    assert [c.reason for c in game.log] == [
        "path, 2 tiles x 1 = 2",
        "tower, 3 tiles x 2 = 6",
        "house, 3 tiles x 1 = 3",
    ]


def test_a_castle_game_over_fits_a_small_phone(tmp_path: Path) -> None:
    """The winner screen and the castle's table of players, each breakdown long, on 320 px."""
    _browser_or_skip()
    record = REPO / "tests" / "records" / "castle" / "final-scoring.jsonl"
    how = ("demo", "--record", str(record), "--pace", "0")
    with (
        _server(tmp_path / "state", tmp_path, how) as base,
        _phone_browser(tmp_path / "profile", tmp_path) as driver,
    ):
        driver.get(f"{base}/")
        _wait(
            "the winner screen", lambda: driver.find_elements("css selector", "#winner h1"), bool, timeout=15
        )
        assert "final scoring" in driver.find_element("id", "winner").text
        _fits_the_phone(driver)
        _fits_a_small_phone(driver)
