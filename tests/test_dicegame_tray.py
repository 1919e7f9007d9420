"""The Dice Game in the tray: dice enrolled from one photograph per face, rolls and a laid city
read from rendered trays as record events, and every bad picture a prompt, never a guess."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from companion.games.base import Player, Setup
from companion.games.dicegame import events as ev
from companion.games.dicegame.engine import DiceGame
from companion.games.dicegame.faces import CATAPULT, KNIGHT, named_tables, parse_table
from companion.games.dicegame.reader.enrolment import EnrolmentError, enrol
from companion.games.dicegame.reader.events import (
    CITY_MOVED,
    REFUSED,
    WRONG_COUNT,
    aside_events,
    roll_events,
)
from companion.games.dicegame.reader.tray_read import Areas, ThrowReader, read_city, read_throw
from companion.sim.dicegame_tray import Scene, render
from companion.table.dice_checks import MIN_CONFIDENCE, reading_problem
from companion.vision.dice_faces import ink_segments
from companion.vision.dice_reading import ReadsDice

TABLE = named_tables()["reading1"]
SCENE = Scene(TABLE.segments, dice_set="ivory-brown", floor=7)


@pytest.fixture(scope="module")
def enrolled():  # type: ignore[no-untyped-def]
    empty = render(SCENE, 700).image
    photos = {
        face: render(SCENE, 701 + i, [face], whole=True).image for i, face in enumerate(TABLE.all_faces)
    }
    return enrol(empty, photos, TABLE)


def game() -> DiceGame:
    header = {
        "record": 1,
        "game": "dicegame",
        "variant": "standard",
        "players": [{"name": "Ana"}, {"name": "Ben"}],
    }
    setup: Setup = DiceGame.parse_setup(header)
    assert [p.name for p in setup.players] == ["Ana", "Ben"] and all(
        isinstance(p, Player) for p in setup.players
    )
    return DiceGame(setup)


def test_enrolment_confirms_the_table_the_dice_show(enrolled) -> None:  # type: ignore[no-untyped-def]
    assert enrolled.confirmed
    assert [c.matches for c in enrolled.checks] == list(TABLE.city_faces)
    assert "confirmed" in enrolled.report()
    assert 0.8 * SCENE.side < enrolled.side < 1.2 * SCENE.side


def test_enrolment_gives_the_table_other_dice_show() -> None:
    # dice whose "corner" is really a band, and whose "cap" has two separate caps
    other = parse_table({"cap": ["N", "S"], "corner": ["NS"], "straight": ["NE"], "three": ["NEW"]}, None)
    scene = Scene(other.segments, dice_set="white-black", floor=11)
    empty = render(scene, 1100).image
    photos = {f: render(scene, 1101 + i, [f], whole=True).image for i, f in enumerate(other.all_faces)}
    dice = enrol(empty, photos, TABLE)
    assert not dice.confirmed
    shown = dice.table.to_json()
    # the photographs' table, each face as it was photographed: the same shapes up to a turn
    for face in TABLE.city_faces:
        wanted = other.segments[face]
        got = dice.table.segments[face]
        assert any(sorted(dice.table.turned_segments(face, k)) == sorted(wanted) for k in range(4)), (
            face,
            got,
        )
    assert "instead" in dice.report() and str(shown["cap"]) in dice.report()


def test_ink_segments_of_a_drawn_face_name_its_sides() -> None:
    from companion.sim.dicegame_tray import face_ink

    for face, expected in (("cap", ["N"]), ("corner", ["NE"]), ("straight", ["NS"]), ("three", ["NEW"])):
        ink = face_ink(face, TABLE.segments, 40)
        square = np.where(ink > 127, 30.0, 230.0).astype(np.float32)
        assert ink_segments(square) == expected


def test_an_enrolment_photograph_with_two_dice_is_refused(enrolled) -> None:  # type: ignore[no-untyped-def]
    photos = {f: render(SCENE, 801 + i, [f], whole=True).image for i, f in enumerate(TABLE.all_faces)}
    photos["cap"] = render(SCENE, 820, ["cap", "knight"], whole=True).image
    with pytest.raises(EnrolmentError, match="cap: 2 dice seen"):
        enrol(enrolled.empty, photos, TABLE)
    del photos["three"]
    with pytest.raises(EnrolmentError, match="missing three"):
        enrol(enrolled.empty, photos, TABLE)


def test_a_roll_of_nine_is_the_roll_event(enrolled) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(5)
    for seed in range(3):
        faces = [str(f) for f in rng.choice(TABLE.all_faces, 9)]
        tray = render(SCENE, 900 + seed, faces)
        outcome = roll_events(game(), read_throw(enrolled, tray.image, 9))
        assert outcome.status == "ok", outcome.message
        (event,) = outcome.events
        assert isinstance(event, ev.Rolled) and event.player == "Ana"
        assert Counter(event.dice) == Counter(faces)


def test_the_trays_flow_takes_a_roll_read_by_the_throw_reader(enrolled) -> None:  # type: ignore[no-untyped-def]
    reader: ReadsDice = ThrowReader(enrolled)
    faces = ["knight", "catapult", "cap", "corner", "straight", "three", "cap", "cap", "three"]
    reading = reader.read(render(SCENE, 940, faces).image, 9)
    assert reading_problem(reading, 9, "Ana", 1, MIN_CONFIDENCE, reader.faces) is None
    assert Counter(reading.faces or ()) == Counter(faces)
    assert reading_problem(reading, 8, "Ana", 1, MIN_CONFIDENCE, reader.faces) is not None


def test_a_roll_of_eight_when_nine_are_due_is_the_engines_prompt(enrolled) -> None:  # type: ignore[no-untyped-def]
    tray = render(SCENE, 950, ["cap", "corner", "knight", "three", "straight", "cap", "cap", "catapult"])
    reading = read_throw(enrolled, tray.image, 9)
    assert reading.status == "ok" and len(reading.dice) == 8
    outcome = roll_events(game(), reading)
    assert outcome.events == () and outcome.status == WRONG_COUNT
    assert outcome.message.startswith("Ana has 9 dice to roll, not 8")


def test_ten_dice_when_nine_are_due_are_too_many(enrolled) -> None:  # type: ignore[no-untyped-def]
    tray = render(SCENE, 960, ["cap"] * 5 + ["knight"] * 5, whole=True)
    assert len(tray.dice) == 10
    reading = read_throw(enrolled, tray.image, 9, Areas.of(tray.image, None))
    assert reading.status == "too-many-dice" and reading.faces is None
    assert roll_events(game(), reading).events == ()


@pytest.mark.parametrize(
    ("kind", "status"),
    [("empty", "no-dice"), ("hand", "hand"), ("blurred", "blurred"), ("dark", "dark")],
)
def test_bad_pictures_give_a_status_and_no_faces(enrolled, kind: str, status: str) -> None:  # type: ignore[no-untyped-def]
    faces = (
        []
        if kind == "empty"
        else ["cap", "knight", "three", "corner", "straight", "cap", "cap", "knight", "cap"]
    )
    tray = render(SCENE, 970, faces, hand=kind == "hand", blur=3.0 if kind == "blurred" else None)
    picture = tray.image if kind != "dark" else (tray.image // 40)
    reading = read_throw(enrolled, picture, 9)
    assert reading.status == status and reading.message
    assert reading.faces is None or status == "no-dice"
    outcome = roll_events(game(), reading)
    assert outcome.events == () and outcome.status == status


def test_a_laid_city_is_read_as_aside_events(enrolled) -> None:  # type: ignore[no-untyped-def]
    g = game()
    thrown = ("cap", "corner", "straight", "three", "knight", "knight", "cap", "catapult", "corner")
    g.apply(ev.Rolled("Ana", thrown))
    # the player lays cap, corner and three, and puts a knight aside: the tray keeps the rest
    city = [("cap", (0, 0), 2), ("corner", (0, 1), 0), ("three", (1, 1), 3)]
    left = ["straight", "knight", "cap", "corner", CATAPULT]
    tray = render(SCENE, 990, left, city=city)
    outcome = aside_events(g, read_throw(enrolled, tray.image), read_city(enrolled, tray.image))
    assert outcome.status == "ok", outcome.message
    knights = [e for e in outcome.events if isinstance(e, ev.SetAside) and e.face == KNIGHT]
    laid = {
        (e.face, e.at, e.rotation) for e in outcome.events if isinstance(e, ev.SetAside) and e.face != KNIGHT
    }
    assert len(knights) == 1
    assert laid == {("cap", (0, 0), 2), ("corner", (0, 1), 0), ("three", (1, 1), 3)}
    for event in outcome.events:
        g.apply(event)
    # then the straight joins the city above the three, turned half-way (which draws the same band
    # as unturned, so it is read as rotation 0): one more aside, in the same frame
    city2 = [*city, ("straight", (1, 0), 2)]
    tray2 = render(SCENE, 991, ["knight", "cap", "corner"], city=city2)
    outcome2 = aside_events(g, read_throw(enrolled, tray2.image), read_city(enrolled, tray2.image))
    assert outcome2.status == "ok", outcome2.message
    assert outcome2.events == (ev.SetAside("Ana", "straight", (1, 0), 0),)
    g.apply(outcome2.events[0])
    assert g.check(ev.TurnScored("Ana")) is None


def test_a_city_die_that_breaks_a_rule_is_the_engines_prompt(enrolled) -> None:  # type: ignore[no-untyped-def]
    g = game()
    g.apply(ev.Rolled("Ana", ("cap", "corner", "straight", "three", "knight", "knight", "cap", "cap", "cap")))
    # a cap whose city faces the corner's white side: the rules refuse it, in their words
    city = [("corner", (0, 0), 0), ("cap", (0, 1), 0)]
    left = ["straight", "three", "knight", "knight", "cap", "cap", "cap"]
    tray = render(SCENE, 995, left, city=city)
    outcome = aside_events(g, read_throw(enrolled, tray.image), read_city(enrolled, tray.image))
    assert outcome.events == () and outcome.status == REFUSED
    assert "has no city on its" in outcome.message or "has city on its" in outcome.message


def test_a_city_moved_since_it_was_laid_is_a_prompt(enrolled) -> None:  # type: ignore[no-untyped-def]
    g = game()
    g.apply(ev.Rolled("Ana", ("cap", "corner", "straight", "three", "knight", "knight", "cap", "cap", "cap")))
    g.apply(ev.SetAside("Ana", "corner", (0, 0), 0))
    # the corner now shows another way up: not as it was laid
    tray = render(
        SCENE,
        996,
        ["cap", "straight", "three", "knight", "knight", "cap", "cap", "cap"],
        city=[("corner", (0, 0), 2)],
    )
    outcome = aside_events(g, read_throw(enrolled, tray.image), read_city(enrolled, tray.image))
    assert outcome.events == () and outcome.status == CITY_MOVED
