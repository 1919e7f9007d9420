"""A meeple the meeple model misses on unknown art, read from what changed on its tile; and a
recorded tile the cell model takes for felt keeping its bare look (companion/games/starwars/
reader/meeple_changes.py, companion/vision/meeples.py)."""

from __future__ import annotations

import numpy as np
import pytest
from test_tracker_meeples import LABELS, Table, reading

from companion.games.starwars.reader.meeple_changes import (
    FirstSeen,
    large_chance,
    meeple_like,
    unexplained,
)
from companion.games.starwars.spots import SPOT_XY
from companion.vision.labels import EMPTY, MEEPLE_CLASSES
from companion.vision.meeples import BareLooks, changed_share
from companion.vision.reader import CellReading, ChangePatch, SpotReading


@pytest.fixture
def table() -> Table:
    made = Table()
    made.tracker.learning.art.familiar = False  # the table has shown its art is not the model's
    return made


def ben_lays_a_planet(table: Table) -> tuple[int, int]:
    here = table.lay("Ben", lambda t: t.planet_index is not None)
    assert table.see(reading(here)) == []  # the tile bare: nothing changed yet
    return here


def patch(
    x: float, y: float, area: int = 110, extent: int = 12, colour: tuple[int, int, int] = (40, 60, 60)
) -> ChangePatch:
    return ChangePatch(x, y, area, extent, 90.0, colour)


def test_a_meeple_the_model_misses_is_read_from_where_its_tile_changed(table: Table) -> None:
    here = ben_lays_a_planet(table)
    added = table.see(reading(here, changes=(SPOT_XY["P1"],), area=110))
    assert [(e["player"], e["at"], e["feature"], e["size"]) for e in added] == [
        ("Ben", list(here), "planet", "small")
    ]
    assert added[0]["meta"]["read_by"] == "change" and added[0]["meta"]["confidence"] >= 0.98
    assert table.codes() == set()
    # seen again, the patch is the meeple now known: nothing new
    assert table.see(reading(here, changes=(SPOT_XY["P1"],), area=110)) == []


def test_a_large_meeple_s_patch_is_read_large(table: Table) -> None:
    here = ben_lays_a_planet(table)
    added = table.see(reading(here, changes=(SPOT_XY["P2"],), area=200))
    assert [(e["feature"], e["size"]) for e in added] == [("planet", "large")]


def test_a_patch_between_the_two_sizes_asks(table: Table) -> None:
    here = ben_lays_a_planet(table)
    assert table.see(reading(here, changes=(SPOT_XY["P1"],), area=158)) == []
    assert table.codes() == {"unsure-meeple"}
    assert len(table.game.meeples_on_board()) == 1  # Ana's only


def test_on_familiar_art_the_model_s_word_stands(table: Table) -> None:
    table.tracker.learning.art.familiar = True
    here = ben_lays_a_planet(table)
    assert table.see(reading(here, changes=(SPOT_XY["P1"],), area=110)) == []
    assert len(table.game.meeples_on_board()) == 1


def test_a_patch_seen_in_an_earlier_turn_is_not_this_turn_s_meeple(table: Table) -> None:
    here = ben_lays_a_planet(table)
    # the patch showed in the turn before (a meeple missed then): not read as Ben's now
    table.tracker._first_seen.turn_of(here, SPOT_XY["P1"], len(table.game.board.tiles) - 1)
    assert table.see(reading(here, changes=(SPOT_XY["P1"],), area=110)) == []
    assert len(table.game.meeples_on_board()) == 1


def test_what_a_meeple_s_patch_looks_like() -> None:
    assert meeple_like(patch(0.0, -0.3))
    assert not meeple_like(patch(0.0, -0.3, area=30))  # a speck
    assert not meeple_like(patch(0.0, 0.56))  # the tile laid beside it
    assert not meeple_like(patch(0.0, -0.3, area=100, extent=40))  # a nudged tile's edge
    assert large_chance(patch(0, 0, area=100)) == pytest.approx(0.0, abs=0.01)
    assert large_chance(patch(0, 0, area=200)) == pytest.approx(1.0, abs=0.01)
    assert 0.2 < (large_chance(patch(0, 0, area=158)) or 0) < 0.8
    assert large_chance(patch(0, 0, area=200, colour=(150, 170, 160))) is None  # pale: cut smaller


def test_a_patch_where_a_known_meeple_stands_is_that_meeple(table: Table) -> None:
    tile = table.game.board.tiles[table.planet]
    at_p1 = patch(*SPOT_XY["P1"])
    assert unexplained(table.planet, tile, (at_p1,), {"P1"}) == []
    (found,) = unexplained(table.planet, tile, (at_p1,), set())
    assert (found.spot, found.letter) == ("P1", "planet")


def test_a_patch_is_dated_by_the_turn_it_first_showed() -> None:
    seen = FirstSeen()
    assert seen.turn_of((0, 1), (0.1, 0.1), 5) == 5
    assert seen.turn_of((0, 1), (0.12, 0.09), 7) == 5  # the same patch, a little off
    assert seen.turn_of((0, 1), (-0.3, 0.0), 7) == 7


def _felt_reading(cell: tuple[int, int], window: np.ndarray) -> CellReading:
    probs = np.zeros(len(LABELS.classes), np.float32)
    probs[LABELS.index_of(EMPTY)] = 1.0
    nothing = tuple(
        SpotReading(name, MEEPLE_CLASSES[0], 1.0, (1.0,) + (0.0,) * (len(MEEPLE_CLASSES) - 1))
        for name in ("N", "E", "S", "W", "P1", "P2")
    )
    return CellReading(cell, probs, nothing, np.zeros(1, np.float32), window=window)


def test_a_recorded_tile_taken_for_felt_keeps_its_bare_look_while_only_a_meeple_changed() -> None:
    rng = np.random.default_rng(4)
    bare = np.full((64, 64, 3), 120, np.uint8) + rng.integers(0, 6, (64, 64, 3), dtype=np.uint8)  # plain art
    looks = BareLooks(LABELS, None)
    looks.keep_bare(_felt_reading((1, 1), bare))
    with_meeple = bare.copy()
    with_meeple[20:31, 26:36] = (30, 30, 30)
    assert changed_share(with_meeple, bare) < 0.1
    looks.update([_felt_reading((1, 1), with_meeple)])
    assert (1, 1) in looks.looks
    felt = np.full((64, 64, 3), (60, 110, 70), np.uint8)  # taken away: felt where it lay
    looks.update([_felt_reading((1, 1), felt)])
    assert (1, 1) not in looks.looks
