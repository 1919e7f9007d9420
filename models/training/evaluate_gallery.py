"""How well a gallery model compares, window by window: each tile square of a data file against
its own style's 35 upright pictures turned the four ways (140 candidates, no rules), as
models/starwars/gallery.md reports it. Reads any square size, so a model trained on larger squares can be
measured on data cut at that size; needs onnxruntime only.

    python -m models.training.evaluate_gallery --model models/starwars/gallery.onnx build/gallery-box.npz
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.tiles import Tile, parse_tile
from companion.vision.gallery_match import MATCH_MARGIN, MATCH_SURE
from companion.vision.onnx import open_session
from models.training.cell_data import labels

HERE = Path(__file__).resolve().parents[1] / "starwars"  # where the model files are kept
CLEAR = 0.05  # a right first tile this far ahead of the next is counted as clearly right
BATCH = 256


def candidates() -> list[Tile]:
    """Each catalog type turned 0-3 quarter turns clockwise, in that order (type-major)."""
    return [entry.tile.rotated(q) for entry in load_catalog().tiles for q in range(4)]


def positive_table() -> np.ndarray:
    """(cell-model classes, candidates): which candidates are the class's tile as it lies."""
    classes = labels().classes
    ways = candidates()
    table = np.zeros((len(classes), len(ways)), bool)
    for i, c in enumerate(classes):
        if isinstance(c, dict):
            tile = parse_tile(c)
            table[i] = [way == tile for way in ways]
    return table


def turned_pictures(pictures: np.ndarray) -> np.ndarray:
    """(types, S, S, 3) upright -> (types * 4, S, S, 3), as ``candidates`` orders them."""
    # np.rot90 with k=-1 turns a picture a quarter clockwise, as Tile.rotated(1) turns a tile
    return np.stack([np.rot90(p, k=-q) for p in pictures for q in range(4)])


@dataclass
class WindowFigures:
    squares: int = 0
    right: int = 0  # the right way of lying first
    clear: int = 0  # ... and CLEAR ahead of every other way
    sure: int = 0  # read sure by the gallery's first bar (MATCH_SURE, MATCH_MARGIN)
    sure_wrong: int = 0

    def line(self) -> str:
        n = max(self.squares, 1)
        return (
            f"{self.squares} squares: right first {self.right / n:.1%}, right by {CLEAR} or more "
            f"{self.clear / n:.1%}, sure {self.sure / n:.1%} ({self.sure_wrong} of them wrong)"
        )


def window_figures(vectors: Callable[[np.ndarray], np.ndarray], data: dict[str, np.ndarray]) -> WindowFigures:
    """Figures of the likeness ``vectors`` gives (squares -> unit vectors) on gallery data
    (models/training/gallery_data.py's arrays)."""
    ways = candidates()
    positives = positive_table()
    styles, squares, tiles = data["styles"], data["squares"], data["tiles"]
    figures = WindowFigures()
    for s, style in enumerate(data["enrol_styles"]):
        mine = styles == style
        if not mine.any():
            continue
        likeness = vectors(squares[mine]) @ vectors(turned_pictures(data["enrol_pictures"][s])).T
        for row, cls in zip(likeness, tiles[mine], strict=True):
            best: dict[Tile, float] = {}
            for way, score in zip(ways, row.tolist(), strict=True):
                best[way] = max(best.get(way, -1.0), score)
            ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
            right = bool(positives[cls][ways.index(ranked[0][0])])
            margin = ranked[0][1] - ranked[1][1]
            figures.squares += 1
            figures.right += right
            figures.clear += right and margin >= CLEAR
            if ranked[0][1] >= MATCH_SURE and margin >= MATCH_MARGIN:
                figures.sure += 1
                figures.sure_wrong += not right
    return figures


def onnx_vectors(path: Path, threads: int = 2) -> Callable[[np.ndarray], np.ndarray]:
    session = open_session(path, threads)
    side = session.get_inputs()[0].shape[1]

    def vectors(squares: np.ndarray) -> np.ndarray:
        if squares.shape[1] != side:
            raise SystemExit(
                f"{path} reads {side} px squares, the data's are {squares.shape[1]} px: "
                "cut the data at the model's size"
            )
        parts = [
            session.run(None, {"squares": squares[k : k + BATCH].astype(np.float32)})[0]
            for k in range(0, len(squares), BATCH)
        ]
        return np.asarray(np.concatenate(parts), np.float32)

    return vectors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", nargs="+", help="gallery data files (npz, models/training/gallery_data.py)")
    parser.add_argument("--model", default=str(HERE / "gallery.onnx"), help="the gallery model (ONNX)")
    args = parser.parse_args(argv)
    vectors = onnx_vectors(Path(args.model))
    for path in args.data:
        with np.load(path) as data:
            arrays = {
                key: data[key] for key in ("styles", "squares", "tiles", "enrol_styles", "enrol_pictures")
            }
        print(f"{args.model} on {path}: {window_figures(vectors, arrays).line()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
