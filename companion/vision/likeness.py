"""The gallery's second reader: how alike two tiles look to the cell model.

The cell model's classes are learnt from one art, but its embedding (the layer before the
classes) still groups windows by what lies on them on art it never saw better than edges do: on
art of the third family, which the shipped model was not trained on, the nearest enrolled
picture by embedding was the right tile for 79 % of windows, the edge match for 63 %
(docs/vision.md, "Tiles of the user's own box").

A window is compared turned the four ways, each turn against the picture turned as much again,
and the four likenesses averaged: a reading that holds whichever way the camera looks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.starwars.tiles import Tile
from companion.vision.mat import CROP_PX, TILE_PX

# windows (N, CROP_PX, CROP_PX, 3) BGR -> their embeddings (N, D)
Embed = Callable[[np.ndarray], np.ndarray]

# A likeness this high, and this much above every other way of lying the rules allow, is sure.
# Chosen on windows of 15 held-out styles of the third art family (2 894 windows, one enrolled
# picture per type): 29 % of windows pass, 1 of those wrong (docs/vision.md).
LIKENESS_SURE = 0.85
LIKENESS_MARGIN = 0.10


def window_of(picture: np.ndarray) -> np.ndarray:
    """A camera-sized window round a picture of one tile: the tile at the lattice's size in the
    middle, its rim mirrored outwards where the camera would see the felt or a neighbour."""
    tile = cv2.resize(picture, (TILE_PX, TILE_PX), interpolation=cv2.INTER_AREA)
    rim = (CROP_PX - TILE_PX) // 2
    framed: np.ndarray = cv2.copyMakeBorder(tile, rim, rim, rim, rim, cv2.BORDER_REFLECT_101)
    return framed


def turns(window: np.ndarray) -> np.ndarray:
    """The window turned 0 to 3 quarter turns clockwise (as ``Tile.rotated`` turns a tile)."""
    return np.stack([np.ascontiguousarray(np.rot90(window, k=-q)) for q in range(4)])


def unit_embeddings(embed: Embed, windows: np.ndarray) -> np.ndarray:
    vectors = np.asarray(embed(windows), np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: np.ndarray = vectors / np.where(norms > 1e-9, norms, 1.0)
    return unit


@dataclass(frozen=True)
class Likened:
    tile: Tile  # the likeliest tile, as it lies in the window
    score: float  # mean cosine likeness over the four turns, -1 to 1
    runner_up: float  # the best score of any other allowed way of lying

    @property
    def sure(self) -> bool:
        return self.score >= LIKENESS_SURE and self.score - self.runner_up >= LIKENESS_MARGIN


class Likeness:
    """The gallery's pictures as the cell model sees them, each turned the four ways."""

    def __init__(self, embed: Embed) -> None:
        self.embed = embed
        self._names: list[str] = []
        self._tiles: list[Tile] = []  # each picture's tile as it lies in the picture
        self._vectors: list[np.ndarray] = []  # (4, D): the picture turned 0 to 3 quarter turns

    def add(self, name: str, picture: np.ndarray, tile: Tile) -> None:
        self.remove(name)
        self._names.append(name)
        self._tiles.append(tile)
        self._vectors.append(unit_embeddings(self.embed, turns(window_of(picture))))

    def remove(self, name: str) -> None:
        keep = [k for k, kept in enumerate(self._names) if kept != name]
        self._names = [self._names[k] for k in keep]
        self._tiles = [self._tiles[k] for k in keep]
        self._vectors = [self._vectors[k] for k in keep]

    def __len__(self) -> int:
        return len(self._names)

    def match(self, window: np.ndarray, allowed: Callable[[Tile], bool] | None = None) -> Likened | None:
        """The likeliest way of lying of a camera window (``CROP_PX`` square) among those
        ``allowed`` keeps; None when there are none."""
        if not self._vectors:
            return None
        seen = unit_embeddings(self.embed, turns(window))  # (4, D): the window turned q ways
        pictures = np.stack(self._vectors)  # (P, 4, D)
        # the window as it lies matches picture p turned t; the window turned q more matches the
        # picture turned t + q
        likeness = np.zeros((len(pictures), 4), np.float32)
        for q in range(4):
            for t in range(4):
                likeness[:, t] += pictures[:, (t + q) % 4] @ seen[q]
        likeness /= 4
        best: dict[Tile, float] = {}
        for p, tile in enumerate(self._tiles):
            for t in range(4):
                lying = tile.rotated(t)
                best[lying] = max(best.get(lying, -2.0), float(likeness[p, t]))
        ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
        allowed_ranked = [item for item in ranked if allowed is None or allowed(item[0])]
        if not allowed_ranked:
            return None
        tile, score = allowed_ranked[0]
        # the margin is taken over every way of lying, allowed or not: the rules veto a reading
        # but do not make one surer (a wrong tile whose rivals the rules rule out is still unsure)
        runner_up = max((s for t, s in ranked if t != tile), default=-1.0)
        return Likened(tile, score, runner_up)
