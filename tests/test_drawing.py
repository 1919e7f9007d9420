"""The board drawing: a well-formed standalone SVG that shows every tile, feature, symbol and meeple."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from companion.games.base import Cell
from companion.games.starwars.drawing import BADGES, PLAYERS, board_svg
from companion.games.starwars.tiles import Tile, parse_tile

SVG = "{http://www.w3.org/2000/svg}"


def tile(*features: dict[str, Any]) -> Tile:
    return parse_tile({"features": list(features)})


ROUTE_WE = tile({"kind": "route", "edges": "WE"})
FIELD_N = tile({"kind": "asteroid", "edges": "N", "symbols": ["empire"]})
PLANET = tile({"kind": "planet", "symbols": ["rebels"]})


def sample_board() -> tuple[dict[Cell, Tile], list[tuple[Cell, int, str, str]]]:
    """A 3x3 board with every kind of feature, symbol and meeple colour, for tests and the eye check."""
    tiles = {
        (0, 0): tile(
            {"kind": "asteroid", "edges": "NW", "symbols": ["empire"]}, {"kind": "route", "edges": "ES"}
        ),
        (1, 0): tile(
            {"kind": "route", "edges": "WE", "symbols": ["bounty"]}, {"kind": "asteroid", "edges": "N"}
        ),
        (2, 0): tile({"kind": "route", "edges": "W"}, {"kind": "planet", "symbols": ["rebels"]}),
        (0, 1): tile(
            {"kind": "route", "edges": "NS"}, {"kind": "asteroid", "edges": "E", "symbols": ["rebels"]}
        ),
        (1, 1): tile({"kind": "asteroid", "edges": "NEW", "symbols": ["empire", "rebels"]}),
        (2, 1): tile({"kind": "asteroid", "edges": "NESW", "symbols": ["bounty"]}),
        (0, 2): tile(
            {"kind": "route", "edges": "N"}, {"kind": "route", "edges": "E"}, {"kind": "route", "edges": "S"}
        ),
        (1, 2): tile({"kind": "route", "edges": "WS"}, {"kind": "route", "edges": "NE"}),
        (2, 2): tile({"kind": "asteroid", "edges": "N"}, {"kind": "asteroid", "edges": "E"}),
    }
    meeples = [
        ((0, 0), 0, "red", "small"),
        ((1, 0), 1, "green", "large"),
        ((2, 0), 1, "black", "small"),
        ((1, 1), 0, "white", "small"),
        ((1, 2), 0, "orange", "large"),
        ((0, 1), 1, "white", "large"),
    ]
    return tiles, meeples


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def tile_groups(root: ET.Element) -> dict[str, ET.Element]:
    """Each tile's group, by the text of its <title>."""
    groups = {}
    for g in root.findall(f"{SVG}g"):
        title = g.find(f"{SVG}title")
        if title is not None:
            groups[title.text or ""] = g
    return groups


def view_box(root: ET.Element) -> tuple[float, float, float, float]:
    x, y, w, h = (float(v) for v in root.attrib["viewBox"].split())
    return x, y, w, h


def test_output_is_a_well_formed_standalone_svg() -> None:
    tiles, meeples = sample_board()
    svg = board_svg(tiles, meeples, highlight={(1, 1)})
    assert svg.startswith("<svg")
    assert 'xmlns="http://www.w3.org/2000/svg"' in svg
    root = parse(svg)
    assert root.tag == f"{SVG}svg"
    assert root.attrib["width"] == "100%"
    assert "height" not in root.attrib
    # Nothing loaded from elsewhere and nothing run.
    for needle in ("<script", "href", "url(", "@import", "http://", "https://"):
        assert needle not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_view_box_covers_every_tile_with_a_margin() -> None:
    tiles = {(-2, 3): ROUTE_WE, (4, -1): FIELD_N, (0, 0): PLANET}
    root = parse(board_svg(tiles, cell_px=50))
    x, y, w, h = view_box(root)
    for cx, cy in tiles:
        assert x < cx * 50 and y < cy * 50
        assert (cx + 1) * 50 < x + w and (cy + 1) * 50 < y + h
    # The margin is small: no more than a tile on any side.
    assert x > -3 * 50 and y > -2 * 50 and x + w < 6 * 50 and y + h < 5 * 50


