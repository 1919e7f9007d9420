"""The small interface every game engine offers.

A game engine is a deterministic state machine fed only by record events: no I/O, no clock and
no randomness of its own. ``apply`` either accepts an event and returns the score changes it
caused, or raises ``IllegalEvent`` and leaves the game exactly as it was. Rebuilding any moment
of a game is replaying a prefix of its events; undo is replay without the last ones.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

Cell = tuple[int, int]
RECORD_VERSION = 1  # the "record" value of a header (shared/spec/records.md)


class RecordError(Exception):
    """A record object that cannot be accepted; ``reason`` is meant for a person."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class FormatError(RecordError):
    """The text breaks the record format: a missing or unknown key, a wrong type, a bad value."""


class IllegalEvent(RecordError):
    """A well-formed event that the rules do not allow at this moment of the game."""


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    color: str
    meta: Mapping[str, Any] | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        player: dict[str, Any] = {"name": self.name, "color": self.color}
        if self.meta is not None:
            player["meta"] = dict(self.meta)
        return player


@dataclass(frozen=True, slots=True)
class Setup:
    """What a record header fixes for the whole game."""

    game: str
    variant: str
    players: tuple[Player, ...]
    meta: Mapping[str, Any] | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        header: dict[str, Any] = {
            "record": RECORD_VERSION,
            "game": self.game,
            "variant": self.variant,
            "players": [p.to_json() for p in self.players],
        }
        if self.meta is not None:
            header["meta"] = dict(self.meta)
        return header


@dataclass(frozen=True, slots=True)
class ScoreChange:
    """One change of score, always with the reason a person can check.

    ``kind`` says what scored ("route", "asteroid", "planet", "battle", ...); ``domain`` names
    the scored domain within the game (stable for the whole game) so that a scoreboard can open
    it; ``cells`` are the tiles it covers.
    """

    player: str
    points: int
    reason: str
    kind: str
    turn: int
    final: bool = False
    team: str | None = None
    domain: int | None = None
    cells: tuple[Cell, ...] = ()
    # What was counted and the rule applied, for the feature view (game-specific JSON).
    detail: Mapping[str, Any] | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "player": self.player,
            "points": self.points,
            "reason": self.reason,
            "kind": self.kind,
            "turn": self.turn,
            "final": self.final,
        }
        if self.team is not None:
            entry["team"] = self.team
        if self.domain is not None:
            entry["domain"] = self.domain
        if self.cells:
            entry["cells"] = [list(cell) for cell in self.cells]
        if self.detail is not None:
            entry["detail"] = dict(self.detail)
        return entry


class Game(ABC):
    """One game in progress. Each game package provides one subclass."""

    name: ClassVar[str]
    title: ClassVar[str]

    @classmethod
    @abstractmethod
    def parse_setup(cls, header: Mapping[str, Any]) -> Setup:
        """Validate a record header (already known to be for this game)."""

    @classmethod
    @abstractmethod
    def parse_event(cls, obj: Mapping[str, Any]) -> Any:
        """Turn one event object into this game's event value; raises FormatError."""

    @classmethod
    @abstractmethod
    def event_to_json(cls, event: Any) -> dict[str, Any]:
        """The record form of an event, so that read -> write gives the same game."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup

    @abstractmethod
    def apply(self, event: Any) -> list[ScoreChange]:
        """Apply one event, or raise IllegalEvent and change nothing."""

    @property
    @abstractmethod
    def log(self) -> Sequence[ScoreChange]:
        """Every change of score so far, in order."""

    @abstractmethod
    def scores(self) -> dict[str, int]:
        """Every player's score by name (in team games: the team's score)."""

    @property
    @abstractmethod
    def finished(self) -> bool:
        """True once the game's final scoring is done."""

    @abstractmethod
    def status(self) -> dict[str, Any]:
        """A JSON-ready picture of the moment: whose turn, what is waiting, the players."""

    @abstractmethod
    def describe(self, event: Any) -> str:
        """One line a person reads in the timeline: what this event did."""

    def picture(
        self, highlight: Collection[Cell] = (), pieces: Sequence[Mapping[str, Any]] = ()
    ) -> str | None:
        """An SVG drawing of the board as it is now, ``highlight`` cells brought forward and
        ``pieces`` (game-specific JSON, as in a score's detail) drawn on it; None if the game
        has no board to draw."""
        return None
