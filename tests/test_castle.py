"""Carcassonne: The Castle: every worked example and table of the seed and the contract, as
records with their expected outcome (tests/records/castle/), and the rules one by one.

Each record's header carries in ``meta.expect`` what the rules say must come out: the scores,
the winners, whether the game is finished, every log entry as [player, points, reason], and
where given the followers left, the keeps (house tiles) and the markers' spaces. Replay ignores
meta. The boards are inline and made for each test; one record plays on "standard".
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.games.base import FormatError, IllegalEvent
from companion.games.castle import events as ev
from companion.games.castle.box import box
from companion.games.castle.engine import CastleGame
from companion.games.castle.layout import STANDARD, parse_layout, standard_board_json
from companion.games.castle.legal import Draw
from companion.games.castle.scoring import largest_empty_area
from companion.games.castle.setup import parse_setup
from companion.games.castle.sim import CastleChance, play, simulator_kit
from companion.games.castle.tiles import RULES, parse_tile, resolve, tile_json
from companion.games.registry import manifest
from companion.record import dump_record, parse_record, read_record, replay
from companion.replay import replay_json

RECORDS = Path(__file__).parent / "records" / "castle"
PATHS = sorted(RECORDS.glob("*.jsonl"))
SHARED = Path(__file__).resolve().parents[2] / "shared" / "spec" / "castle-default-board.json"


def expectation(path: Path) -> dict[str, Any]:
    record = read_record(path)
    assert record.setup.meta is not None
    expect: dict[str, Any] = record.setup.meta["expect"]
    return expect


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_record_gives_what_the_rules_say(path: Path) -> None:
    expect = expectation(path)
    game = replay(read_record(path))
    assert isinstance(game, CastleGame)
    result = replay_json(game)
    assert result["finished"] == expect["finished"]
    assert result["winners"] == expect["winners"]
    assert result["scores"] == expect["scores"]
    assert [[e["player"], e["points"], e["reason"]] for e in result["log"]] == expect["log"]
    if "followers" in expect:
        assert game.supply == expect["followers"]
    if "keeps" in expect:
        keeps = {name: (keep.tiles if keep is not None else None) for name, keep in game.keeps.items()}
        assert keeps == expect["keeps"]
    if "spaces" in expect:
        spaces = {p["name"]: p["space"] for p in game.moment().extras["players"]}
        assert spaces == expect["spaces"]
    # the log adds up to the scores, every reason ends in "= points", and a log entry has the
    # contract's keys
    for name, score in result["scores"].items():
        assert sum(e["points"] for e in result["log"] if e["player"] == name) == score
    for entry in result["log"]:
        assert entry["reason"].endswith(f"= {entry['points']}")
        assert {"player", "points", "reason", "kind", "turn", "final"} <= entry.keys()
        assert entry["kind"] in ("path", "tower", "house", "courtyard", "keep", "wall", "adjust")


def test_every_example_and_table_has_its_record() -> None:
    assert {p.stem for p in PATHS} >= {
        "scoring-summary",  # the point table: path 1, fountain 2, tower 2, house 1, market 3
        "majority-two-to-one",  # connecting features: more followers scores it all
        "tie-scores-nothing",  # a tie scores nothing, its followers return
        "courtyards",  # courtyards at the end, bounded by tile edges, merchants stay
        "path-loop",  # a path closed in a loop
        "path-ends",  # ends at the wall, a building, a start space; branches
        "start-spaces",  # a start space counts one tile
        "keep-moves",  # the keep moves to a larger house; the empty area with start spaces
        "keep-tie",  # equal keeps score nothing; a shared win
        "scoring-order-default",  # the placer first, then first laid; landings, takes, wall tile 9
        "scoring-order-chosen",  # the placer's order; a corner already claimed
        "last-landing",  # the house rule
        "wall-tiles-in-play",  # wall tiles 1, 2, 3
        "final-scoring",  # wall tiles 4, 7, 8, 9 and the keep (the contract's reasons)
        "final-wall-tiles-5-6",  # wall tiles 5 and 6
        "track-past-99",  # the track past 99, a corner passed, a first-lap corner taken later
        "in-progress",  # a record without end scores its open turn
        "standard-board",  # the board "standard"; a tower inside a tile
    }


@pytest.mark.parametrize("path", PATHS[:4], ids=[p.stem for p in PATHS[:4]])
def test_companion_replay_prints_the_same(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expect = expectation(path)
    assert printed["game"] == "castle"
    assert (printed["scores"], printed["winners"], printed["finished"]) == (
        expect["scores"],
        expect["winners"],
        expect["finished"],
    )


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_a_record_reads_back_as_written(path: Path) -> None:
    record = read_record(path)
    text = dump_record(record.game, record.setup, [e for _, e in record.events])
    again = parse_record(text)
    assert dump_record(again.game, again.setup, [e for _, e in again.events]) == text
    assert [json.loads(line) for line in text.splitlines()][1:] == [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]
    ]


# --- tiles: sides, halves, names ------------------------------------------------------------------


def tile(*features: dict[str, Any]) -> Any:
    return parse_tile({"features": list(features)})[0]


def test_edge_names_are_case_sensitive_and_spaces_optional() -> None:
    # "NE" is sides N and E (all four halves); "Ne" is the east half of N only
    both = tile({"kind": "house", "edges": "NE"})
    half = tile({"kind": "house", "edges": "Ne"})
    assert [RULES.part_names[p] for p in both.features[0].parts] == ["Nw", "Ne", "En", "Es"]
    assert [RULES.part_names[p] for p in half.features[0].parts] == ["Ne"]
    assert tile({"kind": "path", "edges": "WE"}) == tile({"kind": "path", "edges": "W E"})
    # a path's side letter is the middle
    assert [RULES.part_names[p] for p in tile({"kind": "path", "edges": "N"}).features[0].parts] == ["N"]


@pytest.mark.parametrize(
    ("features", "says"),
    [
        ([{"kind": "path", "edges": "Nw"}], "never a half"),
        ([{"kind": "path", "edges": ""}], "at least one side"),
        ([{"kind": "house", "edges": "Nn"}], "no edge name"),
        ([{"kind": "house", "edges": "X"}], "edges are side letters"),
        ([{"kind": "house", "edges": "N"}, {"kind": "tower", "edges": "Nw"}], "both touch the half Nw"),
        ([{"kind": "path", "edges": "N"}, {"kind": "path", "edges": "N S"}], "both touch the middle N"),
        ([{"kind": "tower", "fountain": True}], 'only a path has a "fountain"'),
        ([{"kind": "path", "edges": "N", "markets": 1}], 'only a courtyard has "markets"'),
        ([{"kind": "courtyard", "markets": -1}], "must be 0 to"),
        ([{"kind": "castle"}], '"kind"'),
        ([{"kind": "house", "colour": "red"}], 'unknown key "colour"'),
    ],
)
def test_a_bad_tile_is_refused(features: list[dict[str, Any]], says: str) -> None:
    with pytest.raises(FormatError, match=says):
        parse_tile({"features": features})


def test_a_feature_is_named_by_a_half_a_side_or_its_kind() -> None:
    t = tile(
        {"kind": "path", "edges": "W E", "fountain": True},
        {"kind": "house", "edges": "Wn N En"},
        {"kind": "courtyard", "edges": "Ws S Es", "markets": 2},
    )
    kinds = {
        name: t.features[i].kind
        for name in ("Wn", "N", "W", "Es", "S", "path", "courtyard")
        if isinstance(i := resolve(t, name), int)
    }
    assert kinds == {
        "Wn": "house",
        "N": "house",  # no path in N's middle: the one feature on both halves
        "W": "path",  # a path in W's middle
        "Es": "courtyard",
        "S": "courtyard",
        "path": "path",
        "courtyard": "courtyard",
    }
    assert resolve(t, "tower") == "the tile has no tower"
    two = tile({"kind": "tower", "edges": "Nw"}, {"kind": "house", "edges": "Ne"})
    assert "no path and no single feature" in str(resolve(two, "N"))
    assert "2 features of kind" in str(
        resolve(tile({"kind": "tower"}, {"kind": "tower", "edges": "N"}), "tower")
    )


def test_a_tile_is_written_back_as_the_contract_writes_it() -> None:
    t = tile({"kind": "house", "edges": "Nw Ne En"}, {"kind": "path", "edges": "WS", "fountain": True})
    assert tile_json(t) == {
        "features": [
            {"kind": "house", "edges": "N En"},
            {"kind": "path", "edges": "S W", "fountain": True},
        ]
    }
    assert tile(*tile_json(t)["features"]) == t


# --- the board -----------------------------------------------------------------------------------


def test_standard_is_the_shipped_board_and_says_it_is_our_approximation() -> None:
    board = standard_board_json()
    assert "OUR APPROXIMATION" in board["meta"]["note"]
    layout = parse_layout(STANDARD)
    assert len(layout.interior) == 76 and len(layout.starts) == 7 and len(layout.corners) == 11
    if SHARED.exists():  # the contract's copy, where the shared folder is beside the repository
        shared = json.loads(SHARED.read_text(encoding="utf-8"))
        assert {k: v for k, v in board.items() if k != "meta"} == {
            k: v for k, v in shared.items() if k != "meta"
        }


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"interior": []}, "at least one row"),
        ({"interior": ["#x"]}, 'holds "x"'),
        ({"starts": []}, "at least one start space"),
        ({"starts": [{"cell": [5, 5], "side": "N", "features": []}]}, "not an interior space"),
        ({"starts": [{"cell": [0, 0], "side": "E", "features": []}]}, "part of the wall"),
        (
            {"starts": [{"cell": [0, 0], "side": "N", "features": [{"kind": "house", "edges": "En"}]}]},
            "not on its side",
        ),
        ({"starts": [{"cell": [0, 0], "side": "N", "features": [{"kind": "tower"}]}]}, "touches nothing"),
        ({"corners": [[1, 2]]}, "a from 2 to 98"),
        ({"corners": [[5, 7]]}, "[a, a+1]"),
        ({"corners": [[5, 6], [6, 7]]}, "in two corners"),
        ({"corners": [[2 * n + 2, 2 * n + 3] for n in range(19)]}, "only 18 wall tiles"),
        ({"walls": []}, 'unknown key "walls"'),
    ],
)
def test_a_bad_board_is_refused(change: dict[str, Any], says: str) -> None:
    board = {"interior": ["##"], "starts": [{"cell": [0, 0], "side": "W", "features": []}], "corners": []}
    board.update(change)
    with pytest.raises(FormatError) as raised:
        parse_layout(board)
    assert says in raised.value.reason


def test_the_header_holds_two_players_differing_in_name_and_colour() -> None:
    header: dict[str, Any] = {"record": 1, "game": "castle", "board": "standard"}
    ok = [{"name": "Ana", "color": "yellow"}, {"name": "Ben", "color": "teal"}]  # any word is a colour
    setup = parse_setup({**header, "players": ok})
    assert setup.variant == "standard" and setup.options == {"board": "standard"}
    for players, says in [
        (ok[:1], "exactly 2 players"),
        ([*ok, {"name": "Cid", "color": "red"}], "exactly 2 players"),
        ([ok[0], {"name": "Ben", "color": "yellow"}], "colours must differ"),
        ([ok[0], {"name": "Ana", "color": "red"}], "names must differ"),
        ([ok[0], {"name": "Ben", "color": ""}], "must not be empty"),
    ]:
        with pytest.raises(FormatError, match=says):
            parse_setup({**header, "players": players})
    with pytest.raises(FormatError, match='missing "board"'):
        parse_setup({"record": 1, "game": "castle", "players": ok})
    with pytest.raises(FormatError, match="last-landing"):
        parse_setup({**header, "players": ok, "variant": "teams"})


def test_the_largest_empty_area_counts_start_spaces_with_no_tile_against_them() -> None:
    interior = [(x, y) for x in range(3) for y in range(2)]
    starts = [(0, 0), (2, 1), (2, 1), (1, 0)]  # the one at [1, 0] has a tile laid against it
    # the middle column is filled: two spaces on the left with one start space (3), two on the
    # right with two start spaces (4)
    assert largest_empty_area(interior, [(1, 0), (1, 1)], starts) == (4, [(2, 0), (2, 1)])
    # one empty area of 5 spaces and 3 start spaces
    assert largest_empty_area(interior, [(1, 0)], starts)[0] == 8
    assert largest_empty_area(interior, interior, starts) == (0, [])


# --- the rules, one by one ------------------------------------------------------------------------


def game_of(name: str, upto: int | None = None) -> CastleGame:
    """A record's game after its first ``upto`` events."""
    game = replay(read_record(RECORDS / name), upto)
    assert isinstance(game, CastleGame)
    return game


