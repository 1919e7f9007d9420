"""``companion enroll FOLDER``: a folder of labelled pictures becomes the user's gallery."""

from __future__ import annotations

import json
import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.games.starwars.art.box import BOX_STYLES, BoxStyle, draw_box_tile
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.tiles import Tile
from companion.vision.gallery_files import gallery_folder
from companion.vision.tile_window import flat_picture
from models.training.cell_data import random_unknown_tile

STYLE = BoxStyle.from_seed(BOX_STYLES[1])
TILES = [entry.tile for entry in load_catalog().tiles]


def picture(folder: Path, name: str, tile: Tile, label: object = None) -> None:
    cv2.imwrite(str(folder / f"{name}.png"), draw_box_tile(tile, STYLE, 120))
    data = {"tile": tile.to_json()} if label is None else label
    (folder / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")


def folders(tmp_path: Path) -> tuple[Path, Path]:
    """A folder for the user's pictures, made, and a state directory, not yet."""
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    return pictures, tmp_path / "state"


def test_enrolling_a_folder_keeps_every_good_picture_and_names_the_bad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pictures, state = folders(tmp_path)
    picture(pictures, "start", TILES[0])
    picture(pictures, "planet", TILES[7].rotated(1))
    picture(pictures, "broken", TILES[2], label={"tile": {"features": [{"kind": "moon"}]}})
    code = main(["enroll", str(pictures), "--state-dir", str(state)])
    said = capsys.readouterr().err
    assert code == 1
    assert "enrolled 2 of 3 pictures" in said and "broken.json" in said
    kept = tile_gallery(gallery_folder(state))
    assert len(kept) == 2
    names = sorted(p.name for p in gallery_folder(state).iterdir())
    assert names == [
        "enrolled-planet.json",
        "enrolled-planet.png",
        "enrolled-planet.vectors.npz",
        "enrolled-start.json",
        "enrolled-start.png",
        "enrolled-start.vectors.npz",
    ]


def test_a_tile_not_in_the_catalog_is_enrolled_as_a_new_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    known = {lying for t in TILES for _, lying in t.distinct_rotations()}
    odd = random_unknown_tile(random.Random(3), known)
    picture(tmp_path, "crossing", odd)
    assert main(["enroll", str(tmp_path), "--state-dir", str(tmp_path / "state")]) == 0
    assert "not in the catalog" in capsys.readouterr().err


def test_check_keeps_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture(tmp_path, "start", TILES[0])
    assert main(["enroll", str(tmp_path), "--check", "--state-dir", str(tmp_path / "state")]) == 0
    assert "would enroll 1 of 1 pictures (--check: nothing kept)" in capsys.readouterr().err
    assert not (tmp_path / "state").exists()


def test_a_picture_flat_in_grey_but_not_in_colour_is_a_tile() -> None:
    # two colours of about one brightness (grey 96 and 100): flat in grey, not in colour
    two = np.zeros((96, 96, 3), np.uint8)
    two[:, :48] = (200, 100, 50)
    two[:, 48:] = (50, 120, 80)
    assert not flat_picture(two)
    rng = np.random.default_rng(0)
    covered = np.clip(rng.normal(6, 1.0, (96, 96, 3)), 0, 255).astype(np.uint8)  # a covered lens
    assert flat_picture(covered)


def test_a_blank_picture_a_cut_short_one_and_a_label_alone_are_named_not_enrolled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pictures, state = folders(tmp_path)
    picture(pictures, "start", TILES[0])
    picture(pictures, "black", TILES[1])
    cv2.imwrite(str(pictures / "black.png"), np.zeros((120, 120, 3), np.uint8))
    picture(pictures, "cut", TILES[2])
    ok, data = cv2.imencode(".jpg", draw_box_tile(TILES[2], STYLE, 120))
    assert ok
    (pictures / "cut.png").unlink()
    (pictures / "cut.jpg").write_bytes(data.tobytes()[:600])
    (pictures / "lonely.json").write_text(json.dumps({"tile": TILES[3].to_json()}), encoding="utf-8")
    assert main(["enroll", str(pictures), "--state-dir", str(state)]) == 1
    said = capsys.readouterr().err
    assert "enrolled 1 of 3 pictures" in said
    assert "black: one flat colour, no tile in it" in said
    assert "cut.jpg: the JPEG stops before its end" in said
    assert "lonely.json: no lonely.png or lonely.jpg beside it" in said
    assert len(tile_gallery(gallery_folder(state))) == 1


@pytest.mark.parametrize("what", ["missing", "empty"])
def test_a_folder_without_pictures_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    folder = tmp_path / "nothing"
    if what == "empty":
        folder.mkdir()
    assert main(["enroll", str(folder), "--state-dir", str(tmp_path / "state")]) == 1
    said = capsys.readouterr().err
    assert "companion enroll:" in said and str(folder) in said


def test_two_pictures_of_one_name_keep_the_first_and_name_the_second(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pictures, state = folders(tmp_path)
    picture(pictures, "a", TILES[0])
    cv2.imwrite(str(pictures / "a.jpg"), draw_box_tile(TILES[0], STYLE, 120))
    assert main(["enroll", str(pictures), "--state-dir", str(state)]) == 1
    said = capsys.readouterr().err
    assert "enrolled 1 of 2 pictures" in said and "a.jpg" in said
    # enrolling again replaces, and counts only what this run kept
    (pictures / "a.jpg").unlink()
    assert main(["enroll", str(pictures), "--state-dir", str(state)]) == 0
    assert "enrolled 1 of 1 pictures" in capsys.readouterr().err
    assert len(tile_gallery(gallery_folder(state))) == 1


def test_enrol_is_the_same_command_as_enroll(capsys: pytest.CaptureFixture[str]) -> None:
    # the pages and docs spell it "enrol", the command "enroll": both are understood
    with pytest.raises(SystemExit) as stopped:
        main(["enrol", "--help"])
    assert stopped.value.code == 0
    assert "usage: companion enroll" in capsys.readouterr().out
