"""Train the cell model (tile structure and rotation, meeples by spot) and export it to ONNX.

Needs the optional ``train`` extra (torch); the companion itself only runs the exported file
with onnxruntime.

    python -m models.training.cell_data --frames 760 --out build/cells-train.npz
    python -m models.training.cell_data --frames 60 --held-out --out build/cells-heldout.npz
    python -m models.training.train_cells --data build/cells-train.npz --test build/cells-heldout.npz

Writes models/starwars/cells.onnx and models/starwars/cells.labels.json. Same seed, same data, same machine:
same weights (torch's CPU kernels are deterministic with one thread pool as set below).
"""

from __future__ import annotations

import itertools
import json
import sys
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

from companion.games.starwars.spots import SPOTS
from companion.games.starwars.tiles import Tile, parse_tile
from companion.vision.labels import MEEPLE_CLASSES
from companion.vision.mat import CROP_PX
from models.training.cell_data import MARGIN, TEST_ONLY, labels
from models.training.common import fit, load_data, save, training_parser

HERE = Path(__file__).resolve().parents[1] / "starwars"  # where the model files are kept
EMBEDDING = 128


def block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


def trunk(inputs: int, first: int) -> nn.Sequential:
    """The convolutional part both models share in shape: a 64x64 window down to 96 maps of 4x4."""
    return nn.Sequential(
        block(inputs, first),
        nn.MaxPool2d(2),  # 32
        block(first, 32),
        block(32, 32),
        nn.MaxPool2d(2),  # 16
        block(32, 64),
        block(64, 64),
        nn.MaxPool2d(2),  # 8
        block(64, 96),
        nn.MaxPool2d(2),  # 4
    )


class CellNet(nn.Module):
    """A small CNN for one 64x64 cell window (BGR, 0..255): tile class, meeples per spot, and an
    embedding of the tile's look (for enrolling new tile art later)."""

    def __init__(self, tile_classes: int, spots: int = len(SPOTS), meeple_classes: int = len(MEEPLE_CLASSES)):
        super().__init__()
        self.spots, self.meeple_classes = spots, meeple_classes
        # 4x4 at the end keeps where things are, which the tile's rotation depends on
        self.features = trunk(3, 16)
        self.embed = nn.Sequential(nn.Flatten(), nn.Linear(96 * 16, EMBEDDING), nn.ReLU(inplace=True))
        self.tile_head = nn.Linear(EMBEDDING, tile_classes)
        self.meeple_head = nn.Sequential(
            nn.Flatten(),
            nn.Linear(96 * 16, 128),
            nn.ReLU(inplace=True),
            nn.Linear(128, spots * meeple_classes),
        )

    def forward(self, crops: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x = crops / 255.0 - 0.5
        h = self.features(x)
        embedding = self.embed(h)
        tile_logits = self.tile_head(embedding)
        meeple_logits = self.meeple_head(h).view(-1, self.spots, self.meeple_classes)
        return tile_logits, meeple_logits, embedding


class Exported(nn.Module):
    """What ships: probabilities rather than logits, NHWC uint8-range input as OpenCV gives it."""

    def __init__(self, net: CellNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, crops: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        tile_logits, meeple_logits, embedding = self.net(crops.permute(0, 3, 1, 2))
        return F.softmax(tile_logits, dim=1), F.softmax(meeple_logits, dim=2), F.normalize(embedding, dim=1)


def rotation_table(classes: list[str | dict]) -> np.ndarray:
    """For each class and quarter turn (clockwise), the class of the tile turned that way."""
    tiles: dict[int, Tile] = {}
    index_of: dict[Tile, int] = {}
    for i, c in enumerate(classes):
        if isinstance(c, dict):
            tile = parse_tile(c)
            tiles[i] = tile
            index_of[tile] = i
    table = np.zeros((len(classes), 4), np.int64)
    for i in range(len(classes)):
        for q in range(4):
            table[i, q] = index_of[tiles[i].rotated(q)] if i in tiles else i
    return table


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Shift within the margin, change light, colour and noise: the camera's variety."""
    n = len(batch)
    out = np.empty((n, CROP_PX, CROP_PX, 3), np.float32)
    shifts = rng.integers(0, 2 * MARGIN + 1, (n, 2))
    for k in range(n):
        dy, dx = shifts[k]
        out[k] = batch[k, dy : dy + CROP_PX, dx : dx + CROP_PX]
    gain = rng.uniform(0.7, 1.3, (n, 1, 1, 1)) * rng.uniform(0.9, 1.1, (n, 1, 1, 3))
    mean = out.mean(axis=(1, 2, 3), keepdims=True)
    contrast = rng.uniform(0.8, 1.2, (n, 1, 1, 1))
    out = (out - mean) * contrast + mean
    out = out * gain + rng.normal(0, 1, (n, 1, 1, 1)) * 8
    out += rng.normal(0, 1, out.shape).astype(np.float32) * rng.uniform(0, 6, (n, 1, 1, 1))
    return np.clip(out, 0, 255).astype(np.float32)


GREY = np.array([0.114, 0.587, 0.299], np.float32)  # BGR weights of brightness


SWAPS = [list(p) for p in itertools.permutations(range(3)) if p != (0, 1, 2)]


def hue_turn(angle: float) -> np.ndarray:
    """A 3x3 colour matrix that turns hues by ``angle`` (radians) about the grey axis, leaving
    greys as they are."""
    axis = np.ones(3, np.float32) / np.sqrt(3)
    cross = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]], np.float32)
    return (
        np.eye(3, dtype=np.float32) * np.cos(angle)
        + np.sin(angle) * cross
        + (1 - np.cos(angle)) * np.outer(axis, axis)
    )