def test_each_player_has_six_followers_the_seventh_marks_the_score() -> None:
    game = game_of("scoring-summary.jsonl", 0)
    assert [p.counters["followers left"] for p in game.moment().players] == [6, 6]


def test_the_open_turn_is_scored_when_the_next_event_cannot_come_before_its_scoring() -> None:
    game = game_of("scoring-summary.jsonl", 2)  # Ana's tile and her squire on the closed house
    shown = list(game.log)
    assert [c.reason for c in shown] == ["house, 1 tile x 1 = 1"] and game.scores()["Ana"] == 1
    assert game.supply["Ana"] == 5  # her squire comes home when the turn is scored
    record = read_record(RECORDS / "scoring-summary.jsonl")
    changes = game.apply(record.events[2][1])  # Ben's tile closes Ana's turn
    assert changes and changes[0] is shown[0]  # the change shown is the one carried out
    assert game.supply["Ana"] == 6


def test_a_follower_goes_only_right_after_its_players_tile_on_a_free_feature() -> None:
    game = game_of("majority-two-to-one.jsonl", 7)  # Ben's tile joins all three paths
    assert game.check(ev.FollowerPlaced("Ben", (1, 0), "path")) == "that feature already holds a follower"
    assert "right after that player's own tile" in str(game.check(ev.FollowerPlaced("Ana", (1, 0), "path")))
    assert "just placed at [1, 0]" in str(game.check(ev.FollowerPlaced("Ben", (0, 0), "path")))
    assert '"N" names no single feature' in str(game.check(ev.FollowerPlaced("Ben", (1, 0), "N")))


