"""How well the Dice Game's dice are read: enrolled from one photograph per face, then read in
many rendered trays of 9 dice (companion/sim/dicegame_tray.py).

For each tray (a floor and a dice set of its own, enrolled from its empty picture and one
photograph per face), ``--trays`` rolls of 9 random faces are rendered at random places, angles
and rotations, under other light, and read. A die is right when its face is right and, for a city
face, its north points within 45 degrees of the true north (a band from N to S is the same
turned half-way). Unsure dice (no face) are counted apart: they are asked about, not scored.

    taskset -c 0 nice -n 10 .venv/bin/python benchmarks/dicegame_reading.py --floors 40 --trays 10

Floors, dice sets and every seed start at 5000 (``--first``): the thresholds were set on floors
0-4, and the finder was mended while looking at floors 1000-1059, so those are not held out.
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from collections import Counter

import numpy as np

from companion.games.dicegame import events as ev
from companion.games.dicegame.engine import DiceGame
from companion.games.dicegame.faces import KNIGHT, named_tables
from companion.games.dicegame.reader.enrolment import EnrolledDice, EnrolmentError, enrol
from companion.games.dicegame.reader.events import aside_events
from companion.games.dicegame.reader.tray_read import Areas, read_city, read_throw, read_throw_bodies
from companion.sim.dicegame_tray import DICE_SETS, RenderedDiceGameTray, Scene, render
from companion.vision.dice import DiceReader

FIRST = 5000


def north_right(face: str, north: float, truth: float) -> bool:
    period = 180.0 if face == "straight" else 360.0
    diff = (north - truth) % period
    return min(diff, period - diff) < 45.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--floors", type=int, default=40)
    parser.add_argument("--trays", type=int, default=10)
    parser.add_argument("--first", type=int, default=FIRST, help="the first floor's seed")
    parser.add_argument("--cities", type=int, default=0, help="laid cities to read, per floor")
    parser.add_argument(
        "--pip-finder", action="store_true", help="also count the dice the pip-dice reader finds in each tray"
    )
    args = parser.parse_args()
    table = named_tables()["reading1"]
    sets = list(DICE_SETS)
    counts = {
        "dice": 0,
        "right": 0,
        "wrong": 0,
        "unsure": 0,
        "missed": 0,
        "trays": 0,
        "trays_ok": 0,
        "confirmed": 0,
        "enrolled": 0,
    }
    wrong: list[str] = []
    statuses: dict[str, int] = {}  # of the trays not read whole
    refused: list[str] = []  # enrolments refused: the user is asked to photograph again
    cities: Counter[str] = Counter()  # laid cities: "right", "prompt: STATUS" or "wrong"
    pips = DiceReader() if args.pip_finder else None
    started = time.perf_counter()
    for n in range(args.floors):
        floor = args.first + n
        scene = Scene(
            table.segments,
            dice_set=sets[n % len(sets)],
            floor=floor,
            side=float(np.random.default_rng(floor).uniform(40, 56)),
        )
        empty = render(scene, floor * 100).image
        photos = {
            face: render(scene, floor * 100 + 1 + i, [face], whole=True).image
            for i, face in enumerate(table.all_faces)
        }
        try:
            enrolled = enrol(empty, photos, table)
        except EnrolmentError as error:
            refused.append(f"floor {floor} ({scene.dice_set}): {error}")
            continue
        counts["enrolled"] += 1
        counts["confirmed"] += enrolled.confirmed
        rng = np.random.default_rng(floor)
        for c in range(args.cities):
            cities[_city(enrolled, scene, floor * 100 + 80 + c, rng)] += 1
        for t in range(args.trays):
            faces = [str(f) for f in rng.choice(table.all_faces, 9)]
            tray = render(scene, floor * 100 + 50 + t, faces, whole=True)
            reading, bodies = read_throw_bodies(enrolled, tray.image, 9, Areas.of(tray.image, None))
            counts["trays"] += 1
            if pips is not None:
                counts["pip_finder_found"] = counts.get("pip_finder_found", 0) + _found_by(pips, tray)
            whole = reading.status == "ok" and len(reading.dice) == len(tray.dice)
            counts["trays_ok"] += whole
            # the roll event a tray gives: its faces, in any order; a tray not ok gives none
            if reading.faces is not None:
                same = Counter(reading.faces) == Counter(d.face for d in tray.dice)
                counts["rolls_right" if same else "rolls_wrong"] = (
                    counts.get("rolls_right" if same else "rolls_wrong", 0) + 1
                )
            if not whole:
                statuses[reading.status] = statuses.get(reading.status, 0) + 1
            for truth in tray.dice:
                counts["dice"] += 1
                near = [
                    (d, b)
                    for d, b in zip(reading.dice, bodies.dice, strict=False)
                    if abs(b.centre[0] - truth.centre[0]) < truth.side / 2
                    and abs(b.centre[1] - truth.centre[1]) < truth.side / 2
                ]
                if not near:
                    counts["missed"] += 1
                    wrong.append(f"floor {floor} tray {t}: {truth.face} at {truth.centre} not found")
                    continue
                die, body = near[0]
                if die.face is None:
                    counts["unsure"] += 1
                    continue
                ok = die.face == truth.face
                if ok and die.rotation is not None:
                    ok = north_right(truth.face, body.angle + 90.0 * die.rotation, truth.north)
                counts["right" if ok else "wrong"] += 1
                if not ok:
                    wrong.append(
                        f"floor {floor} tray {t}: {truth.face} north {truth.north:.0f} read "
                        f"{die.face} r{die.rotation}"
                    )
    seconds = time.perf_counter() - started
    dice = counts["dice"]
    print(json.dumps(counts))
    print(
        f"right {counts['right']}/{dice} = {100 * counts['right'] / max(dice, 1):.2f} %, "
        f"wrong {counts['wrong']}, "
        f"unsure {counts['unsure']}, missed {counts['missed']}; trays all read {counts['trays_ok']}"
        f"/{counts['trays']}; tables confirmed {counts['confirmed']}/{counts['enrolled']}; {seconds:.0f} s"
    )
    print(f"trays not read whole, by status: {statuses}")
    if args.cities:
        print(f"laid cities ({sum(cities.values())}): {dict(cities)}")
    print(f"enrolments refused: {len(refused)} of {args.floors}")
    for line in refused:
        print("  " + line)
    for line in wrong[:20]:
        print("  " + line)


def _found_by(reader: DiceReader, tray: RenderedDiceGameTray) -> int:
    """How many of the tray's dice the pip-dice reader finds (a die of its reading within 0.6
    of a side of the die's centre), whatever it reads them as."""
    reading = reader.read(tray.image, len(tray.dice))
    return sum(
        any(
            abs(d.box[0] + d.box[2] / 2 - truth.centre[0]) < 0.6 * truth.side
            and abs(d.box[1] + d.box[3] / 2 - truth.centre[1]) < 0.6 * truth.side
            for d in reading.dice
        )
        for truth in tray.dice
    )


