"""The sd_notify client against real AF_UNIX datagram sockets standing in for systemd's."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.service import Notifier

REPO = Path(__file__).resolve().parent.parent
# sun_path holds 108 bytes with its NUL; a deep pytest tmp_path can be longer than that.
MAX_SOCKET_PATH = 100


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Listener:
    """What systemd's end of NOTIFY_SOCKET sees: one datagram per notification."""

    def __init__(self, address: str, notify_socket: str) -> None:
        self.notify_socket = notify_socket
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)

    def receive(self, timeout: float = 2.0) -> str:
        self.sock.settimeout(timeout)
        return self.sock.recv(4096).decode("utf-8")

    def pending(self) -> list[str]:
        """Every datagram already queued, without waiting."""
        self.sock.setblocking(False)
        messages = []
        try:
            while True:
                messages.append(self.sock.recv(4096).decode("utf-8"))
        except BlockingIOError:
            return messages

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def path_listener(tmp_path: Path) -> Iterator[Listener]:
    folder = tmp_path
    if len(str(folder / "notify")) > MAX_SOCKET_PATH:
        folder = Path(tempfile.mkdtemp(prefix="tc-notify-"))
    address = str(folder / "notify")
    listener = Listener(address, address)
    yield listener
    listener.close()
    Path(address).unlink(missing_ok=True)


@pytest.fixture
def abstract_listener() -> Iterator[Listener]:
    name = f"table-companion-test-{uuid.uuid4().hex}"
    listener = Listener("\0" + name, "@" + name)
    yield listener
    listener.close()


@pytest.fixture(params=["path", "abstract"])
def listener(request: pytest.FixtureRequest) -> Listener:
    name = "path_listener" if request.param == "path" else "abstract_listener"
    found: Listener = request.getfixturevalue(name)
    return found


def test_ready_status_and_stopping_arrive_as_written(listener: Listener) -> None:
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": listener.notify_socket})
    assert notifier.enabled

    notifier.ready()
    assert listener.receive() == "READY=1"
    notifier.ready("scoreboard on http://table.local:8000/")
    assert listener.receive() == "READY=1\nSTATUS=scoreboard on http://table.local:8000/"
    notifier.status("turn 12, 3 players")
    assert listener.receive() == "STATUS=turn 12, 3 players"
    notifier.stopping()
    assert listener.receive() == "STOPPING=1"
    assert listener.pending() == []
    notifier.close()


def test_a_status_stays_one_line(path_listener: Listener) -> None:
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": path_listener.notify_socket})
    notifier.status("camera lost\nREADY=1")
    # Unflattened, the second line would be read by systemd as an assignment of its own.
    assert path_listener.receive() == "STATUS=camera lost READY=1"


def test_from_environment_reads_os_environ_by_default(
    path_listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", path_listener.notify_socket)
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    notifier = Notifier.from_environment()
    assert notifier.enabled
    assert notifier.watchdog_interval == 30.0
    notifier.ready()
    assert path_listener.receive() == "READY=1"


@pytest.mark.parametrize(
    ("extra", "interval"),
    [
        ({"WATCHDOG_USEC": "30000000"}, 30.0),
        ({"WATCHDOG_USEC": "200000"}, 0.2),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}, 30.0),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid() + 1)}, None),
        ({}, None),
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "soon"}, None),
    ],
)
def test_watchdog_interval_comes_from_watchdog_usec_for_this_process(
    path_listener: Listener, extra: dict[str, str], interval: float | None
) -> None:
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": path_listener.notify_socket, **extra})
    assert notifier.watchdog_interval == interval


def test_watchdog_meant_for_another_process_is_never_kicked(path_listener: Listener) -> None:
    notifier = Notifier.from_environment(
        {
            "NOTIFY_SOCKET": path_listener.notify_socket,
            "WATCHDOG_USEC": "1000000",
            "WATCHDOG_PID": str(os.getpid() + 1),
        }
    )
    notifier.kick()
    notifier.ready()
    # Only the ready arrives: the kick was not this process's to send.
    assert path_listener.receive() == "READY=1"
    assert path_listener.pending() == []


def test_kick_sends_at_most_once_per_quarter_interval(path_listener: Listener) -> None:
    clock = FakeClock()
    notifier = Notifier.from_environment(
        {"NOTIFY_SOCKET": path_listener.notify_socket, "WATCHDOG_USEC": "2000000"}, clock=clock
    )
    sent_at: list[float] = []
    # Every 10 ms for 3 s, as a fast main loop would: a kick may go out every 0.5 s.
    for step in range(300):
        clock.now = step * 0.01
        notifier.kick()
        if path_listener.pending() == ["WATCHDOG=1"]:
            sent_at.append(clock.now)
    assert sent_at == pytest.approx([0.0, 0.5, 1.0, 1.5, 2.0, 2.5])