def test_an_illegal_event_changes_nothing() -> None:
    game = game_of("scoring-order-default.jsonl", 6)  # Ana's tile and her herald: she must take first
    before = (game.scores(), list(game.log), game.dues_now(), game.supply)
    nxt = ev.TilePlaced("Ben", (1, 0), tile({"kind": "house", "edges": "N"}))
    for event in (ev.GameEnded(), nxt, ev.WallTaken("Ben", 3, 9)):
        with pytest.raises(IllegalEvent):
            game.apply(event)
        assert (game.scores(), list(game.log), game.dues_now(), game.supply) == before
    assert game.check(ev.GameEnded()) == (
        "Ana's marker landed on space 6, a corner with a wall tile: a take event must say which"
    )


def test_wall_tile_1_gives_its_player_the_next_turn_as_well() -> None:
    game = game_of("wall-tiles-in-play.jsonl", 5)  # Ben took wall tile 1
    assert game.next_player == "Ana" and game.held["Ben"] == [1]
    game.apply(ev.WallPlayed("Ben", 1))
    assert game.next_player == "Ben" and game.played["Ben"] == [1]
    assert "it is Ben's turn" in str(
        game.check(ev.TilePlaced("Ana", (1, 0), tile({"kind": "path", "edges": "W"})))
    )


