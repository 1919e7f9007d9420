"""Evidence: every score keeps the camera's picture of what it counted, served to phones, within
a budget; a full disk is a clear status and never a lost event."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import Site, record_lines

from companion.games.base import ScoreChange
from companion.live.evidence import MIB, EvidenceKeeper, Picture
from companion.store import GameStore

SQUARE = bytes(cv2.imencode(".jpg", np.full((40, 40, 3), 128, np.uint8))[1])


class Camera:
    """An evidence source that gives one picture per score with cells, and one of the table when
    asked with none; it remembers what it was asked."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def pictures(self, changes: Sequence[ScoreChange]) -> list[Picture]:
        self.asked.append([c.reason for c in changes])
        if not changes:
            return [Picture(SQUARE)]
        return [Picture(SQUARE, index) for index, change in enumerate(changes) if change.cells]


def served(site: Site, path: str) -> bytes:
    response = site.client.get(f"/{path}")
    assert response.status_code == 200, path
    return bytes(response.data)


def test_each_score_opens_with_its_own_picture(site: Site) -> None:
    camera = Camera()
    site.table.set_evidence(camera)
    site.play("three-battles-one-turn.jsonl")
    log = site.client.get("/api/state").get_json()["log"]
    assert log, "the record scores"
    for entry in log:
        view = site.client.get(f"/api/scores/{entry['index']}").get_json()
        if entry.get("cells"):
            assert len(view["evidence"]) == 1, entry
            assert served(site, view["evidence"][0]) == SQUARE
    page = site.client.get(f"/scores/{log[-1]['index']}").get_data(as_text=True)
    assert "What the camera saw when this was scored" in page
    record = site.client.get("/api/record").get_data(as_text=True)
    assert '"evidence_of"' in record  # the record says which picture shows which score
    assert all(asked for asked in camera.asked)  # pictures are made only for events that score


def test_a_correction_keeps_the_table_as_it_was(site: Site) -> None:
    site.table.set_evidence(Camera())
    site.play("route-three.jsonl", events=3)
    assert site.post("/api/undo", {"reason": "the tile was turned"}).status_code == 200
    timeline = site.client.get("/api/timeline").get_json()
    correction = next(item for item in timeline if item["kind"] == "correction")
    assert len(correction["evidence"]) == 1 and served(site, correction["evidence"][0]) == SQUARE


def test_without_a_camera_a_score_has_no_picture_but_the_board_drawn(site: Site) -> None:
    site.play("route-three.jsonl")
    view = site.client.get("/api/scores/0").get_json()
    assert view["evidence"] == [] and view["picture"].startswith("<svg")


