"""Tells systemd how the companion is doing, for ``Type=notify`` and ``WatchdogSec=``.

The sd_notify protocol (sd_notify(3)) is small enough to speak directly: one datagram of
newline-separated ``KEY=VALUE`` lines sent to the AF_UNIX socket that systemd names in
``$NOTIFY_SOCKET``. So this is written here with the standard library's ``socket`` module, with
no dependency on libsystemd or a binding to it (one C library fewer to install on the Pi).

``$NOTIFY_SOCKET`` is a filesystem path (``/run/systemd/notify``) or, when it starts with ``@``,
a name in Linux's abstract socket namespace. Where it is unset (the companion started by hand,
or by a unit that is not ``Type=notify``) every call is a no-op, so the caller never checks.

Telling systemd is never worth crashing for: a failed send is reported once on stderr, and the
companion carries on.

The main loop uses it like this::

    notifier = Notifier.from_environment()
    ...  # load the models, open the camera
    notifier.ready("scoreboard on http://table-companion.local:8000/")
    while running:
        ...  # read a frame
        notifier.kick()  # every frame: sent at most every quarter watchdog interval
    notifier.stopping()
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping

Clock = Callable[[], float]

# systemd asks for a keep-alive at least every half interval (sd_watchdog_enabled(3)); a quarter
# leaves room for one slow frame without the main loop paying a syscall on every frame.
_KICKS_PER_INTERVAL = 4

# A datagram to a unix socket blocks while the reader's queue is full (ten datagrams by default,
# net.unix.max_dgram_qlen); a stuck service manager must not stall the camera loop for longer.
SEND_TIMEOUT_SECONDS = 0.5


class Notifier:
    """Sends READY, STATUS, WATCHDOG and STOPPING to systemd; inactive outside a notify service."""

    def __init__(
        self,
        address: str | None,
        watchdog_interval: float | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        """``address`` is what :func:`socket.socket.sendto` takes (a path, or ``"\\0name"`` for an
        abstract socket), or None for an inactive notifier; ``watchdog_interval`` in seconds."""
        self._address = address
        self.enabled: bool = address is not None
        self.watchdog_interval: float | None = watchdog_interval if self.enabled else None
        self._clock = clock
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._last_kick: float | None = None
        self._failure_reported = False

    @classmethod
    def from_environment(
        cls, environ: Mapping[str, str] | None = None, clock: Clock = time.monotonic
    ) -> Notifier:
        """The notifier systemd asked for through ``NOTIFY_SOCKET``, ``WATCHDOG_USEC`` and
        ``WATCHDOG_PID`` (``os.environ`` when ``environ`` is None)."""
        env = os.environ if environ is None else environ
        address = _socket_address(env.get("NOTIFY_SOCKET", ""))
        return cls(address, _watchdog_interval(env), clock)

    def ready(self, status: str = "") -> None:
        """Start-up is done: systemd marks the unit started and starts its dependents."""
        lines = ["READY=1"]
        if status:
            lines.append(_status_line(status))
        self._send(lines)

    def status(self, text: str) -> None:
        """A one-line state shown by ``systemctl status``."""
        self._send([_status_line(text)])

    def kick(self) -> None:
        """Tells the watchdog the main loop is alive. Cheap to call every frame: it sends at most
        once per quarter of the watchdog interval, and nothing when there is no watchdog."""
        if self.watchdog_interval is None:
            return
        gap = self.watchdog_interval / _KICKS_PER_INTERVAL
        with self._lock:
            now = self._clock()
            if self._last_kick is not None and now - self._last_kick < gap:
                return
            self._last_kick = now
            self._send_locked(["WATCHDOG=1"])

    def stopping(self) -> None:
        """Shutdown has begun, so systemd does not take the exit for a crash while it waits."""
        self._send(["STOPPING=1"])

    def close(self) -> None:
        """Closes the socket; a later call opens another one."""
        with self._lock:
            if self._socket is not None:
                self._socket.close()
                self._socket = None

    def _send(self, lines: list[str]) -> None:
        if not self.enabled:
            return
        with self._lock:
            self._send_locked(lines)

    def _send_locked(self, lines: list[str]) -> None:
        if self._address is None:
            return
        message = "\n".join(lines).encode("utf-8")
        try:
            if self._socket is None:
                # Python's sockets are close-on-exec already, so no child inherits this one.
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                self._socket.settimeout(SEND_TIMEOUT_SECONDS)
            self._socket.sendto(message, self._address)
        except OSError as error:
            self._report(error)

    def _report(self, error: OSError) -> None:
        # Once: a vanished socket would otherwise print on every frame's kick.
        if self._failure_reported:
            return
        self._failure_reported = True
        where = self._address.replace("\0", "@", 1) if self._address else "?"
        print(
            f"companion: cannot tell systemd through {where}: {error.strerror or error}; carrying on",
            file=sys.stderr,
        )


def _socket_address(value: str) -> str | None:
    if value.startswith("@") and len(value) > 1:
        # Abstract namespace: the kernel takes a leading NUL byte where the "@" is written.
        return "\0" + value[1:]
    if value.startswith("/"):
        return value
    if value:
        # systemd 253+ may also name a vsock address ("vsock:CID:PORT"); a Pi's service manager
        # does not, so anything else is reported rather than guessed at.
        print(f"companion: NOTIFY_SOCKET={value!r} is not a unix socket; not notifying", file=sys.stderr)
    return None


def _watchdog_interval(env: Mapping[str, str]) -> float | None:
    # WATCHDOG_PID names the process the watchdog is meant for: a child that inherited the
    # environment must not keep its parent's watchdog happy.
    pid = env.get("WATCHDOG_PID", "")
    if pid and pid != str(os.getpid()):
        return None
    try:
        microseconds = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return microseconds / 1_000_000 if microseconds > 0 else None


def _status_line(text: str) -> str:
    # A newline would start another assignment in the datagram, so the status stays one line.
    return "STATUS=" + " ".join(text.splitlines())
