"""The cell model's training changes the art's look, never its structure (models/training/train_cells.py);
and it refuses the test-only data of the unseen art."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from models.training.train_cells import hue_turn, main, repaint


def test_a_hue_turn_keeps_greys_and_brightness_sum() -> None:
    turn = hue_turn(2.0)
    grey = np.array([90.0, 90.0, 90.0], np.float32)
    assert np.allclose(turn @ grey, grey, atol=1e-3)
    colour = np.array([200.0, 30.0, 60.0], np.float32)
    assert np.isclose((turn @ colour).sum(), colour.sum(), atol=1e-2)
    assert not np.allclose(turn @ colour, colour, atol=5)


def test_repaint_changes_the_share_asked_and_says_which_lost_their_colours() -> None:
    rng = np.random.default_rng(3)
    batch = rng.uniform(0, 255, (400, 64, 64, 3)).astype(np.float32)
    before = batch.copy()
    recoloured = repaint(batch, np.random.default_rng(4), 0.5)
    changed = np.abs(batch - before).reshape(400, -1).max(axis=1) > 0
    assert 0.35 < changed.mean() < 0.65
    assert not (recoloured & ~changed).any()
    assert batch.min() >= 0 and batch.max() <= 255
    untouched = rng.uniform(0, 255, (20, 64, 64, 3)).astype(np.float32)
    copy = untouched.copy()
    assert not repaint(untouched, rng, 0.0).any() and np.array_equal(untouched, copy)


def test_training_refuses_the_unseen_art(tmp_path: Path) -> None:
    data = tmp_path / "box.npz"
    np.savez(
        data,
        crops=np.zeros((1, 72, 72, 3), np.uint8),
        tiles=np.zeros(1),
        meeples=np.zeros((1, 6)),
        split="box-art",
    )
    with pytest.raises(SystemExit, match="test-only"):
        main(["--data", str(data), "--out", str(tmp_path / "x.onnx")])