def test_kick_is_thread_safe(path_listener: Listener) -> None:
    notifier = Notifier.from_environment(
        {"NOTIFY_SOCKET": path_listener.notify_socket, "WATCHDOG_USEC": "10000000"}, clock=lambda: 5.0
    )
    start = threading.Barrier(8)

    def hammer() -> None:
        start.wait()
        for _ in range(200):
            notifier.kick()

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # 1600 kicks at one instant from 8 threads: exactly one may pass the rate limit.
    assert path_listener.pending() == ["WATCHDOG=1"]


def test_kick_without_a_watchdog_sends_nothing(path_listener: Listener) -> None:
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": path_listener.notify_socket})
    assert notifier.watchdog_interval is None
    for _ in range(10):
        notifier.kick()
    assert path_listener.pending() == []


def test_without_notify_socket_every_call_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_socket(*args: object, **kwargs: object) -> socket.socket:
        raise AssertionError("an inactive notifier opened a socket")

    monkeypatch.setattr("companion.service.notify.socket.socket", no_socket)
    for environ in ({}, {"NOTIFY_SOCKET": ""}, {"WATCHDOG_USEC": "1000000"}):
        notifier = Notifier.from_environment(environ)
        assert not notifier.enabled
        assert notifier.watchdog_interval is None
        notifier.ready("up")
        notifier.status("still up")
        notifier.kick()
        notifier.stopping()
        notifier.close()


def test_a_socket_that_is_not_unix_is_reported_and_ignored(capsys: pytest.CaptureFixture[str]) -> None:
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": "vsock:2:1234"})
    assert not notifier.enabled
    notifier.ready()
    assert "vsock:2:1234" in capsys.readouterr().err


def test_a_vanished_socket_is_reported_once_and_never_raises(
    path_listener: Listener, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = FakeClock()
    notifier = Notifier.from_environment(
        {"NOTIFY_SOCKET": path_listener.notify_socket, "WATCHDOG_USEC": "1000000"}, clock=clock
    )
    notifier.ready()
    assert path_listener.receive() == "READY=1"

    path_listener.close()
    Path(path_listener.notify_socket).unlink()
    for step in range(20):
        clock.now = float(step)
        notifier.kick()
        notifier.status(f"frame {step}")
    notifier.stopping()

    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 1
    assert path_listener.notify_socket in errors[0]
    assert "carrying on" in errors[0]


def test_an_abstract_socket_nobody_listens_on_does_not_raise(capsys: pytest.CaptureFixture[str]) -> None:
    name = f"@table-companion-nobody-{uuid.uuid4().hex}"
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": name})
    notifier.ready()
    notifier.stopping()
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 1
    assert name in errors[0]


CHILD = textwrap.dedent(
    """
    import time

    from companion.service import Notifier

    notifier = Notifier.from_environment()
    assert notifier.watchdog_interval == 0.2, notifier.watchdog_interval
    notifier.ready("child up")
    # A main loop far faster than the watchdog: one kick every 5 ms for 1.5 s.
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        notifier.kick()
        time.sleep(0.005)
    notifier.stopping()
    """
)


def test_a_child_process_is_ready_then_kicks_at_the_watchdog_pace(
    path_listener: Listener, tmp_path: Path
) -> None:
    script = tmp_path / "service_child.py"
    script.write_text(CHILD, encoding="utf-8")
    env = {
        **os.environ,
        "NOTIFY_SOCKET": path_listener.notify_socket,
        "WATCHDOG_USEC": "200000",
        "PYTHONPATH": str(REPO),
    }
    env.pop("WATCHDOG_PID", None)
    child = subprocess.Popen([sys.executable, str(script)], env=env, stderr=subprocess.PIPE, text=True)

    received: list[tuple[float, str]] = []
    while True:
        try:
            message = path_listener.receive(timeout=10.0)
        except TimeoutError:
            break
        received.append((time.monotonic(), message))
        if message == "STOPPING=1":
            break
    _, errors = child.communicate(timeout=30)
    assert child.returncode == 0, errors

    messages = [message for _, message in received]
    assert messages[0] == "READY=1\nSTATUS=child up"
    assert messages[-1] == "STOPPING=1"
    kicks = [at for at, message in received if message == "WATCHDOG=1"]
    assert len(kicks) == len(messages) - 2, messages
    # 1.5 s at one kick per 50 ms (a quarter of 200 ms) is about 30; 300 calls were made.
    assert 10 <= len(kicks) <= 32
    # Kicks went on through the loop, not in one burst. Their gaps are not judged here: measured
    # on arrival they shrink whenever a busy machine delays the listener (a CI run once saw 31 ms
    # between two kicks sent 50 ms apart); the 50 ms pacing is tested on a set clock above.
    assert kicks[-1] - kicks[0] > 1.0


def test_a_manager_that_stops_reading_stalls_a_send_briefly_and_never_raises(
    path_listener: Listener, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("companion.service.notify.SEND_TIMEOUT_SECONDS", 0.05)
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": path_listener.notify_socket})
    started = time.monotonic()
    # Nobody reads: the queue fills after a few datagrams, and each send after that times out.
    for step in range(30):
        notifier.status(f"frame {step}")
    assert time.monotonic() - started < 10
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 1
    assert "carrying on" in errors[0]
    assert len(path_listener.pending()) >= 1
