"""`board read` against an enrolled box of real printed art: how many tiles are read right,
wrong, asked about or missed, at the shipped bars and over a grid of others.

    python -m models.training.box_bars [--tables 30] [--tiles 40] [--first 0]

The box is ../shared/data/tile-art-dev, enrolled from one picture per type (its scan); each
table is a legal board dealt from that box and photographed by a held-out simulated camera
(models/training/real_art.py). Every photo is read as `companion board read` reads it with the
box. A tile is right when it is read sure as the tile laid, as it lies; wrong when it is read
sure as anything else (or a tile is read sure on bare felt); asked when the reading is a prompt;
missed when no reading covers it. The grid is scored on the very tables it is chosen on: its
best row is a ceiling, and the shipped bars are set from other tables (``--first``).
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from companion.games.base import Cell
from companion.games.starwars.reader.board_read import checked_mat
from companion.games.starwars.reader.box_read import (
    SHIPPED,
    BoxBars,
    LookAgain,
    look_at_cells,
    read_against_box,
    second_look_at,
    tile_type,
)
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.tiles import Tile
from companion.vision.gallery import Gallery
from companion.vision.gallery_match import GalleryMatch, SecondLook
from companion.vision.lattice import find_lattice
from companion.vision.rectify import Rectifier
from models.training.real_art import art_missing, deal_board, enrol_box, load_box, photograph

GRID = {
    "not_a_tile": (0.6, 0.65, 0.7),
    "window": (0.15, 0.25, 0.35),
    "sure_score": (0.7, 0.8, 0.85, 0.9),
    "sure_margin": (0.0, 0.04, 0.08, 0.12, 0.16),
}


@dataclass
class Table:
    laid: dict[Cell, Tile]  # in the lattice's numbering
    matches: dict[Cell, GalleryMatch[Tile] | None]
    printed: set[Cell]  # cells where printed texture lies
    second_look: LookAgain | None = None  # remembers its answers: the grid asks again and again


@dataclass
class Counts:
    laid: int = 0
    right: int = 0
    wrong: int = 0
    asked: int = 0
    missed: int = 0
    asked_on_felt: int = 0  # prompts where no tile lies

    def add(self, other: Counts) -> None:
        for name in ("laid", "right", "wrong", "asked", "missed", "asked_on_felt"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def share(self, n: int) -> str:
        return f"{n / self.laid:.1%}" if self.laid else "-"

    def line(self) -> str:
        share = self.share
        return (
            f"{self.laid} tiles: right {self.right} ({share(self.right)}), wrong {self.wrong} "
            f"({share(self.wrong)}), asked {self.asked} ({share(self.asked)}), missed {self.missed}, "
            f"asked where no tile lies {self.asked_on_felt}"
        )


def photographed_table(seed: int, tiles: int, gallery: Gallery[Tile]) -> Table:
    """One table dealt and photographed, every lattice cell matched against the box."""
    rng = random.Random(f"box-bars-{seed}")
    laid = deal_board(rng, tiles)
    photo = photograph(rng, laid)
    located = checked_mat(photo)
    assert located.homography is not None
    view = Rectifier().rectify(photo, located.homography)
    found = find_lattice(view)
    if found is None:
        return Table({}, {}, set())
    lattice, cells = found
    matches, printed = look_at_cells(gallery, view, lattice, cells)
    look = second_look_at(gallery, view, lattice)
    looked: dict[tuple[Cell, tuple[Tile, ...]], SecondLook[Tile] | None] = {}

    def remembered(cell: Cell, ways: Sequence[Tile]) -> SecondLook[Tile] | None:
        key = (cell, tuple(ways))
        if key not in looked:
            looked[key] = look(cell, ways)
        return looked[key]

    # the lattice numbers its own cells: the shift that lines up most best matches is its numbering
    votes = [
        (cell[0] - at[0], cell[1] - at[1])
        for cell, match in matches.items()
        if match is not None
        for at, tile in laid.items()
        if tile.tile == match.tile
    ]
    dx, dy = statistics.mode(votes) if votes else (0, 0)
    laid_here = {(x + dx, y + dy): tile.tile for (x, y), tile in laid.items()}
    return Table(laid_here, matches, printed, remembered)


def count(
    table: Table, bars: BoxBars, box_counts: dict[Tile, int] | None = None, second_look: bool = True
) -> Counts:
    counts = Counts(laid=len(table.laid))
    look = table.second_look if second_look else None
    read = read_against_box(table.matches, bars, table.printed, box_counts, look)
    readings = {reading.cell: reading for reading in read}
    for cell, truth in table.laid.items():
        reading = readings.get(cell)
        if reading is None:
            counts.missed += 1
        elif reading.tile is None:
            counts.asked += 1
        elif reading.tile == truth:
            counts.right += 1
        else:
            counts.wrong += 1
    counts.wrong += sum(1 for cell, r in readings.items() if cell not in table.laid and r.tile is not None)
    counts.asked_on_felt += sum(
        1 for cell, r in readings.items() if cell not in table.laid and r.tile is None
    )
    return counts


def total(
    tables: list[Table], bars: BoxBars, box_counts: dict[Tile, int] | None = None, second_look: bool = True
) -> Counts:
    counts = Counts()
    for table in tables:
        counts.add(count(table, bars, box_counts, second_look))
    return counts


def counts_of_box() -> dict[Tile, int]:
    """How many tiles of each type the box holds, as a user who knows would enrol them."""
    held: dict[Tile, int] = {}
    for kind in load_box():
        held[tile_type(kind.tile)] = held.get(tile_type(kind.tile), 0) + kind.count
    return held


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--tiles", type=int, default=40, help="tiles dealt to a table (fewer when none fit)")
    parser.add_argument("--first", type=int, default=0, help="the first table's seed")
    parser.add_argument(
        "--counts", action="store_true", help="also read with the box's counts of each type narrowing"
    )
    args = parser.parse_args()
    problem = art_missing()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    gallery = tile_gallery()
    enrol_box(gallery)
    tables = []
    start = time.perf_counter()
    for k in range(args.tables):
        tables.append(photographed_table(args.first + k, args.tiles, gallery))
        took = time.perf_counter() - start
        print(f"\rtable {k + 1}/{args.tables} read ({took:.0f} s)", end="", file=sys.stderr)
    print(file=sys.stderr)
    print(f"shipped bars {SHIPPED}: {total(tables, SHIPPED).line()}")
    alone = total(tables, SHIPPED, second_look=False)
    print(f"shipped bars, the likeness alone (no second look): {alone.line()}")
    if args.counts:
        print(f"shipped bars, with the box's counts: {total(tables, SHIPPED, counts_of_box()).line()}")
    rows = []
    for values in itertools.product(*GRID.values()):
        bars = BoxBars(**dict(zip(GRID, values, strict=True)))
        rows.append((total(tables, bars), bars))
    print("grid, the most right at each count of wrong (a ceiling):")
    best_by_wrong: dict[int, tuple[Counts, BoxBars]] = {}
    for counts, bars in rows:
        kept = best_by_wrong.get(counts.wrong)
        if kept is None or counts.right > kept[0].right:
            best_by_wrong[counts.wrong] = (counts, bars)
    for wrong in sorted(best_by_wrong)[:6]:
        counts, bars = best_by_wrong[wrong]
        print(f"  {counts.line()}  {bars}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
