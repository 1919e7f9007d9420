"""The worked examples of the Star Wars rules, written as records with their expected scores.

Each record in tests/records/ carries what the rulebook says must come out in its header's
"meta" (replay ignores meta): the scores, every log line in order, and the meeples left.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.games.starwars.engine import StarWarsGame
from companion.record import read_record, replay
from companion.replay import replay_json

RECORDS = sorted((Path(__file__).parent / "records").glob("*.jsonl"))


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_record_scores_as_the_rules_say(path: Path) -> None:
    record = read_record(path)
    assert record.setup.meta is not None
    expect = record.setup.meta["expect"]
    game = replay(record)
    assert isinstance(game, StarWarsGame)

    result = replay_json(game)
    assert result["finished"] == expect["finished"]
    assert result["scores"] == expect["scores"]
    assert [[e["player"], e["points"], e["reason"]] for e in result["log"]] == expect["log"]
    assert game.supply == expect["supply"]
    # the log adds up to the scores (per team in the team variant)
    totals: dict[str, int] = {}
    for entry in result["log"]:
        key = entry.get("team", entry["player"])
        totals[key] = totals.get(key, 0) + entry["points"]
    for player in game.players:
        key = game.moment().extras["players"][game.players.index(player)].get("team", player.name)
        assert result["scores"][player.name] == totals.get(key, 0)


def test_every_worked_example_of_the_seed_is_covered() -> None:
    names = {p.stem for p in RECORDS}
    assert {
        "route-battle",
        "asteroid-battle-tie",
        "planet-attack-tie",
        "planet-eleven",
        "route-three",
        "final-scoring",
        "teams-planet",
        "three-battles-one-turn",
    } <= names


def test_records_are_valid_json_lines() -> None:
    for path in RECORDS:
        for line in path.read_text(encoding="utf-8").splitlines():
            json.loads(line)