def _city(enrolled: EnrolledDice, scene: Scene, seed: int, rng: np.random.Generator) -> str:
    """A random legal city laid after a roll, the rest of the roll left in the tray, read as
    aside events: "right" when they lay the same city (up to where it starts)."""
    game = DiceGame(
        DiceGame.parse_setup(
            {
                "record": 1,
                "game": "dicegame",
                "variant": "standard",
                "players": [{"name": "Ana"}, {"name": "Ben"}],
            }
        )
    )
    faces = tuple(str(f) for f in rng.choice(game.faces.all_faces, 9))
    game.apply(ev.Rolled("Ana", faces))
    before = copy.deepcopy(game)
    wanted = int(rng.integers(1, 7))
    laid: list[tuple[str, tuple[int, int], int]] = []
    for _ in range(wanted):
        options = [
            e
            for e in game.placements()
            if e.face != KNIGHT
            and e.at is not None
            and max([x for _, (x, _), _ in laid] + [e.at[0]]) - min([x for _, (x, _), _ in laid] + [e.at[0]])
            < 3
            and max([y for _, (_, y), _ in laid] + [e.at[1]]) - min([y for _, (_, y), _ in laid] + [e.at[1]])
            < 6
        ]
        if not options:
            break
        pick = options[int(rng.integers(0, len(options)))]
        assert pick.at is not None and pick.rotation is not None
        game.apply(pick)
        laid.append((pick.face, pick.at, pick.rotation))
    if not laid:
        return "no city die rolled"
    left = list(before.turn.tray if before.turn else [])
    for face, _, _ in laid:
        left.remove(face)
    tray = render(scene, seed, left, city=laid)
    outcome = aside_events(before, read_throw(enrolled, tray.image), read_city(enrolled, tray.image))
    if outcome.status != "ok":
        return f"prompt: {outcome.status}"

    def shapes(
        dice: list[tuple[str, tuple[int, int], int]],
    ) -> set[tuple[str, tuple[int, int], tuple[int, ...]]]:
        first = min((at for _, at, _ in dice), key=lambda c: (c[1], c[0]))
        return {
            (f, (at[0] - first[0], at[1] - first[1]), tuple(sorted(game.faces.turned_segments(f, r))))
            for f, at, r in dice
        }

    read = [
        (e.face, e.at, e.rotation)
        for e in outcome.events
        if isinstance(e, ev.SetAside) and e.at is not None and e.rotation is not None
    ]
    return "right" if shapes(read) == shapes(laid) and len(read) == len(laid) else "wrong"


if __name__ == "__main__":
    main()
