"""Who may change the game: phones that joined the table.

Reading is open to everyone; a change needs a phone that joined (or, for tools, the table PIN in
a header). A phone joins in one of three ways, none of which needs anyone to read a log:

- **the first phone becomes the host**: while no phone has ever joined this table, the Join page
  offers the first one, within ``FIRST_JOIN`` of the companion starting, to join with one tap.
  The person who just switched the companion on is the one holding a phone beside it;
- **an invite**: a joined phone's Join page shows a QR code whose link carries an invite token
  (128 random bits, valid ``INVITE_HOURS``); a phone that scans it has joined;
- **the table PIN**, typed on the Join page (rate-limited as before); a joined phone's Join page
  and ``companion join`` show it.

A phone that joined keeps a mark in its signed session cookie: the table's *generation*. "Make
everyone join again" draws a new generation (and a new invite), and every mark before it is void.
The generation, the invite and whether anyone ever joined are kept in the state directory, so a
restart keeps phones joined and does not open the first-phone window again.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.web.security import same

PAIRING_FILE = "pairing.json"
FIRST_JOIN = 15 * 60.0  # seconds after start during which the first phone may join with a tap
INVITE_HOURS = 12.0
INVITE_BITS = 128  # secrets.token_urlsafe(16): 22 characters


@dataclass(frozen=True)
class Invite:
    token: str
    expires: float  # wall-clock seconds (time.time)


class Pairing:
    def __init__(
        self,
        state_dir: Path | None,
        clock: Callable[[], float] = time.time,
        started: float | None = None,
        first_join: float = FIRST_JOIN,
        uptime: Callable[[], float] = time.monotonic,
        writable: bool = True,
    ) -> None:
        """``clock`` dates the invite (it must outlive a restart); ``uptime`` times the first-phone
        window from the start (a clock that jumps when the Pi sets its time must not close it).
        ``writable`` False reads the table's pairing without ever writing it (``companion join``,
        run by another user than the service's)."""
        self._path = state_dir / PAIRING_FILE if state_dir is not None else None
        self._clock = clock
        self._uptime = uptime
        self._started = uptime() if started is None else started
        self._first_join = first_join
        self._writable = writable
        self._lock = threading.Lock()
        saved = self._read()
        generation = saved.get("generation")
        drawn = not (isinstance(generation, str) and generation)
        self.generation = generation if isinstance(generation, str) and not drawn else secrets.token_hex(8)
        self.anyone_joined: bool = bool(saved.get("anyone_joined", False))
        host, port = saved.get("host"), saved.get("port")
        # where the running companion listens (``companion join`` cannot know a --host or --port
        # given on its command line)
        self.served: tuple[str, int] | None = (
            (host, port)
            if isinstance(host, str) and type(port) is int and 0 < port < 65536  # not a bool
            else None
        )
        token, expires = saved.get("invite"), saved.get("expires")
        if isinstance(token, str) and isinstance(expires, int | float) and expires > clock():
            self._invite = Invite(token, float(expires))
        else:
            self._invite = self._drawn()
            drawn = True
        # whether the invite and generation are the file's as they were (``companion join`` shows
        # only what the running companion holds)
        self.kept = not drawn
        if drawn:
            self._write()

    # --- state kept on disk ---------------------------------------------------------------------

    def _read(self) -> dict[str, object]:
        if self._path is None:
            return {}
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # missing or damaged: drawn again (phones join again)
        return data if isinstance(data, dict) else {}

    def _write(self) -> None:
        if self._path is None or not self._writable:
            return
        data = {
            "generation": self.generation,
            "anyone_joined": self.anyone_joined,
            "invite": self._invite.token,
            "expires": self._invite.expires,
        }
        if self.served is not None:
            data["host"], data["port"] = self.served
        temporary = self._path.with_name(f".{self._path.name}.tmp")
        try:
            temporary.write_text(json.dumps(data), encoding="utf-8")
            temporary.chmod(0o600)
            temporary.replace(self._path)
        except OSError:
            pass  # kept in memory: phones join again after a restart, nothing worse

    def _drawn(self) -> Invite:
        return Invite(secrets.token_urlsafe(INVITE_BITS // 8), self._clock() + INVITE_HOURS * 3600)

    def serving_at(self, host: str, port: int) -> None:
        """Keep where the scoreboard is served, for ``companion join``."""
        with self._lock:
            if (host, port) != self.served:
                self.served = (host, port)
                self._write()

    # --- joining --------------------------------------------------------------------------------

    def invite(self) -> Invite:
        """The invite a joined phone shows (drawn again once it has expired)."""
        with self._lock:
            if self._invite.expires <= self._clock():
                self._invite = self._drawn()
                self._write()
            return self._invite

    def accepts(self, token: str) -> bool:
        with self._lock:
            invite = self._invite
        return invite.expires > self._clock() and same(token, invite.token)

    def first_join_open(self) -> bool:
        """The first phone may join with a tap: nobody ever joined, and the companion started a
        short while ago."""
        return not self.anyone_joined and self._uptime() - self._started < self._first_join

    def claim_first(self) -> str | None:
        """The first phone joins: its mark, or None when the window is shut (two phones tapping
        at once: only one gets in this way)."""
        with self._lock:
            if not self.first_join_open():
                return None
            self.anyone_joined = True
            self._write()
            return self.generation

    def joined(self) -> str:
        """Note that a phone joined; the mark its session keeps."""
        with self._lock:
            if not self.anyone_joined:
                self.anyone_joined = True
                self._write()
            return self.generation

    def is_member(self, mark: object) -> bool:
        return isinstance(mark, str) and same(mark, self.generation)

    def start_over(self) -> None:
        """Every phone must join again (a phone lost, a guest gone): a new generation and invite."""
        with self._lock:
            self.generation = secrets.token_hex(8)
            self._invite = self._drawn()
            self._write()
