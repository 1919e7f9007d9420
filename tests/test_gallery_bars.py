"""Weighing the gallery's bars on logged readings (models/training/gallery_bars.py): the readings
models.training.evaluate logs come back as the matches they were, the shipped bars count them as the
gallery did, and the grid's ceiling trades readings recorded for readings wrong."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.games.starwars.catalog import load_catalog
from companion.vision.gallery_match import (
    AGREED_MARGIN,
    AGREED_SCORE,
    LAYOUT_MARGIN,
    NEAR_COPY,
    AgreedBars,
    GalleryMatch,
)
from models.training import gallery_bars
from models.training.evaluate import gallery_reads

TILES = [entry.tile for entry in load_catalog().tiles]


def _report(tmp_path: Path) -> Path:
    """One game of four readings: two sure and right by the shipped bars, one sure only with a
    lower grey bar (right), one sure only with lower likeness bars (wrong); and a second game
    of readings each just short of one bar but one."""
    sure = GalleryMatch(TILES[1], 0.8, 0.6, layout_margin=0.2, colour_margin=0.1)
    reads = {
        (0, 1): sure,
        (0, 2): replace(sure, tile=TILES[2]),
        (1, 0): replace(sure, tile=TILES[3], layout_margin=LAYOUT_MARGIN - 0.02),
        (1, 1): replace(sure, tile=TILES[4], score=AGREED_SCORE - 0.05, runner_up=AGREED_SCORE - 0.15),
    }
    truth = {(0, 1): TILES[1], (0, 2): TILES[2], (1, 0): TILES[3], (1, 1): TILES[5]}
    short = {
        (0, 1): replace(sure, runner_up=sure.score - AGREED_MARGIN + 0.01),  # the likeness's margin
        (0, 2): replace(sure, colour_margin=-0.01),  # a close rival's colours
        (0, 3): replace(sure, whole_box=False),  # the box not all enrolled
        (0, 4): replace(sure, unseen_rivals=True, copy_score=NEAR_COPY, copy_runner_up=0.5),  # a near copy
        (0, 5): replace(sure, unseen_rivals=True, copy_score=NEAR_COPY, copy_runner_up=NEAR_COPY - 0.01),
    }
    games = [
        {"seed": 1, "gallery_reads": gallery_reads(reads, truth)},
        {"seed": 2, "gallery_reads": gallery_reads(short, dict.fromkeys(short, TILES[1]))},
    ]
    path = tmp_path / "games.json"
    path.write_text(json.dumps({"games": {"per_game": games}}))
    return path


def test_logged_readings_come_back_as_the_matches_the_gallery_made(tmp_path: Path) -> None:
    everything = gallery_bars.reads_of(json.loads(_report(tmp_path).read_text()), "games.json")
    reads, short = everything[:4], everything[4:]
    assert [read.right for read in reads] == [True, True, True, False]
    assert [read.match.tile for read in reads] == TILES[1:5]
    assert gallery_bars.tally(reads, AgreedBars()) == (2, 0)
    assert gallery_bars.tally(reads, AgreedBars(layout=LAYOUT_MARGIN - 0.03)) == (3, 0)
    assert gallery_bars.tally(reads, AgreedBars(score=AGREED_SCORE - 0.1, layout=-1.0)) == (4, 1)
    # each reading of the second game as the gallery judged it, and with the one bar it missed lowered
    assert [read.match.sure for read in short] == [False, False, False, True, False]
    assert short[0].match.sure_by(AgreedBars(margin=AGREED_MARGIN - 0.02))
    assert short[1].match.sure_by(AgreedBars(colour=-0.02))
    assert not short[2].match.sure_by(AgreedBars(score=-1.0, margin=-1.0, layout=-1.0, colour=-1.0))


def test_the_ceiling_is_the_most_readings_sure_at_each_count_wrong(tmp_path: Path) -> None:
    reads = gallery_bars.reads_of(json.loads(_report(tmp_path).read_text()), "games.json")[:4]
    best = gallery_bars.ceiling(reads, most_wrong=2)
    assert best[0][0] == 3 and gallery_bars.tally(reads, best[0][1]) == (3, 0)
    assert best[1][0] == 4 and best[2][0] == 4


def test_the_tool_prints_the_shipped_figures_and_refuses_a_file_without_readings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gallery_bars.main([str(_report(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "9 readings, the right tile first for 8" in out and "sure of 3, 0 of them wrong" in out
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"games": {"per_game": [{"seed": 9000}]}}))
    assert gallery_bars.main([str(old)]) == 2
    assert "game 1 has no gallery_reads" in capsys.readouterr().err
    (tmp_path / "cells.json").write_text(json.dumps({"cells": {}}))
    assert gallery_bars.main([str(tmp_path / "cells.json")]) == 2
    assert "holds no games" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda row: row.pop("score"), "game 1, reading 2: KeyError('score')"),
        (lambda row: row.update(tile={"features": [{"kind": "moon"}]}), "game 1, reading 2: FormatError"),
        (lambda row: row.update(score="high"), "game 1, reading 2: ValueError"),
    ],
)
def test_a_bad_reading_is_named_by_its_game_and_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Callable[[dict[str, Any]], object], said: str
) -> None:
    path = _report(tmp_path)
    report = json.loads(path.read_text())
    change(report["games"]["per_game"][0]["gallery_reads"][1])
    path.write_text(json.dumps(report))
    assert gallery_bars.main([str(path)]) == 2
    assert said in capsys.readouterr().err
    path.write_text("{not json")
    assert gallery_bars.main([str(path)]) == 2
    assert str(path) in capsys.readouterr().err
