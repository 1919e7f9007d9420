"""The Dice Game rules engine: turns of up to three rolls, dice set aside, a city laid die by die.

A turn is its first ``roll``, then any mix of ``aside`` and further rolls (3 in all at most), then
``score`` or ``keep``. Catapults leave the tray as they are thrown; 9 of them in one turn win at
once. ``score`` counts the largest closed city and wins at 42. Every check runs before anything
changes (``_refuse``), so an illegal event leaves the game exactly as it was, and ``check`` asks
the same questions without copying the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Cell, Game, IllegalEvent, Moment, ScoreChange, Setup
from companion.games.dicegame import events as ev
from companion.games.dicegame.city import (
    City,
    LaidDie,
    candidate_cells,
    cell_text,
    cities,
    fits,
    largest_closed,
    misfit,
)
from companion.games.dicegame.faces import CATAPULT, KNIGHT
from companion.games.dicegame.scoring import (
    CATAPULTS_REASON,
    CATAPULTS_TO_WIN,
    GOAL,
    KNIGHTS_TO_KEEP,
    ROLLS,
    RULES,
    knight_reason,
    score_turn,
)
from companion.games.dicegame.setup import faces_of, parse_setup
from companion.games.dicegame.view import layout_json, moment_of
from companion.games.shared_events import GameEnded, ScoreAdjusted, adjust_reason

TURN_EVENTS = frozenset((ev.Rolled, ev.SetAside, ev.KnightKept, ev.TurnScored))


def dice_text(count: int) -> str:
    return f"{count} die" if count == 1 else f"{count} dice"


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


@dataclass
class Turn:
    """The turn under way: the dice in the tray, what was set aside, the city laid so far."""

    player: str
    seat: int
    number: int
    double: bool  # the player held a kept knight when the turn began
    rolls: int = 0
    tray: list[str] = field(default_factory=list)  # the faces still in the tray, as thrown
    laid: list[LaidDie] = field(default_factory=list)
    where: dict[Cell, int] = field(default_factory=dict)  # cell -> index in ``laid``
    knights: int = 0  # set aside
    catapults: int = 0  # thrown this turn
    passed: int = 0  # catapults of the latest roll, to pass on now


class DiceGame(Game):
    name = "dicegame"
    title = "Carcassonne: The Dice Game"

    # --- the record form ---------------------------------------------------------------------

    @classmethod
    def parse_setup(cls, header: Mapping[str, Any]) -> Setup:
        return parse_setup(header)

    @classmethod
    def parse_event(cls, obj: Mapping[str, Any]) -> ev.Event:
        return ev.parse_event(obj)

    @classmethod
    def event_to_json(cls, event: ev.Event) -> dict[str, Any]:
        return ev.event_to_json(event)

    # --- state ---------------------------------------------------------------------------------

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.names = [p.name for p in setup.players]
        self.faces = faces_of(setup)
        self._face_names = frozenset(self.faces.all_faces)
        self.points = dict.fromkeys(self.names, 0)
        self.kept: set[str] = set()  # players holding a kept knight (one each at most)
        self.turn: Turn | None = None
        self.turns_begun = 0
        self.next_seat = 0  # whose turn comes next when none is under way
        self.winner: str | None = None
        # "Ana won at line 63", for what is refused after a win (the contract's words)
        self.won_how = ""
        self.stopped = False  # an "end" came
        self._log: list[ScoreChange] = []
        self.layouts: dict[int, tuple[LaidDie, ...]] = {}  # each ended turn's city, by turn number
        self.last_turn: Turn | None = None
        self._checked: tuple[ev.SetAside | None, LaidDie | None] = (None, None)

    @property
    def log(self) -> Sequence[ScoreChange]:
        return self._log

    def scores(self) -> dict[str, int]:
        return dict(self.points)

    @property
    def finished(self) -> bool:
        return self.winner is not None or self.stopped

    def winners(self) -> list[str]:
        return [self.winner] if self.winner is not None else []

    def next_player(self) -> str:
        return self.turn.player if self.turn is not None else self.names[self.next_seat]

    def knights_held_by_others(self, player: str) -> int:
        return sum(1 for holder in self.kept if holder != player)

    def dice_to_roll(self) -> int | None:
        """How many dice the next roll throws; None when no roll may come now."""
        if self.finished:
            return None
        turn = self.turn
        if turn is None:
            return ev.DICE - self.knights_held_by_others(self.names[self.next_seat])
        if turn.rolls >= ROLLS or not turn.tray:
            return None
        return len(turn.tray)

    # --- events ----------------------------------------------------------------------------------

    def apply(self, event: Any) -> list[ScoreChange]:
        self._refuse(event)
        logged = len(self._log)
        kind = type(event)
        if kind is ev.SetAside:
            self._set_aside(event)
        elif kind is ev.Rolled:
            self._roll(event)
        elif kind is ev.TurnScored:
            self._score()
        elif kind is ev.KnightKept:
            self._keep()
        elif kind is ScoreAdjusted:
            self._add(event.player, event.points, adjust_reason(event), "adjust", self._turn_number())
        else:  # GameEnded: a turn in progress is dropped without a score
            self.turn = None
            self.stopped = True
        return self._log[logged:]

    def check(self, event: Any) -> str | None:
        try:
            self._refuse(event)
        except IllegalEvent as error:
            return error.reason
        return None

    def _refuse(self, event: Any) -> None:
        """Raise IllegalEvent when the rules do not allow ``event`` now; change nothing."""
        kind = type(event)
        if kind is ScoreAdjusted:
            self._known(event.player)
            return
        if self.stopped:
            raise IllegalEvent("the game has ended: nothing may follow 'end'")
        if self.winner is not None:
            if kind is GameEnded:
                return
            raise IllegalEvent(f"the game is over: {self.won_how}; only 'end' may follow")
        if kind is GameEnded:
            return
        if kind not in TURN_EVENTS:
            raise IllegalEvent(f"not a Dice Game event: {event!r}")
        if event.player not in self.points:
            raise IllegalEvent(f'"{event.player}" is not a player in this game')
        if kind is ev.Rolled:
            self._refuse_roll(event)
            return
        turn = self.turn
        if turn is None:
            due = self.names[self.next_seat]
            if event.player != due:
                raise IllegalEvent(f"it is {due}'s turn, not {event.player}'s")
            raise IllegalEvent(f"{due}'s turn has not started: a turn starts with a roll")
        if event.player != turn.player:
            raise IllegalEvent(f"it is {turn.player}'s turn, not {event.player}'s")
        if kind is ev.SetAside:
            self._refuse_aside(turn, event)
        elif kind is ev.KnightKept and turn.knights < KNIGHTS_TO_KEEP:
            raise IllegalEvent(
                f"{turn.player} has set aside {plural(turn.knights, 'knight')} this turn; "
                f"keeping one needs {KNIGHTS_TO_KEEP} or more"
            )

    def _known(self, player: str) -> None:
        if player not in self.points:
            raise IllegalEvent(f'"{player}" is not a player in this game')

    def _refuse_roll(self, event: ev.Rolled) -> None:
        player, thrown = event.player, len(event.dice)
        turn = self.turn
        if turn is None:
            due = self.names[self.next_seat]
            if player != due:
                raise IllegalEvent(f"it is {due}'s turn to roll, not {player}'s")
            held = self.knights_held_by_others(player)
            if thrown != ev.DICE - held:
                kept = f" ({plural(held, 'knight')} kept by other players)" if held else ""
                raise IllegalEvent(f"{player} has {dice_text(ev.DICE - held)} to roll, not {thrown}{kept}")
        else:
            if player != turn.player:
                raise IllegalEvent(f"{turn.player}'s turn has not ended: 'score' or 'keep' comes first")
            if turn.rolls >= ROLLS:
                raise IllegalEvent(f"{player} has already rolled {ROLLS} times this turn")
            if not turn.tray:
                raise IllegalEvent(
                    f"{player} has no dice left to roll: each die is set aside or went to the next "
                    "player; 'score' or 'keep' ends the turn"
                )
            if thrown != len(turn.tray):
                raise IllegalEvent(
                    f"{player} has {dice_text(len(turn.tray))} left to roll, not {thrown}: dice set "
                    "aside or taken by catapults are not rolled again"
                )
        for face in event.dice:
            if face not in self._face_names:
                raise IllegalEvent(self._not_a_face(face))

    def _not_a_face(self, face: str) -> str:
        return f'"{face}" is not a face of these dice (they show {", ".join(self.faces.all_faces)})'

    def _refuse_aside(self, turn: Turn, event: ev.SetAside) -> None:
        face = event.face
        if face == CATAPULT:
            raise IllegalEvent("a catapult cannot be set aside: it went to the next player at once")
        if face != KNIGHT and not self.faces.is_city(face):
            raise IllegalEvent(self._not_a_face(face))
        if face not in turn.tray:
            holds = f"it holds {', '.join(turn.tray)}" if turn.tray else "it is empty"
            raise IllegalEvent(f"there is no {face} in the tray: {holds}")
        if face == KNIGHT:
            return
        die = self._die(event)
        reason = misfit(turn.laid, turn.where, die)
        if reason is not None:
            raise IllegalEvent(reason)
        self._checked = (event, die)  # apply lays this very die, without working it out again

    def _die(self, event: ev.SetAside) -> LaidDie:
        if event.at is None or event.rotation is None:
            raise IllegalEvent(f'the {event.face} set aside needs "at" and "rotation": it is laid at once')
        segments = self.faces.turned_segments(event.face, event.rotation)
        return LaidDie.make(event.face, event.at, event.rotation, segments)

    # --- changes (each runs only after _refuse has passed) ---------------------------------------

    def _roll(self, event: ev.Rolled) -> None:
        turn = self.turn
        if turn is None:
            self.turns_begun += 1
            seat = self.next_seat
            player = self.names[seat]
            # the player's own kept knight is thrown with the rest, and doubles this turn
            turn = Turn(player, seat, self.turns_begun, double=player in self.kept)
            self.kept.discard(player)
            self.turn = turn
        turn.rolls += 1
        turn.passed = event.dice.count(CATAPULT)
        turn.catapults += turn.passed
        turn.tray = [face for face in event.dice if face != CATAPULT]
        if turn.catapults >= CATAPULTS_TO_WIN:
            self._end_turn(turn, 0, CATAPULTS_REASON, "catapults")
            self._win(turn, f"with {CATAPULTS_TO_WIN} catapults")

    def _set_aside(self, event: ev.SetAside) -> None:
        turn = self.turn
        assert turn is not None  # _refuse saw to it
        turn.tray.remove(event.face)
        turn.passed = 0  # the catapults thrown have gone on by now
        if event.face == KNIGHT:
            turn.knights += 1
            return
        checked, die = self._checked
        if checked is not event or die is None:
            die = self._die(event)
        turn.where[die.at] = len(turn.laid)
        turn.laid.append(die)

    def _keep(self) -> None:
        turn = self.turn
        assert turn is not None
        self.kept.add(turn.player)
        self._end_turn(turn, 0, knight_reason(turn.knights), "knight")

    def _score(self) -> None:
        turn = self.turn
        assert turn is not None
        found = cities(turn.laid)
        best = largest_closed(found)
        result = score_turn(best, len(turn.laid), turn.double)
        self._end_turn(turn, result.points, result.reason, "city", found, best.dice if best else None)
        if self.points[turn.player] >= GOAL:
            self._win(turn, f"with {self.points[turn.player]} points")

    def _win(self, turn: Turn, how: str) -> None:
        """``turn``'s player wins. The line of the winning event is kept now, for every event
        refused after it (replay and the live game set ``line`` before each event they apply);
        an engine fed without lines (a simulation) names the turn instead."""
        self.winner = turn.player
        if self.line is not None:
            self.won_how = f"{turn.player} won at line {self.line}"
        else:
            self.won_how = f"{turn.player} won {how} in turn {turn.number}"

    def _end_turn(
        self,
        turn: Turn,
        points: int,
        reason: str,
        kind: str,
        found: list[City] | None = None,
        scored: tuple[int, ...] | None = None,
    ) -> None:
        if found is None:
            found = cities(turn.laid)
        detail = {
            "cities": [
                {"dice": c.size, "closed": c.closed, "cells": [list(turn.laid[i].at) for i in c.dice]}
                for c in found
            ],
            "knights": turn.knights,
            "catapults": turn.catapults,
            "double": turn.double,
        }
        cells = tuple(turn.laid[i].at for i in scored) if scored else ()
        self._add(turn.player, points, reason, kind, turn.number, cells, detail)
        self.layouts[turn.number] = tuple(turn.laid)
        self.last_turn = turn
        self.turn = None
        self.next_seat = (turn.seat + 1) % len(self.names)

    def _add(
        self,
        player: str,
        points: int,
        reason: str,
        kind: str,
        turn: int,
        cells: tuple[Cell, ...] = (),
        detail: dict[str, Any] | None = None,
    ) -> None:
        self.points[player] += points
        # "cells" is written even when empty: the contract gives every log entry one
        extra = {"cells": [list(cell) for cell in cells]}
        self._log.append(
            ScoreChange(player, points, reason, kind, turn, cells=cells, detail=detail, extra=extra)
        )

    def _turn_number(self) -> int:
        return self.turn.number if self.turn is not None else self.turns_begun

    # --- what the rules allow next ----------------------------------------------------------------

    def legal_events(self, chance: Any = None) -> list[Any]:
        """``chance``: the faces of the dice just thrown (a sequence of face names); with it, the
        roll they make is listed when a roll of that many dice may come now."""
        if self.stopped:
            return []
        if self.winner is not None:
            return [GameEnded()]
        listed: list[Any] = [GameEnded()]
        turn = self.turn
        if turn is None:
            return listed + self._roll_of(self.names[self.next_seat], chance)
        listed.append(ev.TurnScored(turn.player))
        if turn.knights >= KNIGHTS_TO_KEEP:
            listed.append(ev.KnightKept(turn.player))
        if self.dice_to_roll() is not None:
            listed += self._roll_of(turn.player, chance)
        return listed + self.placements()

    def _roll_of(self, player: str, chance: Any) -> list[Any]:
        if not isinstance(chance, Sequence) or isinstance(chance, str):
            return []
        thrown = tuple(chance)
        faces = self.faces.all_faces
        if len(thrown) != self.dice_to_roll() or any(face not in faces for face in thrown):
            return []
        return [ev.Rolled(player, thrown)]

    def placements(self) -> list[ev.SetAside]:
        """Every die of the tray set aside: the knight, and each city face at each cell that
        touches the city (or lies diagonally beside it, apart) in each rotation that fits. A die
        may also be laid farther away; those places are allowed but not listed."""
        turn = self.turn
        if turn is None:
            return []
        listed: list[ev.SetAside] = []
        cells = candidate_cells(turn.where)
        for face in dict.fromkeys(turn.tray):
            if face == KNIGHT:
                listed.append(ev.SetAside(turn.player, KNIGHT))
                continue
            for rotation in range(4):
                sides = 0
                for segment in self.faces.turned_segments(face, rotation):
                    sides |= segment
                for cell in cells:
                    if fits(turn.laid, turn.where, cell, sides):
                        listed.append(ev.SetAside(turn.player, face, cell, rotation))
        return listed

    # --- what people read -------------------------------------------------------------------------

    def moment(self) -> Moment:
        return moment_of(self)

    def describe(self, event: Any) -> str:
        if isinstance(event, ev.Rolled):
            return f"{event.player} rolled {dice_text(len(event.dice))}: {faces_text(event.dice)}"
        if isinstance(event, ev.SetAside):
            if event.face != KNIGHT and event.at is not None:
                turned = f", turned {plural(event.rotation or 0, 'quarter')}" if event.rotation else ""
                return f"{event.player} laid a {event.face} at {cell_text(event.at)}{turned}"
            return f"{event.player} set aside a {event.face}"
        if isinstance(event, ev.KnightKept):
            return f"{event.player} kept a knight: no score this turn, the next one doubled"
        if isinstance(event, ev.TurnScored):
            return f"{event.player} ended the turn and scored it"
        if isinstance(event, ScoreAdjusted):
            return f"{event.player}'s score corrected by hand, {event.points:+d}: {event.reason}"
        return "The players stopped the game"

    def score_view(self, change: ScoreChange) -> dict[str, Any]:
        view: dict[str, Any] = {"rule": RULES.get(change.kind, "")}
        laid = self.layouts.get(change.turn) if change.kind != "adjust" else None
        if laid is not None:
            view["city"] = layout_json(self.faces, laid, scored=change.cells)
        return view


def faces_text(dice: Sequence[str]) -> str:
    """The faces of a roll, each once with how many: "knight x2, catapult, corner x3"."""
    counted: dict[str, int] = {}
    for face in dice:
        counted[face] = counted.get(face, 0) + 1
    return ", ".join(face if n == 1 else f"{face} x{n}" for face, n in counted.items())
