"""The third family of tile art (companion/sim/art_wide.py), drawn for training only: its parts
lie where the first family puts them, its styles are its own, and the unseen box art stays a
test that no training script can draw from."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from companion.games.starwars.art.box import BOX_STYLES
from companion.games.starwars.art.wide import (
    FIELDS,
    GROUNDS,
    PLANETS,
    ROUTES,
    WIDE_STYLES,
    WideStyle,
    draw_wide_tile,
    field_mask,
    is_wide_style,
    route_points,
)
from companion.games.starwars.sim.render import _tile_picture
from companion.games.starwars.tiles import parse_tile
from models.training.cell_data import SPLITS, TEST_ONLY, data_parser, split_of

SIZE = 96
ROUTE_NS = parse_tile({"features": [{"kind": "route", "edges": "NS"}]})
ROUTE_NE = parse_tile({"features": [{"kind": "route", "edges": "NE"}]})
ENDS_NS = parse_tile({"features": [{"kind": "route", "edges": "N"}, {"kind": "route", "edges": "S"}]})
FIELD_N = parse_tile({"features": [{"kind": "asteroid", "edges": "N"}]})
FIELDS_NS = parse_tile({"features": [{"kind": "asteroid", "edges": "N"}, {"kind": "asteroid", "edges": "S"}]})
FIELD_JOINED = parse_tile({"features": [{"kind": "asteroid", "edges": "NS"}]})


def test_the_styles_are_disjoint_from_every_other_family_and_split() -> None:
    first_family = [SPLITS[name].styles for name in ("train", "held-out", "calibration")]
    for styles in first_family:
        assert not set(styles) & set(WIDE_STYLES)
    assert not set(BOX_STYLES) & set(WIDE_STYLES)
    assert set(SPLITS["wide-train"].styles) | set(SPLITS["wide-held-out"].styles) <= set(WIDE_STYLES)
    assert is_wide_style(WIDE_STYLES[5]) and not is_wide_style(BOX_STYLES[5])
    # the box art is a test only: not a split a training script may draw from
    for split in SPLITS.values():
        assert not set(split.styles) & set(BOX_STYLES)
    assert set(TEST_ONLY["box-art"].styles) == set(BOX_STYLES)
    for a, b in itertools.combinations([*SPLITS.values(), *TEST_ONLY.values()], 2):
        assert not set(a.cameras) & set(b.cameras)


def test_the_options_name_the_splits() -> None:
    def split(*options: str) -> str:
        return split_of(data_parser("doc", 5).parse_args(["--out", "x.npz", *options]))

    assert split() == "train" and split("--wide") == "wide-train"
    assert split("--wide", "--held-out") == "wide-held-out"
    assert split("--box-art") == "box-art"
    with pytest.raises(SystemExit):
        split("--wide", "--box-art")


def test_styles_draw_every_part_in_many_ways() -> None:
    styles = [WideStyle.from_seed(s) for s in WIDE_STYLES[:300]]
    assert {s.route for s in styles} == set(ROUTES)
    assert {s.field for s in styles} == set(FIELDS)
    assert {s.planet for s in styles} == set(PLANETS)
    assert {s.ground for s in styles} == set(GROUNDS)
    dark = sum(max(s.ground_a) < 128 for s in styles)
    assert 0.3 < dark / len(styles) < 0.8  # light grounds and dark ones


def test_a_tile_is_the_same_for_the_same_seed_and_differs_by_copy_and_style() -> None:
    style = WideStyle.from_seed(WIDE_STYLES[0])
    first = draw_wide_tile(ROUTE_NS, style, SIZE)
    assert first.shape == (SIZE, SIZE, 3) and first.dtype == np.uint8
    assert np.array_equal(first, draw_wide_tile(ROUTE_NS, style, SIZE))
    assert not np.array_equal(first, draw_wide_tile(ROUTE_NS, WideStyle.from_seed(WIDE_STYLES[1]), SIZE))
    # the renderer draws these styles with this family
    assert np.array_equal(_tile_picture(ROUTE_NS, WIDE_STYLES[0], 0), draw_wide_tile(ROUTE_NS, style, 68))


def test_routes_run_from_side_to_side_as_in_the_first_family() -> None:
    for seed in WIDE_STYLES[:20]:
        style = WideStyle.from_seed(seed)
        straight = route_points(ROUTE_NS.features[0], style, SIZE)
        assert tuple(straight[0]) == (SIZE // 2, 0) and tuple(straight[-1]) == (SIZE // 2, SIZE)
        assert (np.abs(straight[:, 0] - SIZE // 2) <= 1).all()
        bend = route_points(ROUTE_NE.features[0], style, SIZE)
        assert tuple(bend[0]) == (SIZE // 2, 0) and tuple(bend[-1]) == (SIZE, SIZE // 2)
        # it bends towards the centre, never past it
        middle = bend[len(bend) // 2]
        assert middle[0] >= SIZE // 2 - 1 and middle[1] <= SIZE // 2 + 1


def test_asteroid_fields_lie_on_their_sides_and_join_only_when_one_feature() -> None:
    for seed in WIDE_STYLES[:20]:
        style = WideStyle.from_seed(seed)
        north = field_mask(FIELD_N.features[0], style, SIZE)
        assert north[2, SIZE // 2] == 255 and north[SIZE - 3, SIZE // 2] == 0
        assert north[SIZE // 2, SIZE // 2] == 0
        joined = field_mask(FIELD_JOINED.features[0], style, SIZE)
        assert joined[SIZE // 2, SIZE // 2] == 255 and joined[SIZE - 3, SIZE // 2] == 255
        apart = np.maximum(*(field_mask(f, style, SIZE) for f in FIELDS_NS.features))
        assert apart[SIZE // 2, SIZE // 2] == 0


def test_structure_shows_in_every_style() -> None:
    """Tiles that differ only in structure never draw alike: two routes that end in a hub are not
    one route through, two fields are not one."""
    centre = (slice(SIZE // 2 - 12, SIZE // 2 + 12),) * 2
    # where neither tile has anything: the two differ there only by their copies' grounds
    aside = (slice(SIZE * 2 // 5, SIZE * 3 // 5), slice(3, SIZE // 7))
    # on a plain ground: each copy of a tile has its own clouds and specks, which would hide this
    plain = [WideStyle.from_seed(s) for s in WIDE_STYLES[:200]]
    plain = [s for s in plain if s.ground == "flat" and s.specks == 0]
    assert len(plain) >= 8
    for style in plain:
        for a, b in ((ROUTE_NS, ENDS_NS), (FIELDS_NS, FIELD_JOINED), (ROUTE_NS, ROUTE_NE)):
            gap = np.abs(draw_wide_tile(a, style, SIZE).astype(float) - draw_wide_tile(b, style, SIZE))
            assert gap[centre].mean() > max(4.0, 2 * gap[aside].mean()), (style.seed, a, b)
