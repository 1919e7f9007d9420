"""Odd requests to the scoreboard's API get a 4xx with the reason, and change nothing stored:
paths no file can have, headers too long to be a number, corrections that contradict themselves,
and text no phone should send."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import Site


def record(site: Site) -> str:
    response = site.client.get("/api/games/1/record")
    assert response.status_code == 200
    text: str = response.get_data(as_text=True)
    return text


@pytest.mark.parametrize(
    "path", ["/evidence/%00.jpg", "/evidence/1/a%00b.jpg", "/evidence/1/" + "a" * 5000 + ".jpg"]
)
def test_an_evidence_path_no_file_can_have_is_not_found(site: Site, path: str) -> None:
    (site.state_dir / "evidence" / "1").mkdir(parents=True)
    response = site.client.get(path)
    assert response.status_code == 404


def test_a_base_header_too_long_to_be_an_entry_is_a_400(site: Site) -> None:
    site.play("route-battle.jsonl", events=3)
    before = record(site)
    response = site.post("/api/end", {}, **{"X-Base-Seq": "9" * 5000})
    assert response.status_code == 400
    assert "X-Base-Seq must be a journal entry number" in response.get_json()["message"]
    assert "(5000 characters)" in response.get_json()["message"]
    assert record(site) == before


@pytest.mark.parametrize(
    ("path", "body", "says"),
    [
        ("/api/corrections", {"op": "undo", "index": "abc", "reason": "r"}, '"undo" takes no "index"'),
        ("/api/corrections", {"op": "undo", "index": 0, "reason": "r"}, '"undo" takes no "index"'),
        (
            "/api/undo",
            {"op": "remove", "index": 0, "reason": "r"},
            "other corrections go to /api/corrections",
        ),
        ("/api/end", "this is not json {{{", "the body: not valid JSON"),
        ("/api/end", {"event": "end"}, "/api/end takes an empty object"),
        (
            "/api/event",
            {"event": "adjust", "player": "Ana", "points": 1, "reason": "x" * 501},
            "501 characters",
        ),
        ("/api/undo", {"reason": "x" * 501}, '"reason" is 501 characters: say it in 500 or fewer'),
    ],
)
def test_a_contradictory_or_overlong_change_is_refused_and_nothing_changes(
    site: Site, path: str, body: Any, says: str
) -> None:
    site.play("route-battle.jsonl", events=4)
    before = record(site)
    response = site.post(path, body)
    assert response.status_code == 400, response.get_json()
    assert says in response.get_json()["message"]
    assert record(site) == before


def test_the_base_header_guards_corrections_as_it_guards_events(site: Site) -> None:
    site.play("route-battle.jsonl", events=4)
    seq = site.client.get("/api/state").get_json()["seq"]
    before = record(site)
    stale = site.post("/api/undo", {"reason": "misread"}, **{"X-Base-Seq": str(seq - 1)})
    assert stale.status_code == 409 and "has changed" in stale.get_json()["message"]
    torn = site.post("/api/undo", {"reason": "misread", "base": seq}, **{"X-Base-Seq": str(seq - 1)})
    assert torn.status_code == 400 and "name different entries" in torn.get_json()["message"]
    assert record(site) == before
    done = site.post("/api/undo", {"reason": "misread", "base": seq}, **{"X-Base-Seq": str(seq)})
    assert done.status_code == 200
    assert record(site) != before


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("A" * 41, "at most 40 characters"),
        (" Ana", "spaces before or after"),
        ("\u200b", "nothing to see"),
        ("\u0000", "nothing to see"),
        ("Ana\u200b", "control or invisible character (U+200B)"),
        ("A\tB", "control or invisible character (U+0009)"),
        ("A\u0000B", "control or invisible character (U+0000)"),
        ("\u202eAna", "control or invisible character (U+202E)"),
        ("A\nB", "control or invisible character (U+000A)"),
        ("A\u2028B", "control or invisible character (U+2028)"),
    ],
)
def test_a_name_no_one_could_read_or_tell_apart_is_refused(site: Site, name: str, says: str) -> None:
    header = {
        "game": "starwars",
        "players": [{"name": name, "color": "red"}, {"name": "Ben", "color": "black"}],
    }
    response = site.post("/api/games", header)
    assert response.status_code == 400
    assert says in response.get_json()["message"]
    assert site.client.get("/api/games").get_json() == []


def test_a_name_of_any_alphabet_is_welcome(site: Site) -> None:
    header = {
        "game": "starwars",
        "players": [{"name": "Zoë 李", "color": "red"}, {"name": "\u0391\u03bd\u03b1", "color": "black"}],
    }
    assert site.post("/api/games", header).status_code == 201
    # emoji written with joiners and a flag's tags are names too
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    header = {
        "game": "starwars",
        "players": [
            {"name": f"Ana {scotland}", "color": "red"},
            {"name": "Ben \U0001f469\u200d\U0001f680", "color": "black"},
        ],
    }
    assert site.post("/api/games?abandon=1", header).status_code == 201


@pytest.mark.parametrize(
    ("players", "says"),
    [
        (["Ana", "\uff21na"], "look the same"),  # a full-width A
        (["Ana Lu", "Ana  Lu"], "look the same"),
        (["Ana", "Ana\u200d"], "look the same"),  # a zero-width joiner
        (["Ana", "Ana\ufe0f"], "look the same"),  # a variation selector
    ],
)
def test_two_names_that_look_the_same_are_refused(site: Site, players: list[str], says: str) -> None:
    header = {
        "game": "starwars",
        "players": [{"name": n, "color": c} for n, c in zip(players, ("red", "black"), strict=True)],
    }
    response = site.post("/api/games", header)
    assert response.status_code == 400 and says in response.get_json()["message"]
    assert site.client.get("/api/games").get_json() == []


def test_a_colour_is_a_short_visible_word(site: Site) -> None:
    for colour, says in [("x" * 41, "at most 40 characters"), ("red\u202e", "U+202E")]:
        header = {
            "game": "castle",
            "players": [{"name": "Ana", "color": colour}, {"name": "Ben", "color": "blue"}],
        }
        response = site.post("/api/games", header)
        assert response.status_code == 400 and says in response.get_json()["message"]
    assert site.client.get("/api/games").get_json() == []


def test_the_record_of_a_past_game_is_not_asked_of_the_game_under_way(site: Site) -> None:
    site.play("route-battle.jsonl", events=2)
    response = site.client.get("/api/record?game=1")
    assert response.status_code == 400 and "/api/games/ID/record" in response.get_json()["message"]
    assert site.client.get("/api/record").status_code == 200


def test_a_base_ahead_of_the_game_says_both_entries(site: Site) -> None:
    site.play("route-battle.jsonl", events=4)
    seq = site.client.get("/api/state").get_json()["seq"]
    before = record(site)
    response = site.post("/api/undo", {"reason": "misread"}, **{"X-Base-Seq": "999"})
    assert response.status_code == 409
    assert f"it was sent at entry 999; the game is at entry {seq}" in response.get_json()["message"]
    assert record(site) == before


def test_a_body_with_a_byte_order_mark_is_read_and_two_values_are_named(site: Site) -> None:
    site.play("route-battle.jsonl", events=4)
    before = record(site)
    two = site.post("/api/undo", '{"reason": "a"}\n{"reason": "b"}')
    assert two.status_code == 400
    assert "more after the first JSON value (line 2, column 1)" in two.get_json()["message"]
    assert record(site) == before
    marked = site.post("/api/undo", "\ufeff" + json.dumps({"reason": "misread"}))
    assert marked.status_code == 200, marked.get_json()
