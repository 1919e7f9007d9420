"""The gallery of the user's own tiles (companion/vision/gallery.py), and the tracker learning
from it: a tile a person enters is read by the camera the next time it is laid."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.games.base import Player, Setup
from companion.games.starwars import models as starwars_models
from companion.games.starwars.art.box import BOX_STYLES, BoxStyle, draw_box_tile
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.reader.art_trust import ASKED_LIMIT, ArtTrust
from companion.games.starwars.reader.gallery import structure, tile_gallery
from companion.games.starwars.reader.learning import TileLearning
from companion.games.starwars.reader.tracker import Tracker
from companion.games.starwars.tiles import FACTIONS, Tile, parse_tile
from companion.table.links import EngineLink
from companion.vision.colour_fit import colour_aligner, colour_fit
from companion.vision.gallery import ENROLLED
from companion.vision.gallery_files import read_folder
from companion.vision.gallery_match import (
    AGREED_MARGIN,
    AGREED_SCORE,
    CHOICES,
    LAYOUT_MARGIN,
    MATCH_MARGIN,
    MATCH_SURE,
    NEAR_COPY,
    NEAR_COPY_MARGIN,
    SEEN_COPY,
    SEEN_COPY_MARGIN,
    GalleryMatch,
)
from companion.vision.labels import MEEPLE_CLASSES, TileLabels
from companion.vision.mat import CROP_PX, TILE_PX
from companion.vision.reader import CellReading, SpotReading
from companion.vision.tile_window import FIND_PX, square_of_picture
from companion.vision.watcher import Observation

LABELS = TileLabels.load(starwars_models.cells_path().with_suffix(".labels.json"))
STYLE = BoxStyle.from_seed(BOX_STYLES[0])
CATALOG = load_catalog()
START = CATALOG.start.tile


def box_picture(tile: Tile, variant: int = 0) -> np.ndarray:
    return draw_box_tile(tile, STYLE, 96, variant)


def window_of(
    picture: np.ndarray, quarter_turns: int = 0, off: tuple[int, int] = (0, 0), seed: int = 0
) -> np.ndarray:
    """A camera window centred on a cell: the picture turned to lie, a little off its cell, on
    felt, with sensor noise."""
    turned = np.rot90(picture, k=-quarter_turns)
    tile = cv2.resize(np.ascontiguousarray(turned), (TILE_PX, TILE_PX), interpolation=cv2.INTER_AREA)
    window = np.full((CROP_PX, CROP_PX, 3), (70, 120, 80), np.float32)
    rim = (CROP_PX - TILE_PX) // 2
    window[rim + off[1] : rim + off[1] + TILE_PX, rim + off[0] : rim + off[0] + TILE_PX] = tile
    window += np.random.default_rng(seed).normal(0, 3, window.shape)
    return np.clip(window, 0, 255).astype(np.uint8)


def distinct_tiles() -> list[Tile]:
    return [entry.tile for entry in CATALOG.tiles]


def test_an_empty_gallery_reads_nothing() -> None:
    assert tile_gallery().match(window_of(box_picture(START))) is None


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_one_picture_per_type_reads_its_print_whichever_way_it_lies(quarter_turns: int) -> None:
    gallery = tile_gallery()
    for tile in distinct_tiles():
        gallery.add(box_picture(tile), tile)
    wrong = []
    for number, tile in enumerate(distinct_tiles()):
        seen = window_of(box_picture(tile), quarter_turns, off=(2, -1), seed=number)
        match = gallery.match(seen)
        assert match is not None
        if match.tile != tile.rotated(quarter_turns):
            wrong.append(tile.describe())
    assert not wrong


def test_the_rules_narrow_what_the_gallery_may_read() -> None:
    gallery = tile_gallery()
    for tile in distinct_tiles():
        gallery.add(box_picture(tile), tile)
    tile = distinct_tiles()[5]
    seen = window_of(box_picture(tile))
    match = gallery.match(seen, allowed=lambda t: t != tile)
    assert match is not None and match.tile != tile
    assert gallery.match(seen, allowed=lambda t: False) is None


def test_new_pictures_never_take_the_name_of_one_kept(tmp_path: Path) -> None:
    gallery = tile_gallery(tmp_path)
    first, second = (gallery.add(box_picture(t), t) for t in distinct_tiles()[:2])
    gallery.remove(first)
    third = tile_gallery(tmp_path).add(box_picture(distinct_tiles()[2]), distinct_tiles()[2])
    assert third not in (first, second)
    assert len(tile_gallery(tmp_path)) == 2


def test_a_bad_file_in_a_gallery_folder_is_left_out_and_named(tmp_path: Path) -> None:
    tile_gallery(tmp_path).add(box_picture(START), START, name="start")
    cv2.imwrite(str(tmp_path / "orphan.png"), box_picture(START))  # a picture without its label
    gallery = tile_gallery(tmp_path)
    assert len(gallery) == 1 and len(gallery.skipped) == 1 and "orphan.png" in gallery.skipped[0]


@pytest.mark.parametrize("side", [40, 56, 72])
def test_a_window_of_the_wrong_size_is_refused(side: int) -> None:
    with pytest.raises(ValueError, match=f"{CROP_PX} px square"):
        tile_gallery().add_window(np.zeros((side, side, 3), np.uint8), START)


def test_a_gallery_keeps_its_pictures_in_its_folder(tmp_path: Path) -> None:
    tile = distinct_tiles()[3]
    tile_gallery(tmp_path).add(box_picture(tile), tile.rotated(1), name="my tile")
    # the picture, its label, and its vectors kept so a start need not work them out again
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "my-tile.json",
        "my-tile.png",
        "my-tile.vectors.npz",
    ]
    again = tile_gallery(tmp_path)
    assert len(again) == 1
    match = again.match(window_of(box_picture(tile), 1))
    assert match is not None and match.tile == tile.rotated(2)


def write_pair(folder: Path, name: str, tile: object, picture: bool = True) -> None:
    if picture:
        cv2.imwrite(str(folder / f"{name}.png"), box_picture(START))
    (folder / f"{name}.json").write_text(json.dumps({"tile": tile}), encoding="utf-8")


def test_a_folder_of_labelled_pictures_is_read_in_name_order(tmp_path: Path) -> None:
    write_pair(tmp_path, "b", START.to_json())
    write_pair(tmp_path, "a", START.rotated(1).to_json())
    (tmp_path / "notes.txt").write_text("not a picture", encoding="utf-8")
    found, bad = read_folder(tmp_path, parse_tile)
    assert [(name, tile) for _, tile, name in found] == [("a", START.rotated(1)), ("b", START)]
    assert bad == []


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda d: cv2.imwrite(str(d / "x.png"), box_picture(START)), "no x.json beside it"),
        (lambda d: write_pair(d, "x", {"features": [{"kind": "moon"}]}), r"x\.json: .*moon"),
        (lambda d: write_pair(d, "x", None), r"x\.json: .*not null"),
        (
            lambda d: (write_pair(d, "x", None), (d / "x.json").write_text('{"features": []}')),
            r"x\.json: expected \{\"tile\"",
        ),
        (
            lambda d: ((d / "x.png").write_bytes(b"not a png"), write_pair(d, "x", START.to_json(), False)),
            r"x\.png: not an image OpenCV can read",
        ),
        (
            lambda d: (
                write_pair(d, "x", START.to_json()),
                cv2.imwrite(str(d / "x.jpg"), box_picture(START)),
            ),
            "one picture per name",
        ),
    ],
)
def test_a_bad_picture_or_label_is_named(tmp_path: Path, make: object, said: str) -> None:
    make(tmp_path)  # type: ignore[operator]
    found, bad = read_folder(tmp_path, parse_tile)
    assert len(bad) == 1 and re.search(said, bad[0]), bad
    assert len(found) == (1 if said == "one picture per name" else 0)


def test_the_art_is_trusted_only_once_it_shows_itself_familiar() -> None:
    trust = ArtTrust(START)
    trust.start_read(START.rotated(1), sure=True)
    assert trust.familiar is True
    for _ in range(ASKED_LIMIT - 1):
        trust.new_tile(asked=True)
    assert trust.familiar is True
    trust.new_tile(asked=True)
    assert trust.familiar is False and trust.message is not None
    other = ArtTrust(START)
    other.start_read(distinct_tiles()[4], sure=True)  # a sure reading, but not the start tile
    assert other.familiar is False
    unsure = ArtTrust(START)
    unsure.start_read(START, sure=False)
    assert unsure.familiar is False
    entered = ArtTrust(START)  # the start tile entered on the phone: the first answer decides
    entered.answered(START, START)
    assert entered.familiar is True


def reading_of(cell: tuple[int, int], window: np.ndarray, believed: Tile | None) -> CellReading:
    """A reading by a model sure of the wrong tile, as on art it never saw (None: sure the cell
    is bare felt)."""
    probs = np.zeros(len(LABELS.classes), np.float32)
    if believed is None:
        probs[LABELS.classes.index("empty")] = 0.99
    else:
        probs[LABELS.classes.index(believed.to_json())] = 0.97
        probs[LABELS.classes.index("empty")] = 0.03
    none = tuple(1.0 if name == "none" else 0.0 for name in MEEPLE_CLASSES)
    spots = tuple(SpotReading(spot, "none", 1.0, none) for spot in LABELS.spots)
    return CellReading(cell, probs, spots, np.zeros(1, np.float32), window)


def test_a_tile_entered_after_a_prompt_is_read_by_the_camera_the_next_time() -> None:
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    link = EngineLink(setup)
    tracker = Tracker(link, LABELS)
    start_window = window_of(box_picture(START), seed=1)
    misread = next(t for t in distinct_tiles() if t.planet_index is not None and t != START)
    tracker.observe(Observation([reading_of((0, 0), start_window, misread)]))
    assert tracker.learning.art.familiar is False and [e["event"] for e in link.events] == []
    link.add(
        {"event": "tile", "player": None, "at": [0, 0], "tile": START.to_json(), "meta": {"source": "phone"}}
    )
    # Ana lays a tile of a type the companion has not seen in this box: it asks
    # a curve of route: a straight one is, to the likeness, a near rival of the start tile (a
    # straight route with a field beside it) once that is in the gallery as a camera window
    kind = next(
        t for t in distinct_tiles() if t.to_json() == {"features": [{"kind": "route", "edges": "SW"}]}
    )
    cell, turns, lying = link.game.legal_placements(kind)[0]
    seen = reading_of(cell, window_of(box_picture(kind), turns, off=(1, 2), seed=2), misread)
    assert tracker.observe(Observation([seen])) == []
    assert {p.code for p in tracker.open_prompts()} == {"unfamiliar-tile"}
    # Ana enters it on the phone; the companion keeps its picture
    link.add(
        {
            "event": "tile",
            "player": "Ana",
            "at": list(cell),
            "tile": lying.to_json(),
            "meta": {"source": "phone"},
        }
    )
    assert tracker.open_prompts() == []
    assert len(tracker.learning.gallery) == 2  # the start tile, entered before, and this one
    # Ben lays another copy of the same type elsewhere, turned if it fits so: read, not asked
    link.game.close_turn()
    later = sorted(link.game.legal_placements(kind), key=lambda p: p[1] == turns)  # turned, if it may be
    cell2, turns2, lying2 = later[0]
    window2 = window_of(box_picture(kind), turns2, off=(-2, 1), seed=3)
    # the gallery holds two answers, so other types the rules allow have no picture: a near copy
    match = tracker.learning.read(link.game, cell2, window2)
    assert match is not None and match.unseen_rivals and match.copy_score >= NEAR_COPY
    assert tracker.learning.reads[cell2] == match  # kept for an evaluation to weigh its bars by
    added = tracker.observe(Observation([reading_of(cell2, window2, misread)]))
    assert [(e["player"], e["at"], e["tile"]) for e in added] == [("Ben", list(cell2), lying2.to_json())]
    assert added[0]["meta"]["read_by"] == "gallery"
    assert added[0]["meta"]["match_score"] == round(match.score, 4)
    # without that answer, the same sight is asked about (it was the correction that taught it):
    # a tracker whose gallery holds every picture but that one
    fresh = Tracker(EngineLink(setup), LABELS)
    fresh.learning.art.familiar = False
    fresh.learning.gallery.add_window(start_window, START)
    for event in link.events[:-1]:
        fresh.link.add(event)
    fresh.link.engine().close_turn()  # type: ignore[union-attr]
    assert fresh.observe(Observation([reading_of(cell2, window2, misread)])) == []
    assert {p.code for p in fresh.open_prompts()} == {"unfamiliar-tile"}


def test_a_tile_changed_twice_keeps_one_picture_and_a_new_game_starts_afresh(tmp_path: Path) -> None:
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    link = EngineLink(setup)
    tracker = Tracker(link, LABELS, gallery=tile_gallery(tmp_path))
    misread = next(t for t in distinct_tiles() if t.planet_index is not None and t != START)
    tracker.observe(Observation([reading_of((0, 0), window_of(box_picture(START), seed=1), misread)]))
    link.add({"event": "tile", "player": None, "at": [0, 0], "tile": misread.to_json()})  # a slip
    tracker.open_prompts()
    assert len(tracker.learning.gallery) == 1
    # the slip is fixed: the game is replayed with the right start tile, and the picture replaced
    link.game = type(link.game)(setup)
    link.add({"event": "tile", "player": None, "at": [0, 0], "tile": START.to_json()})
    tracker.open_prompts()
    assert len(tracker.learning.gallery) == 1 and len(list(tmp_path.glob("*.png"))) == 1
    kept = tile_gallery(tmp_path).match(window_of(box_picture(START), seed=4))
    assert kept is not None and kept.tile == START
    # a new game: what the tracker knew of the last one is forgotten
    link.game = type(link.game)(setup)
    assert tracker.learning.read(link.game, (0, 0), window_of(box_picture(START), seed=5)) is not None
    assert list(tracker.learning.reads) == [(0, 0)]
    tracker.open_prompts()
    assert tracker.learning.art.familiar is None and tracker.learning.pending == {}
    assert tracker.learning.reads == {}


def test_the_gallery_s_own_readings_are_kept_for_the_game_and_forgotten_with_it() -> None:
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    engine = EngineLink(setup).game
    learning = TileLearning(tile_gallery(), START)
    learning.gallery.add(box_picture(START), START)
    window = window_of(box_picture(START), seed=8)
    # a second opinion on the cell model's reading is not the gallery's to be weighed by
    assert learning.read(engine, (0, 0), window, second_opinion=True) is not None  # type: ignore[arg-type]
    assert learning.reads == {}
    match = learning.read(engine, (0, 0), window)  # type: ignore[arg-type]
    assert match is not None and learning.reads == {(0, 0): match}
    learning.forget((0, 0))  # the tile was taken away
    assert learning.reads == {}
    learning.read(engine, (0, 0), window)  # type: ignore[arg-type]
    assert learning.pending == {} and learning.art.familiar is None
    learning.learn(engine)  # type: ignore[arg-type]  # the board is bare: a new game
    assert learning.reads == {}


def test_the_start_tile_is_read_only_as_the_start_tile_turned_some_way() -> None:
    """The start tile is known (shared/FACTS.md); a gallery that might take it for another
    type would put a wrong tile at the root of the whole board."""
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    link = EngineLink(setup)
    tracker = Tracker(link, LABELS)
    for tile in distinct_tiles():
        tracker.learning.gallery.add(box_picture(tile), tile)
    other = next(t for t in distinct_tiles() if t.planet_index is not None)
    engine = link.engine()
    match = tracker.learning.read(engine, (0, 0), window_of(box_picture(other), seed=6))  # type: ignore[arg-type]
    assert match is not None and match.tile in {START.rotated(q) for q in range(4)}
    match = tracker.learning.read(engine, (0, 0), window_of(box_picture(START), 2, seed=7))  # type: ignore[arg-type]
    assert match is not None and match.tile == START.rotated(2)


def test_a_match_with_rivals_the_gallery_has_no_picture_of_must_be_a_near_copy() -> None:
    tile = distinct_tiles()[4]
    plain = GalleryMatch(tile, MATCH_SURE + 0.01, MATCH_SURE + 0.01 - MATCH_MARGIN - 0.01)
    assert plain.sure
    assert not replace(plain, unseen_rivals=True).sure  # another type, never shown, might be it
    # a near copy is judged by the pictures themselves, not the likeness fitted to the box
    near = GalleryMatch(
        tile,
        0.5,
        0.45,
        unseen_rivals=True,
        copy_score=NEAR_COPY,
        copy_runner_up=NEAR_COPY - NEAR_COPY_MARGIN - 0.01,
    )
    assert near.sure
    assert not replace(near, copy_runner_up=NEAR_COPY - NEAR_COPY_MARGIN + 0.02).sure
    assert not replace(near, copy_score=NEAR_COPY - 0.01).sure
    assert not replace(near, copy_score=0.5, score=NEAR_COPY, runner_up=0.0).sure


def test_once_the_box_is_whole_a_looser_near_copy_is_sure() -> None:
    tile = distinct_tiles()[3]
    seen = GalleryMatch(
        tile, 0.5, 0.45, copy_score=SEEN_COPY + 0.005, copy_runner_up=SEEN_COPY - SEEN_COPY_MARGIN - 0.005
    )
    assert seen.sure and seen.copy_score < NEAR_COPY
    assert not replace(seen, copy_score=SEEN_COPY - 0.005).sure
    assert not replace(seen, copy_runner_up=SEEN_COPY - SEEN_COPY_MARGIN + 0.01).sure
    # before the box is whole, a type with no picture has nothing to lose to
    assert not replace(seen, whole_box=False).sure
    assert not replace(seen, unseen_rivals=True).sure


def test_a_match_is_also_sure_when_the_likeness_the_grey_fit_and_the_colours_agree() -> None:
    tile = distinct_tiles()[4]
    agreed = GalleryMatch(
        tile,
        AGREED_SCORE + 0.01,
        AGREED_SCORE + 0.01 - AGREED_MARGIN - 0.01,
        layout_margin=LAYOUT_MARGIN + 0.01,
        colour_margin=0.01,
    )
    assert agreed.sure and agreed.score < MATCH_SURE  # the likeness alone would not be sure
    assert not replace(agreed, colour_margin=-0.01).sure  # a close rival's colours fit better
    assert not replace(agreed, layout_margin=LAYOUT_MARGIN - 0.01).sure
    assert not replace(agreed, runner_up=agreed.score - AGREED_MARGIN + 0.01).sure
    assert not replace(agreed, score=AGREED_SCORE - 0.01, runner_up=0.0).sure
    assert not replace(agreed, unseen_rivals=True).sure
    # before a whole box is enrolled, the pictures are camera windows of tiles people entered
    assert not replace(agreed, whole_box=False).sure
    assert replace(agreed, whole_box=False, score=MATCH_SURE, runner_up=MATCH_SURE - MATCH_MARGIN).sure


def two_badges(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two prints on one ground, one with a red badge and one with a blue badge of about the
    same lightness."""
    ground = cv2.GaussianBlur(rng.integers(40, 200, (96, 96, 3), dtype=np.uint8), (0, 0), 3)
    red, blue = ground.copy(), ground.copy()
    cv2.circle(red, (70, 70), 14, (40, 40, 200), -1)
    cv2.circle(blue, (70, 70), 14, (200, 80, 40), -1)
    return red, blue


