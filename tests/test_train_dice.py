"""The dice model's training (models/training/train_dice.py): a finder taken back out of the shipped
ONNX file trains on with its folded batch norms left as they are, and the reader's batches are
cut at the crop size asked for and, with a slant, squashed with their pip boxes."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from models.training import dice_batches, train_dice  # noqa: E402
from models.training.dice_batches import motion_kernel, reader_batch, slant_matrix  # noqa: E402
from models.training.dice_data import PATCH_PER_CROP, ReadSample  # noqa: E402
from models.training.dice_nets import Finder, finder_from_onnx, folded_norms, trained_crop_px  # noqa: E402
from models.training.train_dice import HERE, train  # noqa: E402


def _norm_statistics(net: torch.nn.Module) -> list[np.ndarray]:
    return [
        module.running_var.detach().numpy().copy()
        for module in net.modules()
        if isinstance(module, torch.nn.BatchNorm2d)
    ]


@pytest.mark.parametrize("frozen", [True, False])
def test_train_keeps_norm_statistics_only_when_frozen(frozen: bool) -> None:
    finder = finder_from_onnx(HERE / "dice.onnx")
    before = _norm_statistics(finder)
    picture = torch.rand(2, 3, 64, 64) * 255

    def step() -> torch.Tensor:
        return finder(picture)[:, 0].sigmoid().mean()

    train(finder, 2, 1e-4, step, "test", frozen_norms=frozen)
    after = _norm_statistics(finder)
    unchanged = all(np.array_equal(b, a) for b, a in zip(before, after, strict=True))
    assert unchanged == frozen
    assert not finder.training  # handed back ready to harvest and export


def test_folded_norms_are_told_from_a_new_finder_and_survive_saving_and_loading(tmp_path: Path) -> None:
    assert not folded_norms(Finder())  # a new finder's norms learn batch statistics
    finder = finder_from_onnx(HERE / "dice.onnx")
    assert folded_norms(finder)
    picture = torch.rand(1, 3, 64, 64) * 255
    train(finder, 1, 1e-4, lambda: finder(picture)[:, 0].sigmoid().mean(), "test", frozen_norms=True)
    # saved and loaded as --part reader and --init load build/dice-finder.pt
    torch.save(finder.state_dict(), tmp_path / "finder.pt")
    again = Finder()
    again.load_state_dict(torch.load(tmp_path / "finder.pt"))
    again.eval()
    assert folded_norms(again)
    with torch.no_grad():
        assert torch.allclose(again(picture), finder(picture), atol=1e-5)


def test_the_crop_size_a_reader_was_trained_at_is_read_from_beside_its_weights(tmp_path: Path) -> None:
    weights = tmp_path / "dice-reader.pt"
    assert trained_crop_px(weights) == 48  # weights saved before the size was kept
    (tmp_path / "dice-reader.json").write_text('{"crop_px": 64}\n', encoding="utf-8")
    assert trained_crop_px(weights) == 64


@pytest.mark.parametrize("crop_px", [48, 64])
def test_reader_batches_are_cut_at_the_crop_size_asked_for(crop_px: int) -> None:
    patch = int(crop_px * PATCH_PER_CROP)
    image = np.full((patch, patch, 3), 200, np.uint8)
    third = patch // 3
    image[third : 2 * third, third : 2 * third] = 30  # a dark pip box in the middle
    box = (float(third), float(third), float(2 * third), float(2 * third))
    samples = [ReadSample(image, 2, box), ReadSample(image, 7, None)]
    images, labels, boxes, has_box = reader_batch(samples, np.random.default_rng(0), crop_px)
    assert tuple(images.shape) == (2, crop_px, crop_px, 3)
    assert labels.tolist() == [2, 7] and has_box.tolist() == [1.0, 0.0]
    # the box follows the patch into the crop: about the middle third of the crop, in fractions
    x0, y0, x1, y1 = boxes[0].tolist()
    assert 0.1 < x0 < 0.4 and 0.1 < y0 < 0.4 and 0.6 < x1 < 0.9 and 0.6 < y1 < 0.9


def test_a_slant_squashes_along_its_direction_and_keeps_the_centre_and_the_cross() -> None:
    side, squash, direction = 60, 0.5, np.pi / 6
    matrix = slant_matrix(side, squash, direction)
    centre = np.array([30.0, 30.0, 1.0])
    along = np.array([np.cos(direction), np.sin(direction), 0.0])
    across = np.array([-np.sin(direction), np.cos(direction), 0.0])
    np.testing.assert_allclose(matrix @ centre, centre, atol=1e-9)
    np.testing.assert_allclose(matrix @ (centre + 10 * along), centre + 5 * along, atol=1e-9)
    np.testing.assert_allclose(matrix @ (centre + 10 * across), centre + 10 * across, atol=1e-9)


def _pip_blocks(slant: float) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """64 crops of a patch whose pips are a dark block in its middle, wider than tall (colours
    left as they are): per crop, the block's pixel columns and rows and the pip box in pixels."""
    crop_px = 48
    patch = int(crop_px * PATCH_PER_CROP)
    image = np.full((patch, patch, 3), 200, np.uint8)
    image[30:42, 26:46] = 30
    samples = [ReadSample(image, 3, (26.0, 30.0, 46.0, 42.0))] * 64
    images, _, boxes, _ = reader_batch(samples, np.random.default_rng(1), crop_px, slant=slant)
    found = []
    for picture, box in zip(images.numpy(), boxes.numpy() * crop_px, strict=True):
        grey = picture.mean(axis=2)
        ys, xs = np.nonzero(grey < 115)
        found.append((xs, ys, box))
    return found


