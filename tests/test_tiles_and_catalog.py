"""Tiles as data: rotation, canonical form, and the bundled catalog approximation."""

from __future__ import annotations

import pytest

from companion.games.base import FormatError
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.tiles import ASTEROID_SIDE, PLANET, ROUTE_SIDE, SPACE, parse_tile


def tile(*features: dict[str, object]):  # type: ignore[no-untyped-def]
    return parse_tile({"features": list(features)})


def test_a_quarter_turn_moves_north_to_east() -> None:
    straight = tile({"kind": "route", "edges": "NS"})
    assert straight.rotated(1) == tile({"kind": "route", "edges": "EW"})
    corner = tile({"kind": "asteroid", "edges": "NW", "symbols": ["empire"]})
    assert corner.rotated(1) == tile({"kind": "asteroid", "edges": "NE", "symbols": ["empire"]})
    assert corner.rotated(4) == corner
    assert corner.rotated(1).rotated(3) == corner


def test_side_kinds_and_owners() -> None:
    t = tile(
        {"kind": "asteroid", "edges": "N"},
        {"kind": "route", "edges": "WE"},
        {"kind": "planet", "symbols": ["bounty"]},
    )
    assert t.side_kinds == (ASTEROID_SIDE, ROUTE_SIDE, SPACE, ROUTE_SIDE)
    assert t.side_feature[1] == t.side_feature[3] != t.side_feature[0]
    assert t.side_feature[2] == -1
    assert t.planet_index is not None and t.features[t.planet_index].kind == PLANET


def test_feature_order_and_edge_order_do_not_matter() -> None:
    a = tile(
        {"kind": "route", "edges": "WE"}, {"kind": "asteroid", "edges": "N", "symbols": ["rebels", "empire"]}
    )
    b = tile(
        {"kind": "asteroid", "edges": "N", "symbols": ["empire", "rebels"]}, {"kind": "route", "edges": "EW"}
    )
    assert a == b
    assert parse_tile(a.to_json()) == a


@pytest.mark.parametrize(
    ("features", "looks"),
    [
        ([{"kind": "route", "edges": "NS"}], 2),
        ([{"kind": "route", "edges": "SW"}], 4),
        ([{"kind": "planet", "symbols": ["rebels"]}], 1),
        ([{"kind": "asteroid", "edges": "NESW"}], 1),
        (
            [
                {"kind": "route", "edges": "N"},
                {"kind": "route", "edges": "E"},
                {"kind": "route", "edges": "S"},
                {"kind": "route", "edges": "W"},
            ],
            1,
        ),
        ([{"kind": "asteroid", "edges": "N"}, {"kind": "asteroid", "edges": "S"}], 2),
    ],
)
def test_each_way_a_tile_can_lie_counts_once(features: list[dict[str, object]], looks: int) -> None:
    assert len(tile(*features).distinct_rotations()) == looks


def test_a_route_through_and_a_route_ending_differ() -> None:
    through = tile({"kind": "route", "edges": "WE"})
    ending = tile({"kind": "route", "edges": "W"}, {"kind": "route", "edges": "E"})
    assert through != ending
    assert through.side_kinds == ending.side_kinds


def test_inline_tile_needs_features() -> None:
    with pytest.raises(FormatError, match='missing "features"'):
        parse_tile({})


def test_catalog_holds_76_tiles_with_one_start_tile() -> None:
    catalog = load_catalog()
    assert catalog.total() == 76
    assert sum(t.start for t in catalog.tiles) == 1
    assert catalog.start.count == 1
    assert len(catalog.bag()) == 75
    assert len({t.id for t in catalog.tiles}) == len(catalog.tiles)
    assert "approximation" in catalog.note and "not public" in catalog.note


def test_every_catalog_planet_carries_one_symbol() -> None:
    for entry in load_catalog().tiles:
        for feature in entry.tile.features:
            if feature.kind == PLANET:
                assert len(feature.symbols) == 1, entry.id