def test_two_wall_tiles_1_give_two_extra_turns() -> None:
    game = game_of("wall-tiles-in-play.jsonl", 5)
    game.held["Ben"].append(1)  # as if he held the second 1 too
    game.apply(ev.WallPlayed("Ben", 1))
    game.apply(ev.WallPlayed("Ben", 1))
    game.apply(ev.TilePlaced("Ben", (1, 1), tile({"kind": "house", "edges": "N"})))
    assert game.next_player == "Ben"
    game.apply(ev.TilePlaced("Ben", (2, 1), tile({"kind": "house", "edges": "E"})))
    assert game.next_player == "Ana"


def test_past_99_the_score_keeps_counting_and_the_marker_laps() -> None:
    game = game_of("track-past-99.jsonl")
    ana = next(p for p in game.moment().extras["players"] if p["name"] == "Ana")
    assert (ana["score"], ana["space"], ana["lap"]) == (102, 2, 2)
    assert game.held["Ana"] == [1]


def test_nothing_is_taken_after_end_and_only_wall_tiles_4_to_9_follow_it() -> None:
    game = game_of("scoring-order-default.jsonl")
    assert game.finished
    assert "after end only wall tiles 4 to 9" in str(game.check(ev.WallTaken("Ana", 2, 4)))
    assert "not after end" in str(game.check(ev.WallPlayed("Ana", 2, ev.FeatureRef((1, 0), "W"))))
    assert game.legal_events() == []  # Ana's wall tile 2 has nothing to do any more


def test_final_wall_tiles_need_a_majority_and_one_feature_takes_one() -> None:
    game = game_of("final-wall-tiles-5-6.jsonl", 16)  # up to end
    assert (
        game.check(ev.WallPlayed("Ben", 5, ev.FeatureRef((0, 0), "tower")))
        == "Ben has no majority on that tower"
    )
    assert "incomplete tower; that tower was completed" in str(
        game.check(ev.WallPlayed("Ben", 5, ev.FeatureRef((0, 1), "tower")))
    )
    assert "played on a house, not on a tower" in str(
        game.check(ev.WallPlayed("Ben", 6, ev.FeatureRef((2, 0), "W")))
    )
    game.apply(ev.WallPlayed("Ben", 5, ev.FeatureRef((2, 0), "tower")))
    game.held["Ben"].append(5)
    assert (
        game.check(ev.WallPlayed("Ben", 5, ev.FeatureRef((2, 0), "tower")))
        == "that tower already takes a wall tile"
    )