def test_a_slanted_batch_squashes_some_faces_and_keeps_the_pip_box_around_the_pips(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dice_batches, "recolour", lambda image, rng: image.astype(np.float32))
    nominal = 20 * 12  # the block's area (a crop is cut from the patch at its scale)
    small: dict[float, int] = {}
    for slant in (0.0, 0.6):
        blocks = _pip_blocks(slant)
        for xs, ys, box in blocks:
            assert len(xs) > 0
            # the box fits the block, squashed or not (a blur may spread its rim by a pixel)
            block = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
            assert np.abs(block - box).max() <= 3, (block, box)
        small[slant] = sum(len(xs) < 0.75 * nominal for xs, _, _ in blocks)
    assert small[0.6] >= small[0.0] + 8  # squashed faces cover less of the crop


@pytest.mark.parametrize("angle", [0.0, np.pi / 3, np.pi / 2])
def test_a_motion_blur_smears_a_point_along_its_direction_only(angle: float) -> None:
    kernel = motion_kernel(8.0, angle)
    assert kernel.sum() == pytest.approx(1.0)
    point = np.zeros((41, 41), np.float32)
    point[20, 20] = 1.0
    smear = cv2.filter2D(point, -1, kernel)
    ys, xs = np.nonzero(smear > 0.02)
    along = (xs - 20) * np.cos(angle) + (ys - 20) * np.sin(angle)
    across = -(xs - 20) * np.sin(angle) + (ys - 20) * np.cos(angle)
    assert along.max() - along.min() >= 6  # about the 8 pixels asked for
    assert np.abs(across).max() <= 1.5


def test_a_motion_blurred_batch_softens_some_crops(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dice_batches, "recolour", lambda image, rng: image.astype(np.float32))
    patch = int(48 * PATCH_PER_CROP)
    image = np.full((patch, patch, 3), 200, np.uint8)
    image[::6, :] = 30  # fine stripes: what a smear across them washes out
    samples = [ReadSample(image, 3, None)] * 60
    detail = {}
    for motion in (0.0, 0.3):
        images = reader_batch(samples, np.random.default_rng(2), 48, motion=motion)[0].numpy()
        grey = images.mean(axis=3)
        # fine detail whichever way the stripes were turned: steps between neighbours, both ways
        down, across = np.abs(np.diff(grey, axis=1)), np.abs(np.diff(grey, axis=2))
        steps = down.mean(axis=(1, 2)) + across.mean(axis=(1, 2))
        detail[motion] = sorted(steps.tolist())
    # the least detailed tenth of the crops lose much of their fine detail with a smear
    assert np.mean(detail[0.3][:6]) < 0.8 * np.mean(detail[0.0][:6])


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--motion", "0.5"], "--motion is a share of the crop between 0 and 0.3"),
        (["--part", "finder", "--motion", "0.1"], "--motion changes how the reader is trained"),
        (["--slant-on", "real"], "--slant-on real says which crops --slant squashes"),
        (["--ring", "9"], "--ring is a number of spots around each die, 0 to 8"),
        (["--ring", "-1"], "--ring is a number of spots around each die, 0 to 8"),
        (["--part", "finder", "--ring", "2"], "--ring changes how the reader is trained"),
        (["--part", "export", "--ring", "2"], "--ring changes how the reader is trained"),
        (["--cocked", "1.5"], "--cocked is a share of the rendered dice between 0 and 1"),
        (["--photos", "fit"], "--photos fit and --fold K go together"),
        (["--fold", "0"], "--photos fit and --fold K go together"),
        (["--part", "export", "--photos", "fit", "--fold", "1"], "never into models/"),
    ],
)
def test_training_options_that_do_not_go_together_are_refused_with_a_reason(
    argv: list[str], why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        train_dice.main(argv)
    assert why in capsys.readouterr().err


def test_a_slant_on_real_crops_only_leaves_rendered_crops_as_they_were() -> None:
    crop_px = 48
    patch = int(crop_px * PATCH_PER_CROP)
    image = np.random.default_rng(0).integers(0, 255, (patch, patch, 3)).astype(np.uint8)
    rendered = [ReadSample(image, 3, None)] * 16
    real = [ReadSample(image, 3, None, real=True)] * 16
    plain, *_ = reader_batch(rendered, np.random.default_rng(5), crop_px)
    rendered_only, *_ = reader_batch(rendered, np.random.default_rng(5), crop_px, 0.5, slant_real_only=True)
    squashed, *_ = reader_batch(real, np.random.default_rng(5), crop_px, 0.5, slant_real_only=True)
    # the rendered crops draw the same numbers as with no slant at all, so come out the same
    np.testing.assert_array_equal(plain.numpy(), rendered_only.numpy())
    # the photographs' crops are squashed (about half of them), so differ
    assert not np.array_equal(plain.numpy(), squashed.numpy())


def test_the_shipped_reader_taken_back_out_of_its_onnx_file_reads_as_the_file_does() -> None:
    from companion.vision.dice_model import DiceModel
    from models.training.dice_nets import reader_from_onnx

    reader = reader_from_onnx(HERE / "dice.onnx")
    assert folded_norms(reader)  # to be trained on only with its batch norms frozen
    crops = np.random.default_rng(3).integers(0, 256, (6, 48, 48, 3)).astype(np.uint8)
    probs, boxes = DiceModel(HERE / "dice.onnx").read(crops)
    with torch.no_grad():
        logits, box = reader(torch.from_numpy(crops.astype(np.float32)).permute(0, 3, 1, 2))
    assert np.abs(torch.softmax(logits, 1).numpy() - probs).max() < 1e-4
    assert np.abs(box.numpy() - boxes).max() < 1e-4
