"""``companion board read``: every tile and meeple in one photograph of the mat.

Cell (0, 0) is the tile nearest the board area's centre; x grows east, y south (records.md).
Each tile is written inline as it lies, with the model's confidence; a cell the model cannot
name says so rather than guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from companion.errors import UserError
from companion.games.base import Cell
from companion.games.starwars.reader.box_read import (
    BoxReading,
    look_at_cells,
    read_against_box,
    second_look_at,
)
from companion.games.starwars.spots import feature_letter
from companion.games.starwars.tiles import Tile, parse_tile
from companion.vision.frames import check_frame
from companion.vision.gallery import Gallery
from companion.vision.labels import EMPTY, FALLEN
from companion.vision.lattice import find_lattice
from companion.vision.picture_checks import light_problem, looks_drawn, mat_problem
from companion.vision.picture_file import UnreadablePicture, read_picture_file
from companion.vision.reader import CellModel
from companion.vision.rectify import Rectifier, View

# the smallest picture the mat could be read from: a few pixels a marker, a few a tile
MIN_SIDE_PX = 64
# a larger picture is read shrunk to this longer side: a tile is still 200 px or more in it
MAX_SIDE_PX = 4096


def load_image(path: str) -> np.ndarray:
    try:
        return read_picture_file(path, MIN_SIDE_PX, "to show the mat", max_side=MAX_SIDE_PX)
    except UnreadablePicture as error:
        raise UserError(str(error)) from None


def read_board(
    image: np.ndarray,
    model: CellModel,
    box: Gallery[Tile] | None = None,
    counts: Mapping[Tile, int] | None = None,
) -> dict[str, Any]:
    """The board in ``image`` as JSON-ready data, read against the user's enrolled ``box``
    when given (and how many tiles of each type it holds, where the user said); UserError
    saying what is wrong with the picture when it cannot be read (too dark, no mat, the mat too
    small, blurred, torn)."""
    return read_located(image, checked_mat(image), model, box, counts)


def checked_mat(image: np.ndarray) -> View:
    """Where the mat lies in ``image``; UserError saying what is wrong with the picture when
    its tiles cannot be read."""
    problem = light_problem(image)
    if problem is not None:
        raise UserError(problem)
    located = Rectifier().locate(image)
    problem = mat_problem(image, located)
    if problem is not None:
        raise UserError(problem)
    if check_frame(image).problem == "torn" and not looks_drawn(image):
        # the camera's words would point at a cable: this is a picture someone chose (a drawn
        # picture's level, razor-sharp printed lines are what the tear check takes for a tear)
        raise UserError(
            "the picture looks torn (its lower part does not fit the upper part, as when a camera's "
            "buffer is half written): take the picture again"
        )
    return located


def read_located(
    image: np.ndarray,
    located: View,
    model: CellModel,
    box: Gallery[Tile] | None = None,
    counts: Mapping[Tile, int] | None = None,
) -> dict[str, Any]:
    """The board in ``image``, whose mat was found at ``located``, whatever its picture's faults.
    With ``box`` (the user's enrolled box) each tile is read against its pictures and the tiles
    around it; without, by the cell model alone."""
    if located.homography is None:
        raise UserError(located.message or "the play mat is not in view")
    view = Rectifier().rectify(image, located.homography)
    result: dict[str, Any] = {
        "game": "starwars",
        "markers": list(located.markers),
        "box": box is not None,
        "cells": [],
        "meeples": [],
    }
    found = find_lattice(view)
    if found is None:
        return result
    lattice, cells = found
    from_box: dict[Cell, BoxReading] = {}
    if box is not None:
        matches, printed = look_at_cells(box, view, lattice, cells)
        look = second_look_at(box, view, lattice)
        read = read_against_box(matches, printed=printed, counts=counts, second_look=look)
        from_box = {reading.cell: reading for reading in read}
    labels = model.labels
    for reading in model.read(view, lattice, cells):
        index, confidence = reading.best()
        value = labels.classes[index]
        in_box = from_box.get(reading.cell)
        if in_box is not None:
            entry = _box_entry(in_box)
            tile = in_box.tile
        elif value == EMPTY:
            continue  # the felt test saw something, the model sees bare felt: a shadow, a die
        else:
            tile = parse_tile(value) if isinstance(value, dict) and box is None else None
            entry = {
                "tile": tile.to_json() if tile is not None else None,
                # with a box, a tile like none of its pictures is not one of the box's
                "reading": "tile" if tile else ("unknown" if box is not None else value),
                "confidence": round(confidence, 4),
            }
        at = [reading.cell[0], reading.cell[1]]
        result["cells"].append({"at": at, **entry})
        for spot in reading.meeples():
            fallen = spot.label == FALLEN
            colour, size = (None, None) if fallen else spot.label.split("/")
            result["meeples"].append(
                {
                    "at": at,
                    "spot": spot.spot,
                    "feature": feature_letter(tile, spot.spot) if tile is not None else None,
                    "color": colour,
                    "size": size,
                    "fallen": fallen,
                    "confidence": round(spot.confidence, 4),
                }
            )
    return result


def _box_entry(reading: BoxReading) -> dict[str, Any]:
    """A cell read against the box: its tile when sure, else the choices left to ask about."""
    unsure = "unsure" if reading.in_box else "unknown"
    entry: dict[str, Any] = {
        "tile": reading.tile.to_json() if reading.tile is not None else None,
        "reading": "tile" if reading.tile is not None else unsure,
        "confidence": round(reading.score, 4),
    }
    if reading.tile is None:
        entry["choices"] = [tile.to_json() for tile in reading.choices]
        if not reading.fits_neighbours:
            entry["fits_neighbours"] = False
    return entry


def board_text(result: dict[str, Any]) -> str:
    lines = [f"{len(result['cells'])} tiles, {len(result['meeples'])} meeples"]
    for cell in result["cells"]:
        tile = parse_tile(cell["tile"]).describe() if cell["tile"] else f"({cell['reading']})"
        lines.append(f"  {cell['at']}: {tile}  [{cell['confidence']:.0%}]")
    for meeple in result["meeples"]:
        what = "fallen meeple" if meeple["fallen"] else f"{meeple['color']} {meeple['size']} meeple"
        lines.append(
            f"  {meeple['at']}: {what} on {meeple['feature'] or meeple['spot']}  [{meeple['confidence']:.0%}]"
        )
    return "\n".join(lines) + "\n"
