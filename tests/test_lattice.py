"""The tile lattice in the rectified view (companion/vision/lattice.py): which cells hold a tile
when light falls unevenly on the mat."""

from __future__ import annotations

import numpy as np
import pytest

from companion.games.starwars.art.box import BOX_STYLES
from companion.games.starwars.sim.enrol_table import EnrolTable
from companion.vision.lattice import find_lattice
from companion.vision.mat import PX_PER_MM, STANDARD_MAT
from companion.vision.rectify import Rectifier


@pytest.fixture(scope="module")
def laid_out_view() -> tuple[np.ndarray, int]:
    table = EnrolTable(BOX_STYLES.start + 7, camera_seed=700_007, seed=7)
    rectifier = Rectifier(STANDARD_MAT)
    frame = table.frame()
    located = rectifier.locate(frame)
    assert located.homography is not None
    return rectifier.rectify(frame, located.homography), len(table.truth)


def _lit(view: np.ndarray, left: float, right: float) -> np.ndarray:
    """The view under light that rises smoothly from ``left`` to ``right`` times its own."""
    gain = np.linspace(left, right, view.shape[1], dtype=np.float32)[None, :, None]
    return np.clip(view.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def test_every_tile_is_found_and_nothing_else(laid_out_view: tuple[np.ndarray, int]) -> None:
    view, tiles = laid_out_view
    found = find_lattice(view)
    assert found is not None and len(found[1]) == tiles


@pytest.mark.parametrize(("left", "right"), [(0.7, 1.3), (1.3, 0.7)])
def test_felt_lit_unevenly_is_not_taken_for_tiles(
    laid_out_view: tuple[np.ndarray, int], left: float, right: float
) -> None:
    # one felt colour for the whole mat took the brighter (or darker) side's felt for tiles:
    # 57 and 66 cells more at these gains
    view, tiles = laid_out_view
    found = find_lattice(_lit(view, left, right))
    assert found is not None
    lattice, cells = found
    assert len(cells) == tiles
    board = STANDARD_MAT.board
    for cell in cells:  # all of them where the tiles lie, in the board's middle
        x, y = lattice.centre(cell)
        assert abs(x / PX_PER_MM - board.centre[0]) < board.w_mm / 3
        assert abs(y / PX_PER_MM - board.centre[1]) < board.h_mm / 3
