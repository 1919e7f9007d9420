"""A gallery of the user's own tiles: what their box's print looks like, learnt from pictures.

The cell model knows only the art it was trained on. The gallery holds pictures of the user's
print of each tile, with the tile as it lies in the picture: enrolled from a folder, or kept
from the camera when a person enters a tile on the phone. A camera window is read by cutting out
the tile's square (tile_window.py) and comparing it, by the learnt likeness of
companion/vision/likeness.py, with every picture turned the four ways (each kept as the mean of
camera-like views of it: gallery_views.py). It knows no rules: the tracker decides what a match
is worth. Tiles are the game's own: the gallery is told how to read a label and what a tile
shows (``PieceKind``).

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
from typing import Any, Generic, Protocol, Self, TypeVar

import cv2
import numpy as np

from companion.vision.colour_fit import colour_aligner, colour_fit
from companion.vision.gallery_cache import SUFFIX as CACHE_SUFFIX
from companion.vision.gallery_cache import cache_path, load_vectors, picture_key, save_vectors, way_vectors
from companion.vision.gallery_files import PICTURE_SUFFIXES, cleaned_name, read_folder
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

# A match this alike, and this much more alike than any other way of lying the rules allow, is
# sure. Set on the held-out styles of the third family of art (models/starwars/gallery.md): there, no
# window read sure was wrong, where at 0.8 two of 3 845 were.
MATCH_SURE = 0.9
MATCH_MARGIN = 0.2
# Before a box is enrolled, the gallery holds only the tiles people entered, and a tile of
# another type (the same route with another badge) has no picture to lose to: its nearest
# picture wins by a wide margin. So where a way of lying the rules allow has no picture, only a
# near copy of a picture is sure. The same print seen again scores 0.96 to 0.999 (median
# 0.999); on the third family's held-out games a tile of another type reached 0.989 against a
# gallery of answers alone (models/starwars/gallery.md).
NEAR_COPY = 0.99
NEAR_COPY_MARGIN = 0.1
# Once every type has a picture (the box is whole), a looser near copy is sure: the window this
# alike to one of the tile's pictures itself, and this much above any other way's nearest
# picture. About half such readings or more are of a type a person entered earlier in the game,
# whose window the gallery then learnt. Chosen on the third family's dev games' logged readings: 24 more
# sure, none wrong (docs/research.md, "Gallery").
SEEN_COPY = 0.95
SEEN_COPY_MARGIN = 0.05
# A match is also sure when three ways of comparing agree: the likeness puts it AGREED_MARGIN
# above every other allowed way, the grey picture fits the window LAYOUT_MARGIN better than that
# of any tile of another structure (``structure``), and no close rival's colours fit better
# (colour_fit.py). The bars were chosen on the reads of 12 held-out games of the third family of
# art with the grey fit against every other tile (models/starwars/gallery.md): 334 of 765 sure so, 1
# wrong. Against other structures only (docs/research.md, "Gallery"), the dev games recorded 575
# tiles right of 911 where they recorded 519, with the same 5 wrong.
AGREED_SCORE = 0.5
AGREED_MARGIN = 0.05
LAYOUT_MARGIN = 0.03
CLOSE_RIVAL = 0.15  # of likeness: the rivals whose colours are compared
# A match that is not sure still offers the likeliest ways of lying to the person asked, so the
# phone can take the answer in one tap: of 582 box-art tiles asked about in 20 enrolled games,
# the right one was first for 474 (81 %), among the first three for 569 (98 %) (docs/research.md,
# "Gallery").
CHOICES = 3
# the names of pictures of an enrolled box start so (``companion enroll``, the enrolment page)
ENROLLED = "enrolled"
LOAD_BATCH = 16  # pictures turned into vectors at once when a gallery folder is read


def enrolled_name(name: str) -> str:
    """The name a picture of an enrolled box is kept under: what ``Gallery.enrolled`` looks for."""
    return f"{ENROLLED}-{name}"


class Lying(Hashable, Protocol):
    """A tile as it lies, as a gallery picture is labelled (equal when it lies the same way)."""

    def rotated(self, quarter_turns: int) -> Self:
        """The tile turned clockwise by quarter turns."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The label's form (a record's inline tile)."""
        ...


L = TypeVar("L", bound=Lying)


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
class AgreedBars:
    """What the three ways of comparing must each reach for a match to be sure by agreeing."""

    score: float = AGREED_SCORE  # the likeness
    margin: float = AGREED_MARGIN  # the likeness above every other allowed way
    layout: float = LAYOUT_MARGIN  # the grey picture above any tile of another structure
    colour: float = 0.0  # the colours above any close rival's


