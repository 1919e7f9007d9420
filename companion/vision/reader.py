"""Read cells of the rectified view with the cell model (onnxruntime): tile class and meeples.

Readings are probabilities, never decisions: which reading the rules allow, and whether it is
sure enough to score, is the tracker's business.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from companion.errors import UserError
from companion.games.base import Cell
from companion.vision.labels import MEEPLE_CLASSES, TileLabels
from companion.vision.lattice import Lattice, crops
from companion.vision.onnx import open_session


@dataclass(frozen=True)
class SpotReading:
    spot: str
    label: str  # the likeliest of MEEPLE_CLASSES
    confidence: float
    probs: tuple[float, ...] = ()  # over MEEPLE_CLASSES

    def chance(self, wanted: Callable[[str], bool]) -> float:
        """How likely what stands here is one of the classes ``wanted`` picks."""
        return float(sum(p for p, name in zip(self.probs, MEEPLE_CLASSES, strict=True) if wanted(name)))

    def standing_by(self, part: int) -> dict[str, float]:
        """How likely a standing meeple of each colour (``part`` 0) or size (1) stands here."""
        totals: dict[str, float] = {}
        for p, name in zip(self.probs, MEEPLE_CLASSES, strict=True):
            if "/" in name:
                key = name.split("/")[part]
                totals[key] = totals.get(key, 0.0) + float(p)
        return totals


@dataclass(frozen=True)
class ChangePatch:
    """A patch of a cell that changed since its bare look (companion/vision/meeples.py)."""

    x: float  # its centre, in tiles from the window's centre (east)
    y: float  # (south)
    area: int  # pixels, at the mat's TILE_PX pixels a tile
    extent: int  # its longer side, pixels
    contrast: float  # the median change of its pixels (0-255, the largest channel's)
    colour: tuple[int, int, int] = (0, 0, 0)  # its median colour now (BGR)


@dataclass(frozen=True)
class CellReading:
    cell: Cell
    tile_probs: np.ndarray  # over the model's tile classes
    spots: tuple[SpotReading, ...]  # the likeliest meeple class at each spot
    embedding: np.ndarray
    window: np.ndarray | None = None  # the window of the view that was read
    meeples_from: str = "cell"  # "cell": this window alone; "pair": compared with the cell bare
    # with a pair: what changed since the bare look (companion/vision/meeples.py)
    patches: tuple[ChangePatch, ...] = ()

    @property
    def changes(self) -> tuple[tuple[float, float], ...]:
        """The centres of what changed since the bare look, in tiles from the window's centre."""
        return tuple((patch.x, patch.y) for patch in self.patches)

    def best(self) -> tuple[int, float]:
        index = int(np.argmax(self.tile_probs))
        return index, float(self.tile_probs[index])

    def meeples(self) -> list[SpotReading]:
        """The spots where something stands (a meeple or a fallen one)."""
        return [s for s in self.spots if s.label != MEEPLE_CLASSES[0]]


class ModelMissing(UserError):
    """A model file the companion ships is not there, or not the one it should be: the checkout
    is not whole."""


class CellModel:
    """The cell model, loaded once; one onnxruntime thread by default, as on the Pi's busy core."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        """The cell model at ``path`` (a game's: ``models/<game>/cells.onnx``), its labels beside it."""
        labels_path = path.with_suffix(".labels.json")
        if not path.is_file() or not labels_path.is_file():
            raise ModelMissing(f"the cell model is missing: {path} and {labels_path} must both exist")
        try:
            self.labels = TileLabels.load(labels_path)
        except KeyError as error:  # another model's labels, such as the meeples'
            raise ModelMissing(
                f"{labels_path} is not a cell model's labels (it has no {error.args[0]!r}): is {path.name} "
                "a cell model?"
            ) from None
        except (ValueError, TypeError, AttributeError, OSError) as error:  # JSON's are ValueErrors
            raise ModelMissing(f"{labels_path} is not a cell model's labels: {error}") from None
        self._session = open_session(path, threads)
        self.path = path

    def run(self, windows: np.ndarray, batch: int = 32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Tile probabilities (N, classes), meeple probabilities (N, spots, 12), embeddings (N, D)."""
        outputs: list[list[np.ndarray]] = [[], [], []]
        for start in range(0, len(windows), batch):
            chunk = windows[start : start + batch].astype(np.float32)
            for sink, value in zip(outputs, self._session.run(None, {"crops": chunk}), strict=True):
                sink.append(value)
        if not outputs[0]:
            classes, spots = len(self.labels.classes), len(self.labels.spots)
            return np.zeros((0, classes)), np.zeros((0, spots, len(MEEPLE_CLASSES))), np.zeros((0, 0))
        return tuple(np.concatenate(parts) for parts in outputs)  # type: ignore[return-value]

    def read(self, view: np.ndarray, lattice: Lattice, cells: list[Cell]) -> list[CellReading]:
        windows = crops(view, lattice, cells)
        tile_probs, meeple_probs, embeddings = self.run(windows)
        readings = [
            CellReading(
                cell,
                tile_probs[k],
                spot_readings(self.labels.spots, meeple_probs[k]),
                embeddings[k],
                windows[k],
            )
            for k, cell in enumerate(cells)
        ]
        return steadier(self, view, lattice, readings)


# A tile lies a few millimetres off the lattice and the model is surest with the window centred
# on it: a reading that takes a known tile for likeliest, but not surely, is read again from
# windows shifted this many pixels each way, and the chances averaged (a steadier estimate, not
# a lower bar).
SHIFTS_PX = ((0, 0), (2, 0), (-2, 0), (0, 2), (0, -2), (2, 2), (-2, -2))
SURE = 0.9  # the tracker's bar for scoring a reading


def steadier(
    model: CellModel, view: np.ndarray, lattice: Lattice, readings: list[CellReading]
) -> list[CellReading]:
    """``readings`` with every known-tile reading below ``SURE`` replaced by the average over shifted
    windows (meeples, embedding and window stay those of the centred window)."""
    unsure = [k for k, r in enumerate(readings) if r.best()[1] < SURE and model.labels.is_tile(r.best()[0])]
    if not unsure:
        return readings
    cells = [readings[k].cell for k in unsure]
    shifted = [Lattice((lattice.origin_px[0] + dx, lattice.origin_px[1] + dy)) for dx, dy in SHIFTS_PX]
    windows = np.concatenate([crops(view, at, cells) for at in shifted])
    probs = model.run(windows)[0].reshape(len(SHIFTS_PX), len(cells), -1).mean(axis=0)
    steady = list(readings)
    for k, p in zip(unsure, probs, strict=True):
        steady[k] = replace(readings[k], tile_probs=p)
    return steady


def spot_readings(spots: tuple[str, ...], probs: np.ndarray) -> tuple[SpotReading, ...]:
    """One reading per spot from a (spots, meeple classes) array of probabilities."""
    best = probs.argmax(axis=1)
    return tuple(
        SpotReading(spot, MEEPLE_CLASSES[int(best[i])], float(probs[i, best[i]]), tuple(map(float, probs[i])))
        for i, spot in enumerate(spots)
    )
