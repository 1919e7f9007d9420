"""The companion command as a user meets it."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import DEMO_RECORD
from flask import Flask

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
    assert out.splitlines()[0] == "Carcassonne: Star Wars (standard): in progress, turn 11, Ben's turn"
    ranking = out.split("\n", 2)[2]
    assert ranking.index("Cid") < ranking.index("Ana") < ranking.index("Ben")  # ranked by score
    assert "asteroid field: 5 tiles x 2 + 1 symbol x 2 = 12" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--players", "7"], "2 to 5 players, not 7"),
        (["--players", "3", "--variant", "teams"], "exactly 4 players"),
        (["--game", "nosuchgame"], "invalid choice: 'nosuchgame'"),
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


def test_simulate_says_when_it_cannot_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--out", str(tmp_path / "no-such-dir" / "x.jsonl")]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("companion simulate: cannot write") and err.count("\n") == 1


def test_replay_reads_stdin(records_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "companion", "replay", "-", "--json"],
        input=(records_dir / "route-battle.jsonl").read_bytes(),
        capture_output=True,
        check=True,
    )
    assert json.loads(done.stdout)["scores"] == {"Ana": 4, "Ben": 1}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--port", "99999"], "a port is 1 to 65535"),
        (["--port", "abc"], "a port number, not 'abc'"),
        (["--pace", "-1"], "a pause is 0 to 3600 seconds"),
        (["--pace", "inf"], "a pause is 0 to 3600 seconds, not inf"),
        (["--pace", "soon"], "a pause in seconds, not 'soon'"),
        (["--fps", "fast"], "frames a second, not 'fast'"),
        (["--fresh", "--state-dir", "games"], "give --state-dir or --fresh"),
        (["--pin", "abc"], "argument --pin: a table PIN is 4 to 12 digits, not 'abc'"),
    ],
)
def test_demo_refuses_bad_options(args: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["demo", *args])
    assert stop.value.code == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize(
    ("threads", "words"), [("0", "4 to 512 threads"), ("-1", "4 to 512"), ("x", "whole number")]
)
def test_serve_refuses_a_thread_count_it_could_not_answer_with(
    threads: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # with no thread free, the server took requests and never answered them
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--threads", threads])
    assert stop.value.code == 2
    assert words in capsys.readouterr().err


def test_demo_on_a_busy_port_says_so_before_anything_else(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["demo", "--port", str(port)]) == 1
    out, err = capsys.readouterr()
    assert out == ""  # no "scoreboard on ..." for a port it does not hold
    expected = f"companion demo: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert err == expected + " (try another --port or --host)\n"


def test_a_service_on_a_busy_port_names_what_to_change() -> None:
    from companion.errors import UserError
    from companion.web.server import bind

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(UserError, match=r"in use \(change \[web\] host or port in /etc/x.toml\)$"):
            bind(Flask(__name__), "127.0.0.1", port, advice="change [web] host or port in /etc/x.toml")


@pytest.mark.parametrize("host", ["not a host!", "256.1.1.1", "[::1]"])
def test_a_host_that_cannot_be_listened_on_is_refused(host: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["demo", "--host", host])
    assert stop.value.code == 2 and f"not {host!r}" in capsys.readouterr().err


def test_demo_without_its_templates_says_where_they_should_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COMPANION_WEB_DIR", str(tmp_path))
    assert main(["demo", "--port", "1"]) == 1
    err = capsys.readouterr().err
    assert "the web templates are not at" in err and "internal error" not in err


class FullDisk:
    """A standard output on a full disk (``> /dev/full``)."""

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


def test_the_machine_s_errors_are_said_in_one_line_not_as_a_bug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", FullDisk())
    assert main(["replay", str(DEMO_RECORD)]) == 1
    assert capsys.readouterr().err == "companion replay: No space left on device\n"
    monkeypatch.undo()

    def unreadable(self: Path) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    folder = tmp_path / "dice"
    folder.mkdir()
    monkeypatch.setattr(Path, "iterdir", unreadable)
    assert main(["enrol-dice", str(folder), "--state-dir", str(tmp_path / "state")]) == 1
    err = capsys.readouterr().err
    assert f"{folder}: cannot be read (Permission denied)" in err and "internal error" not in err


def start_demo(*options: str) -> tuple[subprocess.Popen[str], int]:
    """``companion demo`` on a free port, as a separate process."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "companion", "demo", "--port", str(port), *options]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), port


def test_demo_serves_the_game_as_it_unfolds(tmp_path: Path) -> None:
    server, port = start_demo("--pace", "0.02", "--record", str(DEMO_RECORD))
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert first.startswith(f"Table Companion demo: scoreboard on http://127.0.0.1:{port}/")
        output = first + server.stdout.readline()  # the PIN and where the state is kept
        url = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(f"{url}/", timeout=5) as page:
            assert page.status == 200 and "Table Companion" in page.read().decode()
        seen = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"{url}/api/state", timeout=5) as response:
                state = json.load(response)
            seen.append(state["events"])
            if state["finished"]:
                break
            time.sleep(0.2)
        assert state["finished"] and seen == sorted(seen) and seen[0] < seen[-1]
        server.terminate()  # SIGTERM, as systemd stops a service
        assert server.wait(timeout=10) == 0
        state_dir = output.split("(state in ", 1)[1].split(")", 1)[0]
        assert not Path(state_dir).exists()  # the demo's temporary game store is tidied away
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=10)


def test_the_camera_demo_scores_what_the_camera_reads(tmp_path: Path) -> None:
    server, port = start_demo("--fps", "100", "--state-dir", str(tmp_path), "--no-mdns")
    try:
        assert server.stdout is not None
        assert server.stdout.readline().startswith("Table Companion demo: scoreboard on")
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        state: dict = {}
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"{url}/api/state", timeout=5) as response:
                state = json.load(response)
            if state.get("events", 0) >= 3 and state["camera"]["view"]:
                break
            time.sleep(0.5)
        assert state["events"] >= 3  # the start tile and two more, read from rendered frames
        with urllib.request.urlopen(f"{url}/api/camera.jpg", timeout=5) as response:
            assert response.headers["Content-Type"] == "image/jpeg" and response.read(2) == b"\xff\xd8"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.parametrize("fps", ["0", "-1", "nan", "121"])
def test_demo_refuses_a_bad_fps_by_its_flag(fps: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["demo", "--fps", fps])
    assert stopped.value.code == 2
    assert "--fps" in capsys.readouterr().err


def test_a_demo_pace_without_a_record_is_refused_in_the_demos_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["demo", "--pace", "1"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: companion demo") and "--record" in err


def test_simulate_mistakes_show_the_simulate_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--players", "7", "--out", str(tmp_path / "x.jsonl")])
    err = capsys.readouterr().err
    assert err.startswith("usage: companion simulate") and "2 to 5 players, not 7" in err
