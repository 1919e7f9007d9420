"""The state-changing endpoints: starting a game, events, undo, corrections, score fixes.

route-battle.jsonl, used most here, has 12 events (0-11): 0 the start tile, 1 Ana's tile,
2 Ben's tile, 3 his meeple, 4-6 tiles, 7 Ana's meeple, 8 Ben's tile, 9 Ana's tile joining the
two routes, 10 Ana's roll [6], 11 Ben's roll [1].
"""

from __future__ import annotations

import json

from conftest import Site, make_site, record_lines

from companion.record import parse_record

PLANET_TILE = {"features": [{"kind": "planet", "symbols": ["rebels"]}]}

# a game the record contract names that has no package here yet (castle, say), if any is left


def players(*entries: tuple[str, str]) -> list[dict[str, str]]:
    return [{"name": name, "color": colour} for name, colour in entries]


def test_start_a_game_from_the_setup_page(site: Site) -> None:
    header = {"game": "starwars", "variant": "standard", "players": players(("Ana", "red"), ("Ben", "green"))}
    response = site.post("/api/games", header)
    assert response.status_code == 201
    assert response.get_json()["game_id"] == 1
    state = site.client.get("/api/state").get_json()
    assert state["game"] == "starwars" and state["scores"] == {"Ana": 0, "Ben": 0}


def test_a_bad_setup_says_what_is_wrong(site: Site) -> None:
    cases = {
        "two players are called": {"game": "starwars", "players": players(("A", "red"), ("A", "green"))},
        "2 to 5 players": {"game": "starwars", "players": players(("A", "red"))},
        'missing "game"': {"players": []},
        'unknown key "colour"': {
            "game": "starwars",
            "players": [{"name": "A", "colour": "red", "color": "red"}, {"name": "B", "color": "white"}],
        },
    }
    for words, header in cases.items():
        response = site.post("/api/games", header)
        assert response.status_code == 400, words
        assert words in response.get_json()["message"]


def test_events_score_and_illegal_ones_are_refused_with_the_rule(site: Site) -> None:
    site.play("route-battle.jsonl", events=10)
    wrong = site.post("/api/event", {"event": "tile", "player": "Ben", "at": [5, 5], "tile": PLANET_TILE})
    assert wrong.status_code == 422
    assert wrong.get_json()["message"].startswith("a battle for the trade route at [0, 0] is waiting")
    assert site.post("/api/event", {"event": "roll", "player": "Ana", "dice": [6]}).status_code == 200
    last = site.post("/api/event", {"event": "roll", "player": "Ben", "dice": [1]})
    assert last.status_code == 200
    body = last.get_json()
    assert body["scores"] == {"Ana": 4, "Ben": 1}
    assert [c["reason"] for c in body["changes"]] == [
        "battle for the trade route, round 1: lost with 1 die = 1",
        "trade route: 4 tiles x 1 = 4",
    ]


def test_an_event_without_a_game_is_refused(site: Site) -> None:
    response = site.post("/api/event", {"event": "end"})
    assert response.status_code == 422
    assert "start one on the setup page" in response.get_json()["message"]


def test_end_scores_the_end(site: Site) -> None:
    site.play("final-scoring.jsonl", events=8)
    response = site.post("/api/end", {})
    assert response.status_code == 200 and response.get_json()["scores"] == {"Ana": 10, "Ben": 7}
    assert site.post("/api/end", {}).status_code == 422  # not twice


def test_undo_takes_the_last_event_back_and_says_why(site: Site) -> None:
    site.play("route-battle.jsonl")
    assert site.client.get("/api/state").get_json()["scores"] == {"Ana": 4, "Ben": 1}
    response = site.post("/api/undo", {"reason": "the die was cocked"})
    assert response.status_code == 200
    state = site.client.get("/api/state").get_json()
    assert state["scores"] == {"Ana": 0, "Ben": 0} and state["extras"]["phase"] == "battle"
    top = site.client.get("/api/timeline").get_json()[0]
    assert top["kind"] == "correction" and top["reason"] == "the die was cocked"
    assert top["text"] == "Undone: Ben rolled 1"
    assert "Why: the die was cocked" in site.client.get("/timeline").get_data(as_text=True)
    assert site.post("/api/undo", {}).status_code == 400  # a reason is required