def repaint(batch: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """Change the art's look, not its structure, in ``share`` of ``batch`` (in place): turn the
    hues, swap the colour channels, go grey, invert, stretch or flatten the contrast, blur. A box
    may print any colour where the training art had another; structure is what must be read.
    Returns which windows had their colours changed (their meeples' colours are no longer true)."""
    n = len(batch)
    chosen = rng.random(n) < share
    recoloured = np.zeros(n, bool)
    for k in np.nonzero(chosen)[0]:
        window = batch[k]
        pick = rng.random()
        if pick < 0.35:
            window[:] = window @ hue_turn(rng.uniform(0.3, 2 * np.pi - 0.3)).T
            recoloured[k] = True
        elif pick < 0.6:
            window[:] = window[..., SWAPS[rng.integers(len(SWAPS))]]
            recoloured[k] = True
        elif pick < 0.75:
            window[:] = (window @ GREY)[..., None]
            recoloured[k] = True
        if rng.random() < 0.2:
            window[:] = 255 - np.clip(window, 0, 255)
            recoloured[k] = True
        if rng.random() < 0.4:
            mean = window.mean()
            window[:] = (window - mean) * rng.uniform(0.5, 1.6) + mean
        if rng.random() < 0.3:
            window[:] = cv2.GaussianBlur(window, (0, 0), rng.uniform(0.5, 1.5))
    np.clip(batch, 0, 255, out=batch)
    return recoloured


def centre(batch: np.ndarray) -> np.ndarray:
    return batch[:, MARGIN : MARGIN + CROP_PX, MARGIN : MARGIN + CROP_PX].astype(np.float32)


def evaluate(net: CellNet, crops: np.ndarray, tiles: np.ndarray, meeples: np.ndarray) -> dict[str, float]:
    net.eval()
    tile_right = meeple_right = cells_with_meeples = 0
    meeple_cells_right = 0
    with torch.no_grad():
        for start in range(0, len(crops), 512):
            x = torch.from_numpy(centre(crops[start : start + 512])).permute(0, 3, 1, 2)
            tile_logits, meeple_logits, _ = net(x)
            tile_right += int((tile_logits.argmax(1).numpy() == tiles[start : start + 512]).sum())
            predicted = meeple_logits.argmax(2).numpy()
            truth = meeples[start : start + 512]
            meeple_right += int((predicted == truth).all(axis=1).sum())
            has = (truth > 0).any(axis=1)
            cells_with_meeples += int(has.sum())
            meeple_cells_right += int(((predicted == truth).all(axis=1) & has).sum())
    n = len(crops)
    return {
        "tile_error": 1 - tile_right / n,
        "meeple_cell_error": 1 - meeple_right / n,
        "meeple_error_where_present": 1 - meeple_cells_right / max(1, cells_with_meeples),
    }


def main(argv: list[str] | None = None) -> int:
    parser = training_parser(__doc__, HERE / "cells.onnx", epochs=10)
    parser.add_argument(
        "--repaint", type=float, default=0.0, help="share of each batch whose art's look is changed (repaint)"
    )
    args = parser.parse_args(argv)
    for path in args.data:
        if str(np.load(path).get("split", "")) in TEST_ONLY:
            raise SystemExit(f"{path} is test-only data (the unseen art): never train on it")
    crops, tiles, meeples = load_data(args, ("crops", "tiles", "meeples"))
    rng = np.random.default_rng(args.seed)
    test = np.load(args.test) if args.test else None
    label_set = labels()
    classes = list(label_set.classes)
    turn = rotation_table(classes)
    net = CellNet(len(classes))
    if args.init:
        net.load_state_dict(torch.load(args.init))

    def loss_of(index: np.ndarray) -> torch.Tensor:
        batch = augment(crops[index], rng)
        recoloured = repaint(batch, rng, args.repaint)
        tile_target = tiles[index].copy()
        # A quarter of the batch is turned by 1-3 quarter turns: the tile class turns with it.
        # Meeples stand upright on the table, so turned crops teach tiles only; so do repainted
        # ones, whose meeples no longer have their colours.
        turns = np.where(rng.random(len(index)) < 0.25, rng.integers(1, 4, len(index)), 0)
        for k in np.nonzero(turns)[0]:
            batch[k] = np.rot90(batch[k], -turns[k])  # clockwise
            tile_target[k] = turn[tile_target[k], turns[k]]
        x = torch.from_numpy(np.ascontiguousarray(batch)).permute(0, 3, 1, 2)
        tile_logits, meeple_logits, _ = net(x)
        loss = F.cross_entropy(tile_logits, torch.from_numpy(tile_target))
        upright = torch.from_numpy((turns == 0) & ~recoloured)
        if upright.any():
            m_logits = meeple_logits[upright].reshape(-1, len(MEEPLE_CLASSES))
            m_target = torch.from_numpy(meeples[index]).reshape(-1)[upright.repeat_interleave(len(SPOTS))]
            loss = loss + F.cross_entropy(m_logits, m_target)
        return loss

    def report() -> dict[str, float]:
        assert test is not None
        return evaluate(net, test["crops"], test["tiles"], test["meeples"])

    print(f"{len(classes)} tile classes", file=sys.stderr)
    fit(net, len(crops), loss_of, rng, args, report if test is not None else None)
    out = Path(args.out)
    save(
        net,
        Exported(net),
        (torch.zeros(2, CROP_PX, CROP_PX, 3),),
        out,
        ["crops"],
        ["tile_probs", "meeple_probs", "embedding"],
    )
    labels_path = out.with_suffix(".labels.json")
    labels_path.write_text(json.dumps(label_set.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and {labels_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
