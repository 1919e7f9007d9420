"""The gallery's second reader, the cell model's likeness (companion/vision/likeness.py): where the
edges of another copy of the print are not sure, the likeness reads it, and never wrong here."""

from __future__ import annotations

import numpy as np
import pytest
from test_gallery import LABELS, START, distinct_tiles, reading_of, window_of

from companion.games.base import Player, Setup
from companion.games.starwars.tiles import Tile
from companion.sim.art_wide import WideStyle, draw_wide_tile
from companion.table.links import EngineLink
from companion.table.tracker import Tracker
from companion.vision.gallery import Gallery
from companion.vision.likeness import Likeness, turns
from companion.vision.mat import CROP_PX, TILE_PX
from companion.vision.reader import CellModel
from companion.vision.watcher import Observation
from models.cell_data import WIDE_HELD_OUT_STYLES

# art of the third family, which the shipped cell model was not trained on
STYLE = WideStyle.from_seed(WIDE_HELD_OUT_STYLES[3])


def wide_picture(tile: Tile, variant: int) -> np.ndarray:
    return draw_wide_tile(tile, STYLE, 96, variant)


def thumbnail(windows: np.ndarray) -> np.ndarray:
    """A stand-in embedding that sees which way a window lies: the tile's square at 12 x 12."""
    rim = (CROP_PX - TILE_PX) // 2
    tiles = windows[:, rim : rim + TILE_PX, rim : rim + TILE_PX].astype(np.float32)
    small = tiles.reshape(len(windows), 12, TILE_PX // 12, 12, TILE_PX // 12, 3).mean(axis=(2, 4))
    flat = small.reshape(len(windows), -1)
    centred: np.ndarray = flat - flat.mean(axis=1, keepdims=True)
    return centred


@pytest.fixture(scope="module")
def model() -> CellModel:
    return CellModel()


def test_turns_go_clockwise_as_tiles_turn() -> None:
    window = np.zeros((CROP_PX, CROP_PX, 3), np.uint8)
    window[0, -1] = 255  # the top right corner
    turned = turns(window)
    assert turned.shape == (4, CROP_PX, CROP_PX, 3)
    assert turned[1][-1, -1, 0] == 255  # a quarter clockwise: top right goes to bottom right


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_a_window_reads_as_its_picture_turned_as_it_lies(quarter_turns: int) -> None:
    likeness = Likeness(thumbnail)
    # six types that differ in their sides, each lying four ways
    by_sides = {t.side_kinds: t for t in distinct_tiles() if len(t.distinct_rotations()) == 4}
    kinds = list(by_sides.values())[:6]
    for number, kind in enumerate(kinds):
        likeness.add(f"p{number}", wide_picture(kind, 0), kind)
    kind = kinds[2]
    window = window_of(wide_picture(kind, 0), quarter_turns, seed=quarter_turns)
    read = likeness.match(window)
    assert read is not None and read.tile == kind.rotated(quarter_turns)
    assert read.score > 0.95 and read.sure
    # the rules forbid that way of lying: the best of the others, far less alike
    other = likeness.match(window, allowed=lambda t: t != kind.rotated(quarter_turns))
    assert other is not None and other.tile != kind.rotated(quarter_turns)
    assert other.score < read.score - 0.05 and not other.sure  # its rival, ruled out, still counts
    # a picture taken back is not read any more
    likeness.remove("p2")
    assert len(likeness) == 5
    after = likeness.match(window)
    assert after is not None and after.tile != kind.rotated(quarter_turns)


def test_the_likeness_reads_copies_of_the_print_the_edges_are_unsure_of(model: CellModel) -> None:
    """One picture of each type enrolled; then another copy of each (its own nebula and
    rocks), lying two ways, as the camera sees it."""
    by_edges = Gallery()
    with_model = Gallery()
    with_model.use_model(model.embed)
    for kind in distinct_tiles():
        by_edges.add(wide_picture(kind, 0), kind)
        with_model.add(wide_picture(kind, 0), kind)
    edges_sure = model_sure = wrong = 0
    for number, kind in enumerate(distinct_tiles()):
        for quarter_turns in (0, 1):
            window = window_of(wide_picture(kind, 2), quarter_turns, off=(1, -1), seed=number)
            edges = by_edges.match(window)
            read = with_model.match(window)
            assert edges is not None and read is not None
            edges_sure += edges.sure
            if read.sure:
                model_sure += read.by == "model"
                wrong += read.tile != kind.rotated(quarter_turns)
    # 70 windows: on 2026-11-21 the edges were sure of 19 and the likeness of 41 more, none wrong
    assert wrong == 0
    assert model_sure >= 30 and edges_sure + model_sure >= 55


def test_a_tile_read_by_the_likeness_says_so_in_its_record(model: CellModel) -> None:
    gallery = Gallery()
    gallery.use_model(model.embed)
    for kind in distinct_tiles():
        gallery.add(wide_picture(kind, 0), kind)
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    link = EngineLink(setup)
    tracker = Tracker(link, LABELS, gallery=gallery)
    tracker.learning.art.familiar = False  # the art has shown itself unknown to the model
    link.add(
        {"event": "tile", "player": None, "at": [0, 0], "tile": START.to_json(), "meta": {"source": "phone"}}
    )
    misread = next(t for t in distinct_tiles() if t.planet_index is not None and t != START)
    for number, kind in enumerate(distinct_tiles()[1:]):
        placements = link.game.legal_placements(kind)
        if not placements:
            continue
        cell, quarter_turns, lying = placements[0]
        window = window_of(wide_picture(kind, 2), quarter_turns, seed=number)
        read = gallery.match(window, lambda t, c=cell: link.game.board.fit_error(c, t) is None)
        if read is None or not read.sure or read.by != "model":
            continue
        added = tracker.observe(Observation([reading_of(cell, window, misread)]))
        assert [(e["player"], e["at"], e["tile"]) for e in added] == [("Ana", list(cell), lying.to_json())]
        meta = added[0]["meta"]
        assert meta["read_by"] == "gallery" and meta["matched_by"] == "model"
        assert meta["match_score"] >= 0.85
        return
    pytest.fail("no tile of this print was read by the likeness alone")


def test_a_picture_of_any_size_is_framed_as_a_camera_window() -> None:
    from companion.vision.likeness import window_of as framed

    picture = np.full((200, 200, 3), 90, np.uint8)
    picture[:100] = 200
    window = framed(picture)
    rim = (CROP_PX - TILE_PX) // 2
    assert window.shape == (CROP_PX, CROP_PX, 3)
    assert window[rim + 2, CROP_PX // 2, 0] == 200 and window[CROP_PX - rim - 3, CROP_PX // 2, 0] == 90
