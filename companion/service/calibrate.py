"""``companion calibrate``: set the camera up once for a fixed overhead mount and keep what it found.

1. Exposure: the picture must pass the frame checks (not black, not washed out, not grainy). A
   camera whose exposure can be set is tried at a ladder of exposure times when it does not.
2. Focus: a camera that can focus (Camera Module 3) is swept over its lens positions and the
   sharpest is kept; sharpness is the variance of the Laplacian of the mat's picture. Others are
   only measured, so a person can turn a manual lens and run it again.
3. Markers: how many of the mat's ArUco markers are seen, how big a tile is in the picture, and
   where the mat's dice strip lies (a starting point for each tray's ``region``).

What it found goes to ``calibration.json`` in the state dir, with the picture it judged
(``calibration.jpg``, the markers outlined); ``companion run`` sets the camera from it where the
config leaves focus and exposure automatic.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.cameras.base import Camera, CameraError, Controls
from companion.cameras.settings import MAX_DIOPTRES, MAX_EXPOSURE_US, MAX_GAIN, CameraSettings
from companion.errors import UserError
from companion.vision.frames import check_frame
from companion.vision.mat import PX_PER_MM, STANDARD_MAT, TILE_MM, MatSpec
from companion.vision.rectify import Rectifier

CALIBRATION = "calibration.json"
PICTURE = "calibration.jpg"
FOCUS_STEPS = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)  # dioptres (1/m)
EXPOSURE_STEPS_US = (2_000, 4_000, 8_000, 12_000, 16_000, 24_000, 33_000)
# With automatic exposure off, libcamera keeps whatever analogue gain the automatic loop last
# chose, so the gain is fixed with the exposure: 1 (the least grain) while the exposure can still
# grow, then raised at the longest exposure for a dim room.
GAIN_STEPS = (2.0, 4.0, 8.0)
EXPOSURE_LADDER = tuple((exposure, 1.0) for exposure in EXPOSURE_STEPS_US) + tuple(
    (EXPOSURE_STEPS_US[-1], gain) for gain in GAIN_STEPS
)
WARM_UP_FRAMES = 8  # automatic exposure settles over the first frames
# libcamera applies new controls a few frames late, and a lens takes a moment to move: the frames
# between a change and the one judged are dropped.
SETTLE_FRAMES = 5
TIMEOUT = 5.0


@dataclass
class Calibration:
    camera: str
    at: str
    size: tuple[int, int]  # width, height of the picture
    focus_dioptres: float | None = None  # None: the camera cannot focus, or was not asked to
    exposure_us: int | None = None  # None: automatic exposure was fine
    gain: float | None = None  # the analogue gain fixed with exposure_us
    sharpness: float = 0.0
    picture: str = ""  # what the frame checks said of the final picture ("" when fine)
    markers: list[int] = field(default_factory=list)
    markers_total: int = 0
    tile_px: float | None = None  # a tile's side in the picture's pixels
    dice_strip: list[int] | None = None  # the mat's dice strip in the picture: x, y, width, height
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def sharpness(image: np.ndarray, homography: np.ndarray | None = None, mat: MatSpec = STANDARD_MAT) -> float:
    """Variance of the Laplacian of the grey picture, inside the mat when it is found."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if homography is not None:
        x, y, w, h = _box(_mat_corners(homography, mat.board.corners_mm()))
        cut = grey[max(y, 0) : y + h, max(x, 0) : x + w]
        grey = cut if cut.size >= 64 * 64 else grey
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def _mat_corners(homography: np.ndarray, corners_mm: np.ndarray) -> np.ndarray:
    """Mat points (mm) in the camera's picture."""
    to_frame = np.linalg.inv(homography)
    rectified = (corners_mm * PX_PER_MM).reshape(-1, 1, 2).astype(np.float32)
    return cv2.perspectiveTransform(rectified, to_frame).reshape(-1, 2)


def _box(points: np.ndarray) -> tuple[int, int, int, int]:
    x0, y0 = np.floor(points.min(axis=0)).astype(int)
    x1, y1 = np.ceil(points.max(axis=0)).astype(int)
    return int(x0), int(y0), int(x1 - x0), int(y1 - y0)


