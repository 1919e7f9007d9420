"""A gallery of the user's own tiles: what their box's print looks like, learnt from pictures.

The cell model knows only the art it was trained on. The gallery holds pictures of the user's
print of each tile, with the tile as it lies in the picture: enrolled from a folder, or kept
from the camera when a person enters a tile on the phone. A camera window is read by matching
its edges (lanes, rocks, planets and badges show as edges; a smooth printed background hardly
does) against every picture turned the four ways, allowing for a tile lying a little off its
cell. It knows no rules: the tracker decides what a match is worth.

On disk a gallery is a folder of ``NAME.png`` beside ``NAME.json`` (``{"tile": inline tile}``),
the same form ``companion enroll`` reads.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.games.base import FormatError
from companion.games.starwars.tiles import Tile, parse_tile
from companion.vision.mat import CROP_PX, TILE_PX

# The inside of a tile, as matched: its rim is left out, since a tile lies a little off its
# cell and its neighbours' edges would otherwise count.
INTERIOR_PX = 40
# A match this good, and this much better than any other way of lying the rules allow, is
# sure. Set high on purpose: on camera windows of the box art, the best match of a wrong tile
# scored above 0.92 for 1 window in 1 000, while the right tile often scored far lower
# (docs/vision.md), so only a near copy of a picture is recorded, and the rest is asked.
MATCH_SURE = 0.96
MATCH_MARGIN = 0.10
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg")
_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def cleaned_name(name: str) -> str:
    """A picture's name as the gallery keeps it: letters, digits, - and _ only."""
    return _NAME.sub("-", name)


def gallery_folder(state_dir: Path) -> Path:
    """Where the companion keeps the user's gallery."""
    return state_dir / "gallery"


class BadPicture(ValueError):
    """A gallery picture or its label cannot be used; the message says which and why."""


@dataclass(frozen=True)
class GalleryMatch:
    tile: Tile  # the best-matching tile, as it lies in the window
    score: float  # normalised correlation of edges, -1 to 1
    runner_up: float  # the best score of any other way of lying

    @property
    def sure(self) -> bool:
        return self.score >= MATCH_SURE and self.score - self.runner_up >= MATCH_MARGIN


def edges(image: np.ndarray) -> np.ndarray:
    """Gradient magnitude of the grey image, a little blurred: the structure, not the colours."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    dx = cv2.Sobel(grey, cv2.CV_32F, 1, 0)
    dy = cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    return cv2.GaussianBlur(cv2.magnitude(dx, dy), (0, 0), 1.5)


def features(image: np.ndarray) -> np.ndarray:
    """What is matched, (H, W, 4): fine edges (lanes, outlines); the same spread wide (where a
    field of rocks lies, wherever its rocks fall); and the local colour, red-green and
    blue-yellow, less the print's overall tint (badges, planets)."""
    fine = edges(image)
    wide = cv2.GaussianBlur(fine, (0, 0), 4.0)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    chroma = [
        cv2.GaussianBlur(lab[:, :, c], (0, 0), 1.5) - cv2.GaussianBlur(lab[:, :, c], (0, 0), 6.0)
        for c in (1, 2)
    ]
    return np.dstack([fine, wide, *chroma])


# how far from its cell's centre a tile may lie and still be found, pixels each way
FIND_PX = 6
SEARCH_PX = 2  # the interior is matched this many pixels each way about where it was found


def _outline() -> np.ndarray:
    frame = np.zeros((TILE_PX + 2, TILE_PX + 2), np.float32)
    cv2.rectangle(frame, (1, 1), (TILE_PX, TILE_PX), 1.0, 1)
    return frame


OUTLINE = _outline()


def tile_corner(window_edges: np.ndarray) -> tuple[int, int]:
    """Where the tile's own square starts in a window (x, y): the square outline of a tile's
    size that lies along the strongest edges, within ``FIND_PX`` of the centre."""
    rim = (window_edges.shape[0] - TILE_PX) // 2
    near = window_edges[
        rim - FIND_PX - 1 : rim + TILE_PX + FIND_PX + 1, rim - FIND_PX - 1 : rim + TILE_PX + FIND_PX + 1
    ]
    fit = cv2.matchTemplate(near, OUTLINE, cv2.TM_CCORR)
    _, _, _, (x, y) = cv2.minMaxLoc(fit)
    return rim - FIND_PX + x, rim - FIND_PX + y