def test_the_colours_tell_apart_two_prints_that_differ_only_in_a_badge() -> None:
    """Grey, a red badge and a blue one of the same lightness are alike; Lab's a and b are not."""
    red, blue = two_badges(np.random.default_rng(5))
    red_tile, blue_tile = distinct_tiles()[5], distinct_tiles()[6]
    window = window_of(red, seed=3)
    seen = colour_aligner(window)
    fit_red = colour_fit(seen, colour_aligner(square_of_picture(red)), FIND_PX)
    fit_blue = colour_fit(seen, colour_aligner(square_of_picture(blue)), FIND_PX)
    assert fit_red > fit_blue + 0.1
    gallery = tile_gallery()
    gallery.add(red, red_tile)
    gallery.add(blue, blue_tile)
    match = gallery.match(window, allowed=lambda tile: tile in {red_tile, blue_tile})
    assert match is not None
    # whichever the likeness prefers, the colours back the red print only
    assert (match.colour_margin > 0) == (match.tile == red_tile)


def test_the_grey_fit_speaks_only_against_tiles_of_another_structure() -> None:
    """Two prints that differ only in whose badge they bear (one lightness) fit the grey alike:
    that must not count against the one that lies there, whose rival of another structure fits
    far worse."""
    badged = next(t for t in distinct_tiles() if any(f.symbols for f in t.features))
    other_badge = Tile(
        tuple(
            replace(f, symbols=tuple(sorted(set(FACTIONS) - set(f.symbols)))[:1]) if f.symbols else f
            for f in badged.features
        )
    )
    unlike = next(t for t in distinct_tiles() if structure(t) != structure(badged))
    assert structure(other_badge) == structure(badged) and other_badge != badged
    rng = np.random.default_rng(5)
    red, blue = two_badges(rng)
    elsewhere = cv2.GaussianBlur(rng.integers(40, 200, (96, 96, 3), dtype=np.uint8), (0, 0), 3)
    gallery = tile_gallery()
    for picture, tile in ((red, badged), (blue, other_badge), (elsewhere, unlike)):
        gallery.add(picture, tile)
    match = gallery.match(window_of(red, seed=3), allowed=lambda tile: tile in {badged, other_badge, unlike})
    assert match is not None and match.tile == badged
    # the grey of both badged prints fits within the bar of each other: only the unlike tile
    # is measured against (with none, the margin would be the fit + 1), and it fits far worse
    assert LAYOUT_MARGIN + 0.1 < match.layout_margin < 1.0


