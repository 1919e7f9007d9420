"""The simulated table's second family of tile art (companion/sim/art_box.py): a stand-in for a
real box, never trained on, that still shows each tile's structure where the rules expect it."""

from __future__ import annotations

import cv2
import numpy as np

from companion.games.starwars.art.box import BOX_STYLES, BoxStyle, draw_box_tile, is_box_style
from companion.games.starwars.art.drawn import TileStyle, draw_tile
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.sim.render import Camera, PlacedTile, Renderer, Scene
from companion.games.starwars.tiles import Tile, parse_tile
from companion.vision.mat import STANDARD_MAT
from models.training.cell_data import SPLITS

ROUTE_NS = parse_tile({"features": [{"kind": "route", "edges": "NS"}]})
ROUTE_EW = parse_tile({"features": [{"kind": "route", "edges": "EW"}]})
PLANET = parse_tile({"features": [{"kind": "planet", "symbols": ["rebels"]}]})
SIZE = 96


def test_no_data_set_draws_from_the_box_styles() -> None:
    for split in SPLITS.values():
        assert not set(split.styles) & set(BOX_STYLES)
    assert is_box_style(BOX_STYLES[3]) and not is_box_style(SPLITS["held-out"].styles[3])


def test_a_box_tile_is_the_same_for_the_same_seed_and_differs_by_copy_and_style() -> None:
    style = BoxStyle.from_seed(BOX_STYLES[0])
    first = draw_box_tile(ROUTE_NS, style, SIZE)
    assert first.shape == (SIZE, SIZE, 3) and first.dtype == np.uint8
    assert np.array_equal(first, draw_box_tile(ROUTE_NS, style, SIZE))
    assert not np.array_equal(first, draw_box_tile(ROUTE_NS, style, SIZE, variant=1))
    assert not np.array_equal(first, draw_box_tile(ROUTE_NS, BoxStyle.from_seed(BOX_STYLES[1]), SIZE))


def test_the_box_art_looks_unlike_the_trained_art() -> None:
    for seed in range(4):
        ours = draw_tile(PLANET, TileStyle.from_seed(SPLITS["held-out"].styles[seed]), SIZE).astype(float)
        box = draw_box_tile(PLANET, BoxStyle.from_seed(BOX_STYLES[seed]), SIZE).astype(float)
        assert np.abs(ours - box).mean() > 20


def test_a_route_shows_along_its_sides_and_not_across() -> None:
    north = (slice(SIZE // 8, SIZE * 3 // 8), slice(SIZE * 3 // 8, SIZE * 5 // 8))  # above the centre

    def lane_pixels(tile: Tile, style: BoxStyle) -> int:
        patch = draw_box_tile(tile, style, SIZE)[north].astype(float)
        return int((np.linalg.norm(patch - np.array(style.lane, float), axis=2) < 60).sum())

    for seed in BOX_STYLES[:6]:
        style = BoxStyle.from_seed(seed)
        # the lanes of a north-south route cross that patch; an east-west one leaves it bare
        assert lane_pixels(ROUTE_NS, style) >= 20 and lane_pixels(ROUTE_EW, style) == 0


def test_one_field_across_the_tile_looks_unlike_two_fields_on_the_same_sides() -> None:
    # players score a field by what it joins, so a print shows it: rocks through the middle
    middle = (slice(SIZE * 3 // 8, SIZE * 5 // 8), slice(SIZE * 3 // 8, SIZE * 5 // 8))

    def rock_pixels(tile: Tile, style: BoxStyle, variant: int) -> int:
        patch = draw_box_tile(tile, style, SIZE, variant)[middle].astype(float)
        return int((np.linalg.norm(patch - np.array(style.rock, float), axis=2) < 50).sum())

    for joined, apart in (("NS", ("N", "S")), ("NE", ("N", "E"))):
        one = parse_tile({"features": [{"kind": "asteroid", "edges": joined}]})
        two = parse_tile({"features": [{"kind": "asteroid", "edges": side} for side in apart]})
        for seed in BOX_STYLES[:4]:
            style = BoxStyle.from_seed(seed)
            rocks_one = [rock_pixels(one, style, variant) for variant in range(4)]
            rocks_two = [rock_pixels(two, style, variant) for variant in range(4)]
            # apart: at most a star or two of a like colour, not a drift of rocks
            assert min(rocks_one) >= 20 and max(rocks_two) <= 8, (joined, seed, rocks_one, rocks_two)


def test_the_renderer_draws_box_styles_with_the_box_art() -> None:
    renderer = Renderer(Camera.from_seed(500_001))
    board = STANDARD_MAT.board

    def frame(style: int) -> np.ndarray:
        scene = Scene(board.centre)
        scene.tiles[(0, 0)] = PlacedTile(PLANET, style)
        return renderer.render(scene, 1).astype(float)

    trained, box = frame(SPLITS["held-out"].styles[0]), frame(BOX_STYLES[0])
    assert np.abs(trained - box).max() > 100


def test_a_box_tile_turned_is_its_print_turned() -> None:
    style = BoxStyle.from_seed(BOX_STYLES[2])
    for entry in load_catalog().tiles:
        upright = draw_box_tile(entry.tile, style, SIZE, variant=1)
        for quarter_turns, lying in entry.tile.distinct_rotations():
            if any(entry.tile.rotated(k) == entry.tile for k in (1, 2, 3)):
                continue  # a symmetric tile may lie either way round: the print cannot say
            assert np.array_equal(
                draw_box_tile(lying, style, SIZE, variant=1), np.rot90(upright, k=-quarter_turns)
            )


def likeness(a: np.ndarray, b: np.ndarray) -> float:
    """The normalised correlation of two pictures, -1 to 1."""
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


def test_a_print_is_the_same_whatever_size_it_is_drawn_at() -> None:
    # a tile on the table (drawn at the scene's scale) and its enrolled picture (larger) are one
    # print: the same rocks in the same places, the same mottle, not a new copy
    field = parse_tile({"features": [{"kind": "asteroid", "edges": "NE"}, {"kind": "route", "edges": "SW"}]})
    for seed in BOX_STYLES[:4]:
        style = BoxStyle.from_seed(seed)
        small = draw_box_tile(field, style, 68).astype(np.float32)
        large = cv2.resize(draw_box_tile(field, style, 136), (68, 68), interpolation=cv2.INTER_AREA)
        other_copy = draw_box_tile(field, style, 68, variant=1).astype(np.float32)

        assert likeness(small, large.astype(np.float32)) > 0.9
        assert likeness(small, other_copy) < likeness(small, large.astype(np.float32)) - 0.1


def test_copies_of_a_type_share_their_ground_and_differ_in_stars_and_rocks() -> None:
    lone_route = draw_box_tile(ROUTE_NS, BoxStyle.from_seed(BOX_STYLES[2]), SIZE).astype(np.float32)
    other_copy = draw_box_tile(ROUTE_NS, BoxStyle.from_seed(BOX_STYLES[2]), SIZE, variant=3).astype(
        np.float32
    )
    differs = np.abs(lone_route - other_copy).max(axis=2) > 30
    # a few specks differ, the ground and the route do not
    assert 0 < differs.mean() < 0.05
