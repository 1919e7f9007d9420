"""The games a tracker can feed: a plain engine (tests, ``board read``) or the live table."""

from __future__ import annotations

from typing import Any

from companion.games.base import Setup
from companion.games.starwars.engine import StarWarsGame
from companion.live.table import Table


class EngineLink:
    """A game kept in memory: every event the tracker adds, in order."""

    def __init__(self, setup: Setup) -> None:
        self.game = StarWarsGame(setup)
        self.events: list[dict[str, Any]] = []

    def engine(self) -> StarWarsGame | None:
        return self.game

    def add(self, event: dict[str, Any]) -> None:
        self.game.apply(StarWarsGame.parse_event(event))  # IllegalEvent leaves the game unchanged
        self.events.append(event)

    def keep_first(self, count: int) -> list[dict[str, Any]]:
        """Take back every event after the first ``count``, as corrections on the phone would;
        returns those taken back."""
        kept, dropped = self.events[:count], self.events[count:]
        self.game, self.events = StarWarsGame(self.game.setup), []
        for event in kept:
            self.add(event)
        return dropped


class TableLink:
    """The live table: events are stored durably and shown on every phone."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def engine(self) -> StarWarsGame | None:
        live = self.table.live
        if live is None or not isinstance(live.engine, StarWarsGame):
            return None
        return live.engine

    def add(self, event: dict[str, Any]) -> None:
        self.table.add(event)
