"""Properties of random legal games (hypothesis): what must hold in every game, not one.

The completion checks use a flood fill written here, independent of the engine's union-find.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.base import Cell, IllegalEvent
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.events import DiceRolled, Event, GameEnded, MeeplePlaced, TilePlaced
from companion.games.starwars.phase import Phase
from companion.games.starwars.setup import SUPPLY
from companion.games.starwars.sim.games import SimulatedGame, simulate_game
from companion.games.starwars.tiles import AROUND, OFFSETS, PLANET, Tile
from companion.record import dump_record, parse_record, replay
from companion.replay import replay_json

GAMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(draw: st.DrawFn) -> SimulatedGame:
    variant = draw(st.sampled_from(["standard", "standard", "teams"]))
    players = 4 if variant == "teams" else draw(st.integers(2, 5))
    return simulate_game(
        players=players,
        seed=draw(st.integers(0, 2**32 - 1)),
        variant=variant,
        meeple_chance=draw(st.floats(0.2, 1.0)),
        catalog_ids=draw(st.booleans()),
    )


def fighters(game: StarWarsGame) -> dict[str, str]:
    """Who fights for whom: each player for themself, or for their team in the team variant."""
    return {p["name"]: p.get("team", p["name"]) for p in game.moment().extras["players"]}


def check_turn_invariants(game: StarWarsGame) -> None:
    fighter = fighters(game)
    meeples = game.meeples_on_board()
    # a meeple is never in two places
    assert len({m.id for m in meeples}) == len(meeples)
    for domain in game.board.domains():
        for m in domain.meeples:
            assert game.board.domain(m.cell, m.feature_index) is domain
        # after every turn no domain holds meeples of two players (teams)
        assert len({fighter[m.player] for m in domain.meeples}) <= 1
    # supplies never go negative and no meeple is lost or made
    for player in game.players:
        for size, total in SUPPLY.items():
            left = game.supply[player.name][size]
            assert left >= 0
            assert left + sum(m.player == player.name and m.size == size for m in meeples) == total
    # the sum of the log equals the scores
    team_points: Counter[str] = Counter()
    for entry in game.log:
        team_points[entry.team or entry.player] += entry.points
    for player in game.players:
        assert game.scores()[player.name] == team_points[fighter[player.name]]


@GAMES
@given(games())
def test_invariants_hold_after_every_turn(sim: SimulatedGame) -> None:
    game = StarWarsGame(sim.setup)
    turns_checked = 0
    for event in sim.events:
        if game.phase is Phase.MEEPLE and isinstance(event, TilePlaced | GameEnded):
            game.close_turn()  # no meeple came: close the turn now, as this event would
            assert game.phase is Phase.TILE
            check_turn_invariants(game)
            turns_checked += 1
        game.apply(event)
        if game.phase in (Phase.TILE, Phase.OVER):  # the turn (and its battles) is over
            check_turn_invariants(game)
            turns_checked += 1
    assert game.finished
    assert turns_checked == len(game.board.tiles) + 1  # the start tile, every turn, the end


@GAMES
@given(games())
def test_replay_is_deterministic_and_matches_the_simulation(sim: SimulatedGame) -> None:
    text = dump_record(StarWarsGame, sim.setup, sim.events)
    first = replay_json(replay(parse_record(text)))
    second = replay_json(replay(parse_record(text)))
    assert first == second
    assert first["scores"] == sim.game.scores()
    assert first["log"] == [e.to_json() for e in sim.game.log]
    # writing back what was read gives the same record, and the same seed the same game
    assert dump_record(StarWarsGame, sim.setup, [e for _, e in parse_record(text).events]) == text


def test_the_same_seed_gives_the_same_game() -> None:
    a = simulate_game(players=3, seed=99)
    b = simulate_game(players=3, seed=99)
    assert dump_record(StarWarsGame, a.setup, a.events) == dump_record(StarWarsGame, b.setup, b.events)
    c = simulate_game(players=3, seed=100)
    assert dump_record(StarWarsGame, a.setup, a.events) != dump_record(StarWarsGame, c.setup, c.events)


# --- completed domains, checked against a flood fill of the final board -----------------------


def reference_domains(
    tiles: dict[Cell, Tile],
) -> list[tuple[str, frozenset[Cell], bool, set[tuple[Cell, int]]]]:
    """(kind, cells, complete, features) of every domain on a board, found by flood fill."""
    found = []
    seen: set[tuple[Cell, int]] = set()
    for cell, tile in tiles.items():
        for index, feature in enumerate(tile.features):
            if (cell, index) in seen:
                continue
            if feature.kind == PLANET:
                seen.add((cell, index))
                around = {(cell[0] + dx, cell[1] + dy) for dx, dy in AROUND} & tiles.keys()
                found.append((PLANET, frozenset({cell, *around}), len(around) == 8, {(cell, index)}))
                continue
            stack, members, complete = [(cell, index)], set(), True
            while stack:
                here, i = stack.pop()
                if (here, i) in members:
                    continue
                members.add((here, i))
                for side in tiles[here].features[i].sides:
                    dx, dy = OFFSETS[side]
                    there = (here[0] + dx, here[1] + dy)
                    if there not in tiles:
                        complete = False
                        continue
                    stack.append((there, tiles[there].side_feature[(side + 2) % 4]))
            seen |= members
            found.append((feature.kind, frozenset(c for c, _ in members), complete, members))
    return found


@GAMES
@given(games())
def test_every_completed_domain_is_scored_exactly_once(sim: SimulatedGame) -> None:
    game = sim.game
    reference = reference_domains(game.board.tiles)
    completed = Counter((d["kind"], frozenset(map(tuple, d["cells"]))) for d in game.completed)
    # the engine saw every domain complete exactly once, and only complete ones
    assert completed == Counter((kind, cells) for kind, cells, complete, _ in reference if complete)

    scored_in_play = Counter(
        (e.kind, frozenset(e.cells)) for e in game.log if not e.final and e.kind != "battle"
    )
    for entry in game.completed:
        key = (entry["kind"], frozenset(map(tuple, entry["cells"])))
        assert scored_in_play[key] == (1 if entry["scored"] else 0)
    assert sum(scored_in_play.values()) == sum(d["scored"] for d in game.completed)

    # at the end, every incomplete domain holding meeples scored once, and nothing else did
    occupied = {(m.cell, m.feature_index) for m in game.meeples_on_board()}
    expected_final = Counter(
        (kind, cells) for kind, cells, complete, features in reference if not complete and features & occupied
    )
    assert Counter((e.kind, frozenset(e.cells)) for e in game.log if e.final) == expected_final


# --- an illegal event changes nothing ----------------------------------------------------------


def snapshot(game: StarWarsGame) -> str:
    domains = sorted(
        (
            d.key,
            d.kind,
            sorted(d.cells),
            d.open,
            d.complete,
            sorted((m.id, m.player, m.size) for m in d.meeples),
        )
        for d in game.board.domains()
    )
    state: dict[str, Any] = {
        "moment": game.moment().to_json(),
        "log": [e.to_json() for e in game.log],
        "tiles": sorted((cell, tile.to_json()) for cell, tile in game.board.tiles.items()),
        "domains": domains,
        "supply": game.supply,
    }
    return json.dumps(state, sort_keys=True, default=str)


def illegal_events(game: StarWarsGame) -> list[Event]:
    """Events that cannot be legal at this moment, whatever the game looks like."""
    names = [p.name for p in game.players]
    occupied = next(iter(game.board.tiles))
    tile = game.board.tiles[occupied]
    other = names[(names.index(game.next_player) + 1) % len(names)]
    attempts: list[Event] = [
        TilePlaced(other, (99, 99), tile),  # out of turn, and touching nothing
        TilePlaced(game.next_player, occupied, tile),  # on an occupied cell
        TilePlaced(None, (99, 99), tile),  # a second start tile
        MeeplePlaced(other, (99, 99), "planet", "small"),
        MeeplePlaced(game.current_player or names[0], (99, 99), "N", "large"),
        DiceRolled(names[0], (1, 1, 1, 1)),  # nobody ever rolls 4 dice
    ]
    if game.pending_battle() is None:
        attempts += [DiceRolled(other, (6,)), DiceRolled(names[0], (3, 4))]
    else:
        attempts += [GameEnded(), TilePlaced(game.next_player, (99, 99), tile)]
    return attempts


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_an_illegal_event_changes_nothing(seed: int) -> None:
    sim = simulate_game(players=3, seed=seed)
    game = StarWarsGame(sim.setup)
    game.apply(sim.events[0])
    refused = 0
    for event in sim.events[1:]:
        before = snapshot(game)
        for attempt in illegal_events(game):
            try:
                game.apply(attempt)
            except IllegalEvent:
                refused += 1
            else:
                raise AssertionError(f"{attempt} was accepted")
        assert snapshot(game) == before  # not one of the refused events left a trace
        game.apply(event)
    assert refused > 0
    assert game.scores() == sim.game.scores()


def test_writing_back_keeps_every_meta(records_dir: Path) -> None:
    lines = (records_dir / "route-battle.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"][0]["meta"] = {"seat": "north"}
    tile = json.loads(lines[2])
    tile["meta"] = {"confidence": 0.97}
    tile["tile"]["meta"] = {"evidence": "frames/12.jpg"}
    tile["tile"]["features"][0]["meta"] = {"read_as": "planet"}
    text = "\n".join([json.dumps(header), lines[1], json.dumps(tile), *lines[3:]]) + "\n"
    record = parse_record(text)
    written = dump_record(record.game, record.setup, [e for _, e in record.events])
    assert [json.loads(line) for line in written.splitlines()] == [
        json.loads(line) for line in text.splitlines()
    ]