class Calibrator:
    def __init__(
        self, camera: Camera, say: Callable[[str], None] = print, mat: MatSpec = STANDARD_MAT
    ) -> None:
        self.camera = camera
        self.say = say
        self.mat = mat
        self.rectifier = Rectifier(mat)

    def _frame(self, skip: int = SETTLE_FRAMES) -> np.ndarray:
        """A picture taken after ``skip`` frames, so a change of controls has taken effect."""
        for _ in range(skip):
            self.camera.read(TIMEOUT)
        return self.camera.read(TIMEOUT).image

    def run(self) -> tuple[Calibration, np.ndarray]:
        self.camera.open()
        image = self._frame(WARM_UP_FRAMES)
        height, width = image.shape[:2]
        result = Calibration(
            self.camera.name, datetime.now(UTC).isoformat(timespec="seconds"), (width, height)
        )
        image = self._exposure(image, result)
        image = self._focus(image, result)
        self._markers(image, result)
        quality = check_frame(image)
        result.picture = "" if quality.ok else quality.message
        return result, image

    def _exposure(self, image: np.ndarray, result: Calibration) -> np.ndarray:
        quality = check_frame(image)
        if quality.ok:
            self.say("exposure: automatic exposure gives a good picture")
            return image
        self.say(f"exposure: {quality.message}")
        if not self.camera.apply(Controls(exposure_us=EXPOSURE_LADDER[0][0], gain=EXPOSURE_LADDER[0][1])):
            result.notes.append(f"exposure cannot be set on this camera: {quality.message}")
            return image
        best: tuple[float, int, float, np.ndarray] | None = None
        passed = False
        for exposure, gain in EXPOSURE_LADDER:
            if gain > 1.0 and passed:
                break  # a picture already passes at gain 1: more gain only adds grain
            self.camera.apply(Controls(exposure_us=exposure, gain=gain))
            tried = self._frame()
            grey = cv2.cvtColor(tried, cv2.COLOR_BGR2GRAY)
            clipped = float(np.mean((grey >= 250) | (grey <= 5)))
            passes = check_frame(tried).ok
            # a picture that passes the checks first, then the least clipped, then mid-grey
            score = (0.0 if passes else 1.0) + clipped + abs(float(grey.mean()) - 128) / 1000
            self.say(f"  {exposure} us, gain {gain:g}: {'good' if passes else check_frame(tried).problem}")
            if best is None or score < best[0]:
                best = (score, exposure, gain, tried)
            passed = passed or passes
            if passes and gain > 1.0:
                break  # the least gain that passes
        assert best is not None
        result.exposure_us, result.gain = best[1], best[2]
        self.camera.apply(self._exposure_controls(result))
        self.say(f"exposure: {best[1]} us at gain {best[2]:g} kept")
        return best[3]

    @staticmethod
    def _exposure_controls(result: Calibration, focus: float | None = None) -> Controls:
        return Controls(focus_dioptres=focus, exposure_us=result.exposure_us, gain=result.gain)

    def _focus(self, image: np.ndarray, result: Calibration) -> np.ndarray:
        view = self.rectifier.locate(image)
        if not self.camera.apply(self._exposure_controls(result, FOCUS_STEPS[0])):
            result.sharpness = sharpness(image, view.homography, self.mat)
            result.notes.append("this camera's focus cannot be set: turn its lens until sharpness peaks")
            self.say(f"focus: fixed on this camera; sharpness {result.sharpness:.0f}")
            return image
        tried: list[tuple[float, float, np.ndarray]] = []
        for dioptres in FOCUS_STEPS:
            self.camera.apply(self._exposure_controls(result, dioptres))
            picture = self._frame()
            score = sharpness(picture, view.homography, self.mat)
            tried.append((score, dioptres, picture))
            self.say(f"  focus {dioptres:4.1f} dioptres: sharpness {score:.0f}")
        score, dioptres, picture = max(tried, key=lambda item: item[0])
        for finer in (dioptres - 0.25, dioptres + 0.25):  # between the coarse steps
            if finer >= 0:
                self.camera.apply(self._exposure_controls(result, finer))
                again = self._frame()
                finer_score = sharpness(again, view.homography, self.mat)
                if finer_score > score:
                    score, dioptres, picture = finer_score, finer, again
        self.camera.apply(self._exposure_controls(result, dioptres))
        result.focus_dioptres, result.sharpness = dioptres, score
        self.say(f"focus: {dioptres:.2f} dioptres (about {100 / max(dioptres, 0.01):.0f} cm) kept")
        return picture

    def _markers(self, image: np.ndarray, result: Calibration) -> None:
        view = Rectifier(self.mat).locate(image)
        result.markers = list(view.markers)
        result.markers_total = len(self.mat.markers)
        if view.homography is None or not view.fresh:
            result.notes.append(view.message or "the play mat is not in view")
            self.say(f"markers: {view.message}")
            return
        board = _mat_corners(view.homography, self.mat.board.corners_mm())
        tiles_across = self.mat.board.w_mm / TILE_MM
        result.tile_px = round(float(np.linalg.norm(board[1] - board[0])) / tiles_across, 1)
        result.dice_strip = list(_box(_mat_corners(view.homography, self.mat.tray.corners_mm())))
        self.say(
            f"markers: {len(view.markers)} of {result.markers_total} seen; a tile is {result.tile_px} px; "
            f"the dice strip lies at {result.dice_strip}"
        )
        if len(view.markers) < result.markers_total:
            missing = sorted(set(range(result.markers_total)) - set(view.markers))
            result.notes.append(f"markers {missing} not seen: uncover them or widen the view")