SHIPPED_BARS = AgreedBars()


@dataclass(frozen=True)
class GalleryMatch(Generic[L]):
    tile: L  # the best-matching tile, as it lies in the window
    score: float  # the likeness of the window and the picture (its camera-like views), -1 to 1
    runner_up: float  # the best score of any other way of lying
    # some way of lying the rules allow has no picture in the gallery, so it could not compete
    unseen_rivals: bool = False
    # how much better the tile's grey picture fits the window than that of any tile of another
    # structure (negative when another fits best; its fit + 1 when no such tile is allowed, and
    # the grey then vouches for nothing); and its colours than any close rival's
    layout_margin: float = -1.0
    colour_margin: float = -1.0
    # the gallery holds a picture of every type of the box: until it does (before a box is
    # enrolled its pictures are camera windows of the tiles people entered), neither three ways
    # agreeing nor a near copy below NEAR_COPY is enough. Their bars were chosen with every type
    # enrolled.
    whole_box: bool = True
    # the ways of lying the rules allow, likeliest first (at most CHOICES): what to offer a
    # person when the match is not sure
    choices: tuple[L, ...] = ()
    # the likeness of the window and the tile's nearest picture itself, not its views, and of
    # the nearest picture of any other way: a near copy is judged by these
    copy_score: float = -1.0
    copy_runner_up: float = -1.0
    # every way of lying allowed, with its best score, likeliest first: what a reader that
    # weighs the neighbours' readings too (the rules' fit) chooses among
    ranked: tuple[tuple[L, float], ...] = ()

    @property
    def sure(self) -> bool:
        return self.sure_by(SHIPPED_BARS)

    def sure_by(self, bars: AgreedBars) -> bool:
        """Sure with other bars for the three ways agreeing: what models/training/gallery_bars.py weighs."""
        if self.near_copy(NEAR_COPY, NEAR_COPY_MARGIN):
            return True
        if self.unseen_rivals:
            return False
        if self.whole_box and self.near_copy(SEEN_COPY, SEEN_COPY_MARGIN):
            return True
        margin = self.score - self.runner_up
        alone = self.score >= MATCH_SURE and margin >= MATCH_MARGIN
        agreed = (
            self.whole_box
            and self.score >= bars.score
            and margin >= bars.margin
            and self.layout_margin >= bars.layout
            and self.colour_margin >= bars.colour
        )
        return alone or agreed

    def near_copy(self, score: float, margin: float) -> bool:
        """Whether the window is at least ``score`` alike to one of the tile's pictures itself,
        and ``margin`` above the nearest picture of any other way."""
        return self.copy_score >= score and self.copy_score - self.copy_runner_up >= margin


@dataclass(frozen=True)
class SecondLook(Generic[L]):
    """How some ways of lying fit a camera window by other means than the likeness: what tells
    close rivals apart when it cannot (``Gallery.second_look``)."""

    grey: dict[L, float]  # each way's grey picture's fit, at its best picture and place, -1 to 1
    colour: dict[L, float]  # and its colours' (colour_fit.py)
    # for each way after the first, how much nearer the window is to the first than to it where
    # their pictures differ, -1 to 1 (second_look.py)
    nearer: dict[L, float]


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
        verdict = self._verdict(tiles, candidates, fits, copy_fits, rivals)
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
        return self._verdict(tiles, candidates, fits, copy_fits, rivals)

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

    @staticmethod
    def _verdict(
        tiles: list[L],
        candidates: list[int],
        fits: list[float],
        copy_fits: list[float],
        rivals: Iterable[L],
    ) -> GalleryMatch[L]:
        best = best_by_tile(tiles, candidates, fits)
        ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
        runner_up = ranked[1][1] if len(ranked) > 1 else -1.0
        unseen = bool(set(rivals) - set(tiles) - {ranked[0][0]})
        choices = tuple(tile for tile, _ in ranked[:CHOICES])
        copy = best_by_tile(tiles, candidates, copy_fits)
        copy_score = copy.pop(ranked[0][0])
        return GalleryMatch(
            ranked[0][0],
            ranked[0][1],
            runner_up,
            unseen,
            choices=choices,
            copy_score=copy_score,
            copy_runner_up=max(copy.values(), default=-1.0),
            ranked=tuple(ranked),
        )


def best_by_tile(tiles: list[L], candidates: list[int], fits: list[float]) -> dict[L, float]:
    """Each way of lying's best score among its pictures."""
    best: dict[L, float] = {}
    for k, score in zip(candidates, fits, strict=True):
        tile = tiles[k]
        if score > best.get(tile, -np.inf):
            best[tile] = score
    return best
