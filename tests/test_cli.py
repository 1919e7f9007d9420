"""The companion command as a user meets it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main


def test_simulate_then_replay_gives_the_same_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "game.jsonl"
    assert main(["simulate", "--game", "starwars", "--players", "4", "--seed", "7", "--out", str(out)]) == 0
    _, err = capsys.readouterr()
    assert f"wrote {out}" in err and "scores:" in err
    announced = dict(part.rsplit(" ", 1) for part in err.split("scores: ")[1].strip().split(", "))

    assert main(["replay", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["game"] == "starwars" and result["finished"] is True
    assert {k: str(v) for k, v in result["scores"].items()} == announced
    assert all({"player", "points", "reason"} <= entry.keys() for entry in result["log"])


def test_simulate_is_reproducible(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        assert main(["simulate", "--players", "3", "--seed", "11", "--out", str(path)]) == 0
    assert a.read_bytes() == b.read_bytes()


def test_simulate_teams_and_catalog_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "teams.jsonl"
    args = [
        "simulate",
        "--players",
        "4",
        "--variant",
        "teams",
        "--catalog-ids",
        "--seed",
        "3",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    assert '"rotation"' in out.read_text()
    assert main(["replay", str(out), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)["scores"]
    header = json.loads(out.read_text().splitlines()[0])
    team = {p["name"]: p["color"] in ("red", "green") for p in header["players"]}
    rebels = {scores[n] for n, r in team.items() if r}
    empire = {scores[n] for n, r in team.items() if not r}
    assert len(rebels) == 1 and len(empire) == 1  # team mates share their team's score


def test_readable_replay_shows_scores_and_log(records_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(records_dir / "asteroid-battle-tie.jsonl")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Carcassonne: Star Wars (standard): in progress, turn 10"
    assert out.index("Cid") < out.index("Ana") < out.index("Ben")  # ranked by score
    assert "asteroid field: 5 tiles x 2 + 1 symbol x 2 = 12" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--players", "7"], "2 to 5 players, not 7"),
        (["--players", "3", "--variant", "teams"], "exactly 4 players"),
        (["--game", "gaia"], "only --game starwars"),
    ],
)
def test_simulate_refuses_impossible_tables(
    args: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["simulate", *args, "--out", str(tmp_path / "x.jsonl")])
    assert stop.value.code == 2  # a wrong command line
    out, err = capsys.readouterr()
    assert out == "" and words in err
    assert not (tmp_path / "x.jsonl").exists()


def test_the_installed_command_runs(records_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "companion", "replay", str(records_dir / "planet-eleven.jsonl"), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["scores"] == {"Ana": 11, "Ben": 8}
    assert done.stderr == ""
