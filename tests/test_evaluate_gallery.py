"""The window-by-window figures of a gallery model (models/training/evaluate_gallery.py) count what they
say: a likeness that knows each tile as it lies is right and sure of every square, one that
sees only the type is seldom right, and sure only of a tile that lies the same every way."""

from __future__ import annotations

import numpy as np

from models.training.evaluate_gallery import candidates, positive_table, window_figures

SIDE = 8


def _drawn(kind: int, quarter_turns: int) -> np.ndarray:
    """A square filled with its type's number, a marked corner telling how it is turned."""
    square = np.full((SIDE, SIDE, 3), kind, np.uint8)
    square[0, 0] = 255
    return np.ascontiguousarray(np.rot90(square, k=-quarter_turns))


def _data() -> dict[str, np.ndarray]:
    ways = candidates()
    positives = positive_table()
    types = len(ways) // 4
    # a square of each catalog class as it lies, found by the candidate it is
    classes = [c for c in range(len(positives)) if positives[c].any()]
    squares = []
    for cls in classes:
        way = int(np.argmax(positives[cls]))
        squares.append(_drawn(way // 4, way % 4))
    return {
        "styles": np.zeros(len(classes), np.int64),
        "squares": np.stack(squares),
        "tiles": np.array(classes, np.int64),
        "enrol_styles": np.array([0]),
        "enrol_pictures": np.stack([_drawn(k, 0) for k in range(types)])[None],
    }


def _knows_turns(squares: np.ndarray) -> np.ndarray:
    kind = squares[:, SIDE // 2, SIDE // 2, 0].astype(int)
    corner = np.stack(
        [squares[:, 0, 0, 0], squares[:, 0, -1, 0], squares[:, -1, -1, 0], squares[:, -1, 0, 0]], axis=1
    ).argmax(axis=1)
    vectors = np.zeros((len(squares), 64 * 4), np.float32)
    vectors[np.arange(len(squares)), kind * 4 + corner] = 1.0
    return vectors


def _type_only(squares: np.ndarray) -> np.ndarray:
    kind = squares[:, SIDE // 2, SIDE // 2, 0].astype(int)
    vectors = np.zeros((len(squares), 64), np.float32)
    vectors[np.arange(len(squares)), kind] = 1.0
    return vectors


def test_a_likeness_that_knows_each_way_of_lying_is_right_and_sure_of_every_square() -> None:
    data = _data()
    figures = window_figures(_knows_turns, data)
    assert figures.squares == len(data["squares"]) > 30
    assert figures.right == figures.clear == figures.sure == figures.squares
    assert figures.sure_wrong == 0


def test_a_likeness_blind_to_turns_is_never_sure_and_seldom_right() -> None:
    data = _data()
    figures = window_figures(_type_only, data)
    # the four turns of a type tie: only a tile that lies the same every way can be ahead
    ways, positives = candidates(), positive_table()
    lying = [ways[int(np.argmax(positives[cls]))] for cls in data["tiles"]]
    alike = sum(tile.rotated(1) == tile for tile in lying)
    assert figures.sure == figures.clear == alike < figures.squares // 4
    assert figures.right < figures.squares // 2
