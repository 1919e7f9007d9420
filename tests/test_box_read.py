"""Reading a photo against the user's enrolled box: the gallery's likeness narrowed by the rules'
fit with the tiles around, and real printed art read that way."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.errors import UserError
from companion.games.starwars import models as starwars_models
from companion.games.starwars.reader.board_read import checked_mat, read_board
from companion.games.starwars.reader.box_read import (
    BoxBars,
    LookAgain,
    look_at_cells,
    narrow,
    read_against_box,
    second_look_at,
    side_fits,
    tile_type,
)
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.tiles import Tile, parse_tile
from companion.vision.gallery_match import GalleryMatch, SecondLook
from companion.vision.lattice import find_lattice
from companion.vision.rectify import Rectifier
from models.training.real_art import art_missing, deal_board, enrol_box, photograph

ROUTE_EW = parse_tile({"features": [{"kind": "route", "edges": "EW"}]})
ROUTE_NS = ROUTE_EW.rotated(1)
ASTEROID_W = parse_tile({"features": [{"kind": "asteroid", "edges": "W"}]})
PLANET = parse_tile({"features": [{"kind": "planet", "symbols": ["empire"]}]})
E, W = 1, 3


def match(*ranked: tuple[Tile, float]) -> GalleryMatch[Tile]:
    return GalleryMatch(ranked[0][0], ranked[0][1], ranked[1][1] if len(ranked) > 1 else -1.0, ranked=ranked)


def test_sides_fit_as_the_rules_say() -> None:
    assert side_fits(ROUTE_EW, E, ROUTE_EW)  # route to route
    assert not side_fits(ROUTE_NS, E, ROUTE_EW)  # space to route
    assert side_fits(ROUTE_NS, E, PLANET)  # space to space
    assert not side_fits(PLANET, E, ASTEROID_W)  # space to asteroid


def test_a_neighbour_drops_the_candidates_that_cannot_lie_beside_it() -> None:
    candidates = {(0, 0): [(ROUTE_NS, 0.9), (ROUTE_EW, 0.85)], (1, 0): [(ROUTE_EW, 0.95)]}
    fits = narrow(candidates)
    assert fits == {(0, 0): True, (1, 0): True}
    assert candidates[(0, 0)] == [(ROUTE_EW, 0.85)]  # the likelier reading did not fit


def test_a_cell_nothing_fits_keeps_its_candidates_and_says_so() -> None:
    candidates = {(0, 0): [(PLANET, 0.9)], (1, 0): [(ASTEROID_W, 0.95)]}
    fits = narrow(candidates)
    assert not fits[(0, 0)] or not fits[(1, 0)]
    assert candidates == {(0, 0): [(PLANET, 0.9)], (1, 0): [(ASTEROID_W, 0.95)]}


def test_a_reading_is_sure_only_alike_enough_and_ahead_of_the_rest() -> None:
    bars = BoxBars(not_a_tile=0.6, window=0.15, sure_score=0.7, sure_margin=0.08)
    readings = read_against_box(
        {
            (0, 0): match((PLANET, 0.92), (ROUTE_NS, 0.5)),  # alone in its window: sure
            (5, 5): match((ROUTE_EW, 0.9), (ROUTE_NS, 0.86)),  # two close, no neighbour: asked
            (9, 9): match((ROUTE_EW, 0.5)),  # like no picture: no tile of the box
            (7, 7): None,
        },
        bars,
    )
    by_cell = {reading.cell: reading for reading in readings}
    assert set(by_cell) == {(0, 0), (5, 5)}
    assert by_cell[(0, 0)].tile == PLANET
    assert by_cell[(5, 5)].tile is None and by_cell[(5, 5)].choices == (ROUTE_EW, ROUTE_NS)
    low = read_against_box({(0, 0): match((PLANET, 0.65))}, bars)
    assert low[0].tile is None  # alone, but not alike enough to be sure


def test_a_close_reading_is_sure_when_the_second_look_agrees_on_it() -> None:
    bars = BoxBars(sure_score=0.7, sure_margin=0.08, agreed_grey=0.03, agreed_colour=0.03, apart=0.1)
    close = {(5, 5): match((ROUTE_EW, 0.9), (ROUTE_NS, 0.86))}
    asked: list[tuple[tuple[int, int], tuple[Tile, ...]]] = []

    def looks(grey: float, colour: float, nearer: float = 0.0) -> LookAgain:
        def look(cell: tuple[int, int], ways: Sequence[Tile]) -> SecondLook[Tile]:
            asked.append((cell, tuple(ways)))
            return SecondLook(
                {ROUTE_EW: 0.8, ROUTE_NS: 0.8 - grey},
                {ROUTE_EW: 0.6, ROUTE_NS: 0.6 - colour},
                {ROUTE_NS: nearer},
            )

        return look

    (agreed,) = read_against_box(close, bars, second_look=looks(0.1, 0.05))
    assert agreed.tile == ROUTE_EW and agreed.agreed
    assert asked == [((5, 5), (ROUTE_EW, ROUTE_NS))]  # the candidates left, the best first
    # grey and colours a little ahead, and clearly nearer where the two pictures differ
    (apart,) = read_against_box(close, bars, second_look=looks(0.01, 0.01, nearer=0.3))
    assert apart.tile == ROUTE_EW and apart.agreed
    for grey, colour, nearer in ((0.1, 0.01, 0.0), (0.01, 0.1, 0.05), (-0.01, 0.2, 0.5), (0.2, -0.01, 0.5)):
        (unsure,) = read_against_box(close, bars, second_look=looks(grey, colour, nearer))
        assert unsure.tile is None and not unsure.agreed
    # a cell far enough ahead, or not alike enough, is not looked at again
    asked.clear()
    read_against_box({(0, 0): match((PLANET, 0.92), (ROUTE_NS, 0.5))}, bars, second_look=looks(-1, -1))
    read_against_box({(0, 0): match((PLANET, 0.65), (ROUTE_NS, 0.6))}, bars, second_look=looks(1, 1, 1))
    assert asked == []


@pytest.mark.skipif(art_missing() is not None, reason=art_missing() or "")
def test_the_gallery_s_second_look_prefers_the_tile_that_lies_there() -> None:
    box = tile_gallery()
    enrol_box(box)
    rng = random.Random("test-second-look")
    laid = deal_board(rng, 12)
    photo = photograph(rng, laid)
    located = checked_mat(photo)
    assert located.homography is not None
    view = Rectifier().rectify(photo, located.homography)
    found = find_lattice(view)
    assert found is not None
    lattice, cells = found
    matches, _ = look_at_cells(box, view, lattice, cells)
    look_again = second_look_at(box, view, lattice)
    checked = 0
    for cell, found_match in matches.items():
        if found_match is None or found_match.score < 0.8 or len(found_match.ranked) < 2:
            continue
        best, rival = found_match.ranked[0][0], found_match.ranked[1][0]
        look = look_again(cell, [best, rival])
        assert look is not None and set(look.grey) == set(look.colour) == {best, rival}
        assert set(look.nearer) == {rival}
        values = [*look.grey.values(), *look.colour.values(), *look.nearer.values()]
        assert all(-1.0 <= value <= 1.0 for value in values)
        # the way the likeness is sure of is nearer the window where the two differ than its rival
        assert look.nearer[rival] > 0
        checked += 1
    assert checked >= 6
    unknown = PLANET  # a planet alone, on bare space
    assert unknown not in box.ways()  # a way the box has no picture of: no second look
    assert look_again(cells[0], [unknown, found_match.ranked[0][0]]) is None


@pytest.mark.skipif(art_missing() is not None, reason=art_missing() or "")
def test_real_printed_art_is_read_against_the_box_enrolled_from_one_scan_a_type() -> None:
    box = tile_gallery()
    enrol_box(box)
    rng = random.Random("test-box-read")
    laid = deal_board(rng, 24)
    result = read_board(photograph(rng, laid), starwars_models.cell_model(), box)
    assert result["box"] is True
    read = {tuple(cell["at"]): cell for cell in result["cells"]}
    sure = {at: parse_tile(cell["tile"]) for at, cell in read.items() if cell["tile"] is not None}
    # the lattice numbers its own cells: line the reading up by the start tile's neighbourhood
    shifts = [
        (ax - x, ay - y) for (ax, ay), tile in sure.items() for (x, y), t in laid.items() if t.tile == tile
    ]
    dx, dy = max(set(shifts), key=shifts.count)
    right = sum(1 for (x, y), t in laid.items() if sure.get((x + dx, y + dy)) == t.tile)
    wrong = sum(
        1
        for (x, y), tile in sure.items()
        if laid.get((x - dx, y - dy)) is None or laid[(x - dx, y - dy)].tile != tile
    )
    assert wrong == 0
    assert right >= 0.9 * len(laid)
    # what is not sure is asked with the choices left, never guessed
    for cell in read.values():
        if cell["tile"] is None:
            assert cell["reading"] in ("unsure", "unknown")


def test_board_read_says_which_box_it_reads_against(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.games.starwars.reader.box_counts import save_counts
    from tests.test_board_read import table_picture

    picture, _ = table_picture()
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), picture)
    assert main(["board", "read", str(image), "--state-dir", str(tmp_path / "state")]) == 0
    assert "no box enrolled" in capsys.readouterr().err
    gallery = tile_gallery(tmp_path / "state" / "gallery")
    gallery.add(cv2.resize(picture[300:400, 500:600], (96, 96)), PLANET, "one")
    assert main(["board", "read", str(image), "--state-dir", str(tmp_path / "state"), "--json"]) == 0
    out = capsys.readouterr()
    assert "read against your box: 1 pictures" in out.err and '"box": true' in out.out
    # a picture the gallery cannot use is named, not passed over in silence
    (tmp_path / "state" / "gallery" / "two.png").write_bytes(b"not a picture")
    (tmp_path / "state" / "gallery" / "two.json").write_text('{"tile": "X"}', encoding="utf-8")
    assert main(["board", "read", str(image), "--state-dir", str(tmp_path / "state")]) == 0
    assert "  not used: " in capsys.readouterr().err
    (tmp_path / "state" / "gallery" / "two.png").unlink()
    (tmp_path / "state" / "gallery" / "two.json").unlink()
    save_counts(tmp_path / "state", {tile_type(PLANET): 1})
    assert main(["board", "read", str(image), "--state-dir", str(tmp_path / "state")]) == 0
    assert "with the counts of 1 tile types" in capsys.readouterr().err


def test_a_printed_cell_like_no_picture_is_asked_about_not_dropped() -> None:
    matches = {(0, 0): match((PLANET, 0.4), (ROUTE_EW, 0.3)), (3, 3): match((ROUTE_EW, 0.35))}
    assert read_against_box(matches) == []  # like no picture, nothing printed: felt
    (reading,) = read_against_box(matches, printed={(0, 0)})
    assert reading.cell == (0, 0) and reading.tile is None and not reading.in_box
    assert reading.choices == (PLANET, ROUTE_EW)


def test_the_tracker_records_a_gallery_reading_by_the_box_s_bars_only_against_an_enrolled_box() -> None:
    from companion.games.starwars.reader.learning import TileLearning
    from companion.games.starwars.sim.render import tile_picture
    from companion.vision.gallery import ENROLLED

    gallery = tile_gallery()
    learning = TileLearning(gallery, ROUTE_EW)
    # short of the gallery's own bars, within the box's, the colours agreeing
    fair = GalleryMatch(PLANET, 0.75, 0.6, colour_margin=0.05)
    close = GalleryMatch(PLANET, 0.75, 0.7, colour_margin=0.05)
    colours_against = GalleryMatch(PLANET, 0.75, 0.6, colour_margin=-0.02)
    assert not fair.sure and not learning.sure(fair)
    gallery.add(tile_picture(PLANET, 10_001, 96), PLANET, f"{ENROLLED}-planet")
    assert learning.sure(fair) and not learning.sure(close)
    assert not learning.sure(colours_against)


def test_the_simulator_draws_a_printed_box_s_scan_turned_as_the_tile_lies() -> None:
    import numpy as np

    from companion.games.starwars.sim.render import _tile_picture, register_printed_box

    scan = np.zeros((64, 64, 3), np.uint8)
    scan[:8] = 255  # a white band along its north side
    register_printed_box(123_456, [(ASTEROID_W.rotated(1), scan)])  # upright: asteroid on N
    drawn = _tile_picture(ASTEROID_W.rotated(2), 123_456, 0)  # lies with the asteroid on E
    assert drawn[:, -3:].mean() > 200 and drawn[:, :3].mean() < 50
    with pytest.raises(ValueError, match="no type of the printed box lies as"):
        _tile_picture(PLANET, 123_456, 0)


def test_the_box_s_counts_take_a_type_read_elsewhere_as_often_as_it_is_held() -> None:
    bars = BoxBars(not_a_tile=0.6, window=0.15, sure_score=0.7, sure_margin=0.08)
    matches = {
        (0, 0): match((PLANET, 0.92), (ROUTE_NS, 0.5)),  # a planet, sure
        (5, 5): match((PLANET, 0.9), (ASTEROID_W, 0.87)),  # planet or asteroid: too close
    }
    unsure = {r.cell: r for r in read_against_box(matches, bars)}
    assert unsure[(5, 5)].tile is None
    # the box holds one planet, read at (0, 0): (5, 5) is the asteroid
    one = {r.cell: r for r in read_against_box(matches, bars, counts={tile_type(PLANET): 1})}
    assert one[(0, 0)].tile == PLANET and one[(5, 5)].tile == ASTEROID_W
    assert one[(5, 5)].choices == (ASTEROID_W,)
    # with two planets in the box nothing is taken
    two = {r.cell: r for r in read_against_box(matches, bars, counts={tile_type(PLANET): 2})}
    assert two[(5, 5)].tile is None
    # a type read sure more often than the box holds it is asked about wherever it is read
    twice = {(0, 0): match((PLANET, 0.92)), (5, 5): match((PLANET, 0.95))}
    over = read_against_box(twice, bars, counts={tile_type(PLANET): 1})
    assert [r.tile for r in over] == [None, None]


def test_a_type_is_the_same_whichever_way_it_lies() -> None:
    assert tile_type(ROUTE_EW) == tile_type(ROUTE_NS)
    assert tile_type(ROUTE_EW) != tile_type(ASTEROID_W)


def test_enrolled_counts_are_kept_and_a_bad_count_or_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from companion.games.starwars.reader.box_counts import load_counts

    pictures, state = tmp_path / "pictures", tmp_path / "state"
    pictures.mkdir()
    rng = np.random.default_rng(5)
    for name, tile, count in (("planet", PLANET, 2), ("route", ROUTE_NS, 3), ("moon", ASTEROID_W, 0)):
        cv2.imwrite(str(pictures / f"{name}.png"), rng.integers(0, 256, (120, 120, 3), dtype=np.uint8))
        (pictures / f"{name}.json").write_text(json.dumps({"tile": tile.to_json(), "count": count}), "utf-8")
    code = main(["enroll", str(pictures), "--state-dir", str(state)])
    said = capsys.readouterr().err
    assert code == 1 and "moon.json: count must be a whole number of tiles from 1 to 99, not 0" in said
    assert load_counts(state) == {tile_type(PLANET): 2, tile_type(ROUTE_EW): 3}
    (state / "box-counts.json").write_text("{", "utf-8")
    with pytest.raises(UserError, match=r"box-counts\.json: not the box's counts"):
        load_counts(state)


def test_the_tracker_no_longer_reads_a_type_whose_every_tile_lies_on_the_board() -> None:
    from companion.games.base import Player, Setup
    from companion.games.starwars.catalog import load_catalog
    from companion.games.starwars.reader.learning import TileLearning
    from companion.games.starwars.sim.render import tile_picture
    from companion.table.links import EngineLink
    from companion.vision.gallery import ENROLLED
    from tests.test_gallery import window_of

    link = EngineLink(Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black"))))
    start = load_catalog().start.tile
    link.add({"event": "tile", "player": None, "at": [0, 0], "tile": start.to_json()})
    first = next(cell for cell, _, lying in link.game.legal_placements(PLANET) if lying == PLANET)
    link.add({"event": "tile", "player": "Ana", "at": list(first), "tile": PLANET.to_json()})
    gallery = tile_gallery()
    picture = tile_picture(PLANET, 10_001, 96)
    gallery.add(picture, PLANET, f"{ENROLLED}-planet")
    gallery.add(tile_picture(ROUTE_EW, 10_001, 96), ROUTE_EW, f"{ENROLLED}-route")
    learning = TileLearning(gallery, start)
    second = next(cell for cell, _, lying in link.game.legal_placements(PLANET) if lying == PLANET)
    window = window_of(picture, seed=2)
    seen = learning.read(link.game, second, window)
    assert seen is not None and seen.tile == PLANET  # no counts: a second planet is read
    learning.counts = {tile_type(PLANET): 1}
    seen = learning.read(link.game, second, window)
    assert seen is None or seen.tile != PLANET  # the box's one planet already lies on the board
    learning.counts = {tile_type(PLANET): 2}
    seen = learning.read(link.game, second, window)
    assert seen is not None and seen.tile == PLANET
