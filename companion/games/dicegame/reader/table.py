"""The Dice Game read from the trays during play: each roll a ``roll`` event, each die set aside
an ``aside`` event, anything else a prompt on the tray and the phone.

The dice are the user's own, taught from photographs kept in the state folder (``companion
enrol-dice``, ``dice_folder``), and read with the game's faces table: dice whose photographs show
another table are not read (the status says so), since every event names faces of the record's
table.

The trays (``companion.table.trays``) light for the player whose turn it is and hand back every
settled picture of the tray, whatever its number of dice. What a picture means is decided here:

- the dice lie elsewhere than at the last reading (they were thrown): a roll, checked by the
  engine (a roll of another count is a prompt in its words);
- they lie where they were, during a turn: dice were set aside (knights taken out of view, city
  dice laid in the tray's city area), read by ``events.aside_events``;
- they lie where they were between turns: nothing happened.

An empty tray is a sight too: every die of the turn may have been set aside.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from companion.games.base import ScoreChange
from companion.games.dicegame.engine import DiceGame
from companion.games.dicegame.faces import FaceTable, named_tables
from companion.games.dicegame.reader.enrolment import EnrolledDice, EnrolmentError, enrol
from companion.games.dicegame.reader.events import Outcome, aside_events, roll_events
from companion.games.dicegame.reader.tray_read import CITY_AREA, Areas, ThrowReader, draw, read_city
from companion.games.dicegame.scoring import ROLLS
from companion.live.evidence import Picture
from companion.table.links import GameLink
from companion.table.reader import IdleReader, ReaderKit, ReaderPrompt
from companion.table.trays import DiceRequest, DiceTrays, TrayRoll, Want
from companion.vision.overlay import jpeg
from companion.vision.picture_file import UnreadablePicture, read_picture_file

if TYPE_CHECKING:
    from companion.live.table import Table

DICE_FOLDER = "dicegame-dice"  # in the state folder: empty.jpg, knight.jpg, catapult.jpg, ...
SUFFIXES = (".jpg", ".jpeg", ".png")
EMPTY = "empty"  # the photograph of the empty tray
ATTACHMENT = "dicegame.dice"  # the maker's name among the web layer's attachments
DEFAULT_TABLE = "reading1"  # the faces table the phone's setup writes by default (manifest.py)
ENROL_HINT = "teach the companion your dice with `companion enrol-dice FOLDER`"


def dice_folder(state_dir: Path) -> Path:
    return state_dir / DICE_FOLDER


def photographs(folder: Path) -> dict[str, Path]:
    """The photographs in ``folder`` by name (``empty``, ``knight``, ...): one file a name."""
    found: dict[str, Path] = {}
    if not folder.is_dir():
        return found
    try:
        paths = sorted(folder.iterdir())
    except OSError as error:
        raise EnrolmentError(f"{folder}: cannot be read ({error.strerror or error})") from None
    for path in paths:
        if path.suffix.lower() not in SUFFIXES:
            continue
        if path.stem in found:
            raise EnrolmentError(
                f"{path.stem}: two photographs ({found[path.stem].name}, {path.name}); keep one"
            )
        found[path.stem] = path
    return found


def enrol_folder(folder: Path, table: FaceTable) -> EnrolledDice:
    """The dice of the photographs in ``folder`` (the empty tray, then one a face), checked
    against ``table``; ``EnrolmentError`` says what is missing or wrong."""
    paths = photographs(folder)
    if EMPTY not in paths:
        raise EnrolmentError(f"no photograph of the empty tray in {folder} (empty.jpg)")
    try:
        pictures = {name: read_picture_file(path) for name, path in paths.items()}
    except UnreadablePicture as error:
        raise EnrolmentError(str(error)) from None
    empty = pictures.pop(EMPTY)
    return enrol(empty, pictures, table)


def centre(box: tuple[int, int, int, int]) -> tuple[float, float]:
    x, y, w, h = box
    return (x + w / 2, y + h / 2)


def moved(
    before: Sequence[tuple[float, float]] | None, now: Sequence[tuple[float, float]], side: float
) -> bool:
    """Whether the dice were thrown since ``before``: fewer than half of them lie within half a
    die of where a die lay (dice set aside leave the others where they were)."""
    if not now:
        return False
    if before is None:
        return True
    stayed = sum(1 for c in now if any(math.dist(c, b) < side / 2 for b in before))
    return 2 * stayed < len(now)


class DiceGameTrays:
    """One Dice Game read from the trays (a ``TableReader``: camera frames are not used)."""

    def __init__(
        self,
        link: GameLink,
        trays: DiceTrays | None,
        enrolled: EnrolledDice | None,
        problem: str | None = None,
        city: tuple[float, float, float, float] | None = CITY_AREA,
    ) -> None:
        self.link = link
        self.trays = trays
        self.enrolled = enrolled
        self.city = city
        self.reader = ThrowReader(enrolled, city) if enrolled is not None else None
        self._status = problem
        self._last: list[tuple[float, float]] | None = None  # the dice's centres at the last sight
        self._picture: np.ndarray | None = None  # the tray as the last event was read, drawn on

    @property
    def status(self) -> str | None:
        return self._status

    def _engine(self) -> DiceGame | None:
        engine = self.link.engine()
        return engine if isinstance(engine, DiceGame) else None

    def request(self, engine: DiceGame) -> DiceRequest:
        """What the trays wait for: the player whose turn it is, with as many dice as they roll
        next (or hold, once no roll may come), until their tray is empty."""
        turn = engine.turn
        due = engine.dice_to_roll()
        dice = due if due is not None else (len(turn.tray) if turn is not None else 0)
        if engine.finished or dice == 0:
            return DiceRequest(reader=self.reader)
        player = engine.next_player()
        number = turn.number if turn is not None else engine.turns_begun + 1
        rolls = turn.rolls if turn is not None else 0
        if turn is None:
            title = f"{player}'s turn"
        elif due is None:
            title = f"{player}'s turn: set dice aside, then score or keep a knight on the phone"
        else:
            title = (
                f"{player}'s turn, roll {rolls + 1} of {ROLLS} (set dice aside first: knights out of view)"
            )
        want = Want((number, dice), rolls, player, player, dice, (player,), exact=False)
        return DiceRequest((want,), title, reader=self.reader)

    def step(self, frame: np.ndarray | None) -> list[dict[str, Any]]:
        engine = self._engine()
        if engine is None or self.trays is None or self.reader is None:
            return []
        added: list[dict[str, Any]] = []
        for sight in self.trays.poll(self.request(engine)):
            outcome = self.judge(engine, sight)
            if outcome.status != "ok":
                self.trays.refuse(sight.tray, outcome.message)
                continue
            for event in outcome.events:
                record = DiceGame.event_to_json(event)
                record["meta"] = {"source": "tray", "tray": sight.tray, "confidence": sight.confidence}
                self.link.add(record)
                added.append(record)
        return added

    def judge(self, engine: DiceGame, sight: TrayRoll) -> Outcome:
        """What a settled tray shows: a roll, dice set aside, nothing, or a prompt."""
        assert self.enrolled is not None and sight.reading is not None and sight.picture is not None
        reading, picture = sight.reading, sight.picture
        centres = [centre(die.box) for die in reading.dice]
        thrown = moved(self._last, centres, self.enrolled.side)
        turn = engine.turn
        if thrown:
            outcome = roll_events(engine, reading)
        elif turn is None or turn.rolls == 0:
            outcome = Outcome()  # the tray as it was left: nothing happened
        else:
            city = read_city(self.enrolled, picture, Areas.of(picture, self.city))
            outcome = aside_events(engine, reading, city)
        if outcome.status == "ok":
            self._last = centres
            if outcome.events:
                self._picture = draw(picture, reading)
        return outcome

    def prompts(self) -> list[ReaderPrompt]:
        return []  # a tray's problem is the trays' status, which the scoreboard shows

    def asks(self) -> list[dict[str, Any]]:
        return []

    def view(self, fresh: bool) -> bytes | None:
        return None  # the tray's pictures are not the camera's view of the table

    def pictures(self, changes: Sequence[ScoreChange]) -> list[Picture]:
        """The tray as the turn's last die was read: the city a score counts is in it."""
        if self._picture is None:
            return []
        shot = jpeg(self._picture, 75)
        if not changes:
            return [Picture(shot)]
        return [Picture(shot, index) for index, change in enumerate(changes) if change.kind == "city"]


