"""A toy game registered only by the tests (tests/toygame/: its own package, a few rules) is
served end to end with nothing changed outside its package: the pages, the API and its live
stream, replay, simulate, the store and a restart."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Site, make_site
from toygame.manifest import MANIFEST

from companion.cli import main
from companion.games.registry import manifests, register, unregister

HEADER = {
    "record": 1,
    "game": "toy",
    "players": [{"name": "Ana", "color": "red"}, {"name": "Ben", "color": "blue"}],
}
THROWS = [
    {"event": "throw", "player": "Ana", "die": 3},
    {"event": "throw", "player": "Ben", "die": 1},  # a 1 scores nothing
    {"event": "throw", "player": "Ana", "die": 6},  # a 6: Ana throws again
    {"event": "throw", "player": "Ana", "die": 1},
]


@pytest.fixture(autouse=True)
def toy() -> Iterator[None]:
    register(MANIFEST)
    yield
    unregister(MANIFEST.name)


@pytest.fixture
def toy_site(tmp_path: Path) -> Iterator[Site]:
    site = make_site(tmp_path / "state")
    yield site
    site.table.store.close()


def play(site: Site, events: list[dict[str, Any]]) -> None:
    assert site.post("/api/games", HEADER).status_code == 201
    for event in events:
        response = site.post("/api/event", event)
        assert response.status_code == 200, response.get_json()


def test_the_toy_is_a_game_of_the_registry_only_while_registered() -> None:
    assert "toy" in [m.name for m in manifests()]
    unregister("toy")
    assert "toy" not in [m.name for m in manifests()]
    register(MANIFEST)


def test_the_pages_draw_the_toy_with_its_own_partials(toy_site: Site) -> None:
    play(toy_site, THROWS)
    state = toy_site.client.get("/api/state").get_json()
    assert state["game"] == "toy" and state["title"] == "Toy dice race"
    assert state["scores"] == {"Ana": 9, "Ben": 0} and state["turn_of"] == "Ben"
    assert [p["counters"] for p in state["players"]] == [{"throws": 3}, {"throws": 1}]
    page = toy_site.client.get("/").get_data(as_text=True)
    assert "Toy dice race" in page and "Turn 4 · Ben's turn" in page
    assert "3 throws, 1 to go" in page  # its own player line (tests/toygame/templates)
    assert "last throw 1" in page  # and its own summary
    assert "threw 6 = 6" in toy_site.client.get("/timeline").get_data(as_text=True)
    assert "threw 3 = 3" in toy_site.client.get("/parts/timeline").get_data(as_text=True)
    fix = toy_site.client.get("/fix").get_data(as_text=True)
    assert fix.count('data-op="replace"') == 4 and "Ana threw 1" in fix
    setup = toy_site.client.get("/setup?game=toy").get_data(as_text=True)
    assert "Toy dice race" in setup and "2 to 4" in setup and '<option value="yellow"' in setup
    view = toy_site.client.get("/api/scores/0").get_json()
    assert view["score"]["reason"] == "threw 3 = 3" and view["picture"] is None
    assert "What was counted" not in toy_site.client.get("/scores/0").get_data(as_text=True)


def test_the_toy_is_won_and_the_winner_named(toy_site: Site) -> None:
    play(
        toy_site,
        [
            *THROWS,
            {"event": "throw", "player": "Ben", "die": 5},
            {"event": "throw", "player": "Ana", "die": 3},
        ],
    )
    state = toy_site.client.get("/api/state").get_json()
    assert state["finished"] and state["winners"] == ["Ana"]
    assert "Ana wins" in toy_site.client.get("/").get_data(as_text=True)
    refused = toy_site.post("/api/event", {"event": "throw", "player": "Ben", "die": 3})
    assert refused.status_code == 422 and "over" in refused.get_json()["message"]


def test_the_live_stream_carries_the_toys_state(toy_site: Site) -> None:
    play(toy_site, THROWS[:1])
    response = toy_site.client.get("/api/events", buffered=False)
    chunks = iter(response.response)
    assert next(chunks) == b"retry: 2000\n\n"
    first = json.loads(next(chunks).decode().split("data: ", 1)[1])
    assert first["game"] == "toy" and first["turn_of"] == "Ben"
    assert toy_site.post("/api/event", THROWS[1]).status_code == 200
    update = json.loads(next(chunks).decode().split("data: ", 1)[1])
    assert update["turn_of"] == "Ana" and update["log"][-1]["reason"] == "threw 1, a 1 scores nothing = 0"
    response.close()


def test_the_store_keeps_the_toy_across_a_restart(toy_site: Site, tmp_path: Path) -> None:
    play(toy_site, THROWS)
    assert toy_site.post("/api/undo", {"reason": "the die fell off the table"}).status_code == 200
    before = toy_site.client.get("/api/state").get_json()
    toy_site.table.store.close()
    again = make_site(tmp_path / "state")
    try:
        after = again.client.get("/api/state").get_json()
        assert (after["scores"], after["turn_of"], after["events"]) == (
            before["scores"],
            before["turn_of"],
            before["events"],
        )
        record = again.client.get("/api/record").get_data(as_text=True)
        assert json.loads(record.splitlines()[0])["game"] == "toy"
    finally:
        again.table.store.close()


def test_simulate_and_replay_the_toy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "toy.jsonl"
    assert main(["simulate", "--game", "toy", "--players", "3", "--seed", "4", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"wrote {out}" in err and "won by" in err
    assert main(["replay", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["game"] == "toy" and result["finished"] is True and len(result["winners"]) == 1
    assert result["scores"][result["winners"][0]] >= 10
    assert main(["replay", str(out)]) == 0
    assert capsys.readouterr().out.startswith("Toy dice race (standard): finished, won by")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps(HEADER) + "\n" + json.dumps({"event": "throw", "player": "Ben", "die": 3}) + "\n"
    )
    assert main(["replay", str(bad)]) == 1
    assert capsys.readouterr().err.strip() == "line 2: it is Ana's throw, not Ben's"
