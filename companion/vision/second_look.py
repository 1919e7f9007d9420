"""A second look at a window the likeness cannot decide: two close rivals compared where their
pictures differ.

Two types of one box often differ in a small part of the tile only (a badge, a house at a
crossing): the whole tile's likeness, grey fit and colour fit are then all nearly the same for
both. Here each rival's picture (its grey aligner and its Lab a and b planes, as the gallery
keeps them) is first fitted to the window's square at the rival's own best place, a gain and an
offset a plane, over the whole tile (so light and print do not count), and then only the pixels
where the two pictures differ most are weighed: the window is nearer the one whose fit leaves
less there. Needs no model, so it holds for any art.
"""

from __future__ import annotations

import numpy as np

# the share of a tile's pixels where two pictures differ most that decides between them
DIFFERING_SHARE = 0.15


def planes(grey: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """(3, H, W) float32: a grey aligner and its two colour planes, stacked."""
    return np.concatenate([grey[None].astype(np.float32), colour.astype(np.float32)], axis=0)


def residual(picture: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """What of ``seen`` (planes of the window's square) a gain and an offset a plane of
    ``picture`` (planes of the same size) leave unexplained, plane by plane."""
    left = np.empty_like(seen)
    for plane, (drawn, looked) in enumerate(zip(picture, seen, strict=True)):
        x = drawn.ravel() - drawn.mean()
        spread = float(x @ x)
        gain = float(x @ (looked.ravel() - looked.mean())) / spread if spread > 1e-6 else 0.0
        left[plane] = looked - looked.mean() - gain * (drawn - drawn.mean())
    return left


def differing(first: np.ndarray, second: np.ndarray, share: float = DIFFERING_SHARE) -> np.ndarray:
    """(H, W) bool: the pixels where two pictures' planes differ most (each plane's difference
    counted in its own spread), ``share`` of them."""
    apart = np.abs(first - second)
    spread = apart.reshape(len(apart), -1).std(axis=1)[:, None, None] + 1e-3
    summed = (apart / spread).sum(axis=0)
    mask: np.ndarray = summed >= np.quantile(summed, 1.0 - share)
    return mask


def nearer(first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]) -> float:
    """How much nearer a window is to the first picture than to the second where they differ,
    -1 to 1 (0: as near to both). Each is (the picture's planes, the window's square's planes
    at the place that picture fits best)."""
    where = differing(first[0], second[0])
    off_first = float(np.abs(residual(*first)[:, where]).mean())
    off_second = float(np.abs(residual(*second)[:, where]).mean())
    return (off_second - off_first) / (off_first + off_second + 1e-6)
