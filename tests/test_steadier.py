"""A tile reading that is not sure is read again from shifted windows and averaged."""

from __future__ import annotations

import numpy as np

from companion.vision.labels import TileLabels
from companion.vision.lattice import Lattice, crops
from companion.vision.mat import TILE_PX
from companion.vision.reader import SHIFTS_PX, CellReading, steadier


class BrightnessModel:
    """A stand-in model: the brighter the window, the surer of class 1 (else class 0)."""

    def __init__(self) -> None:
        self.windows = 0
        self.labels = TileLabels(({"features": []}, {"features": []}, "empty"), ())

    def run(self, windows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        self.windows += len(windows)
        sure = windows.reshape(len(windows), -1).mean(axis=1) / 255.0
        return (
            np.stack([1 - sure, sure, 0 * sure], axis=1),
            np.zeros((len(windows), 0, 0)),
            np.zeros((len(windows), 0)),
        )


def test_only_unsure_readings_are_read_again_and_averaged() -> None:
    centre = 6 * TILE_PX
    # bright just beyond the right edge of the centred window: only windows shifted right see it
    view = np.zeros((12 * TILE_PX, 12 * TILE_PX, 3), np.uint8)
    view[:, centre + 33 :] = 255
    lattice = Lattice((centre, centre))
    unsure = CellReading((0, 0), np.array([0.7, 0.3, 0.0]), (), np.zeros(1))
    sure = CellReading((1, 0), np.array([0.02, 0.98, 0.0]), (), np.zeros(1))
    felt = CellReading((2, 0), np.array([0.2, 0.2, 0.6]), (), np.zeros(1))  # likeliest bare: left as is
    model = BrightnessModel()
    steady = steadier(model, view, lattice, [unsure, sure, felt])  # type: ignore[arg-type]
    assert model.windows == len(SHIFTS_PX)  # neither the sure reading nor the felt was read again
    assert steady[1] is sure and steady[2] is felt
    each = [
        model.run(crops(view, Lattice((centre + dx, centre + dy)), [(0, 0)]))[0][0, 1] for dx, dy in SHIFTS_PX
    ]
    assert each[0] < 0.01 < max(each)  # the centred window alone sees nothing bright
    assert abs(steady[0].tile_probs[1] - np.mean(each)) < 1e-6
