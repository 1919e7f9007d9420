"""Who may change the game: the table PIN, CSRF tokens, and the limit on wrong PINs.

Reading is open to everyone at the table. Every request that changes something must carry the
CSRF token of the page it came from (``X-CSRF-Token``) and come from a phone that joined the
table (``pairing.py``), or, for tools, carry the table PIN (``X-Table-PIN``).
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path

SECRET_FILE = "secret_key"
PIN_FILE = "pin"
PIN_HEADER = "X-Table-PIN"
CSRF_HEADER = "X-CSRF-Token"


class Refused(Exception):
    """A state-changing request that may not go through; ``status`` is the HTTP answer."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


def _read_or_create(path: Path, make: Callable[[], bytes], valid: Callable[[bytes], bool]) -> bytes:
    """The file's bytes; made with ``make`` when it is missing or damaged (a crash while it was
    being written). Written whole to a temporary file first, then moved into place, so no one
    ever reads half of it."""
    try:
        data = path.read_bytes()
        if valid(data):
            return data
    except FileNotFoundError:
        pass
    data = make()
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)  # the new name survives a power cut too
    finally:
        os.close(folder)
    return data


def secret_key(state_dir: Path) -> bytes:
    """The key that signs session cookies: made once, kept in the state dir across restarts."""
    return _read_or_create(state_dir / SECRET_FILE, lambda: secrets.token_bytes(32), lambda d: len(d) == 32)


def table_pin(state_dir: Path, configured: str | None = None) -> str:
    """The PIN players type to change the game: the configured one, or 6 digits made once and kept."""
    if configured is not None:
        if not is_pin(configured):
            raise ValueError("the table PIN is 4 to 12 digits")
        return configured
    made = _read_or_create(
        state_dir / PIN_FILE,
        lambda: f"{secrets.randbelow(1_000_000):06d}".encode(),
        lambda d: is_pin(d.decode("ascii", "replace")),
    )
    return made.decode()


def kept_table_pin(state_dir: Path, configured: str | None = None) -> str:
    """The PIN as the running companion holds it, read only: ValueError when none is kept whole."""
    if configured is not None:
        return table_pin(state_dir, configured)
    path = state_dir / PIN_FILE
    try:
        text = path.read_bytes().decode("ascii", "replace")
    except FileNotFoundError:
        raise ValueError(f"no PIN kept in {path}") from None
    if not is_pin(text):
        raise ValueError(f"the PIN kept in {path} is damaged: the companion draws one at its next start")
    return text


def new_table_pin(state_dir: Path) -> str:
    """Draw the table's PIN again and keep it (the old one is void)."""
    (state_dir / PIN_FILE).unlink(missing_ok=True)
    return table_pin(state_dir)


def is_pin(text: str) -> bool:
    """A table PIN: 4 to 12 digits 0-9 (``--pin``, ``[web] pin`` and the one made once)."""
    return text.isascii() and text.isdigit() and 4 <= len(text) <= 12


def same(offered: str, expected: str) -> bool:
    """Compare secrets in constant time, so timing tells nothing about how much was right."""
    return hmac.compare_digest(offered.encode(), expected.encode())


class PinGuard:
    """Checks the PIN. After ``max_failures`` wrong PINs from one client within ``window`` seconds
    that client waits out the window; after ``max_total_failures`` from all clients together,
    everyone does (many addresses guessing at once is an attack, not a mistyped PIN)."""

    def __init__(
        self,
        pin: str,
        max_failures: int = 5,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        max_total_failures: int = 30,
    ) -> None:
        self._pin = pin
        self._max_failures = max_failures
        self._max_total = max_total_failures
        self._window = window
        self._clock = clock
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    @property
    def pin(self) -> str:
        """The table PIN, for a phone that has joined to show the others."""
        return self._pin

    @pin.setter
    def pin(self, pin: str) -> None:
        with self._lock:
            self._pin = pin

    def _wait(self, failures: list[float], now: float) -> int:
        return int(self._window - (now - failures[0])) + 1

    def check(self, client: str, offered: str | None) -> None:
        now = self._clock()
        with self._lock:
            for who in list(self._failures):
                self._failures[who] = [t for t in self._failures[who] if now - t < self._window]
                if not self._failures[who]:
                    del self._failures[who]
            recent = self._failures.get(client, [])
            if len(recent) >= self._max_failures:
                wait = self._wait(recent, now)
                raise Refused(429, f"too many wrong PINs: try again in {wait} s", retry_after=wait)
            everyone = sorted(t for times in self._failures.values() for t in times)
            if len(everyone) >= self._max_total:
                wait = self._wait(everyone, now)
                raise Refused(
                    429, f"too many wrong PINs at this table: try again in {wait} s", retry_after=wait
                )
            if not offered:
                raise Refused(401, f"the table PIN is needed (send it in the {PIN_HEADER} header)")
            if not same(offered, self._pin):
                self._failures.setdefault(client, []).append(now)
                raise Refused(403, "wrong table PIN")