def test_a_game_keeps_pictures_within_its_budget(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    keeper = EvidenceKeeper(store, budget=3 * len(SQUARE), free=lambda _: 10**12)
    kept = [keeper.keep(1, [Picture(SQUARE, 0)]).paths for _ in range(4)]
    assert [len(paths) for paths in kept] == [1, 1, 1, 0]
    assert keeper.problem is not None and "later scores are kept without them" in keeper.problem
    assert keeper.used(1) == 3 * len(SQUARE) and keeper.keep(2, [Picture(SQUARE)]).paths  # another game
    store.close()


def test_a_nearly_full_disk_stops_the_pictures_not_the_events(site: Site) -> None:
    site.table.set_evidence(Camera())
    site.table.keeper = EvidenceKeeper(site.table.store, free=lambda _: 10 * MIB)
    site.play("route-three.jsonl")
    state = site.client.get("/api/state").get_json()
    assert state["scores"] == {"Ana": 3, "Ben": 1}  # every event recorded
    assert site.client.get("/api/scores/0").get_json()["evidence"] == []
    assert any("the disk is nearly full (10 MiB free)" in p for p in state["prompts"])
    assert "the disk is nearly full" in site.client.get("/").get_data(as_text=True)


def test_a_change_the_store_cannot_write_is_refused_in_words_and_not_applied(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    header, events = record_lines("route-three.jsonl")
    assert site.post("/api/games", header).status_code == 201
    assert site.post("/api/event", events[0]).status_code == 200
    real = site.table.store.append

    def full(*args: Any, **kwargs: Any) -> int:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(site.table.store, "append", full)
    refused = site.post("/api/event", events[1])
    assert refused.status_code == 507
    assert "is its disk full? Free some space, then enter it again" in refused.get_json()["message"]
    state = site.client.get("/api/state").get_json()
    assert state["events"] == 1 and any("could not record the last change" in p for p in state["prompts"])
    monkeypatch.setattr(site.table.store, "append", real)
    assert site.post("/api/event", events[1]).status_code == 200  # the same event, once there is room
    state = site.client.get("/api/state").get_json()
    assert state["events"] == 2 and not any("could not record" in p for p in state["prompts"])
    assert len(site.table.store.entries(state["game_id"])) == 2  # nothing half written


def test_pictures_of_an_event_the_store_could_not_write_are_not_left_behind(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    site.table.set_evidence(Camera())
    header, events = record_lines("route-three.jsonl")
    assert site.post("/api/games", header).status_code == 201
    game_id = site.client.get("/api/state").get_json()["game_id"]
    folder = site.state_dir / "evidence" / str(game_id)
    for event in events:  # up to the first event that scores with cells: its pictures are made
        before = sorted(folder.glob("*")) if folder.exists() else []

        def full(*args: Any, **kwargs: Any) -> int:
            raise sqlite3.OperationalError("database or disk is full")

        with monkeypatch.context() as patch:
            patch.setattr(site.table.store, "append", full)
            assert site.post("/api/event", event).status_code == 507
        assert (sorted(folder.glob("*")) if folder.exists() else []) == before
        assert site.post("/api/event", event).status_code == 200
        if folder.exists() and sorted(folder.glob("*")) != before:
            break
    else:
        raise AssertionError("no event of the record kept a picture")


def test_every_score_read_by_the_camera_keeps_the_cameras_picture(tmp_path: Path) -> None:
    """As ``make run`` plays: a simulated game on the simulated table, read by the camera; every
    score it makes opens with a picture of what was counted, a file the store serves."""
    from test_runner import runner_over, until_ended

    from companion.games.starwars.sim.table_games import SimulatedGames
    from companion.live.table import Table

    table = Table(GameStore(tmp_path))
    games = SimulatedGames(table, fps=0, first_seed=3, games=1, tiles=12)
    runner, _, _ = runner_over(table, games)
    until_ended(runner)
    live = table.live
    assert live is not None and live.engine.finished and live.engine.log
    for index, change in enumerate(live.engine.log):
        view = table.score_view(index)
        assert view is not None and view["evidence"], change.reason
        for path in view["evidence"]:
            found = table.store.evidence_file(path)
            assert found is not None and cv2.imread(str(found)) is not None
    assert table.keeper.used(live.game_id) < 2 * MIB


def test_a_restart_mid_game_resumes_it_with_every_picture(tmp_path: Path) -> None:
    """The power goes mid-game (the store is never closed); on the next start the same game is
    under way, every score opens with the picture it had, and play goes on keeping pictures."""
    from conftest import make_site

    before = make_site(tmp_path / "state")
    before.table.set_evidence(Camera())
    header, events = record_lines("three-battles-one-turn.jsonl")
    assert before.post("/api/games", header).status_code == 201
    half = 18  # the first two battles scored (each with its picture), the third to come
    for event in events[:half]:
        assert before.post("/api/event", event).status_code == 200
    state = before.client.get("/api/state").get_json()
    views = [before.client.get(f"/api/scores/{entry['index']}").get_json() for entry in state["log"]]
    pictures = [path for view in views for path in view["evidence"]]
    assert pictures, "no score of the first half kept a picture"

    after = make_site(tmp_path / "state")  # a new process on the same state dir
    after.table.set_evidence(Camera())
    resumed = after.client.get("/api/state").get_json()
    assert (resumed["game_id"], resumed["seq"], resumed["scores"]) == (
        state["game_id"],
        state["seq"],
        state["scores"],
    )
    for view in views:
        again = after.client.get(f"/api/scores/{view['index']}").get_json()
        assert again["evidence"] == view["evidence"]
        for path in again["evidence"]:
            assert served(after, path) == SQUARE
    for event in events[half:]:
        assert after.post("/api/event", event).status_code == 200
    kept = after.table.store.evidence_bytes(state["game_id"])
    assert kept > len(pictures) * len(SQUARE)  # the second half's pictures joined the first's
    record = after.client.get("/api/record").get_data(as_text=True).splitlines()
    assert len(record) == 1 + len(events)
    after.table.store.close()
    before.table.store.close()
