"""The Dice Game played through a tray on gpiozero's mock pins: the user's dice enrolled from a
folder of photographs, each settled picture of the tray (rendered) read as the record's ``roll``
and ``aside`` events, and what cannot be an event a problem on the tray, never a guess."""

from __future__ import annotations

import html
import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from tray_kit import FakeClock, Hands

from companion.cli import main
from companion.devices.config import trays_config
from companion.devices.signals import PROBLEM, WAITING
from companion.devices.tray import build_trays
from companion.games.dicegame.engine import DiceGame
from companion.games.dicegame.faces import KNIGHT, named_tables
from companion.games.dicegame.reader.table import DiceGameReaderMaker, DiceGameTrays, dice_folder, moved
from companion.sim.dicegame_tray import RenderedDiceGameTray, RenderedFace, Scene, render
from companion.table.links import EngineLink
from companion.table.reader import ReaderKit
from companion.table.trays import DiceTrays

TABLE = named_tables()["reading1"]
SCENE = Scene(TABLE.segments, dice_set="ivory-brown", floor=7)
HEADER = {"game": "dicegame", "variant": "standard", "players": [{"name": "Ana"}, {"name": "Ben"}]}
ONE_TRAY = [{"button": 17, "vibration": 27, "led": [5, 6, 13], "buzzer": 19}]


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The enrolment photographs, as a user puts them in a folder."""
    folder = tmp_path_factory.mktemp("my-dice")
    cv2.imwrite(str(folder / "empty.png"), render(SCENE, 700).image)
    for i, face in enumerate(TABLE.all_faces):
        cv2.imwrite(str(folder / f"{face}.png"), render(SCENE, 701 + i, [face], whole=True).image)
    return folder


@pytest.fixture(scope="module")
def state(photos: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("state")
    assert main(["enrol-dice", str(photos), "--state-dir", str(folder)]) == 0
    return folder


class Table:
    """A Dice Game of Ana and Ben, one tray on mock pins, its camera showing ``self.picture``."""

    def __init__(self, factory: Any, state: Path | None) -> None:
        header = {
            "record": 1,
            "game": "dicegame",
            "variant": "standard",
            "players": [{"name": "Ana"}, {"name": "Ben"}],
        }
        self.link = EngineLink(DiceGame.parse_setup(header))
        self.clock = FakeClock()
        self.hands = Hands(factory, self.clock)
        config = trays_config({"pin_factory": "mock", "settle_ms": 700, "tray": ONE_TRAY})
        self.tray = build_trays(config, factory, self.clock, animate=False)[0]
        self.picture = render(SCENE, 699).image
        self.flow = DiceTrays([self.tray], lambda index: self.picture, _NoPips(), self.clock)
        maker = DiceGameReaderMaker()
        maker.start(ReaderKit(state_dir=state, trays=self.flow))
        self.reader: DiceGameTrays = maker.reader(self.link)

    @property
    def game(self) -> DiceGame:
        game = self.link.game
        assert isinstance(game, DiceGame)
        return game

    def throw(self, shown: RenderedDiceGameTray) -> list[dict[str, Any]]:
        """Dice thrown: the tray shakes, then the dice settle and the tray shows ``shown``."""
        self.reader.step(None)
        self.picture = shown.image
        self.hands.shake(self.tray)
        assert self.reader.step(None) == []
        self.clock.advance(0.8)
        return self.reader.step(None)

    def press(self, shown: RenderedDiceGameTray) -> list[dict[str, Any]]:
        """Dice handled without shaking the tray, then its button pressed (a moment later: a
        tray just read stays green a while)."""
        self.clock.advance(3.0)
        self.reader.step(None)
        self.picture = shown.image
        self.hands.press(self.tray)
        return self.reader.step(None)

    def waiting_dice(self) -> int | None:
        self.clock.advance(3.0)  # past the green a read tray holds
        self.reader.step(None)
        task = self.flow.tasks[0]
        return task.want.dice if task.want is not None and task.phase == WAITING else None


class _NoPips:
    """The trays' own reader, which a Dice Game must never use (its dice are not pips)."""

    from companion.vision.dice_reading import PIPS as faces

    def read(self, picture: np.ndarray, expected: int | None = None) -> Any:
        raise AssertionError("the Dice Game read its tray with the trays' pip reader")


