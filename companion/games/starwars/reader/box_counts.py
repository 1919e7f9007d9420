"""How many tiles of each type the user's box holds, where the user says so.

``companion enroll FOLDER`` takes an optional ``"count"`` from each ``NAME.json`` beside its
picture (``{"tile": {...}, "count": 3}``) and keeps the counts by type in ``box-counts.json`` in
the state folder; ``board read`` narrows its readings by them (box_read.read_against_box). A
type with no count is not narrowed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from companion.errors import UserError
from companion.games.base import FormatError
from companion.games.starwars.reader.box_read import tile_type
from companion.games.starwars.tiles import Tile, parse_tile

COUNTS_FILE = "box-counts.json"
MOST = 99  # no box holds more of one type; a larger number is a typing slip


def label_counts(folder: Path) -> tuple[dict[Tile, int], list[str]]:
    """The counts the labels in an enrolment ``folder`` give, by type (two pictures of one type
    add up), and why each count that cannot be used cannot."""
    counts: dict[Tile, int] = {}
    problems: list[str] = []
    for label in sorted(folder.glob("*.json")):
        try:
            data = json.loads(label.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue  # the picture's own check says what is wrong with this label
        if not isinstance(data, dict) or "count" not in data:
            continue
        count = data["count"]
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MOST:
            problems.append(f"{label}: count must be a whole number of tiles from 1 to {MOST}, not {count!r}")
            continue
        try:
            tile = parse_tile(data.get("tile"), f"{label.name} tile")
        except FormatError:
            continue
        kind = tile_type(tile)
        counts[kind] = counts.get(kind, 0) + count
    return counts, problems


def save_counts(state_dir: Path, counts: Mapping[Tile, int]) -> Path:
    """Keep ``counts`` in the state folder, over the counts kept before for the same types."""
    kept = dict(load_counts(state_dir) or {})
    kept.update(counts)
    path = state_dir / COUNTS_FILE
    state_dir.mkdir(parents=True, exist_ok=True)
    rows = [{"tile": tile.to_json(), "count": count} for tile, count in kept.items()]
    path.write_text(json.dumps({"counts": rows}, indent=1) + "\n", encoding="utf-8")
    return path


def load_counts(state_dir: Path) -> dict[Tile, int] | None:
    """The counts kept in the state folder, None when none are; UserError naming the file when
    it cannot be read."""
    path = state_dir / COUNTS_FILE
    if not path.is_file():
        return None
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))["counts"]
        counts = {tile_type(parse_tile(row["tile"], "tile")): int(row["count"]) for row in rows}
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, FormatError) as error:
        raise UserError(
            f"{path}: not the box's counts ({error}): enrol the box again, or remove the file"
        ) from None
    return counts
