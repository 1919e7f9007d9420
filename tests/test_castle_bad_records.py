"""Every kind of mistake a Castle record can hold is refused by ``companion replay`` with exit
code 1, nothing on stdout, and ``line N: reason`` on stderr (castle.md, Replay).

Cases are edits of the good records in tests/records/castle/; the line numbers below are theirs.
scoring-summary.jsonl: 2 Ana's tile [0, 0], 3 her squire, 4 Ben's tile [1, 0], 5 his herald,
6 Ana's tile [2, 0], 7 her knight, 8 Ben's tile [3, 0], 9 his merchant, 10 end.
scoring-order-default.jsonl: 2-7 three tiles and their followers (Ana's tile on line 6 scores
her tower, her path and Ben's house), 8 Ana takes from space 6, 9 Ben from space 3, 10 end,
11 Ben plays wall tile 9.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main

RECORDS = Path(__file__).parent / "records" / "castle"
Edit = Callable[[list[Any]], None]


def lines_of(name: str) -> list[Any]:
    """A record's lines as JSON values (the header without its expectations)."""
    lines = [json.loads(line) for line in (RECORDS / name).read_text(encoding="utf-8").splitlines()]
    lines[0].pop("meta")
    return lines


def put(line: int, value: Any) -> Edit:
    def change(lines: list[Any]) -> None:
        lines[line - 1] = value

    return change


def insert(line: int, value: Any) -> Edit:
    """The value becomes this line."""

    def change(lines: list[Any]) -> None:
        lines.insert(line - 1, value)

    return change


def delete(line: int) -> Edit:
    def change(lines: list[Any]) -> None:
        del lines[line - 1]

    return change


def keep(last: int) -> Edit:
    def change(lines: list[Any]) -> None:
        del lines[last:]

    return change


def set_key(line: int, path: str, value: Any) -> Edit:
    """Set (or, with value None, take out) a key inside a line: "tile.features.0.edges"."""

    def change(lines: list[Any]) -> None:
        *parents, key = path.split(".")
        obj = lines[line - 1]
        for part in parents:
            obj = obj[int(part)] if isinstance(obj, list) else obj[part]
        if value is None:
            del obj[key]
        else:
            obj[key] = value

    return change


def both(*edits: Edit) -> Edit:
    def change(lines: list[Any]) -> None:
        for edit in edits:
            edit(lines)

    return change


def tile(player: str, at: list[int], *features: dict[str, Any]) -> dict[str, Any]:
    return {"event": "tile", "player": player, "at": at, "tile": {"features": list(features)}}


def meeple(player: str, at: list[int], feature: str) -> dict[str, Any]:
    return {"event": "meeple", "player": player, "at": at, "feature": feature}


def use(player: str, wall: int, at: list[int] | None = None, feature: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"event": "use", "player": player, "wall": wall}
    if at is not None:
        event |= {"at": at, "feature": feature}
    return event


SUMMARY = "scoring-summary.jsonl"
ORDER = "scoring-order-default.jsonl"
IN_PLAY = "wall-tiles-in-play.jsonl"  # 17 Ana takes 2, 19 Ben doubles his house, 21 Ana her tower
FINAL = "final-scoring.jsonl"  # 7, 12, 16, 20 Ana takes 4, 7, 8, 9; 24 end; 25-28 she plays them
FIVE_SIX = "final-wall-tiles-5-6.jsonl"  # 17 end, 18 Ben plays 5 on [2, 0], 19 6 on [4, 0]
TRACK = "track-past-99.jsonl"  # 6 Ana takes wall tile 1 from space 2, 7 end
END = {"event": "end"}
HOUSE_N = {"kind": "house", "edges": "N"}