def lying(shown: RenderedDiceGameTray, faces: list[str]) -> list[RenderedFace]:
    """The dice of ``shown`` with these faces (one each), left where they lay."""
    left = list(shown.dice)
    kept = []
    for face in faces:
        die = next(d for d in left if d.face == face)
        left.remove(die)
        kept.append(die)
    return kept


def test_a_turn_of_rolls_and_dice_set_aside_is_read_as_the_records_events(factory: Any, state: Path) -> None:
    table = Table(factory, state)
    assert table.reader.status is None
    assert table.waiting_dice() == 9
    assert "Ana's turn" in (table.flow.status or "") and "blinking blue 9 times" in (table.flow.status or "")

    thrown = ["cap", "corner", "straight", "three", "knight", "knight", "cap", "catapult", "corner"]
    first = render(SCENE, 1200, thrown)
    (roll,) = table.throw(first)
    assert roll["event"] == "roll" and roll["player"] == "Ana"
    assert Counter(roll["dice"]) == Counter(thrown)
    assert roll["meta"]["source"] == "tray" and roll["meta"]["tray"] == 1

    # Ana lays a cap, a corner and the three in the city area, puts a knight out of view and
    # passes the catapult on; the other dice are not touched
    city = [("cap", (0, 0), 2), ("corner", (0, 1), 0), ("three", (1, 1), 3)]
    kept = ["straight", "knight", "cap", "corner"]
    aside = render(SCENE, 1201, city=city, lying=lying(first, kept))
    events = table.press(aside)
    assert [e["event"] for e in events] == ["aside"] * 4
    assert [e["face"] for e in events if e["face"] == KNIGHT] == [KNIGHT]
    laid = {(e["face"], tuple(e["at"]), e["rotation"]) for e in events if e["face"] != KNIGHT}
    assert laid == {("cap", (0, 0), 2), ("corner", (0, 1), 0), ("three", (1, 1), 3)}
    assert table.game.turn is not None and Counter(table.game.turn.tray) == Counter(kept)

    # the tray now waits for the four dice left; touching it changes nothing
    assert table.waiting_dice() == 4
    assert table.press(aside) == []
    assert table.flow.tasks[0].phase != PROBLEM

    # the second roll: four dice thrown, the city where it was
    again = ["knight", "cap", "straight", "three"]
    (roll2,) = table.throw(render(SCENE, 1202, again, city=city))
    assert roll2["event"] == "roll" and Counter(roll2["dice"]) == Counter(again)
    assert table.game.turn is not None and table.game.turn.rolls == 2


def test_a_roll_of_the_wrong_count_is_a_problem_on_the_tray_never_an_event(factory: Any, state: Path) -> None:
    table = Table(factory, state)
    assert table.waiting_dice() == 9
    events = table.throw(
        render(SCENE, 1210, ["cap", "corner", "knight", "three", "straight", "cap", "cap", "catapult"])
    )
    assert events == [] and table.link.events == []
    assert table.flow.tasks[0].phase == PROBLEM
    assert "Ana has 9 dice to roll, not 8" in (table.flow.status or "")
    # all nine thrown again: the roll is taken
    nine = ["cap", "corner", "knight", "three", "straight", "cap", "cap", "catapult", "knight"]
    (roll,) = table.throw(render(SCENE, 1211, nine))
    assert Counter(roll["dice"]) == Counter(nine)


def test_a_hand_over_the_tray_is_a_problem_and_nothing_is_recorded(factory: Any, state: Path) -> None:
    table = Table(factory, state)
    table.waiting_dice()
    nine = ["cap", "corner", "knight", "three", "straight", "cap", "cap", "catapult", "knight"]
    assert table.throw(render(SCENE, 1220, nine, hand=True)) == []
    assert table.flow.tasks[0].phase == PROBLEM and "hand" in (table.flow.status or "")
    assert table.link.events == []


def test_without_enrolled_dice_the_status_says_how_to_enrol_them(factory: Any, tmp_path: Path) -> None:
    table = Table(factory, tmp_path)
    assert "companion enrol-dice" in (table.reader.status or "")
    assert table.reader.step(None) == [] and table.flow.tasks[0].want is None


