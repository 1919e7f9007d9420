"""The enrolment page's proposals on a real box: how often a copy of a type already saved is
proposed as that copy, how often wrongly, and how many taps a person needs with and without the
form filled in from the most alike picture.

    python -m models.training.enrol_proposals [--boxes 12] [--types 0]

Each box is ../shared/data/tile-art-dev with every tile its labels count (86 tiles of 33 types;
``--types 24``: the first 24 types only), shuffled and laid face up in rows of 9, a mat-full of
45 at a time, each turned its own way, photographed by a held-out simulated camera
(models/training/real_art.py). The enrolment reads each photo as the page's camera does
(``Enrolment.look``), and a simulated person takes the tiles in the page's order: a tile proposed
as the right copy is saved with one tap; any other is put right from the form as it was filled
in (a tap for each side, the planet, a symbol or a join that differs) and saved. The first tile
of each type is saved with its own picture, as the page does.

A person's time is the keystroke-level estimate the browser test uses (tests/test_browser_enrol.py):
1.1 s a tap, 1.35 s to look at each tile, 2 s to lay it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Cell
from companion.games.starwars.reader.box_read import tile_type
from companion.games.starwars.reader.enrolment import Enrolment
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.sim.render import Camera, PlacedTile, Renderer, Scene
from companion.games.starwars.tiles import ASTEROID, PLANET, ROUTE, Tile
from companion.vision.mat import PX_PER_MM, STANDARD_MAT, TILE_PX
from companion.vision.rectify import Rectifier
from models.training.cell_data import HELD_OUT_CAMERAS
from models.training.real_art import art_missing, load_box, turned_picture

ROW, ROWS = 9, 5
TAP_S, LOOK_S, LAY_S = 1.1, 1.35, 2.0
SAVE = 1  # the Save button


def form(tile: Tile | None) -> dict[str, Any]:
    """What the page's tile form shows for ``tile`` (tiles.js): each side's kind, the planet, a
    symbol on the route and on the asteroid field, and the two joins."""
    shown: dict[str, Any] = {side: "space" for side in "NESW"}
    shown.update(planet="none", route_symbol="", field_symbol="", routes_join=True, fields_join=True)
    if tile is None:
        return shown
    routes = [f for f in tile.features if f.kind == ROUTE]
    fields = [f for f in tile.features if f.kind == ASTEROID]
    for feature in tile.features:
        symbol = feature.symbols[0] if feature.symbols else ""
        if feature.kind == PLANET:
            shown["planet"] = symbol
            continue
        for side in feature.edges:
            shown[side] = "route" if feature.kind == ROUTE else "asteroid"
        if symbol:
            shown["route_symbol" if feature.kind == ROUTE else "field_symbol"] = symbol
    if sum(len(f.edges) for f in routes) == 2:
        shown["routes_join"] = len(routes) == 1
    if sum(len(f.edges) for f in fields) > 1:
        shown["fields_join"] = len(fields) == 1
    return shown


def taps(start: Tile | None, wanted: Tile) -> int:
    """Taps that turn the form from ``start`` (None: blank) into ``wanted``, Save not counted.
    A question the sides do not call for is hidden, so it costs nothing."""
    have, want = form(start), form(wanted)
    sides = [want[side] for side in "NESW"]
    asked = ["N", "E", "S", "W", "planet"]
    asked += ["route_symbol"] * ("route" in sides) + ["field_symbol"] * ("asteroid" in sides)
    asked += ["routes_join"] * (sides.count("route") == 2) + ["fields_join"] * (sides.count("asteroid") > 1)
    return sum(have[name] != want[name] for name in asked)


@dataclass
class Tally:
    tiles: int = 0
    copies: int = 0  # tiles of a type already saved
    copies_proposed: int = 0  # ... proposed as the right copy
    copies_wrong: int = 0  # ... proposed as a copy of anything else
    firsts_as_copy: int = 0  # first tiles of a type proposed as a copy of another
    not_shown: int = 0  # tiles the page did not show
    felt_shown: int = 0  # places the page showed as a tile where none lay
    taps_with: int = 0
    taps_without: int = 0
    first_taps_with: list[int] = field(default_factory=list)
    first_taps_without: list[int] = field(default_factory=list)


def enrol_box(seed: int, types: int, tally: Tally) -> None:
    rng = random.Random(f"enrol-proposals-{seed}")
    box = load_box()[: types or None]
    pool = [kind for kind in box for _ in range(kind.count)]
    rng.shuffle(pool)
    enrolment = Enrolment(tile_gallery())
    rectifier = Rectifier(STANDARD_MAT)
    renderer = Renderer(Camera.from_seed(rng.choice(HELD_OUT_CAMERAS)))
    saved: set[Tile] = set()
    for start in range(0, len(pool), ROW * ROWS):
        board = STANDARD_MAT.board
        scene = Scene((board.centre[0] + rng.uniform(-4, 4), board.centre[1] + rng.uniform(-4, 4)))
        truth: dict[Cell, Tile] = {}
        for k, kind in enumerate(pool[start : start + ROW * ROWS]):
            cell = (k % ROW - ROW // 2, k // ROW - ROWS // 2)
            turns = rng.randrange(4)
            truth[cell] = kind.tile.rotated(turns)
            scene.tiles[cell] = PlacedTile(
                truth[cell],
                0,
                offset_mm=(rng.uniform(-2, 2), rng.uniform(-2, 2)),
                angle_deg=rng.uniform(-3, 3),
                printed=turned_picture(kind.picture, turns),
                printed_name=f"{kind.name}/{turns}",
            )
        frame = renderer.render(scene, rng.randrange(1 << 30))
        located = rectifier.locate(frame)
        if located.homography is None:
            raise RuntimeError(f"box {seed}: the mat's markers were not found")
        enrolment.laid = {}  # the mat cleared and laid anew
        enrolment.look(rectifier.rectify(frame, located.homography))
        shown = _shown_at(enrolment, scene, truth)
        tally.tiles += len(truth)
        tally.not_shown += len(truth) - len(shown)
        tally.felt_shown += len(enrolment.laid) - len(shown)
        for cell in sorted(shown, key=lambda c: (c[1], c[0])):
            tile, at = truth[shown[cell]], cell
            proposal = enrolment.propose(at)
            first = tile_type(tile) not in saved
            copy = proposal is not None and proposal.copy
            if first:
                tally.firsts_as_copy += copy
            else:
                tally.copies += 1
                tally.copies_proposed += copy and proposal is not None and proposal.tile == tile
                tally.copies_wrong += copy and proposal is not None and proposal.tile != tile
            start_from = proposal.tile if proposal is not None else None
            with_proposal = taps(start_from, tile) + SAVE
            without = taps(None, tile) + SAVE
            tally.taps_with += with_proposal
            tally.taps_without += without
            if first:
                tally.first_taps_with.append(with_proposal)
                tally.first_taps_without.append(without)
            enrolment.enrol(at, tile)
            saved.add(tile_type(tile))


def _shown_at(enrolment: Enrolment, scene: Scene, truth: dict[Cell, Tile]) -> dict[Cell, Cell]:
    """The page's cells that lie on a laid tile, each with that tile's cell in ``truth``."""
    shown: dict[Cell, Cell] = {}
    for cell in truth:
        x_mm, y_mm = scene.cell_centre_mm(cell)
        for laid in enrolment.laid.values():
            off = max(abs(laid.centre[0] - x_mm * PX_PER_MM), abs(laid.centre[1] - y_mm * PX_PER_MM))
            if off < TILE_PX / 4:
                shown[laid.cell] = cell
    return shown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boxes", type=int, default=12)
    parser.add_argument("--types", type=int, default=0, help="the first so many types only (0: all)")
    args = parser.parse_args(argv)
    missing = art_missing()
    if missing:
        print(f"enrol_proposals: {missing}", file=sys.stderr)
        return 2
    tally = Tally()
    for seed in range(args.boxes):
        enrol_box(seed, args.types, tally)
        print(f"box {seed + 1} of {args.boxes} laid out and saved", file=sys.stderr)
    per_box = tally.tiles / args.boxes
    count_tap = 1  # "that was the whole box"
    minutes = [
        ((t / args.boxes + count_tap) * TAP_S + per_box * (LOOK_S + LAY_S)) / 60
        for t in (tally.taps_with, tally.taps_without)
    ]
    print(
        f"boxes {args.boxes}, {per_box:.0f} tiles each; tiles the page did not show: {tally.not_shown}; "
        f"bare felt shown as a tile: {tally.felt_shown}"
    )
    print(
        f"copies of a type already saved: {tally.copies}; proposed as the right copy "
        f"{tally.copies_proposed} ({100 * tally.copies_proposed / max(tally.copies, 1):.1f} %), "
        f"as a wrong one {tally.copies_wrong}"
    )
    print(f"first tiles of a type proposed as a copy of another: {tally.firsts_as_copy}")
    print(
        f"taps a first tile, Save included: {statistics.mean(tally.first_taps_with):.2f} filled in, "
        f"{statistics.mean(tally.first_taps_without):.2f} from a blank form"
    )
    print(
        f"taps a box: {tally.taps_with / args.boxes:.0f} filled in, {tally.taps_without / args.boxes:.0f} "
        f"blank; a person: about {minutes[0]:.1f} min filled in, {minutes[1]:.1f} min blank"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
