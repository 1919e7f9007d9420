"""Gallery pictures kept as camera-like views (companion/vision/gallery_views.py), and their
vectors kept beside them in the folder (companion/vision/gallery_cache.py)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.games.starwars import models as starwars_models
from companion.games.starwars.art.box import BOX_STYLES, BoxStyle, draw_box_tile
from companion.games.starwars.reader.gallery import tile_gallery
from companion.vision.gallery_cache import SUFFIX, picture_key
from companion.vision.gallery_views import VIEWS, views
from companion.vision.likeness import Likeness
from companion.vision.tile_window import square_of_picture
from tests.test_gallery import START, box_picture, distinct_tiles, window_of


class CountingLikeness(Likeness):
    """The shipped likeness, counting the squares it is asked to turn into vectors."""

    def __init__(self) -> None:
        super().__init__(starwars_models.likeness_path())
        self.squares = 0

    def vectors(self, squares: np.ndarray) -> np.ndarray:
        self.squares += len(squares)
        return super().vectors(squares)


def test_views_are_the_same_for_a_picture_and_differ_from_each_other_and_from_anothers() -> None:
    square = square_of_picture(box_picture(START))
    seen = views(square)
    assert seen.shape == (VIEWS, *square.shape) and seen.dtype == np.float32
    assert np.array_equal(seen, views(square))  # seeded by the picture: a gallery read again is the same
    assert min(float(np.abs(seen[k] - seen[0]).mean()) for k in range(1, VIEWS)) > 1.0
    other = square_of_picture(box_picture(distinct_tiles()[5]))
    assert not np.array_equal(views(other)[0], seen[0])
    # a view is the picture a little moved and lit, not another picture
    assert float(np.abs(seen.mean(axis=0) - square).mean()) < 25


def test_a_match_keeps_the_likeness_of_the_views_and_of_the_picture_itself() -> None:
    gallery = tile_gallery()
    for tile in distinct_tiles():
        gallery.add(box_picture(tile), tile)
    match = gallery.match(window_of(box_picture(START)))
    assert match is not None and match.tile == START
    # the window is the picture itself: a near copy of it, and less alike its views' mean
    assert match.copy_score > 0.99
    assert match.score < match.copy_score
    assert match.copy_runner_up < match.copy_score


def test_a_folder_read_again_uses_the_vectors_kept_beside_its_pictures(tmp_path: Path) -> None:
    tiles = distinct_tiles()[:3]
    first = tile_gallery(tmp_path, likeness=CountingLikeness())
    for number, tile in enumerate(tiles):
        first.add(box_picture(tile), tile, name=f"t{number}")
    assert first.likeness.squares == 3 * 4 * (1 + VIEWS)  # each way: the picture and its views
    assert sorted(p.name for p in tmp_path.glob(f"*{SUFFIX}")) == [f"t{k}{SUFFIX}" for k in range(3)]
    counting = CountingLikeness()
    again = tile_gallery(tmp_path, likeness=counting)
    assert counting.squares == 0 and len(again) == 3
    window = window_of(box_picture(tiles[1]), 2)
    a, b = first.match(window), again.match(window)
    assert a is not None and b is not None
    assert (b.tile, b.score, b.copy_score) == (a.tile, pytest.approx(a.score), pytest.approx(a.copy_score))


def test_kept_vectors_that_no_longer_fit_their_picture_are_worked_out_again(tmp_path: Path) -> None:
    tile = distinct_tiles()[2]
    tile_gallery(tmp_path).add(box_picture(tile), tile, name="t")
    kept = tmp_path / f"t{SUFFIX}"
    # another print saved under the same name, outside the gallery: the kept vectors are stale
    other = draw_box_tile(tile, BoxStyle.from_seed(BOX_STYLES[1]), 96)
    cv2.imwrite(str(tmp_path / "t.png"), other)
    counting = CountingLikeness()
    tile_gallery(tmp_path, likeness=counting)
    assert counting.squares == 4 * (1 + VIEWS)
    with np.load(kept) as data:  # and kept again, for the new print
        assert str(data["key"]) == picture_key(other, starwars_models.likeness().fingerprint)
    kept.write_bytes(b"not an npz")  # a damaged file costs time, not the picture
    counting = CountingLikeness()
    assert len(tile_gallery(tmp_path, likeness=counting)) == 1 and counting.squares == 4 * (1 + VIEWS)


def test_forgetting_a_picture_removes_its_kept_vectors(tmp_path: Path) -> None:
    gallery = tile_gallery(tmp_path)
    gallery.add(box_picture(START), START, name="s")
    assert (tmp_path / f"s{SUFFIX}").is_file()
    gallery.remove("s")
    assert list(tmp_path.iterdir()) == []


def test_a_mixed_folder_another_model_and_a_cache_that_cannot_be_written(tmp_path: Path) -> None:
    tiles = distinct_tiles()[:3]
    first = tile_gallery(tmp_path)
    for number, tile in enumerate(tiles):
        first.add(box_picture(tile), tile, name=f"t{number}")
    # one picture's vectors lost: only that one is worked out again, and each picture keeps its own
    (tmp_path / f"t1{SUFFIX}").unlink()
    counting = CountingLikeness()
    again = tile_gallery(tmp_path, likeness=counting)
    assert counting.squares == 4 * (1 + VIEWS)
    assert (tmp_path / f"t1{SUFFIX}").is_file()  # and kept again
    for quarter_turns, tile in enumerate(tiles):
        window = window_of(box_picture(tile), quarter_turns)
        a, b = first.match(window), again.match(window)
        assert a is not None and b is not None and b.tile == a.tile == tile.rotated(quarter_turns)
        assert b.score == pytest.approx(a.score, abs=1e-5)
    # another model: every picture worked out again
    other = CountingLikeness()
    other.fingerprint = "another model"
    tile_gallery(tmp_path, likeness=other)
    assert other.squares == 3 * 4 * (1 + VIEWS)
    # a folder where the vectors cannot be kept still reads its pictures, only slower
    for kept in tmp_path.glob(f"*{SUFFIX}"):
        kept.unlink()
        kept.mkdir()
    assert len(tile_gallery(tmp_path)) == 3
    assert not list(tmp_path.glob("*.part"))


def test_a_new_picture_name_is_not_taken_by_another_pictures_kept_vectors(tmp_path: Path) -> None:
    gallery = tile_gallery(tmp_path)
    names = [gallery.add(box_picture(START), START) for _ in range(3)]
    assert names == ["seen-0001", "seen-0002", "seen-0003"]
