"""The battle flow on gpiozero's MockFactory: whole battles driven by button presses and
vibration pulses on the mock pins, the LEDs read back from the pins at each step, the rolls
taken by the real tracker into a real StarWarsGame. The dice reader is a fake that returns the
readings each test chooses (the real one is built and tested on its own)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from conftest import RECORDS, record_lines
from tray_kit import FakeClock, Hands, blinks, led_colour

from companion.devices.config import trays_config
from companion.devices.signals import GREEN, OFF_LIGHT, PROBLEM, READ, RED, ROLLING, WAITING, WHITE
from companion.devices.tray import DiceTray, build_trays
from companion.games.starwars import models as starwars_models
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.reader.dice import BattleTrays
from companion.games.starwars.reader.tracker import Tracker
from companion.table.dice_checks import reading_problem
from companion.table.links import EngineLink
from companion.table.trays import GREEN_HOLD, LED_COLOURS, DiceTrays
from companion.vision.dice_reading import PIPS, Die, TrayReading
from companion.vision.labels import TileLabels

LABELS = TileLabels.load(starwars_models.cells_path().with_suffix(".labels.json"))
OFF = (0.0, 0.0, 0.0)
VIOLET = LED_COLOURS["black"]


def dice(*values: int | None, confidence: float = 0.97) -> TrayReading:
    """A good reading of these values, dice left to right (None: a die that cannot be read)."""
    return TrayReading(
        tuple(
            Die(None if v is None else str(v), (40 * i, 10, 30, 30), confidence) for i, v in enumerate(values)
        )
    )


class FakeReader:
    """Returns the readings queued for each tray; the tray is told by the picture's first pixel."""

    faces = PIPS

    def __init__(self) -> None:
        self.queued: dict[int, list[TrayReading]] = {}
        self.asked: list[tuple[int, int | None]] = []  # (tray index, expected dice)

    def read(self, picture: np.ndarray, expected: int | None = None) -> TrayReading:
        index = int(picture[0, 0, 0])
        self.asked.append((index, expected))
        return self.queued[index].pop(0)


def tray_picture(index: int) -> np.ndarray:
    return np.full((8, 8, 3), index, np.uint8)


class Table:
    """A real game at a battle, two trays on mock pins, the tracker polling them."""

    def __init__(self, factory: Any, record: str, trays: list[dict[str, Any]]) -> None:
        header, events = record_lines(record)
        # played up to the first roll (or the end, in a game without a battle)
        first_roll = next(i for i, e in enumerate(events) if e["event"] in ("roll", "end"))
        self.record_rolls = [e for e in events if e["event"] == "roll"]
        self.link = EngineLink(StarWarsGame.parse_setup(header))
        for event in events[:first_roll]:
            self.link.add(event)
        self.setup_events = first_roll
        self.factory = factory
        self.clock = FakeClock()
        self.hands = Hands(factory, self.clock)
        config = trays_config({"pin_factory": "mock", "settle_ms": 700, "tray": trays})
        self.trays = build_trays(config, factory, self.clock, animate=False)
        self.reader = FakeReader()
        self.flow = DiceTrays(self.trays, tray_picture, self.reader, self.clock)
        self.tracker = Tracker(self.link, LABELS, BattleTrays(self.flow))

    @property
    def rolls(self) -> list[tuple[str, list[int]]]:
        """Every roll the game took since the battle began, from the trays or the phone."""
        return [(e["player"], e["dice"]) for e in self.link.events[self.setup_events :]]

    @property
    def record_dice(self) -> list[tuple[str, list[int]]]:
        return [(e["player"], e["dice"]) for e in self.record_rolls]

    @property
    def game(self) -> StarWarsGame:
        return self.link.game

    def poll(self) -> list[dict[str, Any]]:
        return self.tracker.poll_dice()

    def roll(self, tray: DiceTray, reading: TrayReading) -> list[dict[str, Any]]:
        """Dice thrown in ``tray``: the sensor shakes, the tracker looks, the dice settle, the
        reader gives ``reading``; returns the roll events the tracker took."""
        self.reader.queued.setdefault(tray.index, []).append(reading)
        self.hands.shake(tray)
        assert self.poll() == []
        assert tray.light.kind == ROLLING
        self.clock.advance(0.8)
        return self.poll()

    def press(self, tray: DiceTray, reading: TrayReading) -> list[dict[str, Any]]:
        self.reader.queued.setdefault(tray.index, []).append(reading)
        self.hands.press(tray)
        return self.poll()

    def tray_for(self, player: str) -> DiceTray:
        """The tray lit for ``player``, polling as time goes by (a read tray stays green a while)."""
        for _ in range(4):
            self.poll()
            for tray, task in zip(self.trays, self.flow.tasks, strict=True):
                if task.roller == player and task.phase == WAITING:
                    return tray
            self.clock.advance(GREEN_HOLD / 2)
        raise AssertionError(f"no tray lights for {player}: {self.flow.status}")

    def led(self, tray: DiceTray) -> tuple[float, float, float]:
        return led_colour(self.factory, tray)

    def blinking(self, tray: DiceTray) -> list[tuple[float, float, float]]:
        """The colour of each blink in one cycle of the waiting light, read from the pins."""
        assert tray.light.kind == WAITING
        return blinks(self.factory, tray)

    def waiting_for(self) -> dict[str, int]:
        battle = self.game.pending_battle()
        return {} if battle is None else {f.key: battle.dice[f.key] for f in battle.waiting_for()}

    def close(self) -> None:
        self.flow.close()


