"""The fourth family of tile art (companion/sim/art_invented.py), drawn for the gallery's likeness
to train on: each style invents its own emblems, sprites and route marks, and a print behaves as
a print (the same at any size, turned when the tile turns, shared by the copies of a type)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.games.starwars.art.box import BOX_STYLES
from companion.games.starwars.art.invented import (
    FACTIONS,
    GLYPHS,
    INVENTED_STYLES,
    PLANET_LOOKS,
    ROUTE_MARKS,
    SPRITES,
    InventedStyle,
    draw_invented_tile,
    is_invented_style,
)
from companion.games.starwars.art.wide import WIDE_STYLES
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.sim.render import tile_picture
from companion.games.starwars.tiles import Tile, parse_tile
from models.training.cell_data import SPLITS, data_parser, split_of

SIZE = 96
ROUTE_NS = parse_tile({"features": [{"kind": "route", "edges": "NS"}]})
FIELD_AND_ROUTE = parse_tile(
    {"features": [{"kind": "asteroid", "edges": "NE"}, {"kind": "route", "edges": "SW"}]}
)


def planet_of(faction: str) -> Tile:
    return parse_tile({"features": [{"kind": "planet", "symbols": [faction]}]})


def likeness(a: np.ndarray, b: np.ndarray) -> float:
    """The normalised correlation of two pictures, -1 to 1."""
    a, b = a.astype(np.float64) - a.mean(), b.astype(np.float64) - b.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


def test_the_family_s_parts_share_no_style_with_each_other_or_another_family() -> None:
    ours = ("invented-train", "invented-held-out")
    assert set(SPLITS[ours[0]].styles) | set(SPLITS[ours[1]].styles) == set(INVENTED_STYLES)
    assert not set(SPLITS[ours[0]].styles) & set(SPLITS[ours[1]].styles)
    for name, split in SPLITS.items():
        if name not in ours:
            assert not set(split.styles) & set(INVENTED_STYLES), name
    assert not set(BOX_STYLES) & set(INVENTED_STYLES) and not set(WIDE_STYLES) & set(INVENTED_STYLES)
    assert is_invented_style(INVENTED_STYLES[7]) and not is_invented_style(WIDE_STYLES[7])
    # the renderer draws these styles with this family
    style = INVENTED_STYLES[3]
    assert np.array_equal(
        tile_picture(ROUTE_NS, style, SIZE),
        draw_invented_tile(ROUTE_NS, InventedStyle.from_seed(style), SIZE),
    )


def test_the_options_name_the_family_s_two_parts_and_nothing_else() -> None:
    def split(*options: str) -> str:
        return split_of(data_parser("doc", 5).parse_args(["--out", "x.npz", *options]))

    assert split("--invented") == "invented-train"
    assert split("--invented", "--held-out") == "invented-held-out"
    for other in ("--wide", "--box-art", "--calibration"):
        with pytest.raises(SystemExit, match=r"--wide or --invented, not both|has no"):
            split("--invented", other)


def test_styles_invent_every_kind_of_part() -> None:
    styles = [InventedStyle.from_seed(s) for s in INVENTED_STYLES[:300]]
    assert {g.kind for s in styles for g in s.glyphs.values()} == set(GLYPHS)
    assert {s.sprite for s in styles} == set(SPRITES)
    assert {s.route_mark for s in styles} == set(ROUTE_MARKS)
    assert {s.planet_look for s in styles} == set(PLANET_LOOKS)
    one_ink = sum(len({g.colour for g in s.glyphs.values()}) == 1 for s in styles)
    assert 0.15 < one_ink / len(styles) < 0.6  # some boxes tell factions apart by shape alone


def test_every_style_draws_the_three_factions_apart() -> None:
    # on the planet, where an emblem lies on the planet's body: some pixels differ plainly
    # (by more than 40 levels in a channel) between any two factions, in every style
    for seed in INVENTED_STYLES[:300]:
        style = InventedStyle.from_seed(seed)
        pictures = [draw_invented_tile(planet_of(f), style, SIZE).astype(int) for f in FACTIONS]
        for a in range(3):
            for b in range(a + 1, 3):
                plain = int((np.abs(pictures[a] - pictures[b]).max(axis=2) > 40).sum())
                assert plain >= 5, (seed, FACTIONS[a], FACTIONS[b], plain)


def test_a_tile_is_the_same_for_the_same_seed_and_differs_by_style() -> None:
    style = InventedStyle.from_seed(INVENTED_STYLES[0])
    first = draw_invented_tile(FIELD_AND_ROUTE, style, SIZE)
    assert first.shape == (SIZE, SIZE, 3) and first.dtype == np.uint8
    assert np.array_equal(first, draw_invented_tile(FIELD_AND_ROUTE, style, SIZE))
    other_style = draw_invented_tile(FIELD_AND_ROUTE, InventedStyle.from_seed(INVENTED_STYLES[1]), SIZE)
    assert np.abs(first.astype(float) - other_style).mean() > 10


def test_copies_share_their_print_and_differ_only_in_their_field_s_sprites() -> None:
    for seed in INVENTED_STYLES[:6]:
        style = InventedStyle.from_seed(seed)
        assert np.array_equal(
            draw_invented_tile(ROUTE_NS, style, SIZE), draw_invented_tile(ROUTE_NS, style, SIZE, 2)
        )
        one = draw_invented_tile(FIELD_AND_ROUTE, style, SIZE).astype(np.float32)
        other = draw_invented_tile(FIELD_AND_ROUTE, style, SIZE, 2).astype(np.float32)
        differs = np.abs(one - other).max(axis=2) > 30
        assert differs.any(), seed
        # the north-east field holds the differences; the south-west corner, far from it, does not
        assert not differs[SIZE * 3 // 4 :, : SIZE // 4].any(), seed


def test_a_print_is_the_same_whatever_size_it_is_drawn_at() -> None:
    # the same sprites and marks in the same places; strokes a pixel thin alias a little
    for seed in INVENTED_STYLES[:12]:
        style = InventedStyle.from_seed(seed)
        small = draw_invented_tile(FIELD_AND_ROUTE, style, 68)
        large = cv2.resize(
            draw_invented_tile(FIELD_AND_ROUTE, style, 136), (68, 68), interpolation=cv2.INTER_AREA
        )
        assert likeness(small, large) > 0.85, seed


def test_a_tile_turned_is_its_print_turned() -> None:
    style = InventedStyle.from_seed(INVENTED_STYLES[4])
    for entry in load_catalog().tiles:
        if any(entry.tile.rotated(k) == entry.tile for k in (1, 2, 3)):
            continue  # a symmetric tile may lie either way round: the print cannot say
        upright = draw_invented_tile(entry.tile, style, SIZE, variant=1)
        for quarter_turns, lying in entry.tile.distinct_rotations():
            assert np.array_equal(
                draw_invented_tile(lying, style, SIZE, variant=1), np.rot90(upright, k=-quarter_turns)
            )
