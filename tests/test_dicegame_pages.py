"""The Dice Game on the phone's pages, drawn by its own partials: the scoreboard with the city being
laid, the entry in taps on the fix page, a turn's breakdown on its score page, setup and edits."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from conftest import Site
from test_dicegame import NINE, READING1, header, knight, lay, roll, score

from companion.games.registry import manifest

EXAMPLE = Path(__file__).parent / "records" / "dicegame" / "example-1ab.jsonl"


def start(site: Site, events: list[dict[str, Any]], **head: Any) -> None:
    assert site.post("/api/games", header("Ana", "Ben", **head)).status_code == 201
    for event in events:
        response = site.post("/api/event", event)
        assert response.status_code == 200, response.get_json()


def example(upto: int) -> list[dict[str, Any]]:
    return [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()[1 : 1 + upto]]


def test_the_scoreboard_draws_the_city_as_it_is_laid(site: Site) -> None:
    start(site, example(7), faces=READING1)  # roll, 4 dice laid, the second roll, a fifth die laid
    page = site.client.get("/").get_data(as_text=True)
    assert "Turn 1 · Ana's turn" in page and "1 roll left, 2 dice to throw" in page
    assert 'href="/fix#dice-entry"' in page and "/games/dicegame/static/dicegame.css" in page
    assert "42 to 42" in page and "Roll 2 of 3" in page and "2 catapults thrown" in page
    tray = re.search(r"In the tray: (.*?)</p>", page, re.S)
    assert tray is not None and re.findall(r'title="(\w+)"', tray.group(1)) == ["knight", "corner"]
    assert page.count('class="dg-die"') == 5  # the city: 5 dice laid, drawn once
    assert "City 1: 5 dice, open on 2 sides" in page and "No city is closed." in page
    assert page.count('class="dg-open"') == 2  # its two open sides, marked
    # the part drawn again live is the same
    part = site.client.get("/parts/scoreboard").get_data(as_text=True)
    assert part.count('class="dg-die"') == 5


def test_after_a_turn_the_scoreboard_shows_its_city_and_score(site: Site) -> None:
    start(site, example(9), faces=READING1)
    page = site.client.get("/").get_data(as_text=True)
    assert "Last turn: closed city of 6 dice = 10" in page and "32 to 42" in page
    assert "City 1: 6 dice, closed" in page and "The largest closed city has 6 dice." in page
    assert page.count("dg-scored") == 6
    assert "Turn 2 · Ben's turn" in page and "9 dice to throw" in page
    assert "Ana's city, last turn" in board_of(page)


def board_of(page: str) -> str:
    """What the scoreboard draws between the players and the latest scores: the game's table."""
    return page.split('id="players"', 1)[1].split("</ol>", 1)[1].split('aria-label="Latest scores"', 1)[0]


def test_the_city_is_drawn_once_below_the_players_with_the_style_in_the_head(site: Site) -> None:
    start(site, example(7), faces=READING1)
    page = site.client.get("/").get_data(as_text=True)
    players = page.split('id="players"', 1)[1].split("</ol>", 1)[0]
    assert "dg-city" not in players and "Roll 2 of 3" in players  # the turn's facts stay in its line
    board = board_of(page)
    assert board.count('class="dg-city"') == 1 and board.count('class="dg-die"') == 5
    assert "Ana's city" in board
    head = page.split("</head>", 1)[0]
    assert '<link rel="stylesheet" href="/games/dicegame/static/dicegame.css">' in head
    assert page.count("dicegame.css") == 1
    for path in ("/fix", "/timeline", "/setup?game=dicegame"):
        html = site.client.get(path).get_data(as_text=True)
        assert html.count("dicegame.css") == 1 and "dicegame.css" in html.split("</head>", 1)[0], path


def test_the_winner_screen_says_how_each_player_scored_and_the_game_ends_from_setup(site: Site) -> None:
    path = Path(__file__).parent / "records" / "dicegame" / "reach-42.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    setup = site.client.get("/setup").get_data(as_text=True)
    assert 'id="end-game"' not in setup  # no game yet
    start(site, [json.loads(line) for line in lines[1:4]], faces=READING1)
    assert 'id="end-game"' in site.client.get("/setup").get_data(as_text=True)  # a bare "end" ends it
    fixed = {"event": "adjust", "player": "Ben", "points": 2, "reason": "a miscount"}
    for event in [*(json.loads(line) for line in lines[4:]), fixed]:
        assert site.post("/api/event", event).status_code == 200
    state = site.client.get("/api/state").get_json()
    assert state["breakdown"] == {"Ana": [["cities", 42]], "Ben": [["cities", 36], ["corrected by hand", 2]]}
    winner = site.client.get("/").get_data(as_text=True).split('id="winner"', 1)[1].split("</section>", 1)[0]
    shown = re.sub(r"<[^>]+>", "", winner)  # the words a player reads
    assert "cities 42" in shown and "cities 36 · corrected by hand 2" in shown


def test_a_kept_knight_is_shown_beside_its_holder(site: Site) -> None:
    start(
        site,
        [roll("Ana", *NINE), knight("Ana"), knight("Ana"), knight("Ana"), {"event": "keep", "player": "Ana"}],
    )
    page = site.client.get("/").get_data(as_text=True)
    ana = page[page.index('data-player="Ana"') : page.index('data-player="Ben"')]
    assert "holds a kept knight" in ana and "8 dice to throw" in page


