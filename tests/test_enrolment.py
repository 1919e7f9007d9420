"""Enrolment at the table: the camera's tiles on the mat, described on the phone, into the gallery
(companion/table/enrolment.py, companion/web/enrol.py). The whole flow in a real browser is in
test_browser_enrol.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Site

from companion.games.starwars.art.box import BOX_STYLES
from companion.games.starwars.reader.enrolment import Enrolment, EnrolmentCamera
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.sim.enrol_table import EnrolTable
from companion.games.starwars.sim.render import PlacedTile
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
    kept = Enrolment(tile_gallery(gallery_folder(site.state_dir)), laid=dict(enrolment.laid))
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
    assert (gallery_folder(enrolling.state_dir) / f"{described['enrolled']}.png").is_file()

    # a request that mixes forgetting with a tile is refused, and what was learnt stays
    mixed = enrolling.post("/api/enrol", {"at": [x, y], "forget": True, "tile": {"features": "bad"}})
    assert mixed.status_code == 400
    assert (gallery_folder(enrolling.state_dir) / f"{described['enrolled']}.png").is_file()

    forgot = enrolling.post("/api/enrol", {"at": [x, y], "forget": True})
    assert forgot.status_code == 200 and forgot.get_json()["enrolled"] == 0
    assert not list(gallery_folder(enrolling.state_dir).glob("*.png"))


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
