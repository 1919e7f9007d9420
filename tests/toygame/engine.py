"""The toy game's rules, events and simulator: a few rules, the whole interface."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import (
    FormatError,
    Game,
    IllegalEvent,
    Moment,
    PlayerMoment,
    ScoreChange,
    Setup,
)
from companion.games.fields import check_object, get_int, get_name, get_players, get_str
from companion.games.manifest import SimulatorKit
from companion.games.shared_events import (
    GameEnded,
    ScoreAdjusted,
    adjust_reason,
    describe_shared,
    parse_shared_event,
    shared_event_to_json,
)

GOAL = 10
COLOURS = ("red", "blue", "yellow", "green")


@dataclass(frozen=True)
class Throw:
    player: str
    die: int
    meta: Mapping[str, Any] | None = field(default=None, compare=False)


class ToyGame(Game):
    name = "toy"
    title = "Toy dice race"

    @classmethod
    def parse_setup(cls, header: Mapping[str, Any]) -> Setup:
        check_object(header, "the header", required=("record", "game", "players"), optional=("variant",))
        if "variant" in header:
            get_str(header, "variant", "the header", ("standard",))
        return Setup("toy", "standard", get_players(header, COLOURS, 2, 4), header.get("meta"))

    @classmethod
    def parse_event(cls, obj: Mapping[str, Any]) -> Any:
        if not isinstance(obj, Mapping) or "event" not in obj:
            raise FormatError('an event is an object with "event": "throw", "adjust" or "end"')
        kind = get_str(obj, "event", "an event", ("throw", "adjust", "end"))
        if kind != "throw":
            return parse_shared_event(kind, obj)
        check_object(obj, "a throw", required=("event", "player", "die"))
        return Throw(
            get_name(obj, "player", "a throw"), get_int(obj, "die", "a throw", 1, 6), obj.get("meta")
        )

    @classmethod
    def event_to_json(cls, event: Any) -> dict[str, Any]:
        if not isinstance(event, Throw):
            return shared_event_to_json(event)
        obj: dict[str, Any] = {"event": "throw", "player": event.player, "die": event.die}
        if event.meta is not None:
            obj["meta"] = dict(event.meta)
        return obj

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.names = [p.name for p in setup.players]
        self.points = dict.fromkeys(self.names, 0)
        self.throws = dict.fromkeys(self.names, 0)
        self._log: list[ScoreChange] = []
        self.seat = 0  # whose throw comes next
        self.turn = 1
        self.over = False
        self.last: Throw | None = None

    @property
    def log(self) -> Sequence[ScoreChange]:
        return self._log

    def scores(self) -> dict[str, int]:
        return dict(self.points)

    @property
    def finished(self) -> bool:
        return self.over

    def winners(self) -> list[str]:
        if not self.over:
            return []
        reached = [name for name in self.names if self.points[name] >= GOAL]
        return reached or []  # stopped with "end" before anyone reached the goal: no winner

    def apply(self, event: Any) -> list[ScoreChange]:
        before = len(self._log)
        if isinstance(event, ScoreAdjusted):
            if event.player not in self.points:
                raise IllegalEvent(f'"{event.player}" is not a player in this game')
            self._add(event.player, event.points, adjust_reason(event), "adjust")
        elif self.over:
            raise IllegalEvent("the game is over")
        elif isinstance(event, GameEnded):
            self.over = True
        elif isinstance(event, Throw):
            if event.player != self.names[self.seat]:
                raise IllegalEvent(f"it is {self.names[self.seat]}'s throw, not {event.player}'s")
            points = 0 if event.die == 1 else event.die
            self.throws[event.player] += 1
            self.last = event
            self._add(
                event.player,
                points,
                f"threw {event.die}" + (", a 1 scores nothing" if event.die == 1 else "") + f" = {points}",
                "throw",
            )
            if self.points[event.player] >= GOAL:
                self.over = True
            elif event.die != 6:
                self.seat = (self.seat + 1) % len(self.names)
                self.turn += 1
        else:
            raise IllegalEvent(f"not a toy event: {event!r}")
        return self._log[before:]

    def _add(self, player: str, points: int, reason: str, kind: str) -> None:
        self.points[player] += points
        self._log.append(ScoreChange(player, points, reason, kind, self.turn))

    def moment(self) -> Moment:
        players = tuple(
            PlayerMoment(p.name, p.color, self.points[p.name], {"throws": self.throws[p.name]})
            for p in self.setup.players
        )
        return Moment(
            turn=self.turn,
            turn_of=None if self.over else self.names[self.seat],
            phase="game over" if self.over else f"{self.names[self.seat]} throws",
            finished=self.over,
            winners=tuple(self.winners()),
            prompts=(),
            players=players,
            extras={"goal": GOAL, "last": self.last.die if self.last else None},
        )

    def describe(self, event: Any) -> str:
        if isinstance(event, Throw):
            return f"{event.player} threw {event.die}"
        return describe_shared(event)

    def legal_events(self, chance: Any = None) -> list[Any]:
        if self.over:
            return []
        events: list[Any] = [GameEnded()]
        if isinstance(chance, int):
            events.append(Throw(self.names[self.seat], chance))
        return events


class DieChance:
    """The toy table: one die thrown each step; the game is stopped only after 40 throws."""

    def __init__(self) -> None:
        self.thrown = 0

    def next(self, game: Game, rng: random.Random) -> tuple[Sequence[Any], Sequence[float] | None]:
        self.thrown += 1
        events = game.legal_events(rng.randint(1, 6))
        weights = [1.0 if isinstance(e, Throw) or self.thrown > 40 else 0.0 for e in events]
        return events, weights


def _setup(players: int, variant: str, rng: random.Random) -> Setup:
    from companion.games.base import Player

    names = ("Ana", "Ben", "Cid", "Dee")
    return Setup("toy", variant, tuple(Player(names[i], COLOURS[i]) for i in range(players)))


def simulator_kit() -> SimulatorKit:
    return SimulatorKit(setup=_setup, chance=lambda setup, rng: DieChance())