def test_one_title_per_tile_with_its_coordinates() -> None:
    tiles = {(1, 0): ROUTE_WE, (0, 0): FIELD_N, (-1, 2): PLANET}
    root = parse(board_svg(tiles))
    titles = [t.text or "" for t in root.iter(f"{SVG}title")]
    assert sorted(titles) == ["[-1, 2]", "[0, 0]", "[1, 0]"]
    # Each tile's background square lies where its coordinates say.
    for name, g in tile_groups(root).items():
        cx, cy = (int(v) for v in name.strip("[]").split(", "))
        square = g.find(f"{SVG}rect")
        assert square is not None
        assert (float(square.attrib["x"]), float(square.attrib["y"])) == (cx * 60, cy * 60)
        assert float(square.attrib["width"]) == 60


def test_highlight_fades_only_the_tiles_outside_it() -> None:
    tiles, meeples = sample_board()
    groups = tile_groups(parse(board_svg(tiles, meeples, highlight=[(1, 0), (2, 0)])))
    assert len(groups) == 9
    for name, g in groups.items():
        faded = float(g.attrib.get("opacity", "1")) < 1
        assert faded == (name not in ("[1, 0]", "[2, 0]")), name


def test_without_a_highlight_nothing_is_faded() -> None:
    tiles, _ = sample_board()
    groups = tile_groups(parse(board_svg(tiles)))
    assert all("opacity" not in g.attrib for g in groups.values())


def test_each_player_colour_shows_as_its_own_fill_with_an_outline() -> None:
    colours = ["red", "green", "black", "white", "orange"]
    tiles = {(i, 0): ROUTE_WE for i in range(5)}
    meeples = [((i, 0), 0, colour, "small") for i, colour in enumerate(colours)]
    root = parse(board_svg(tiles, meeples))
    found = {c.attrib["data-colour"]: c for c in root.iter(f"{SVG}circle") if "data-colour" in c.attrib}
    assert sorted(found) == sorted(colours)
    fills = {colour: found[colour].attrib["fill"] for colour in colours}
    assert len(set(fills.values())) == 5
    assert fills == {colour: PLAYERS[colour] for colour in colours}
    assert fills["white"].lower() == "#ffffff"
    for circle in found.values():
        assert circle.attrib["stroke"] != circle.attrib["fill"]
        assert float(circle.attrib["stroke-width"]) > 0


def test_a_large_meeple_is_bigger_and_sits_on_its_feature() -> None:
    meeples = [((0, 0), 0, "red", "small"), ((1, 0), 0, "red", "large"), ((2, 0), 0, "green", "small")]
    root = parse(board_svg({(0, 0): ROUTE_WE, (1, 0): ROUTE_WE, (2, 0): PLANET}, meeples))
    circles = [c for c in root.iter(f"{SVG}circle") if "data-colour" in c.attrib]
    small, large, on_planet = circles
    assert float(large.attrib["r"]) > float(small.attrib["r"])
    # The route's first side is E: the meeple stands near the east edge, on the route's row.
    assert 30 < float(small.attrib["cx"]) < 60 and float(small.attrib["cy"]) == 30
    # On a planet: within the planet's tile, near its centre.
    assert abs(float(on_planet.attrib["cx"]) - 150) < 15 and abs(float(on_planet.attrib["cy"]) - 30) < 15


def test_a_meeple_on_a_missing_feature_or_tile_is_left_out() -> None:
    root = parse(board_svg({(0, 0): ROUTE_WE}, [((0, 0), 5, "red", "small"), ((9, 9), 0, "red", "small")]))
    assert not [c for c in root.iter(f"{SVG}circle") if "data-colour" in c.attrib]


def test_a_route_is_a_thick_path_through_the_tile() -> None:
    g = tile_groups(parse(board_svg({(0, 0): ROUTE_WE})))["[0, 0]"]
    paths = g.findall(f"{SVG}path")
    assert paths
    for path in paths:
        assert float(path.attrib["stroke-width"]) >= 6
        # From the east midpoint, by the centre, to the west midpoint.
        assert path.attrib["d"] == "M60,30 Q30,30 0,30"


def test_a_dead_end_route_ends_at_the_centre_with_a_mark() -> None:
    g = tile_groups(parse(board_svg({(0, 0): tile({"kind": "route", "edges": "S"})})))["[0, 0]"]
    assert {p.attrib["d"] for p in g.findall(f"{SVG}path")} == {"M30,60 L30,30"}
    marks = [c for c in g.findall(f"{SVG}circle") if (c.attrib["cx"], c.attrib["cy"]) == ("30", "30")]
    assert len(marks) == 1


