"""The Carcassonne core on both its configurations: Star Wars (one part a side, unbounded), and
a small Castle-like one built here from shared/spec/castle.md (three parts a side, paths checked
only in the middle, a bounded interior with start segments)."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from companion.games.carcassonne.board import Board, Domain
from companion.games.carcassonne.geometry import SIDES, neighbour
from companion.games.carcassonne.rules import TileRules
from companion.games.carcassonne.shape import BoardShape, StartSegment, shape_from_rows
from companion.games.carcassonne.tiles import Feature, Tile
from companion.games.starwars.board import Board as StarWarsBoard
from companion.games.starwars.tiles import RULES as STARWARS
from companion.games.starwars.tiles import SIDE_KIND_NAMES, parse_tile

# --- a Castle-like configuration, as castle.md describes the sides ------------------------------

PATH, TOWER, HOUSE, COURTYARD = "path", "tower", "house", "courtyard"
CASTLE = TileRules(
    part_names=("Nw", "N", "Ne", "En", "E", "Es", "Se", "S", "Sw", "Ws", "W", "Wn"),
    kinds=(PATH, TOWER, HOUSE, COURTYARD),
    fit=(None, {PATH: 1}, None),  # halves are free; the middle must agree on path or no path
)


class CastleTile(Tile[Feature]):
    rules = CASTLE


CastleBoard = Board[CastleTile, Domain[str]]


def feature(kind: str, edges: str = "", **counts: int) -> Feature:
    """A feature written as castle.md writes one: for a path a side letter is its middle, for
    anything else both its halves; ``Nw``, ``En``... name one half."""
    parts: list[int] = []
    for name in re.findall(r"[NESW][nesw]?", edges):
        if len(name) == 2 or kind == PATH:
            parts.append(CASTLE.part_index(name))
        else:
            side = SIDES.index(name)
            parts += [side * 3, side * 3 + 2]
    return Feature(kind, tuple(parts), tuple(counts.items()))


def tile(*features: Feature) -> CastleTile:
    return CastleTile(features)


def castle_board(rows: list[str], *starts: tuple[tuple[int, int], str, list[Feature]]) -> CastleBoard:
    segments = [StartSegment(cell, SIDES.index(side), tuple(fs)) for cell, side, fs in starts]
    return Board(CASTLE, Domain, shape_from_rows(rows, segments))


def part(name: str) -> int:
    return CASTLE.part_index(name)


# --- parts, rotation and facing -----------------------------------------------------------------


def test_a_quarter_turn_moves_each_part_to_the_same_part_of_the_next_side() -> None:
    assert [CASTLE.part_names[CASTLE.rotate_part(part(n), 1)] for n in ("Nw", "N", "Ne", "Wn", "Sw")] == [
        "En",
        "E",
        "Es",
        "Ne",  # the west side's north end turns to the north side's east end
        "Wn",
    ]
    house = tile(feature(HOUSE, "Nw"), feature(PATH, "N S", fountain=1))
    assert house.rotated(1) == tile(feature(HOUSE, "En"), feature(PATH, "E W", fountain=1))
    assert house.rotated(4) == house and house.rotated(1).rotated(3) == house
    assert len(house.distinct_rotations()) == 4
    assert len(tile(feature(PATH, "N S")).distinct_rotations()) == 2


def test_facing_parts_are_the_same_half_across_the_edge() -> None:
    # castle.md: the north half Wn of side W of [x, y] faces the north half En of [x-1, y].
    facing = {CASTLE.part_names[p]: CASTLE.part_names[CASTLE.facing[p]] for p in range(12)}
    assert facing["Wn"] == "En" and facing["Ws"] == "Es" and facing["W"] == "E"
    assert facing["Nw"] == "Sw" and facing["Ne"] == "Se" and facing["En"] == "Wn"
    board = castle_board(["##"], ((0, 0), "W", [feature(PATH, "W")]))
    board.place((0, 0), tile(feature(PATH, "W"), feature(HOUSE, "En"), feature(COURTYARD, "Es")))
    board.place((1, 0), tile(feature(HOUSE, "Wn"), feature(TOWER, "Ws")))
    assert board.domain((1, 0), _index(board, (1, 0), HOUSE)) is board.domain(
        (0, 0), _index(board, (0, 0), HOUSE)
    )
    tower = board.domain((1, 0), _index(board, (1, 0), TOWER))
    assert tower.cells == {(1, 0)} and tower.complete  # it met a courtyard: another kind only touches


def _index(board: CastleBoard, cell: tuple[int, int], kind: str) -> int:
    return next(i for i, f in enumerate(board.tiles[cell].features) if f.kind == kind)


def test_mirrored_parts_are_checked_when_a_configuration_checks_halves() -> None:
    # Two parts a side, both checked: part k meets part P-1-k, so a tile's west half of N meets
    # the west half of S above it (Sw is S's second part, Nw is N's first).
    halves = TileRules(
        ("Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn"), ("wall",), ({"wall": 1}, {"wall": 1})
    )

    class HalfTile(Tile[Feature]):
        rules = halves

    board: Board[HalfTile, Domain[str]] = Board(halves, Domain)
    board.place((0, 0), HalfTile((Feature("wall", (halves.part_index("Sw"),)),)))
    below_west = HalfTile((Feature("wall", (halves.part_index("Nw"),)),))
    below_east = HalfTile((Feature("wall", (halves.part_index("Ne"),)),))
    assert board.fit_error((0, 1), below_west) is None
    assert board.fit_error((0, 1), below_east) is not None
    board.place((0, 1), below_west)
    assert board.domain((0, 0), 0) is board.domain((0, 1), 0) and board.domain((0, 0), 0).complete


# --- fit rules and where a tile may go on a bounded board ---------------------------------------

START_PATH = ((1, 0), "N", [feature(HOUSE, "Nw"), feature(PATH, "N"), feature(COURTYARD, "Ne", markets=1)])


def test_only_the_middle_must_agree_across_an_edge() -> None:
    board = castle_board(["###", "###"], START_PATH)
    # Halves are free: a tower may face the start's house.
    assert board.fit_error((1, 0), tile(feature(TOWER, "Nw"), feature(PATH, "N S"))) is None
    # The path must be continued...
    assert board.fit_error((1, 0), tile(feature(HOUSE, "N"))) is not None
    board.place((1, 0), tile(feature(PATH, "N W")))
    # ... and no path may run into a side that has none.
    assert board.fit_error((1, 1), tile(feature(PATH, "N S"))) is not None
    assert board.fit_error((1, 1), tile(feature(COURTYARD, "N"), feature(PATH, "E W"))) is None
    assert board.fit_error((0, 0), tile(feature(PATH, "E"))) is None
    assert board.fit_error((0, 0), tile(feature(PATH, "N"))) is not None


def test_tiles_go_only_inside_with_a_full_side_against_a_tile_or_a_start() -> None:
    board = castle_board(["###", "###"], START_PATH)
    plain = tile(feature(PATH, "N S"))
    # Before any tile: only against the start segment (the first tile lies against one).
    assert {cell for cell, _, _ in board.legal_placements(plain)} == {(1, 0)}
    assert board.fit_error((0, 1), plain) is not None
    assert board.fit_error((1, -1), plain) is not None  # the start segment's own cell is wall
    board.place((1, 0), tile(feature(PATH, "N E")))
    cross = tile(feature(COURTYARD, "N E S W"))
    # (0, 1) and (2, 1) touch the tile at a corner only.
    assert {cell for cell, _, _ in board.legal_placements(cross)} == {(0, 0), (1, 1)}
    assert board.fit_error((1, 0), cross) == "cell [1, 0] already holds a tile"
    assert board.fit_error((3, 0), cross) == "cell [3, 0] is not a space for a tile"


@pytest.mark.parametrize("seed", [7, 11, 23])
def test_legal_placements_are_every_fitting_cell_and_look(seed: int) -> None:
    rng = random.Random(seed)
    kinds = (TOWER, HOUSE, COURTYARD)
    board = castle_board(["####", "####", "####"], START_PATH, ((0, 2), "W", [feature(TOWER, "W")]))
    for _ in range(12):
        sides = rng.sample("NESW", rng.randint(0, 3))
        new = tile(
            *([feature(PATH, " ".join(sides))] if sides else []),
            feature(rng.choice(kinds), rng.choice(["Nw", "En Es", "S", "Wn"])),
        )
        listed = {(cell, lying) for cell, _, lying in board.legal_placements(new)}
        found = {
            ((x, y), new.rotated(turns))
            for x in range(-1, 5)
            for y in range(-1, 4)
            for turns in range(4)
            if board.fit_error((x, y), new.rotated(turns)) is None
        }
        assert listed == found
        assert len(listed) == len(board.legal_placements(new))  # each look once
        if listed:
            cell, lying = sorted(listed, key=repr)[0]
            board.place(cell, lying)
            _check_domains_against_a_recount(board)


Node = tuple[tuple[int, int] | int, int]  # (a tile's cell or a start segment's index, feature)


def _check_domains_against_a_recount(board: CastleBoard) -> None:
    """Domains as a flood fill finds them: features on facing parts of one kind join, a part is
    open while the space it faces is an empty interior space, and a start counts one tile."""
    assert board.shape is not None
    starts = board.shape.starts
    nodes: dict[Node, Feature] = {
        (cell, i): f for cell, t in board.tiles.items() for i, f in enumerate(t.features)
    }
    nodes.update({(s, i): f for s, start in enumerate(starts) for i, f in enumerate(start.features)})

    def across(where: tuple[int, int] | int, p: int) -> tuple[Node | None, bool]:
        """The feature facing part ``p`` (if any), and whether that part is open."""
        if isinstance(where, int):  # a start segment faces its cell, across the same part name
            held = board.tiles.get(starts[where].cell)
            if held is None:
                return None, True
            return ((starts[where].cell, held.part_feature[p]) if held.part_feature[p] >= 0 else None), False
        other = neighbour(where, p // 3)
        if other in board.tiles:
            index = board.tiles[other].part_feature[CASTLE.facing[p]]
            return ((other, index) if index >= 0 else None), False
        for s, start in enumerate(starts):
            if (start.cell, start.side) == (where, p // 3):
                index = next((i for i, f in enumerate(start.features) if p in f.parts), -1)
                return ((s, index) if index >= 0 else None), False
        return None, board.is_space(other)

    def domain_of(node: Node) -> Domain[str]:
        where, i = node
        return board.start_domain(where, i) if isinstance(where, int) else board.domain(where, i)

    group = {node: node for node in nodes}

    def root(node: Node) -> Node:
        while group[node] != node:
            node = group[node]
        return node

    opens: Counter[Node] = Counter()
    for node, f in nodes.items():
        for p in f.parts:
            other, is_open = across(node[0], p)
            opens[node] += is_open
            if other is not None and nodes[other].kind == f.kind:
                group[root(other)] = root(node)
    components: dict[Node, list[Node]] = {}
    for node in nodes:
        components.setdefault(root(node), []).append(node)
    assert len(components) == len(list(board.domains()))
    for members in components.values():
        domain = domain_of(members[0])
        assert all(domain_of(node) is domain for node in members)
        assert domain.open == sum(opens[node] for node in members)
        assert domain.tile_count == len({where for where, _ in members})
        assert domain.complete == (domain.open == 0)


# --- domains: start segments, walls, closing -----------------------------------------------------


def test_a_start_segment_joins_counts_one_tile_and_is_the_oldest() -> None:
    board = castle_board(["###", "###"], START_PATH)
    board.place(
        (1, 0),
        tile(feature(PATH, "N S", fountain=1), feature(COURTYARD, "Ne Es", markets=2), feature(TOWER)),
    )
    tower = board.domain((1, 0), _index(board, (1, 0), TOWER))
    assert tower.complete  # touching no side, it is complete when laid
    path = board.domain((1, 0), _index(board, (1, 0), PATH))
    assert path is board.start_domain(0, 1)
    assert path.cells == {(1, 0)} and path.starts == {0} and path.tile_count == 2
    assert path.key < tower.key and path.anchor == (1, -1)  # laid before every tile, on the wall
    assert path.counts == {"fountain": 1} and path.open == 1  # S faces an empty space
    courtyard = board.start_domain(0, 2)
    assert courtyard is board.domain((1, 0), _index(board, (1, 0), COURTYARD))
    assert courtyard.counts == {"markets": 3} and courtyard.open == 1  # Es still faces (2, 0)
    # The start's house faced the tile's plain Nw half: it is closed, and alone.
    house = board.start_domain(0, 0)
    assert house.complete and house.tile_count == 1 and not house.cells


def test_a_path_is_completed_by_running_into_the_wall() -> None:
    board = castle_board(["###"], ((0, 0), "W", [feature(PATH, "W")]))
    board.place((0, 0), tile(feature(PATH, "W E")))
    board.place((1, 0), tile(feature(PATH, "W E"), feature(HOUSE, "N")))
    path = board.domain((1, 0), _index(board, (1, 0), PATH))
    assert not path.complete and path.open == 1 and path.tile_count == 3
    assert board.domain((1, 0), _index(board, (1, 0), HOUSE)).complete  # the wall closes it too
    board.place((2, 0), tile(feature(PATH, "W E")))  # E faces the wall
    path = board.domain((2, 0), 0)
    assert path.complete and path.tile_count == 4 and path.cells == {(0, 0), (1, 0), (2, 0)}


def test_a_house_surrounded_on_all_sides_is_complete() -> None:
    board = castle_board(["###", "###"], ((1, 0), "N", [feature(COURTYARD, "N", markets=1)]))
    board.place((1, 0), tile(feature(COURTYARD, "N"), feature(HOUSE, "W S E")))
    house = board.domain((1, 0), _index(board, (1, 0), HOUSE))
    assert house.open == 6
    board.place((0, 0), tile(feature(TOWER, "E")))  # another kind: both just touch
    tower = board.domain((0, 0), 0)
    assert tower is not house and tower.complete and house.open == 4
    board.place((2, 0), tile(feature(COURTYARD, "S")))  # nothing on its W halves: a plaza
    assert house.open == 2 and not house.complete
    board.place((1, 1), tile(feature(HOUSE, "N")))  # joins, and touches nothing else
    house = board.domain((1, 1), 0)
    assert house.complete and house.tile_count == 2
    assert board.domain((1, 0), _index(board, (1, 0), COURTYARD)).counts == {"markets": 1}


def test_a_bad_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="part of the wall"):
        shape_from_rows(["##"], [StartSegment((0, 0), SIDES.index("E"), (feature(PATH, "E"),))])
    with pytest.raises(ValueError, match="only that side's parts"):
        castle_board(["#"], ((0, 0), "N", [feature(HOUSE, "En")]))
    with pytest.raises(ValueError, match="only"):
        shape_from_rows(["#x"])
    with pytest.raises(ValueError, match="both be checked"):
        TileRules(("a", "b", "c", "d", "e", "f", "g", "h"), ("x",), ({"x": 1}, None))
    assert BoardShape(frozenset({(0, 0)})).starts == ()


# --- Star Wars as a configuration -----------------------------------------------------------------


def sw(features: list[dict[str, object]]):  # type: ignore[no-untyped-def]
    return parse_tile({"features": features})


def test_star_wars_is_one_checked_part_a_side() -> None:
    assert STARWARS.per_side == 1 and STARWARS.part_names == ("N", "E", "S", "W")
    assert [STARWARS.facing[p] for p in range(4)] == [2, 3, 0, 1]
    t = sw([{"kind": "route", "edges": "WE"}, {"kind": "asteroid", "edges": "N"}])
    assert t.faces == t.side_kinds == t.demands
    assert [SIDE_KIND_NAMES[k] for k in t.side_kinds] == [
        "asteroid field",
        "trade route",
        "open space",
        "trade route",
    ]
    assert t.side_feature == t.part_feature == (0, 1, -1, 1)


def test_star_wars_board_is_unbounded_and_joins_routes() -> None:
    board = StarWarsBoard()
    straight = sw([{"kind": "route", "edges": "WE", "symbols": ["empire"]}])
    assert board.fit_error((5, -3), straight) is None  # the first tile goes anywhere
    assert {cell for cell, _, _ in board.legal_placements(straight)} == {(0, 0)}
    board.place((0, 0), straight)
    board.place((2, 0), sw([{"kind": "route", "edges": "W"}, {"kind": "planet", "symbols": ["rebels"]}]))
    assert board.fit_error((1, 0), sw([{"kind": "asteroid", "edges": "WE"}])) == (
        "side E of the tile at [1, 0] shows asteroid field, but the tile to the east shows trade route there"
    )
    assert board.fit_error((9, 9), straight) == "a tile at [9, 9] would touch no placed tile"
    left, right = board.domain((0, 0), 0), board.domain((2, 0), 0)
    assert left.open == 2 and right.open == 1 and left is not right
    board.place((1, 0), sw([{"kind": "route", "edges": "WE", "symbols": ["bounty"]}]))
    route = board.domain((1, 0), 0)
    assert route is board.domain((0, 0), 0) is board.domain((2, 0), 0)
    assert route.key == 0 and route.anchor == (0, 0)  # the oldest feature's, kept across merges
    assert route.cells == {(0, 0), (1, 0), (2, 0)} and route.open == 1
    assert route.symbols == {"empire": 1, "bounty": 1} and route.symbol_count() == 2
    planet = board.planet_at((2, 0))
    assert planet is not None and planet.cells == {(2, 0), (1, 0)} and planet.open == 7


def test_star_wars_route_loop_closes_itself() -> None:
    board = StarWarsBoard()
    corners = {(0, 0): "ES", (1, 0): "SW", (1, 1): "NW", (0, 1): "NE"}
    for cell, edges in corners.items():
        board.place(cell, sw([{"kind": "route", "edges": edges}]))
    loop = board.domain((0, 0), 0)
    assert loop.complete and loop.label == "trade route" and len(loop.cells) == 4
    assert [side for side, _ in board.domains_of_tile((1, 1))] == [0]  # N first, W is the same route
    assert len(list(board.domains())) == 1