def outline(image: np.ndarray, mat: MatSpec = STANDARD_MAT) -> np.ndarray:
    """The picture with the markers found outlined, for calibration.jpg."""
    picture = image.copy()
    corners, ids, _ = cv2.aruco.ArucoDetector(mat.dictionary).detectMarkers(
        cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    )
    if ids is not None:
        cv2.aruco.drawDetectedMarkers(picture, corners, ids)
    return picture


def save(result: Calibration, image: np.ndarray, state_dir: Path) -> Path | None:
    """The picture judged, always; what was found only when the mat was seen (a calibration
    without the mat is no calibration, and ``companion run`` would set the camera from it)."""
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(state_dir / PICTURE), outline(image)):
            raise OSError("the picture could not be written")
        if not result.markers:
            return None
        path = state_dir / CALIBRATION
        path.write_text(json.dumps(result.to_json(), indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot keep the calibration in {state_dir}: {error.strerror or error}") from None
    return path


def saved_controls(state_dir: Path) -> Controls | None:
    """What calibrate kept (None when it has not been run, or its file cannot be read)."""
    try:
        data = json.loads((state_dir / CALIBRATION).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None  # damaged: the camera stays automatic, as before a calibration
    focus, exposure, gain = data.get("focus_dioptres"), data.get("exposure_us"), data.get("gain")
    # each kept only within the bounds a config's own value must keep (cameras/settings.py)
    if not _number_within(focus, 0.0, MAX_DIOPTRES):
        focus = None
    if not (_number_within(exposure, 1, MAX_EXPOSURE_US) and isinstance(exposure, int)):
        exposure = None
    if not _number_within(gain, 1.0, MAX_GAIN) or exposure is None:
        gain = None  # a gain is only ever kept with its exposure
    return Controls(focus_dioptres=focus, exposure_us=exposure, gain=None if gain is None else float(gain))


def _number_within(value: object, low: float, high: float) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high


def with_calibration(settings: CameraSettings, state_dir: Path) -> CameraSettings:
    """The camera's settings, with calibrate's focus and exposure where the config leaves them
    automatic. The exposure and its gain go together: a config that sets either keeps its own."""
    kept = saved_controls(state_dir)
    if kept is None:
        return settings
    controls = settings.controls
    if controls.focus_dioptres is None:
        controls = replace(controls, focus_dioptres=kept.focus_dioptres)
    if controls.exposure_us is None and controls.gain is None:
        controls = replace(controls, exposure_us=kept.exposure_us, gain=kept.gain)
    return replace(settings, controls=controls)


def calibrate(camera: Camera, state_dir: Path, say: Callable[[str], None] = print) -> Calibration:
    try:
        result, image = Calibrator(camera, say).run()
    finally:
        camera.close()
    path = save(result, image, state_dir)
    for note in result.notes:
        say(f"note: {note}")
    if path is None:
        raise CameraError(
            f"no mat marker seen: is the play mat under the camera? (the picture: {state_dir / PICTURE})"
        )
    say(f"kept in {path} (the picture judged: {state_dir / PICTURE})")
    return result
