"""What the web layer shares between requests: the table and the settings of this server."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.live.table import Table
from companion.web.pairing import Pairing
from companion.web.security import PinGuard


@dataclass
class WebContext:
    table: Table
    pins: PinGuard
    pairing: Pairing = field(default_factory=lambda: Pairing(None))  # who joined the table
    join_urls: list[str] = field(default_factory=list)  # where phones open the scoreboard
    host: str = "127.0.0.1"  # the address the server listens on (--host, or [web] host)
    mdns_name: str | None = None  # e.g. "table-companion.local", when advertised
    # draws a new PIN when every phone must join again; None when the PIN is set in the config
    pin_drawn: Callable[[], str] | None = None
    # what the games' own pages need from the running table (Star Wars' enrolment), by name
    attachments: dict[str, Any] = field(default_factory=dict)
    max_streams: int = 40  # live scoreboards at once; each holds one server thread
    max_streams_per_client: int = 6  # one phone's tabs; no single client can take them all
    keepalive: float = 15.0  # seconds between keep-alive comments on an idle stream
    poll: float = 1.0  # how often an idle stream checks that its phone is still there

    @staticmethod
    def new_token() -> str:
        return secrets.token_urlsafe(32)
