"""The gallery's learnt likeness (companion/vision/likeness.py), its data (models/training/gallery_data.py)
and, where torch is installed, its training's repainting (models/training/train_gallery.py)."""

from __future__ import annotations

import inspect
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.errors import UserError
from companion.games.starwars import models as starwars_models
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.tiles import parse_tile
from companion.vision.gallery import LOAD_BATCH
from companion.vision.gallery_views import mottle
from companion.vision.labels import TileLabels
from companion.vision.likeness import Likeness
from companion.vision.mat import TILE_PX
from companion.vision.reader import ModelMissing
from models.training.cell_data import WIDE_HELD_OUT_STYLES
from models.training.gallery_data import ENROL_PX, enrolment_pictures, frame_job, style_of_frame

LABELS = TileLabels.load(starwars_models.cells_path().with_suffix(".labels.json"))


def test_the_likeness_gives_unit_vectors_and_refuses_other_shapes() -> None:
    squares = np.random.default_rng(0).integers(0, 256, (3, TILE_PX, TILE_PX, 3)).astype(np.uint8)
    vectors = starwars_models.likeness().vectors(squares)
    assert vectors.shape[0] == 3
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    with pytest.raises(ValueError, match=f"\\(N, {TILE_PX}, {TILE_PX}, 3\\)"):
        starwars_models.likeness().vectors(squares[:, :40])


def test_a_missing_likeness_model_is_named_as_something_a_user_can_fix(tmp_path: Path) -> None:
    with pytest.raises(ModelMissing, match=r"gallery\.onnx must exist \(is the checkout whole\?\)") as caught:
        Likeness(tmp_path / "gallery.onnx")
    assert isinstance(caught.value, UserError)  # the command prints it on one line, not a traceback