def tile_of_window(window: np.ndarray) -> np.ndarray:
    """The tile's own square from a camera window centred on its cell."""
    if window.shape[:2] != (CROP_PX, CROP_PX):
        raise ValueError(f"a window is {CROP_PX} px square, not {window.shape[:2]}")
    x, y = tile_corner(edges(window))
    return window[y : y + TILE_PX, x : x + TILE_PX]


def _interior(picture: np.ndarray) -> np.ndarray:
    tile = cv2.resize(picture, (TILE_PX, TILE_PX), interpolation=cv2.INTER_AREA)
    rim = (TILE_PX - INTERIOR_PX) // 2
    return features(tile)[rim : rim + INTERIOR_PX, rim : rim + INTERIOR_PX].copy()


def _unit_channels(patch: np.ndarray) -> np.ndarray:
    """The patch flattened channel by channel, each less its mean and scaled to unit length,
    so that a dot product of two is the sum of their channels' normalised correlations."""
    flat = patch.reshape(-1, patch.shape[2]).astype(np.float64)
    flat = flat - flat.mean(axis=0)
    norms = np.linalg.norm(flat, axis=0)
    unit: np.ndarray = (flat / np.where(norms > 1e-9, norms, 1.0)).T.ravel().astype(np.float32)
    return unit


class Gallery:
    def __init__(self, folder: Path | None = None) -> None:
        """An empty gallery, or the one kept in ``folder`` (new pictures are saved there). A
        picture there that cannot be used is left out and listed in ``skipped``."""
        self.folder = folder
        self._templates: list[np.ndarray] = []  # flattened, each channel of unit length
        self._tiles: list[Tile] = []  # as each template lies
        self._names: list[str] = []  # each template's picture
        self.skipped: list[str] = []
        # the table's loop matches while the phone's enrolment page adds and forgets pictures
        self._lock = threading.RLock()
        if folder is not None and folder.is_dir():
            pictures, self.skipped = read_folder(folder)
            for picture, tile, name in pictures:
                self._remember(picture, tile, name)

    def __len__(self) -> int:
        with self._lock:
            return len(set(self._names))

    def add(self, picture: np.ndarray, tile: Tile, name: str | None = None) -> str:
        """Learn ``picture`` (BGR, the tile alone, any size) of ``tile`` as it lies there, as
        ``name`` (a picture of that name is replaced); kept in the gallery's folder, if it has
        one. Returns the name, cleaned for a file name."""
        if min(picture.shape[:2]) < TILE_PX // 2:
            raise ValueError(
                f"a picture of a tile is at least {TILE_PX // 2} px square, not {picture.shape[:2]}"
            )
        with self._lock:
            stem = cleaned_name(name) if name else self.free_name()
            self.remove(stem)
            self._remember(picture, tile, stem)
            if self.folder is not None:
                self._save(picture, tile, stem)
        return stem

    def _save(self, picture: np.ndarray, tile: Tile, stem: str) -> None:
        assert self.folder is not None
        self.folder.mkdir(parents=True, exist_ok=True)
        # the label first: a picture without one is skipped on loading, a label alone unseen
        (self.folder / f"{stem}.json").write_text(
            json.dumps({"tile": tile.to_json()}) + "\n", encoding="utf-8"
        )
        if not cv2.imwrite(str(self.folder / f"{stem}.png"), picture):
            raise OSError(f"cannot write {self.folder / stem}.png")

    def add_window(self, window: np.ndarray, tile: Tile, name: str | None = None) -> str:
        """Learn a camera window centred on a cell that holds ``tile``."""
        return self.add(tile_of_window(window).copy(), tile, name)

    def remove(self, name: str) -> None:
        """Forget the picture ``name`` (and its files), if the gallery has it."""
        with self._lock:
            self._forget(name)

    def _forget(self, name: str) -> None:
        keep = [k for k, kept in enumerate(self._names) if kept != name]
        if len(keep) != len(self._names):
            self._templates = [self._templates[k] for k in keep]
            self._tiles = [self._tiles[k] for k in keep]
            self._names = [self._names[k] for k in keep]
        if self.folder is not None:
            for suffix in (*PICTURE_SUFFIXES, ".json"):
                (self.folder / f"{name}{suffix}").unlink(missing_ok=True)

    def free_name(self, prefix: str = "seen") -> str:
        """A picture name no picture has yet: ``prefix`` and a number."""
        with self._lock:
            taken = set(self._names)
        if self.folder is not None and self.folder.is_dir():
            taken |= {path.stem for path in self.folder.iterdir()}
        number = len(taken) + 1  # past the pictures kept: a name taken back is not reused soon
        while f"{prefix}-{number:04d}" in taken:
            number += 1
        return f"{prefix}-{number:04d}"

    def _remember(self, picture: np.ndarray, tile: Tile, name: str) -> None:
        for quarter_turns in range(4):
            # np.rot90 with k=-1 turns the picture a quarter clockwise, as Tile.rotated(1) does
            turned = np.ascontiguousarray(np.rot90(picture, k=-quarter_turns))
            self._templates.append(_unit_channels(_interior(turned)))
            self._tiles.append(tile.rotated(quarter_turns))
            self._names.append(name)

    def match(self, window: np.ndarray, allowed: Callable[[Tile], bool] | None = None) -> GalleryMatch | None:
        """The gallery's reading of a camera window (``CROP_PX`` square, centred on its cell),
        among the ways of lying ``allowed`` keeps; None when there are none to match."""
        with self._lock:
            tiles, templates_kept = list(self._tiles), list(self._templates)
        verdicts: dict[Tile, bool] = {}  # the same tile lies in many templates
        for tile in tiles:
            if tile not in verdicts:
                verdicts[tile] = allowed is None or allowed(tile)
        candidates = [k for k, tile in enumerate(tiles) if verdicts[tile]]
        if not candidates:
            return None
        # the tile is cut out first, so that its features are made as a picture's are, with
        # nothing of the felt or the neighbours round it
        inset = (TILE_PX - INTERIOR_PX) // 2 - SEARCH_PX
        seen = features(tile_of_window(window))[inset : TILE_PX - inset, inset : TILE_PX - inset]
        # every shift of the inside at once; one product gives, per shift and template, the
        # sum of the channels' normalised correlations (what TM_CCOEFF_NORMED gives each alone)
        side = 2 * SEARCH_PX + 1
        shifted = np.stack(
            [
                _unit_channels(seen[y : y + INTERIOR_PX, x : x + INTERIOR_PX])
                for y in range(side)
                for x in range(side)
            ]
        )
        templates = np.stack([templates_kept[k] for k in candidates])
        fits = (shifted @ templates.T).max(axis=0) / seen.shape[2]
        best: dict[Tile, float] = {}
        for k, score in zip(candidates, fits.tolist(), strict=True):
            tile = tiles[k]
            if score > best.get(tile, -1.0):
                best[tile] = score
        ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
        runner_up = ranked[1][1] if len(ranked) > 1 else -1.0
        return GalleryMatch(ranked[0][0], ranked[0][1], runner_up)


