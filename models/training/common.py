"""What the two training scripts share: the epoch loop with its progress lines, and saving the
weights and the ONNX file that ships. Needs the optional ``train`` extra (torch)."""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

try:
    import torch
except ModuleNotFoundError as missing:  # torch is for training only, never in the runtime
    raise SystemExit(
        "training needs torch and onnx: .venv/bin/pip install -e '.[train]' (models/README.md)"
    ) from missing
from torch import nn


def training_parser(doc: str | None, out: Path, epochs: int) -> argparse.ArgumentParser:
    """The options both training scripts take."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, nargs="+", help="training data (npz), one file or more")
    parser.add_argument("--test", help="held-out data to report on after each epoch")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--init", help="start from these weights (a .pt this script saved) to fine-tune")
    parser.add_argument("--out", default=str(out))
    return parser


def load_data(args: argparse.Namespace, keys: tuple[str, ...]) -> list[np.ndarray]:
    """Seed torch and set its threads as asked; the arrays ``keys`` of every --data file, joined."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    files = [np.load(path) for path in args.data]
    return [np.concatenate([f[key] for f in files]) for key in keys]


def fit(
    net: nn.Module,
    samples: int,
    loss_of: Callable[[np.ndarray], torch.Tensor],
    rng: np.random.Generator,
    args: argparse.Namespace,
    report: Callable[[], dict[str, float]] | None = None,
) -> None:
    """Train ``net`` on ``samples`` items in shuffled batches (AdamW, one-cycle learning rate);
    ``args`` gives the epochs, the batch size and the peak learning rate.

    ``loss_of`` gets the sorted indices of one batch (sorted, so reads from the big arrays stay
    in order) and returns its loss; ``report`` gives held-out figures after each epoch."""
    epochs, batch, lr = args.epochs, args.batch, args.lr
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * math.ceil(samples / batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, lr, total_steps=steps, pct_start=0.15)
    print(f"{samples} training samples, {steps} steps", file=sys.stderr)
    started = time.monotonic()
    for epoch in range(1, epochs + 1):
        net.train()
        order = rng.permutation(samples)
        total = 0.0
        step = 0
        for step, start in enumerate(range(0, samples, batch), start=1):
            loss = loss_of(np.sort(order[start : start + batch]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
            if step % 100 == 0:
                print(f"  epoch {epoch} step {step}: loss {total / step:.4f}", file=sys.stderr, flush=True)
        line = f"epoch {epoch}/{epochs}: loss {total / max(1, step):.4f}, {time.monotonic() - started:.0f} s"
        if report is not None:
            line += ", held-out " + ", ".join(f"{k} {v:.4%}" for k, v in report().items())
        print(line, file=sys.stderr, flush=True)
    net.eval()


def save(
    net: nn.Module,
    exported: nn.Module,
    examples: tuple[torch.Tensor, ...],
    out: Path,
    inputs: list[str],
    outputs: list[str],
) -> None:
    """The weights to build/NAME.pt (to fine-tune from later; build/ is not committed) and the
    model to ``out`` as ONNX with a dynamic batch size: what ships."""
    Path("build").mkdir(exist_ok=True)
    torch.save(net.state_dict(), Path("build") / (out.stem + ".pt"))
    torch.onnx.export(
        exported,
        examples,
        str(out),
        input_names=inputs,
        output_names=outputs,
        dynamic_axes={name: {0: "n"} for name in inputs + outputs},
        opset_version=17,
        dynamo=False,
    )