# (name, record, edit, the line named, what the reason says)
CASES: list[tuple[str, str, Edit, int, str]] = [
    # --- the header and the board -----------------------------------------------------------------
    (
        "three players",
        SUMMARY,
        set_key(1, "players", [{"name": n, "color": n} for n in "ABC"]),
        1,
        "exactly 2",
    ),
    ("one colour", SUMMARY, set_key(1, "players.1.color", "yellow"), 1, "colours must differ"),
    ("no colour", SUMMARY, set_key(1, "players.1.color", None), 1, 'missing "color"'),
    ("no board", SUMMARY, set_key(1, "board", None), 1, 'the header is missing "board"'),
    (
        "a board by another name",
        SUMMARY,
        set_key(1, "board", "big"),
        1,
        '"standard" or a board written inline',
    ),
    ("a variant", SUMMARY, set_key(1, "variant", "teams"), 1, '"variant" in the header must be one of'),
    ("a header key", SUMMARY, set_key(1, "tiles", 60), 1, 'unknown key "tiles" in the header'),
    ("a start in the castle", SUMMARY, set_key(1, "board.starts.0.side", "E"), 1, "part of the wall"),
    ("a corner at 1", SUMMARY, set_key(1, "board.corners", [[1, 2]]), 1, "a from 2 to 98"),
    ("a board key", SUMMARY, set_key(1, "board.walls", []), 1, 'unknown key "walls"'),
    # --- the format of events ----------------------------------------------------------------------
    (
        "not an event",
        SUMMARY,
        put(3, {"event": "pass", "player": "Ana"}),
        3,
        '"event" in an event must be one of',
    ),
    ("a catalog id", SUMMARY, set_key(2, "tile", "straight"), 2, "must be written inline"),
    ("a rotation", SUMMARY, set_key(2, "rotation", 1), 2, 'unknown key "rotation"'),
    ("a path on a half", SUMMARY, set_key(2, "tile.features.0.edges", "Wn E"), 2, "never a half"),
    (
        "two features on one half",
        SUMMARY,
        set_key(
            2, "tile.features", [{"kind": "path", "edges": "W E"}, HOUSE_N, {"kind": "tower", "edges": "Ne"}]
        ),
        2,
        "features 2 and 3 of the tile both touch the half Ne",
    ),
    ("a bad feature name", SUMMARY, set_key(3, "feature", "middle"), 3, '"feature" in a meeple event names'),
    ("a role", SUMMARY, set_key(3, "role", "squire"), 3, 'unknown key "role"'),
    ("a take off the track", ORDER, set_key(8, "space", 100), 8, '"space" in a take event must be 0 to 99'),
    ("wall tile 10", ORDER, set_key(8, "wall", 10), 8, '"wall" in a take event must be 1 to 9'),
    ("wall tile 2 on nothing", IN_PLAY, set_key(21, "at", None), 21, 'needs "at" and "feature"'),
    (
        "wall tile 9 on a feature",
        ORDER,
        both(set_key(11, "at", [1, 0]), set_key(11, "feature", "W")),
        11,
        'takes no "at"',
    ),
    # --- placing tiles -----------------------------------------------------------------------------
    (
        "the first tile away from the start",
        SUMMARY,
        set_key(2, "at", [1, 0]),
        2,
        "needs a full side against a start space",
    ),
    (
        "outside the castle",
        SUMMARY,
        set_key(4, "at", [4, 0]),
        4,
        "is not a space for a tile inside the castle",
    ),
    ("on a tile", SUMMARY, set_key(4, "at", [0, 0]), 4, "[0, 0] already holds a tile"),
    (
        "corner to corner",
        "keep-moves.jsonl",
        set_key(4, "at", [1, 1]),
        4,
        "needs a full side against a start space or a placed tile (corner to corner is not enough)",
    ),
    # the contract's own example
    (
        "a path not continued",
        SUMMARY,
        set_key(4, "tile.features.0.edges", "E"),
        4,
        "side W: a path must be continued across the edge",
    ),
    (
        "a path into a side without one",
        SUMMARY,
        put(8, tile("Ben", [3, 0], {"kind": "path", "edges": "W E"})),
        8,
        "side W: a path must be continued",
    ),
    ("out of turn", SUMMARY, set_key(4, "player", "Ana"), 4, "it is Ben's turn to place a tile, not Ana's"),
    ("not a player", SUMMARY, set_key(4, "player", "Cid"), 4, '"Cid" is not a player'),
    # --- followers ---------------------------------------------------------------------------------
    (
        "a follower out of turn",
        SUMMARY,
        insert(4, meeple("Ben", [0, 0], "path")),
        4,
        "Ben may not place a follower now",
    ),
    ("two followers", SUMMARY, insert(4, meeple("Ana", [0, 0], "path")), 4, "may not place a follower now"),
    (
        "a follower on another tile",
        SUMMARY,
        set_key(7, "at", [1, 0]),
        7,
        "just placed at [2, 0], not at [1, 0]",
    ),
    ("a follower on nothing", SUMMARY, set_key(3, "feature", "tower"), 3, "the tile has no tower"),
    # the contract's own example
    (
        "a follower on a held feature",
        "majority-two-to-one.jsonl",
        insert(9, meeple("Ben", [1, 0], "W")),
        9,
        "that feature already holds a follower",
    ),
    # --- the scoring order ---------------------------------------------------------------------------
    (
        "the opponent's first",
        ORDER,
        insert(
            8,
            {
                "event": "order",
                "player": "Ana",
                "features": [
                    {"at": [2, 0], "feature": "house"},
                    {"at": [1, 0], "feature": "N"},
                    {"at": [0, 0], "feature": "tower"},
                ],
            },
        ),
        8,
        "Ana's features score first",
    ),
    (
        "an order leaving one out",
        ORDER,
        insert(
            8,
            {
                "event": "order",
                "player": "Ana",
                "features": [{"at": [1, 0], "feature": "N"}, {"at": [1, 0], "feature": "W"}],
            },
        ),
        8,
        "leaves out the house",
    ),
    (
        "an order of what does not score",
        ORDER,
        insert(6, {"event": "order", "player": "Ben", "features": [{"at": [2, 0], "feature": "house"}]}),
        6,
        "scores nothing this turn",
    ),
    (
        "an order by the opponent",
        ORDER,
        insert(8, {"event": "order", "player": "Ben", "features": []}),
        8,
        "only Ana, who placed the tile, chooses the scoring order",
    ),
    (
        "an order after the scoring",
        ORDER,
        insert(9, {"event": "order", "player": "Ana", "features": []}),
        9,
        "an order event comes in a turn, after its tile and before its scoring",
    ),
    # --- wall tiles taken ----------------------------------------------------------------------------
    # the contract's own examples
    (
        "a take with no landing",
        ORDER,
        insert(6, {"event": "take", "player": "Ben", "space": 3, "wall": 9}),
        6,
        "no marker landed on a corner space with a wall tile this turn",
    ),
    (
        "a take forgotten",
        ORDER,
        both(delete(8), delete(8)),
        8,
        "Ana's marker landed on space 6, a corner with a wall tile: a take event must say which",
    ),
    (
        "a take forgotten before the next tile",
        IN_PLAY,
        delete(12),
        12,
        "Ben's marker landed on space 4, a corner with a wall tile: a take event must say which",
    ),
    (
        "takes out of order",
        ORDER,
        both(
            put(8, {"event": "take", "player": "Ben", "space": 3, "wall": 9}),
            put(9, {"event": "take", "player": "Ana", "space": 6, "wall": 2}),
        ),
        8,
        "the next wall tile due is Ana's, from space 6",
    ),
    (
        "a take from another space",
        ORDER,
        set_key(8, "space", 5),
        8,
        "the next wall tile due is Ana's, from space 6",
    ),
    (
        "a third wall tile 4",
        FINAL,
        both(set_key(12, "wall", 4), set_key(16, "wall", 4)),
        16,
        "both wall tiles 4 have already been taken",
    ),
    (
        "a take after end",
        TRACK,
        insert(8, {"event": "take", "player": "Ben", "space": 3, "wall": 2}),
        8,
        "after end only wall tiles 4 to 9",
    ),
    # passing a corner takes nothing: Ben's marker passes space 2 on its way to 3 in the last-landing game
    (
        "a take of a corner passed",
        "last-landing.jsonl",
        set_key(8, "space", 2),
        8,
        "the next wall tile due is Ben's, from space 3",
    ),
    # --- wall tiles played -----------------------------------------------------------------------------
    ("a wall tile not held", IN_PLAY, set_key(21, "wall", 3), 21, "Ana holds no wall tile 3"),
    # footnote 12: the tower that brought wall tile 2 cannot be doubled by it
    (
        "wall tile 2 on the tower that gave it",
        IN_PLAY,
        insert(18, use("Ana", 2, [2, 0], "E")),
        18,
        "wall tile 2 is played in Ana's own turn, before its scoring",
    ),
    (
        "wall tile 3 on the opponent's turn",
        IN_PLAY,
        insert(21, use("Ben", 3, [3, 1], "house")),
        21,
        "wall tile 3 is played in Ben's own turn",
    ),
    (
        "wall tile 2 on a house",
        IN_PLAY,
        put(21, use("Ana", 2, [3, 1], "house")),
        21,
        "wall tile 2 is played on a tower, not on a house",
    ),
    (
        "wall tile 3 on a tower",
        IN_PLAY,
        put(19, use("Ben", 3, [3, 1], "tower")),
        19,
        "the tile has no tower",
    ),
    # the contract's own example
    (
        "wall tile 2 without a majority",
        IN_PLAY,
        both(delete(16), set_key(20, "wall", 2)),
        20,
        "Ana has no majority on that tower",
    ),
    (
        "wall tile 1 after end",
        "last-landing.jsonl",
        insert(10, use("Ben", 1)),
        10,
        "wall tile 1 is played during the game, not after end",
    ),
    (
        "wall tile 1 on the opponent's turn",
        IN_PLAY,
        insert(18, use("Ben", 1)),
        18,
        "wall tile 1 is played in Ben's own turn, after its scoring",
    ),
    (
        "wall tile 1 before its scoring by the opponent",
        IN_PLAY,
        insert(6, use("Ana", 1)),
        6,
        "wall tile 1 is played in Ana's own turn",
    ),
    (
        "wall tile 1 before the turn's due take",
        FINAL,
        both(set_key(7, "wall", 1), insert(12, use("Ana", 1))),
        12,
        "a take event must say which",
    ),
    ("wall tile 9 before end", ORDER, insert(10, use("Ben", 9)), 10, "wall tile 9 is played after end"),
    (
        "wall tile 8 without a keep",
        TRACK,
        both(set_key(6, "wall", 8), insert(8, use("Ana", 8))),
        8,
        "Ana has no keep: wall tile 8 enlarges a keep",
    ),
    (
        "wall tile 5 without a majority",
        FIVE_SIX,
        put(18, use("Ben", 5, [0, 0], "tower")),
        18,
        "Ben has no majority on that tower",
    ),
    (
        "wall tile 6 on a completed house",
        FIVE_SIX,
        put(19, use("Ben", 6, [0, 1], "tower")),
        19,
        "wall tile 6 is played on a house",
    ),
    (
        "wall tile 7 on a tie",
        FINAL,
        put(26, use("Ana", 7, [1, 0], "path")),
        26,
        "wall tile 7 is played on a courtyard",
    ),
    (
        "wall tile 4 twice on one path",
        FINAL,
        both(set_key(16, "wall", 4), put(25, use("Ana", 4, [0, 0], "path"))),
        27,
        "that path already takes a wall tile",
    ),
    # --- the end ----------------------------------------------------------------------------------
    ("a tile after end", SUMMARY, insert(11, tile("Ana", [3, 0], HOUSE_N)), 11, "the game is over"),
    ("a second end", SUMMARY, insert(11, END), 11, "the game is over"),
]


