"""The held-out suite's choices (models/training/evaluate.py): which art its games are drawn in, and the
gallery it enrols in that art."""

from __future__ import annotations

import pytest

from companion.games.starwars.art.box import is_box_style
from companion.games.starwars.art.invented import is_invented_style
from companion.games.starwars.art.wide import is_wide_style
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.sim.enrol_table import EnrolTable
from models.training.cell_data import SPLITS
from models.training.evaluate import ARTS, camera_enrolled_gallery, enrolled_gallery, evaluate_enrolment, main


def test_two_unseen_arts_at_once_are_refused_with_a_reason() -> None:
    with pytest.raises(SystemExit, match="not --box-art and --wide-art"):
        main(["--games", "1", "--box-art", "--wide-art"])
    with pytest.raises(SystemExit, match="not --wide-art and --invented-art"):
        main(["--games", "1", "--wide-art", "--invented-art"])


def test_each_art_draws_from_its_own_family() -> None:
    trained, _ = ARTS["trained"]
    box, _ = ARTS["box"]
    wide, wide_cameras = ARTS["wide"]
    assert all(is_box_style(style) for style in (box[0], box[-1]))
    assert all(is_wide_style(style) for style in (wide[0], wide[-1]))
    assert not any(is_box_style(s) or is_wide_style(s) for s in (trained[0], trained[-1]))
    assert set(wide_cameras).isdisjoint(ARTS["trained"][1])
    invented, invented_cameras = ARTS["invented"]
    assert all(is_invented_style(style) for style in (invented[0], invented[-1]))
    # the held-out part of the family that a likeness may be trained on
    assert not set(invented) & set(SPLITS["invented-train"].styles)
    assert not set(invented_cameras) & set(SPLITS["invented-train"].cameras)


@pytest.mark.parametrize("art", ["box", "wide", "invented"])
def test_the_enrolled_gallery_holds_one_picture_of_each_type(art: str) -> None:
    styles, _ = ARTS[art]
    gallery = enrolled_gallery(styles[0])
    assert len(gallery) == len(load_catalog().tiles)
    # named as `companion enroll` names them, so that the games read as the product reads them
    assert gallery.enrolled()


def test_a_box_laid_out_under_the_camera_is_enrolled_as_described() -> None:
    """``--enroll camera``: the tiles the camera finds where tiles lie are described on the
    phone, each as it lies: the gallery then holds every way each of them may lie."""
    styles, cameras = ARTS["wide"]
    gallery, described = camera_enrolled_gallery(styles[0], cameras[0], seed=0)
    assert described == len(load_catalog().tiles) == len(gallery)
    table = EnrolTable(styles[0], camera_seed=cameras[0], seed=0)
    ways = {tile.rotated(q) for tile in table.truth.values() for q in range(4)}
    assert set(gallery._tiles) == ways


def test_the_enrolment_tables_count_what_the_page_shows() -> None:
    """``--enrol-tables``: a box the page shows whole counts as whole; one shown with bare felt
    as a tile does not, and the felt is counted."""
    report = evaluate_enrolment(1, first=7)
    assert set(report) == set(ARTS)
    assert report["trained"] == {
        "tables": 1,
        "whole": 1,
        "tiles_missed": 0,
        "tiles": 35,
        "felt_shown_as_tile": 0,
    }
    wide = report["wide"]  # this table's light makes patches of felt look like tiles
    assert wide["whole"] == 0 and wide["tiles_missed"] == 0 and wide["felt_shown_as_tile"] >= 1
