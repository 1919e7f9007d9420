"""The demo looks like a game night: simulated players who play as people do, and games kept
from one run of the demo to the next."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.events import MeeplePlaced
from companion.games.starwars.sim.people import meeple_choice
from companion.games.starwars.sim.play import simulated_game
from companion.games.starwars.tiles import PLANET, SIDES
from companion.record import dump_record, parse_record, replay
from companion.store import GameStore
from companion.web.demo import demo_state_dir, played_before

SEEDS = range(1, 6)


def test_people_fight_battles_and_score_during_the_game() -> None:
    by_style = {}
    for people in (False, True):
        battles = during = 0
        for seed in SEEDS:
            game = simulated_game(seed, people=people)
            text = dump_record(type(game.game), game.setup, game.events)
            assert replay(parse_record(text)).scores() == game.game.scores()  # legal, as played
            battles += len(game.game.battles)
            during += sum(c.points for c in game.game.log if not c.final and c.kind != "battle")
        by_style[people] = (battles, during)
    assert by_style[True][0] > 2 * by_style[False][0]  # battles fought
    assert by_style[True][1] > by_style[False][1]  # points scored as the game goes


def test_people_keep_their_last_small_meeple_for_a_feature_about_to_close() -> None:
    """With one small meeple left, a person keeps it rather than put it on a feature far from
    closing; with more, the same meeple goes down."""
    truth = simulated_game(3, tiles=20)
    game = StarWarsGame(truth.setup)
    rng = random.Random(0)
    checked = 0
    for event in truth.events:
        game.apply(event)
        offered = [m for m in game.legal_meeples() if m.size == "small" and m.feature != PLANET]
        if not offered:
            continue
        domain = game.board.domain(offered[0].at, _feature(game, offered[0]))
        if domain.open == 0 or domain.symbol_count() > 0:
            continue  # about to close, or worth a symbol: a person may well put the last one there
        player = offered[0].player
        kept = dict(game.supply[player])
        game.supply[player] = {"small": 1, "large": 0}
        assert meeple_choice(game, offered[:1], rng) is None
        game.supply[player] = {"small": 4, "large": 0}
        placed = [meeple_choice(game, offered[:1], random.Random(n)) for n in range(40)]
        assert any(m is not None for m in placed)
        game.supply[player] = kept
        checked += 1
    assert checked >= 2


def _feature(game: StarWarsGame, meeple: MeeplePlaced) -> int:
    return game.board.tiles[meeple.at].side_feature[SIDES.index(meeple.feature)]


def test_the_demo_keeps_its_games_and_plays_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert demo_state_dir() == tmp_path / "table-companion-demo"
    assert played_before(demo_state_dir()) == 0
    store = GameStore(demo_state_dir())
    for _ in range(2):
        store.new_game({"record": 1, "game": "starwars", "players": []}, "2026-11-27T20:00:00Z")
    store.close()
    assert played_before(demo_state_dir()) == 2  # the next run plays seed + 2
