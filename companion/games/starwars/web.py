"""Star Wars' own pages: enrolment on the phone, the camera's picture of each tile on the mat,
described by tapping.

``/enrol`` is the page; ``/api/enrol`` its state, each tile's picture, what the form is filled
in with for it (and the picture of the type it may be a copy of), and what a person says of it.
Describing a tile changes the gallery, so it needs the CSRF token and the table PIN, as every
change does. The enrolment itself is the running table's (the reader maker's), found
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
    return _fresh_jpeg(picture)


@enrol.get("/api/enrol/tiles/<int(signed=True):x>/<int(signed=True):y>")
def tile_proposal(x: int, y: int) -> Response:
    """``{"at": [x, y], "proposal": {"tile", "copy", "likeness"} or null}``: what the form for
    the tile at that place starts from (null while no picture is kept)."""
    enrolment = _enrolment()
    if enrolment is None:
        return problem(404, NO_CAMERA)
    try:
        proposal = enrolment.propose((x, y))
    except UserError as error:
        return problem(404, str(error))
    return jsonify({"at": [x, y], "proposal": proposal.to_json() if proposal is not None else None})


@enrol.get("/api/enrol/tiles/<int(signed=True):x>/<int(signed=True):y>/like.jpg")
def proposed_picture(x: int, y: int) -> Response:
    """The picture saved of the type proposed for that tile, turned as it is proposed to lie."""
    enrolment = _enrolment()
    if enrolment is None:
        return problem(404, NO_CAMERA)
    try:
        picture = enrolment.example((x, y))
    except UserError as error:
        return problem(404, str(error))
    if picture is None:
        return problem(404, f"no picture of the type proposed for the tile at {x}, {y} was saved here")
    return _fresh_jpeg(picture)


def _fresh_jpeg(picture: bytes) -> Response:
    """A picture of the mat as it is now: never cached, the tiles on it change."""
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
    ``{"at": [x, y], "forget": true}`` takes back what was said of it; ``{"whole_box": true}``
    keeps how many tiles of each type were saved as the box's counts."""
    enrolment = _enrolment()
    if enrolment is None:
        return problem(404, NO_CAMERA)
    request = object_body()
    if "whole_box" in request:
        check_object(request, "the whole box", required=("whole_box",), optional=())
        if request["whole_box"] is not True:
            raise FormatError('"whole_box" is true: the tiles saved are the whole box')
        try:
            kept = enrolment.keep_counts()
        except UserError as error:
            return problem(409, str(error))
        except OSError as error:
            return problem(507, f"the box's counts could not be kept: {error.strerror or error}")
        counts = {"types": len(kept), "tiles": sum(kept.values())}
        return jsonify({"counts_kept": counts, **enrolment.state()})
    check_object(request, "an enrolment", required=("at",), optional=("tile", "forget"))
    cell = _cell(request.get("at"))
    if "forget" in request and (request["forget"] is not True or "tile" in request):
        raise FormatError('"forget" is true, alone with "at": the tile said of that place is taken back')
    try:
        if "forget" in request:
            enrolment.forget(cell)
            return jsonify({"at": list(cell), **enrolment.state()})
        if "tile" not in request:
            raise FormatError('say what the tile is: "tile" holds it as records.md\'s inline tile')
        name = enrolment.enrol(cell, parse_tile(request["tile"]))
    except UserError as error:
        return problem(409, str(error))
    except OSError as error:
        return problem(507, f"the picture could not be kept: {error.strerror or error}")
    # "enrolled" is the state's: how many pictures the gallery holds
    return jsonify({"at": list(cell), "saved_as": name, "copy": name is None, **enrolment.state()})
