"""How far the gallery's bars can go: logged readings of whole games weighed with other bars.

    python -m models.training.evaluate --games 40 --wide-art --enroll --fix --out build/dev-games.json
    python -m models.training.gallery_bars build/dev-games.json

models.training.evaluate keeps the gallery's last reading of each cell it decided in each game, with
whether the tile truly laid there is the one it read (``logged``). This counts how many of
them the shipped bars are sure of, and how many of those are wrong; then, over a grid of the
four bars of the three ways of comparing agreeing (``gallery_match.AgreedBars``), the most readings
any bars of the grid are sure of at each count of wrong ones. The grid is scored on the very
readings it is chosen on, so those figures are a ceiling on what other bars could do for this
likeness, not a promise: a reading the shipped bars asked about was answered, and the gallery
learnt from the answer.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.games.base import FormatError
from companion.games.starwars.tiles import parse_tile
from companion.vision.gallery_match import AgreedBars, GalleryMatch

GRID = {
    "score": (0.3, 0.4, 0.5, 0.6, 0.7),
    "margin": (0.0, 0.02, 0.03, 0.05, 0.08, 0.1),
    "layout": (-1.0, -0.05, 0.0, 0.01, 0.03, 0.05),
    "colour": (-1.0, -0.05, 0.0, 0.02, 0.05),
}

# the match's measures a logged reading keeps, each with its type
MEASURES: dict[str, type] = {
    "score": float,
    "runner_up": float,
    "unseen_rivals": bool,
    "layout_margin": float,
    "colour_margin": float,
    "whole_box": bool,
    "copy_score": float,
    "copy_runner_up": float,
}


def logged(match: GalleryMatch, right: bool) -> dict[str, Any]:
    """A reading as models.training.evaluate logs it: the tile read, whether it was truly there, whether
    the shipped bars were sure of it, and the measures they weighed."""
    measures = {name: getattr(match, name) for name in MEASURES}
    return {"tile": match.tile.to_json(), "right": right, "sure": match.sure, **measures}


def match_of(row: dict[str, Any]) -> GalleryMatch:
    """The match a logged reading was."""
    measures = {name: kind(row[name]) for name, kind in MEASURES.items()}
    return GalleryMatch(parse_tile(row["tile"]), **measures)


@dataclass(frozen=True)
class Read:
    """One logged reading: the match the gallery made, and whether its tile was truly there."""

    match: GalleryMatch
    right: bool


def reads_of(report: dict[str, Any], source: str) -> list[Read]:
    """The logged readings of one models.training.evaluate --out file."""
    try:
        games = report["games"]["per_game"]
    except (KeyError, TypeError):
        raise ValueError(
            f"{source} holds no games: write it with models.training.evaluate --games N --out"
        ) from None
    if not isinstance(games, list):
        raise ValueError(f"{source}: its games are not a list")
    reads = []
    for number, game in enumerate(games, start=1):
        if not isinstance(game, dict) or "gallery_reads" not in game:
            raise ValueError(f"{source}: game {number} has no gallery_reads (written by an older evaluate?)")
        for row_number, row in enumerate(game["gallery_reads"], start=1):
            try:
                reads.append(Read(match_of(row), bool(row["right"])))
            except (KeyError, TypeError, ValueError, FormatError) as error:
                raise ValueError(f"{source}: game {number}, reading {row_number}: {error!r}") from None
    return reads


def tally(reads: Iterable[Read], bars: AgreedBars) -> tuple[int, int]:
    """(sure, of which wrong) with ``bars``."""
    sure = [read for read in reads if read.match.sure_by(bars)]
    return len(sure), sum(not read.right for read in sure)


def ceiling(reads: list[Read], most_wrong: int) -> dict[int, tuple[int, AgreedBars]]:
    """For each count of wrong readings up to ``most_wrong``, the most readings sure by any bars
    of the grid, and the first bars that reach it (no more than that many wrong)."""
    best: dict[int, tuple[int, AgreedBars]] = {}
    for values in itertools.product(*GRID.values()):
        bars = AgreedBars(*values)
        sure, wrong = tally(reads, bars)
        for allowed in range(wrong, most_wrong + 1):
            if allowed not in best or best[allowed][0] < sure:
                best[allowed] = (sure, bars)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "reports", nargs="+", type=Path, help="models.training.evaluate --out files of whole games"
    )
    parser.add_argument("--most-wrong", type=int, default=6, help="the counts of wrong readings reported")
    args = parser.parse_args(argv)
    if args.most_wrong < 0:
        parser.error("--most-wrong is a count of readings: 0 or more")
    reads: list[Read] = []
    for path in args.reports:
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"gallery_bars: {path}: {error}", file=sys.stderr)
            return 2
        try:
            reads += reads_of(report, str(path))
        except ValueError as error:
            print(f"gallery_bars: {error}", file=sys.stderr)
            return 2
    right_first = sum(read.right for read in reads)
    sure, wrong = tally(reads, AgreedBars())
    print(f"{len(reads)} readings, the right tile first for {right_first}")
    print(f"shipped bars {AgreedBars()}: sure of {sure}, {wrong} of them wrong")
    for allowed, (most, bars) in sorted(ceiling(reads, args.most_wrong).items()):
        print(f"  at most {allowed} wrong: at most {most} sure on the grid ({bars})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
