"""Odd requests to the scoreboard's API get a 4xx with the reason, and change nothing stored:
paths no file can have, headers too long to be a number, corrections that contradict themselves,
and text no phone should send."""

from __future__ import annotations

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
