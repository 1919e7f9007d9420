"""The games a table reader can feed: a plain engine (tests, ``board read``) or the live table."""

from __future__ import annotations

from typing import Any, Protocol

from companion.games.base import Game, Setup
from companion.games.registry import game_class
from companion.live.table import Table


class GameLink(Protocol):
    """The game a table reader feeds: the live table in the companion, a plain engine in tests."""

    def engine(self) -> Game | None: ...

    def add(self, event: dict[str, Any]) -> None: ...


class EngineLink:
    """A game kept in memory: every event the reader adds, in order."""

    def __init__(self, setup: Setup) -> None:
        self.kind = game_class(setup.game)
        self.game = self.kind(setup)
        self.events: list[dict[str, Any]] = []

    def engine(self) -> Game | None:
        return self.game

    def add(self, event: dict[str, Any]) -> None:
        self.game.apply(self.kind.parse_event(event))  # IllegalEvent leaves the game unchanged
        self.events.append(event)

    def keep_first(self, count: int) -> list[dict[str, Any]]:
        """Take back every event after the first ``count``, as corrections on the phone would;
        returns those taken back."""
        kept, dropped = self.events[:count], self.events[count:]
        self.game, self.events = self.kind(self.game.setup), []
        for event in kept:
            self.add(event)
        return dropped


class TableLink:
    """The live table: events are stored durably and shown on every phone."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def engine(self) -> Game | None:
        live = self.table.live
        return None if live is None else live.engine

    def add(self, event: dict[str, Any]) -> None:
        self.table.add(event)