TWO_TRAYS = [
    {"button": 17, "vibration": 27, "led": [5, 6, 13], "buzzer": 19, "colour": "red"},
    {"button": 22, "vibration": 23, "led": [24, 25, 12], "buzzer": 26},
]


def expected(record: str) -> dict[str, Any]:
    header = json.loads((RECORDS / record).read_text(encoding="utf-8").splitlines()[0])
    result: dict[str, Any] = header["meta"]["expect"]
    return result


def test_a_whole_battle_with_a_tie_an_unreadable_die_and_three_fighters(factory: Any) -> None:
    """The seed's asteroid battle: Ana (red, 2 dice), Ben (white, 1), Cid (black, 2); Ana and Cid
    tie at 4, Cid wins round 2. Tray 1 is Ana's seat; tray 2 serves the others in turn."""
    table = Table(factory, "asteroid-battle-tie.jsonl", TWO_TRAYS)
    one, two = table.trays
    assert table.waiting_for() == {"Ana": 2, "Ben": 1, "Cid": 2}
    # Nothing has been rolled: the trays light for Ana and Ben, Cid waits for a free tray.
    assert table.poll() == []
    assert table.blinking(one) == [RED, RED]  # Ana's red, two blinks: two dice
    assert table.blinking(two) == [WHITE]  # Ben's white, one die
    assert one.beeps.count == 2 and two.beeps.count == 1
    status = table.flow.status
    assert status is not None
    assert "Ana rolls 2 dice in tray 1" in status and "Ben rolls 1 die in tray 2" in status
    assert "Cid rolls 2 dice once a tray is free" in status

    # Ana throws; the second die lands cocked: a problem, no roll, the engine still waits.
    assert table.roll(one, dice(4, None)) == []
    assert one.light.kind == PROBLEM
    assert {table.led(one)} <= {RED, WHITE} and table.led(one) != OFF
    assert "re-roll the second die" in (table.flow.status or "")
    assert table.waiting_for() == {"Ana": 2, "Ben": 1, "Cid": 2}
    assert table.reader.asked == [(0, 2)]  # tray 1's picture, two dice expected

    # She re-rolls that die: read, and the roll is in the game; her tray turns green.
    rolled = table.roll(one, dice(4, 2))
    assert [(e["player"], e["dice"]) for e in rolled] == [("Ana", [4, 2])]
    assert rolled[0]["meta"]["source"] == "tray" and rolled[0]["meta"]["tray"] == 1
    assert one.light.kind == READ and table.led(one) == GREEN
    assert table.waiting_for() == {"Ben": 1, "Cid": 2}

    # Ben's dice lie still (the sensor missed them): he presses the button.
    assert [(e["player"], e["dice"]) for e in table.press(two, dice(3))] == [("Ben", [3])]
    assert table.led(two) == GREEN
    # Tray 2 stays green a moment, then lights for Cid in Vader's violet.
    table.clock.advance(GREEN_HOLD / 2)
    assert table.poll() == [] and table.led(two) == GREEN
    table.clock.advance(GREEN_HOLD)
    assert table.poll() == []
    assert table.blinking(two) == [VIOLET, VIOLET]
    assert table.led(one) == GREEN or one.light.kind == OFF_LIGHT  # Ana's tray is done

    # Cid ties Ana at 4: round 2 asks both again, and both trays relight at once.
    assert [e["player"] for e in table.roll(two, dice(4, 1))] == ["Cid"]
    assert table.poll() == []
    assert table.waiting_for() == {"Ana": 2, "Cid": 2}
    assert table.blinking(one) == [RED, RED] and table.blinking(two) == [VIOLET, VIOLET]
    assert "round 2" in (table.flow.status or "")

    # Round 2: Cid 6 beats Ana's 5.
    assert [e["player"] for e in table.roll(two, dice(6, 3))] == ["Cid"]
    assert [e["player"] for e in table.roll(one, dice(2, 5))] == ["Ana"]
    assert table.game.pending_battle() is None
    assert table.led(one) == GREEN and table.led(two) == GREEN
    # the battle's evidence: each fighter's last tray picture, shown once
    kept = table.tracker.dice
    assert isinstance(kept, BattleTrays) and set(kept.pictures) == {"Ana", "Ben", "Cid"}
    assert kept.take_picture("Ben") is not None and kept.take_picture("Ben") is None
    table.clock.advance(GREEN_HOLD + 0.1)
    table.poll()
    assert kept.pictures == {}  # no battle waits: no old dice for a battle entered by hand
    assert table.led(one) == OFF and table.led(two) == OFF and table.flow.status is None

    # The game the trays fed is the seed's: the same rolls, the same scores.
    assert table.rolls == table.record_dice
    assert table.game.scores() == expected("asteroid-battle-tie.jsonl")["scores"]
    assert table.tracker.open_prompts() == []
    table.close()


