"""A gallery of the user's own tiles: what their box's print looks like, learnt from pictures.

The cell model knows only the art it was trained on. The gallery holds pictures of the user's
print of each tile, with the tile as it lies in the picture: enrolled from a folder, or kept
from the camera when a person enters a tile on the phone. A camera window is read by cutting out
the tile's square (tile_window.py) and comparing it, by the learnt likeness of
companion/vision/likeness.py, with every picture turned the four ways (each kept as the mean of
camera-like views of it: gallery_views.py). It knows no rules: the tracker decides what a match
is worth, and gallery_match.py how sure it is. Tiles are the game's own: the gallery is told how
to read a label and what a tile shows (``PieceKind``).

On disk a gallery is a folder of ``NAME.png`` beside ``NAME.json`` (``{"tile": inline tile}``),
the same form ``companion enroll`` reads, and ``NAME.vectors.npz``, the picture's vectors kept
so that a start need not work them out again (gallery_cache.py).
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic

import cv2
import numpy as np

from companion.vision.colour_fit import colour_aligner, colour_fit
from companion.vision.gallery_cache import SUFFIX as CACHE_SUFFIX
from companion.vision.gallery_cache import cache_path, load_vectors, picture_key, save_vectors, way_vectors
from companion.vision.gallery_files import PICTURE_SUFFIXES, cleaned_name, read_folder
from companion.vision.gallery_match import (
    CLOSE_RIVAL,
    GalleryMatch,
    L,
    SecondLook,
    scored_match,
)
from companion.vision.likeness import Likeness, shared_likeness
from companion.vision.mat import TILE_PX
from companion.vision.second_look import nearer, planes
from companion.vision.tile_window import (
    FIND_PX,
    PLACES,
    aligner,
    check_window,
    corners_for,
    nearest,
    square_of_picture,
    tile_of_window,
    unit_aligners,
)

# the names of pictures of an enrolled box start so (``companion enroll``, the enrolment page)
ENROLLED = "enrolled"
LOAD_BATCH = 16  # pictures turned into vectors at once when a gallery folder is read


def enrolled_name(name: str) -> str:
    """The name a picture of an enrolled box is kept under: what ``Gallery.enrolled`` looks for."""
    return f"{ENROLLED}-{name}"


@dataclass(frozen=True)
class PieceKind(Generic[L]):
    """What a gallery needs of a game's tiles: how to read a label (its JSON, and what to call
    it in a message), and what a tile shows but its badges, its ``structure`` (each feature's
    kind and sides: whether a feature bears a badge, and whose, is left to the likeness and the
    colours)."""

    parse: Callable[[Any, str], L]
    structure: Callable[[L], Hashable]
    likeness: Path  # the learnt likeness its pictures are compared by (``models/<game>/gallery.onnx``)


@dataclass(frozen=True)
class Prepared(Generic[L]):
    """One picture's four ways of lying (upright, then each quarter turn clockwise), ready to keep."""

    name: str
    tile: L  # upright, as the picture shows it
    key: str  # what its vectors were worked out from (gallery_cache.py)
    templates: np.ndarray  # (4, D): the mean of its camera-like views' vectors
    copies: np.ndarray  # (4, D): its own vector
    aligners: list[np.ndarray]
    colours: list[np.ndarray]


