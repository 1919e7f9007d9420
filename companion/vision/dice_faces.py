"""Custom dice read against pictures of their own faces, one enrolled picture per face.

A user photographs each face of one die once, in the empty tray. Each picture's face is cut out
square (``SQUARE_PX``) and kept. A die in a tray is then read by comparing its square with every
enrolled face in its 4 quarter turns (normalised correlation, looked for a few pixels around
where the die was found). The best face wins only when it is clearly better than every other
face, and better than a floor; otherwise the die has no face: it is asked about, never guessed.

Faces whose rotation matters (``turning``: the Dice Game's city faces) are told with their
rotation, clockwise quarter turns from the enrolled picture. Two rotations that draw the same
thing (a band from N to S turned twice) are one answer, given as the smaller rotation: the faces
table says which (``same``).

The ink of an enrolled face also says which sides it touches and which of them are joined
(``ink_segments``), which is how a faces table is checked against the user's real dice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import cv2
import numpy as np

SQUARE_PX = 40  # a die's top face, as compared
SEARCH_PX = 5  # how far from where it was found a face is looked for, pixels of the square
INSET_PX = 3  # the enrolled face's border left out of the comparison (rounded corners, bevel)
MIN_SCORE = 0.55  # the best correlation must reach this ...
MIN_MARGIN = 0.12  # ... and beat every other answer by this much

SIDES = "NESW"


@dataclass(frozen=True)
class FaceRead:
    face: str | None  # None: not sure which
    rotation: int | None  # for a turning face; None otherwise, or when not sure
    confidence: float  # the best score's lead over the next answer, as a share of twice the margin
    score: float  # the best correlation


@dataclass
class FaceMatcher:
    """The enrolled faces: for each name, its square (grey, ``SQUARE_PX`` a side) at rotation 0.
    ``turning``: the faces read with their rotation. ``same``: for a turning face and a rotation,
    the smallest rotation that draws the same (a symmetric face); identity when not given."""

    faces: Mapping[str, np.ndarray]
    turning: frozenset[str]
    same: Callable[[str, int], int] | None = None

    def __post_init__(self) -> None:
        self._templates: list[tuple[str, int, np.ndarray]] = []
        for name, square in self.faces.items():
            inner = np.asarray(square, np.float32)[INSET_PX:-INSET_PX, INSET_PX:-INSET_PX]
            for k in range(4):
                self._templates.append((name, k, np.ascontiguousarray(np.rot90(inner, -k))))

    def answer(self, name: str, k: int) -> tuple[str, int | None]:
        if name not in self.turning:
            return name, None
        return name, self.same(name, k) if self.same is not None else k

    def scores(self, window: np.ndarray) -> dict[tuple[str, int | None], float]:
        """Each answer's best correlation with ``window`` (a die's square with ``SEARCH_PX``
        more on each side)."""
        best: dict[tuple[str, int | None], float] = {}
        window = np.asarray(window, np.float32)
        for name, k, template in self._templates:
            found = float(cv2.matchTemplate(window, template, cv2.TM_CCOEFF_NORMED).max())
            key = self.answer(name, k)
            best[key] = max(best.get(key, -1.0), found)
        return best

    def read(self, window: np.ndarray) -> FaceRead:
        ranked = sorted(self.scores(window).items(), key=lambda item: -item[1])
        (name, rotation), top = ranked[0]
        runner = ranked[1][1] if len(ranked) > 1 else -1.0
        lead = top - runner
        # a face given (lead at the margin or more) is 0.5 or more, as the trays' floor asks
        confidence = float(np.clip(lead / (2 * MIN_MARGIN), 0.0, 1.0))
        if top < MIN_SCORE or lead < MIN_MARGIN:
            return FaceRead(None, None, confidence, top)
        return FaceRead(name, rotation, confidence, top)


def ink_mask(square: np.ndarray) -> np.ndarray:
    """The dark ink of a face's square (bool): darker than the split between ink and body that
    the face's middle shows (Otsu)."""
    face = cv2.GaussianBlur(np.asarray(square, np.float32), (0, 0), 0.8)
    inner = face[INSET_PX:-INSET_PX, INSET_PX:-INSET_PX]
    low, high = float(inner.min()), float(inner.max())
    scaled = ((inner - low) * (255.0 / max(high - low, 1e-6))).astype(np.uint8)
    split, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    level = low + (high - low) * split / 255.0
    mask: np.ndarray = face < level
    return mask


def ink_segments(square: np.ndarray) -> list[str]:
    """Which sides the face's ink touches, grouped by the piece of ink that touches them, as a
    faces table writes a face's segments ("NE" for one piece over N and E; ["N", "S"] for two
    pieces). Each side is judged by a patch just inside its middle; a side whose patch is mostly
    ink is city."""
    mask = ink_mask(square).astype(np.uint8)
    n = mask.shape[0]
    count, labels = cv2.connectedComponents(mask, connectivity=4)
    a, b = int(0.38 * n), int(0.62 * n)  # along the side
    c, d = int(0.1 * n), int(0.2 * n)  # in from it
    patches = {
        "N": (slice(c, d), slice(a, b)),
        "E": (slice(a, b), slice(n - d, n - c)),
        "S": (slice(n - d, n - c), slice(a, b)),
        "W": (slice(a, b), slice(c, d)),
    }
    pieces: dict[int, str] = {}
    for side in SIDES:
        patch = labels[patches[side]]
        inked = patch[patch > 0]
        if inked.size < 0.5 * patch.size:
            continue
        piece = int(np.bincount(inked, minlength=count).argmax())
        pieces[piece] = pieces.get(piece, "") + side
    return sorted(pieces.values(), key=lambda s: SIDES.index(s[0]))