def test_a_roll_entered_on_the_phone_turns_its_tray_off_and_is_not_counted_twice(factory: Any) -> None:
    table = Table(factory, "route-battle.jsonl", TWO_TRAYS)
    one, two = table.trays
    table.poll()
    assert table.blinking(one) == [RED] and table.blinking(two) == [WHITE]  # Ana and Ben, 1 die each
    table.link.add({"event": "roll", "player": "Ben", "dice": [1]})  # Ben types his die on the phone
    assert table.poll() == []
    assert two.light.kind == OFF_LIGHT and table.led(two) == OFF
    shown = {entry["tray"]: entry for entry in table.flow.to_json()}
    assert shown[2]["phase"] == "idle" and shown[2]["fighter"] is None
    assert (shown[1]["phase"], shown[1]["player"], shown[1]["colour"], shown[1]["dice"]) == (
        "waiting",
        "Ana",
        "red",
        1,
    )
    table.hands.shake(two)  # his dice rattle in the tray all the same
    table.clock.advance(1.0)
    assert table.poll() == [] and table.reader.asked == []  # nobody asked that tray: never read
    assert table.blinking(one) == [RED]  # Ana's tray still waits
    assert [(e["player"], e["dice"]) for e in table.roll(one, dice(6))] == [("Ana", [6])]
    assert table.game.pending_battle() is None
    assert [r["by"] for r in table.game.battles[0]["rounds"][0]["rolls"]] == ["Ana", "Ben"]
    assert table.rolls == [("Ben", [1]), ("Ana", [6])]  # one roll each: the tray did not add Ben's
    assert table.game.scores() == expected("route-battle.jsonl")["scores"]
    table.close()


def test_a_late_tray_roll_for_a_fighter_no_longer_waiting_does_not_hold_up_the_others(
    factory: Any,
) -> None:
    table = Table(factory, "route-battle.jsonl", TWO_TRAYS)
    one, _ = table.trays
    table.poll()
    late = {"event": "roll", "player": "Ben", "dice": [2], "meta": {"source": "tray", "tray": 2}}
    table.tracker.held_rolls.append(late)  # read by a tray, kept while no battle seemed to wait
    table.link.add({"event": "roll", "player": "Ben", "dice": [1]})  # Ben typed his die meanwhile
    assert [(e["player"], e["dice"]) for e in table.roll(one, dice(6))] == [("Ana", [6])]
    assert table.tracker.held_rolls == []
    assert table.rolls == [("Ben", [1]), ("Ana", [6])]
    assert table.game.scores() == expected("route-battle.jsonl")["scores"]
    table.close()


