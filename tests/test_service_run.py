"""``companion run`` in a real process, as systemd runs it: readiness and the watchdog over a fake
NOTIFY_SOCKET, a clean stop on SIGTERM, and a power cut (SIGKILL) in the middle of a game read
from the camera: nothing stored is lost and the game resumes where it was on the next start. And,
in this process, that a stop under way ignores a further SIGTERM."""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import pytest
from conftest import free_port

from companion.games.starwars.sim.play import simulated_game
from companion.games.starwars.sim.table import SimulatedTable
from companion.live.table import Table
from companion.service.run import _stop_worker
from companion.store import GameStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="unix sockets and SIGKILL are POSIX")

REPO = Path(__file__).resolve().parents[1]


def write_config(folder: Path, port: int, camera: str) -> Path:
    path = folder / "config.toml"
    path.write_text(
        f'state_dir = "{folder / "state"}"\n[web]\nhost = "127.0.0.1"\nport = {port}\nmdns = false\n'
        f'pin = "2468"\n[camera]\n{camera}\n',
        encoding="utf-8",
    )
    return path


def start(config: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    with (config.parent / "stderr.log").open("ab") as log:  # a file: a pipe nobody reads fills up
        return subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--config", str(config)],
            cwd=REPO,
            env={**os.environ, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=log,
        )


def state(port: int) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as answer:
            loaded: dict[str, Any] = json.loads(answer.read())
            return loaded
    except OSError:
        return None


def wait_for(test: Any, seconds: float, server: subprocess.Popen[bytes]) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = test()
        if value:
            return value
        if server.poll() is not None:
            log = Path(str(server.args[-1])).parent / "stderr.log"
            pytest.fail(f"companion run stopped: {log.read_text(errors='replace')}")
        time.sleep(0.1)
    pytest.fail(f"waited {seconds} s in vain")


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    path = str(tmp_path / "notify.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(path)
    listener.settimeout(0.2)
    yield listener, path
    listener.close()


def messages(listener: socket.socket, seconds: float) -> Iterator[tuple[float, str]]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            data = listener.recv(4096)
        except TimeoutError:
            continue
        yield time.monotonic(), data.decode()


def test_ready_once_serving_then_the_watchdog_every_few_frames_and_stopping_on_sigterm(
    tmp_path: Path, notify_socket: tuple[socket.socket, str]
) -> None:
    listener, path = notify_socket
    port = free_port()
    config = write_config(tmp_path, port, 'source = "simulator"\nfps = 10')
    # a 4 s watchdog: a kick at most every second; the exact rule is tested on a fake clock in
    # test_notify.py, this checks the real process keeps it with room for a busy test machine
    server = start(config, {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"})
    try:
        ready_at = None
        kicks: list[float] = []
        for at, message in messages(listener, 90):
            if "READY=1" in message:
                ready_at = at
                assert state(port) is not None, "READY=1 came before the scoreboard answered"
                assert "STATUS=reading the table with the simulated table" in message
            elif message == "WATCHDOG=1":
                assert ready_at is not None, "the watchdog was fed before READY=1"
                kicks.append(at)
                if len(kicks) >= 6:
                    break
        assert ready_at is not None and len(kicks) >= 6, "no READY=1 and six WATCHDOG=1 within 90 s"
        gaps = [b - a for a, b in itertools.pairwise(kicks)]
        # at most one kick a quarter of the interval (1 s), and never a silence near the interval;
        # judged on the mean gap, since a gap measured on arrival shrinks when a busy machine
        # delays one message (test_notify.py once saw 31 ms for 50)
        assert (kicks[-1] - kicks[0]) / len(gaps) >= 0.95 and max(gaps) < 3.6, gaps
        server.send_signal(signal.SIGTERM)
        rest = [message for _, message in messages(listener, 15) if "STOPPING=1" in message]
        assert server.wait(timeout=30) == 0
        assert rest, "no STOPPING=1 on SIGTERM"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def render_game(folder: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """The frames of a short game without battles as JPEG files; returns its tile events and,
    for each frame, how many of them had happened."""
    truth = simulated_game(seed=8, players=2, tiles=7, meeple_chance=0.0)
    table = SimulatedTable(truth, style=10_008, camera_seed=500_008, seed=8)
    folder.mkdir()
    done = []
    for number, shot in enumerate(table.frames()):
        cv2.imwrite(str(folder / f"{number:05d}.jpg"), shot.frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
        done.append(shot.truth_events)
    events = [type(truth.game).event_to_json(e) for e in truth.events]
    tiles = [{k: v for k, v in e.items() if k != "meta"} for e in events if e["event"] == "tile"]
    return tiles, done


def placed_in(state_dir: Path) -> list[dict[str, Any]]:
    store = GameStore(state_dir)
    try:
        text = Table(store).record_text()
    finally:
        store.close()
    assert text is not None
    lines = [json.loads(line) for line in text.splitlines()[1:]]
    return [{k: v for k, v in e.items() if k != "meta"} for e in lines if e["event"] == "tile"]


def placed(port: int) -> list[dict[str, Any]]:
    now = state(port)
    return [] if now is None else [e for e in events_of(port) if e["event"] == "tile"]


def events_of(port: int) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/record", timeout=5) as answer:
        lines = answer.read().decode().splitlines()[1:]
    return [{k: v for k, v in json.loads(line).items() if k != "meta"} for line in lines]


def test_a_power_cut_mid_game_loses_nothing_stored_and_the_game_resumes_on_the_next_start(
    tmp_path: Path,
) -> None:
    frames = tmp_path / "frames"
    truth, done = render_game(frames)
    setup = simulated_game(seed=8, players=2, tiles=7, meeple_chance=0.0).setup
    store = GameStore(tmp_path / "state")
    Table(store).start(setup.to_json())  # the game started on the phone before the power cut
    store.close()
    port = free_port()
    config = write_config(tmp_path, port, f'source = "folder"\nfolder = "{frames}"\nrealtime = false')

    server = start(config)
    try:
        wait_for(lambda: len(placed(port)) >= 3, 120, server)  # polled every 0.1 s: the cut lands mid-game
        server.send_signal(signal.SIGKILL)  # the power cut
        server.wait()
    finally:
        if server.poll() is None:
            server.kill()
    kept = GameStore(tmp_path / "state")
    games = kept.games()
    kept.close()
    assert len(games) == 1 and games[0].ended is None

    # the boot: the camera sees the table as it was left, tiles down, and play goes on
    before = placed_in(tmp_path / "state")
    assert len(before) >= 3 and before == truth[: len(before)], "the journal is not what was read"
    assert len(before) < len(truth), "the power cut came after the game was read: nothing to resume"
    later = tmp_path / "after-boot"
    later.mkdir()
    first = done.index(len(before))
    for number, picture in enumerate(sorted(frames.iterdir())[first:]):
        (later / f"{number:05d}.jpg").symlink_to(picture)
    config = write_config(tmp_path, port, f'source = "folder"\nfolder = "{later}"\nrealtime = false')
    server = start(config)
    try:
        wait_for(lambda: state(port), 60, server)
        wait_for(lambda: len(placed(port)) >= len(truth), 120, server)
        time.sleep(1)  # anything read twice would show now
        assert placed(port) == truth
        assert state(port)["game_id"] == games[0].id  # the same game, resumed, not a new one
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def test_a_loop_that_will_not_stop_is_left_behind_and_said(capsys: pytest.CaptureFixture[str]) -> None:
    """A loop stuck in a camera read must not hold the shutdown forever: the rest of the service
    still stops (the loop is a daemon thread) and the journal says why."""
    stop, release = threading.Event(), threading.Event()
    stuck = threading.Thread(target=release.wait, daemon=True)  # ignores stop, as a hung read would
    stuck.start()
    started = time.monotonic()
    _stop_worker(stuck, stop, timeout=0.3)
    assert stop.is_set() and stuck.is_alive() and time.monotonic() - started < 5
    assert "did not stop within 0.3 s" in capsys.readouterr().err
    release.set()
    stuck.join(timeout=5)

    stop = threading.Event()
    willing = threading.Thread(target=stop.wait, daemon=True)
    willing.start()
    _stop_worker(willing, stop, timeout=5)
    assert not willing.is_alive() and capsys.readouterr().err == ""


def test_a_second_sigterm_while_stopping_is_ignored_not_an_abort() -> None:
    """In this process, not a real one: the handlers themselves, one stop begun by SIGTERM and
    one begun otherwise (Ctrl+C), each then sent a further SIGTERM."""
    from companion.web.server import ignore_sigterm_while_stopping, stop_on_sigterm

    before = signal.getsignal(signal.SIGTERM)
    try:
        stop_on_sigterm()
        with pytest.raises(SystemExit) as stopping:
            signal.raise_signal(signal.SIGTERM)
        assert stopping.value.code == 0
        # the tidying up is under way: a second SIGTERM must not break into it
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        signal.raise_signal(signal.SIGTERM)

        stop_on_sigterm()  # a stop begun by Ctrl+C: serve() ignores SIGTERM as it leaves
        ignore_sigterm_while_stopping()
        signal.raise_signal(signal.SIGTERM)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, before)
