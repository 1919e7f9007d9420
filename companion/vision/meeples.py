"""Meeples, read by comparing a cell with how it looked bare.

A meeple is small on a 48-pixel tile, and a black one on dark art is hard to tell from the art
in one picture. But the camera saw every tile before any meeple stood on it: the watcher keeps
that bare look of each cell, and the meeple model (``models/starwars/meeples.onnx``) reads a cell from
the pair (now, bare). What changed is what stands there, whatever the art looks like.

Knows no rules: it reports what stands at each spot, with probabilities.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from companion.games.base import Cell
from companion.vision.labels import EMPTY, FALLEN, MEEPLE_CLASSES, NO_MEEPLE, TileLabels
from companion.vision.lattice import looks_printed
from companion.vision.mat import TILE_PX
from companion.vision.onnx import open_session
from companion.vision.reader import CellReading, ChangePatch, ModelMissing, spot_readings

BARE_SURE = 0.9  # the cell model must be this sure that nothing stands anywhere on a bare look
# A tile just recorded is kept as bare unless the cell model is this sure that a meeple stands
# on it (a tile laid with its meeple already on it). Not lower: on art it was not trained on,
# the cell model takes parts of the art for meeples at 0.3-0.8.
MAY_STAND = 0.9
# Where a cell changed since its bare look: a pixel whose largest channel moved this much, in
# patches of at least this many pixels (a small meeple covers about 80 of a 48-pixel tile;
# camera noise and a nudged tile's edge leave specks and lines)
CHANGE_LEVEL = 40
# A recorded tile's look is kept while at most this share of the tile changed since (a large
# meeple covers about 9 % of it; a tile taken away changes most of it)
SAME_TILE = 0.15
CHANGE_MIN_PX = 20


class MeepleModel:
    """The pair model, loaded once, run by onnxruntime on one thread by default."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        """The meeple model at ``path`` (a game's: ``models/<game>/meeples.onnx``)."""
        labels_path = path.with_suffix(".labels.json")
        if not path.is_file() or not labels_path.is_file():
            raise ModelMissing(f"the meeple model is missing: {path} and {labels_path} must both exist")
        labels = json.loads(labels_path.read_text(encoding="utf-8"))
        if list(labels.get("meeples", [])) != list(MEEPLE_CLASSES):
            raise ValueError(f"{labels_path}: the meeple classes are not the ones this companion knows")
        self.spots: tuple[str, ...] = tuple(labels["spots"])
        self._session = open_session(path, threads)

    def run(self, now: np.ndarray, bare: np.ndarray) -> np.ndarray:
        """Meeple probabilities (N, spots, classes) for windows of cells now and bare."""
        if len(now) == 0:
            return np.zeros((0, len(self.spots), len(MEEPLE_CLASSES)), np.float32)
        feed = {"now": now.astype(np.float32), "bare": bare.astype(np.float32)}
        probs: np.ndarray = self._session.run(None, feed)[0]
        return probs


@dataclass(frozen=True)
class BareLook:
    window: np.ndarray
    tile_class: int  # what the cell model read there when the look was kept
    # kept because the game recorded a tile here just now: the cell model's reading of art it
    # may never have seen does not renew it (a meeple hiding part of the art changes that)
    recorded: bool = False


def _stands(name: str) -> bool:
    # "fallen" is left out: on art it was not trained on, the cell model takes art for a meeple
    # lying down at 0.5-0.75, which would keep a newly laid tile from ever having a bare look
    return name not in (NO_MEEPLE, FALLEN)


def nothing_stands(reading: CellReading) -> bool:
    return all(spot.chance(lambda name: name == NO_MEEPLE) >= BARE_SURE for spot in reading.spots)


class BareLooks:
    """How each tiled cell looked with nothing on it, kept as the game goes.

    A look is kept when a tile first shows in a cell with nothing on it, and renewed when the
    cell model reads another tile there with nothing on it (the tile was turned or replaced);
    it is dropped when the cell is bare felt again. A look is also kept when the game records a
    tile with no meeple on it (``keep_bare``), whatever the cell model makes of art it was not
    trained on; the cell model's reading no longer renews such a look.
    """

    def __init__(self, labels: TileLabels, model: MeepleModel | None) -> None:
        self.labels = labels
        self.model = model
        self.looks: dict[Cell, BareLook] = {}

    def update(self, readings: list[CellReading]) -> list[CellReading]:
        """Keep or renew the bare looks these readings show, and read the meeples of every cell
        that has one from the pair (the others keep the cell model's own reading)."""
        for reading in readings:
            best, confidence = reading.best()
            if reading.window is None:
                continue
            kept = self.looks.get(reading.cell)
            if self.labels.classes[best] == EMPTY and confidence >= 0.5:
                # a tile the game holds, which the cell model takes for felt (plain art of a box
                # it never saw), keeps its look while the cell still looks as it did but for a
                # meeple's patch or two
                if (
                    kept is not None
                    and kept.recorded
                    and changed_share(reading.window, kept.window) <= SAME_TILE
                ):
                    continue
                if not looks_printed(reading.window):
                    self.looks.pop(reading.cell, None)
                    continue
                # printed art the cell model takes for felt (a box it never saw): a tile lies
                # there, and its look stays as it was kept
                if kept is not None:
                    continue
            if kept is not None and (kept.tile_class == best or kept.recorded):
                continue
            if nothing_stands(reading):
                self.looks[reading.cell] = BareLook(reading.window.copy(), best)
            # else: a meeple may hide part of the art and change what the cell model reads;
            # keep the look there was, if any (a tile laid with its meeple already on it has none)
        return self._paired(readings)

    def keep_bare(self, reading: CellReading) -> None:
        """The game holds a tile with no meeple in this reading's cell: keep the look as the
        tile's bare look, unless the cell model is sure a meeple stands on it already."""
        if reading.window is None or any(spot.chance(_stands) >= MAY_STAND for spot in reading.spots):
            return
        self.looks[reading.cell] = BareLook(reading.window.copy(), reading.best()[0], recorded=True)

    def _paired(self, readings: list[CellReading]) -> list[CellReading]:
        paired = [r for r in readings if r.cell in self.looks and r.window is not None]
        if self.model is None or not paired:
            return readings
        now = np.stack([r.window for r in paired if r.window is not None])
        bare = np.stack([self.looks[r.cell].window for r in paired])
        probs = self.model.run(now, bare)
        by_cell = {
            r.cell: replace(
                r,
                spots=spot_readings(self.model.spots, probs[k]),
                meeples_from="pair",
                patches=changed_patches(now[k], bare[k]),
            )
            for k, r in enumerate(paired)
        }
        return [by_cell.get(r.cell, r) for r in readings]


def changed_share(now: np.ndarray, bare: np.ndarray) -> float:
    """The share of the tile's square (the window's middle) that changed since the bare look."""
    diff = cv2.medianBlur(cv2.absdiff(now, bare).max(axis=2), 3)
    top, left = (diff.shape[0] - TILE_PX) // 2, (diff.shape[1] - TILE_PX) // 2
    middle = diff[max(top, 0) : max(top, 0) + TILE_PX, max(left, 0) : max(left, 0) + TILE_PX]
    return float((middle >= CHANGE_LEVEL).mean())


def changed_patches(now: np.ndarray, bare: np.ndarray) -> tuple[ChangePatch, ...]:
    """The patches that changed between a cell's bare look and now, each centred as an offset
    from the window's centre in tiles (x east, y south): where something was put, and how
    large, measured without knowing the art."""
    diff = cv2.medianBlur(cv2.absdiff(now, bare).max(axis=2), 3)
    mask = (diff >= CHANGE_LEVEL).astype(np.uint8)
    count, labels, stats, centres = cv2.connectedComponentsWithStats(mask)
    half_x, half_y = now.shape[1] / 2, now.shape[0] / 2
    patches = []
    for k in range(1, count):
        area = int(stats[k, cv2.CC_STAT_AREA])
        if area < CHANGE_MIN_PX:
            continue
        patches.append(
            ChangePatch(
                float((centres[k][0] - half_x) / TILE_PX),
                float((centres[k][1] - half_y) / TILE_PX),
                area,
                int(max(stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT])),
                float(np.median(diff[labels == k])),
                tuple(int(v) for v in np.median(now[labels == k], axis=0)),  # type: ignore[arg-type]
            )
        )
    return tuple(patches)
