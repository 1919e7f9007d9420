"""The trays' flow: the trays light for whoever must roll, settled dice are read, rolls come out.

``DiceTrays`` knows no game. A game's table reader polls it with what its engine waits for at
that moment (a ``DiceRequest``: who rolls how many dice, for what), never with a copy of the
game kept aside, and turns the rolls it gets back (``TrayRoll``: the faces read, of the reader's
face set) into its own record events. A roll entered on the phone is simply a want the game no
longer asks for, and its tray goes dark.

For each want: a tray (the one whose seat is one of the want's players, else a free one) blinks
the roller's colour once per die and beeps as many times; shaking makes it breathe; once the dice
settle (or the button is pressed) the tray's picture is read. All dice read, as many as wanted: a
roll, and the light turns green. Anything else: the light flashes red and white, nothing is
reported, and ``status`` says what to do. Never a guessed value.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from companion.devices.signals import (
    BEEP,
    LONG_BEEP,
    OFF_LIGHT,
    PROBLEM,
    READ,
    RGB,
    ROLLING,
    SILENT,
    WAITING,
    Beeps,
    Light,
)
from companion.devices.timing import ROLLING as SHAKING
from companion.devices.timing import SETTLED
from companion.devices.tray import DiceTray
from companion.table.dice_checks import MIN_CONFIDENCE, dice_word, reading_problem
from companion.vision.dice_reading import FaceSet, ReadsDice, TrayReading

# A BGR picture of one tray, by its index (0 for tray 1): a region of the overhead camera, or a
# camera of its own (issue 6 leaves which to the camera work).
TrayCamera = Callable[[int], np.ndarray]

# The LED colour of each player colour. An LED cannot show black: black is violet (Vader's light
# sabre is red, but red is taken). Green while waiting blinks; green once read is steady.
LED_COLOURS: dict[str, RGB] = {
    "red": (1.0, 0.0, 0.0),
    "green": (0.0, 1.0, 0.0),
    "black": (0.5, 0.0, 1.0),
    "white": (1.0, 1.0, 1.0),
    "orange": (1.0, 0.35, 0.0),
    "yellow": (1.0, 0.8, 0.0),
    "blue": (0.0, 0.0, 1.0),
}
COLOUR_WORDS = {"black": "violet"}  # what a person sees on the LED, where it is not the colour's name
SEATLESS: RGB = (0.0, 0.6, 1.0)  # a roller without a colour of their own: a cool blue


def led_colour(colour: str) -> RGB:
    """The LED colour that stands for a player colour (blue for one the LED cannot show)."""
    return LED_COLOURS.get(colour, SEATLESS)


GREEN_HOLD = 2.5  # seconds a read tray stays green before it is handed to another fighter
IDLE = "idle"


@dataclass(frozen=True)
class Want:
    """One roll a game waits for: whose, how many dice, in which round of what."""

    group: tuple[Any, ...]  # what the roll is for, as the game names it (a battle: turn, domain)
    round: int  # a tie rolls again: the same group, a later round
    fighter: str  # who rolls, as the game keys it (a player, or a team)
    label: str  # "Ana", "Rebels (Ana, Cid)"
    dice: int
    players: tuple[str, ...]  # who may roll for it
    # False: the tray's picture is handed back whatever the number of dice in it, for the game to
    # judge (the Dice Game's tray holds fewer dice as they are set aside); True: only a roll of
    # exactly ``dice`` dice comes back, anything else is the tray's problem
    exact: bool = True

    @property
    def key(self) -> tuple[tuple[int, ...], int, str]:
        return self.group, self.round, self.fighter

    def later_round_of(self, other: Want) -> bool:
        return self.group == other.group and self.round > other.round


@dataclass(frozen=True)
class DiceRequest:
    """What a game waits for from the trays now."""

    wants: tuple[Want, ...] = ()
    title: str | None = None  # "battle for the trade route, round 2", for the scoreboard
    colours: Mapping[str, str | None] = field(default_factory=dict)  # each player's colour: their seat
    reader: ReadsDice | None = None  # the game's own dice (its face set); None: the trays' reader


@dataclass(frozen=True)
class TrayRoll:
    """A want's dice, all read: the faces left to right as the tray's picture shows them."""

    want: Want
    roller: str  # the player who rolled (the tray's seat, or the want's first player)
    faces: tuple[str, ...]
    tray: int  # the tray's number, from 1
    confidence: float  # the least sure die's (1.0 for a tray with no dice)
    picture: np.ndarray | None = field(default=None, compare=False, repr=False)  # what was read
    reading: TrayReading | None = field(default=None, compare=False, repr=False)  # the dice found


@dataclass
class TrayTask:
    """What one tray is doing for the rolls the game waits for."""

    want: Want | None = None
    roller: str = ""  # the player the roll event will name
    colour: str = ""  # the roller's colour
    phase: str = IDLE  # idle, waiting, rolling, problem, read
    message: str = ""  # what to do, in the problem phase
    dice: tuple[str, ...] = ()  # the faces read, in the read phase
    green_until: float = 0.0
    served: set[str] = field(default_factory=set)  # fighters this tray has read for


class DiceTrays:
    """The trays: ``poll(request)`` returns the rolls read since the last poll."""

    def __init__(
        self,
        trays: Sequence[DiceTray],
        camera: TrayCamera,
        reader: ReadsDice,
        clock: Callable[[], float] = time.monotonic,
        green_hold: float = GREEN_HOLD,
        min_confidence: float = MIN_CONFIDENCE,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        """``on_change`` is called after a poll that changed what ``status`` or ``to_json()``
        say, so the scoreboard can be told (the tracker announces only what it changed)."""
        self.trays = list(trays)
        self.camera = camera
        self.reader = reader
        self.clock = clock
        self.green_hold = green_hold
        self.min_confidence = min_confidence
        self.on_change = on_change
        self.tasks = [TrayTask() for _ in self.trays]
        self._title: str | None = None
        self._reader: ReadsDice = reader  # the reader of the request polled last
        self._unserved: list[Want] = []  # fighters waiting for a free tray
        # What the scoreboard reads, made whole at the end of each poll: the web reads it from
        # another thread, and must never see a tray half changed.
        self._status: str | None = None
        self._json: list[dict[str, Any]] = self._trays_json()

    @property
    def faces(self) -> FaceSet:
        """The faces the trays' reader tells apart (of the request polled last)."""
        return self._reader.faces

    # --- the game's side -----------------------------------------------------------------------

    def poll(self, request: DiceRequest) -> list[TrayRoll]:
        now = self.clock()
        wants, self._title = list(request.wants), request.title
        self._reader = request.reader or self.reader
        open_keys = {want.key for want in wants}
        for tray, task in zip(self.trays, self.tasks, strict=True):
            if task.want is None:
                continue
            if task.phase == READ:
                # The tracker records a roll in the same call that polled it, so a roll the game
                # still waits for did not stick (undone on the phone, or refused): ask again.
                if task.want.key in open_keys or now >= task.green_until:
                    self._free(tray, task)
            elif task.want.key not in open_keys:  # entered on the phone, or the battle moved on
                self._free(tray, task)
        served = {task.want.key for task in self.tasks if task.want is not None and task.phase != READ}
        self._unserved = []
        colours = dict(request.colours)
        fighting = {name for want in wants for name in want.players}
        for want in wants:
            if want.key in served:
                continue
            index = self._choose_tray(want, colours, fighting)
            if index is None:
                self._unserved.append(want)
            else:
                self._assign(index, want, colours, now)
        rolls: list[TrayRoll] = []
        for tray, task in zip(self.trays, self.tasks, strict=True):
            if task.phase in (WAITING, ROLLING, PROBLEM):
                roll = self._watch(tray, task, now)
                if roll is not None:
                    rolls.append(roll)
            tray.render(now)
        self._publish()
        return rolls

    def _publish(self) -> None:
        """Make what the scoreboard reads whole again, and tell it if that changed."""
        status, shown = self._describe(), self._trays_json()
        changed = (status, shown) != (self._status, self._json)
        self._status, self._json = status, shown
        if changed and self.on_change is not None:
            self.on_change()

    # --- which tray for which fighter ----------------------------------------------------------

    @staticmethod
    def _free_for(task: TrayTask, want: Want) -> bool:
        if task.want is None:
            return True
        # A read tray is kept green a moment, unless the same battle asks again (a tie).
        return task.phase == READ and want.later_round_of(task.want)

    def _choose_tray(self, want: Want, colours: dict[str, str | None], fighting: set[str]) -> int | None:
        """The tray whose seat is one of the fighter's players; else the one that read for this
        fighter before; else one that is no player's seat in this game; else the seat of a player
        who is not fighting. Never the seat of another fighter's player."""
        free = [i for i, task in enumerate(self.tasks) if self._free_for(task, want)]
        seat_of = {i: self._seat(i, colours) for i in free}
        own = [i for i in free if seat_of[i] in want.players]
        before = [i for i in free if want.fighter in self.tasks[i].served and seat_of[i] is None]
        nobody = [i for i in free if seat_of[i] is None]
        bystander = [i for i in free if seat_of[i] is not None and seat_of[i] not in fighting]
        for choice in (own, before, nobody, bystander):
            if choice:
                return choice[0]
        return None

    def _seat(self, index: int, colours: dict[str, str | None]) -> str | None:
        """The player this tray is the seat of in this game, if any."""
        colour = self.trays[index].pins.colour
        return next((name for name, c in colours.items() if c == colour), None)

    def _assign(self, index: int, want: Want, colours: dict[str, str | None], now: float) -> None:
        tray, task = self.trays[index], self.tasks[index]
        seat = self._seat(index, colours)
        roller = seat if seat in want.players else want.players[0]
        assert roller is not None
        task.want, task.roller, task.colour = want, roller, colours.get(roller) or ""
        task.phase, task.message, task.dice = WAITING, "", ()
        task.served.add(want.fighter)
        tray.rearm(now)
        tray.show(Light(WAITING, led_colour(task.colour), want.dice, now), Beeps(want.dice, BEEP, now))

    def _free(self, tray: DiceTray, task: TrayTask) -> None:
        task.want, task.phase, task.message, task.dice = None, IDLE, "", ()
        tray.show(Light(OFF_LIGHT), SILENT)

    # --- watching a tray -----------------------------------------------------------------------

    def _watch(self, tray: DiceTray, task: TrayTask, now: float) -> TrayRoll | None:
        presses = tray.take_presses(now)
        motion = tray.motion(now)
        if motion == SHAKING:  # the dice are moving: a press now means nothing yet
            if task.phase != ROLLING:
                task.phase, task.message = ROLLING, ""
                tray.show(Light(ROLLING, led_colour(task.colour), since=now), SILENT)
            return None
        if motion != SETTLED and presses == 0:
            return None
        tray.rearm(now)
        return self._read(tray, task, now)

    def _read(self, tray: DiceTray, task: TrayTask, now: float) -> TrayRoll | None:
        want = task.want
        assert want is not None
        try:
            picture = self.camera(tray.index)
            reading = self._reader.read(picture, expected=want.dice if want.exact else None)
        except Exception as error:  # a camera or model failure must not stop the camera loop
            failed = f"tray {tray.number} could not be read ({error})"
            self._problem(tray, task, now, f"{failed}: press its button to try again")
            return None
        # a want of any count: as many dice as were found, and an empty tray is a sight too
        wanted = want.dice if want.exact else len(reading.dice)
        empty = not want.exact and reading.status == "no-dice"
        face_set = self._reader.faces
        problem = (
            None
            if empty
            else reading_problem(reading, wanted, task.roller, tray.number, self.min_confidence, face_set)
        )
        if problem is not None:
            self._problem(tray, task, now, problem)
            return None
        dice = sorted(reading.dice, key=lambda d: (d.box[0], d.box[1]))
        faces = tuple(die.face for die in dice if die.face is not None)
        task.phase, task.message, task.dice = READ, "", faces
        task.green_until = now + self.green_hold
        tray.show(Light(READ, since=now), Beeps(1, BEEP, now))
        confidence = round(min((die.confidence for die in dice), default=1.0), 4)
        return TrayRoll(want, task.roller, faces, tray.number, confidence, picture, reading)

    def refuse(self, number: int, message: str) -> None:
        """The game cannot take what tray ``number`` was read as (a roll of the wrong count, a die
        the rules refuse): the tray flashes a problem with ``message`` and reads again when its
        dice settle or its button is pressed."""
        for tray, task in zip(self.trays, self.tasks, strict=True):
            if tray.number == number and task.want is not None:
                self._problem(tray, task, self.clock(), message)
                self._publish()

    def _problem(self, tray: DiceTray, task: TrayTask, now: float, message: str) -> None:
        task.phase, task.message = PROBLEM, message
        tray.show(Light(PROBLEM, since=now), Beeps(1, LONG_BEEP, now))

    # --- what the scoreboard shows -------------------------------------------------------------

    @property
    def status(self) -> str | None:
        """One line for the scoreboard: who rolls how many dice where, and what to do about a
        problem; None when no battle waits and no tray is lit. As of the last poll."""
        return self._status

    def to_json(self) -> list[dict[str, Any]]:
        """Each tray as the scoreboard may draw it, as of the last poll."""
        return self._json

    def _describe(self) -> str | None:
        parts: list[str] = []
        for tray, task in zip(self.trays, self.tasks, strict=True):
            if task.want is None:
                continue
            here = f"tray {tray.number}"
            if task.phase == WAITING:
                light = COLOUR_WORDS.get(task.colour, task.colour) or "blue"  # colourless: SEATLESS
                team = "" if task.want.label == task.roller else f" for the {task.want.label}"
                parts.append(
                    f"{task.roller} rolls {dice_word(task.want.dice)}{team} in {here} "
                    f"(blinking {light} {task.want.dice} time{'s' if task.want.dice > 1 else ''})"
                )
            elif task.phase == ROLLING:
                parts.append(f"{task.roller}'s dice are rolling in {here}")
            elif task.phase == PROBLEM:
                parts.append(task.message)
            elif task.phase == READ:
                parts.append(f"{here} read {task.roller}'s dice: {', '.join(task.dice)}")
        for want in self._unserved:
            parts.append(f"{want.label} rolls {dice_word(want.dice)} once a tray is free")
        if not parts:
            return None
        lead = f"{self._title}: " if self._title else ""
        tail = "" if self._title is None else " (or enter the rolls on the phone)"
        return lead + "; ".join(parts) + tail

    def _trays_json(self) -> list[dict[str, Any]]:
        return [
            {
                "tray": tray.number,
                "phase": task.phase,
                "fighter": task.want.label if task.want else None,
                "player": task.roller if task.want else None,
                "colour": task.colour if task.want else None,
                "dice": task.want.dice if task.want else None,
                "read": list(task.dice) if task.phase == READ else None,
                "message": task.message or None,
            }
            for tray, task in zip(self.trays, self.tasks, strict=True)
        ]

    def close(self) -> None:
        for tray in self.trays:
            tray.close()
