"""`companion board read`: one picture of the table, every tile read, or a clear refusal."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.errors import UserError
from companion.games.starwars import models as starwars_models
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.reader.board_read import read_board
from companion.games.starwars.sim.render import Camera, PlacedTile, Renderer, Scene
from companion.vision.mat import STANDARD_MAT
from companion.vision.matfile import write_mat_png
from companion.vision.reader import CellModel
from models.training.cell_data import HELD_OUT_CAMERAS, HELD_OUT_STYLES


@pytest.fixture(scope="module")
def model() -> CellModel:
    return starwars_models.cell_model()


def table_picture() -> tuple[np.ndarray, dict[tuple[int, int], dict]]:  # type: ignore[type-arg]
    catalog = load_catalog()
    board = STANDARD_MAT.board
    scene = Scene((board.centre[0], board.centre[1]))
    laid = {(0, 0): catalog.start.tile, (0, 1): catalog.tiles[5].tile, (1, 1): catalog.tiles[9].tile}
    for cell, tile in laid.items():
        scene.tiles[cell] = PlacedTile(tile, HELD_OUT_STYLES[2])
    picture = Renderer(Camera.from_seed(HELD_OUT_CAMERAS[4])).render(scene, 1)
    return picture, {cell: tile.to_json() for cell, tile in laid.items()}


def test_every_tile_of_a_table_picture_is_read(model: CellModel) -> None:
    picture, laid = table_picture()
    result = read_board(picture, model)
    assert result["markers"] == list(range(8))
    read = {tuple(cell["at"]): cell for cell in result["cells"]}
    assert len(read) == len(laid)
    # the lattice numbers its own cells: the same tiles, the same places relative to each other
    (dx, dy) = next(at for at, cell in read.items() if cell["tile"] == laid[(0, 0)])
    for (x, y), tile in laid.items():
        cell = read[(x + dx, y + dy)]
        assert cell["tile"] == tile and cell["confidence"] > 0.5


def test_the_mat_file_itself_reads_as_an_empty_mat(tmp_path: Path, model: CellModel) -> None:
    path = tmp_path / "mat.png"
    write_mat_png(path, dpi=150)  # razor-sharp lines with no sensor noise: drawn, not torn
    picture = cv2.imread(str(path))
    assert picture is not None
    result = read_board(picture, model)
    assert result["markers"] == list(range(8)) and result["cells"] == []


def test_a_torn_camera_picture_is_refused_in_words_for_a_file(model: CellModel) -> None:
    picture, _ = table_picture()
    picture[picture.shape[0] // 2 :] = np.roll(picture[picture.shape[0] // 2 :], 80, axis=1)
    with pytest.raises(UserError, match=r"looks torn.*take the picture again"):
        read_board(picture, model)


def _refusal(picture: np.ndarray, model: CellModel) -> str:
    with pytest.raises(UserError) as refused:
        read_board(picture, model)
    return str(refused.value)


def test_each_thing_wrong_with_a_picture_is_named_in_words_a_person_can_act_on(model: CellModel) -> None:
    picture, _ = table_picture()
    height, width = picture.shape[:2]
    dark = (picture * 0.02).astype(np.uint8)
    assert "almost black" in _refusal(dark, model)
    # the middle of the table, enlarged: tiles but not one of the mat's markers
    middle = cv2.resize(picture[height // 3 : 2 * height // 3, width // 3 : 2 * width // 3], (width, height))
    words = _refusal(middle, model)
    assert "no play mat in the picture (0 of its 8 markers found)" in words and "torn" not in words
    far = cv2.resize(picture, None, fx=0.3, fy=0.3, interpolation=cv2.INTER_AREA)
    assert re.search(r"the mat is too small in the picture: a tile is \d+ px across", _refusal(far, model))
    tiny = cv2.resize(picture, None, fx=0.15, fy=0.15, interpolation=cv2.INTER_AREA)
    assert "the picture is too small (192x108 px)" in _refusal(tiny, model)
    assert "the picture is blurred" in _refusal(cv2.GaussianBlur(picture, (0, 0), 2.5), model)
    assert "too blurred to find the mat" in _refusal(cv2.GaussianBlur(picture, (0, 0), 5), model)


def test_a_slightly_soft_picture_is_still_read(model: CellModel) -> None:
    picture, laid = table_picture()
    result = read_board(cv2.GaussianBlur(picture, (0, 0), 1.5), model)
    assert len(result["cells"]) == len(laid)
    assert all(cell["tile"] in laid.values() for cell in result["cells"])