def test_a_likeness_model_of_another_square_size_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gallery.onnx that reads 64 px squares (an experiment's, models/starwars/gallery.md) would fail
    deep in onnxruntime at the first match; it is refused when it is opened, saying why."""

    class Input:
        shape = ("n", 64, 64, 3)

    class Session:
        def get_inputs(self) -> list[Input]:
            return [Input()]

    monkeypatch.setattr("companion.vision.likeness.open_session", lambda path: Session())
    model = tmp_path / "gallery.onnx"
    model.write_bytes(b"stands in for a model")
    with pytest.raises(ModelMissing, match=f"reads 64 px squares, the gallery cuts {TILE_PX} px ones"):
        Likeness(model)


def test_an_empty_gallery_needs_no_model_and_a_folder_is_read_in_batches(tmp_path: Path) -> None:
    assert tile_gallery()._likeness is None  # nothing loaded until a picture is added or matched
    tile = load_catalog().tiles[3].tile
    picture = np.random.default_rng(1).integers(0, 256, (96, 96, 3)).astype(np.uint8)
    kept = tile_gallery(tmp_path)
    for k in range(LOAD_BATCH + 3):
        kept.add(picture, tile.rotated(k % 4), name=f"p{k}")
    again = tile_gallery(tmp_path)
    assert len(again) == LOAD_BATCH + 3
    square = cv2.resize(picture, (TILE_PX, TILE_PX), interpolation=cv2.INTER_AREA)
    one = tile_gallery()
    one.add(picture, tile)
    match = again.match_square(square)
    assert match is not None and match.score == pytest.approx(one.match_square(square).score, abs=1e-5)


def test_a_frame_gives_tile_squares_of_its_style_with_the_tile_as_it_lies() -> None:
    squares, classes, styles = frame_job((0, "wide-held-out"))
    assert len(squares) > 20 and squares.shape[1:] == (TILE_PX, TILE_PX, 3)
    # one style a frame, the one board_sample drew it in: two frames per style, as a box is one
    assert set(styles.tolist()) == {style_of_frame(0, "wide-held-out")}
    assert style_of_frame(0, "wide-held-out") == style_of_frame(1, "wide-held-out")
    assert style_of_frame(2, "wide-held-out") != style_of_frame(1, "wide-held-out")
    assert style_of_frame(0, "wide-held-out") in WIDE_HELD_OUT_STYLES
    # bare felt and tiles outside the catalog are left out: each class is a catalog tile
    kinds = {entry.tile for entry in load_catalog().tiles}
    for index in set(classes.tolist()):
        tile = parse_tile(LABELS.classes[index])
        assert any(tile.rotated(q) in kinds for q in range(4))


def test_one_enrolment_picture_per_catalog_type() -> None:
    pictures = enrolment_pictures(WIDE_HELD_OUT_STYLES[0])
    assert pictures.shape == (len(load_catalog().tiles), ENROL_PX, ENROL_PX, 3)
    # every type drawn; two pictures alike only where the catalog lists one tile twice (the start)
    kinds = {entry.tile for entry in load_catalog().tiles}
    assert len({picture.tobytes() for picture in pictures}) == len(kinds)


def test_training_can_draw_a_style_another_way_the_same_over_its_squares_and_pictures() -> None:
    pytest.importorskip("torch")
    from models.training.train_gallery import redraw

    square = np.random.default_rng(3).uniform(0, 255, (2, 16, 16, 3)).astype(np.float32)
    changed = 0
    for seed in range(16):
        a, b = redraw([square, square.copy()], np.random.default_rng(seed))
        assert np.array_equal(a, b)  # the window and its picture: one box, drawn one way
        assert a.shape == square.shape and float(a.min()) >= 0 and float(a.max()) <= 255
        changed += not np.allclose(a, square, atol=1.0)
    assert changed >= 14


def test_training_can_lay_a_style_out_another_way_the_same_for_a_square_as_it_lies() -> None:
    pytest.importorskip("torch")
    from models.training.evaluate_gallery import turned_pictures
    from models.training.train_gallery import warp

    pictures = enrolment_pictures(WIDE_HELD_OUT_STYLES[0])[:6]
    pictures = np.stack([cv2.resize(p, (TILE_PX, TILE_PX), interpolation=cv2.INTER_AREA) for p in pictures])
    pictures = pictures.astype(np.float32)
    # squares that are the pictures turned each way, as a camera square of the tile lying so
    squares = turned_pictures(pictures)
    turns = np.tile(np.arange(4), len(pictures))
    warped_squares, warped_pictures = warp(squares, turns, pictures, np.random.default_rng(2), 0.08)
    assert np.allclose(warped_squares, turned_pictures(warped_pictures), atol=1e-3)
    moved = np.abs(warped_pictures - pictures).mean(axis=-1)
    assert moved[:, 8:-8, 8:-8].mean() > 2.0  # the middle is laid out anew
    rim = np.concatenate([moved[:, 0, :], moved[:, -1, :], moved[:, :, 0], moved[:, :, -1]], axis=1)
    assert rim.mean() < 0.25 * moved[:, 8:-8, 8:-8].mean()  # where a side is met stays put
    # each tile laid out its own way: a square still as its own picture, two tiles not alike
    own = (np.repeat(np.arange(len(pictures)), 4), np.arange(len(pictures)))
    warped_squares, each = warp(squares, turns, pictures, np.random.default_rng(2), 0.08, *own)
    assert np.allclose(warped_squares, turned_pictures(each), atol=1e-3)
    twins = np.stack([pictures[0]] * 3)  # one tile printed three times: two tiles, then one
    _, apart = warp(
        twins[:1], turns[:1], twins, np.random.default_rng(3), 0.08, np.zeros(1), np.array([0, 1, 0])
    )
    assert not np.allclose(apart[0], apart[1], atol=1.0) and np.array_equal(apart[0], apart[2])


def test_training_knows_how_each_class_lies_and_draws_a_whole_style_s_layout_from_one_field() -> None:
    pytest.importorskip("torch")
    from models.training.evaluate_gallery import positive_table
    from models.training.train_gallery import class_layout, warp, warp_field

    turns, tiles, tile_of_entry = class_layout(positive_table())
    entries = [entry.tile for entry in load_catalog().tiles]
    for index, label in enumerate(LABELS.classes):
        if LABELS.is_tile(index):
            assert entries[tiles[index]].rotated(int(turns[index])) == parse_tile(label)
    start = [k for k, tile in enumerate(entries) if tile == entries[0]]
    assert len(start) == 2 and len(set(tile_of_entry[start].tolist())) == 1  # the start tile, listed twice
    # one style laid out one way draws one field, as the recipe without --warp-each-tile always did
    a, b = np.random.default_rng(4), np.random.default_rng(4)
    pictures = np.zeros((3, TILE_PX, TILE_PX, 3), np.float32)
    warp(pictures[:2], np.zeros(2, int), pictures, a, 0.1)
    warp_field(TILE_PX, b, 0.1)
    assert a.random() == b.random()


def one_style_file(path: Path, split: str) -> Path:
    """A gallery data file of one style and one square, written as models.training.gallery_data writes it."""
    np.savez(
        path,
        squares=np.zeros((1, TILE_PX, TILE_PX, 3), np.uint8),
        tiles=np.zeros(1, np.int64),
        styles=np.zeros(1, np.int64),
        enrol_styles=np.zeros(1, np.int64),
        enrol_pictures=np.zeros((1, 35, TILE_PX, TILE_PX, 3), np.uint8),
        split=np.array(split),
    )
    return path


def test_training_repaints_a_style_as_a_whole_and_refuses_test_data(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from models.training.train_gallery import main, restyle

    rng = np.random.default_rng(5)
    square = rng.uniform(0, 255, (1, 8, 8, 3)).astype(np.float32)
    for seed in range(20):
        a, b = restyle([square, square.copy()], np.random.default_rng(seed))
        assert np.array_equal(a, b)  # the window and its picture: one box, one repaint
    blotched = mottle(np.full((50, 8, 8, 3), 128, np.float32), rng, 0.5)
    changed = np.abs(blotched - 128).reshape(50, -1).max(axis=1) > 0
    assert 10 < changed.sum() < 40
    test_only = one_style_file(tmp_path / "box.npz", "box-art")
    with pytest.raises(SystemExit, match="test set"):
        main(["--data", str(test_only), "--out", str(tmp_path / "g.onnx")])


def test_training_refuses_the_unseen_art_it_is_judged_on_but_may_test_on_it(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from models.training.train_gallery import StyleData, main

    unseen = one_style_file(tmp_path / "invented-held-out.npz", "invented-held-out")
    with pytest.raises(SystemExit, match="judged on, never trained on"):
        main(["--data", str(unseen), "--out", str(tmp_path / "g.onnx")])
    assert len(StyleData([str(unseen)], training=False)) == 1


def test_a_training_margin_asks_a_square_to_win_by_that_much() -> None:
    torch = pytest.importorskip("torch")
    from models.training.evaluate_gallery import turned_pictures
    from models.training.train_gallery import SCALE, step_loss

    class Flat(torch.nn.Module):  # a square's pixels as its vector: the loss alone is tested
        def forward(self, squares: torch.Tensor) -> torch.Tensor:
            return torch.nn.functional.normalize(squares.flatten(1), dim=1)

    rng = np.random.default_rng(3)
    pictures = rng.uniform(0, 255, (2, 2, 2, 3)).astype(np.float32)  # two types, four ways each
    squares = pictures[:, ::-1, :, :].copy() + rng.normal(0, 20, pictures.shape).astype(np.float32)
    positives = np.zeros((2, 8), bool)
    positives[0, 0] = positives[1, 5] = True  # each square is one way of one type
    tiles = np.array([0, 1])
    plain = float(step_loss(Flat(), squares, tiles, pictures, positives))
    seen = Flat()(torch.from_numpy(squares))
    kept = Flat()(torch.from_numpy(turned_pictures(pictures).astype(np.float32)))
    by_hand = torch.nn.functional.cross_entropy(SCALE * seen @ kept.T, torch.tensor([0, 5]))
    assert plain == pytest.approx(float(by_hand), rel=1e-5)  # no margin: the plain softmax
    pushed = float(step_loss(Flat(), squares, tiles, pictures, positives, margin=0.2))
    lowered = SCALE * seen @ kept.T - SCALE * 0.2 * torch.from_numpy(positives[tiles]).float()
    assert pushed == pytest.approx(float(torch.nn.functional.cross_entropy(lowered, torch.tensor([0, 5]))))
    assert pushed > plain


def test_the_margin_given_to_training_reaches_its_loss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    import models.training.train_gallery as train_gallery

    class Stop(Exception):
        pass

    given: list[float] = []
    signature = inspect.signature(train_gallery.step_loss)

    def first_step(*args: object, **kwargs: object) -> None:  # called as step_loss would be, or refused
        call = signature.bind(*args, **kwargs)
        call.apply_defaults()
        given.append(float(call.arguments["margin"]))  # type: ignore[arg-type]
        raise Stop

    monkeypatch.setattr(train_gallery, "step_loss", first_step)
    data = one_style_file(tmp_path / "train.npz", "train")
    for flags, expected in (([], 0.0), (["--margin", "0.15"], 0.15)):
        with pytest.raises(Stop):
            train_gallery.main(
                ["--data", str(data), "--epochs", "1", "--out", str(tmp_path / "g.onnx"), *flags]
            )
        assert given.pop() == pytest.approx(expected)
