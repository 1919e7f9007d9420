"""Gaia on the phone's pages, through the web app: the scoreboard draws the land (cities with
their needs met and unmet, animals, pawns), each player's pawns placed and left, and what is owed
now; the fix page offers every event the table takes as taps; setup, corrections and a score's
page use Gaia's own partials."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Site, make_site

RECORDS = Path(__file__).parent / "records" / "gaia"


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    made = make_site(tmp_path / "state")
    yield made
    made.table.store.close()


def start(site: Site, name: str, events: int | None = None) -> list[dict[str, Any]]:
    lines = (RECORDS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header.pop("meta")
    assert site.post("/api/games", header).status_code == 201
    played = [json.loads(line) for line in lines[1:]][:events]
    for event in played:
        response = site.post("/api/event", event)
        assert response.status_code == 200, response.get_json()
    return played


def page(site: Site, path: str) -> str:
    response = site.client.get(path)
    assert response.status_code == 200, path
    return response.get_data(as_text=True)


def test_the_scoreboard_draws_the_land_the_pawns_and_what_is_owed(site: Site) -> None:
    start(site, "seed-yellow-turn", 29)  # yellow's plains tile is down: a pawn and an objective owed
    html = page(site, "/")
    assert "Yara owes a pawn on the city at [3,0] (its satisfaction rose from 2 to 3)" in html
    assert "Yara claims objective O1 (plains, forest, mountain, swamp)" in html
    assert "Yara places the pawns owed" in html
    assert "/games/gaia/static/gaia.css" in html
    # the land: every tile, the two cities with each need met or not, the pawns in their colours
    assert len(re.findall(r'class="gaia-cell terrain-', html)) == 9
    city = html.split('data-at="3,0"', 1)[1].split("</span></span>", 1)[0]
    assert city.count("gaia-need met") == 3 and city.count("gaia-need unmet") == 1
    assert "pawn pawn-blue" in city
    bottom_left = html.split('data-at="0,1"', 1)[1].split("</span></span>", 1)[0]
    assert bottom_left.count("gaia-need met") == 1 and "pawn pawn-" not in bottom_left  # empty now
    # each player's pawns placed and left
    yara = html.split('data-player="Yara"', 1)[1].split("</li>", 1)[0]
    assert "0 placed · 6 left" in yara and yara.count("pawn pawn-yellow left") == 6
    assert "Objectives: O1 (plains, forest, mountain, swamp) open" in html
    assert page(site, "/parts/scoreboard").count("gaia-cell terrain-") == 9
    # the land is drawn once, on its own below the players and above the latest scores; the
    # style is the page's, in its head
    summary = html.split('id="summary"', 1)[1].split("</p>", 1)[0]
    assert "gaia-land" not in summary
    after_players = html.split('id="players"', 1)[1].split("</ol>", 1)[1]
    board = after_players.split('aria-label="Latest scores"', 1)[0]
    assert board.count('class="gaia-land"') == 1 and len(re.findall(r'class="gaia-cell terrain-', board)) == 9
    assert html.count('href="/games/gaia/static/gaia.css"') == 1
    assert 'href="/games/gaia/static/gaia.css"' in html.split("</head>", 1)[0]


def test_the_feeding_due_is_named_before_the_turn(site: Site) -> None:
    start(site, "seed-yellow-turn", 27)
    state = site.client.get("/api/state").get_json()
    assert state["prompts"] == [
        "Yara feeds the city at [0,1] (animals next to it at [1,1]): one animal, before any action"
    ]
    assert state["extras"]["cities"]["0,1"]["hungry"] is True
    fix = page(site, "/fix")
    choices = re.findall(r'class="gaia-choice choice-(\w+)" data-event="([^"]+)">([^<]+)<', fix)
    assert [(kind, text) for kind, _, text in choices] == [("feed", "The city at [0,1] eats from [1,1]")]
    assert 'name="gaia-mode"' not in fix  # no card may be played before the meal


def test_the_fix_page_offers_every_event_in_taps(site: Site) -> None:
    start(site, "seed-yellow-turn", 28)
    fix = page(site, "/fix")
    choices = re.findall(r'class="gaia-choice choice-(\w+)" data-event="([^"]+)">([^<]+)<', fix)
    kinds = [kind for kind, _, _ in choices]
    assert kinds == ["draw", "draw", "draw", "draw", "end", "end"]  # an empty deck comes last
    event = json.loads(choices[0][1].replace("&#34;", '"'))
    assert event == {"event": "draw", "player": "Yara", "kind": "nature", "from": "market"}
    for mode in ("tile", "animals", "city"):
        assert f'name="gaia-mode" value="{mode}"' in fix
    assert fix.count('data-open="1"') == len(site.client.get("/api/state").get_json()["extras"]["open"])
    assert 'data-at="1,1"' in fix and 'data-free="1"' in fix
    assert 'class="gaia-need-add" data-need="animals"' in fix
    assert '<script defer src="/games/gaia/static/gaia-fix.js"></script>' in fix
    assert site.client.get("/games/gaia/static/gaia-fix.js").status_code == 200


def test_events_are_corrected_by_choosing_not_typing(site: Site) -> None:
    start(site, "seed-yellow-turn", 12)
    fix = page(site, "/fix")
    city = fix.split('<li id="event-9">', 1)[1].split("</li>", 1)[0]  # line 11: Yara's city
    assert 'data-field="at" data-as="numbers"' in city and '<option value="0,1" selected>' in city
    assert city.count("data-need=") == 4 and 'data-card="terrain"' in city
    draw = fix.split('<li id="event-1">', 1)[1].split("</li>", 1)[0]  # line 3: a draw
    assert '<select data-field="kind">' in draw and '<select data-field="from">' in draw
    # a correction through the page's own fields is an ordinary replace
    replaced = {"event": "draw", "player": "Yara", "kind": "life", "from": "market"}
    response = site.post(
        "/api/corrections", {"op": "replace", "index": 1, "event": replaced, "reason": "a test"}
    )
    assert response.status_code == 200
    assert (
        json.loads(site.client.get("/api/record").get_data(as_text=True).splitlines()[2])["from"] == "market"
    )
    # one that breaks a rule is refused with the rule: without that Life card, no city at line 11
    replaced = {"event": "draw", "player": "Yara", "kind": "nature", "from": "market"}
    response = site.post(
        "/api/corrections", {"op": "replace", "index": 1, "event": replaced, "reason": "a test"}
    )
    assert response.status_code == 422 and "Yara holds no Life card to play" in response.get_json()["message"]


def test_setup_offers_the_hands_and_the_objectives(site: Site) -> None:
    html = page(site, "/setup?game=gaia")
    assert "The first to place all their pawns wins" in html
    assert 'name="option:objectives" data-json' in html
    assert html.count('class="gaia-objective-card"') == 6
    assert '<input type="radio" name="variant" value="advanced">' in html
    assert '<link rel="stylesheet" href="/games/gaia/static/gaia.css">' in html.split("</head>", 1)[0]
    # each player's row deals that player's hand, read by the setup page as JSON: every hand of
    # 6 cards at most, 2 Nature and 1 Life to start with
    rows = html.split('class="player-row"')[1:]
    assert len(rows) == 3
    for row in rows:
        assert row.count('<select name="player:hand" data-json') == 1
        hands = [json.loads(v) for v in re.findall(r"<option value='([^']+)'", row)]
        assert len(hands) == 28 and all(h["nature"] + h["life"] <= 6 for h in hands)
        assert list(hands[0]) == ["nature", "life"]  # written as the contract writes it
        chosen = re.findall(r"<option value='([^']+)' selected>([^<]+)<", row)
        assert [(json.loads(v), text) for v, text in chosen] == [
            ({"nature": 2, "life": 1}, "2 Nature, 1 Life")
        ]
    # the common setup page sends the header: Gaia's script no longer starts the game itself
    script = site.client.get("/games/gaia/static/gaia-setup.js").get_data(as_text=True)
    assert "submit" not in script and "/api/games" not in script


def test_the_setup_page_ends_gaia_on_the_fix_page_not_with_the_common_button(site: Site) -> None:
    start(site, "deck-out-tie-clockwise", 14)
    html = page(site, "/setup")
    assert 'id="end-game"' not in html
    assert 'The game ends by its own rules: enter its end on <a href="/fix">Fix</a>.' in html
    assert "No Life card is left: end the game" in page(site, "/fix")


def test_a_game_started_with_hands_and_ended_by_an_empty_deck(site: Site) -> None:
    start(site, "deck-out-tie-clockwise", 14)
    refused = site.post("/api/end", {})  # the common "end the game" names nobody: Gaia's end does
    assert refused.status_code == 400 and 'missing "player", "kind"' in refused.get_json()["message"]
    assert site.post("/api/event", {"event": "end", "player": "Ben", "kind": "life"}).status_code == 200
    state = site.client.get("/api/state").get_json()
    assert state["finished"] and state["winners"] == ["Cleo"]
    assert "Cleo wins" in page(site, "/")
    # the winner screen says in words what placed each player's pawns
    assert state["breakdown"] == {
        "Ana": [],
        "Ben": [["pawns on cities laid", 1]],
        "Cleo": [["pawns on cities laid", 1]],
    }
    winner = page(site, "/").split('id="winner"', 1)[1].split("</section>", 1)[0]
    assert winner.count("pawns on cities laid 1") == 2 and "nothing scored" in winner
    record = site.client.get("/api/record").get_data(as_text=True).splitlines()
    assert json.loads(record[0])["players"][2]["hand"] == {"nature": 1, "life": 1}


def test_a_score_page_shows_the_city_and_its_needs(site: Site) -> None:
    start(site, "cover-to-one")
    log = site.client.get("/api/state").get_json()["log"]
    index = next(e["index"] for e in log if e["kind"] == "return")
    html = page(site, f"/scores/{index}")
    assert "city at [1,0]: 1 of 4 needs met (sea) — Ana&#39;s pawn returns" in html
    assert "plains not met, plains not met, sea met, mountain not met" in html
    assert "A city left with 1 need met loses all its pawns" in html
    assert "<svg" in html
