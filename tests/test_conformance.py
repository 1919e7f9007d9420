"""One conformance suite for every registered game (and the tests' toy game).

Each game is played by its own simulator and by the one random player, and held to what the
core relies on: an illegal event changes nothing; a record reads back as the same game;
replaying a prefix is what undo gives; the log adds up to the scores; every listed legal event
is legal; the simulator's games are legal and replay.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toygame.manifest import MANIFEST as TOY

from companion.games.base import Game, IllegalEvent
from companion.games.manifest import Manifest, Simulated
from companion.games.registry import manifests, register, unregister
from companion.live.game import LiveGame
from companion.record import dump_record, parse_record, replay
from companion.sim.random_player import play_random
from companion.store import GameStore

SEEDS = (1, 2)


@pytest.fixture(scope="module", autouse=True)
def toy_registered() -> Iterator[None]:
    register(TOY)
    yield
    unregister(TOY.name)


def games() -> list[Manifest]:
    return [*manifests(), TOY] if TOY.name not in {m.name for m in manifests()} else manifests()


GAMES = [pytest.param(m, id=m.name) for m in games()]


def simulated(game: Manifest, seed: int, own: bool) -> Simulated:
    """A whole game: the game's own simulator (``own``) or the random player every game has."""
    fewest, most = game.players
    players = min(most, fewest + seed % (most - fewest + 1))
    kit = game.simulator() if game.simulator is not None else None
    if own and kit is not None and kit.play is not None:
        return kit.play(players, seed, game.variants[0], frozenset())
    return play_random(game, players, seed)


def picture(game: Game) -> str:
    """Everything the core reads of a game at a moment, as one text to compare."""
    return json.dumps(
        {
            "moment": game.moment().to_json(),
            "scores": game.scores(),
            "log": [c.to_json() for c in game.log],
            "finished": game.finished,
            "winners": game.winners(),
        },
        sort_keys=True,
    )


def played(game: Manifest, events: list[Any], setup: Any, upto: int) -> Game:
    engine = game.engine()(setup)
    for event in events[:upto]:
        engine.apply(event)
    return engine


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("own", [True, False], ids=["own-simulator", "random-player"])
def test_simulated_games_are_legal_and_replay_as_the_same_game(game: Manifest, own: bool) -> None:
    assert game.simulator is not None, f"{game.name} has no simulator"
    for seed in SEEDS:
        result = simulated(game, seed, own)
        assert result.events, f"{game.name} seed {seed}: no events"
        text = dump_record(type(result.game), result.setup, result.events)
        record = parse_record(text)
        again = replay(record)
        assert picture(again) == picture(result.game)
        assert dump_record(record.game, record.setup, [e for _, e in record.events]) == text
        # the same seed, the same game
        assert dump_record(type(result.game), result.setup, simulated(game, seed, own).events) == text


@pytest.mark.parametrize("game", GAMES)
def test_the_log_adds_up_to_the_scores(game: Manifest) -> None:
    for seed in SEEDS:
        result = simulated(game, seed, own=True)
        scores = result.game.scores()
        teams = {entry.player: entry.team for entry in result.game.log if entry.team is not None}
        totals: dict[str, int] = {}
        for entry in result.game.log:
            key = entry.team if entry.team is not None else entry.player
            if key is not None:
                totals[key] = totals.get(key, 0) + entry.points
        for name, score in scores.items():
            key = teams.get(name, name)
            assert totals.get(key, 0) == score, f"{game.name} seed {seed}: {name}"


@pytest.mark.parametrize("game", GAMES)
def test_every_listed_legal_event_is_legal(game: Manifest) -> None:
    rng = random.Random(5)
    result = simulated(game, 1, own=False)
    for upto in sorted(rng.sample(range(len(result.events) + 1), min(8, len(result.events) + 1))):
        engine = played(game, result.events, result.setup, upto)
        before = picture(engine)
        listed = engine.legal_events()
        for event in listed:
            assert engine.check(event) is None, f"{game.name} after {upto} events: {event!r}"
        assert picture(engine) == before  # asking changes nothing
        if upto < len(result.events):
            # the event that came next is allowed, by check and by apply
            assert engine.check(result.events[upto]) is None


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_event_changes_nothing(game: Manifest) -> None:
    """Events taken from elsewhere in the game, out of their turn: those the rules refuse leave
    the game exactly as it was, and ``check`` gives the same reason ``apply`` does."""
    rng = random.Random(7)
    refused = 0
    for seed in SEEDS:
        result = simulated(game, seed, own=True)
        events = result.events
        for _ in range(25):
            upto = rng.randrange(len(events))
            engine = played(game, events, result.setup, upto)
            stranger = events[rng.randrange(len(events))]
            before = picture(engine)
            reason = engine.check(stranger)
            assert picture(engine) == before
            if reason is None:
                continue
            with pytest.raises(IllegalEvent) as raised:
                engine.apply(stranger)
            assert raised.value.reason == reason
            assert picture(engine) == before
            refused += 1
    assert refused > 0, f"{game.name}: no out-of-turn event was refused"