def read_folder(folder: Path) -> tuple[list[tuple[np.ndarray, Tile, str]], list[str]]:
    """Every usable ``NAME.png``/``NAME.jpg`` with its ``NAME.json`` in ``folder``, in name
    order, with the name the gallery keeps it by; and why each other picture cannot be used."""
    found: list[tuple[np.ndarray, Tile, str]] = []
    bad: list[str] = []
    taken: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in PICTURE_SUFFIXES:
            continue
        name = cleaned_name(path.stem)
        if name in taken:
            bad.append(f"{path}: {taken[name].name} has the same name; keep one picture per name")
            continue
        try:
            picture, tile = read_picture(path)
        except BadPicture as error:
            bad.append(str(error))
            continue
        taken[name] = path
        found.append((picture, tile, name))
    return found, bad


def read_picture(path: Path) -> tuple[np.ndarray, Tile]:
    label = path.with_suffix(".json")
    if not label.is_file():
        raise BadPicture(f"{path}: no {label.name} beside it saying which tile it shows")
    picture = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if picture is None:
        raise BadPicture(f"{path}: not a picture OpenCV can read")
    if min(picture.shape[:2]) < TILE_PX // 2:
        raise BadPicture(f"{path}: {picture.shape[1]}x{picture.shape[0]} px is too small to read a tile from")
    try:
        data = json.loads(label.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BadPicture(f"{label}: not JSON ({error})") from None
    if not isinstance(data, dict) or "tile" not in data:
        raise BadPicture(f'{label}: expected {{"tile": {{"features": [...]}}}}, the tile as it lies')
    try:
        tile = parse_tile(data["tile"], f"{label.name} tile")
    except FormatError as error:
        raise BadPicture(f"{label}: {error.reason}") from None
    return picture, tile
