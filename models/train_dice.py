"""Train the dice model (the finder and the reader, companion/vision/dice_model.py) and export
both into models/dice.onnx.

Needs the optional ``train`` extra (torch); the companion runs the exported file with
onnxruntime only.

    python -m models.train_dice --synthetic 1200

Data: the training split of the shared real photographs (models/dice_data.py; the held-out
split is never read here) and rendered trays of the training seeds. First the finder is
trained on whole trays; then it is run over the same trays, and every spot it finds (plus every
labelled die it missed) is cut out as the reader will see it, labelled by the die it matches
(or ``none``), and the reader is trained on those crops. Rendered trays are kept in build/ so a
second run does not render them again. Writes models/dice.onnx, models/dice.labels.json and
the weights to build/dice-finder.pt and build/dice-reader.pt.

    python -m models.train_dice --part reader --finder-onnx models/dice.onnx --photos fit --fold 0

trains without fold 0 of the training photographs, to judge a recipe or a rule on it
(models/dice.md, the last section), and writes build/dice-fold0.onnx and the weights to
build/dice-reader-fold0.pt: a fold's networks never go to models/.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

try:
    import torch
except ModuleNotFoundError as missing:  # torch is for training only, never in the runtime
    raise SystemExit(
        "training needs torch and onnx: .venv/bin/pip install -e '.[train]' (models/README.md)"
    ) from missing
from torch import nn
from torch.nn import functional as F

from companion.vision.dice_model import (
    CROP_PX,
    FIND_PX,
    READ_CLASSES,
    STRIDE,
    Candidate,
    finder_input,
    peaks,
)
from models.dice_data import (
    FOLDS,
    FinderSample,
    ReadSample,
    harvest,
    real_finder_samples,
    synthetic_finder_samples,
)

HERE = Path(__file__).resolve().parent
HARVEST_THRESHOLD = 0.1


def conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


def pointwise(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Finder(nn.Module):
    """A small encoder-decoder: stride 16 to see a whole die and its surroundings, back up to
    stride 4 to place the centre; 6 maps (centre, x and y offsets, log body width and height,
    hand). Kept lean: it runs on a whole tray on one core of a Pi."""

    def __init__(self) -> None:
        super().__init__()
        self.s4 = nn.Sequential(conv(3, 16, 2), conv(16, 24, 2), conv(24, 24))
        self.s8 = nn.Sequential(conv(24, 40, 2), conv(40, 40))
        self.s16 = nn.Sequential(conv(40, 64, 2), conv(64, 64), conv(64, 64))
        self.up8 = nn.Sequential(pointwise(64 + 40, 40), conv(40, 40))
        self.up4 = nn.Sequential(pointwise(40 + 24, 24), conv(24, 24))
        self.head = nn.Conv2d(24, 6, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a4 = self.s4(x / 255.0 - 0.5)
        a8 = self.s8(a4)
        a16 = self.s16(a8)
        b8 = self.up8(torch.cat([F.interpolate(a16, scale_factor=2.0, mode="nearest"), a8], 1))
        b4 = self.up4(torch.cat([F.interpolate(b8, scale_factor=2.0, mode="nearest"), a4], 1))
        out: torch.Tensor = self.head(b4)
        return out


class Reader(nn.Module):
    """A small CNN over one die's crop: class logits (READ_CLASSES) and the pip box. ``width``
    scales every layer's channels (1.0: the first reader shipped)."""

    def __init__(self, width: float = 1.0) -> None:
        super().__init__()
        c16, c32, c48, c64, c96 = (max(8, round(c * width / 8) * 8) for c in (16, 32, 48, 64, 96))
        self.features = nn.Sequential(
            conv(3, c16),
            conv(c16, c32, 2),
            conv(c32, c32),
            conv(c32, c48, 2),
            conv(c48, c48),
            conv(c48, c64, 2),
            conv(c64, c96),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.classes = nn.Linear(c96, len(READ_CLASSES))
        self.box = nn.Linear(c96, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.features(x / 255.0 - 0.5)
        return self.classes(f), self.box(f)


class Exported(nn.Module):
    """What ships: NHWC inputs in 0..255 as OpenCV gives them; the finder's centre and hand
    maps and the reader's classes as probabilities, its box as fractions of the crop."""

    def __init__(self, finder: Finder, reader: Reader) -> None:
        super().__init__()
        self.finder, self.reader = finder, reader

    def forward(
        self, tray: torch.Tensor, crops: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        maps = self.finder(tray.permute(0, 3, 1, 2))
        maps = torch.cat([torch.sigmoid(maps[:, :1]), maps[:, 1:5], torch.sigmoid(maps[:, 5:])], 1)
        logits, box = self.reader(crops.permute(0, 3, 1, 2))
        return maps, F.softmax(logits, dim=1), box


# --- photometric changes shared by both networks: other light, other dice colours -----------


def paint(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """White and grey things (the real photographs' dice, and pale trays) given one random
    colour, their shading kept: the real dice's shapes as dice of other colours."""
    hsv = cv2.cvtColor(image.astype(np.uint8), cv2.COLOR_BGR2HSV)
    pale = (hsv[..., 1] < 70) & (hsv[..., 2] > 100)
    hsv[..., 0] = np.where(pale, rng.integers(0, 180), hsv[..., 0])
    hsv[..., 1] = np.where(pale, rng.integers(110, 240), hsv[..., 1])
    hsv[..., 2] = np.where(pale, hsv[..., 2] * rng.uniform(0.45, 0.95), hsv[..., 2]).astype(np.uint8)
    return np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), np.float32)


def recolour(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Gain, colour cast, at times the channels swapped or the picture inverted (a white die
    with black pips becomes a dark one with light pips), noise; float32."""
    out = paint(image, rng) if rng.random() < 0.2 else image.astype(np.float32)
    if rng.random() < 0.3:
        out = out[..., rng.permutation(3)]
    if rng.random() < 0.12:
        out = 255 - out
    if rng.random() < 0.1:
        out = np.repeat(out.mean(axis=2, keepdims=True), 3, axis=2)
    out = out * rng.uniform(0.6, 1.35) * rng.uniform(0.85, 1.15, 3) + rng.normal(0, 10)
    out += rng.normal(0, 1, out.shape).astype(np.float32) * rng.uniform(0, 6)
    return np.clip(out, 0, 255)


# --- the finder ---------------------------------------------------------------------------

FIND_TRAIN_PX = 128


def finder_batch(samples: list[FinderSample], rng: np.random.Generator) -> tuple[torch.Tensor, ...]:
    """Random FIND_TRAIN_PX squares of the trays at a random scale, turned and flipped, and their target
    maps: centre (Gaussian), offsets and log sizes at each centre cell, the hand mask."""
    n, cells = len(samples), FIND_TRAIN_PX // STRIDE
    images = np.zeros((n, FIND_TRAIN_PX, FIND_TRAIN_PX, 3), np.float32)
    heat = np.zeros((n, cells, cells), np.float32)
    regress = np.zeros((n, 4, cells, cells), np.float32)
    at_centre = np.zeros((n, cells, cells), np.float32)
    has_size = np.zeros((n, cells, cells), np.float32)
    hand = np.zeros((n, cells, cells), np.float32)
    yy, xx = np.mgrid[0:cells, 0:cells].astype(np.float32)
    for k, sample in enumerate(samples):
        scale = math.exp(rng.uniform(math.log(0.65), math.log(1.5)))
        h, w = sample.image.shape[:2]
        # a random square placement of the scaled tray (padding with its edge where it is small)
        ox = rng.uniform(min(0, FIND_TRAIN_PX - w * scale), max(0, FIND_TRAIN_PX - w * scale))
        oy = rng.uniform(min(0, FIND_TRAIN_PX - h * scale), max(0, FIND_TRAIN_PX - h * scale))
        # turned by up to 25 degrees about the square's middle as well: dice lie at any angle,
        # and a tray camera need not be square to the tray
        angle = math.radians(rng.uniform(-25, 25)) if rng.random() < 0.5 else 0.0
        cos, sin, middle = math.cos(angle), math.sin(angle), FIND_TRAIN_PX / 2
        turn = np.array(
            [
                [cos, -sin, middle - cos * middle + sin * middle],
                [sin, cos, middle - sin * middle - cos * middle],
            ]
        )
        matrix = (turn @ np.array([[scale, 0, ox], [0, scale, oy], [0, 0, 1]])).astype(np.float32)
        turns, flip = int(rng.integers(0, 4)), bool(rng.random() < 0.5)
        image = cv2.warpAffine(
            sample.image, matrix, (FIND_TRAIN_PX, FIND_TRAIN_PX), borderMode=cv2.BORDER_REPLICATE
        )
        if rng.random() < 0.15:
            image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.5, 1.5))
        images[k] = _turn(recolour(image, rng), turns, flip)
        if sample.hand is not None:
            mask = cv2.warpAffine(sample.hand, matrix, (FIND_TRAIN_PX, FIND_TRAIN_PX))
            small = cv2.resize(mask, (cells, cells), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
            hand[k] = _turn(small, turns, flip)
        for cx, cy, bw, bh, sized in sample.dice:
            px, py = matrix @ np.array([cx, cy, 1.0])
            x, y = _turn_point(float(px), float(py), FIND_TRAIN_PX, turns, flip)
            if not (0 <= x < FIND_TRAIN_PX and 0 <= y < FIND_TRAIN_PX):
                continue
            if turns % 2:
                bw, bh = bh, bw
            gx, gy = x / STRIDE, y / STRIDE
            ix, iy = int(gx), int(gy)
            sigma = max(0.6, max(bw, bh) * scale / STRIDE / 5)
            heat[k] = np.maximum(
                heat[k], np.exp(-((xx + 0.5 - gx) ** 2 + (yy + 0.5 - gy) ** 2) / (2 * sigma**2))
            )
            regress[k, :, iy, ix] = (
                gx - ix,
                gy - iy,
                math.log(max(bw * scale, 1) / STRIDE),
                math.log(max(bh * scale, 1) / STRIDE),
            )
            at_centre[k, iy, ix] = 1
            has_size[k, iy, ix] = float(sized)
            heat[k, iy, ix] = 1.0
    tensors = (images, heat, regress, at_centre, has_size, hand)
    return tuple(torch.from_numpy(np.ascontiguousarray(t)) for t in tensors)


def _turn(image: np.ndarray, turns: int, flip: bool) -> np.ndarray:
    out = np.rot90(image, turns)
    return out[:, ::-1] if flip else out


def _turn_point(x: float, y: float, size: int, turns: int, flip: bool) -> tuple[float, float]:
    """Where (x, y) lands after np.rot90 by ``turns`` (counter-clockwise) then a left-right flip."""
    for _ in range(turns):
        x, y = y, size - x
    return (size - x, y) if flip else (x, y)


def finder_loss(
    net: Finder, batch: tuple[torch.Tensor, ...], hand_weight: float = 1.0, hand_pos_weight: float = 30.0
) -> torch.Tensor:
    images, heat, regress, at_centre, has_size, hand = batch
    out = net(images.permute(0, 3, 1, 2))
    # focal loss on the centre map (CenterNet's): few positives among many cells
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    positive = heat.eq(1).float()
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * positive).sum()
    neg_loss = -(torch.log(1 - p) * p**2 * (1 - heat) ** 4 * (1 - positive)).sum()
    centres = positive.sum().clamp(min=1)
    centre_loss = (pos_loss + neg_loss) / centres
    offset = (F.l1_loss(out[:, 1:3], regress[:, :2], reduction="none").sum(1) * at_centre).sum() / centres
    size = (
        F.l1_loss(out[:, 3:5], regress[:, 2:], reduction="none").sum(1) * has_size
    ).sum() / has_size.sum().clamp(min=1)
    # hands cover well under 1 % of the cells seen in training: weighted up, or the map stays 0
    hand_loss = F.binary_cross_entropy_with_logits(out[:, 5], hand, pos_weight=torch.tensor(hand_pos_weight))
    return centre_loss + offset + 0.5 * size + hand_weight * hand_loss


def finder_from_onnx(path: Path) -> Finder:
    """The finder of an exported dice file, back as a torch module to export again beside a new
    reader. The export folded each batch norm into its convolution; here each batch norm passes
    the folded convolution through as it is (in eval mode only: to be trained further only with
    its batch norms frozen, `train`'s ``frozen_norms``)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: np.array(numpy_helper.to_array(i)) for i in graph.initializer}
    finder = Finder()
    modules = dict(finder.named_modules())
    convs = 0
    for node in graph.node:
        if node.op_type != "Conv" or not node.name.startswith("/finder/"):
            continue
        # "/finder/s4/s4.0/s4.0.0/Conv" is finder.s4[0][0]; its batch norm is finder.s4[0][1]
        name = node.name.split("/")[-2].replace("finder.", "")
        conv = modules[name]
        assert isinstance(conv, nn.Conv2d), name
        kernel, bias = weights[node.input[1]], weights[node.input[2]]
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(kernel))
            if conv.bias is not None:
                conv.bias.copy_(torch.from_numpy(bias))
            else:
                norm = modules[name[: -len(".0")] + ".1"]
                assert isinstance(norm, nn.BatchNorm2d), name
                norm.running_mean.zero_()
                norm.running_var.fill_(1.0 - norm.eps)
                norm.weight.fill_(1.0)
                norm.bias.copy_(torch.from_numpy(bias))
        convs += 1
    if convs != sum(isinstance(m, nn.Conv2d) for m in finder.modules()):
        raise ValueError(f"{path}: {convs} finder convolutions, not this Finder's")
    return finder.eval()


def folded_norms(net: nn.Module) -> bool:
    """Whether every batch norm of ``net`` only passes its convolution through, as
    ``finder_from_onnx`` leaves them (and build/dice-finder.pt after training such a finder):
    their statistics are folded away, so training must keep them frozen."""
    norms = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
    return bool(norms) and all(
        bool(torch.all(m.running_mean == 0))
        and bool(torch.allclose(m.running_var, torch.full_like(m.running_var, 1 - m.eps), rtol=0, atol=1e-7))
        for m in norms
    )


def trained_crop_px(reader_path: Path) -> int:
    """The crop size the reader in ``reader_path`` was trained at: written beside its weights
    (CROP_PX for weights saved before that was kept)."""
    side = reader_path.with_suffix(".json")
    return int(json.loads(side.read_text(encoding="utf-8"))["crop_px"]) if side.is_file() else CROP_PX


def run_finder(net: Finder, picture: np.ndarray, threshold: float = 0.2) -> list[Candidate]:
    tray, scale = finder_input(picture)
    with torch.no_grad():
        maps = net(torch.from_numpy(tray).permute(0, 3, 1, 2))[0]
        maps[0] = torch.sigmoid(maps[0])
    return peaks(maps.numpy(), scale, threshold)


# --- the reader ----------------------------------------------------------------------------


def slant_matrix(side: int, squash: float, direction: float) -> np.ndarray:
    """The 3x3 affine map that squashes a ``side``-pixel square about its centre to ``squash``
    of its size along ``direction`` (radians) and keeps it across: a face seen at a slant."""
    c, s = math.cos(direction), math.sin(direction)
    turn = np.array([[c, -s], [s, c]])
    linear = turn @ np.diag([squash, 1.0]) @ turn.T
    centre = np.array([side / 2, side / 2])
    matrix = np.eye(3)
    matrix[:2, :2] = linear
    matrix[:2, 2] = centre - linear @ centre
    return matrix


def motion_kernel(length: float, angle: float) -> np.ndarray:
    """A blur along a straight line ``length`` pixels long at ``angle`` (radians), as a camera
    or a die moving during the exposure smears it; sums to 1."""
    side = 2 * math.ceil(length / 2) + 1
    kernel = np.zeros((side, side), np.float32)
    centre = side // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(
        kernel,
        (round(centre - dx), round(centre - dy)),
        (round(centre + dx), round(centre + dy)),
        1.0,
        1,
        cv2.LINE_AA,
    )
    return kernel / kernel.sum()


def reader_batch(
    samples: list[ReadSample],
    rng: np.random.Generator,
    crop_px: int = CROP_PX,
    slant: float = 0.0,
    motion: float = 0.0,
) -> tuple[torch.Tensor, ...]:
    """Each kept patch turned by a multiple of 90 degrees and a few more, flipped, shifted and
    scaled a little, cut to ``crop_px``, recoloured; its pip box moved with it. With ``slant``,
    half the patches are also squashed by up to that share along a random direction, as a face
    looks from a camera that is not straight above it; with ``motion``, a third are smeared along
    a random direction by up to that share of the crop, as by a camera that moved."""
    n = len(samples)
    images = np.zeros((n, crop_px, crop_px, 3), np.float32)
    labels = np.zeros(n, np.int64)
    boxes = np.zeros((n, 4), np.float32)
    has_box = np.zeros(n, np.float32)
    for k, sample in enumerate(samples):
        patch = sample.patch.shape[0]  # PATCH_PER_CROP crops (models/dice_data.py)
        angle = 90 * int(rng.integers(0, 4)) + rng.uniform(-12, 12)
        scale = math.exp(rng.normal(0, 0.1))
        shift = rng.normal(0, 0.05, 2) * crop_px
        matrix = cv2.getRotationMatrix2D((patch / 2, patch / 2), angle, scale)
        matrix[:, 2] += shift + (crop_px - patch) / 2
        # slant first, so that without it the random numbers drawn are the ones drawn before it
        if slant > 0 and rng.random() < 0.5:
            squash = slant_matrix(patch, 1.0 - rng.uniform(0, slant), rng.uniform(0, math.pi))
            matrix = (np.vstack([matrix, [0, 0, 1]]) @ squash)[:2]
        if rng.random() < 0.5:
            matrix = np.array([[-1, 0, crop_px], [0, 1, 0]], np.float64) @ np.vstack([matrix, [0, 0, 1]])
        image = cv2.warpAffine(sample.patch, matrix, (crop_px, crop_px), borderMode=cv2.BORDER_REPLICATE)
        if rng.random() < 0.2:
            image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.4, 1.2))
        # drawn only with motion, so that without it the random numbers are the ones drawn before
        if motion > 0 and rng.random() < 1 / 3:
            length = rng.uniform(1.5, max(1.5, motion * crop_px))
            image = cv2.filter2D(image, -1, motion_kernel(length, rng.uniform(0, math.pi)))
        images[k] = recolour(image, rng)
        labels[k] = sample.label
        if sample.box is not None:
            x0, y0, x1, y1 = sample.box
            corners = np.array([[x0, y0, 1], [x1, y0, 1], [x0, y1, 1], [x1, y1, 1]]) @ matrix.T
            boxes[k] = (*corners.min(axis=0), *corners.max(axis=0))
            boxes[k] /= crop_px
            has_box[k] = 1
    tensors = (images, labels, boxes, has_box)
    return tuple(torch.from_numpy(t) for t in tensors)