@pytest.mark.parametrize("game", GAMES)
def test_replaying_a_prefix_is_what_undo_gives(game: Manifest, tmp_path: Path) -> None:
    result = simulated(game, 1, own=True)
    kind = type(result.game)
    events = result.events[: min(len(result.events), 40)]
    store = GameStore(tmp_path)
    try:
        game_id = store.new_game(result.setup.to_json(), "2026-01-01T00:00:00Z")
        live = LiveGame(store, game_id, kind, result.setup, lambda: "2026-01-01T00:00:00Z")
        for event in events:
            live.add(kind.event_to_json(event))
        for undone in range(1, min(4, len(events)) + 1):
            live.correct({"op": "undo", "reason": "a test"})
            expected = played(game, events, result.setup, len(events) - undone)
            assert picture(live.engine) == picture(expected), f"{game.name}: undo {undone}"
        # and a restart folds the same journal into the same game
        again = LiveGame(store, game_id, kind, result.setup, lambda: "2026-01-01T00:00:00Z")
        assert picture(again.engine) == picture(live.engine)
    finally:
        store.close()


@pytest.mark.parametrize("game", GAMES)
def test_a_finished_game_names_its_winners_and_an_unfinished_one_none(game: Manifest) -> None:
    result = simulated(game, 1, own=True)
    names = [p.name for p in result.setup.players]
    if result.game.finished:
        assert all(w in names for w in result.game.winners())
    half = played(game, result.events, result.setup, len(result.events) // 2)
    if not half.finished:
        assert half.winners() == [] and half.moment().winners == ()
    moment = result.game.moment()
    assert [p.name for p in moment.players] == names
    assert moment.finished == result.game.finished


@pytest.mark.parametrize("game", GAMES)
def test_what_an_event_scores_is_in_the_log_and_every_score_opens(game: Manifest, tmp_path: Path) -> None:
    """The score page finds its event by the change ``apply`` returned: it must be the log's own
    object; a score no event returned (worked out from an open turn) still opens."""
    result = simulated(game, 2, own=True)
    kind = type(result.game)
    engine = kind(result.setup)
    for number, event in enumerate(result.events, 1):
        for change in engine.apply(event):
            assert any(change is logged for logged in engine.log), f"{game.name}: event {number}"
    store = GameStore(tmp_path)
    try:
        game_id = store.new_game(result.setup.to_json(), "2026-01-01T00:00:00Z")
        live = LiveGame(store, game_id, kind, result.setup, lambda: "2026-01-01T00:00:00Z")
        marks = {len(result.events) // 3, 2 * len(result.events) // 3, len(result.events)}
        for number, event in enumerate(result.events, 1):
            live.add(kind.event_to_json(event))
            if number in marks:
                for index in {0, *range(max(0, len(live.engine.log) - 4), len(live.engine.log))}:
                    if index < len(live.engine.log):
                        view = live.score_view(index)
                        assert view is not None and view["score"] == live.engine.log[index].to_json()
    finally:
        store.close()


PAGES = ("/", "/parts/scoreboard", "/timeline", "/parts/timeline", "/fix", "/setup", "/games")


@pytest.mark.parametrize("game", [pytest.param(m, id=m.name) for m in manifests()])
def test_every_page_draws_for_every_game_as_it_is_played(game: Manifest, tmp_path: Path) -> None:
    """Each game's own partials, through the web app: the scoreboard, its live parts, the
    timeline, the fix page, setup and every recent score's page, mid-game and at the end."""
    from conftest import make_site

    result = simulated(game, 1, own=True)
    kind = type(result.game)
    site = make_site(tmp_path / "state")
    try:
        assert site.post("/api/games", result.setup.to_json()).status_code == 201
        marks = {len(result.events) // 2, len(result.events)}
        for number, event in enumerate(result.events, 1):
            answer = site.post("/api/event", kind.event_to_json(event))
            assert answer.status_code == 200, (number, answer.get_json())
            if number not in marks:
                continue
            for path in PAGES:
                drawn = site.client.get(path)
                assert drawn.status_code == 200, (game.name, number, path)
            scored = len(site.table.state()["log"])
            assert scored > 0, game.name
            for index in range(max(0, scored - 5), scored):
                assert site.client.get(f"/scores/{index}").status_code == 200, (game.name, index)
        assert site.client.get(f"/setup?game={game.name}").status_code == 200
    finally:
        site.table.store.close()
