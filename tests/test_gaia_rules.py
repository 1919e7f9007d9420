"""Gaia's rules one by one, on games built in the test: each rule of the seed's text (and each
reading of the contract) that a record alone does not show, the engine's promises (an illegal
event changes nothing, the legal events are legal), and the simulator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.games.base import IllegalEvent
from companion.games.gaia import events as ev
from companion.games.gaia.engine import GaiaGame
from companion.games.gaia.legal import TableCards
from companion.games.gaia.rules import TERRAINS
from companion.games.registry import manifest
from companion.record import dump_record, parse_record, read_record, replay
from companion.sim.random_player import play_random

RECORDS = Path(__file__).parent / "records" / "gaia"


def new_game(
    variant: str = "basic", hands: tuple[tuple[int, int], ...] = ((6, 0), (6, 0)), objectives: Any = None
) -> GaiaGame:
    names = ["Ana", "Ben", "Cleo", "Dan", "Eva"]
    colours = ["yellow", "blue", "white", "green", "red"]
    header = {
        "record": 1,
        "game": "gaia",
        "variant": variant,
        "players": [
            {"name": names[i], "color": colours[i], "hand": {"nature": n, "life": life}}
            for i, (n, life) in enumerate(hands)
        ],
        "objectives": objectives or [{"id": "O1", "cards": ["plains", "forest", "mountain", "swamp"]}],
    }
    return GaiaGame(GaiaGame.parse_setup(header))


def play(game: GaiaGame, *events: dict[str, Any]) -> list[Any]:
    changes = []
    for obj in events:
        changes += game.apply(GaiaGame.parse_event(obj))
    return changes


def tile(player: str, x: int, y: int, terrain: str) -> dict[str, Any]:
    return {"event": "tile", "player": player, "at": [x, y], "terrain": terrain}


def draw(player: str, kind: str = "nature") -> dict[str, Any]:
    return {"event": "draw", "player": player, "kind": kind, "from": "deck"}


def city(player: str, x: int, y: int, terrain: str, needs: list[str]) -> dict[str, Any]:
    return {"event": "city", "player": player, "at": [x, y], "card": {"terrain": terrain, "needs": needs}}


def animals(player: str, x: int, y: int, terrain: str) -> dict[str, Any]:
    return {"event": "animals", "player": player, "at": [x, y], "card": {"terrain": terrain}}


def picture(game: GaiaGame) -> str:
    return json.dumps(
        {"moment": game.moment().to_json(), "log": [c.to_json() for c in game.log], "scores": game.scores()},
        sort_keys=True,
    )


# --- a turn: two actions, then what they owe -------------------------------------------------------


def test_two_actions_a_turn_the_same_one_twice_allowed_in_header_order() -> None:
    game = new_game(hands=((4, 0), (4, 0), (4, 0)))
    assert game.moment().turn_of == "Ana" and game.moment().turn == 1
    play(game, draw("Ana", "life"))
    assert game.moment().turn_of == "Ana" and game.moment().phase == "Ana: action 2 of 2"
    play(game, tile("Ana", 0, 0, "sea"))
    assert (game.moment().turn_of, game.moment().turn) == ("Ben", 2)
    play(game, tile("Ben", 1, 0, "sea"), tile("Ben", 2, 0, "sea"), draw("Cleo"), draw("Cleo"))
    assert (game.moment().turn_of, game.moment().turn) == ("Ana", 4)


def test_the_turn_passes_only_once_the_pawns_owed_are_placed() -> None:
    game = new_game(hands=((4, 2), (4, 2)))
    play(game, tile("Ana", 0, 0, "plains"), tile("Ana", 1, 0, "forest"))
    play(game, tile("Ben", 0, 1, "sea"), city("Ben", 0, 0, "plains", ["forest", "sea", "desert", "swamp"]))
    play(game, draw("Ana"), tile("Ana", -1, 0, "desert"))  # the second action raises Ben's city
    moment = game.moment()
    assert moment.turn_of == "Ana" and moment.phase == "Ana places the pawns owed"
    assert moment.prompts == ("Ana owes a pawn on the city at [0,0] (its satisfaction rose from 2 to 3)",)
    assert game.check(GaiaGame.parse_event(draw("Ben"))) == (
        "Ana still owes a pawn on the city at [0,0] (its satisfaction rose from 2 to 3)"
    )
    play(game, {"event": "pawn", "player": "Ana", "at": [0, 0]})
    assert game.moment().turn_of == "Ben"
    assert game.land.cities[(0, 0)].pawns == {"Ben": 1, "Ana": 1}  # side by side in the basic game


def test_a_7th_card_must_be_discarded_before_anything_else() -> None:
    game = new_game(hands=((4, 2), (0, 0)))
    play(game, draw("Ana", "life"))
    assert game.legal_events() == [ev.CardDiscarded("Ana", "nature"), ev.CardDiscarded("Ana", "life")]
    assert game.moment().prompts == ("Ana must discard a card: 7 in hand, 6 at most",)
    assert game.check(GaiaGame.parse_event(tile("Ana", 0, 0, "sea"))) == (
        "Ana must first discard a card: 7 cards in hand, 6 at most"
    )
    play(game, {"event": "discard", "player": "Ana", "kind": "nature"})
    assert game.hands["Ana"] == {"nature": 3, "life": 3}


# --- land tiles, objectives ----------------------------------------------------------------------


def test_a_nature_card_lays_its_tile_and_stays_in_front_of_its_player() -> None:
    game = new_game()
    assert [e.at for e in game.legal_events() if isinstance(e, ev.TileLaid)][:1] == [(0, 0)]
    play(game, tile("Ana", 0, 0, "sea"), tile("Ana", 0, 1, "forest"))
    assert game.played["Ana"] == ["sea", "forest"] and game.hands["Ana"]["nature"] == 4
    assert game.supply["sea"] == 6 and game.supply["forest"] == 7
    cells = {e.at for e in game.legal_events() if isinstance(e, ev.TileLaid)}
    assert cells == {(0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (0, 2)}  # sides, never corners


def test_no_tile_of_a_terrain_is_offered_once_all_are_laid() -> None:
    game = new_game()
    game.supply["mountain"] = 0
    assert not [e for e in game.legal_events() if isinstance(e, ev.TileLaid) and e.terrain == "mountain"]


def test_an_objective_is_claimed_for_good() -> None:
    objectives = [{"id": "O1", "cards": ["sea"]}, {"id": "O2", "cards": ["forest", "forest"]}]
    game = new_game(objectives=objectives)
    play(game, tile("Ana", 0, 0, "sea"))
    assert game.legal_events() == [ev.ObjectiveClaimed("Ana", "O1")]
    play(game, {"event": "objective", "player": "Ana", "id": "O1"})
    assert game.played["Ana"] == [] and game.claimed == {"O1": "Ana"} and game.scores()["Ana"] == 1
    play(game, tile("Ana", 1, 0, "forest"), tile("Ben", 2, 0, "sea"))
    assert game.complete_objectives("Ben") == []  # not replaced: nobody else can claim O1
    play(game, tile("Ben", 3, 0, "forest"), draw("Ana"), tile("Ana", 4, 0, "forest"))
    assert [o.id for o in game.complete_objectives("Ana")] == ["O2"]  # two forests, counted with repeats


# --- animals and cities --------------------------------------------------------------------------


def test_a_city_covers_its_tile_and_animals_cover_nothing() -> None:
    game = new_game(hands=((4, 2), (4, 2)))
    play(game, tile("Ana", 0, 0, "desert"), tile("Ana", 1, 0, "plains"))
    play(game, animals("Ben", 0, 0, "desert"), tile("Ben", 0, 1, "plains"))
    assert game.land.offers((0, 0)) == ("desert", "animals")  # animals leave the desert showing
    play(game, city("Ana", 1, 0, "plains", ["desert", "animals", "plains", "sea"]), draw("Ana"))
    assert game.land.offers((1, 0)) == ()  # the city's own tile meets no one's needs
    assert game.land.cities[(1, 0)].met == (True, True, False, False)  # (0,1) is a diagonal: no plains


def test_more_animals_beside_a_city_with_animals_raise_nothing() -> None:
    game = new_game(hands=((4, 2), (4, 2)))
    play(game, tile("Ana", 0, 0, "plains"), tile("Ana", 1, 0, "desert"))
    play(game, animals("Ben", 1, 0, "desert"), tile("Ben", -1, 0, "forest"))
    play(game, city("Ana", 0, 0, "plains", ["animals", "desert", "sea", "sea"]), draw("Ana"))
    play(game, animals("Ben", -1, 0, "star"))
    assert game.owed == {} and game.land.cities[(0, 0)].satisfaction == 2


def test_hungry_cities_eat_in_the_order_given_and_one_left_hungry_may_find_nothing() -> None:
    game = new_game(hands=((4, 2), (4, 2)))
    play(game, tile("Ana", 0, 0, "desert"), tile("Ana", 1, 0, "plains"))
    play(game, animals("Ben", 0, 0, "desert"), tile("Ben", 0, 1, "plains"))
    needs = ["animals", "desert", "forest", "forest"]
    play(game, city("Ana", 1, 0, "plains", needs), city("Ana", 0, 1, "plains", needs))
    play(game, draw("Ben"), draw("Ben"))
    game.land.animals[(0, 0)] = 1  # the tile has one animal left
    assert [c.at for c in game.still_hungry()] == [(1, 0), (0, 1)]
    changes = play(game, {"event": "feed", "player": "Ana", "city": [0, 1], "from": [0, 0]})
    assert [c.kind for c in changes] == ["eaten", "return", "return"]  # both fell to 1 need: desert
    assert game.still_hungry() == []  # the other city has nothing left to eat: no event for it
    play(game, draw("Ana"))


def test_needs_are_met_only_across_a_side() -> None:
    game = new_game(hands=((4, 2), (4, 2)))
    play(game, tile("Ana", 0, 0, "plains"), tile("Ana", 1, 0, "sea"))
    play(game, tile("Ben", 1, 1, "forest"), draw("Ben"))
    refused = game.check(
        GaiaGame.parse_event(city("Ana", 0, 0, "plains", ["sea", "forest", "desert", "swamp"]))
    )
    assert refused == "a city needs at least 2 needs met to be laid; at [0,0] it meets 1 (sea)"


# --- the advanced rules --------------------------------------------------------------------------


def test_advanced_a_last_pawn_on_a_four_need_city_wins() -> None:
    game = new_game("advanced", hands=((4, 2), (4, 2)))
    game.pawns_left["Ana"] = 1
    play(game, tile("Ana", 0, 0, "plains"), tile("Ana", 1, 0, "sea"))
    play(game, tile("Ben", -1, 0, "sea"), tile("Ben", 0, 1, "sea"))
    play(game, tile("Ana", 0, -1, "sea"))
    changes = play(game, city("Ana", 0, 0, "plains", ["sea", "sea", "sea", "sea"]))
    assert [(c.kind, c.points, c.reason) for c in changes] == [
        ("city", 1, "city at [0,0]: 4 of 4 needs met (sea, sea, sea, sea) — Ana places a pawn"),
        ("end", 0, "Ana has placed all 6 pawns: Ana wins"),
    ]
    assert game.finished and game.winners() == ["Ana"]


def test_basic_a_rise_to_four_owes_a_single_pawn() -> None:
    game = new_game(hands=((4, 2), (4, 2)))
    play(game, tile("Ana", 0, 0, "plains"), tile("Ana", 1, 0, "sea"))
    play(game, tile("Ben", -1, 0, "sea"), tile("Ben", 0, 1, "sea"))
    play(game, city("Ana", 0, 0, "plains", ["sea", "sea", "sea", "sea"]))
    assert game.land.cities[(0, 0)].pawns == {"Ana": 1}


# --- what the engine promises ---------------------------------------------------------------------


def test_an_illegal_event_changes_nothing_and_check_says_why() -> None:
    record = read_record(RECORDS / "seed-yellow-turn.jsonl")
    for upto in (0, 9, 13, 28, 29, 30):
        game = replay(record, upto=upto)
        for _, event in record.events:
            before = picture(game)
            reason = game.check(event)
            if reason is None:
                continue
            with pytest.raises(IllegalEvent) as raised:
                game.apply(event)
            assert raised.value.reason == reason
            assert picture(game) == before


def test_while_something_is_owed_only_that_is_listed_and_all_listed_is_accepted() -> None:
    record = read_record(RECORDS / "seed-yellow-turn.jsonl")
    game = replay(record, upto=29)  # the plains tile is down: a pawn and an objective owed
    listed = game.legal_events()
    assert listed == [ev.PawnPlaced("Yara", (3, 0)), ev.ObjectiveClaimed("Yara", "O1")]
    assert all(game.check(event) is None for event in listed)
    game = replay(record, upto=27)  # a hungry city: only its meal
    assert game.legal_events() == [ev.CityFed("Yara", (0, 1), (1, 1))]


def test_the_table_cards_narrow_what_may_be_played() -> None:
    record = read_record(RECORDS / "seed-yellow-turn.jsonl")
    game = replay(record, upto=28)  # Yara has eaten; her two actions come
    cards = TableCards(
        nature=("plains",),
        animals=("star",),
        cities=(
            ev.CityCard("star", ("forest", "sea", "mountain", "desert")),
            ev.CityCard("sea", ("forest", "forest", "plains", "plains")),
        ),
        empty=("life",),
    )
    listed = game.legal_events(cards)
    assert {e.terrain for e in listed if isinstance(e, ev.TileLaid)} == {"plains"}
    assert {e.card_terrain for e in listed if isinstance(e, ev.AnimalsPut)} == {"star"}
    cities = {(e.at, e.card.terrain) for e in listed if isinstance(e, ev.CityLaid)}
    # the star card meets 2 needs at [0,0] (sea, mountain) and at [1,0], which is sea: not there
    assert cities == {((0, 0), "star"), ((1, 0), "sea")}
    assert ev.DeckEmpty("Yara", "life") in listed and ev.DeckEmpty("Yara", "nature") not in listed
    assert not [e for e in listed if isinstance(e, ev.CardDrawn) and e.kind == "life"]
    assert all(game.check(e) is None for e in listed)


def test_a_score_corrected_by_hand_counts_and_may_follow_the_end() -> None:
    record = read_record(RECORDS / "deck-out-tie-ender-last.jsonl")
    game = replay(record)
    assert game.winners() == ["Ben"]
    changes = play(game, {"event": "adjust", "player": "Ana", "points": 1, "reason": "a pawn hidden"})
    assert [(c.kind, c.points) for c in changes] == [("adjust", 1)]
    assert game.scores() == {"Ana": 2, "Ben": 1} and game.winners() == ["Ana"]


def test_meta_is_kept_on_every_object() -> None:
    header = json.loads((RECORDS / "city-needs.jsonl").read_text(encoding="utf-8").splitlines()[0])
    header["players"][0]["meta"] = {"seat": "window"}
    header["objectives"][0]["meta"] = {"photo": "o1.jpg"}
    header["players"][1]["hand"]["meta"] = {"dealt": "by Ana"}
    event = city("Ana", 0, 0, "desert", ["sea", "sea", "plains", "plains"])
    event["meta"] = {"confidence": 0.9}
    event["card"]["meta"] = {"photo": "c.jpg"}
    text = json.dumps(header) + "\n" + json.dumps(event) + "\n"
    record = parse_record(text)
    written = dump_record(record.game, record.setup, [e for _, e in record.events])
    assert [json.loads(line) for line in written.splitlines()] == [header, event]


def test_each_event_reads_as_one_line() -> None:
    lines = [
        GaiaGame.parse_event(e)
        for e in (
            draw("Ana", "life"),
            animals("Ana", 1, 1, "star"),
            city("Ana", 0, 0, "star", ["sea", "sea", "plains", "animals"]),
            {"event": "feed", "player": "Ana", "city": [0, 1], "from": [1, 1]},
            {"event": "end", "player": "Ana", "kind": "nature"},
        )
    ]
    assert [new_game().describe(e) for e in lines] == [
        "Ana drew a Life card from the deck",
        "Ana put 4 animals on the tile at [1,1] (a star animal card: any terrain)",
        "Ana laid a star city at [0,0] needing sea, sea, plains, animals",
        "Ana's city at [0,1] ate an animal from the tile at [1,1]",
        "Ana wanted a Nature card and none was left: the game ends",
    ]


def test_the_land_is_drawn_with_the_scored_city_outlined() -> None:
    game = replay(read_record(RECORDS / "seed-yellow-turn.jsonl"))
    svg = game.picture(game.log[-1])
    assert svg is not None and svg.startswith("<svg") and svg.count('stroke="#e0218a"') == 1
    assert svg.count("<rect") >= len(game.land.tiles)
    assert new_game().picture() is None


# --- the simulator ---------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["basic", "advanced"])
def test_simulated_games_end_with_a_winner_and_keep_to_the_box(variant: str) -> None:
    gaia = manifest("gaia")
    for seed in range(8):
        players = 2 + seed % 4
        result = play_random(gaia, players, seed, variant)
        game = result.game
        assert isinstance(game, GaiaGame) and game.finished and len(game.winners()) == 1
        winner = game.winners()[0]
        assert game.pawns_left[winner] == 0 or game.ender is not None
        laid = [e for e in result.events if isinstance(e, ev.TileLaid)]
        life = [e for e in result.events if isinstance(e, ev.AnimalsPut | ev.CityLaid)]
        assert len(laid) <= 40 and len(life) <= 30  # the box's Nature and Life cards
        assert (
            replay(parse_record(dump_record(GaiaGame, result.setup, result.events))).scores() == game.scores()
        )


def test_companion_simulate_writes_a_gaia_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "game.jsonl"
    args = ["simulate", "--game", "gaia", "--players", "4", "--variant", "advanced", "--seed", "3"]
    assert main([*args, "--out", str(out)]) == 0
    assert "won by" in capsys.readouterr().err
    assert main(["replay", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["variant"] == "advanced" and result["finished"] and len(result["winners"]) == 1
    assert set(json.loads(out.read_text().splitlines()[0])["players"][0]["hand"]) == {"nature", "life"}
    assert set(TERRAINS) >= {
        e["terrain"] for e in map(json.loads, out.read_text().splitlines()[1:]) if e["event"] == "tile"
    }
