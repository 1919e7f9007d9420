"""What the dice model's networks learn from (models/training/train_dice.py): batches of whole trays for
the finder and of crops for the reader, with the changes of light, colour, angle, slant and
motion that stand in for trays and dice never photographed, and each network's loss."""

from __future__ import annotations

import math

import cv2
import numpy as np
import torch
from torch.nn import functional as F

from companion.vision.dice_model import CROP_PX, STRIDE
from models.training.dice_data import FinderSample, ReadSample
from models.training.dice_nets import Finder, Reader

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
    hand_loss = F.binary_cross_entropy_with_logits(
        out[:, 5], hand, pos_weight=torch.tensor(hand_pos_weight, device=hand.device)
    )
    return centre_loss + offset + 0.5 * size + hand_weight * hand_loss


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
    slant_real_only: bool = False,
) -> tuple[torch.Tensor, ...]:
    """Each kept patch turned by a multiple of 90 degrees and a few more, flipped, shifted and
    scaled a little, cut to ``crop_px``, recoloured; its pip box moved with it. With ``slant``,
    half the patches are also squashed by up to that share along a random direction, as a face
    looks from a camera that is not straight above it; with ``slant_real_only``, only patches cut
    from photographs may be (a squashed rendered face looks like a rendered cocked die's), and
    rendered ones draw no numbers for it. With ``motion``, a third are smeared along a random
    direction by up to that share of the crop, as by a camera that moved."""
    n = len(samples)
    images = np.zeros((n, crop_px, crop_px, 3), np.float32)
    labels = np.zeros(n, np.int64)
    boxes = np.zeros((n, 4), np.float32)
    has_box = np.zeros(n, np.float32)
    for k, sample in enumerate(samples):
        patch = sample.patch.shape[0]  # PATCH_PER_CROP crops (models/training/dice_data.py)
        angle = 90 * int(rng.integers(0, 4)) + rng.uniform(-12, 12)
        scale = math.exp(rng.normal(0, 0.1))
        shift = rng.normal(0, 0.05, 2) * crop_px
        matrix = cv2.getRotationMatrix2D((patch / 2, patch / 2), angle, scale)
        matrix[:, 2] += shift + (crop_px - patch) / 2
        # slant first, so that without it the random numbers drawn are the ones drawn before it
        if slant > 0 and (sample.real or not slant_real_only) and rng.random() < 0.5:
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
