"""Star Wars' own pages: enrolment on the phone, the camera's picture of each tile on the mat,
described by tapping.

``/enrol`` is the page; ``/api/enrol`` its state, each tile's picture and what a person says of
it. Describing a tile changes the gallery, so it needs the CSRF token and the table PIN, as
every change does. The enrolment itself is the running table's (the reader maker's), found
among the web layer's attachments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Blueprint, Response, jsonify

from companion.errors import UserError
from companion.games.base import Cell, FormatError
from companion.games.fields import check_object
from companion.games.starwars.tiles import parse_tile
from companion.web.api import guarded, object_body, problem, web
from companion.web.pages import page

if TYPE_CHECKING:
    from companion.games.starwars.reader.enrolment import Enrolment

ENROLMENT = "starwars.enrolment"  # the enrolment's name among the web layer's attachments
enrol = Blueprint("starwars", __name__)
NO_CAMERA = (
    "no camera is enrolling tiles here: start the companion with the camera (or `companion demo --enrol`)"
)


def blueprint() -> Blueprint:
    return enrol


def _enrolment() -> Enrolment | None:
    found: Enrolment | None = web().attachments.get(ENROLMENT)
    return found


@enrol.get("/enrol")
def enrol_page() -> str:
    return page("starwars/enrol.html", enrolment=_enrolment() is not None)


@enrol.get("/api/enrol")
def enrol_state() -> Response:
    enrolment = _enrolment()
    if enrolment is None:
        return problem(404, NO_CAMERA)
    return jsonify(enrolment.state())


@enrol.get("/api/enrol/tiles/<int(signed=True):x>/<int(signed=True):y>.jpg")
def tile_picture(x: int, y: int) -> Response:
    enrolment = _enrolment()
    if enrolment is None:
        return problem(404, NO_CAMERA)
    try:
        picture = enrolment.picture((x, y))
    except UserError as error:
        return problem(404, str(error))
    response = Response(picture, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


def _cell(raw: object) -> Cell:
    if (
        not isinstance(raw, list)
        or len(raw) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in raw)
    ):
        raise FormatError('"at" must be the tile\'s cell as two whole numbers, e.g. [0, -1]')
    return (raw[0], raw[1])


@enrol.post("/api/enrol")
@guarded
def describe() -> Response:
    """``{"at": [x, y], "tile": inline tile as it lies in the picture}`` learns that tile;
    ``{"at": [x, y], "forget": true}`` takes back what was said of it."""
    enrolment = _enrolment()
    if enrolment is None:
        return problem(404, NO_CAMERA)
    request = object_body()
    check_object(request, "an enrolment", required=("at",), optional=("tile", "forget"))
    cell = _cell(request.get("at"))
    if "forget" in request and (request["forget"] is not True or "tile" in request):
        raise FormatError('"forget" is true, alone with "at": the tile said of that place is taken back')
    try:
        if "forget" in request:
            enrolment.forget(cell)
            return jsonify({"at": list(cell), "enrolled": None, **enrolment.state()})
        if "tile" not in request:
            raise FormatError('say what the tile is: "tile" holds it as records.md\'s inline tile')
        name = enrolment.enrol(cell, parse_tile(request["tile"]))
    except UserError as error:
        return problem(409, str(error))
    except OSError as error:
        return problem(500, f"the picture could not be kept: {error.strerror or error}")
    return jsonify({"at": list(cell), "enrolled": name, **enrolment.state()})