def test_the_gallery_knows_when_a_type_the_rules_allow_has_no_picture() -> None:
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    link = EngineLink(setup)
    link.add({"event": "tile", "player": None, "at": [0, 0], "tile": START.to_json()})
    tracker = Tracker(link, LABELS)
    engine = link.engine()
    kind = distinct_tiles()[6]
    cell, turns, _ = engine.legal_placements(kind)[0]  # type: ignore[union-attr]
    window = window_of(box_picture(kind), turns, seed=8)
    tracker.learning.gallery.add(box_picture(kind), kind)
    alone = tracker.learning.read(engine, cell, window)  # type: ignore[arg-type]
    assert alone is not None and alone.unseen_rivals and not alone.whole_box
    for tile in distinct_tiles()[:-1]:
        tracker.learning.gallery.add(box_picture(tile), tile)
    # one type still without a picture: the box is not whole yet
    short = tracker.learning.read(engine, cell, window)  # type: ignore[arg-type]
    assert short is not None and not short.whole_box
    tracker.learning.gallery.add(box_picture(distinct_tiles()[-1]), distinct_tiles()[-1])
    every = tracker.learning.read(engine, cell, window)  # type: ignore[arg-type]
    assert every is not None and not every.unseen_rivals and every.tile == kind.rotated(turns)
    assert every.whole_box