def test_fix_a_die_a_meeple_and_a_tile(site: Site) -> None:
    site.play("route-battle.jsonl")
    # the die: Ben rolled a 6, not a 1 -> a tie, and both roll again
    die = {"event": "roll", "player": "Ben", "dice": [6]}
    assert (
        site.post(
            "/api/corrections", {"op": "replace", "index": 11, "event": die, "reason": "a six"}
        ).status_code
        == 200
    )
    state = site.client.get("/api/state").get_json()
    assert state["scores"] == {"Ana": 1, "Ben": 1} and state["extras"]["phase"] == "battle"
    # the meeple: were it large, Ana would roll 2 dice, and her recorded roll of one no longer fits
    large = {"event": "meeple", "player": "Ana", "at": [2, 0], "feature": "W", "size": "large"}
    refused = site.post("/api/corrections", {"op": "replace", "index": 7, "event": large, "reason": "large"})
    assert refused.status_code == 422
    assert "Ana rolls 2 dice in this battle, not 1" in refused.get_json()["message"]
    # the tile: two routes ending at the planet, not one through it -> no battle; both routes close
    for _ in range(2):
        assert site.post("/api/undo", {"reason": "rolls for a battle that never was"}).status_code == 200
    features = [
        {"kind": "route", "edges": "W"},
        {"kind": "route", "edges": "E"},
        {"kind": "planet", "symbols": ["rebels"]},
    ]
    tile = {"event": "tile", "player": "Ana", "at": [1, 0], "tile": {"features": features}}
    fixed = site.post(
        "/api/corrections", {"op": "replace", "index": 9, "event": tile, "reason": "two routes"}
    )
    assert fixed.status_code == 200, fixed.get_json()
    site.post("/api/event", {"event": "end"})
    log = site.client.get("/api/state").get_json()["log"]
    assert [(e["player"], e["reason"]) for e in log] == [
        ("Ana", "trade route: 2 tiles x 1 = 2"),
        ("Ben", "trade route: 3 tiles x 1 = 3"),
    ]


def test_insert_a_missed_tile_and_fix_a_score(site: Site) -> None:
    site.play("route-three.jsonl", events=3)  # the start tile, Ana's tile, Ana's meeple
    missed = {"features": [{"kind": "asteroid", "edges": "N"}, {"kind": "route", "edges": "E"}]}
    event = {"event": "tile", "player": "Ben", "at": [-1, 0], "tile": missed}
    inserted = site.post("/api/corrections", {"op": "insert", "index": 3, "event": event, "reason": "missed"})
    assert inserted.status_code == 200
    site.post("/api/event", {"event": "end"})
    assert site.client.get("/api/state").get_json()["scores"] == {"Ana": 3, "Ben": 0}
    adjust = site.post("/api/event", {"event": "adjust", "player": "Ben", "points": 2, "reason": "agreed"})
    assert adjust.status_code == 200 and adjust.get_json()["scores"] == {"Ana": 3, "Ben": 2}
    log = site.client.get("/api/state").get_json()["log"]
    assert log[-1]["reason"] == "score corrected by hand: agreed = 2" and log[-1]["kind"] == "adjust"


def test_corrections_show_in_the_record_and_survive_a_restart(site: Site) -> None:
    site.play("route-battle.jsonl")
    five = {"event": "roll", "player": "Ana", "dice": [5]}
    site.post("/api/corrections", {"op": "replace", "index": 10, "event": five, "reason": "it was a five"})
    record = site.client.get("/api/record").get_data(as_text=True)
    corrected = json.loads(record.splitlines()[11])  # line 1 is the header
    assert corrected["dice"] == [5]
    assert corrected["meta"]["correction"]["was"]["dice"] == [6]
    assert corrected["meta"]["correction"]["reason"] == "it was a five"
    assert parse_record(record).events[10][1].dice == (5,)
    again = make_site(site.state_dir)
    assert again.client.get("/api/state").get_json() == site.client.get("/api/state").get_json()
    assert again.client.get("/api/record").get_data(as_text=True) == record
    again.table.store.close()


def test_a_correction_that_breaks_the_rules_changes_nothing(site: Site) -> None:
    site.play("route-battle.jsonl")
    before = (site.client.get("/api/state").get_json(), site.client.get("/api/timeline").get_json())
    bad = site.post("/api/corrections", {"op": "remove", "index": 0, "reason": "no start tile"})
    assert bad.status_code == 422
    assert bad.get_json()["message"].startswith("event 1 (Ana placed a tile: an Empire planet) would break")
    assert (site.client.get("/api/state").get_json(), site.client.get("/api/timeline").get_json()) == before


def test_a_correction_against_an_old_view_is_refused(site: Site) -> None:
    site.play("route-battle.jsonl")
    seq = site.client.get("/api/state").get_json()["seq"]
    assert site.post("/api/undo", {"reason": "first phone", "base": seq}).status_code == 200
    stale = site.post("/api/undo", {"reason": "second phone", "base": seq})
    assert stale.status_code == 409
    assert "has changed since this was sent" in stale.get_json()["message"]


