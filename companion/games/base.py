"""The interface every game engine offers, and the moment every engine gives the core.

A game engine is a deterministic state machine fed only by record events: no I/O, no clock and
no randomness of its own. ``apply`` either accepts an event and returns the score changes it
caused, or raises ``IllegalEvent`` and leaves the game exactly as it was. Rebuilding any moment
of a game is replaying a prefix of its events; undo is replay without the last ones.

The core (store, live game, web, MQTT, replay) reads a game only through this interface and the
typed ``Moment`` it gives; what is the game's own travels in ``Moment.extras`` and is drawn by
the game's own page partials.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from companion.games.manifest import Manifest

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
    """One player of the header. ``color`` is None in games without colours; ``extra`` holds the
    keys a game's own header gives a player (a starting hand, say), as written."""

    name: str
    color: str | None
    meta: Mapping[str, Any] | None = field(default=None, compare=False)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        player: dict[str, Any] = {"name": self.name}
        if self.color is not None:
            player["color"] = self.color
        player.update(self.extra)
        if self.meta is not None:
            player["meta"] = dict(self.meta)
        return player


@dataclass(frozen=True, slots=True)
class Setup:
    """What a record header fixes for the whole game. ``options`` are the keys a game's own
    header adds (a board, a faces table, objectives), as written, so writing back loses nothing."""

    game: str
    variant: str
    players: tuple[Player, ...]
    meta: Mapping[str, Any] | None = field(default=None, compare=False)
    options: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        header: dict[str, Any] = {
            "record": RECORD_VERSION,
            "game": self.game,
            "variant": self.variant,
            "players": [p.to_json() for p in self.players],
        }
        header.update(self.options)
        if self.meta is not None:
            header["meta"] = dict(self.meta)
        return header


@dataclass(frozen=True, slots=True)
class ScoreChange:
    """One change of score, always with the reason a person can check.

    ``kind`` says what scored ("route", "asteroid", "planet", "battle", "adjust", ...);
    ``domain`` names the scored feature within the game (stable for the whole game) so that a
    scoreboard can open it; ``cells`` are the tiles it covers. ``player`` is None only for
    entries that belong to no one (a city removed in Gaia). ``extra`` holds keys a game's own
    contract puts in its log entries; ``line`` is the record line that caused the change, set
    by replay for games whose contract asks for it.
    """

    player: str | None
    points: int
    reason: str
    kind: str
    turn: int
    final: bool = False
    team: str | None = None
    domain: int | None = None
    cells: tuple[Cell, ...] = ()
    # What was counted and the rule applied, for the score's page (game-specific JSON).
    detail: Mapping[str, Any] | None = field(default=None, compare=False)
    extra: Mapping[str, Any] | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {}
        if self.line is not None:
            entry["line"] = self.line
        entry.update(
            {
                "player": self.player,
                "points": self.points,
                "reason": self.reason,
                "kind": self.kind,
                "turn": self.turn,
                "final": self.final,
            }
        )
        if self.team is not None:
            entry["team"] = self.team
        if self.domain is not None:
            entry["domain"] = self.domain
        if self.cells:
            entry["cells"] = [list(cell) for cell in self.cells]
        if self.extra:
            entry.update(self.extra)
        if self.detail is not None:
            entry["detail"] = dict(self.detail)
        return entry


@dataclass(frozen=True, slots=True)
class PlayerMoment:
    """One player at this moment: the score (None in a game that keeps no points) and the
    counters a person wants to see, named in words ("small meeples left": 3)."""

    name: str
    color: str | None
    score: int | None
    counters: Mapping[str, int] = field(default_factory=dict)
    # a word or two beside the name: a faction, a team, a role ("Rebels")
    label: str | None = None
    # the team whose score this player shares (ScoreChange.team), in a game played in teams
    team: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "color": self.color,
            "score": self.score,
            "counters": dict(self.counters),
            "label": self.label,
            "team": self.team,
        }