def felt_reading(cell: tuple[int, int], window: np.ndarray) -> CellReading:
    """A reading by a model sure the cell is bare felt, as on art it never saw."""
    return reading_of(cell, window, None)


def test_a_tile_is_called_gone_only_when_its_window_no_longer_shows_it() -> None:
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    link = EngineLink(setup)
    tracker = Tracker(link, LABELS)
    misread = next(t for t in distinct_tiles() if t.planet_index is not None and t != START)
    start_window = window_of(box_picture(START), seed=1)
    tracker.observe(Observation([reading_of((0, 0), start_window, misread)]))
    link.add(
        {"event": "tile", "player": None, "at": [0, 0], "tile": START.to_json(), "meta": {"source": "phone"}}
    )
    assert tracker.learning.art.familiar is False
    # the model, which does not know this art, now takes the start tile for felt
    same = window_of(box_picture(START), seed=7)  # the same tile, another frame's noise
    with_meeple = same.copy()
    cv2.circle(with_meeple, (CROP_PX // 2 + 6, CROP_PX // 2 - 4), 5, (40, 40, 200), -1)
    bare = window_of(np.full((96, 96, 3), (70, 120, 80), np.uint8), seed=8)  # felt where it lay
    assert tracker.learning.still_there((0, 0), same) and tracker.learning.still_there((0, 0), with_meeple)
    assert not tracker.learning.still_there((0, 0), window_of(box_picture(misread), seed=9))  # another tile
    for window in (same, with_meeple):
        tracker.observe(Observation([felt_reading((0, 0), window)]))
        assert "tile-gone" not in {p.code for p in tracker.open_prompts()}
    tracker.observe(Observation([felt_reading((0, 0), bare)]))
    assert "tile-gone" in {p.code for p in tracker.open_prompts()}
    # a tile whose window the camera never kept (entered on the phone alone) is the model's word
    assert not tracker.learning.still_there((5, 5), same)


def test_a_tile_the_model_takes_for_felt_is_new_when_a_tile_shaped_change_shows_it_laid() -> None:
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    link = EngineLink(setup)
    tracker = Tracker(link, LABELS)
    misread = next(t for t in distinct_tiles() if t.planet_index is not None and t != START)
    tracker.observe(Observation([reading_of((0, 0), window_of(box_picture(START), seed=1), misread)]))
    link.add(
        {"event": "tile", "player": None, "at": [0, 0], "tile": START.to_json(), "meta": {"source": "phone"}}
    )
    engine = link.engine()
    assert engine is not None
    cell = (1, 0)
    laid = next(
        tile.rotated(q)
        for tile in distinct_tiles()
        for q in range(4)
        if tile != START and engine.board.fit_error(cell, tile.rotated(q)) is None
    )
    window = window_of(box_picture(laid), seed=4)

    def asked_or_recorded() -> bool:
        recorded = any(e["event"] == "tile" and e["at"] == list(cell) for e in link.events)
        return recorded or any(cell in p.cells for p in tracker.open_prompts())

    tracker.observe(Observation([felt_reading(cell, window)]))  # a change, but not tile-shaped
    assert not asked_or_recorded()
    tracker.observe(Observation([felt_reading(cell, window)], appeared=frozenset({cell})))
    assert asked_or_recorded()


def test_the_gallery_offers_its_likeliest_allowed_ways_first() -> None:
    gallery = tile_gallery()
    for tile in distinct_tiles():
        gallery.add(box_picture(tile), tile)
    tile = distinct_tiles()[5]
    banned = distinct_tiles()[6]
    match = gallery.match(window_of(box_picture(tile, variant=2), seed=4), allowed=lambda t: t != banned)
    assert match is not None
    assert match.choices[0] == match.tile == tile
    assert len(match.choices) == CHOICES == len(set(match.choices))
    assert banned not in match.choices


def test_an_unfamiliar_tile_is_asked_about_with_the_gallery_s_likeliest_ways_as_choices() -> None:
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    link = EngineLink(setup)
    tracker = Tracker(link, LABELS)
    tracker.learning.art.familiar = False
    link.add(
        {"event": "tile", "player": None, "at": [0, 0], "tile": START.to_json(), "meta": {"source": "phone"}}
    )
    kind = next(
        t for t in distinct_tiles() if t.to_json() == {"features": [{"kind": "route", "edges": "SW"}]}
    )
    cell, turns, lying = link.game.legal_placements(kind)[0]
    # every type enrolled but one the rules allow there: a match then needs a near copy to be sure,
    # and this other copy of the tile (its own stars and rocks) is not near enough to be one (0.987
    # with the shipped likeness; copies 1-5 gave 0.987-0.993 against NEAR_COPY 0.99)
    missing = next(
        t
        for t in distinct_tiles()
        if t not in (kind, START)
        and any(link.game.board.fit_error(cell, t.rotated(q)) is None for q in range(4))
    )
    for tile in distinct_tiles():
        if tile != missing:
            tracker.learning.gallery.add(box_picture(tile), tile)
    misread = next(t for t in distinct_tiles() if t.planet_index is not None and t != START)
    window = window_of(box_picture(kind, variant=5), turns, off=(1, -1), seed=5)
    match = tracker.learning.gallery.match(window)
    assert match is not None and match.copy_score < NEAR_COPY  # what the test stands on
    seen = reading_of(cell, window, misread)
    assert tracker.observe(Observation([seen])) == []
    (prompt,) = tracker.open_prompts()
    assert prompt.code == "unfamiliar-tile" and prompt.cells == (cell,)
    assert prompt.choices[0] == lying
    assert all(link.game.board.fit_error(cell, choice) is None for choice in prompt.choices)
    assert prompt.to_json()["choices"][0] == lying.to_json()


def test_against_an_enrolled_box_a_printed_tile_square_is_not_gone() -> None:
    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    gallery = tile_gallery()
    tracker = Tracker(EngineLink(setup), LABELS, gallery=gallery)
    printed = window_of(box_picture(START), seed=3)  # no window of it was kept
    felt = window_of(np.full((96, 96, 3), (70, 120, 80), np.uint8), seed=4)
    assert not tracker.learning.still_there((2, 2), printed)  # no box: the model's word stands
    gallery.add(box_picture(START), START, f"{ENROLLED}-start")
    assert tracker.learning.still_there((2, 2), printed)
    assert not tracker.learning.still_there((2, 2), felt)


def test_a_bare_look_stays_while_printed_art_is_taken_for_felt() -> None:
    from companion.vision.meeples import BareLooks

    looks = BareLooks(LABELS, None)
    printed = window_of(box_picture(START), seed=5)
    felt = window_of(np.full((96, 96, 3), (70, 120, 80), np.uint8), seed=6)
    looks.update([felt_reading((0, 0), printed)])  # a tile the model takes for felt: kept
    assert (0, 0) in looks.looks
    kept = looks.looks[(0, 0)].window
    looks.update([felt_reading((0, 0), window_of(box_picture(START), seed=7))])
    assert looks.looks[(0, 0)].window is kept  # the look stays as it was kept
    looks.update([felt_reading((0, 0), felt)])  # the tile taken away: bare felt
    assert (0, 0) not in looks.looks


def _with_spot(seen: CellReading, spot_name: str, label: str, chance: float) -> CellReading:
    probs = tuple(
        chance if name == label else (1.0 - chance if name == "none" else 0.0) for name in MEEPLE_CLASSES
    )
    spots = tuple(
        SpotReading(
            s.spot, max(("none", label), key=lambda n: probs[MEEPLE_CLASSES.index(n)]), max(probs), probs
        )
        if s.spot == spot_name
        else s
        for s in seen.spots
    )
    return replace(seen, spots=spots)


def test_a_tile_the_record_holds_keeps_its_bare_look_whatever_the_cell_model_reads() -> None:
    from companion.games.starwars.reader.loop import CameraLoop
    from companion.vision.meeples import BareLooks

    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    link = EngineLink(setup)
    tracker = Tracker(link, LABELS)
    looks = BareLooks(LABELS, None)

    class Watched:  # the watcher's part the loop keeps bare looks in
        bare = looks

    loop = CameraLoop(Watched(), tracker)  # type: ignore[arg-type]
    misread = next(t for t in distinct_tiles() if t.planet_index is not None and t != START)
    link.add({"event": "tile", "player": None, "at": [0, 0], "tile": START.to_json()})
    # the cell model takes part of the art for a meeple, faintly: no look of its own
    laid = _with_spot(
        reading_of((0, 0), window_of(box_picture(START), seed=8), misread), "N", "orange/large", 0.6
    )
    looks.update([laid])
    assert (0, 0) not in looks.looks
    loop._keep_bare_looks(Observation([laid]))  # the record holds a tile there with no meeple
    kept = looks.looks[(0, 0)]
    assert laid.window is not None and kept.recorded and np.array_equal(kept.window, laid.window)
    # a meeple hides part of the art and the model reads another tile, nothing standing: the
    # look the record vouched for stays
    other = next(t for t in distinct_tiles() if t not in (START, misread))
    looks.update([reading_of((0, 0), window_of(box_picture(START), seed=9), other)])
    assert looks.looks[(0, 0)] is kept
    # a tile the cell model is sure bears a meeple already is not kept as bare
    looks.looks.clear()
    loop._keep_bare_looks(Observation([_with_spot(laid, "N", "red/small", 0.95)]))
    assert (0, 0) not in looks.looks


def test_against_an_enrolled_box_a_plain_tile_like_its_picture_is_not_gone() -> None:
    from companion.vision.lattice import looks_printed

    setup = Setup("starwars", "standard", (Player("Ana", "red"), Player("Ben", "black")))
    gallery = tile_gallery()
    tracker = Tracker(EngineLink(setup), LABELS, gallery=gallery)
    # a field of grass with one thin route: too little texture to be told from felt by texture
    plain = np.zeros((200, 200, 3), np.uint8)
    plain[:] = (60, 170, 140)
    cv2.line(plain, (100, 0), (100, 200), (120, 160, 190), 9)
    cv2.circle(plain, (60, 60), 25, (40, 120, 170), -1)
    route = next(t for t in distinct_tiles() if t != START)
    gallery.add(plain, route, f"{ENROLLED}-plain")
    window = window_of(plain, seed=11)
    felt = window_of(np.full((96, 96, 3), (70, 120, 80), np.uint8), seed=12)
    assert not looks_printed(window)  # what the test stands on
    assert not tracker.learning.still_there((2, 2), window)  # no recorded tile to compare with
    assert tracker.learning.still_there((2, 2), window, route)
    assert not tracker.learning.still_there((2, 2), felt, route)