def test_enrol_dice_keeps_the_photographs_and_refuses_a_folder_without_a_face(
    photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["enrol-dice", str(photos), "--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "confirmed" in out.out
    assert sorted(p.stem for p in dice_folder(tmp_path).iterdir()) == sorted(["empty", *TABLE.all_faces])

    partial = tmp_path / "partial"
    partial.mkdir()
    for path in photos.iterdir():
        if path.stem != "knight":
            (partial / path.name).write_bytes(path.read_bytes())
    assert main(["enrol-dice", str(partial), "--state-dir", str(tmp_path / "other")]) == 1
    assert "missing knight" in capsys.readouterr().err
    assert not dice_folder(tmp_path / "other").exists()

    # enrolled again from the folder where they are kept: nothing lost
    kept = dice_folder(tmp_path)
    assert main(["enrol-dice", str(kept), "--state-dir", str(tmp_path)]) == 0
    assert "nothing to copy" in capsys.readouterr().err
    assert sorted(p.stem for p in kept.iterdir()) == sorted(["empty", *TABLE.all_faces])
    # a copy that fails half way (here the disk fills up) leaves the old enrolment whole
    copied: list[str] = []

    def copy_until_full(source: Any, target: Any) -> None:
        if copied:
            raise OSError(28, "No space left on device")
        copied.append(str(source))

    monkeypatch.setattr(shutil, "copy2", copy_until_full)
    assert main(["enrol-dice", str(photos), "--state-dir", str(tmp_path)]) == 1
    assert "cannot keep the photographs" in capsys.readouterr().err and copied
    assert sorted(path.name for path in kept.parent.iterdir() if path.name.startswith(".")) == []
    assert sorted(p.stem for p in kept.iterdir()) == sorted(["empty", *TABLE.all_faces])


def test_dice_thrown_are_told_from_dice_left_where_they_lay() -> None:
    before = [(100.0, 100.0), (200.0, 100.0), (300.0, 200.0)]
    assert not moved(before, [(101.0, 99.0), (299.0, 203.0)], 48)  # one die taken out
    assert moved(before, [(150.0, 300.0), (400.0, 120.0), (60.0, 60.0)], 48)
    assert moved(None, [(1.0, 1.0)], 48)
    assert not moved(before, [], 48)  # every die set aside


def test_dice_of_another_table_are_offered_on_the_setup_page_and_then_read(
    factory: Any, tmp_path: Path
) -> None:
    from conftest import PIN

    from companion.games.dicegame.faces import parse_table
    from companion.live.table import Table as LiveTable
    from companion.store import GameStore
    from companion.table.links import TableLink
    from companion.web.context import WebContext
    from companion.web.security import PinGuard
    from companion.web.server import create_app, secret_key

    # dice whose "corner" is really a band and whose "cap" has two caps: not reading1
    other = parse_table({"cap": ["N", "S"], "corner": ["NS"], "straight": ["NE"], "three": ["NEW"]}, None)
    scene = Scene(other.segments, dice_set="white-black", floor=11)
    folder = tmp_path / "photos"
    folder.mkdir()
    cv2.imwrite(str(folder / "empty.png"), render(scene, 1100).image)
    for i, face in enumerate(other.all_faces):
        cv2.imwrite(str(folder / f"{face}.png"), render(scene, 1101 + i, [face], whole=True).image)
    state = tmp_path / "state"
    assert main(["enrol-dice", str(folder), "--state-dir", str(state)]) == 0

    maker = DiceGameReaderMaker()
    config = trays_config({"pin_factory": "mock", "settle_ms": 700, "tray": ONE_TRAY})
    flow = DiceTrays(
        build_trays(config, factory, FakeClock(), animate=False), lambda i: render(scene, 1).image, _NoPips()
    )
    maker.start(ReaderKit(state_dir=state, trays=flow))
    table = LiveTable(GameStore(state))
    context = WebContext(table, PinGuard(PIN), attachments=maker.attachments())
    client = create_app(context, secret_key(state)).test_client()
    page = client.get("/setup?game=dicegame").get_data(as_text=True)
    assert "your dice, as photographed" in page
    offered = re.search(r'name="option:faces" data-json value="([^"]*)" checked', page)
    assert offered is not None
    faces = json.loads(html.unescape(offered.group(1)))
    assert parse_table(faces, None).segments != TABLE.segments

    table.start({"record": 1, **HEADER, "faces": faces})
    assert maker.reader(TableLink(table)).status is None  # read with the table the dice show
    table.start({"record": 1, **HEADER, "faces": "reading1"})
    assert "as photographed" in (maker.reader(TableLink(table)).status or "")
    table.store.close()