def reader_loss(net: Reader, batch: tuple[torch.Tensor, ...], weights: torch.Tensor) -> torch.Tensor:
    images, labels, boxes, has_box = batch
    logits, box = net(images.permute(0, 3, 1, 2))
    box_loss = (F.smooth_l1_loss(box, boxes, reduction="none", beta=0.02).sum(1) * has_box).sum()
    return F.cross_entropy(
        logits, labels, weight=weights, label_smoothing=0.02
    ) + 2 * box_loss / has_box.sum().clamp(min=1)


# --- training --------------------------------------------------------------------------------


def train(
    net: nn.Module,
    steps: int,
    lr: float,
    step_loss: Callable[[], torch.Tensor],
    label: str,
    frozen_norms: bool = False,
) -> None:
    """AdamW with a one-cycle learning rate for ``steps`` batches; progress on stderr.
    ``frozen_norms`` keeps each batch norm's statistics as they are (a network taken back out
    of an ONNX file has them folded away, and batch statistics would undo that)."""
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, lr, total_steps=steps, pct_start=0.15)
    started, total = time.monotonic(), 0.0
    net.train()
    if frozen_norms:
        for module in net.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.eval()
    for step in range(1, steps + 1):
        loss = step_loss()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        total += float(loss.detach())
        if step % 100 == 0 or step == steps:
            print(
                f"{label} step {step}/{steps}: loss {total / 100:.4f}, {time.monotonic() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
            total = 0.0
    net.eval()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--part",
        choices=("finder", "reader", "both", "export"),
        default="both",
        help="train the finder (to build/), then the reader on the finder's spots and export both",
    )
    parser.add_argument("--synthetic", type=int, default=1000, help="rendered trays to train on")
    parser.add_argument(
        "--real-repeat", type=int, default=5, help="how often each real photograph is seen per pass"
    )
    parser.add_argument(
        "--reader-real-repeat", type=int, default=1, help="how often each real crop is seen per pass"
    )
    parser.add_argument(
        "--reader-width",
        type=float,
        default=1.0,
        help="the reader's channels, times the first reader's (--part export reads it from the weights)",
    )
    parser.add_argument(
        "--crop-px",
        type=int,
        default=CROP_PX,
        help="the reader's input side, an even number of pixels (kept beside its weights for --part export)",
    )
    parser.add_argument(
        "--slant",
        type=float,
        default=0.0,
        help="squash half the reader's crops by up to this share along a random direction (0 to 0.6)",
    )
    parser.add_argument(
        "--motion",
        type=float,
        default=0.0,
        help="smear a third of the reader's crops by up to this share of the crop (0 to 0.3)",
    )
    parser.add_argument("--finder-steps", type=int, default=1000)
    parser.add_argument("--reader-steps", type=int, default=3000)
    parser.add_argument("--finder-lr", type=float, default=3e-3)
    parser.add_argument(
        "--hand-weight", type=float, default=1.0, help="weight of the hand map in the finder's loss"
    )
    parser.add_argument(
        "--hand-pos-weight", type=float, default=30.0, help="weight of a hand cell against a bare one"
    )
    parser.add_argument(
        "--hand-repeat", type=int, default=0, help="extra times each tray with a hand is seen"
    )
    parser.add_argument(
        "--init", action="store_true", help="go on from the finder in build/ (to fine-tune it)"
    )
    parser.add_argument(
        "--finder-onnx",
        help="start from the finder of this dice.onnx (no torch weights needed in build/): with --part "
        "reader, kept as it is; with --part finder or both, fine-tuned with its batch norms frozen",
    )
    parser.add_argument(
        "--photos",
        choices=("train", "fit"),
        default="train",
        help="the real photographs to learn from: the training split, or all of it but one fold "
        "('fit', with --fold), to judge a recipe on that fold (evaluate_dice --split fold)",
    )
    parser.add_argument("--fold", type=int, choices=range(FOLDS), help="with --photos fit: the fold left out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--out", help="the ONNX file to write (models/dice.onnx; with --photos fit, build/dice-foldK.onnx)"
    )
    args = parser.parse_args(argv)
    if (args.fold is None) != (args.photos != "fit"):
        parser.error("--photos fit and --fold K go together: the fold left out is to be named")
    if args.fold is not None and args.part == "export":
        parser.error("a fold's reader is exported by the run that trains it, never into models/")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    Path("build").mkdir(exist_ok=True)
    # a fold's networks are kept apart, so that --part export never ships one
    suffix = "" if args.fold is None else f"-fold{args.fold}"
    finder_path = Path("build") / f"dice-finder{suffix}.pt"
    reader_path = Path("build") / f"dice-reader{suffix}.pt"
    if args.out is None:
        args.out = str(HERE / "dice.onnx") if args.fold is None else f"build/dice-fold{args.fold}.onnx"

    finder = Finder()
    if args.part == "export":  # both networks as they are in build/, into the ONNX file
        weights = torch.load(reader_path)
        # the reader's width, from its weights (its last layer has 96 channels times the width)
        reader = Reader(weights["classes.weight"].shape[1] / 96)
        finder.load_state_dict(torch.load(finder_path))
        reader.load_state_dict(weights)
        export(finder.eval(), reader.eval(), Path(args.out), trained_crop_px(reader_path))
        return 0
    if args.crop_px <= 0 or args.crop_px % 2:
        parser.error(f"--crop-px must be an even number of pixels, not {args.crop_px}")
    if not 0.0 <= args.slant <= 0.6:
        parser.error(f"--slant is a share of the crop between 0 and 0.6, not {args.slant}")
    if args.slant and args.part in ("finder", "export"):
        parser.error("--slant changes how the reader is trained: give it with --part reader or both")
    if not 0.0 <= args.motion <= 0.3:
        parser.error(f"--motion is a share of the crop between 0 and 0.3, not {args.motion}")
    if args.motion and args.part in ("finder", "export"):
        parser.error("--motion changes how the reader is trained: give it with --part reader or both")
    if args.finder_onnx and args.init:
        parser.error("--finder-onnx and --init both choose the finder to start from: give one")
    try:
        real = real_finder_samples(args.photos, args.fold or 0)
    except FileNotFoundError as error:  # the shared photographs are not where they are looked for
        print(f"train_dice: {error}", file=sys.stderr)
        return 2
    synthetic = synthetic_finder_samples(args.synthetic)
    if args.finder_onnx:
        finder = finder_from_onnx(Path(args.finder_onnx))
    elif args.init or args.part == "reader":
        finder.load_state_dict(torch.load(finder_path))
        finder.eval()
    if args.part in ("finder", "both"):
        hands = [sample for sample in synthetic if sample.hand is not None]
        samples = real * args.real_repeat + synthetic + hands * args.hand_repeat
        print(
            f"finder: {len(real)} real photographs x {args.real_repeat}, {len(synthetic)} rendered trays",
            file=sys.stderr,
        )

        def finder_step() -> torch.Tensor:
            chosen = rng.choice(len(samples), 24, replace=False)
            batch = finder_batch([samples[i] for i in chosen], rng)
            return finder_loss(finder, batch, args.hand_weight, args.hand_pos_weight)

        train(
            finder,
            args.finder_steps,
            args.finder_lr,
            finder_step,
            "finder",
            frozen_norms=folded_norms(finder),
        )
        torch.save(finder.state_dict(), finder_path)
        if args.part == "finder":
            return 0

    # spots down to a lower threshold than the reader's: the finder knows its own training
    # pictures better than new ones, and the reader must learn what it then finds there
    def find(picture: np.ndarray) -> list[Candidate]:
        return run_finder(finder, picture, HARVEST_THRESHOLD)

    real_crops = harvest(real, find, args.crop_px)
    crops = real_crops * args.reader_real_repeat + harvest(synthetic, find, args.crop_px)
    counts = np.bincount([c.label for c in crops], minlength=len(READ_CLASSES))
    print(
        "reader crops: " + ", ".join(f"{n} {c}" for n, c in zip(READ_CLASSES, counts, strict=True)),
        file=sys.stderr,
    )
    # classes weighted towards even, so that the few cocked dice count
    weights = torch.tensor(
        (counts.sum() / np.maximum(counts, 1) / len(READ_CLASSES)) ** 0.5, dtype=torch.float32
    )
    reader = Reader(args.reader_width)

    def reader_step() -> torch.Tensor:
        chosen = rng.choice(len(crops), 64, replace=False)
        batch = reader_batch([crops[i] for i in chosen], rng, args.crop_px, args.slant, args.motion)
        return reader_loss(reader, batch, weights)

    train(reader, args.reader_steps, 3e-3, reader_step, "reader")
    torch.save(reader.state_dict(), reader_path)
    reader_path.with_suffix(".json").write_text(
        json.dumps({"crop_px": args.crop_px}) + "\n", encoding="utf-8"
    )
    export(finder, reader, Path(args.out), args.crop_px)
    return 0


def export(finder: Finder, reader: Reader, out: Path, crop_px: int = CROP_PX) -> None:
    """Both networks into one ONNX file, with the labels file beside it."""
    torch.onnx.export(
        Exported(finder, reader),
        (torch.zeros(1, FIND_PX * 3 // 4, FIND_PX, 3), torch.zeros(2, crop_px, crop_px, 3)),
        str(out),
        input_names=["tray", "crops"],
        output_names=["maps", "read_probs", "read_boxes"],
        dynamic_axes={
            "tray": {0: "n", 1: "h", 2: "w"},
            "crops": {0: "m"},
            "maps": {0: "n", 2: "mh", 3: "mw"},
            "read_probs": {0: "m"},
            "read_boxes": {0: "m"},
        },
        opset_version=17,
        dynamo=False,
    )
    labels = {
        "read_classes": list(READ_CLASSES),
        "finder_px": FIND_PX,
        "stride": STRIDE,
        "crop_px": crop_px,
        "maps": ["centre", "dx", "dy", "log_width", "log_height", "hand"],
    }
    labels_path = out.with_suffix(".labels.json")
    labels_path.write_text(json.dumps(labels, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and {labels_path}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
