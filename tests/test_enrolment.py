"""Enrolment at the table: the camera's tiles on the mat, described on the phone, into the gallery
(companion/table/enrolment.py, companion/web/enrol.py). The whole flow in a real browser is in
test_browser_enrol.py."""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Site

from companion.games.starwars.art.box import BOX_STYLES
from companion.games.starwars.reader.box_counts import COUNTS_FILE, load_counts
from companion.games.starwars.reader.box_read import tile_type
from companion.games.starwars.reader.enrolment import Enrolment, EnrolmentCamera, LaidTile
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.sim.enrol_table import EnrolTable
from companion.games.starwars.sim.render import PlacedTile
from companion.games.starwars.tiles import Tile
from companion.games.starwars.web import ENROLMENT
from companion.vision.gallery_files import gallery_folder


def _settle(camera: EnrolmentCamera, table: EnrolTable) -> None:
    seen = camera.enrolment.views
    for _ in range(12):
        camera.step(table.frame())
        if camera.enrolment.views > seen:
            return
    raise AssertionError("the scene never settled")


@pytest.fixture(scope="module")
def laid_out() -> tuple[EnrolTable, Enrolment, EnrolmentCamera]:
    table = EnrolTable(BOX_STYLES.start + 3, camera_seed=700_003, seed=3)
    enrolment = Enrolment(tile_gallery())
    camera = EnrolmentCamera(enrolment)
    _settle(camera, table)
    return table, enrolment, camera


def test_the_camera_finds_every_tile_laid_out_where_it_lies(
    laid_out: tuple[EnrolTable, Enrolment, EnrolmentCamera],
) -> None:
    table, enrolment, _ = laid_out
    assert set(enrolment.laid) == set(table.truth)
    assert enrolment.message == f"{len(table.truth)} tile(s) on the mat, {len(table.truth)} to describe."
    picture = enrolment.picture(next(iter(table.truth)))
    assert picture[:2] == b"\xff\xd8" and len(picture) > 2_000  # a JPEG of the tile


def test_a_described_tile_is_kept_until_another_lies_there(tmp_path: Path) -> None:
    table = EnrolTable(BOX_STYLES.start + 4, camera_seed=700_004, seed=4)
    enrolment = Enrolment(tile_gallery(tmp_path / "gallery"))
    camera = EnrolmentCamera(enrolment)
    _settle(camera, table)
    cell, tile = next(iter(table.truth.items()))
    name = enrolment.enrol(cell, tile)
    assert (tmp_path / "gallery" / f"{name}.png").is_file()
    assert json.loads((tmp_path / "gallery" / f"{name}.json").read_text()) == {"tile": tile.to_json()}
    assert enrolment.gallery.match(enrolment.laid[cell].window, lambda t: t == tile) is not None

    # a hand passes over the mat and leaves the tiles as they were: still enrolled
    _settle_after_motion(camera, table)
    assert enrolment.laid[cell].enrolled == name

    other = next(t for c, t in table.truth.items() if t.side_kinds != tile.side_kinds)
    table.scene.tiles[cell] = PlacedTile(other, table.scene.tiles[cell].style, 1)
    _settle_after_motion(camera, table)
    assert enrolment.laid[cell].enrolled is None  # another tile lies there: to be described anew
    assert len(enrolment.gallery) == 1  # what was learnt stays learnt