class Gallery(Generic[L]):
    def __init__(
        self, kind: PieceKind[L], folder: Path | None = None, likeness: Likeness | None = None
    ) -> None:
        """An empty gallery of a game's tiles (``kind``), or the one kept in ``folder`` (new
        pictures are saved there). A picture there that cannot be used is left out and listed
        in ``skipped``."""
        self.kind = kind
        self.folder = folder
        self._likeness = likeness  # loaded on first use: an empty gallery needs no model
        # each picture's vector, one per way it may lie: the mean of camera-like views of it
        # (gallery_views.py), and of the picture itself (``_copies``: what a near copy matches)
        self._templates: list[np.ndarray] = []
        self._copies: list[np.ndarray] = []
        # the vectors and aligners as arrays, until one changes
        self._stacked: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._aligners: list[np.ndarray] = []  # each picture as it lies, to find it in a window
        self._colours: list[np.ndarray] = []  # and its colours, to tell badges apart
        self._tiles: list[L] = []  # as each template lies
        self._names: list[str] = []  # each template's picture
        self.skipped: list[str] = []
        self.version = 0  # counts every change of the pictures kept: what was matched before is stale
        # the table's loop matches while the phone's enrolment page adds and forgets pictures
        self._lock = threading.RLock()
        if folder is not None and folder.is_dir():
            pictures, self.skipped = read_folder(folder, kind.parse)
            # in batches: a gallery grows by a picture a tile entered, season after season
            for start in range(0, len(pictures), LOAD_BATCH):
                self._keep(self._prepare(pictures[start : start + LOAD_BATCH], from_folder=True))

    @property
    def likeness(self) -> Likeness:
        if self._likeness is None:
            self._likeness = shared_likeness(self.kind.likeness)
        return self._likeness

    def ways(self) -> set[L]:
        """Every way of lying the gallery has a picture of."""
        with self._lock:
            return set(self._tiles)

    def enrolled(self) -> bool:
        """Whether a box was enrolled: some picture's name starts with ENROLLED."""
        with self._lock:
            return any(name.startswith(ENROLLED) for name in self._names)

    def __len__(self) -> int:
        with self._lock:
            return len(set(self._names))

    def add(self, picture: np.ndarray, tile: L, name: str | None = None) -> str:
        """Learn ``picture`` (BGR, the tile alone, any size) of ``tile`` as it lies there, as
        ``name`` (a picture of that name is replaced); kept in the gallery's folder, if it has
        one. Returns the name, cleaned for a file name."""
        if min(picture.shape[:2]) < TILE_PX // 2:
            raise ValueError(
                f"a picture of a tile is at least {TILE_PX // 2} px square, not {picture.shape[:2]}"
            )
        # the model's runs outside the gallery's lock: a match takes its snapshot meanwhile (the
        # model itself runs one batch at a time, so the match's own run may wait on it)
        (ready,) = self._prepare([(picture, tile, "")])
        with self._lock:
            stem = cleaned_name(name) if name else self.free_name()
            self.remove(stem)
            self._keep([dataclasses.replace(ready, name=stem)])
            if self.folder is not None:
                self._save(picture, tile, stem)
                save_vectors(cache_path(self.folder, stem), ready.key, ready.templates, ready.copies)
        return stem

    def _save(self, picture: np.ndarray, tile: L, stem: str) -> None:
        assert self.folder is not None
        self.folder.mkdir(parents=True, exist_ok=True)
        # the label first: a picture without one is skipped on loading, a label alone unseen
        (self.folder / f"{stem}.json").write_text(
            json.dumps({"tile": tile.to_json()}) + "\n", encoding="utf-8"
        )
        if not cv2.imwrite(str(self.folder / f"{stem}.png"), picture):
            raise OSError(f"cannot write {self.folder / stem}.png")

    def add_window(self, window: np.ndarray, tile: L, name: str | None = None) -> str:
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
            self._copies = [self._copies[k] for k in keep]
            self._stacked = None
            self._aligners = [self._aligners[k] for k in keep]
            self._colours = [self._colours[k] for k in keep]
            self._tiles = [self._tiles[k] for k in keep]
            self._names = [self._names[k] for k in keep]
            self.version += 1
        if self.folder is not None:
            for suffix in (*PICTURE_SUFFIXES, ".json", CACHE_SUFFIX):
                (self.folder / f"{name}{suffix}").unlink(missing_ok=True)

    def free_name(self, prefix: str = "seen") -> str:
        """A picture name no picture has yet: ``prefix`` and a number."""
        with self._lock:
            taken = set(self._names)
        if self.folder is not None and self.folder.is_dir():
            # a picture's files share its name (NAME.png, NAME.json, NAME.vectors.npz)
            taken |= {path.name.split(".")[0] for path in self.folder.iterdir()}
        number = len(taken) + 1  # past the pictures kept: a name taken back is not reused soon
        while f"{prefix}-{number:04d}" in taken:
            number += 1
        return f"{prefix}-{number:04d}"

    def _prepare(
        self, pictures: list[tuple[np.ndarray, L, str]], from_folder: bool = False
    ) -> list[Prepared[L]]:
        """Each picture's four ways of lying, ready to keep. ``from_folder``: the pictures were
        read from the gallery's folder, where their vectors may be kept (and are then kept)."""
        # np.rot90 with k=-1 turns a picture a quarter clockwise, as a tile's rotated(1) does
        turned = [
            [np.rot90(square_of_picture(picture), k=-quarter_turns) for quarter_turns in range(4)]
            for picture, _, _ in pictures
        ]
        keys = [picture_key(picture, self.likeness.fingerprint) for picture, _, _ in pictures]
        kept: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(pictures)
        if from_folder and self.folder is not None:
            names = [name for _, _, name in pictures]
            kept = [load_vectors(cache_path(self.folder, n), k) for n, k in zip(names, keys, strict=True)]
        todo = [k for k, vectors in enumerate(kept) if vectors is None]
        if todo:
            means, own = way_vectors(self.likeness, [square for k in todo for square in turned[k]])
            for row, k in enumerate(todo):
                mean, itself = means[4 * row : 4 * row + 4], own[4 * row : 4 * row + 4]
                kept[k] = mean, itself
                if from_folder and self.folder is not None:
                    save_vectors(cache_path(self.folder, pictures[k][2]), keys[k], mean, itself)
        ready = []
        for (_, tile, name), squares, key, vectors in zip(pictures, turned, keys, kept, strict=True):
            assert vectors is not None
            ready.append(
                Prepared(
                    name,
                    tile,
                    key,
                    vectors[0],
                    vectors[1],
                    [aligner(square) for square in squares],
                    [colour_aligner(square) for square in squares],
                )
            )
        return ready

    def _keep(self, ready: list[Prepared[L]]) -> None:
        with self._lock:
            for picture in ready:
                for quarter_turns in range(4):
                    self._templates.append(picture.templates[quarter_turns])
                    self._copies.append(picture.copies[quarter_turns])
                    self._aligners.append(picture.aligners[quarter_turns])
                    self._colours.append(picture.colours[quarter_turns])
                    self._tiles.append(picture.tile.rotated(quarter_turns))
                    self._names.append(picture.name)
            self._stacked = None
            self.version += 1

    def match(
        self,
        window: np.ndarray,
        allowed: Callable[[L], bool] | None = None,
        rivals: Iterable[L] = (),
        second_opinions: bool = True,
    ) -> GalleryMatch[L] | None:
        """The gallery's reading of a camera window (``CROP_PX`` square, centred on its cell),
        among the ways of lying ``allowed`` keeps; None when there are none to match.
        ``rivals``: every way of lying that might lie there; any the gallery has no picture of
        makes the match ``unseen_rivals``. Without ``second_opinions`` the grey layout's and
        the colours' margins are not worked out (a reader that weighs only ``ranked``).

        Each picture is compared with the square cut where that picture fits the window best.
        A tile's own outline is not always the strongest square of edges in its window (a print
        with straight lanes near its sides fools it), and a square cut a few pixels off is a
        different picture to the likeness."""
        check_window(window)
        with self._lock:  # one snapshot: pictures added meanwhile neither compete nor count
            tiles, colours = list(self._tiles), list(self._colours)
            templates, copies, units = self._kept()
        candidates = self._candidates(tiles, allowed)
        if not candidates:
            return None
        seen = aligner(window)
        found = corners_for(seen, units[candidates])
        # the likeness costs far more than aligning: only the places the best-fitting pictures
        # chose are cut; a picture that chose another is compared at the nearest of those
        places: list[tuple[int, int]] = []
        for place, _ in sorted(found, key=lambda item: item[1], reverse=True):
            if place not in places:
                places.append(place)
            if len(places) == PLACES:
                break
        vectors = self.likeness.vectors(
            np.stack([window[y : y + TILE_PX, x : x + TILE_PX] for x, y in places])
        )
        row = {place: k for k, place in enumerate(places)}
        at = [row[place] if place in row else row[nearest(place, places)] for place, _ in found]
        fits = np.einsum("kd,kd->k", templates[candidates], vectors[at]).tolist()
        copy_fits = np.einsum("kd,kd->k", copies[candidates], vectors[at]).tolist()
        verdict = scored_match(tiles, candidates, fits, copy_fits, rivals)
        if not second_opinions:
            return verdict
        return self._second_opinions(verdict, window, tiles, candidates, fits, found, colours)

    def _second_opinions(
        self,
        verdict: GalleryMatch[L],
        window: np.ndarray,
        tiles: list[L],
        candidates: list[int],
        fits: list[float],
        found: list[tuple[tuple[int, int], float]],
        colours: list[np.ndarray],
    ) -> GalleryMatch[L]:
        """The match with how much the grey pictures' fit and the colours back it."""
        layout: dict[L, float] = {}
        for k, (_, fit) in zip(candidates, found, strict=True):
            layout[tiles[k]] = max(layout.get(tiles[k], -1.0), fit)
        # grey cannot tell one faction's badge from another's of the same lightness: the grey
        # fit speaks only against tiles of another structure; the same structure with other
        # badges, or none, is left to the likeness and the colours (counting badges in the
        # structure recorded fewer dev tiles, none fewer wrong: docs/research.md)
        structure = self.kind.structure
        shape = structure(verdict.tile)
        others = [fit for tile, fit in layout.items() if structure(tile) != shape]
        layout_margin = layout[verdict.tile] - max(others, default=-1.0)
        seen = colour_aligner(window)
        colour: dict[L, float] = {}
        for k, fit in zip(candidates, fits, strict=True):
            close = tiles[k] == verdict.tile or verdict.score - fit < CLOSE_RIVAL
            if close:
                colour[tiles[k]] = max(colour.get(tiles[k], -1.0), colour_fit(seen, colours[k], FIND_PX))
        rivals = [fit for tile, fit in colour.items() if tile != verdict.tile]
        colour_margin = colour[verdict.tile] - max(rivals, default=-1.0)
        return dataclasses.replace(verdict, layout_margin=layout_margin, colour_margin=colour_margin)

    def second_look(self, window: np.ndarray, ways: Sequence[L]) -> SecondLook[L] | None:
        """Other ways than the likeness of telling ``ways`` apart in a camera window, the first
        of them against each of the others (``SecondLook``); None when the gallery has no
        picture of one of them."""
        check_window(window)
        with self._lock:
            tiles, colours, aligners = list(self._tiles), list(self._colours), list(self._aligners)
            _, _, units = self._kept()
        wanted = set(ways)
        candidates = [k for k, tile in enumerate(tiles) if tile in wanted]
        if {tiles[k] for k in candidates} != wanted:
            return None
        seen_grey = aligner(window)
        found = corners_for(seen_grey, units[candidates])
        seen_colour = colour_aligner(window)
        grey: dict[L, float] = {}
        colour: dict[L, float] = {}
        best: dict[L, tuple[int, tuple[int, int]]] = {}  # each way's best-fitting picture, and where
        for k, (place, fit) in zip(candidates, found, strict=True):
            tile = tiles[k]
            if fit > grey.get(tile, -np.inf):
                grey[tile] = fit
                best[tile] = (k, place)
            colour[tile] = max(colour.get(tile, -1.0), colour_fit(seen_colour, colours[k], FIND_PX))

        def pair(tile: L) -> tuple[np.ndarray, np.ndarray]:
            k, (x, y) = best[tile]
            square = planes(
                seen_grey[y : y + TILE_PX, x : x + TILE_PX], seen_colour[:, y : y + TILE_PX, x : x + TILE_PX]
            )
            return planes(aligners[k], colours[k]), square

        first = pair(ways[0])
        near = {tile: nearer(first, pair(tile)) for tile in ways[1:]}
        return SecondLook(grey, colour, near)

    def match_square(
        self, square: np.ndarray, allowed: Callable[[L], bool] | None = None, rivals: Iterable[L] = ()
    ) -> GalleryMatch[L] | None:
        """The reading of a tile's square already cut from a window (``tile_of_window``)."""
        with self._lock:
            tiles = list(self._tiles)
            templates, copies, _ = self._kept()
        candidates = self._candidates(tiles, allowed)
        if not candidates:
            return None
        seen = self.likeness.vectors(square[None])[0]
        fits = (templates[candidates] @ seen).tolist()
        copy_fits = (copies[candidates] @ seen).tolist()
        return scored_match(tiles, candidates, fits, copy_fits, rivals)

    def _kept(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ways, D) arrays of the pictures' views' vectors and their own, and the ways'
        aligners as ``corners_for`` takes them (under the lock)."""
        if self._stacked is None:
            dimensions = len(self._templates[0]) if self._templates else 1
            self._stacked = (
                np.array(self._templates, np.float32).reshape(-1, dimensions),
                np.array(self._copies, np.float32).reshape(-1, dimensions),
                unit_aligners(self._aligners),
            )
        return self._stacked

    @staticmethod
    def _candidates(tiles: list[L], allowed: Callable[[L], bool] | None) -> list[int]:
        verdicts: dict[L, bool] = {}  # the same tile lies in many templates
        for tile in tiles:
            if tile not in verdicts:
                verdicts[tile] = allowed is None or allowed(tile)
        return [k for k, tile in enumerate(tiles) if verdicts[tile]]
