"""Motion and settling (companion/vision/motion.py) on synthetic frame sequences.

The table: a brown table, a grey-green mat, dark tiles with bright lines. Every frame gets its
own sensor noise and a JPEG round trip, as a camera gives; a "hand" is a skin-coloured
rectangle with a darker arm drawn over the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache

import cv2
import numpy as np
import pytest

from companion.vision.motion import MotionState, SettleDetector, StillAverage, mean_frame

W, H = 1280, 720
SETTLE = 4


@pytest.fixture(scope="module")
def table() -> np.ndarray:
    """The still table, float32 BGR."""
    rng = np.random.default_rng(3)
    scene = np.empty((H, W, 3), np.float32)
    scene[:] = (55, 85, 125)
    mat = cv2.boxPoints(((W / 2, H / 2), (W * 0.78, H * 0.84), 1.2)).astype(np.int32)
    cv2.fillPoly(scene, [mat], (150, 172, 150), lineType=cv2.LINE_AA)
    for _ in range(20):
        x, y = rng.uniform(0.2, 0.8) * W, rng.uniform(0.15, 0.8) * H
        cv2.rectangle(scene, (round(x) - 32, round(y) - 32), (round(x) + 32, round(y) + 32), (40, 30, 35), -1)
        colour = tuple(float(c) for c in rng.integers(120, 255, 3))
        cv2.line(scene, (round(x) - 28, round(y)), (round(x) + 28, round(y)), colour, 4, cv2.LINE_AA)
    return cv2.GaussianBlur(scene, (0, 0), 0.7)


def with_hand(scene: np.ndarray, x: float, y: float = 380) -> np.ndarray:
    """``scene`` with a hand whose fingertips are at (x, y), the arm reaching down off the frame."""
    out = scene.copy()
    cv2.rectangle(out, (round(x) - 60, round(y) + 60), (round(x) + 60, H), (95, 130, 185), -1)  # arm
    cv2.rectangle(out, (round(x) - 70, round(y)), (round(x) + 70, round(y) + 120), (120, 160, 215), -1)
    return out


def unit_noise(seed: int) -> np.ndarray:
    """Gaussian noise of sigma 1, a little larger than a frame."""
    field = np.empty((H + 64, W + 64, 3), np.float32)
    cv2.setRNGSeed(seed)
    cv2.randn(field, np.zeros(3), np.ones(3))  # a scalar would fill channel 0 only
    return field


shared_noise = cache(unit_noise)


def shoot(
    scene: np.ndarray, seed: int, sigma: float = 3.0, gain: float = 1.0, fresh: bool = False
) -> np.ndarray:
    """One camera frame: the light's ``gain``, sensor noise of ``sigma`` per channel, JPEG 70.

    The noise is a window, placed by ``seed``, of one shared noise field (drawing 2.8 million
    numbers for every frame would make the tests slow), or drawn afresh with ``fresh``.
    """
    field = unit_noise(seed) if fresh else shared_noise(1)
    dy, dx = np.random.default_rng(seed).integers(0, 64, 2)
    frame = cv2.addWeighted(scene, gain, field[dy : dy + H, dx : dx + W], sigma, 0.0, dtype=cv2.CV_8U)
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 70])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    assert ok and decoded is not None
    return decoded


def feed(detector: SettleDetector, frames: Iterable[np.ndarray]) -> list[MotionState]:
    return [detector.update(frame) for frame in frames]


def still(scene: np.ndarray, count: int, start: int = 0) -> Iterator[np.ndarray]:
    return (shoot(scene, start + k) for k in range(count))


def settled_at(states: list[MotionState]) -> list[int]:
    return [k for k, state in enumerate(states) if state.settled]


def test_a_still_table_settles_once(table: np.ndarray) -> None:
    detector = SettleDetector(settle_frames=SETTLE)
    states = feed(detector, still(table, 9))
    assert not any(state.moving for state in states)
    assert settled_at(states) == [SETTLE]  # the first frame has nothing to compare with
    assert [state.still_frames for state in states] == list(range(9))
    assert states[0] == MotionState(moving=False, settled=False, changed_fraction=0.0, still_frames=0)


def test_a_hand_moving_across_then_leaving_gives_one_settling(table: np.ndarray) -> None:
    detector = SettleDetector(settle_frames=SETTLE)
    before = feed(detector, still(table, 6))
    assert settled_at(before) == [SETTLE]
    hand = feed(detector, (shoot(with_hand(table, 200 + 80 * k), 100 + k) for k in range(10)))
    assert all(state.moving and not state.settled for state in hand)
    assert all(state.changed_fraction > 0.01 for state in hand)
    after = feed(detector, still(table, 8, start=200))  # the hand is gone
    assert after[0].moving  # the frame where it left
    assert not any(state.moving for state in after[1:])
    assert settled_at(after) == [SETTLE]  # the 4th still frame after the last motion
    assert after[SETTLE].still_frames == SETTLE


def test_a_hand_that_stops_settles_where_it_rests(table: np.ndarray) -> None:
    detector = SettleDetector(settle_frames=SETTLE)
    feed(detector, still(table, 6))
    moving = feed(detector, (shoot(with_hand(table, 300 + 60 * k), 300 + k) for k in range(10)))
    assert all(state.moving for state in moving[1:])
    resting = with_hand(table, 300 + 60 * 9)
    after = feed(detector, still(resting, 8, start=400))
    assert not any(state.moving for state in after)
    assert settled_at(after) == [SETTLE - 1]  # the last moving frame already showed it resting


def test_a_brief_pause_of_the_hand_does_not_settle(table: np.ndarray) -> None:
    detector = SettleDetector(settle_frames=SETTLE)
    feed(detector, still(table, 6))
    paused = with_hand(table, 500)
    frames = [
        shoot(with_hand(table, 420), 500),
        *still(paused, 3, start=501),
        shoot(with_hand(table, 580), 510),
    ]
    states = feed(detector, frames)
    assert [state.moving for state in states] == [True, True, False, False, True]
    assert settled_at(states) == []


def test_slow_light_drift_is_not_motion(table: np.ndarray) -> None:
    detector = SettleDetector(settle_frames=SETTLE)
    # 0.5 % brighter each frame: 16 % over the sequence, far more than a pixel threshold
    states = feed(detector, (shoot(table, 600 + k, gain=1.005**k) for k in range(32)))
    assert not any(state.moving for state in states)
    assert settled_at(states) == [SETTLE]
    top = 1.005**31
    darker = feed(detector, (shoot(table, 700 + k, gain=top * 0.995**k) for k in range(12)))
    assert not any(state.moving for state in darker)


def test_sensor_noise_redrawn_each_frame_is_not_motion(table: np.ndarray) -> None:
    detector = SettleDetector(settle_frames=SETTLE)
    states = feed(detector, (shoot(table, 800 + k, sigma=4.0, fresh=True) for k in range(10)))
    assert not any(state.moving for state in states)
    assert max(state.changed_fraction for state in states) < detector.moving_fraction / 10


def test_reset_forgets_the_past(table: np.ndarray) -> None:
    detector = SettleDetector(settle_frames=2)
    assert settled_at(feed(detector, still(table, 5))) == [2]
    assert settled_at(feed(detector, still(table, 5, start=10))) == []  # nothing moved since
    detector.reset()
    states = feed(detector, still(table, 5, start=20))
    assert states[0].still_frames == 0
    assert settled_at(states) == [2]  # as after start-up


def test_a_new_frame_size_starts_afresh(table: np.ndarray) -> None:
    detector = SettleDetector(settle_frames=SETTLE)
    feed(detector, still(table, 3))
    assert detector.update(shoot(table, 900)[:, 160:1120]).still_frames == 0  # 4:3


def test_grey_frames_are_accepted_and_other_things_refused(table: np.ndarray) -> None:
    detector = SettleDetector(settle_frames=1)
    grey = cv2.cvtColor(shoot(table, 1), cv2.COLOR_BGR2GRAY)
    assert detector.update(grey).still_frames == 0
    assert detector.update(grey).settled
    for bad in (np.zeros((H, W, 3), np.float32), np.zeros((H, W, 4), np.uint8)):
        with pytest.raises(ValueError):
            detector.update(bad)


@pytest.mark.parametrize(
    "arguments",
    [
        {"downscale": 4},
        {"blur": 4},
        {"moving_fraction": 1.0},
        {"moving_fraction": -0.1},
        {"settle_frames": 0},
    ],
)
def test_bad_settings_are_refused(arguments: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        SettleDetector(**arguments)  # type: ignore[arg-type]


def test_the_mean_of_a_still_scene_has_half_the_noise_of_one_frame(table: np.ndarray) -> None:
    frames = [shoot(table, seed, sigma=6.0, fresh=True) for seed in range(SETTLE)]
    inner = (slice(100, H - 100), slice(100, W - 100))
    one = float(np.std(frames[0][inner].astype(np.float32) - table[inner]))
    mean = float(np.std(mean_frame(frames)[inner].astype(np.float32) - table[inner]))
    assert mean < 0.65 * one  # four frames: sqrt(4) = 2 in theory, less what JPEG already smoothed


def test_the_still_average_starts_afresh_and_refuses_to_average_nothing(table: np.ndarray) -> None:
    average = StillAverage()
    with pytest.raises(ValueError, match="no still frame"):
        average.mean()
    average.add(np.full((4, 4, 3), 10, np.uint8))
    average.add(np.full((4, 4, 3), 20, np.uint8))
    assert average.count == 2 and (average.mean() == 15).all()
    average.add(np.full((2, 2, 3), 7, np.uint8))  # another frame size: the camera changed
    assert average.count == 1 and average.mean().shape == (2, 2, 3) and (average.mean() == 7).all()
    average.reset()
    with pytest.raises(ValueError):
        average.mean()