def test_wall_tile_8_needs_a_keep_and_two_add_four() -> None:
    without = game_of("scoring-order-default.jsonl")  # Ana scored no house: she has no keep
    without.held["Ana"].append(8)  # as if she had taken an 8
    assert without.check(ev.WallPlayed("Ana", 8)) == "Ana has no keep: wall tile 8 enlarges a keep"
    game = game_of("final-scoring.jsonl", 23)  # up to end
    game.held["Ana"].append(8)
    game.apply(ev.WallPlayed("Ana", 8))
    game.apply(ev.WallPlayed("Ana", 8))
    keep = next(c for c in game.log if c.kind == "keep")
    assert (
        keep.reason
        == "keep on a house of 2 tiles +4 (wall tiles 8) against 3: largest empty area, 3 spaces = 3"
    )


def test_an_order_names_every_scoring_feature_once_the_placers_first() -> None:
    game = game_of("scoring-order-chosen.jsonl", 6)
    path, tower, house = ev.FeatureRef((1, 0), "N"), ev.FeatureRef((1, 0), "W"), ev.FeatureRef((1, 0), "E")
    assert "Ana's features score first" in str(game.check(ev.ScoringOrdered("Ana", (house, path, tower))))
    assert "leaves out the house" in str(game.check(ev.ScoringOrdered("Ana", (path, tower))))
    assert "names the path at [1, 0] twice" in str(
        game.check(ev.ScoringOrdered("Ana", (path, path, tower, house)))
    )
    assert "only Ana" in str(game.check(ev.ScoringOrdered("Ben", (path, tower, house))))
    other_tile = ev.FeatureRef((0, 0), "E")  # the same tower, named through another of its tiles
    assert game.check(ev.ScoringOrdered("Ana", (path, other_tile, house))) is None


def test_the_random_games_end_legally_with_the_box_of_60() -> None:
    assert sum(shape.count for shape in box()) == 60
    note = json.loads((Path(__file__).parents[1] / "companion/games/castle/box.json").read_text())["meta"][
        "note"
    ]
    assert "OUR APPROXIMATION" in note
    for seed in (4, 5):
        result = play(2, seed, "standard", frozenset())
        game = result.game
        assert isinstance(game, CastleGame) and game.finished
        assert 50 <= game.placed <= 60
        assert result.events[-1] is not None
        again = replay(parse_record(dump_record(CastleGame, result.setup, result.events)))
        assert again.scores() == game.scores()


def test_the_simulator_plays_the_last_landing_variant_too() -> None:
    result = play(2, 9, "last-landing", frozenset())
    assert result.setup.variant == "last-landing" and result.game.finished


def test_legal_events_list_every_place_and_turn_of_a_drawn_tile() -> None:
    game = game_of("keep-moves.jsonl", 5)
    drawn = box()[0].tile
    listed = {(e.at, e.tile) for e in game.legal_events(Draw(drawn)) if isinstance(e, ev.TilePlaced)}
    found = {
        ((x, y), drawn.rotated(turns))
        for x in range(-1, 6)
        for y in range(-1, 5)
        for turns in range(4)
        if game.check(ev.TilePlaced(game.next_player, (x, y), drawn.rotated(turns))) is None
    }
    assert listed == found and listed


def test_a_take_is_listed_only_with_the_number_chance_turned_up() -> None:
    game = game_of("scoring-order-default.jsonl", 6)
    assert not [e for e in game.legal_events() if isinstance(e, ev.WallTaken)]
    assert [e for e in game.legal_events(2) if isinstance(e, ev.WallTaken)] == [ev.WallTaken("Ana", 6, 2)]
    assert not [e for e in game.legal_events() if isinstance(e, ev.TilePlaced | ev.GameEnded)]


def test_the_chance_puts_a_wall_tile_on_every_corner() -> None:
    kit = simulator_kit()
    rng = random.Random(3)
    setup = kit.setup(2, "standard", rng)
    chance = CastleChance(setup, rng)
    assert len(chance.under) == 11 and all(1 <= n <= 9 for n in chance.under.values())
    assert sorted(chance.stack, key=repr) == sorted([s.tile for s in box() for _ in range(s.count)], key=repr)


def test_the_manifest_says_what_the_core_needs() -> None:
    castle = manifest("castle")
    assert castle.players == (2, 2) and castle.variants == ("standard", "last-landing")
    assert castle.setup_defaults == {"board": "standard"}
    assert set(castle.score_kinds) >= {"path", "tower", "house", "courtyard", "keep", "wall"}
    folder = castle.folder() / "templates"
    assert {p.name for p in folder.glob("*.html")} >= {
        "player.html",
        "status.html",
        "board.html",
        "score.html",
        "fix.html",
        "edit.html",
        "setup.html",
        "head.html",
    }