def test_an_event_after_a_win_names_the_line_of_the_win_in_the_games_record(site: Site) -> None:
    start(site, [roll("Ana", *NINE), score("Ana"), roll("Ben", *["catapult"] * 9)])
    refused = site.post("/api/event", roll("Ana", *NINE))
    assert refused.status_code == 422
    assert refused.get_json()["message"] == "the game is over: Ben won at line 4; only 'end' may follow"
    record = site.client.get("/api/record").get_data(as_text=True).splitlines()
    assert json.loads(record[3])["dice"] == ["catapult"] * 9  # line 4: Ben's roll
    # an event inserted before it moves the win to line 5, and the refusal says so
    fixed = {"event": "adjust", "player": "Ana", "points": 1, "reason": "a miscount"}
    inserted = site.post("/api/corrections", {"op": "insert", "index": 0, "event": fixed, "reason": "a test"})
    assert inserted.status_code == 200, inserted.get_json()
    again = site.post("/api/event", roll("Ana", *NINE))
    assert again.get_json()["message"] == "the game is over: Ben won at line 5; only 'end' may follow"


def test_the_fix_page_offers_the_dice_in_taps(site: Site) -> None:
    start(site, example(5), faces=READING1)
    fix = site.client.get("/fix").get_data(as_text=True)
    entry = fix[fix.index('id="dice-entry"') :]
    assert 'data-player="Ana"' in entry and 'data-to-roll="4"' in entry
    # a button for each face to enter a roll, and each die of the tray to set aside
    assert re.findall(r'class="dg-add" data-face="([\w-]+)"', entry) == [
        "knight",
        "catapult",
        "cap",
        "corner",
        "straight",
        "three",
    ]
    assert re.findall(r'class="dg-take" data-face="([\w-]+)"', entry) == ["knight", "knight", "cap", "three"]
    # the drawn city's cells, each tapped to lay a die; where each die of the tray fits, and how turned
    fits = json.loads(re.search(r'data-fits="([^"]*)"', entry).group(1).replace("&#34;", '"'))  # type: ignore[union-attr]
    assert fits["cap"]["1,1"] == [3] and fits["cap"]["1,-1"] == [0, 1, 3]  # never city on white
    assert 'data-at="1,1"' in entry and 'id="dg-proto-cap"' in entry
    assert "Score the turn: no closed city = 0" in entry and "keep-knight" not in entry
    assert '<script defer src="/games/dicegame/static/dicegame.js"></script>' in fix
    assert site.client.get("/games/dicegame/static/dicegame.js").status_code == 200
    assert site.client.get("/games/dicegame/static/dicegame.css").status_code == 200


def test_an_aside_the_rules_refuse_is_answered_with_the_rule(site: Site) -> None:
    start(site, [roll("Ana", *NINE), lay("Ana", "cap", 0, 0, 1)])
    refused = site.post("/api/event", lay("Ana", "corner", 1, 0, 0))
    assert refused.status_code == 422
    assert refused.get_json()["message"].endswith(
        "has no city on its W side, but the cap at [0, 0] has city on its E side"
    )


def test_a_score_page_shows_the_turns_breakdown(site: Site) -> None:
    start(site, example(9), faces=READING1)
    view = site.client.get("/api/scores/0").get_json()
    assert view["score"]["reason"] == "closed city of 6 dice = 10"
    assert view["extras"]["city"]["cities"][0]["closed"] is True
    page = site.client.get("/scores/0").get_data(as_text=True)
    assert "The city of turn 1" in page and page.count("dg-scored") == 6
    assert "6 dice, closed" in page and "Catapults thrown (passed on)</dt><dd>2" in page
    assert "Only the dice of the largest closed city count" in page
    assert page.count("dicegame.css") == 1 and "dicegame.css" in page.split("</head>", 1)[0]


def test_setup_writes_the_faces_table_into_the_record(site: Site) -> None:
    page = site.client.get("/setup?game=dicegame").get_data(as_text=True)
    assert "Carcassonne: The Dice Game" in page and 'name="color"' not in page
    assert 'name="option:faces" data-json' in page and 'value="reading1"' in page
    assert manifest("dicegame").setup_defaults["faces"] == READING1
    # what the setup page sends: the players by name, the table in full
    assert site.post("/api/games", header("Ana", "Ben", faces=READING1)).status_code == 201
    record = site.client.get("/api/record").get_data(as_text=True)
    assert json.loads(record.splitlines()[0])["faces"] == READING1


def test_the_fix_page_corrects_an_event_in_taps(site: Site) -> None:
    start(site, [roll("Ana", *NINE), lay("Ana", "cap", 0, 0, 1), score("Ana")])
    fix = site.client.get("/fix").get_data(as_text=True)
    assert fix.count('class="dg-edit-die"') == 9  # one choice of face for each die of the roll
    assert 'data-field="rotation" data-as="number"' in fix and 'class="dg-move-die" data-side="E"' in fix


def test_dice_laid_far_apart_draw_only_the_cells_beside_them(site: Site) -> None:
    """A die may touch nothing, so two dice may lie a thousand cells apart: the fix page draws
    the cells a die may go to, not every cell between them."""
    start(site, [roll("Ana", *NINE), lay("Ana", "cap", 0, 0, 1), lay("Ana", "corner", 1000, 1000, 0)])
    fix = site.client.get("/fix")
    assert fix.status_code == 200
    entry = fix.get_data(as_text=True).split('id="dice-entry"', 1)[1]
    # the 8 cells around each die, no more
    assert entry.count('class="dg-cell"') == 16
    assert 'data-at="1001,1001"' in entry and 'data-at="-1,-1"' in entry and 'data-at="500,500"' not in entry
    assert "max-width: 40rem" in entry