@pytest.mark.parametrize(("name", "record", "edit", "line", "says"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_record_is_refused_at_its_line(
    name: str,
    record: str,
    edit: Edit,
    line: int,
    says: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = copy.deepcopy(lines_of(record))
    edit(lines)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(text) for text in lines) + "\n")
    assert main(["replay", str(path), "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"line {line}: "), err
    assert says in err, err


def test_nothing_is_refused_before_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record cut just before its bad line replays: the refusal is of that line, not earlier."""
    for name, record, edit, line, _ in CASES:
        if line == 1:
            continue
        lines = copy.deepcopy(lines_of(record))
        edit(lines)
        path = tmp_path / "cut.jsonl"
        path.write_text("\n".join(json.dumps(t) for t in lines[: line - 1]) + "\n")
        assert main(["replay", str(path)]) == 0, f"{name}: {capsys.readouterr().err}"
    capsys.readouterr()


def long_row(tiles: int) -> list[Any]:
    """A one-row castle: Ana and Ben lay courtyard tiles along it, Ana a merchant on each of
    hers (the wall closes every courtyard, so each is its own)."""
    board = {
        "interior": ["#" * tiles],
        "starts": [{"cell": [0, 0], "side": "W", "features": [{"kind": "house", "edges": "W"}]}],
        "corners": [],
    }
    header = {
        "record": 1,
        "game": "castle",
        "players": [{"name": "Ana", "color": "red"}, {"name": "Ben", "color": "blue"}],
        "board": board,
    }
    lines: list[Any] = [header]
    for x in range(tiles):
        player = "Ana" if x % 2 == 0 else "Ben"
        lines.append(tile(player, [x, 0], {"kind": "courtyard", "edges": "N", "markets": 1}))
        if player == "Ana":
            lines.append(meeple("Ana", [x, 0], "courtyard"))
    return lines


def refusal(lines: list[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert main(["replay", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    return err.strip()


def test_a_seventh_follower_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Ana's merchants never come home: her seventh is refused (6 in supply, castle.md reading 1).
    # Lines: 1 header, then per pair of turns Ana's tile, her merchant, Ben's tile: her 7th tile
    # is line 20, its merchant line 21.
    assert refusal(long_row(13), tmp_path, capsys) == "line 21: Ana has no follower left"


def test_a_61st_tile_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [line for line in long_row(61) if line.get("event") != "meeple"]
    assert refusal(lines, tmp_path, capsys) == "line 62: all 60 castle tiles are placed"