def _settle_after_motion(camera: EnrolmentCamera, table: EnrolTable) -> None:
    """A hand passes (a frame unlike the others), then the table is still again."""
    frame = table.frame()
    frame[:, : frame.shape[1] // 2] = 0
    camera.step(frame)
    _settle(camera, table)


@pytest.fixture
def enrolling(site: Site, laid_out: tuple[EnrolTable, Enrolment, EnrolmentCamera]) -> Iterator[Site]:
    _, enrolment, _ = laid_out
    laid = {cell: dataclasses.replace(tile) for cell, tile in enrolment.laid.items()}  # this test's own
    kept = Enrolment(tile_gallery(gallery_folder(site.state_dir)), laid=laid, state_dir=site.state_dir)
    kept.views = 1
    site.app.extensions["companion"].attachments[ENROLMENT] = kept
    yield site


def test_the_enrolment_api_learns_a_tile_and_forgets_it(
    enrolling: Site, laid_out: tuple[EnrolTable, Enrolment, EnrolmentCamera]
) -> None:
    table = laid_out[0]
    (x, y), tile = sorted(table.truth.items())[0]
    state = enrolling.client.get("/api/enrol").get_json()
    assert len(state["tiles"]) == len(table.truth) and state["enrolled"] == 0
    picture = enrolling.client.get(f"/api/enrol/tiles/{x}/{y}.jpg")
    assert picture.status_code == 200 and picture.mimetype == "image/jpeg"

    answer = enrolling.post("/api/enrol", {"at": [x, y], "tile": tile.to_json()})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["enrolled"] == 1
    described = next(t for t in answer.get_json()["tiles"] if t["at"] == [x, y])
    assert described["tile"] == tile.to_json() and described["enrolled"].startswith("enrolled-")
    assert answer.get_json()["saved_as"] == described["enrolled"] and answer.get_json()["copy"] is False
    assert (gallery_folder(enrolling.state_dir) / f"{described['enrolled']}.png").is_file()

    # a request that mixes forgetting with a tile is refused, and what was learnt stays
    mixed = enrolling.post("/api/enrol", {"at": [x, y], "forget": True, "tile": {"features": "bad"}})
    assert mixed.status_code == 400
    assert (gallery_folder(enrolling.state_dir) / f"{described['enrolled']}.png").is_file()

    forgot = enrolling.post("/api/enrol", {"at": [x, y], "forget": True})
    assert forgot.status_code == 200 and forgot.get_json()["enrolled"] == 0
    assert not list(gallery_folder(enrolling.state_dir).glob("*.png"))

    # a picture that cannot be written (here the gallery's folder is a file) is a 507, as a full disk
    shutil.rmtree(gallery_folder(enrolling.state_dir))
    gallery_folder(enrolling.state_dir).write_text("not a folder")
    unwritten = enrolling.post("/api/enrol", {"at": [x, y], "tile": tile.to_json()})
    assert unwritten.status_code == 507
    assert unwritten.get_json()["message"].startswith("the picture could not be kept")


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"at": [0], "tile": {"features": []}}, 400, '"at" must be the tile\'s cell'),
        ({"at": [0, True], "tile": {"features": []}}, 400, '"at" must be the tile\'s cell'),
        ({"at": [40, 40], "tile": {"features": []}}, 409, "the camera sees no tile at 40, 40"),
        ({"at": [0, 0]}, 400, "say what the tile is"),
        ({"at": [0, 0], "tile": {"features": [{"kind": "route", "edges": "Q"}]}}, 400, "edges"),
        ({"at": [0, 0], "forget": True, "tile": {"features": "bad"}}, 400, '"forget" is true, alone'),
        ({"at": [0, 0], "forget": False}, 400, '"forget" is true, alone'),
        ({"at": [0, 0], "tile": {"features": []}, "zzz": 1}, 400, '"zzz"'),
    ],
)
def test_a_bad_enrolment_request_is_refused_with_its_reason(
    enrolling: Site, body: dict[str, object], status: int, says: str
) -> None:
    answer = enrolling.post("/api/enrol", body)
    assert answer.status_code == status
    assert says in answer.get_json()["message"]
    assert not list(gallery_folder(enrolling.state_dir).glob("*.png"))


def test_without_a_camera_the_enrolment_page_says_how_to_start_one(site: Site) -> None:
    page = site.client.get("/enrol")
    assert page.status_code == 200 and "companion demo --enrol" in page.get_data(as_text=True)
    assert site.client.get("/api/enrol").status_code == 404
    assert site.post("/api/enrol", {"at": [0, 0], "tile": {"features": []}}).status_code == 404


def _twin(enrolment: Enrolment, cell: tuple[int, int], at: tuple[int, int]) -> None:
    """A second tile at ``at`` that the camera sees exactly as the one at ``cell``: a copy."""
    laid = enrolment.laid[cell]
    enrolment.laid[at] = LaidTile(at, (laid.centre[0] + 500, laid.centre[1]), laid.window.copy())


