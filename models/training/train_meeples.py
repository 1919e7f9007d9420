"""Train the meeple model (what stands at each spot of a cell, from the cell now and bare) and
export it to ONNX.

Needs the optional ``train`` extra (torch); the companion runs the exported file with
onnxruntime only.

    python -m models.training.meeple_data --frames 420 --out build/meeples-train.npz
    python -m models.training.meeple_data --frames 150 --held-out --out build/meeples-heldout.npz
    python -m models.training.train_meeples --data build/meeples-train.npz --test build/meeples-heldout.npz

and then, to fine-tune on more data (models/starwars/meeples.md):

    python -m models.training.train_meeples --data build/meeples-train.npz build/meeples-hard.npz \
        --test build/meeples-heldout.npz --init build/meeples.pt --epochs 3 --lr 1e-3

Writes models/starwars/meeples.onnx and models/starwars/meeples.labels.json, and the weights to
build/meeples.pt.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

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
from companion.vision.labels import MEEPLE_CLASSES
from companion.vision.mat import CROP_PX
from models.training.cell_data import MARGIN
from models.training.common import fit, load_data, save, training_parser
from models.training.train_cells import trunk

HERE = Path(__file__).resolve().parents[1] / "starwars"  # where the model files are kept


class MeepleNet(nn.Module):
    """A small CNN over a cell now, the same cell bare, and their difference (9 channels):
    the meeple class at each spot."""

    def __init__(self, spots: int = len(SPOTS), classes: int = len(MEEPLE_CLASSES)) -> None:
        super().__init__()
        self.spots, self.classes = spots, classes
        # 4x4 at the end: where a meeple stands is which spot it is on
        self.features = trunk(9, 24)
        self.head = nn.Sequential(
            nn.Flatten(), nn.Linear(96 * 16, 160), nn.ReLU(inplace=True), nn.Linear(160, spots * classes)
        )

    def forward(self, now: torch.Tensor, bare: torch.Tensor) -> torch.Tensor:
        a, b = now / 255.0 - 0.5, bare / 255.0 - 0.5
        logits: torch.Tensor = self.head(self.features(torch.cat([a, b, a - b], dim=1)))
        return logits.view(-1, self.spots, self.classes)


class Exported(nn.Module):
    """What ships: probabilities, NHWC inputs in the 0..255 range as OpenCV gives them."""

    def __init__(self, net: MeepleNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, now: torch.Tensor, bare: torch.Tensor) -> torch.Tensor:
        logits = self.net(now.permute(0, 3, 1, 2), bare.permute(0, 3, 1, 2))
        return F.softmax(logits, dim=2)


def augment(
    now: np.ndarray, bare: np.ndarray, rng: np.random.Generator, device: str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """The same shift for both windows (the lattice is fixed) give or take a pixel of
    rectification jitter; light that drifts a little between the two; fresh noise on each.
    NCHW float tensors on ``device`` (the light and noise are drawn there)."""
    n = len(now)
    out_now = np.empty((n, CROP_PX, CROP_PX, 3), np.uint8)
    out_bare = np.empty_like(out_now)
    shifts = rng.integers(1, 2 * MARGIN, (n, 2))
    jitter = rng.integers(-1, 2, (n, 2)) * (rng.random((n, 1)) < 0.3)
    for k in range(n):
        dy, dx = shifts[k]
        jy, jx = dy + jitter[k, 0], dx + jitter[k, 1]
        out_now[k] = now[k, dy : dy + CROP_PX, dx : dx + CROP_PX]
        out_bare[k] = bare[k, jy : jy + CROP_PX, jx : jx + CROP_PX]

    def drawn(values: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(values.astype(np.float32)).to(device)

    gain = drawn(rng.uniform(0.7, 1.3, (n, 1, 1, 1)) * rng.uniform(0.9, 1.1, (n, 1, 1, 3)))
    drift = drawn(rng.uniform(0.95, 1.05, (n, 1, 1, 1)))
    offset = drawn(rng.normal(0, 1, (n, 1, 1, 1)) * 6)
    generator = torch.Generator(device=device).manual_seed(int(rng.integers(1 << 62)))
    results = []
    for image, extra in ((out_now, 1.0), (out_bare, drift)):
        pixels = torch.from_numpy(image).to(device).float() * gain * extra + offset
        noise = torch.randn(pixels.shape, generator=generator, device=device)
        pixels = pixels + noise * drawn(rng.uniform(0, 5, (n, 1, 1, 1)))
        results.append(pixels.clamp(0, 255).permute(0, 3, 1, 2))
    return results[0], results[1]


def centre(batch: np.ndarray) -> np.ndarray:
    return batch[:, MARGIN : MARGIN + CROP_PX, MARGIN : MARGIN + CROP_PX].astype(np.float32)


def evaluate(
    net: MeepleNet, now: np.ndarray, bare: np.ndarray, meeples: np.ndarray, device: str = "cpu"
) -> dict[str, float]:
    net.eval()
    predicted = []
    with torch.no_grad():
        for start in range(0, len(now), 512):
            a = torch.from_numpy(centre(now[start : start + 512])).permute(0, 3, 1, 2).to(device)
            b = torch.from_numpy(centre(bare[start : start + 512])).permute(0, 3, 1, 2).to(device)
            predicted.append(net(a, b).argmax(2).cpu().numpy())
    guess = np.concatenate(predicted)
    present = meeples > 0
    return {
        "spot_error_where_present": float((guess != meeples)[present].mean()),
        "false_meeples": float((guess > 0)[~present].mean()),
        "cells_exact": float((guess == meeples).all(axis=1).mean()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = training_parser(__doc__, HERE / "meeples.onnx", epochs=8)
    parser.add_argument("--device", default="cpu", help="where torch trains: cpu (the default) or cuda")
    args = parser.parse_args(argv)
    now, bare, meeples = load_data(args, ("now", "bare", "meeples"))
    rng = np.random.default_rng(args.seed)
    test = np.load(args.test) if args.test else None
    net = MeepleNet()
    if args.init:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))
    net.to(args.device)

    def loss_of(index: np.ndarray) -> torch.Tensor:
        a, b = augment(now[index], bare[index], rng, args.device)
        logits = net(a, b)
        target = torch.from_numpy(meeples[index]).reshape(-1).to(args.device)
        return F.cross_entropy(logits.reshape(-1, len(MEEPLE_CLASSES)), target)

    def report() -> dict[str, float]:
        assert test is not None
        return evaluate(net, test["now"], test["bare"], test["meeples"], args.device)

    fit(net, len(now), loss_of, rng, args, report if test is not None else None)
    net.cpu()
    out = Path(args.out)
    example = torch.zeros(2, CROP_PX, CROP_PX, 3)
    save(net, Exported(net), (example, example), out, ["now", "bare"], ["meeple_probs"])
    labels_path = out.with_suffix(".labels.json")
    labels_path.write_text(
        json.dumps({"spots": list(SPOTS), "meeples": list(MEEPLE_CLASSES)}, indent=1) + "\n", encoding="utf-8"
    )
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and {labels_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
