"""What the store keeps is bounded: past the retention's games or pictures the oldest games go,
journal and pictures together, never the game under way, and the database file shrinks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import record_lines

from companion.config import parse_config
from companion.errors import ConfigError
from companion.live.table import Table
from companion.store import DATABASE, EVIDENCE, GameStore, Retention

HEADER, EVENTS = record_lines("route-three.jsonl")


def play_game(table: Table, pictures: int = 0, size: int = 1000, finish: bool = True) -> int:
    """A whole game of the record (or its first event), keeping ``pictures`` of ``size`` bytes."""
    live = table.start(HEADER)
    for _ in range(pictures):
        table.store.save_evidence(live.game_id, os.urandom(size), ".jpg")
    for event in EVENTS if finish else EVENTS[:1]:
        table.add(event)
    return live.game_id


def kept(store: GameStore) -> list[int]:
    return [row.id for row in store.games()]


def test_the_oldest_games_go_past_the_number_kept_never_the_one_under_way(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path), retention=Retention(games=2))
    games = [play_game(table, pictures=1) for _ in range(5)]
    # besides the newest (under way when it started), the two before it; older ones are gone
    assert kept(table.store) == games[:1:-1]
    for gone in games[:2]:
        assert table.store.entries(gone) == []
        assert not (tmp_path / EVIDENCE / str(gone)).exists()
        assert table.record_text(gone) is None
    for left in games[2:]:
        assert len(table.store.entries(left)) == len(EVENTS)
        assert table.store.evidence_bytes(left) == 1000
    assert [result["row"].id for result in table.results()] == games[:1:-1]


def test_a_game_under_way_is_kept_whatever_the_retention(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path), retention=Retention(games=0, evidence_bytes=0))
    first = play_game(table, pictures=2)
    under_way = play_game(table, pictures=2, finish=False)
    assert kept(table.store) == [under_way]
    assert not (tmp_path / EVIDENCE / str(first)).exists()
    table.add(EVENTS[1])  # play goes on
    assert table.store.evidence_bytes(under_way) == 2000


def test_past_the_pictures_budget_the_oldest_games_go_first(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path), retention=Retention(games=100, evidence_bytes=5000))
    games = [play_game(table, pictures=2) for _ in range(4)]  # 2000 bytes each, kept after it starts
    # as the fourth started: none of its own yet, the three before it 6000: the oldest went
    assert kept(table.store) == [games[3], games[2], games[1]]
    assert not (tmp_path / EVIDENCE / str(games[0])).exists()
    small = play_game(table, pictures=0)
    assert kept(table.store) == [small, games[3], games[2]]


def test_a_restart_applies_the_retention_and_resumes_the_newest_game(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path), retention=Retention(games=10))
    games = [play_game(table) for _ in range(3)]
    under_way = play_game(table, finish=False)
    table.store.close()
    again = Table(GameStore(tmp_path), retention=Retention(games=1))
    assert again.live is not None and again.live.game_id == under_way
    assert kept(again.store) == [under_way, games[2]]


def test_removing_games_shrinks_the_database_file(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    table = Table(store, retention=Retention(games=100))
    for _ in range(40):
        game_id = play_game(table)
        for n in range(60):  # a long game's worth of journal
            store.append(game_id, "correction", {"pad": "x" * 500, "n": n}, "t", "t")
    before = (tmp_path / DATABASE).stat().st_size
    table.retention = Retention(games=1)
    play_game(table, finish=False)
    after = (tmp_path / DATABASE).stat().st_size
    wal = tmp_path / f"{DATABASE}-wal"
    assert after < before / 4, (before, after)
    assert not wal.exists() or wal.stat().st_size < before / 4
    assert len(kept(store)) == 2


def test_pictures_no_game_names_are_removed(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    stray = tmp_path / EVIDENCE / "999"
    stray.mkdir(parents=True)
    (stray / "left.jpg").write_bytes(b"x")
    table = Table(store)
    live = play_game(table, pictures=1, finish=False)
    assert not stray.exists() and store.evidence_bytes(live) == 1000


def test_the_config_sets_the_retention(tmp_path: Path) -> None:
    config = parse_config({"retention": {"games": 20, "evidence_mb": 50}})
    assert config.retention == Retention(games=20, evidence_bytes=50_000_000)
    assert parse_config({}).retention == Retention()


@pytest.mark.parametrize(
    ("section", "named"),
    [
        ({"games": -1}, "[retention] games"),
        ({"games": True}, "[retention] games"),
        ({"evidence_mb": 1.5}, "[retention] evidence_mb"),
        ({"pictures": 3}, "[retention] pictures: no such key"),
    ],
)
def test_a_wrong_retention_is_refused_by_name(section: dict[str, object], named: str) -> None:
    with pytest.raises(ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
        parse_config({"retention": section})
