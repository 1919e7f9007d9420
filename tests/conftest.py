"""Shared helpers for the test suite."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.live.table import Table
from companion.store import GameStore
from companion.web import create_app
from companion.web.context import WebContext
from companion.web.security import PinGuard, secret_key

RECORDS = Path(__file__).parent / "records"
# the Star Wars game the demo replays when given it (``companion demo --record``)
DEMO_RECORD = Path(__file__).resolve().parents[1] / "companion" / "games" / "starwars" / "demo.jsonl"


def free_port() -> int:
    """A TCP port nobody listens on now, for a server a test starts."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


PIN = "2468"


@pytest.fixture
def records_dir() -> Path:
    return RECORDS


def record_lines(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A test record's header (without its expectations) and its events, as JSON objects."""
    lines = (RECORDS / name).read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header.pop("meta", None)
    return header, [json.loads(line) for line in lines[1:]]


@dataclass
class Site:
    """The companion's web side over a fresh state dir, with a client that holds a CSRF token."""

    app: Flask
    table: Table
    client: FlaskClient
    state_dir: Path
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"X-CSRF-Token": self.token, "X-Table-PIN": PIN}

    def post(self, path: str, body: Any, **headers: str) -> Any:
        data = body if isinstance(body, str | bytes) else json.dumps(body)
        return self.client.post(path, data=data, headers={**self.headers, **headers})

    def play(self, name: str, events: int | None = None) -> None:
        """Start the game of a test record and feed it its first ``events`` events."""
        header, lines = record_lines(name)
        assert self.post("/api/games", header).status_code == 201
        for line in lines[:events]:
            response = self.post("/api/event", line)
            assert response.status_code == 200, response.get_json()


def make_site(state_dir: Path, clock: Any = None) -> Site:
    store = GameStore(state_dir)
    table = Table(store) if clock is None else Table(store, clock=clock)
    context = WebContext(table, PinGuard(PIN), join_urls=["http://192.0.2.7:8000/", "http://127.0.0.1:8000/"])
    app = create_app(context, secret_key(state_dir))
    client = app.test_client()
    token = client.get("/api/csrf").get_json()["token"]
    return Site(app, table, client, state_dir, token)


@pytest.fixture(autouse=True)
def own_state_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a test starts keeps its state in a folder of the test's, never in the home of
    whoever runs the suite (the demo's games are kept in $XDG_STATE_HOME)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state-home")))


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    made = make_site(tmp_path / "state")
    yield made
    made.table.store.close()


@pytest.fixture
def factory() -> Iterator[Any]:
    """gpiozero's mock pins (with PWM, for the trays' LEDs) as every device's factory, for one test."""
    from gpiozero import Device

    from companion.devices.pins import make_pin_factory

    made = make_pin_factory("mock")
    before = Device.pin_factory
    Device.pin_factory = made
    yield made
    Device.pin_factory = before
    made.reset()
