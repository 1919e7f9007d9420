"""Among the Stars on the phone pages: each station drawn as a grid of cards, the actions entered
in taps on the fix page, the card library a table grows, the setup options, a score's page."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Site, make_site, record_lines

from companion.games.stars.library import FILE_NAME

TYPES = ["administrative", "commercial", "diplomatic", "military", "recreational", "scientific"]
SANDRA = "stars/sandra-holographic.jsonl"


@pytest.fixture
def stars_site(tmp_path: Path) -> Iterator[Site]:
    site = make_site(tmp_path / "state")
    yield site
    site.table.store.close()


def page(site: Site, path: str) -> str:
    response = site.client.get(path)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    text: str = response.get_data(as_text=True)
    return text


def test_the_scoreboard_draws_every_station_as_a_grid_of_cards(stars_site: Site) -> None:
    stars_site.play(SANDRA)
    for html in (page(stars_site, "/"), page(stars_site, "/parts/scoreboard")):
        assert "Turn 4 · year 1 of 4" in html
        assert html.count('class="stars-grid"') == 2  # Sandra's and Tomás's stations
        assert "Holographic Display Area" in html and "4 VP" in html
        assert "6 credits · 1 cube · 3 locations · 0 reactors" in html  # Sandra's line
        assert "19 credits · 2 cubes · 0 locations · 0 reactors" in html
        # the hologram at [1, 1] sits in the grid's second column and row
        assert re.search(r'style="grid-column: 2; grid-row: 2" data-at="1,1"', html)
    assert stars_site.client.get("/games/stars/static/stars.css").status_code == 200
    # the stations are the table: drawn once, below the players' lines and above the latest
    # scores, each under its player's name; the style is in the page's head
    html = page(stars_site, "/")
    players = html.split('id="players"', 1)[1].split("</ol>", 1)[0]
    assert "stars-grid" not in players and "6 credits · 1 cube" in players
    board = html.split('id="players"', 1)[1].split("</ol>", 1)[1].split('aria-label="Latest scores"', 1)[0]
    assert re.findall(r'<h3>([^<]+)</h3>\s*<div class="stars-grid" [^>]*data-player="([^"]+)"', board) == [
        ("Sandra", "Sandra"),
        ("Tomás", "Tomás"),
    ]
    head = html.split("</head>", 1)[0]
    assert '<link rel="stylesheet" href="/games/stars/static/stars.css">' in head
    for path in ("/", "/fix", "/scores/2", "/timeline", "/setup?game=stars"):
        assert page(stars_site, path).count("stars.css") == 1, path


def test_the_fix_page_enters_an_action_in_taps(stars_site: Site) -> None:
    stars_site.play(SANDRA)
    html = page(stars_site, "/fix")
    entry = html[html.index('id="stars-entry"') :]
    for value in ("build", "reactor", "discard"):
        assert f'name="does" value="{value}"' in entry
    for name in ("Sandra", "Tomás"):
        assert f'name="player" value="{name}"' in entry
    # the cards this game has read are offered by name, with their data
    assert entry.count('name="card" value="') == 3 + 2  # three cards, "a new card" and "no card"
    assert "Holographic Display Area" in entry and "&#34;energy&#34;: 1" in entry
    # the empty cells beside a location are tapped, not typed; the reactors that pay are tapped
    assert 'name="at" value="2,1"' in entry and 'name="at" value="1,1"' not in entry
    assert 'class="stars-cell kind-main-reactor stars-pay"' in entry and 'data-cubes="1"' in entry
    assert '<script defer src="/games/stars/static/entry.js">' in html
    assert stars_site.client.get("/games/stars/static/entry.js").status_code == 200
    # a build event can be corrected by tapping another cell
    assert 'data-field="at" data-as="numbers"' in html


def test_an_action_as_the_page_sends_it_is_scored(stars_site: Site) -> None:
    stars_site.play(SANDRA)
    event = {
        "event": "build",
        "player": "Tomás",
        "at": [0, 1],
        "card": {"name": "Cargo Bay", "type": "administrative", "cost": 1, "vp": 1},
        "meta": {"source": "phone"},
    }
    answer = stars_site.post("/api/event", event)
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["scores"] == {"Sandra": 6, "Tomás": 1}
    again = stars_site.post("/api/event", {**event, "at": [1, 0]})
    assert again.status_code == 422
    assert again.get_json()["message"].startswith("Tomás has already acted in turn 4 of year 1")


def test_a_card_kept_in_the_library_is_offered_from_then_on(stars_site: Site, tmp_path: Path) -> None:
    casino = {
        "name": "Casino",
        "type": "recreational",
        "cost": 3,
        "vp": 1,
        "ability": {"timing": "delayed", "kind": "manual", "text": "as printed"},
    }
    kept = stars_site.post("/api/stars/cards", {"card": casino})
    assert kept.status_code == 200 and kept.get_json()["kept"] == "Casino"
    bad = stars_site.post("/api/stars/cards", {"card": {**casino, "cost": 100}})
    assert bad.status_code == 400 and "must be 0 to 99" in bad.get_json()["message"]
    no_token = stars_site.client.post("/api/stars/cards", data=json.dumps({"card": casino}))
    assert no_token.status_code == 403
    assert json.loads((stars_site.state_dir / FILE_NAME).read_text())["cards"] == [casino]
    # a game started later offers it, after the game's own cards
    stars_site.play(SANDRA)
    listed = stars_site.client.get("/api/stars/cards").get_json()["cards"]
    assert [c["name"] for c in listed] == ["Cargo Bay", "Docking Ring", "Holographic Display Area", "Casino"]
    assert 'data-card="{&#34;ability&#34;: {&#34;kind&#34;: &#34;manual&#34;' in page(stars_site, "/fix")
    # a name no one could read or tell apart, or a type this game does not name, is not kept
    for card, status, says in [
        ({**casino, "name": " Casino "}, 400, "spaces before or after"),
        ({**casino, "name": "C" * 61}, 400, "at most 60 characters"),
        ({**casino, "name": "Casino\u202e"}, 400, "U+202E"),
        ({**casino, "name": "Arena", "type": "zzz"}, 422, "the type 'zzz' is not one of this game's"),
    ]:
        refused = stars_site.post("/api/stars/cards", {"card": card})
        assert refused.status_code == status and says in refused.get_json()["message"], card
    assert json.loads((stars_site.state_dir / FILE_NAME).read_text())["cards"] == [casino]
    # the newest reading of a name replaces the older
    stars_site.post("/api/stars/cards", {"card": {**casino, "vp": 2}})
    stars_site.table.store.close()
    again = make_site(tmp_path / "state")
    try:
        cards = again.client.get("/api/stars/cards").get_json()["cards"]
        assert [c["vp"] for c in cards if c["name"] == "Casino"] == [2]
    finally:
        again.table.store.close()


def test_the_setup_page_offers_the_types_and_objectives(stars_site: Site) -> None:
    html = page(stars_site, "/setup?game=stars")
    assert 'name="option:types" data-json' in html
    assert json.dumps(TYPES).replace('"', "&#34;") in html
    assert 'name="option:objectives" data-json value=""' in html
    assert '<option value="most_power_reactors">' in html and 'src="/games/stars/static/options.js"' in html
    assert '<input type="radio" name="variant"' not in html  # one variant: nothing to choose
    header = {
        "game": "stars",
        "variant": "peaceful",
        "players": [{"name": "Ana", "color": "blue"}, {"name": "Ben"}],
        "types": ["engineering", "military"],
        "objectives": [
            {"name": "Warlord", "kind": "most_type", "type": "military", "vp": 3},
            {"name": "Charter", "kind": "manual", "vp": 5},
        ],
    }
    assert stars_site.post("/api/games", header).status_code == 201
    state = stars_site.client.get("/api/state").get_json()
    assert state["extras"]["types"] == ["engineering", "military"]
    assert [o["measure"] for o in state["extras"]["objectives"]] == ["military locations", "count"]
    assert [p["color"] for p in state["players"]] == ["blue", None]
    refused = stars_site.post("/api/games?abandon=1", {**header, "variant": "aggressive"})
    assert refused.status_code == 400 and "reserved" in refused.get_json()["message"]


def test_the_end_of_a_year_asks_for_the_removals_and_the_counts(stars_site: Site) -> None:
    header, events = record_lines("stars/max-removal.jsonl")
    assert stars_site.post("/api/games", header).status_code == 201
    for event in events[:13]:  # year 1 played, nothing removed yet
        assert stars_site.post("/api/event", event).status_code == 200
    html = page(stars_site, "/fix")
    assert html.count('class="stars-remove"') == 4  # two copies each of two cards
    assert "Start year 2" not in html and 'id="stars-action"' not in html
    scoreboard = page(stars_site, "/")
    assert "beyond its MAX 1: remove 1 before the year ends" in scoreboard
    for event in events[13:15]:
        assert stars_site.post("/api/event", event).status_code == 200
    assert "Start year 2" in page(stars_site, "/fix")


def test_the_last_counts_and_the_end_are_entered_on_the_phone(stars_site: Site) -> None:
    header, events = record_lines("stars/objectives.jsonl")
    assert stars_site.post("/api/games", header).status_code == 201
    for event in events[:77]:  # year 4 over
        assert stars_site.post("/api/event", event).status_code == 200
    html = page(stars_site, "/fix")
    assert "the delayed ability of Casino at [1, 0] is counted by hand" in html
    assert 'class="stars-form stars-objective" data-name="Alliance Charter"' in html
    assert 'id="stars-end"' not in html
    for event in events[77:79]:
        assert stars_site.post("/api/event", event).status_code == 200
    assert 'id="stars-end"' in page(stars_site, "/fix")
    # the setup page's "End the game" ends it too: a bare "end" is the game's own
    assert 'id="end-game"' in page(stars_site, "/setup")
    assert stars_site.post("/api/end", {}).status_code == 200
    state = stars_site.client.get("/api/state").get_json()
    assert state["finished"] and state["winners"] == ["Ben"]
    assert "Ben wins" in page(stars_site, "/")
    # the winner screen: what was built and counted by hand in words, then the final scoring
    assert state["breakdown"]["Ben"] == [
        ["locations built", 2],
        ["abilities counted by hand", 3],
        ["final scoring", 39],
    ]
    winner = page(stars_site, "/").split('id="winner"', 1)[1].split("</section>", 1)[0]
    items = re.findall(r'<span class="item">([^<]*)</span>', winner)
    ben = ["locations built 2 ·", "abilities counted by hand 3 ·", "final scoring 39"]
    assert any(items[i : i + 3] == ben for i in range(len(items))), items


def test_a_scores_page_shows_what_was_counted_and_the_station(stars_site: Site) -> None:
    stars_site.play(SANDRA)
    html = page(stars_site, "/scores/2")
    assert "Holographic Display Area: 2 VP + 1 per adjacent location x 2 = 4" in html
    assert "Holographic Display Area (recreational): costs 2, 1 energy, 2 VP printed" in html
    assert "<dt>Counted</dt><dd>2</dd>" in html
    assert "Sandra's station now" in html and 'scored" style="grid-column: 2; grid-row: 2"' in html
    view = stars_site.client.get("/api/scores/2").get_json()
    assert view["extras"]["at"] == [1, 1] and view["extras"]["still_there"] is True


def test_the_timeline_tells_each_event(stars_site: Site) -> None:
    stars_site.play(SANDRA)
    html = page(stars_site, "/timeline")
    assert "Sandra built Holographic Display Area at [1, 1] (2 credits, energy from [0, 0])" in html
    assert "Year 1 begins: 10 credits each, cards pass clockwise" in html


def test_once_the_game_is_over_a_card_of_any_type_may_be_kept(stars_site: Site) -> None:
    stars_site.play("stars/objectives.jsonl")
    assert stars_site.client.get("/api/state").get_json()["finished"] is True
    arena = {"name": "Arena", "type": "zzz", "cost": 3, "vp": 1}
    assert stars_site.post("/api/stars/cards", {"card": arena}).status_code == 200