@dataclass(frozen=True, slots=True)
class Moment:
    """What every engine says about where the game stands, in one shape for every game."""

    turn: int  # the turn under way or about to start, as the players count it (0 before the first)
    turn_of: str | None  # whose turn it is (None: no one's, e.g. the game is over)
    phase: str  # in words: "placing a tile", "a battle waits for dice", "game over"
    finished: bool
    winners: tuple[str, ...]  # header order; () while the game is not over, or stopped unwon
    prompts: tuple[str, ...]  # what the rules wait for, for the people at the table
    players: tuple[PlayerMoment, ...]
    # the game's own picture of the moment (JSON), read only by its own page partials
    extras: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "turn_of": self.turn_of,
            "phase": self.phase,
            "finished": self.finished,
            "winners": list(self.winners),
            "prompts": list(self.prompts),
            "players": [p.to_json() for p in self.players],
            "extras": dict(self.extras),
        }


class Game(ABC):
    """One game in progress. Each game package provides one subclass and a manifest."""

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

    @classmethod
    def manifest(cls) -> Manifest:
        """The game's manifest, from the registry."""
        from companion.games.registry import manifest

        return manifest(cls.name)

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        # The record line of the event being applied, when the caller knows it (replay, the live
        # game): a game whose contract names lines in its messages or its log reads it here.
        self.line: int | None = None

    @abstractmethod
    def apply(self, event: Any) -> list[ScoreChange]:
        """Apply one event, or raise IllegalEvent and change nothing."""

    @property
    @abstractmethod
    def log(self) -> Sequence[ScoreChange]:
        """Every change of score so far, in order."""

    @abstractmethod
    def scores(self) -> dict[str, int]:
        """Every player's score by name (in team games: the team's score; in a game without
        points, the measure its contract gives as the score)."""

    @property
    @abstractmethod
    def finished(self) -> bool:
        """True once the record takes no more events (final scoring done, or a win)."""

    @abstractmethod
    def winners(self) -> list[str]:
        """Who won, in header order: several on a shared win; [] while not over or stopped."""

    @abstractmethod
    def moment(self) -> Moment:
        """Where the game stands now, in the shape every game shares."""

    @abstractmethod
    def describe(self, event: Any) -> str:
        """One line a person reads in the timeline: what this event did."""

    @abstractmethod
    def legal_events(self, chance: Any = None) -> list[Any]:
        """The events the rules allow next, each once.

        Where the next event depends on chance the record cannot know beforehand (a tile drawn,
        dice thrown, a card turned over), ``chance`` is what it gave, in the game's own terms
        (the game's simulator makes it), and the list holds the events it allows: a drawn
        tile's every place and turn, the roll of the dice thrown. Without it, only the events
        that need no chance. A simulator chooses among them; a tracker narrows a reading by them.
        """

    def check(self, event: Any) -> str | None:
        """Why ``event`` is not allowed now, or None if it is. The game is left as it was."""
        trial = copy.deepcopy(self)
        try:
            trial.apply(event)
        except IllegalEvent as error:
            return error.reason
        return None

    def entry_view(self) -> dict[str, Any]:
        """What the game's entry forms need now beyond the moment (a board to tap, the tiles of
        the box), for its ``fix.html`` partial; worked out only for that page."""
        return {}

    def score_view(self, change: ScoreChange) -> dict[str, Any]:
        """What the game adds to a score's page beyond the change itself (JSON for its partial)."""
        return {}

    def picture(self, change: ScoreChange | None = None) -> str | None:
        """An SVG drawing of the board as it is now; with ``change``, what it scored brought
        forward (its cells, the pieces its detail names). None if the game has no board to draw."""
        return None


def leaders(scores: Mapping[str, int], players: Sequence[Player]) -> list[str]:
    """The players with the highest score, in header order (a shared win when several)."""
    if not players:
        return []
    best = max(scores[p.name] for p in players)
    return [p.name for p in players if scores[p.name] == best]
