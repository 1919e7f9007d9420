"""The game store and the live game: durable journal, folding corrections, broadcasting changes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import record_lines

from companion.errors import UserError
from companion.games.base import IllegalEvent
from companion.live.broadcast import Broadcast
from companion.live.table import Table
from companion.store import GameStore


def ticking() -> object:
    """A clock for tests: a new second on every call."""
    seconds = iter(range(10_000))
    return lambda: f"2026-11-20T20:{next(seconds) // 60 % 60:02d}:{next(seconds) % 60:02d}.000Z"


def test_the_store_writes_durably(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    db.close()
    store.close()


def test_the_journal_keeps_entries_in_order_per_game(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    first = store.new_game({"game": "starwars", "players": []}, "t0")
    second = store.new_game({"game": "starwars", "players": []}, "t1")
    assert [store.append(first, "event", {"n": n}, f"t{n}", None) for n in range(3)] == [1, 2, 3]
    assert store.append(second, "correction", {"n": 9}, "t9", None) == 1
    assert [(e.seq, e.kind, e.body["n"]) for e in store.entries(first)] == [
        (1, "event", 0),
        (2, "event", 1),
        (3, "event", 2),
    ]
    assert [g.id for g in store.games()] == [second, first]  # newest first
    assert store.game(first).entries == 3  # type: ignore[union-attr]
    store.set_ended(first, "t5")
    assert store.game(first).ended == "t5"  # type: ignore[union-attr]
    store.close()
    reopened = GameStore(tmp_path)
    assert len(reopened.entries(first)) == 3
    reopened.close()


def test_evidence_images_stay_inside_the_state_dir(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    path = store.save_evidence(1, b"jpeg bytes", ".JPG")
    assert path.startswith("evidence/1/") and path.endswith(".jpg")
    found = store.evidence_file(path)
    assert found is not None and found.read_bytes() == b"jpeg bytes"
    (tmp_path / "secret.jpg").write_bytes(b"x")
    for sneaky in ("evidence/../secret.jpg", "games.sqlite3", "evidence/1/../../secret.jpg", "/etc/passwd"):
        assert store.evidence_file(sneaky) is None
    with pytest.raises(ValueError, match="evidence images are"):
        store.save_evidence(1, b"x", ".exe")
    store.close()


def test_a_damaged_store_says_so(tmp_path: Path) -> None:
    (tmp_path / "games.sqlite3").write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(UserError, match="cannot open the game store"):
        GameStore(tmp_path)


def test_a_store_made_by_something_else_or_a_file_for_a_folder_says_so(tmp_path: Path) -> None:
    other = sqlite3.connect(tmp_path / "games.sqlite3")
    other.execute("CREATE TABLE games (name TEXT)")
    other.close()
    with pytest.raises(UserError, match=r"is not this companion's game store \(its table games has no id"):
        GameStore(tmp_path)
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(UserError, match=r"the state dir .*a-file is a file, not a folder"):
        GameStore(tmp_path / "a-file")


def test_a_game_these_rules_refuse_is_not_resumed_but_kept(tmp_path: Path) -> None:
    """A journal entered before a rule was enforced: the companion still starts, says why on
    every phone, lists the game, and a new one can start without leaving it."""
    store = GameStore(tmp_path)
    table = Table(store)
    header, events = record_lines("route-battle.jsonl")
    table.start(header)
    for event in events[:3]:
        table.add(event)
    store.append(1, "event", {"event": events[5]}, "2026-11-29T12:00:00.000Z", None)  # out of turn
    store.close()
    again = Table(GameStore(tmp_path))
    state = again.state()
    assert state["game"] is None
    assert any(p.startswith("game 1 could not be resumed (") for p in state["prompts"]), state["prompts"]
    assert [row.id for row in again.store.games()] == [1]
    again.start(header)
    assert not any("could not be resumed" in p for p in again.state()["prompts"])
    again.store.close()


def test_an_illegal_event_is_not_stored(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path))
    header, events = record_lines("route-battle.jsonl")
    table.start(header)
    for event in events[:3]:
        table.add(event)
    before = len(table.store.entries(1))
    with pytest.raises(IllegalEvent):
        table.add(events[5])  # out of turn
    assert len(table.store.entries(1)) == before
    assert Table(GameStore(tmp_path)).state() == table.state()


def test_folding_corrections_gives_the_same_game_after_a_restart(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path), clock=ticking())  # type: ignore[arg-type]
    header, events = record_lines("asteroid-battle-tie.jsonl")
    table.start(header)
    for event in events:
        table.add(event)
    table.correct({"op": "undo", "reason": "round 2 was thrown too early"})
    table.correct(
        {
            "op": "replace",
            "index": 17,  # Cid's roll of round 2
            "event": {"event": "roll", "player": "Cid", "dice": [5, 5]},
            "reason": "5s",
        }
    )
    table.correct(
        {
            "op": "insert",
            "index": 18,  # Ana's roll of round 2, in place of the one undone
            "event": {"event": "roll", "player": "Ana", "dice": [6, 1]},
            "reason": "her roll",
        }
    )
    state = table.state()
    assert state["scores"] == {"Ana": 1 + 12, "Ben": 1, "Cid": 1 + 2}  # Ana wins round 2 now
    again = Table(GameStore(tmp_path))
    assert again.state() == state
    assert again.timeline() == table.timeline()
    assert again.record_text() == table.record_text()
    kinds = [item["kind"] for item in table.timeline()[:3]]
    assert kinds == ["correction", "correction", "correction"]


def test_every_change_is_broadcast_after_it_is_stored(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path))
    inbox = table.broadcast.subscribe()
    header, events = record_lines("route-battle.jsonl")
    table.start(header)
    table.add(events[0])
    messages = [inbox.get_nowait() for _ in range(2)]
    assert '"seq": 0' in messages[0] and '"seq": 1' in messages[1]
    with pytest.raises(IllegalEvent):
        table.add(events[5])
    assert inbox.empty()  # nothing happened, nothing told


def test_a_slow_scoreboard_gets_the_newest_state() -> None:
    broadcast = Broadcast(backlog=3)
    slow = broadcast.subscribe()
    for n in range(10):
        broadcast.publish(str(n))
    assert [slow.get_nowait() for _ in range(3)] == ["7", "8", "9"]
    broadcast.unsubscribe(slow)
    broadcast.publish("x")
    assert slow.empty() and broadcast.count() == 0
