"""Among the Stars: the seed's worked example and every rule, as records with their expected
outcome (tests/records/stars/), and the engine's rules one by one.

Each record's header carries in ``meta.expect`` what the rules say must come out: the scores,
the winners, whether the game is finished, every log entry as [player, points, reason], and
where given the credits, energy cubes and location cards of each station. Replay ignores meta.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.games.base import IllegalEvent, Setup
from companion.games.registry import manifest
from companion.games.stars import events as ev
from companion.games.stars.engine import StarsGame
from companion.games.stars.legal import Draw, payments
from companion.games.stars.scoring import RULES
from companion.games.stars.sim import made_up, made_up_cards, simulator_kit
from companion.record import dump_record, parse_record, read_record, replay
from companion.replay import replay_json

RECORDS = sorted((Path(__file__).parent / "records" / "stars").glob("*.jsonl"))
TYPES = ["administrative", "commercial", "diplomatic", "military", "recreational", "scientific"]


def record_text(name: str) -> str:
    return (Path(__file__).parent / "records" / "stars" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_record_gives_what_the_rules_say(path: Path) -> None:
    record = read_record(path)
    assert record.setup.meta is not None
    expect = record.setup.meta["expect"]
    game = replay(record)
    assert isinstance(game, StarsGame)
    result = replay_json(game)
    assert result["finished"] == expect["finished"]
    assert result["winners"] == expect["winners"]
    assert result["scores"] == expect["scores"]
    assert [[e["player"], e["points"], e["reason"]] for e in result["log"]] == expect["log"]
    if "credits" in expect:
        assert game.credits == expect["credits"]
    if "cubes" in expect:
        assert {name: s.cubes() for name, s in game.stations.items()} == expect["cubes"]
    if "location_cards" in expect:
        assert {name: s.location_cards() for name, s in game.stations.items()} == expect["location_cards"]
    # the log adds up to the scores, and every reason ends in "= points"
    for name, score in result["scores"].items():
        assert sum(e["points"] for e in result["log"] if e["player"] == name) == score
    assert all(e["reason"].endswith(f"= {e['points']}") for e in result["log"])


@pytest.mark.parametrize("path", RECORDS[:3], ids=[p.stem for p in RECORDS[:3]])
def test_companion_replay_prints_the_same(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expect = read_record(path).setup.meta["expect"]  # type: ignore[index]
    assert (printed["game"], printed["variant"]) == ("stars", "peaceful")
    assert (printed["scores"], printed["winners"], printed["finished"]) == (
        expect["scores"],
        expect["winners"],
        expect["finished"],
    )


def test_every_example_and_rule_has_its_record() -> None:
    assert {p.stem for p in RECORDS} >= {
        "sandra-holographic",  # the seed's worked example, l.103-119
        "sandra-delayed",  # the same card delayed, l.121
        "max-removal",  # l.145-149
        "placeholder",  # l.151
        "power-reactors",  # l.92, l.125-135, l.173, l.181
        "tie-credits",  # l.183
        "shared-win",  # l.183
        "objectives",  # l.169, l.177, manual abilities and objectives
        "objective-reactors",  # the other objective kinds
        "ability-kinds",  # every ability kind, immediate and delayed
        "sixteen-reactors",  # l.22, l.135
    }


def test_a_record_reads_back_as_the_same_game() -> None:
    for path in RECORDS:
        record = read_record(path)
        text = dump_record(record.game, record.setup, [e for _, e in record.events])
        again = parse_record(text)
        assert replay_json(replay(again)) == replay_json(replay(record))
        # every key as written: the cards' printed words and meta, the header's objectives
        written = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert [json.loads(line) for line in text.splitlines()] == written


# --- the engine, rule by rule -----------------------------------------------------------------------


def new_game(players: tuple[str, ...] = ("Ana", "Ben"), objectives: list[Any] | None = None) -> StarsGame:
    header: dict[str, Any] = {
        "record": 1,
        "game": "stars",
        "players": [{"name": name} for name in players],
        "types": TYPES,
    }
    if objectives is not None:
        header["objectives"] = objectives
    return StarsGame(StarsGame.parse_setup(header))


def card(name: str = "Dock", kind: str = "administrative", cost: int = 1, vp: int = 1, **more: Any) -> Any:
    return {"name": name, "type": kind, "cost": cost, "vp": vp, **more}


def play(game: StarsGame, *objects: dict[str, Any]) -> None:
    for obj in objects:
        game.apply(StarsGame.parse_event(obj))


def refused(game: StarsGame, obj: dict[str, Any]) -> str:
    event = StarsGame.parse_event(obj)
    before = json.dumps([game.moment().to_json(), [c.to_json() for c in game.log]], sort_keys=True)
    reason = game.check(event)
    assert reason is not None, f"{obj} was allowed"
    with pytest.raises(IllegalEvent) as raised:
        game.apply(event)
    assert raised.value.reason == reason
    after = json.dumps([game.moment().to_json(), [c.to_json() for c in game.log]], sort_keys=True)
    assert after == before, "a refused event changed the game"
    return reason


def build(player: str, at: list[int], what: Any, energy: list[list[int]] | None = None) -> dict[str, Any]:
    obj = {"event": "build", "player": player, "at": at, "card": what}
    if energy is not None:
        obj["energy_from"] = energy
    return obj


def discard(player: str) -> dict[str, Any]:
    return {"event": "discard", "player": player}


YEAR_1 = {"event": "year", "year": 1}


def test_every_player_starts_with_a_main_reactor_of_2_cubes_and_takes_10_credits_a_year() -> None:
    game = new_game()
    assert [c.cubes() for c in game.stations.values()] == [2, 2]  # l.46
    play(game, YEAR_1)
    assert game.credits == {"Ana": 10, "Ben": 10}  # l.64
    for _ in range(6):
        play(game, discard("Ana"), discard("Ben"))
    play(game, {"event": "year", "year": 2})
    assert game.credits == {"Ana": 38, "Ben": 38}  # unspent credits stay


def test_the_players_act_at_once_so_their_order_within_a_turn_is_free() -> None:
    turns = [
        [build("Ana", [1, 0], card()), {"event": "reactor", "player": "Ben", "at": [0, 1]}],
        [discard("Ana"), build("Ben", [1, 0], card("Hub", "commercial", 2, 2, energy=1), [[0, 1]])],
    ]
    outcomes = set()
    for first, second in itertools.product(*(itertools.permutations(t) for t in turns)):
        game = new_game()
        play(game, YEAR_1, *first, *second)
        outcomes.add(json.dumps([game.scores(), game.credits, game.current_turn()]))
    assert outcomes == {json.dumps([{"Ana": 1, "Ben": 2}, {"Ana": 12, "Ben": 7}, 3])}


def test_one_action_a_turn_and_six_turns_a_year() -> None:
    game = new_game()
    play(game, YEAR_1, discard("Ana"))
    assert "Ana has already acted in turn 1 of year 1" in refused(game, discard("Ana"))
    play(game, discard("Ben"), discard("Ana"))  # Ana's next action starts turn 2
    assert game.current_turn() == 2 and game.may_act() == ["Ben"]
    play(game, discard("Ben"))
    for _ in range(4):
        play(game, discard("Ben"), discard("Ana"))
    assert game.year_over()
    assert refused(game, discard("Ben")) == "year 1 has had its 6 turns: next is year 2"


def test_a_card_goes_side_by_side_with_a_location_never_only_diagonally() -> None:
    game = new_game()
    play(game, YEAR_1)
    reason = refused(game, build("Ana", [1, 1], card()))  # diagonal to the main reactor
    assert "side by side (not diagonally)" in reason
    play(game, build("Ana", [1, 0], card()), discard("Ben"))
    play(game, build("Ana", [1, 1], card("Hub")))  # now beside the Dock
    assert (
        refused(game, build("Ben", [0, 0], card()))
        == "[0, 0] in Ben's station already holds the main reactor"
    )


def test_a_card_that_cannot_be_paid_is_not_built() -> None:
    game = new_game()
    play(game, YEAR_1)
    reason = refused(game, build("Ana", [1, 0], card("Palace", cost=11)))  # l.123
    assert reason == "Ana has 10 credits and Palace costs 11: a card that cannot be paid is not built"
    play(game, build("Ana", [1, 0], card("Palace", cost=10)))
    assert game.credits["Ana"] == 0


def test_energy_comes_from_a_reactor_within_2_through_built_cards_only() -> None:
    game = new_game()
    play(game, YEAR_1)
    # Ana builds round a square: main [0,0], then [1,0], [2,0], [2,1], [2,2], [1,2]
    for at in ([1, 0], [2, 0], [2, 1], [2, 2], [1, 2]):
        play(game, build("Ana", at, card(cost=0)), discard("Ben"))
    play(game, discard("Ana"), discard("Ben"), {"event": "year", "year": 2})
    # [0, 2] is 2 steps from the main reactor as the crow flies, over the empty [0, 1]; through
    # built cards it is 6 away
    lamp = card("Lamp", cost=0, energy=1)
    reason = refused(game, build("Ana", [0, 2], lamp, [[0, 0]]))
    assert "more than 2 cards from [0, 2]" in reason
    # next to the Dock at [1, 0] the main reactor is 2 away: allowed
    assert game.check(StarsGame.parse_event(build("Ana", [1, 1], lamp, [[0, 0]]))) is None


def test_energy_is_paid_cube_by_cube_from_reactors_that_have_them() -> None:
    game = new_game()
    play(game, YEAR_1, {"event": "reactor", "player": "Ana", "at": [1, 0]}, discard("Ben"))
    assert game.stations["Ana"].cells[(1, 0)].cubes == 2 and game.credits["Ana"] == 9  # l.129-131
    big = card("Foundry", cost=0, energy=3)
    assert "needs 3 energy cubes" in refused(game, build("Ana", [2, 0], big, [[1, 0]]))
    assert "has 2 energy cubes left, not the 3 taken" in refused(
        game, build("Ana", [2, 0], big, [[1, 0], [1, 0], [1, 0]])
    )
    reason = refused(game, build("Ana", [2, 0], big, [[1, 0], [1, 0], [5, 5]]))
    assert reason == "energy comes from a reactor, and Ana's station has nothing at [5, 5]"
    play(game, build("Ana", [2, 0], big, [[1, 0], [0, 0], [1, 0]]))  # two reactors pay
    assert game.stations["Ana"].cells[(1, 0)].cubes == 0 and game.stations["Ana"].cells[(0, 0)].cubes == 1


def test_a_power_reactor_costs_a_credit_and_the_box_holds_16() -> None:
    game = new_game()
    play(game, YEAR_1, build("Ana", [1, 0], card("Palace", cost=10)), discard("Ben"))
    assert refused(game, {"event": "reactor", "player": "Ana", "at": [2, 0]}) == (
        "Ana has no credits left: a power reactor costs 1"
    )
    record = read_record(Path(__file__).parent / "records" / "stars" / "sixteen-reactors.jsonl")
    full = replay(record)
    assert isinstance(full, StarsGame) and full.reactors_built == 16
    reason = refused(full, {"event": "reactor", "player": "Ben", "at": [0, 9]})
    assert reason == "all 16 power reactor cards of the box are built"


def test_discarding_gives_3_credits() -> None:
    game = new_game()
    play(game, YEAR_1, discard("Ana"), {"event": "discard", "player": "Ben", "card": card("Spire")})
    assert game.credits == {"Ana": 13, "Ben": 13}  # l.139
    assert game.cards_seen["Spire"].cost == 1  # a card given up is read and checked too


def test_copies_of_a_card_are_identical() -> None:
    game = new_game()
    play(game, YEAR_1, build("Ana", [1, 0], card("Dock", cost=1)))
    reason = refused(game, {"event": "discard", "player": "Ben", "card": card("Dock", cost=2)})
    assert (
        reason
        == 'the card "Dock" was read before with other data (cost 2, not 1): copies of a card are identical'
    )
    # the printed words and meta are not data
    same = card("Dock", cost=1, meta={"seen": "camera"})
    play(game, {"event": "discard", "player": "Ben", "card": same})


def test_a_card_names_only_the_headers_types() -> None:
    game = new_game()
    play(game, YEAR_1)
    reason = refused(game, build("Ana", [1, 0], card("Forge", "industrial")))
    assert reason.startswith(
        'the card "Forge" is of type "industrial", which is not one of the header\'s types'
    )
    ability = {"timing": "immediate", "kind": "vp_per_adjacent", "vp": 1, "type": "industrial"}
    assert 'counts "industrial" locations' in refused(game, build("Ana", [1, 0], card(ability=ability)))


def test_max_is_checked_at_the_end_of_the_year_and_fixed_by_removing_copies() -> None:
    text = record_text("max-removal.jsonl").splitlines()
    game = replay(parse_record("\n".join(text[:14])))  # year 1 played, nothing removed yet
    assert isinstance(game, StarsGame)
    moment = game.moment()
    assert moment.phase == "year 1 is over: remove the cards beyond their MAX"
    assert any("2 Command Center, beyond its MAX 1" in p for p in moment.prompts)
    assert moment.extras["next_year"] is None
    reason = refused(game, {"event": "year", "year": 2})
    assert "Ana's station has 2 Command Center (at [1, 0], [2, 0]), beyond its MAX 1: remove 1" in reason
    # the player picks the copy: without [1, 0] the one at [2, 0] would hang loose, so [1, 0]
    # stays face down; then only as many as necessary: the other Command Center stays
    play(game, {"event": "remove", "player": "Ana", "at": [1, 0]})
    assert game.stations["Ana"].cells[(1, 0)].kind == "placeholder"
    assert "within its MAX 1" in refused(game, {"event": "remove", "player": "Ana", "at": [2, 0]})


def test_a_build_beyond_max_is_accepted_on_its_own_line() -> None:
    game = new_game()
    command = card("Command Center", cost=0, vp=3, max=1)
    play(game, YEAR_1, build("Ana", [1, 0], command), discard("Ben"), build("Ana", [2, 0], command))
    assert game.scores()["Ana"] == 6  # checked at the year's end, not when built (l.145)


def test_removal_needs_the_end_of_a_year() -> None:
    game = new_game()
    command = card("Command Center", cost=0, vp=3, max=1)
    play(game, YEAR_1, build("Ana", [1, 0], command), discard("Ben"), build("Ana", [2, 0], command))
    reason = refused(game, {"event": "remove", "player": "Ana", "at": [2, 0]})
    assert reason.startswith("a card is removed at the end of a year, after its 6th turn")


def test_a_placeholder_fills_its_cell_carries_energy_and_counts_for_nothing() -> None:
    game = replay(read_record(Path(__file__).parent / "records" / "stars" / "placeholder.jsonl"))
    assert isinstance(game, StarsGame)
    station = game.stations["Ana"]
    assert station.cells[(1, 0)].kind == "placeholder"
    assert station.location_cards() == 3  # not the placeholder
    assert station.of_type("administrative") == 2  # its Command Center type no longer counts
    assert station.max_breaks() == []
    # nothing is built beside the placeholder alone
    play(game, discard("Ben"))
    assert "side by side" in refused(game, build("Ana", [1, 1], card()))


def test_a_manual_immediate_ability_waits_for_its_count_before_its_players_next_action() -> None:
    game = new_game()
    arcade = card("Arcade", "recreational", ability={"timing": "immediate", "kind": "manual"})
    play(game, YEAR_1, build("Ana", [1, 0], arcade), discard("Ben"))
    assert game.moment().prompts == ("Ana: count the ability of Arcade at [1, 0] and enter its VP",)
    assert "Ana's Arcade at [1, 0] waits for the VP of its ability" in refused(game, discard("Ana"))
    play(game, discard("Ben"))  # the others go on
    play(game, {"event": "ability", "player": "Ana", "at": [1, 0], "vp": 3})
    assert game.scores()["Ana"] == 4
    assert "was counted already" in refused(
        game, {"event": "ability", "player": "Ana", "at": [1, 0], "vp": 3}
    )
    play(game, discard("Ana"))


def test_a_delayed_manual_ability_and_a_manual_objective_are_counted_after_year_4() -> None:
    text = record_text("objectives.jsonl").splitlines()
    game = replay(parse_record("\n".join(text[:78])))  # year 4 over, nothing counted yet
    assert isinstance(game, StarsGame)
    assert game.moment().extras["can_end"] is False
    assert "the delayed ability of Cleo's Casino at [1, 0] is counted by hand" in refused(
        game, {"event": "end"}
    )
    play(game, {"event": "ability", "player": "Cleo", "at": [1, 0], "vp": 2})
    assert 'objective "Alliance Charter" is counted by hand' in refused(game, {"event": "end"})
    missing = {"event": "objective", "name": "Alliance Charter", "counts": {"Ana": 1, "Ben": 4}}
    assert "Cleo missing" in refused(game, missing)
    computed = {"event": "objective", "name": "Big Station", "counts": {"Ana": 1, "Ben": 4, "Cleo": 0}}
    assert "counted by the companion (locations)" in refused(game, computed)


def test_the_end_comes_after_the_sixth_turn_of_year_4_and_nothing_follows() -> None:
    game = new_game()
    play(game, YEAR_1)
    assert refused(game, {"event": "end"}).startswith(
        "the end of the game comes after the 6th turn of year 4"
    )
    done = replay(read_record(Path(__file__).parent / "records" / "stars" / "shared-win.jsonl"))
    assert isinstance(done, StarsGame) and done.finished
    assert refused(done, discard("Ana")) == 'the game is over: nothing follows "end"'
    assert done.legal_events() == []


def test_pass_directions_alternate_when_both_years_give_them() -> None:
    game = new_game()
    play(game, {"event": "year", "year": 1, "pass": "clockwise"})
    for _ in range(6):
        play(game, discard("Ana"), discard("Ben"))
    reason = refused(game, {"event": "year", "year": 2, "pass": "clockwise"})
    assert reason.endswith("so year 2 passes counterclockwise")
    play(game, {"event": "year", "year": 2})  # a year may leave it out


def test_objective_ties_give_nothing_and_a_single_best_gets_the_bonus() -> None:
    game = replay(read_record(Path(__file__).parent / "records" / "stars" / "objectives.jsonl"))
    tied = [e for e in game.log if e.reason.startswith("objective Military Might")]
    assert [(e.player, e.points) for e in tied] == [("Ana", 0), ("Ben", 0)]


def test_simulated_games_say_their_cards_are_made_up_and_play_to_the_end() -> None:
    assert "made up" in made_up()["about"].lower() and "not" in made_up()["about"]
    assert all(c.name.startswith("Made-up ") for c in made_up_cards())
    from companion.games.registry import manifest
    from companion.sim.random_player import play_random

    for players in (2, 3, 4):
        result = play_random(manifest("stars"), players, seed=players)
        assert result.game.finished and result.game.winners()
        assert "made-up" in json.dumps(result.setup.meta)
    kit = simulator_kit()
    setup = kit.setup(4, "peaceful", random.Random(1))
    assert isinstance(setup, Setup) and len(setup.options["objectives"]) == 4


def test_legal_events_with_the_cards_in_hand_are_all_legal() -> None:
    game = new_game()
    play(game, YEAR_1, {"event": "reactor", "player": "Ana", "at": [1, 0]})
    hand = made_up_cards()[:6]
    listed = game.legal_events(Draw({"Ben": hand}, {}))
    assert listed and all(game.check(event) is None for event in listed)
    assert {type(e) for e in listed} == {ev.Built, ev.ReactorBuilt, ev.Discarded}
    assert all(e.player == "Ben" for e in listed)  # Ana has acted this turn
    # payments: every way to take 2 cubes from reactors within reach, each once
    station = game.stations["Ana"]
    assert payments(station, (2, 0), 2) == [((0, 0), (0, 0)), ((0, 0), (1, 0)), ((1, 0), (1, 0))]
    # without cards: a power reactor on each open cell, or a discard
    bare = game.legal_events()
    assert ev.Discarded("Ben") in bare and ev.ReactorBuilt("Ben", (0, 1)) in bare


def test_the_moment_shows_every_station_and_who_has_acted() -> None:
    game = replay(read_record(Path(__file__).parent / "records" / "stars" / "sandra-holographic.jsonl"))
    moment = game.moment()
    assert moment.turn == 4 and moment.turn_of is None  # the players act at once
    sandra = moment.players[0]
    assert sandra.counters == {"credits": 6, "energy cubes": 1, "location cards": 3, "power reactors": 0}
    station = moment.extras["stations"][0]
    assert station["box"] == {"x": 0, "y": 0, "columns": 2, "rows": 2}
    holo = next(c for c in station["cells"] if c["at"] == [1, 1])
    assert (holo["name"], holo["scored"], holo["timing"]) == ("Holographic Display Area", 4, "immediate")
    assert [2, 1] in station["open"] and [1, 1] not in station["open"]
    assert moment.extras["may_act"] == ["Sandra", "Tomás"] and moment.extras["acted"] == []


def test_describe_tells_each_event_alone() -> None:
    game = new_game()
    lines = [
        game.describe(StarsGame.parse_event(obj))
        for obj in (
            {"event": "year", "year": 2, "pass": "counterclockwise"},
            build("Ana", [1, 0], card("Dock", cost=2), [[0, 0]]),
            {"event": "reactor", "player": "Ben", "at": [0, 1]},
            {"event": "discard", "player": "Ben", "card": card("Spire")},
            {"event": "remove", "player": "Ana", "at": [1, 0]},
            {"event": "objective", "name": "Charter", "counts": {"Ana": 2, "Ben": 0}},
        )
    ]
    assert lines == [
        "Year 2 begins: 10 credits each, cards pass counterclockwise",
        "Ana built Dock at [1, 0] (2 credits, energy from [0, 0])",
        "Ben built a power reactor at [0, 1]",
        "Ben discarded Spire for 3 credits",
        "Ana removed the card at [1, 0] (beyond its MAX)",
        "Objective Charter counted by hand: Ana 2, Ben 0",
    ]


def test_the_manifest_names_every_kind_of_score_in_words() -> None:
    """The winner screen's breakdown says what scored in words ("locations built 16"): every
    kind the engine writes has its rule, and every one of them its words, as has each kind in
    the logs."""
    about = manifest("stars")
    assert set(about.score_kinds) == set(RULES)
    assert all(words and words != kind for kind, words in about.score_kinds.items())
    logged = {entry.kind for path in RECORDS for entry in replay(read_record(path)).log}
    assert logged == set(RULES) - {"adjust"}
    assert about.end_button  # the contract's end is a bare {"event": "end"}: final scoring
