"""Camera pipeline benchmarks (issue 4). Run on one core:

    taskset -c 0 .venv/bin/python benchmarks/bench_vision.py [--check]

* settle-to-event: the frame that completes a settle -> the tile event (checks, motion,
  rectification, changed cells, the model, the rules), for new tiles one after another;
* re-reading a whole board of 76 tiles from one frame (``companion board read``'s work);
* change detection on 1280x720 frames (frame checks + motion + summing the still frames);
* peak RSS of ``companion demo`` (server, camera loop, model, simulator) after a minute of play.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from companion.games.starwars import models as starwars_models

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.games.base import Player, Setup  # noqa: E402
from companion.games.starwars.catalog import load_catalog  # noqa: E402
from companion.games.starwars.reader.board_read import read_board  # noqa: E402
from companion.games.starwars.reader.loop import CameraLoop  # noqa: E402
from companion.games.starwars.reader.tracker import Tracker  # noqa: E402
from companion.games.starwars.sim.play import simulated_game  # noqa: E402
from companion.games.starwars.sim.render import Camera, PlacedTile, Renderer, Scene  # noqa: E402
from companion.table.links import EngineLink  # noqa: E402
from companion.vision.frames import check_frame  # noqa: E402
from companion.vision.mat import STANDARD_MAT  # noqa: E402
from companion.vision.motion import SettleDetector, StillAverage  # noqa: E402
from companion.vision.reader import CellModel  # noqa: E402
from companion.vision.watcher import Watcher  # noqa: E402

STYLE, CAMERA = 10_005, 500_005
TARGETS = {"settle_to_event_ms": 100.0, "reread_76_s": 1.0, "change_fps": 15.0, "rss_mb": 300.0}


def settle_to_event(model: CellModel, tiles: int) -> list[float]:
    link = EngineLink(Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black"))))
    loop = CameraLoop(
        Watcher(model, meeple_model=starwars_models.meeple_model()), Tracker(link, model.labels)
    )
    renderer = Renderer(Camera.from_seed(CAMERA))
    scene = Scene(STANDARD_MAT.board.centre)
    seed = 0

    def frames(count: int) -> list[np.ndarray]:
        nonlocal seed
        out = []
        for _ in range(count):
            seed += 1
            out.append(renderer.render(scene, seed))
        return out

    for frame in frames(6):
        loop.step(frame)
    scene.tiles[(0, 0)] = PlacedTile(load_catalog().start.tile, STYLE)
    for frame in frames(6):
        loop.step(frame)
    timings = []
    bag = [t for t in load_catalog().tiles[1:]]
    for k in range(tiles):
        entry = bag[k % len(bag)]
        options = link.game.legal_placements(entry.tile)
        if not options:
            continue
        cell, _, lying = options[len(options) // 2]
        scene.tiles[cell] = PlacedTile(lying, STYLE, 0, (0.8, -0.6), 1.2)
        before = len(link.events)
        for frame in frames(6):
            started = time.perf_counter()
            loop.step(frame)
            elapsed = time.perf_counter() - started
            if len(link.events) > before:
                timings.append(elapsed * 1000)
                break
    return timings


def reread(model: CellModel) -> tuple[list[float], int]:
    truth = simulated_game(seed=2, players=3)
    renderer = Renderer(Camera.from_seed(CAMERA))
    scene = Scene(STANDARD_MAT.board.centre)
    for cell, tile in truth.game.board.tiles.items():
        scene.tiles[cell] = PlacedTile(tile, STYLE)
    frame = renderer.render(scene, 1)
    timings = []
    tiles = 0
    for _ in range(5):
        started = time.perf_counter()
        result = read_board(frame, model)
        timings.append(time.perf_counter() - started)
        tiles = len(result["cells"])
    return timings, tiles


def change_detection(frames: int = 200) -> float:
    renderer = Renderer(Camera.from_seed(CAMERA))
    scene = Scene(STANDARD_MAT.board.centre)
    sample = [renderer.render(scene, k) for k in range(20)]
    detector = SettleDetector()
    still = StillAverage()
    started = time.perf_counter()
    for k in range(frames):
        frame = sample[k % len(sample)]
        check_frame(frame)
        detector.update(frame)
        # the worst case: every frame is one the watcher sums for the next settling
        if still.count == detector.settle_frames:
            still.reset()
        still.add(frame)
    return frames / (time.perf_counter() - started)


def demo_rss(seconds: float) -> float:
    with tempfile.TemporaryDirectory() as state:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "companion",
                "demo",
                "--fps",
                "10",
                "--port",
                "8765",
                "--state-dir",
                state,
                "--no-mdns",
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        peak = 0.0
        try:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline and process.poll() is None:
                time.sleep(1)
                status = Path(f"/proc/{process.pid}/status").read_text()
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) / 1024)
        finally:
            process.terminate()
            process.wait(10)
    return peak


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a figure misses its target")
    parser.add_argument("--tiles", type=int, default=20)
    parser.add_argument("--rss-seconds", type=float, default=60)
    args = parser.parse_args()
    print(f"cpu affinity: {sorted(os.sched_getaffinity(0))}")
    model = starwars_models.cell_model()
    figures = {}
    timings = settle_to_event(model, args.tiles)
    figures["settle_to_event_ms"] = max(timings)
    print(
        f"settle-to-event, {len(timings)} new tiles: median {statistics.median(timings):.1f} ms, "
        f"slowest {max(timings):.1f} ms (target <= 100 ms)"
    )
    board_times, tiles = reread(model)
    figures["reread_76_s"] = statistics.median(board_times)
    print(
        f"re-read a board of {tiles} tiles from one frame: median {statistics.median(board_times):.3f} s, "
        f"fastest {min(board_times):.3f} s (target <= 1 s)"
    )
    figures["change_fps"] = change_detection()
    print(
        f"change detection (frame checks + motion + still sum) at 1280x720: "
        f"{figures['change_fps']:.0f} frames/s "
        "(target >= 15)"
    )
    figures["rss_mb"] = demo_rss(args.rss_seconds)
    print(
        f"companion demo peak RSS after {args.rss_seconds:.0f} s of play: "
        f"{figures['rss_mb']:.0f} MB (target <= 300)"
    )
    missed = [
        name
        for name, target in TARGETS.items()
        if (figures[name] < target if name == "change_fps" else figures[name] > target)
    ]
    if missed:
        print(f"missed: {', '.join(missed)}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