def test_a_copy_is_proposed_saved_without_a_picture_and_counted(tmp_path: Path) -> None:
    table = EnrolTable(BOX_STYLES.start + 5, camera_seed=700_005, seed=5)
    told: list[dict[Tile, int]] = []
    enrolment = Enrolment(tile_gallery(tmp_path / "gallery"), state_dir=tmp_path, on_counts=told.append)
    _settle(EnrolmentCamera(enrolment), table)
    (cell, tile), (other_cell, other) = sorted(table.truth.items())[:2]
    assert enrolment.propose(cell) is None  # nothing kept yet: the form starts blank
    assert enrolment.example(cell) is None
    enrolment.enrol(cell, tile)
    _twin(enrolment, cell, (20, 20))

    proposal = enrolment.propose((20, 20))
    assert proposal is not None and proposal.copy and proposal.tile == tile
    assert enrolment.propose((20, 20)) is proposal  # worked out once while the gallery is the same
    like = enrolment.example((20, 20))
    assert like is not None and like[:2] == b"\xff\xd8"
    assert enrolment.enrol((20, 20), tile) is None  # a copy: counted, no picture of its own
    assert len(list((tmp_path / "gallery").glob("*.png"))) == 1
    assert enrolment.counted == {tile_type(tile): 2}
    state = enrolment.state()
    assert state["counted"] == {"types": 1, "tiles": 2}
    assert next(t for t in state["tiles"] if t["at"] == [20, 20])["copy"] is True  # type: ignore[attr-defined]

    # another tile is not proposed as a copy; described, it gets its own picture
    other_proposal = enrolment.propose(other_cell)
    assert other_proposal is not None and not other_proposal.copy
    assert enrolment.enrol(other_cell, other) is not None
    assert len(list((tmp_path / "gallery").glob("*.png"))) == 2

    # the copy described as something else is a picture of its own, and the counts follow
    enrolment.enrol((20, 20), other)
    assert len(list((tmp_path / "gallery").glob("*.png"))) == 3
    assert enrolment.counted == {tile_type(tile): 1, tile_type(other): 2}
    enrolment.forget((20, 20))
    assert enrolment.counted == {tile_type(tile): 1, tile_type(other): 1}

    kept = enrolment.keep_counts()
    assert kept == load_counts(tmp_path) == {tile_type(tile): 1, tile_type(other): 1}
    assert told == [kept]


def test_copies_in_a_laid_out_box_are_proposed_as_copies() -> None:
    table = EnrolTable(BOX_STYLES.start + 6, camera_seed=700_006, seed=6, copies=7)
    enrolment = Enrolment(tile_gallery())
    _settle(EnrolmentCamera(enrolment), table)
    assert set(table.truth) <= set(enrolment.laid) and len(table.truth) == 42
    seen: set[object] = set()
    proposed = wrong = first_as_copy = 0
    for cell in sorted(table.truth, key=lambda c: (c[1], c[0])):
        tile = table.truth[cell]
        proposal = enrolment.propose(cell)
        if proposal is not None and proposal.copy:
            if tile_type(tile) not in seen:
                first_as_copy += 1
            elif proposal.tile == tile:
                proposed += 1
            else:
                wrong += 1
        enrolment.enrol(cell, tile)
        seen.add(tile_type(tile))
    # measured on this table: 6 of the 8 copies (the catalog holds two tiles of one type among
    # the first seven), none as the wrong way; and 2 first planets, whose drawn badges differ
    # from a saved planet's by a few pixels, proposed as its copy (the page shows both pictures)
    assert proposed >= 5 and wrong == 0 and first_as_copy <= 2
    assert sum(enrolment.counted.values()) == 42


def test_the_enrolment_api_proposes_a_copy_and_keeps_the_box_counts(
    enrolling: Site, laid_out: tuple[EnrolTable, Enrolment, EnrolmentCamera]
) -> None:
    table = laid_out[0]
    (x, y), tile = sorted(table.truth.items())[0]
    assert enrolling.client.get(f"/api/enrol/tiles/{x}/{y}").get_json() == {"at": [x, y], "proposal": None}
    assert enrolling.client.get(f"/api/enrol/tiles/{x}/{y}/like.jpg").status_code == 404
    nothing = enrolling.post("/api/enrol", {"whole_box": True})
    assert nothing.status_code == 409 and "no tile has been saved yet" in nothing.get_json()["message"]

    assert enrolling.post("/api/enrol", {"at": [x, y], "tile": tile.to_json()}).status_code == 200
    enrolment = enrolling.app.extensions["companion"].attachments[ENROLMENT]
    _twin(enrolment, (x, y), (30, 30))
    proposed = enrolling.client.get("/api/enrol/tiles/30/30").get_json()["proposal"]
    assert proposed["copy"] is True and proposed["tile"] == tile.to_json()
    like = enrolling.client.get("/api/enrol/tiles/30/30/like.jpg")
    assert like.status_code == 200 and like.mimetype == "image/jpeg"
    saved = enrolling.post("/api/enrol", {"at": [30, 30], "tile": tile.to_json()}).get_json()
    assert saved["copy"] is True and saved["enrolled"] == 1 and saved["counted"]["tiles"] == 2  # one picture

    assert enrolling.post("/api/enrol", {"whole_box": False}).status_code == 400
    assert enrolling.post("/api/enrol", {"whole_box": True, "at": [0, 0]}).status_code == 400
    kept = enrolling.post("/api/enrol", {"whole_box": True})
    assert kept.status_code == 200 and kept.get_json()["counts_kept"] == {"types": 1, "tiles": 2}
    assert (enrolling.state_dir / COUNTS_FILE).is_file()
    assert load_counts(enrolling.state_dir) == {tile_type(tile): 2}
    assert enrolling.client.get("/api/enrol/tiles/40/40").status_code == 404
