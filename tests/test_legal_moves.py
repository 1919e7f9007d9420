"""What the engine lists as legal is exactly what it accepts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.base import IllegalEvent
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.events import MeeplePlaced, TilePlaced
from companion.games.starwars.phase import Phase
from companion.games.starwars.sim.games import simulate_game
from companion.games.starwars.tiles import AROUND, PLANET, SIDES


def game_after(seed: int, events: int) -> StarWarsGame:
    sim = simulate_game(players=3, seed=seed)
    game = StarWarsGame(sim.setup)
    for event in sim.events[:events]:
        game.apply(event)
    return game


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 120), st.sampled_from([t.id for t in load_catalog().tiles]))
def test_legal_placements_match_a_brute_force_search(seed: int, events: int, tile_id: str) -> None:
    game = game_after(seed, events)
    if game.phase is Phase.MEEPLE:
        game.close_turn()
    if game.phase is not Phase.TILE:
        return  # a battle is waiting: no tile may come now
    entry = load_catalog().get(tile_id)
    assert entry is not None
    listed = {(cell, lying) for cell, _, lying in game.legal_placements(entry.tile)}
    xs = [x for x, _ in game.board.tiles]
    ys = [y for _, y in game.board.tiles]
    found = set()
    for x in range(min(xs) - 1, max(xs) + 2):
        for y in range(min(ys) - 1, max(ys) + 2):
            for turns in range(4):
                lying = entry.tile.rotated(turns)
                if game.board.fit_error((x, y), lying) is None:
                    found.add(((x, y), lying))
    assert listed == found
    # and the engine accepts each listed placement
    for cell, lying in list(listed)[:5]:
        game.copy().apply(TilePlaced(game.next_player, cell, lying))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 120))
def test_legal_meeples_are_exactly_the_accepted_ones(seed: int, events: int) -> None:
    game = game_after(seed, events)
    legal = game.legal_meeples()
    if game.phase is not Phase.MEEPLE:
        assert legal == []
        return
    here = list(game.board.tiles)[-1]
    player = game.current_player
    assert player is not None
    candidates = [
        MeeplePlaced(player, at, feature, size)
        for size in ("small", "large")
        for at, feature in [(here, s) for s in SIDES]
        + [((here[0] + dx, here[1] + dy), PLANET) for dx, dy in ((0, 0), *AROUND)]
    ]
    accepted = []
    for meeple in candidates:
        try:
            game.copy().apply(meeple)
        except IllegalEvent:
            continue
        accepted.append(meeple)

    # a side letter and another letter of the same feature name the same spot: compare spots
    def spot(m: MeeplePlaced) -> tuple[object, ...]:
        if m.feature == PLANET:
            return (m.at, PLANET, m.size)
        return (m.at, game.board.tiles[m.at].side_feature[SIDES.index(m.feature)], m.size)

    assert {spot(m) for m in legal} == {spot(m) for m in accepted}


def test_a_meeple_may_stand_on_either_end_of_a_route_that_loops_back_to_its_tile() -> None:
    # found by the search above: the tile's N and E routes are one route, with no meeple on it
    game = game_after(6535, 61)
    here = list(game.board.tiles)[-1]
    tile = game.board.tiles[here]
    assert game.board.domain(here, tile.side_feature[0]) is game.board.domain(here, tile.side_feature[1])
    offered = {m.feature for m in game.legal_meeples() if m.at == here and m.size == "small"}
    assert offered == {"N", "E", "S", "W"}