def test_in_the_team_variant_the_seat_s_player_rolls_for_the_team(factory: Any) -> None:
    """Trays at Cid's (green) and Dee's (white) seats: Cid rolls for the Rebels, Dee for the Empire."""
    trays = [dict(TWO_TRAYS[0], colour="green"), dict(TWO_TRAYS[1], colour="white")]
    table = Table(factory, "teams-planet.jsonl", trays)
    one, two = table.trays
    table.poll()
    assert table.blinking(one) == [GREEN] * 3  # the Rebels roll 3 dice, at most
    assert table.blinking(two) == [WHITE] * 2
    assert "Cid rolls 3 dice for the Rebels (Ana, Cid) in tray 1" in (table.flow.status or "")
    assert [e["player"] for e in table.roll(one, dice(1, 2, 3))] == ["Cid"]
    assert [e["player"] for e in table.roll(two, dice(6, 2))] == ["Dee"]
    assert table.rolls == table.record_dice
    table.link.add({"event": "end"})
    assert table.game.scores() == expected("teams-planet.jsonl")["scores"]
    table.close()


def test_three_battles_of_one_turn_are_fought_one_after_another_through_the_trays(factory: Any) -> None:
    """The planet attack (Ana, Ben), then the field (Ana, Cid), then the route (Ben, Cid, a tie),
    every die read from the trays; tray 1 is Cid's seat and lends itself to Ben while Cid waits."""
    table = Table(factory, "three-battles-one-turn.jsonl", TWO_TRAYS)
    used = []
    for roll in table.record_rolls:
        tray = table.tray_for(roll["player"])
        used.append((roll["player"], tray.number))
        rolled = table.roll(tray, dice(*roll["dice"]))
        assert [(e["player"], e["dice"]) for e in rolled] == [(roll["player"], roll["dice"])]
    assert used[:4] == [("Ben", 1), ("Ana", 2), ("Ana", 2), ("Cid", 1)]
    assert used[4:] == [("Cid", 1), ("Ben", 2), ("Ben", 2), ("Cid", 1)]
    assert table.rolls == table.record_dice
    assert table.game.pending_battle() is None
    table.link.add({"event": "end"})
    assert table.game.scores() == expected("three-battles-one-turn.jsonl")["scores"]
    table.close()


def test_the_scoreboard_is_told_when_the_trays_change_and_only_then(factory: Any) -> None:
    table = Table(factory, "route-battle.jsonl", TWO_TRAYS)
    one, _ = table.trays
    told: list[str | None] = []
    table.flow.on_change = lambda: told.append(table.flow.status)
    table.poll()
    assert len(told) == 1 and "Ana rolls 1 die in tray 1" in (told[0] or "")
    table.clock.advance(0.3)
    table.poll()  # the lights blink on, but nothing a person reads has changed
    assert len(told) == 1
    table.roll(one, dice(None))
    assert "re-roll the first die" in (told[-1] or "")
    table.close()


def test_no_battle_no_light_and_shaking_reads_nothing(factory: Any) -> None:
    table = Table(factory, "route-three.jsonl", TWO_TRAYS)  # a game with no battle
    one, _ = table.trays
    assert table.game.pending_battle() is None and not table.game.finished
    assert table.poll() == []
    table.hands.shake(one)
    table.clock.advance(1.0)
    table.hands.press(one)
    assert table.poll() == [] and table.reader.asked == []
    assert table.led(one) == OFF and table.flow.status is None
    table.close()


BAD_READINGS = [
    (TrayReading((), "no-dice", ""), "no dice seen in tray 1: Ana rolls 1 die there"),
    (TrayReading((), "blurred", ""), "the picture of tray 1 is blurred"),
    (TrayReading((), "dark", ""), "the picture of tray 1 is dark: check its light and camera"),
    (TrayReading((), "overexposed", ""), "the picture of tray 1 is washed out: check its light"),
    (TrayReading((), "hand", "a hand covers the tray"), "a hand is over tray 1: take it away"),
    (TrayReading(dice(5).dice, "die-on-edge", ""), "a die lies against the edge of tray 1"),
    (
        TrayReading(dice(5, 3).dice, "too-many-dice", ""),
        "tray 1 holds 2 dice, but Ana rolls 1 die: take 1 out",
    ),
    (dice(5, 3), "tray 1 holds 2 dice, but Ana rolls 1 die"),  # status ok, all the same
    (TrayReading(()), "tray 1 shows 0 dice, but Ana rolls 1 die: roll 1 die"),  # too few under an "ok"
    (TrayReading((), "too-few-dice", ""), "tray 1 shows 0 dice, but Ana rolls 1 die: roll 1 die"),
    (TrayReading(dice(None).dice, "unreadable-die", ""), "re-roll the first die"),
    (dice(None), "re-roll the first die"),  # a value missing under an "ok"
    (dice(6, confidence=0.3), "re-roll the first die"),  # a value too unsure to score
    (TrayReading(dice(4).dice, "glare", ""), "could not be read (glare): roll again"),
]


