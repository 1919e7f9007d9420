"""onnxruntime's CPU memory arena: what it holds, and what it saves, on the table's models.

    .venv/bin/python benchmarks/bench_onnx_memory.py [--runs 600]

Memory: in a fresh process per setting, the cell and meeple models read batches of changing
size, as a game gives them (1 to 32 windows for the cell model, 1 to 90 cells for the meeple
model), ``--runs`` times; the resident memory after loading and at the end is printed. The
settings: onnxruntime's arena (its default), no arena, and no arena with glibc's allocator set
as ``companion run`` sets it (companion/service/memory.py).
Speed: both settings loaded in one process, the same batches timed in turn (a ratio, so a busy
machine slows both alike). The companion opens its models without the arena
(companion/vision/onnx.py).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

from companion.games.starwars import models as starwars_models
from companion.service.memory import tune_allocator
from companion.vision.onnx import open_session

PARTS = ("arena", "none", "none-tuned")


def resident_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def with_arena(path: Path) -> ort.InferenceSession:
    """The session as onnxruntime opens it by default, but for the threads (as the companion)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def open_pair(arena: bool) -> tuple[ort.InferenceSession, ort.InferenceSession]:
    opener = with_arena if arena else open_session
    return opener(starwars_models.cells_path()), opener(starwars_models.meeples_path())


def windows(rng: np.random.Generator, count: int) -> np.ndarray:
    return rng.uniform(0, 255, (count, 64, 64, 3)).astype(np.float32)


def read_once(
    cells: ort.InferenceSession, meeples: ort.InferenceSession, rng: np.random.Generator, sizes: random.Random
) -> None:
    cells.run(None, {"crops": windows(rng, sizes.randint(1, 32))})
    count = sizes.randint(1, 90)
    meeples.run(None, {"now": windows(rng, count), "bare": windows(rng, count)})


def memory(arena: bool, runs: int) -> dict[str, float]:
    cells, meeples = open_pair(arena)
    rng, sizes = np.random.default_rng(1), random.Random(1)
    loaded = resident_mib()
    for _ in range(runs):
        read_once(cells, meeples, rng, sizes)
    return {"loaded_mib": round(loaded, 1), "end_mib": round(resident_mib(), 1)}


def speed(runs: int) -> dict[str, float]:
    """Median milliseconds of one cell-model batch of 32 and one meeple batch of 16, both ways."""
    pairs = {True: open_pair(True), False: open_pair(False)}
    rng = np.random.default_rng(2)
    timings: dict[str, list[float]] = {
        key: [] for key in ("cells_arena", "cells_none", "meeples_arena", "meeples_none")
    }
    cells_in, meeples_in = windows(rng, 32), windows(rng, 16)
    for _ in range(runs):
        for arena in (True, False):
            cells, meeples = pairs[arena]
            suffix = "arena" if arena else "none"
            started = time.perf_counter()
            cells.run(None, {"crops": cells_in})
            timings[f"cells_{suffix}"].append(time.perf_counter() - started)
            started = time.perf_counter()
            meeples.run(None, {"now": meeples_in, "bare": meeples_in})
            timings[f"meeples_{suffix}"].append(time.perf_counter() - started)
    return {key: round(statistics.median(values) * 1000, 2) for key, values in timings.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=600)
    parser.add_argument("--part", choices=PARTS, help=argparse.SUPPRESS)  # a child's part
    args = parser.parse_args()
    if args.part:
        if args.part == "none-tuned":
            tune_allocator()
        print(json.dumps(memory(args.part == "arena", args.runs)))
        return 0
    result: dict[str, object] = {}
    for part in PARTS:
        print(f"memory, {part} ...", file=sys.stderr, flush=True)
        child = subprocess.run(
            [sys.executable, __file__, "--part", part, "--runs", str(args.runs)],
            capture_output=True,
            text=True,
            check=True,
        )
        result[f"memory_{part}"] = json.loads(child.stdout)
    print("speed ...", file=sys.stderr, flush=True)
    result["speed_ms"] = speed(max(50, args.runs // 4))
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