class DiceGameReaderMaker:
    """The Dice Game's readers: the trays and the user's enrolled dice, shared by every game."""

    def __init__(self) -> None:
        self.trays: DiceTrays | None = None
        self.state_dir: Path | None = None
        self._enrolled: dict[str, EnrolledDice] = {}  # by the faces table, as JSON

    def check(self) -> None:
        """Nothing to load: the dice are the user's, enrolled or not."""

    def start(self, kit: ReaderKit) -> None:
        self.trays, self.state_dir = kit.trays, kit.state_dir

    def reader(self, link: GameLink) -> DiceGameTrays:
        engine = link.engine()
        if self.trays is None:
            return DiceGameTrays(link, None, None, "no dice trays are set up: enter each roll on the phone")
        if not isinstance(engine, DiceGame) or self.state_dir is None:
            return DiceGameTrays(link, self.trays, None)
        try:
            enrolled = self._enrolled_for(engine.faces)
        except EnrolmentError as error:
            return DiceGameTrays(link, self.trays, None, f"the dice cannot be read: {error}; {ENROL_HINT}")
        if enrolled is None:
            return DiceGameTrays(
                link,
                self.trays,
                None,
                f"the dice are not enrolled: {ENROL_HINT}; until then enter each roll on the phone",
            )
        if not enrolled.confirmed:
            return DiceGameTrays(
                link,
                self.trays,
                None,
                "your dice's city faces are not this game's faces table: start a game with "
                '"your dice, as photographed" on the setup page, or enter each roll on the phone',
            )
        return DiceGameTrays(link, self.trays, enrolled)

    def _enrolled_for(self, table: FaceTable) -> EnrolledDice | None:
        assert self.state_dir is not None
        folder = dice_folder(self.state_dir)
        paths = photographs(folder)
        if not paths:
            return None
        # enrolled again when the table or a photograph changes
        key = str((sorted(table.to_json().items()), [(p.name, p.stat().st_mtime_ns) for p in paths.values()]))
        if key not in self._enrolled:
            self._enrolled[key] = enrol_folder(folder, table)
        return self._enrolled[key]

    def idle(self) -> IdleReader | None:
        return None

    def attachments(self) -> dict[str, Any]:
        return {ATTACHMENT: self}  # the setup page offers the enrolled dice's faces table

    def enrolled_table(self) -> dict[str, Any] | None:
        """The faces table the enrolled dice's photographs show, when it is not the default one
        (a game must be started with it for the trays to read them); None otherwise."""
        if self.state_dir is None:
            return None
        try:
            enrolled = self._enrolled_for(named_tables()[DEFAULT_TABLE])
        except EnrolmentError:
            return None
        if enrolled is None or enrolled.confirmed:
            return None
        table: dict[str, Any] = enrolled.table.to_json()
        return table

    def box_frames(self, style: int) -> Iterator[np.ndarray] | None:
        return None

    def simulated_frames(
        self, table: Table, fps: float, first_seed: int, games: int | None
    ) -> Iterator[np.ndarray] | None:
        return None  # the simulated table is Star Wars'
