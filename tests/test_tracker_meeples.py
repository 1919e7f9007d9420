"""The tracker's meeple logic on readings made by hand: which meeple seen is new, which is one
the record has, and when to ask. (The camera path that makes such readings is tested in
test_camera.py; here the readings are exact, so each rule is tested alone.)"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from companion.games.base import Cell, Player, Setup
from companion.games.starwars import models as starwars_models
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.phase import Phase
from companion.games.starwars.reader.meeple_events import (
    MEEPLE_ACCEPT,
    MEEPLE_ACCEPT_UNFAMILIAR,
    MEEPLE_OWN_COLOUR,
    where_changed,
)
from companion.games.starwars.reader.meeple_match import match_cell
from companion.games.starwars.reader.tracker import Tracker
from companion.games.starwars.spots import SPOT_XY, feature_letter
from companion.games.starwars.tiles import AROUND
from companion.table.links import EngineLink
from companion.vision.labels import MEEPLE_CLASSES, UNKNOWN, TileLabels
from companion.vision.mat import TILE_PX
from companion.vision.meeples import changed_patches
from companion.vision.reader import CellReading, ChangePatch, SpotReading
from companion.vision.watcher import Observation

LABELS = TileLabels.load(starwars_models.cells_path().with_suffix(".labels.json"))


def spot(name: str, **classes: float) -> SpotReading:
    """A spot reading: the given classes ("red/small"=0.8, ...), the rest of the chance on none."""
    probs = [0.0] * len(MEEPLE_CLASSES)
    for key, p in classes.items():
        probs[MEEPLE_CLASSES.index(key.replace("_", "/"))] = p
    probs[0] = 1.0 - sum(probs)
    best = int(np.argmax(probs))
    return SpotReading(name, MEEPLE_CLASSES[best], probs[best], tuple(probs))


def reading(
    cell: Cell,
    *spots: SpotReading,
    meeples_from: str = "pair",
    changes: tuple[tuple[float, float], ...] = (),
    area: int = 110,
) -> CellReading:
    """A re-read of a cell whose tile the record has (the tile class does not matter then), its
    meeples read from the pair (now and bare) unless ``meeples_from`` is "cell"; ``changes``:
    where it changed since the bare look, each a patch of ``area`` pixels (a small meeple's)."""
    probs = np.zeros(len(LABELS.classes), np.float32)
    probs[LABELS.index_of(UNKNOWN)] = 1.0
    patches = tuple(ChangePatch(x, y, area, 12, 90.0) for x, y in changes)
    return CellReading(
        cell, probs, spots, np.zeros(1, np.float32), meeples_from=meeples_from, patches=patches
    )


class Dice:
    def __init__(self) -> None:
        self.reported: list[dict[str, Any]] = []

    def poll(self, engine: object) -> list[dict[str, Any]]:
        taken, self.reported = self.reported, []
        return taken


class Table:
    """Ana (red) and Ben (black); Ana has laid a planet tile and stood a meeple on it (P1)."""

    def __init__(self) -> None:
        self.link = EngineLink(Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black"))))
        self.dice = Dice()
        self.tracker = Tracker(self.link, LABELS, self.dice)
        self.game = self.link.game
        self.link.add(
            {"event": "tile", "player": None, "at": [0, 0], "tile": load_catalog().start.tile.to_json()}
        )
        self.planet = self.lay("Ana", lambda t: t.planet_index is not None)
        added = self.see(reading(self.planet, spot("P1", red_small=0.99)))
        assert [(e["player"], e["feature"]) for e in added] == [("Ana", "planet")]

    def lay(self, player: str, wanted: Any = lambda t: True, near: Cell | None = None) -> Cell:
        """``player`` lays a tile (entered on the phone), next to ``near`` if given."""
        if self.game.phase is Phase.MEEPLE:
            self.game.close_turn()
        for entry in load_catalog().tiles[1:]:
            if not wanted(entry.tile):
                continue
            for cell, _, lying in self.game.legal_placements(entry.tile):
                if near is None or (cell[0] - near[0], cell[1] - near[1]) in AROUND:
                    self.link.add(
                        {"event": "tile", "player": player, "at": list(cell), "tile": lying.to_json()}
                    )
                    return cell
        raise AssertionError("no tile fits")

    def see(self, *readings: CellReading) -> list[dict[str, Any]]:
        return self.tracker.observe(Observation(list(readings)))

    def codes(self) -> set[str]:
        return {p.code for p in self.tracker.open_prompts()}


@pytest.fixture
def table() -> Table:
    return Table()


def test_an_attacker_seen_alone_on_a_planet_is_new_not_the_defender(table: Table) -> None:
    table.lay("Ben", near=table.planet)
    # the camera misses Ana's meeple and sees only Ben's, at the other planet spot
    added = table.see(reading(table.planet, spot("P2", black_small=0.98)))
    assert [(e["player"], e["at"], e["feature"]) for e in added] == [("Ben", list(table.planet), "planet")]
    assert "missing-meeple" in table.codes()  # and it says Ana's is not seen


def test_a_known_meeple_seen_where_it_was_is_not_new(table: Table) -> None:
    table.lay("Ben", near=table.planet)
    assert table.see(reading(table.planet, spot("P1", red_small=0.97))) == []
    assert table.codes() == set()


def test_one_meeple_seen_at_another_spot_of_a_planet_that_may_take_one_asks(table: Table) -> None:
    table.lay("Ben", near=table.planet)
    table.lay("Ana", near=table.planet)
    # Ana may add a second meeple to her planet: one red meeple seen at P2, none at P1, is it
    # hers moved, or a new one with the old one unseen? The camera cannot tell.
    assert table.see(reading(table.planet, spot("P2", red_small=0.99))) == []
    assert "unsure-meeple" in table.codes()
    assert len(table.game.meeples_on_board()) == 1


def test_a_meeple_no_one_may_place_now_is_a_stray_not_the_turn_s_meeple(table: Table) -> None:
    here = table.lay("Ben")
    far = next(c for c in table.game.board.tiles if c not in (here, table.planet))
    assert table.see(reading(far, spot("N", black_small=0.99))) == []
    assert table.codes() == {"stray-meeple"}
    assert len(table.game.meeples_on_board()) == 1


def test_on_unknown_art_only_a_sure_stray_asks(table: Table) -> None:
    here = table.lay("Ben")
    far = next(c for c in table.game.board.tiles if c not in (here, table.planet))
    table.tracker.learning.art.familiar = False
    assert table.see(reading(far, spot("N", black_small=MEEPLE_ACCEPT_UNFAMILIAR - 0.05))) == []
    assert table.codes() == set()  # a patch of art the model takes for a meeple, most likely
    assert table.see(reading(far, spot("N", black_small=MEEPLE_ACCEPT_UNFAMILIAR + 0.01))) == []
    assert table.codes() == {"stray-meeple"}


@pytest.mark.parametrize("familiar", [True, False])
def test_on_unknown_art_only_a_sure_fallen_meeple_asks(table: Table, familiar: bool) -> None:
    table.lay("Ben")
    table.tracker.learning.art.familiar = familiar
    # Ana's meeple is not seen; a faint lying shape at P2 is most likely art on unknown art
    table.see(reading(table.planet, spot("P2", fallen=0.7)))
    if familiar:
        assert "fallen-meeple" in table.codes()
    else:  # not taken for her fallen meeple either: hers is missing
        assert table.codes() == {"missing-meeple"}
    table.see(reading(table.planet, spot("P1", fallen=0.995)))
    assert "fallen-meeple" in table.codes()


def test_on_unknown_art_a_meeple_surely_there_and_likely_lying_asks_to_stand_it_up(table: Table) -> None:
    here = table.lay("Ben")
    name = _a_side(table)
    name = name if name != "planet" else "P1"
    table.tracker.learning.art.familiar = False
    assert table.see(reading(here, spot(name, fallen=0.6, black_small=0.39))) == []
    assert table.codes() == {"fallen-meeple"}


def _two_places(table: Table) -> list[str]:
    """Two spots of the tile just laid where the player of the turn may place a meeple."""
    features = sorted({m.feature for m in table.game.legal_meeples()})
    assert len(features) >= 2, features
    return ["P1" if f == "planet" else f for f in features[:2]]


def test_on_unknown_art_two_unsure_new_meeples_ask_once_whether_one_was_placed(table: Table) -> None:
    here = table.lay("Ben", lambda t: t.planet_index is not None and any(f.sides for f in t.features))
    first, second = _two_places(table)
    table.tracker.learning.art.familiar = False
    faint = MEEPLE_ACCEPT - 0.1
    assert table.see(reading(here, spot(first, black_small=faint), spot(second, black_small=faint))) == []
    assert table.codes() == {"unsure-meeple"}


def test_on_unknown_art_two_likely_new_meeples_are_still_one_too_many(table: Table) -> None:
    here = table.lay("Ben", lambda t: t.planet_index is not None and any(f.sides for f in t.features))
    first, second = _two_places(table)
    table.tracker.learning.art.familiar = False
    likely = (MEEPLE_ACCEPT + MEEPLE_ACCEPT_UNFAMILIAR) / 2  # below the bar to record, above art's
    seen = reading(here, spot(first, black_small=likely), spot(second, black_small=0.995))
    assert table.see(seen) == []
    assert table.codes() == {"two-meeples"}


def test_on_unknown_art_a_sure_new_meeple_beside_an_unsure_one_is_recorded(table: Table) -> None:
    here = table.lay("Ben", lambda t: t.planet_index is not None and any(f.sides for f in t.features))
    first, second = _two_places(table)
    table.tracker.learning.art.familiar = False
    seen = reading(here, spot(first, black_small=0.6), spot(second, black_small=0.995))
    added = table.see(seen)
    letter = "planet" if second == "P1" else second
    assert [(e["player"], e["feature"]) for e in added] == [("Ben", letter)]
    assert table.codes() == set()


def ben_lays_with_his_large_meeple_used(table: Table) -> tuple[Cell, str]:
    """Ben's large meeple goes on the board; a turn later he lays a tile. Returns that tile's
    cell and a spot on it where he may place a meeple."""
    here = table.lay("Ben")
    table.link.add(
        {"event": "meeple", "player": "Ben", "at": list(here), "feature": _a_side(table), "size": "large"}
    )
    table.lay("Ana")
    there = table.lay("Ben")
    side = _a_side(table)
    return there, side if side != "planet" else "P1"


def test_a_size_the_player_has_used_up_is_read_as_the_one_they_hold(table: Table) -> None:
    there, spot_name = ben_lays_with_his_large_meeple_used(table)
    # Ben's large meeple is on the board: a meeple judged 30 % large is his small one
    added = table.see(reading(there, spot(spot_name, black_small=0.65, black_large=0.3)))
    assert [(e["size"], e["meta"]["confidence"]) for e in added] == [("small", 0.95)]


def test_a_size_the_player_has_used_up_seen_clearly_asks(table: Table) -> None:
    there, spot_name = ben_lays_with_his_large_meeple_used(table)
    assert table.see(reading(there, spot(spot_name, black_large=0.8))) == []
    assert table.codes() == {"not-allowed"}


@pytest.mark.parametrize("familiar", [True, False])
def test_on_unknown_art_a_used_up_size_must_be_read_surely_to_ask(table: Table, familiar: bool) -> None:
    there, spot_name = ben_lays_with_his_large_meeple_used(table)
    table.tracker.learning.art.familiar = familiar
    # surely a black meeple, judged more likely large: on art the model does not know, its sizes
    # are not to be trusted, and Ben holds only his small one
    added = table.see(reading(there, spot(spot_name, black_large=0.6, black_small=0.395)))
    if familiar:
        assert added == [] and table.codes() == {"not-allowed"}
    else:
        assert [(e["player"], e["size"]) for e in added] == [("Ben", "small")]


def test_with_one_size_left_a_meeple_that_may_lie_on_its_side_is_still_placed(table: Table) -> None:
    there, spot_name = ben_lays_with_his_large_meeple_used(table)
    # standing or fallen over, Ben placed his small meeple there: only "nothing" would say no
    added = table.see(reading(there, spot(spot_name, black_small=0.6, fallen=0.4)))
    assert [(e["player"], e["size"], e["meta"]["confidence"]) for e in added] == [("Ben", "small", 1.0)]


def test_with_one_size_left_only_the_chance_of_nothing_counts(table: Table) -> None:
    there, spot_name = ben_lays_with_his_large_meeple_used(table)
    nothing = 1.0 - MEEPLE_ACCEPT - 0.02
    added = table.see(reading(there, spot(spot_name, black_small=0.5, fallen=0.5 - nothing)))
    assert [(e["size"], e["meta"]["confidence"]) for e in added] == [("small", round(1 - nothing, 4))]


def test_with_one_size_left_a_meeple_that_may_not_be_there_asks(table: Table) -> None:
    there, spot_name = ben_lays_with_his_large_meeple_used(table)
    chance = MEEPLE_ACCEPT - 0.05
    assert table.see(reading(there, spot(spot_name, black_small=chance))) == []
    assert table.codes() == {"unsure-meeple"}


def test_with_both_sizes_held_the_size_must_be_sure(table: Table) -> None:
    here = table.lay("Ben")
    name = _a_side(table)
    name = name if name != "planet" else "P1"
    unsure = spot(name, black_small=MEEPLE_ACCEPT - 0.05, black_large=1.05 - MEEPLE_ACCEPT)
    assert table.see(reading(here, unsure)) == []
    assert table.codes() == {"unsure-meeple"}
    sure = spot(name, black_small=MEEPLE_ACCEPT + 0.01, black_large=0.99 - MEEPLE_ACCEPT)
    assert [(e["player"], e["size"]) for e in table.see(reading(here, sure))] == [("Ben", "small")]


def test_on_art_the_model_does_not_know_a_meeple_must_be_surer(table: Table) -> None:
    here = table.lay("Ben")
    name = _a_side(table)
    name = name if name != "planet" else "P1"
    fairly = spot(name, black_small=(MEEPLE_ACCEPT + MEEPLE_ACCEPT_UNFAMILIAR) / 2)
    table.tracker.learning.art.familiar = False  # the table has shown its art is not the model's
    assert table.see(reading(here, fairly)) == []
    assert table.codes() == {"unsure-meeple"}
    sure = spot(name, black_small=MEEPLE_ACCEPT_UNFAMILIAR + 0.01)
    assert [(e["player"], e["size"]) for e in table.see(reading(here, sure))] == [("Ben", "small")]


def test_on_familiar_art_the_same_meeple_is_recorded(table: Table) -> None:
    here = table.lay("Ben")
    name = _a_side(table)
    name = name if name != "planet" else "P1"
    table.tracker.learning.art.familiar = True
    fairly = spot(name, black_small=(MEEPLE_ACCEPT + MEEPLE_ACCEPT_UNFAMILIAR) / 2)
    assert [(e["player"], e["size"]) for e in table.see(reading(here, fairly))] == [("Ben", "small")]


@pytest.mark.parametrize("familiar", [True, False])
def test_on_unknown_art_a_meeple_with_less_than_even_odds_of_the_player_s_colour_asks(
    table: Table, familiar: bool
) -> None:
    there, spot_name = ben_lays_with_his_large_meeple_used(table)
    table.tracker.learning.art.familiar = familiar
    # something is surely there, but as likely of other colours as Ben's, none of them dominant
    own = MEEPLE_OWN_COLOUR - 0.1
    rest = (0.995 - own) / 2
    added = table.see(reading(there, spot(spot_name, black_small=own, green_small=rest, white_small=rest)))
    if familiar:
        assert [(e["player"], e["size"]) for e in added] == [("Ben", "small")]
    else:
        assert added == [] and table.codes() == {"unsure-meeple"}


def test_a_roll_with_no_battle_waiting_is_kept_and_counts_once_the_meeple_is_entered(table: Table) -> None:
    table.lay("Ben", near=table.planet)
    table.see(reading(table.planet, spot("P1", red_small=0.99)))  # Ben's meeple not seen at all
    ben = {"event": "meeple", "player": "Ben", "at": list(table.planet), "feature": "planet", "size": "small"}
    after = table.game.copy()
    after.apply(after.parse_event(ben))
    battle = after.pending_battle()
    assert battle is not None
    for fighter in ("Ana", "Ben"):  # the trays report both rolls
        table.dice.reported.append({"event": "roll", "player": fighter, "dice": [3] * battle.dice[fighter]})
    assert table.tracker.poll_dice() == []
    assert "dice-without-battle" in table.codes()
    assert len(table.tracker.held_rolls) == 2
    # someone enters Ben's meeple on the phone: the battle waits, and the rolls count
    table.link.add(ben)
    assert [e["player"] for e in table.tracker.poll_dice()] == ["Ana", "Ben"]
    assert table.tracker.held_rolls == [] and "dice-without-battle" not in table.codes()


def test_the_places_a_meeple_may_go_are_looked_at_again(table: Table) -> None:
    here = table.lay("Ben", near=table.planet)
    assert set(table.tracker.cells_to_recheck(set())) >= {here, table.planet}
    assert table.planet not in table.tracker.cells_to_recheck({table.planet})
    table.game.close_turn()
    assert table.tracker.cells_to_recheck(set()) == []  # no meeple may come between turns


def test_matching_prefers_the_spot_a_meeple_was_last_seen_at() -> None:
    from companion.games.starwars.board import Meeple

    ana = Meeple(0, "Ana", "small", (1, 0), 2)
    ana_again = Meeple(1, "Ana", "small", (1, 0), 2)
    colours = {"Ana": "red"}
    seen = [(spot("P2", red_small=0.9), 2), (spot("P1", red_small=0.9), 2)]
    match = match_cell(seen, [ana, ana_again], colours, {0: "P1", 1: "P2"})
    assert [(s.spot, m.id) for s, m in match.known] == [("P2", 1), ("P1", 0)]
    assert match.moved == [] and match.new == [] and match.unseen == []
    # a clearly other colour is never a known meeple; an unsure one may be
    assert match_cell([(spot("P1", black_small=0.95), 2)], [ana], colours, {0: "P1"}).new
    assert match_cell([(spot("P1", black_small=0.5, red_small=0.45), 2)], [ana], colours, {0: "P1"}).known


def _a_side(table: Table) -> str:
    options = [m.feature for m in table.game.legal_meeples() if m.feature != "planet"]
    return options[0] if options else "planet"


def test_on_unknown_art_the_cell_model_alone_neither_asks_nor_misses(table: Table) -> None:
    here = table.lay("Ben", lambda t: t.planet_index is not None and any(f.sides for f in t.features))
    first, second = _two_places(table)
    table.tracker.learning.art.familiar = False
    # no bare look of the tile yet: the cell model's own meeples on art it does not know are
    # mostly art, so a faint one asks nothing, and Ana's planet meeple unseen is not "missing"
    alone = reading(here, spot(first, black_small=0.6), meeples_from="cell")
    assert table.see(alone, reading(table.planet, meeples_from="cell")) == []
    assert table.codes() == set()
    # the same faint meeple compared with the bare tile asks
    assert table.see(reading(here, spot(first, black_small=0.6))) == []
    assert table.codes() == {"unsure-meeple"}
    # and a sure one from the cell model alone is still recorded
    sure = reading(here, spot(second, black_small=0.995), meeples_from="cell")
    added = table.see(sure)
    letter = "planet" if second == "P1" else second
    assert [(e["player"], e["feature"]) for e in added] == [("Ben", letter)]


def test_on_familiar_art_the_cell_model_alone_still_asks(table: Table) -> None:
    here = table.lay("Ben", lambda t: t.planet_index is not None and any(f.sides for f in t.features))
    first, _ = _two_places(table)
    table.tracker.learning.art.familiar = True
    assert table.see(reading(here, spot(first, black_small=0.6), meeples_from="cell")) == []
    assert table.codes() == {"unsure-meeple"}


@pytest.mark.parametrize("familiar", [True, False])
def test_a_planet_meeple_read_at_the_spot_beside_it_is_where_the_tile_changed(
    table: Table, familiar: bool
) -> None:
    # Ana's meeple stands at P1; on art it does not know, the model reads it at N, but the
    # change lies by P1: it is hers, not a stray with hers missing. On its own art the model's
    # spot is trusted.
    table.tracker.learning.art.familiar = familiar
    by_p1 = (SPOT_XY["P1"][0] + 0.01, SPOT_XY["P1"][1] - 0.05)
    seen = reading(table.planet, spot("N", red_small=0.99), changes=(by_p1,))
    assert table.see(seen) == []
    if familiar:
        assert "missing-meeple" in table.codes()
        return
    assert table.codes() == set()
    # without where it changed, the same reading is a known meeple not where it was
    assert table.see(reading(table.planet, spot("N", red_small=0.99))) == []
    assert "missing-meeple" in table.codes()


def test_a_meeple_is_moved_only_to_a_clearly_nearer_free_spot_that_takes_one() -> None:
    tile = next(e.tile for e in load_catalog().tiles if e.tile.planet_index is not None)
    places = [name for name in SPOT_XY if feature_letter(tile, name) is not None]
    assert "P1" in places
    at_p1 = spot("N", red_small=0.99)
    between = ((SPOT_XY["N"][0] + SPOT_XY["P1"][0]) / 2, (SPOT_XY["N"][1] + SPOT_XY["P1"][1]) / 2)
    assert [s.spot for s in where_changed(tile, [at_p1], (SPOT_XY["P1"],))] == ["P1"]
    assert [s.spot for s in where_changed(tile, [at_p1], (between,))] == ["N"]  # not clearly nearer
    assert [s.spot for s in where_changed(tile, [at_p1], ((0.9, 0.9),))] == ["N"]  # too far: not it
    held = spot("P1", black_small=0.99)  # another meeple already read at P1
    assert [s.spot for s in where_changed(tile, [at_p1, held], (SPOT_XY["P1"],))] == ["N", "P1"]


def test_what_changed_since_the_bare_look_is_found_where_it_was_put() -> None:
    rng = np.random.default_rng(3)
    bare = rng.integers(60, 200, (64, 64, 3), dtype=np.uint8)
    now = bare.copy()
    now[18:28, 20:28] = (40, 40, 200)  # a red meeple up and to the left of the centre
    noisy = np.clip(now.astype(int) + rng.integers(-8, 9, now.shape), 0, 255).astype(np.uint8)
    (change,) = changed_patches(noisy, bare)
    assert (change.x, change.y) == pytest.approx(((23.5 - 32) / TILE_PX, (22.5 - 32) / TILE_PX), abs=0.03)
    assert change.area == pytest.approx(80, abs=12) and change.extent == pytest.approx(10, abs=2)
    assert change.contrast > 60
    assert changed_patches(bare, bare) == ()