def test_corrections_say_what_is_missing(site: Site) -> None:
    site.play("route-battle.jsonl")
    cases = [
        ({"op": "replace", "index": 3, "reason": "x"}, 'needs "event"'),
        ({"op": "replace", "event": {"event": "end"}, "reason": "x"}, 'needs "index"'),
        ({"op": "remove", "index": 99, "reason": "x"}, '"index" in a correction must be 0 to 11'),
        ({"op": "remove", "index": 3, "event": {"event": "end"}, "reason": "x"}, 'takes no "event"'),
        ({"op": "rotate", "index": 3, "reason": "x"}, '"op" in a correction must be one of'),
        ({"op": "remove", "index": 3, "reason": ""}, "must not be empty"),
        (
            {"op": "replace", "index": 3, "event": {"event": "jump"}, "reason": "x"},
            '"event" in an event must be one of',
        ),
    ]
    for request, words in cases:
        response = site.post("/api/corrections", request)
        assert response.status_code == 400, request
        assert words in response.get_json()["message"], response.get_json()


def test_the_fix_page_offers_each_event(site: Site) -> None:
    site.play("route-battle.jsonl")
    html = site.client.get("/fix").get_data(as_text=True)
    assert html.count('data-op="replace"') == 12
    assert 'id="event-11"' in html and "Ben rolled 1" in html
    assert 'data-field="dice" data-as="numbers" value="1"' in html


def test_record_lines_helper_reads_headers_without_expectations() -> None:
    header, events = record_lines("route-battle.jsonl")
    assert "meta" not in header and len(events) == 12


def test_a_retried_event_cannot_be_added_twice(site: Site) -> None:
    site.play("route-battle.jsonl", events=10)
    seq = site.client.get("/api/state").get_json()["seq"]
    roll = {"event": "roll", "player": "Ana", "dice": [6]}
    assert site.post("/api/event", roll, **{"X-Base-Seq": str(seq)}).status_code == 200
    retry = site.post("/api/event", roll, **{"X-Base-Seq": str(seq)})  # the answer was lost: sent again
    assert retry.status_code == 409
    assert "has changed since this was sent" in retry.get_json()["message"]
    assert site.client.get("/api/state").get_json()["seq"] == seq + 1
    assert site.post("/api/event", roll, **{"X-Base-Seq": "soon"}).status_code == 400


def test_the_list_of_games_is_mended_from_the_journal(site: Site) -> None:
    site.play("route-three.jsonl")
    site.table.store.set_ended(1, None)  # as if the server died between the journal and the list
    again = make_site(site.state_dir)
    assert again.client.get("/api/games").get_json()[0]["ended"] is not None
    again.table.store.close()


def test_a_new_game_does_not_silently_replace_the_one_under_way(site: Site) -> None:
    site.play("route-battle.jsonl", events=5)
    header, _ = record_lines("route-three.jsonl")
    refused = site.post("/api/games", header)
    assert refused.status_code == 409 and "a game is under way" in refused.get_json()["message"]
    assert site.client.get("/api/state").get_json()["events"] == 5
    assert site.post("/api/games?abandon=1", header).status_code == 201
    assert "left unfinished" in site.client.get("/games").get_data(as_text=True)


def test_a_correction_that_changes_nothing_is_refused(site: Site) -> None:
    site.play("route-battle.jsonl")
    same = {"event": "roll", "player": "Ben", "dice": [1]}
    response = site.post("/api/corrections", {"op": "replace", "index": 11, "event": same, "reason": "x"})
    assert response.status_code == 400 and "would change nothing" in response.get_json()["message"]


def test_the_record_lists_every_correction_with_its_reason(site: Site) -> None:
    site.play("route-battle.jsonl")
    site.post("/api/undo", {"reason": "the die was cocked"})
    site.post("/api/event", {"event": "roll", "player": "Ben", "dice": [2]})
    header = json.loads(site.client.get("/api/record").get_data(as_text=True).splitlines()[0])
    (undo,) = header["meta"]["corrections"]
    assert undo["op"] == "undo" and undo["reason"] == "the die was cocked" and undo["was"]["dice"] == [1]


def test_pages_carry_the_entry_they_were_drawn_from(site: Site) -> None:
    site.play("route-battle.jsonl")
    seq = site.client.get("/api/state").get_json()["seq"]
    assert f'<body data-seq="{seq}" data-game="starwars">' in site.client.get("/fix").get_data(as_text=True)