def test_separate_asteroid_fields_on_one_tile_stay_separate() -> None:
    two = tile({"kind": "asteroid", "edges": "N"}, {"kind": "asteroid", "edges": "E"})
    one = tile({"kind": "asteroid", "edges": "NE"})

    def field_polygons(t: Tile) -> list[set[str]]:
        g = tile_groups(parse(board_svg({(0, 0): t})))["[0, 0]"]
        # Each field is drawn as an outline group then a fill group; the fills tell the fields apart.
        fills = [sub for sub in g.findall(f"{SVG}g") if "stroke" not in sub.attrib]
        return [{p.attrib["points"] for p in sub.findall(f"{SVG}polygon")} for sub in fills]

    first, second = field_polygons(two)
    points = [set(" ".join(shape).split()) for shape in (first, second)]
    assert not points[0] & points[1], "two fields must not share a corner point"
    (joined,) = field_polygons(one)
    corner_shapes = [set(p.split()) for p in joined]
    assert corner_shapes[0] & corner_shapes[1], "one field's bands meet in their corner"


def test_opposite_sides_of_one_field_are_joined_through_the_centre() -> None:
    g = tile_groups(parse(board_svg({(0, 0): tile({"kind": "asteroid", "edges": "NS"})})))["[0, 0]"]
    fill = next(sub for sub in g.findall(f"{SVG}g") if "stroke" not in sub.attrib)
    polygons = fill.findall(f"{SVG}polygon")
    assert len(polygons) > 2  # two bands and the neck between them
    # Some single shape crosses the middle of the tile, where the two bands alone leave open space.
    spans = [[float(pt.split(",")[1]) for pt in p.attrib["points"].split()] for p in polygons]
    assert any(min(ys) < 30 < max(ys) for ys in spans)


def test_symbols_are_lettered_badges_in_their_faction_colour() -> None:
    t = tile(
        {"kind": "asteroid", "edges": "N", "symbols": ["empire"]},
        {"kind": "route", "edges": "WE", "symbols": ["bounty"]},
        {"kind": "planet", "symbols": ["rebels"]},
    )
    g = tile_groups(parse(board_svg({(0, 0): t})))["[0, 0]"]
    letters = sorted(text.text or "" for text in g.iter(f"{SVG}text"))
    assert letters == ["B", "E", "R"]
    badge_fills = {r.attrib["fill"] for r in g.findall(f"{SVG}rect")}
    assert {colour for _, colour in BADGES.values()} <= badge_fills
    # The planet's symbol sits on the planet in the middle of the tile.
    r = next(text for text in g.iter(f"{SVG}text") if text.text == "R")
    assert (r.attrib["x"], r.attrib["y"]) == ("30", "30")


def test_every_symbol_is_drawn_even_when_there_are_many() -> None:
    t = tile({"kind": "asteroid", "edges": "N", "symbols": ["empire", "rebels", "bounty", "rebels"]})
    texts = [text.text or "" for text in parse(board_svg({(0, 0): t})).iter(f"{SVG}text")]
    assert sorted(texts) == ["B", "E", "R", "R"]


def test_an_empty_board_is_a_small_valid_svg() -> None:
    svg = board_svg({})
    root = parse(svg)
    assert root.tag == f"{SVG}svg"
    _, _, w, h = view_box(root)
    assert 0 < w <= 100 and 0 < h <= 100
    assert len(svg) < 300


def test_text_from_callers_is_escaped() -> None:
    nasty = "\"'><script>alert(1)</script>&"
    svg = board_svg({(0, 0): ROUTE_WE}, [((0, 0), 0, nasty, "small")])
    root = parse(svg)
    assert not list(root.iter(f"{SVG}script"))
    (meeple,) = [c for c in root.iter(f"{SVG}circle") if "data-colour" in c.attrib]
    assert meeple.attrib["data-colour"] == nasty
    assert (
        meeple.attrib["fill"] not in PLAYERS.values()
    )  # an unknown colour is drawn neutral, never passed on


def test_output_is_deterministic() -> None:
    tiles, meeples = sample_board()
    first = board_svg(tiles, meeples, highlight={(0, 0), (1, 0)})
    again = board_svg(dict(reversed(list(tiles.items()))), meeples, highlight=[(1, 0), (0, 0)])
    assert first == again


def test_the_sample_board_renders(tmp_path: Path) -> None:
    tiles, meeples = sample_board()
    out = tmp_path / "board.svg"
    out.write_text(board_svg(tiles, meeples, highlight={(0, 0), (1, 0), (2, 0)}))
    root = parse(out.read_text())
    assert len(tile_groups(root)) == 9
    assert len([c for c in root.iter(f"{SVG}circle") if "data-colour" in c.attrib]) == len(meeples)


if __name__ == "__main__":
    # For the eye: `python tests/test_drawing.py [path]` writes the sample board to open in a browser.
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/drawing-check.svg")
    board, placed = sample_board()
    target.write_text(board_svg(board, placed, highlight={(0, 0), (1, 0), (0, 1), (1, 1), (1, 2), (2, 0)}))
    print(target)
