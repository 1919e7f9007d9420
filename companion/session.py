"""The game at the table: its record so far and the engine that scores it.

One session is shared by the thread that feeds events (camera tracker, demo) and the web
threads that read it, so every access holds the session's lock.
"""

from __future__ import annotations

import threading
from typing import Any

from companion.games.base import Game, ScoreChange, Setup
from companion.record import Record, dump_record


class GameSession:
    def __init__(self, game: type[Game], setup: Setup, source: str = "") -> None:
        self._game_type = game
        self._setup = setup
        self._engine = game(setup)
        self._events: list[Any] = []
        self._lock = threading.Lock()
        self.source = source  # where the events come from, shown to players

    @classmethod
    def from_record(cls, record: Record, source: str = "") -> GameSession:
        return cls(record.game, record.setup, source)

    def apply(self, event: Any) -> list[ScoreChange]:
        """Apply an event; an illegal one raises IllegalEvent and changes nothing."""
        with self._lock:
            changes = self._engine.apply(event)
            self._events.append(event)
            return changes

    def state(self) -> dict[str, Any]:
        with self._lock:
            state = self._engine.status()
            state["scores"] = self._engine.scores()
            state["log"] = [entry.to_json() for entry in self._engine.log]
            state["events"] = len(self._events)
            state["source"] = self.source
            return state

    def record_text(self) -> str:
        with self._lock:
            return dump_record(self._game_type, self._setup, self._events)
