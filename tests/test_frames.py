"""Frame quality checks (companion/vision/frames.py) on synthetic camera frames.

A frame is a brown table with a grey-green mat, slightly turned, and dark tiles with bright
lines on it; then the camera's part: a little lens blur, Gaussian sensor noise (sigma 3 unless
said) and a JPEG round trip (quality 70 unless said). Broken frames are made from good ones.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.vision.frames import (
    NOISE_SIGMA_MAX,
    FrameCheck,
    FrozenDetector,
    check_frame,
    find_tear,
    grey_of,
    noise_sigma,
)

W, H = 1280, 720


def table_scene(
    seed: int = 0, angle: float = 1.5, light: float = 1.0, mat_shift: tuple[int, int] = (0, 0)
) -> np.ndarray:
    """The table as light reaches the lens (float32 BGR, before the camera's blur and noise)."""
    rng = np.random.default_rng(seed)
    scene = np.empty((H, W, 3), np.float32)
    scene[:] = (55, 85, 125)  # brown wood
    grain = cv2.resize(rng.normal(0, 6, (H // 4, 4)).astype(np.float32), (W, H))
    scene += grain[..., None]
    centre = (W / 2 + mat_shift[0], H / 2 + mat_shift[1])
    mat = cv2.boxPoints((centre, (W * 0.78, H * 0.84), angle)).astype(np.int32)
    cv2.fillPoly(scene, [mat], (150, 172, 150), lineType=cv2.LINE_AA)
    for _ in range(24):
        x, y = rng.uniform(0.18, 0.8) * W, rng.uniform(0.15, 0.8) * H
        tile = cv2.boxPoints(((x, y), (64, 64), angle + rng.uniform(-3, 3))).astype(np.int32)
        cv2.fillPoly(scene, [tile], (40, 30, 35), lineType=cv2.LINE_AA)
        colour = tuple(float(c) for c in rng.integers(120, 255, 3))
        end = (30, 0) if rng.random() < 0.5 else (0, 30)
        start_xy = (round(x - end[0]), round(y - end[1]))
        end_xy = (round(x + end[0]), round(y + end[1]))
        cv2.line(scene, start_xy, end_xy, colour, 4, cv2.LINE_AA)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    vignette = light * (1 - 0.3 * ((xx / W - 0.5) ** 2 + (yy / H - 0.5) ** 2))
    lit: np.ndarray = scene * vignette[..., None]
    return lit


def camera(
    scene: np.ndarray, sigma: float = 3.0, quality: int | None = 70, blur: float = 0.7, seed: int = 0
) -> np.ndarray:
    """What the camera gives for ``scene``: lens blur, sensor noise, JPEG."""
    image = cv2.GaussianBlur(scene, (0, 0), blur) if blur > 0 else scene.copy()
    if sigma > 0:
        noise = np.empty_like(image)
        cv2.setRNGSeed(seed)
        cv2.randn(noise, np.zeros(3), np.full(3, sigma))  # a scalar would fill channel 0 only
        image += noise
    frame = np.clip(image, 0, 255).astype(np.uint8)
    if quality is not None:
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return frame


@pytest.fixture(scope="module")
def scene() -> np.ndarray:
    return table_scene()


@pytest.fixture(scope="module")
def frame(scene: np.ndarray) -> np.ndarray:
    return camera(scene)


def problem(frame: object, previous: np.ndarray | None = None) -> str | None:
    check = check_frame(frame, previous)  # type: ignore[arg-type]
    assert isinstance(check, FrameCheck)
    assert check.ok == (check.problem is None)
    assert (check.message == "") == check.ok
    return check.problem


# --- good frames --------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "angle", "sigma"), [(0, 1.5, 3), (1, 0.5, 2), (2, -2.0, 4), (3, 3.0, 3)])
def test_a_normal_frame_passes(seed: int, angle: float, sigma: float) -> None:
    frame = camera(table_scene(seed, angle), sigma=sigma, seed=seed)
    assert check_frame(frame) == FrameCheck(True, None, "")
    assert check_frame(frame, previous=camera(table_scene(seed, angle), sigma=sigma, seed=seed + 1)).ok


def test_a_frame_is_not_changed_and_may_be_a_view(frame: np.ndarray) -> None:
    before = frame.copy()
    assert check_frame(frame).ok
    assert np.array_equal(frame, before)
    assert check_frame(frame[40:680, 100:1200]).ok  # a crop: not contiguous in memory
    assert check_frame(cv2.resize(frame, (640, 360), interpolation=cv2.INTER_AREA)).ok


def test_a_dim_table_is_not_black(scene: np.ndarray) -> None:
    frame = camera(scene * 0.25, sigma=2)  # mean grey about 30: dark, but the tiles show
    assert problem(frame) is None


# --- not an image ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "thing",
    [
        None,
        "frame.jpg",
        [[0, 0, 0]],
        np.zeros((720, 1280, 3), np.float32),
        np.zeros((720, 1280), np.uint8),
        np.zeros((720, 1280, 4), np.uint8),
        np.zeros((720, 1280, 3, 1), np.uint8),
        np.zeros((0, 1280, 3), np.uint8),
        np.zeros((720, 0, 3), np.uint8),
    ],
    ids=["none", "str", "list", "float", "grey", "bgra", "4d", "no-rows", "no-columns"],
)
def test_what_is_not_an_image_is_refused_in_words(thing: object) -> None:
    check = check_frame(thing)  # type: ignore[arg-type]
    assert not check.ok and check.problem == "not-an-image"
    assert check.message.startswith("The camera gave no usable picture")


def test_a_tiny_image_is_checked_without_failing() -> None:
    tiny = np.full((5, 7, 3), 120, np.uint8)
    assert check_frame(tiny).ok
    assert check_frame(np.zeros((1, 1, 3), np.uint8)).problem == "black"


# --- exposure -----------------------------------------------------------------------------------


def test_a_covered_lens_is_black() -> None:
    frame = camera(np.full((H, W, 3), 4, np.float32), sigma=2)
    check = check_frame(frame)
    assert check.problem == "black"
    assert check.message == "The camera sees only black: is the lens covered or the light off?"
    assert problem(np.zeros((H, W, 3), np.uint8)) == "black"


def test_a_washed_out_frame_is_overexposed(scene: np.ndarray) -> None:
    assert problem(camera(scene * 4)) == "overexposed"  # everything but the darkest tiles at 255
    assert problem(np.full((H, W, 3), 255, np.uint8)) == "overexposed"


def test_a_bright_but_readable_frame_is_not_overexposed(scene: np.ndarray) -> None:
    assert problem(camera(scene * 1.45)) is None  # the mat near 230


# --- noise --------------------------------------------------------------------------------------


def test_a_very_noisy_frame_is_refused(scene: np.ndarray) -> None:
    check = check_frame(camera(scene, sigma=25))
    assert check.problem == "noisy"
    assert "light" in check.message


@pytest.mark.parametrize(
    ("sigma", "quality", "blur"),
    [(6, None, 0.0), (6, 95, 0.7), (6, 70, 0.7), (6, 55, 1.0), (4, 55, 0.7), (0, 70, 0.7)],
)
def test_ordinary_noise_passes(scene: np.ndarray, sigma: float, quality: int | None, blur: float) -> None:
    frame = camera(scene, sigma=sigma, quality=quality, blur=blur, seed=5)
    assert noise_sigma(grey_of(frame)) < NOISE_SIGMA_MAX * 0.65
    assert problem(frame) is None


@pytest.mark.parametrize(("sigma", "quality"), [(20, None), (20, 90), (20, 70), (20, 55), (30, 70)])
def test_heavy_noise_fails_whatever_the_jpeg(scene: np.ndarray, sigma: float, quality: int | None) -> None:
    frame = camera(scene, sigma=sigma, quality=quality, seed=6)
    assert noise_sigma(grey_of(frame)) > NOISE_SIGMA_MAX * 1.4
    assert problem(frame) == "noisy"


def test_the_noise_estimate_measures_grey_levels(scene: np.ndarray) -> None:
    # independent noise of sigma s in each channel is 0.67 s in grey (the BGR -> grey weights)
    for sigma in (4.0, 10.0, 20.0):
        estimate = noise_sigma(grey_of(camera(scene, sigma=sigma, quality=None, seed=7)))
        assert estimate == pytest.approx(0.67 * sigma, rel=0.15)


# --- torn frames --------------------------------------------------------------------------------


def shifted(frame: np.ndarray, row: int, dx: int, wrap: bool = True) -> np.ndarray:
    torn = frame.copy()
    if wrap:
        torn[row:] = np.roll(frame[row:], dx, axis=1)
    else:
        torn[row:, dx:] = frame[row:, :-dx]
        torn[row:, :dx] = frame[row:, :1]
    return torn


def replaced(frame: np.ndarray, row: int, lower: np.ndarray) -> np.ndarray:
    torn = frame.copy()
    torn[row:] = lower[row:]
    return torn


def test_a_lower_third_shifted_sideways_is_torn(frame: np.ndarray) -> None:
    for row, dx, wrap in [(480, 40, True), (480, -40, True), (455, 40, False), (517, 24, True)]:
        torn = shifted(frame, row, dx, wrap)
        assert problem(torn) == "torn", (row, dx, wrap)
        assert find_tear(grey_of(torn)) == row


def test_a_lower_half_of_noise_is_torn(frame: np.ndarray) -> None:
    garbage = np.random.default_rng(1).integers(0, 256, frame.shape, dtype=np.uint8)
    torn = replaced(frame, 360, garbage)
    assert problem(torn) == "torn"
    assert find_tear(grey_of(torn)) == 360


def test_a_lower_half_from_a_different_frame_is_torn(frame: np.ndarray) -> None:
    # A tear shows only where the two frames differ: here the tiles lie elsewhere, the mat was
    # moved, and the exposure changed between the frames.
    other = camera(table_scene(seed=7, angle=-1.0, light=0.85, mat_shift=(40, -25)), seed=7)
    for row in (360, 301):
        torn = replaced(frame, row, other)
        assert problem(torn) == "torn"
        assert find_tear(grey_of(torn)) == row


@pytest.mark.parametrize("fill", [(0, 0, 0), (0, 135, 0), (128, 128, 128)], ids=["black", "green", "grey"])
def test_a_lower_part_never_written_is_torn(frame: np.ndarray, fill: tuple[int, int, int]) -> None:
    torn = frame.copy()
    torn[600:] = fill
    assert problem(torn) == "torn"


def test_a_torn_frame_stays_torn_with_the_previous_frame(scene: np.ndarray, frame: np.ndarray) -> None:
    previous = camera(scene, seed=11)
    assert problem(shifted(frame, 480, 40), previous) == "torn"
    assert problem(replaced(frame, 360, np.zeros_like(frame)), previous) == "torn"


@pytest.mark.parametrize("angle", [0.3, 1.0, -2.0, 3.0])
def test_mat_and_tiles_turned_a_little_are_not_torn(angle: float) -> None:
    assert problem(camera(table_scene(seed=4, angle=angle), seed=4)) is None


def edge_across(angle: float, blur: float, y0: int = 300) -> np.ndarray:
    """The table with the mat, and a dark straight edge across the whole frame (a table edge,
    a ruler's shadow) from row ``y0`` at the left, at ``angle`` degrees."""
    scene = table_scene(seed=9, angle=1.0)
    drop = math.tan(math.radians(angle)) * W
    below = np.array([[0, y0], [W, y0 + drop], [W, H], [0, H]], np.int32)
    cv2.fillPoly(scene, [below], (30, 60, 90), lineType=cv2.LINE_AA)
    return camera(scene, blur=blur, seed=9)


@pytest.mark.parametrize(("angle", "blur"), [(0.3, 0.0), (0.3, 0.7), (1.0, 0.0), (-0.5, 0.7), (5.0, 0.0)])
def test_a_straight_edge_across_the_frame_slightly_tilted_is_not_torn(angle: float, blur: float) -> None:
    assert problem(edge_across(angle, blur)) is None


def test_a_level_razor_sharp_edge_is_told_from_a_tear_by_the_previous_frame() -> None:
    # A perfectly level, unblurred edge across the whole width is exactly what a tear looks
    # like in one frame; in the previous frame it is at the same row, so it is the scene.
    frame = edge_across(0.0, 0.0)
    assert problem(frame) == "torn"
    scene = table_scene(seed=9, angle=1.0)
    cv2.fillPoly(scene, [np.array([[0, 300], [W, 300], [W, H], [0, H]], np.int32)], (30, 60, 90))
    previous = camera(scene, blur=0.0, seed=10)
    assert problem(frame, previous) is None
    assert find_tear(grey_of(frame), grey_of(previous)) is None
    assert problem(shifted(frame, 200, 40), previous) == "torn"  # below 300 all is dark: no use


# --- a frozen camera ----------------------------------------------------------------------------


def test_frozen_after_n_identical_frames(frame: np.ndarray) -> None:
    detector = FrozenDetector(fps=10, seconds=0.5)
    assert detector.frames == 5
    results = [detector.update(frame.copy()) for _ in range(7)]
    assert results == [False, False, False, False, True, True, True]
    assert detector.frozen
    changed = frame.copy()
    changed[701, 1279, 2] ^= 1  # one bit of one pixel, where the sparse sample does not look
    assert detector.update(changed) is False
    assert not detector.frozen
    assert [detector.update(changed) for _ in range(4)] == [False, False, False, True]
    detector.reset()
    assert detector.update(changed) is False


def test_not_frozen_while_noise_changes_each_frame(scene: np.ndarray) -> None:
    detector = FrozenDetector(fps=10, seconds=0.3)
    base = np.clip(scene, 0, 255).astype(np.uint8)
    noise = np.empty(base.shape, np.int16)
    results = []
    for seed in range(12):
        cv2.setRNGSeed(seed)
        cv2.randn(noise, np.zeros(3), np.full(3, 2.0))
        results.append(detector.update(np.clip(base + noise, 0, 255).astype(np.uint8)))
    assert not any(results)


def test_a_reused_camera_buffer_is_not_taken_for_a_frozen_camera(frame: np.ndarray) -> None:
    # Cameras often hand out the same array, overwritten with each new picture.
    detector = FrozenDetector(frames=3)
    buffer = frame.copy()
    results = []
    for k in range(6):
        buffer[k * 100 : k * 100 + 10] = 50 + k
        results.append(detector.update(buffer))
    assert not any(results)


def test_frozen_defaults_cover_three_seconds() -> None:
    assert FrozenDetector().frames == 45
    assert FrozenDetector(fps=10).frames == 30
    assert FrozenDetector(fps=30, seconds=2).frames == 60
    assert FrozenDetector(fps=0.1).frames == 2  # a frame every 10 s: two alike are frozen
    with pytest.raises(ValueError):
        FrozenDetector(frames=1)