@pytest.mark.parametrize(("reading", "message"), BAD_READINGS)
def test_a_reading_that_cannot_be_trusted_is_a_problem_never_a_roll(
    factory: Any, reading: TrayReading, message: str
) -> None:
    table = Table(factory, "route-battle.jsonl", TWO_TRAYS)
    one, _ = table.trays
    table.poll()
    assert table.roll(one, reading) == []
    assert one.light.kind == PROBLEM and table.led(one) in (RED, WHITE)
    assert one.beeps.length > 0.5  # one long beep
    assert message in (table.flow.status or "")
    assert table.waiting_for() == {"Ana": 1, "Ben": 1} and table.rolls == []
    # A press re-reads what lies there now: a good reading is taken.
    assert [e["dice"] for e in table.press(one, dice(4))] == [[4]]
    assert one.light.kind == READ
    table.close()


def test_a_camera_that_fails_is_a_problem_and_the_loop_goes_on(factory: Any) -> None:
    table = Table(factory, "route-battle.jsonl", TWO_TRAYS)
    one, _ = table.trays

    def broken(index: int) -> np.ndarray:
        raise OSError("camera unplugged")

    table.flow.camera = broken
    table.poll()
    assert table.roll(one, dice(4)) == []
    assert one.light.kind == PROBLEM
    assert "tray 1 could not be read (camera unplugged)" in (table.flow.status or "")
    table.close()


def test_the_cocked_dice_are_named_left_to_right_as_the_picture_shows_them() -> None:
    # listed out of order by the reader: boxes at x = 200, 10, 100
    reading = TrayReading(
        (Die("3", (200, 0, 30, 30), 0.9), Die(None, (10, 0, 30, 30), 0.6), Die(None, (100, 0, 30, 30), 0.6))
    )
    problem = reading_problem(reading, 3, "Ana", 2, 0.5)
    assert problem == (
        "tray 2: the first and second dice from the left cannot be read (cocked?): "
        "re-roll the first and second dice"
    )
    assert reading_problem(dice(6, 1, 2), 3, "Ana", 1, 0.5) is None


def test_the_roll_event_is_exactly_what_the_record_format_takes(factory: Any) -> None:
    table = Table(factory, "route-battle.jsonl", TWO_TRAYS)
    one, _ = table.trays
    table.poll()
    (event,) = table.roll(one, TrayReading((Die("5", (90, 0, 30, 30), 0.91),)))
    assert set(event) == {"event", "player", "dice", "meta"}
    assert (event["event"], event["player"], event["dice"]) == ("roll", "Ana", [5])
    assert event["meta"] == {"source": "tray", "tray": 1, "confidence": 0.91}
    parsed = StarWarsGame.parse_event(event)
    assert StarWarsGame.event_to_json(parsed) == event
    table.close()


def test_a_tray_roll_undone_on_the_phone_lights_the_tray_again(factory: Any) -> None:
    table = Table(factory, "route-battle.jsonl", TWO_TRAYS)
    one, _ = table.trays
    table.poll()
    assert [e["dice"] for e in table.roll(one, dice(2))] == [[2]]
    # Undo on the phone: the game is replayed without Ana's roll (as the live table does).
    undone = StarWarsGame(table.game.setup)
    for event in table.link.events[:-1]:
        undone.apply(StarWarsGame.parse_event(event))
    table.link.game = undone
    table.link.events.pop()
    assert table.poll() == []
    assert table.blinking(one) == [RED]
    assert [e["dice"] for e in table.roll(one, dice(5))] == [[5]]
    table.close()
