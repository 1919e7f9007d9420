"""From a camera frame to the mat seen from straight above, using the mat's ArUco markers.

The homography is fitted to every marker corner found. While hands cover markers the last good
homography is kept, so a frame is still read as long as the camera has not moved.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.mat import PX_PER_MM, STANDARD_MAT, MatSpec

MIN_MARKERS = 3  # fewer leaves the fit at the mercy of one marker's corners
# A fit whose corners land this far (rectified pixels) from where they belong is not trusted.
MAX_FIT_ERROR_PX = 4.0


@dataclass(frozen=True)
class View:
    """Where the mat lies in one frame."""

    homography: np.ndarray | None  # frame pixels -> rectified pixels; None: the mat is not found
    markers: tuple[int, ...]  # ids seen in this frame
    fresh: bool  # fitted on this frame (not kept from an earlier one)
    message: str | None  # for a person, when something is wrong


class Rectifier:
    def __init__(self, mat: MatSpec = STANDARD_MAT) -> None:
        self.mat = mat
        parameters = cv2.aruco.DetectorParameters()
        parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        self._detector = cv2.aruco.ArucoDetector(mat.dictionary, parameters)
        self._last: np.ndarray | None = None

    @property
    def known(self) -> bool:
        return self._last is not None

    def _detect(self, grey: np.ndarray) -> list[tuple[np.ndarray, int]]:
        corners, ids, _ = self._detector.detectMarkers(grey)
        return [] if ids is None else [(c, int(i)) for c, i in zip(corners, ids.ravel(), strict=True)]

    def locate(self, frame: np.ndarray) -> View:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        detected = self._detect(grey)
        if len({i for _, i in detected if self.mat.marker(i) is not None}) < MIN_MARKERS:
            # ArUco's thresholds miss markers whose edges are sharper than a camera draws them
            # (the mat's own file, a still from a sharp phone): looked at again a little
            # softened, in proportion to the picture's size, they are found
            sigma = max(1.0, max(grey.shape[:2]) / 1000)
            detected += self._detect(cv2.GaussianBlur(grey, (0, 0), sigma))
        found: list[int] = []
        image_points, mat_points = [], []
        for marker_corners, marker_id in detected:
            marker = self.mat.marker(marker_id)
            if marker is None or marker_id in found:
                continue  # a stray marker from another set, or one found again when softened
            found.append(marker_id)
            image_points.append(marker_corners.reshape(4, 2))
            mat_points.append(marker.corners_mm() * PX_PER_MM)
        seen = tuple(sorted(found))
        if len(found) >= MIN_MARKERS:
            source = np.concatenate(image_points).astype(np.float32)
            target = np.concatenate(mat_points).astype(np.float32)
            homography, _ = cv2.findHomography(source, target, cv2.RANSAC, 3.0)
            if homography is not None and _fit_error(homography, source, target) <= MAX_FIT_ERROR_PX:
                self._last = homography
                return View(homography, seen, True, None)
        total = len(self.mat.markers)
        if self._last is not None:
            message = f"only {len(found)} of {total} mat markers in view: reading with the last good view"
            return View(self._last, seen, False, message)
        message = (
            f"the play mat is not in view ({len(found)} of {total} markers found): "
            "uncover its corners or check the camera"
        )
        return View(None, seen, False, message)

    def rectify(self, frame: np.ndarray, homography: np.ndarray) -> np.ndarray:
        return cv2.warpPerspective(frame, homography, self.mat.size_px, flags=cv2.INTER_LINEAR)

    def forget(self) -> None:
        """Drop the kept view, as after the camera has been moved."""
        self._last = None


def _fit_error(homography: np.ndarray, source: np.ndarray, target: np.ndarray) -> float:
    projected = cv2.perspectiveTransform(source.reshape(-1, 1, 2), homography).reshape(-1, 2)
    return float(np.median(np.linalg.norm(projected - target, axis=1)))
