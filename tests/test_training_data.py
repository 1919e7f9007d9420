"""The training data scripts (no torch needed): what they draw and the options they take."""

from __future__ import annotations

import itertools
import random

import numpy as np

from companion.games.starwars.spots import PLANET_SPOTS, SPOTS
from companion.vision.labels import FALLEN, MEEPLE_CLASSES, MEEPLE_COLOURS, MEEPLE_SIZES, NO_MEEPLE
from models.training.calibrate import calibrate
from models.training.cell_data import SPLITS, data_parser
from models.training.meeple_data import _meeples_for, pair_sample

PLANET_TILE = ["N", "E", "P1", "P2"]  # a tile with two edge features and a planet


def _draws(hard: bool, count: int = 3000) -> list[list[tuple[str, str, str, bool]]]:
    rng = random.Random(7)
    return [_meeples_for(list(PLANET_TILE), rng, hard) for _ in range(count)]


def _share(draws: list[list[tuple[str, str, str, bool]]], test: object) -> float:
    meeples = [m for draw in draws for m in draw]
    return sum(1 for m in meeples if test(m)) / len(meeples)  # type: ignore[operator]


def test_hard_data_puts_more_meeples_on_planets_and_more_small_black_ones() -> None:
    plain, hard = _draws(False), _draws(True)

    def on_planet(draws: list[list[tuple[str, str, str, bool]]]) -> float:
        with_meeples = [d for d in draws if d]
        return sum(1 for d in with_meeples if any(m[0] in PLANET_SPOTS for m in d)) / len(with_meeples)

    assert on_planet(hard) >= 0.75 > on_planet(plain) + 0.15
    assert _share(hard, lambda m: m[2] == "small") > 0.6 > _share(plain, lambda m: m[2] == "small")
    assert _share(hard, lambda m: m[1] == "black") > 0.3 > _share(plain, lambda m: m[1] == "black")
    # the meeples a tile is dealt are on its own spots, never two on one spot
    for draw in hard:
        spots = [m[0] for m in draw]
        assert set(spots) <= set(PLANET_TILE) and len(spots) == len(set(spots))


def _first_draw(tile_spots: list[str], rng: random.Random) -> list[tuple[str, str, str, bool]]:
    """How the held-out pairs were drawn, before the hard option existed."""
    count = rng.choices((0, 1, 2), (0.5, 0.4, 0.1))[0]
    chosen = rng.sample(tile_spots, min(count, len(tile_spots)))
    if "P1" in chosen and "P2" in chosen and rng.random() < 0.5:
        chosen.remove("P2")
    return [(s, rng.choice(MEEPLE_COLOURS), rng.choice(MEEPLE_SIZES), rng.random() < 0.08) for s in chosen]


def test_the_default_draw_is_the_one_the_held_out_pairs_were_made_with() -> None:
    for seed in range(300):
        drawn = _meeples_for(list(PLANET_TILE), random.Random(seed), False)
        assert drawn == _first_draw(list(PLANET_TILE), random.Random(seed))


def test_a_hard_board_gives_pairs_labelled_by_spot() -> None:
    now, bare, meeples = pair_sample(5, "train", hard=True)
    assert now.shape == bare.shape and now.shape[0] == len(meeples) > 20
    assert meeples.shape[1] == len(SPOTS)
    assert meeples.min() >= MEEPLE_CLASSES.index(NO_MEEPLE) and meeples.max() < len(MEEPLE_CLASSES)
    assert (meeples > MEEPLE_CLASSES.index(FALLEN)).any()
    # where meeples stand the two looks differ; where none stands they are the same board
    changed = np.abs(now.astype(int) - bare.astype(int)).mean(axis=(1, 2, 3))
    assert changed[(meeples > 0).any(axis=1)].mean() > changed[(meeples == 0).all(axis=1)].mean()


def test_the_splits_are_disjoint_and_the_first_two_draw_as_they_always_did() -> None:
    # the keys seed every draw: the data files made when a split was a flag must stay the same
    assert (SPLITS["train"].key, SPLITS["held-out"].key) == (str(False), str(True))
    for a, b in itertools.combinations(SPLITS.values(), 2):
        assert not set(a.styles) & set(b.styles) and not set(a.cameras) & set(b.cameras)
        assert a.key != b.key


def test_the_data_scripts_share_their_options() -> None:
    args = data_parser("doc", 600).parse_args(["--out", "x.npz", "--held-out", "--first-seed", "4"])
    assert (args.frames, args.split, args.first_seed, args.workers, args.out) == (
        600,
        "held-out",
        4,
        2,
        "x.npz",
    )
    assert data_parser("doc", 5).parse_args(["--out", "x.npz"]).split == "train"
    assert data_parser("doc", 5).parse_args(["--out", "x.npz", "--calibration"]).split == "calibration"


def test_calibration_counts_what_each_threshold_would_record_and_get_wrong() -> None:
    def probs(**chances: float) -> list[float]:
        row = [0.0] * len(MEEPLE_CLASSES)
        for name, p in chances.items():
            row[MEEPLE_CLASSES.index(name.replace("_", "/"))] = p
        row[0] = 1.0 - sum(row)
        return row

    red_small = MEEPLE_CLASSES.index("red/small")
    spots = np.array(
        [
            [probs(red_small=0.97), probs(red_small=0.88, red_large=0.12)],  # right; right, unsure
            [probs(red_large=0.92, red_small=0.08), probs(red_small=0.6, fallen=0.3)],  # wrong; lies
            [probs(red_small=0.86), probs()],  # nothing there; nothing seen, never counted
        ]
    )
    truth = np.array([[red_small, red_small], [red_small, MEEPLE_CLASSES.index(FALLEN)], [0, 0]])
    report = calibrate(spots, truth)
    assert report["spots_seen_standing"] == 5
    assert report["two_sizes"]["0.90"] == {
        "asked": 3,
        "recorded": 2,
        "where_nothing_stands": 0,
        "where_one_lies": 0,
        "of_the_other_size": 1,
    }
    assert report["two_sizes"]["0.85"]["recorded"] == 4  # the unsure one and the one on nothing too
    assert report["one_size"]["0.85"] == {
        "asked": 0,
        "recorded": 5,
        "where_nothing_stands": 1,
        "where_one_lies": 1,
        "of_the_other_size": 1,
    }
    assert report["one_size"]["0.95"]["asked"] == 2  # a meeple 0.9 or 0.86 likely there at all
