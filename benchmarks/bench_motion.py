"""Speed of the camera frame checks and of change detection (companion/vision).

Run on one core:  taskset -c 0 .venv/bin/python benchmarks/bench_motion.py
  --frames N   how many 1280x720 frames (default 300)

The frames are made first, as in tests/test_motion.py: a table with the mat and tiles, a hand
that reaches in, moves and leaves during part of the sequence, sensor noise and JPEG (quality
70) on every frame. Then each step is timed over all of them, best of three passes. Exits 1 if
change detection runs under 15 frames/s (the camera's rate), which it should beat by far.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import TypeVar

import cv2
import numpy as np

from companion.vision.frames import FrozenDetector, check_frame
from companion.vision.motion import MotionState, SettleDetector

W, H = 1280, 720
TARGET_MOTION_FPS = 15.0
TARGET_CHECK_MS = 5.0  # the aim for check_frame; only reported

T = TypeVar("T")


def table() -> np.ndarray:
    rng = np.random.default_rng(3)
    scene = np.empty((H, W, 3), np.float32)
    scene[:] = (55, 85, 125)
    grain = cv2.resize(rng.normal(0, 6, (H // 4, 4)).astype(np.float32), (W, H))
    scene += grain[..., None]
    mat = cv2.boxPoints(((W / 2, H / 2), (W * 0.78, H * 0.84), 1.2)).astype(np.int32)
    cv2.fillPoly(scene, [mat], (150, 172, 150), lineType=cv2.LINE_AA)
    for _ in range(40):
        x, y = round(rng.uniform(0.2, 0.8) * W), round(rng.uniform(0.15, 0.8) * H)
        cv2.rectangle(scene, (x - 32, y - 32), (x + 32, y + 32), (40, 30, 35), -1)
        colour = tuple(float(c) for c in rng.integers(120, 255, 3))
        cv2.line(scene, (x - 28, y), (x + 28, y), colour, 4, cv2.LINE_AA)
    return cv2.GaussianBlur(scene, (0, 0), 0.7)


def with_hand(scene: np.ndarray, x: float, y: float) -> np.ndarray:
    out = scene.copy()
    cv2.rectangle(out, (round(x) - 60, round(y) + 60), (round(x) + 60, H), (95, 130, 185), -1)
    cv2.rectangle(out, (round(x) - 70, round(y)), (round(x) + 70, round(y) + 120), (120, 160, 215), -1)
    return out


def make_frames(count: int) -> list[np.ndarray]:
    """Still, then a hand for a third of the frames (in, across, out), then still again."""
    scene = table()
    noise = np.empty((H + 64, W + 64, 3), np.float32)
    cv2.setRNGSeed(1)
    cv2.randn(noise, np.zeros(3), np.ones(3))
    rng = np.random.default_rng(2)
    frames = []
    hand_from, hand_to = count // 3, 2 * count // 3
    for k in range(count):
        lit = scene
        if hand_from <= k < hand_to:
            x = 150 + (W - 300) * (k - hand_from) / max(hand_to - hand_from - 1, 1)
            lit = with_hand(scene, x, 300 + 80 * np.sin(k / 5))
        dy, dx = rng.integers(0, 64, 2)  # each frame its own window of the noise
        frame = cv2.addWeighted(lit, 1.0, noise[dy : dy + H, dx : dx + W], 3.0, 0.0, dtype=cv2.CV_8U)
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 70])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
        assert ok and decoded is not None
        frames.append(decoded)
    return frames


def best_of(repeats: int, work: Callable[[], T]) -> tuple[float, T]:
    """Seconds of the fastest of ``repeats`` runs (the least disturbed by the machine), and what
    the work returned."""
    fastest, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = work()
        fastest = min(fastest, time.perf_counter() - start)
    assert result is not None
    return fastest, result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--frames", type=int, default=300)
    args = parser.parse_args()

    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(
        f"python {platform.python_version()} on {platform.machine()}, cores allowed: {cores}, "
        f"OpenCV {cv2.__version__} with {cv2.getNumThreads()} thread(s)"
    )
    print(f"making {args.frames} frames of {W}x{H} ...", flush=True)
    frames = make_frames(args.frames)
    n = len(frames)

    def motion() -> list[MotionState]:
        detector = SettleDetector()
        return [detector.update(frame) for frame in frames]

    def checks() -> list[str | None]:
        return [check_frame(frame).problem for frame in frames]

    def frozen() -> list[bool]:
        detector = FrozenDetector()
        return [detector.update(frame) for frame in frames]

    seconds, states = best_of(3, motion)
    motion_fps = n / seconds
    moving = sum(state.moving for state in states)
    settled = sum(state.settled for state in states)
    print(
        f"SettleDetector.update: {motion_fps:.0f} frames/s, {seconds / n * 1000:.2f} ms a frame "
        f"(target >= {TARGET_MOTION_FPS:.0f} frames/s); {moving} frames moving, {settled} settlings"
    )
    seconds, problems = best_of(3, checks)
    refused = n - problems.count(None)
    print(
        f"check_frame: {n / seconds:.0f} frames/s, {seconds / n * 1000:.2f} ms a frame "
        f"(aim <= {TARGET_CHECK_MS:.0f} ms); {refused} frames refused"
    )
    seconds, stuck = best_of(3, frozen)
    print(
        f"FrozenDetector.update: {n / seconds:.0f} frames/s, {seconds / n * 1000:.2f} ms a frame; "
        f"frozen on {sum(stuck)} frames"
    )

    if motion_fps < TARGET_MOTION_FPS:
        print(f"missed: change detection under {TARGET_MOTION_FPS:.0f} frames/s")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
