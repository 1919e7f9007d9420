"""Train the dice model (the finder and the reader, companion/vision/dice_model.py) and export
both into models/dice/dice.onnx.

Needs the optional ``train`` extra (torch); the companion runs the exported file with
onnxruntime only.

    python -m models.training.train_dice --synthetic 1200

Data: the training split of the shared real photographs (models/training/dice_data.py; the held-out
split is never read here) and rendered trays of the training seeds. First the finder is
trained on whole trays; then it is run over the same trays, and every spot it finds (plus every
labelled die it missed) is cut out as the reader will see it, labelled by the die it matches
(or ``none``), and the reader is trained on those crops. Rendered trays are kept in build/ so a
second run does not render them again. Writes models/dice/dice.onnx, models/dice/dice.labels.json and
the weights to build/dice-finder.pt and build/dice-reader.pt.

    python -m models.training.train_dice --part reader --finder-onnx models/dice/dice.onnx \
        --photos fit --fold 0

trains without fold 0 of the training photographs, to judge a recipe or a rule on it
(docs/research.md, "Dice"), and writes
build/dice-fold0.onnx and the weights to build/dice-reader-fold0.pt: a fold's networks never go
to models/. (Two trainings of one fold at once both write that .pt; each exports its own ONNX
file from memory, so give each its own --out.)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

try:
    import torch
except ModuleNotFoundError as missing:  # torch is for training only, never in the runtime
    raise SystemExit(
        "training needs torch and onnx: .venv/bin/pip install -e '.[train]' (models/README.md)"
    ) from missing
from torch import nn

from companion.vision.dice_model import (
    CROP_PX,
    READ_CLASSES,
    Candidate,
)
from models.training.dice_batches import finder_batch, finder_loss, reader_batch, reader_loss
from models.training.dice_data import (
    COCKED,
    FOLDS,
    harvest,
    real_finder_samples,
    synthetic_finder_samples,
)
from models.training.dice_nets import (
    Finder,
    Reader,
    export,
    finder_from_onnx,
    folded_norms,
    reader_from_onnx,
    run_finder,
    trained_crop_px,
)

HERE = Path(__file__).resolve().parents[1] / "dice"  # where the model files are kept
HARVEST_THRESHOLD = 0.1


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
        "--framed", type=int, default=0, help="rendered trays with frames (wood, felt, card, lids) to add"
    )
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
        "--slant-on",
        choices=("all", "real"),
        default="all",
        help="which crops --slant squashes: all of them, or only those cut from photographs",
    )
    parser.add_argument(
        "--ring",
        type=int,
        default=0,
        help="spots more around each photographed die's top face, off it, for the reader as none (0 to 8)",
    )
    parser.add_argument(
        "--motion",
        type=float,
        default=0.0,
        help="smear a third of the reader's crops by up to this share of the crop (0 to 0.3)",
    )
    parser.add_argument(
        "--cocked",
        type=float,
        default=COCKED,
        help=f"the share of rendered training dice drawn cocked (default {COCKED})",
    )
    parser.add_argument("--finder-steps", type=int, default=1000)
    parser.add_argument("--reader-steps", type=int, default=3000)
    parser.add_argument("--finder-lr", type=float, default=3e-3)
    parser.add_argument("--reader-lr", type=float, default=3e-3)
    parser.add_argument(
        "--reader-onnx",
        help="start the reader from the reader of this dice.onnx, trained on with its batch norms frozen "
        "(its width is the file's: --reader-width is not used)",
    )
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
    parser.add_argument("--device", default="cpu", help="where torch trains: cpu (the default) or cuda")
    parser.add_argument(
        "--out",
        help="the ONNX file to write (models/dice/dice.onnx; with --photos fit, build/dice-foldK.onnx)",
    )
    args = parser.parse_args(argv)
    if (args.fold is None) != (args.photos != "fit"):
        parser.error("--photos fit and --fold K go together: the fold left out is to be named")
    if args.fold is not None and args.part == "export":
        parser.error("a fold's reader is exported by the run that trains it, never into models/")
    if args.crop_px <= 0 or args.crop_px % 2:
        parser.error(f"--crop-px must be an even number of pixels, not {args.crop_px}")
    if not 0.0 <= args.slant <= 0.6:
        parser.error(f"--slant is a share of the crop between 0 and 0.6, not {args.slant}")
    if args.slant and args.part in ("finder", "export"):
        parser.error("--slant changes how the reader is trained: give it with --part reader or both")
    if args.slant_on == "real" and not args.slant:
        parser.error("--slant-on real says which crops --slant squashes: give --slant too")
    if not 0 <= args.ring <= 8:  # 8 already outnumbers the photographs' dice crops eight to one
        parser.error(f"--ring is a number of spots around each die, 0 to 8, not {args.ring}")
    if args.ring and args.part in ("finder", "export"):
        parser.error("--ring changes how the reader is trained: give it with --part reader or both")
    if not 0.0 <= args.cocked <= 1.0:
        parser.error(f"--cocked is a share of the rendered dice between 0 and 1, not {args.cocked}")
    if not 0.0 <= args.motion <= 0.3:
        parser.error(f"--motion is a share of the crop between 0 and 0.3, not {args.motion}")
    if args.motion and args.part in ("finder", "export"):
        parser.error("--motion changes how the reader is trained: give it with --part reader or both")
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
    if args.finder_onnx and args.init:
        parser.error("--finder-onnx and --init both choose the finder to start from: give one")
    try:
        real = real_finder_samples(args.photos, args.fold or 0)
    except FileNotFoundError as error:  # the shared photographs are not where they are looked for
        print(f"train_dice: {error}", file=sys.stderr)
        return 2
    synthetic = synthetic_finder_samples(args.synthetic, cocked=args.cocked)
    if args.framed:
        synthetic += synthetic_finder_samples(args.framed, cocked=args.cocked, framed=True)
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
            batch = tuple(t.to(args.device) for t in finder_batch([samples[i] for i in chosen], rng))
            return finder_loss(finder, batch, args.hand_weight, args.hand_pos_weight)

        finder.to(args.device)

        train(
            finder,
            args.finder_steps,
            args.finder_lr,
            finder_step,
            "finder",
            frozen_norms=folded_norms(finder),
        )
        finder.cpu()  # the spots for the reader are found, and the networks exported, on the CPU
        torch.save(finder.state_dict(), finder_path)
        if args.part == "finder":
            return 0

    # spots down to a lower threshold than the reader's: the finder knows its own training
    # pictures better than new ones, and the reader must learn what it then finds there
    def find(picture: np.ndarray) -> list[Candidate]:
        return run_finder(finder, picture, HARVEST_THRESHOLD)

    real_crops = [replace(crop, real=True) for crop in harvest(real, find, args.crop_px, args.ring)]
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
    reader = (
        Reader(args.reader_width) if args.reader_onnx is None else reader_from_onnx(Path(args.reader_onnx))
    )
    reader.to(args.device)
    weights = weights.to(args.device)

    def reader_step() -> torch.Tensor:
        chosen = rng.choice(len(crops), 64, replace=False)
        batch = reader_batch(
            [crops[i] for i in chosen], rng, args.crop_px, args.slant, args.motion, args.slant_on == "real"
        )
        return reader_loss(reader, tuple(t.to(args.device) for t in batch), weights)

    train(reader, args.reader_steps, args.reader_lr, reader_step, "reader", frozen_norms=folded_norms(reader))
    reader.cpu()
    torch.save(reader.state_dict(), reader_path)
    reader_path.with_suffix(".json").write_text(
        json.dumps({"crop_px": args.crop_px}) + "\n", encoding="utf-8"
    )
    export(finder, reader, Path(args.out), args.crop_px)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
