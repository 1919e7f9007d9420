"""Every kind of mistake a record can hold is refused with its line number and a plain reason.

Cases are edits of a good record (route-battle.jsonl, 13 lines):
 1 header (Ana red, Ben white)        8 Ana tile (2,0) intersection E/S/W
 2 start tile (0,0) route WE          9 Ana meeple (2,0) W
 3 Ana tile (0,-1) planet            10 Ben tile (-1,-1) planet
 4 Ben tile (-1,0) route E + planet  11 Ana tile (1,0) route WE + planet: joins the routes
 5 Ben meeple (-1,0) E               12 roll Ana [6]
 6 Ana tile (1,-1) planet            13 roll Ben [1]
 7 Ben tile (2,-1) planet
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.games.registry import RECORD_GAMES, manifests
from companion.record import BadRecord, parse_record, replay

BASE = (Path(__file__).parent / "records" / "route-battle.jsonl").read_text(encoding="utf-8").splitlines()
HEADER = json.loads(BASE[0])

Edit = Callable[[list[str]], None]


def put(line: int, value: Any) -> Edit:
    """Replace a line with a JSON value (or raw text when given a str)."""

    def change(lines: list[str]) -> None:
        lines[line - 1] = value if isinstance(value, str) else json.dumps(value)

    return change


def insert(line: int, value: Any) -> Edit:
    """Insert so that the value becomes this line."""

    def change(lines: list[str]) -> None:
        lines.insert(line - 1, value if isinstance(value, str) else json.dumps(value))

    return change


def keep(last_line: int) -> Edit:
    def change(lines: list[str]) -> None:
        del lines[last_line:]

    return change


def header(**changes: Any) -> Edit:
    obj = {k: v for k, v in HEADER.items() if k != "meta"}
    obj.update(changes)
    return put(1, {k: v for k, v in obj.items() if v is not None})


def players(*entries: tuple[str, str]) -> list[dict[str, str]]:
    return [{"name": n, "color": c} for n, c in entries]


def tile(player: str | None, at: list[int], *features: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"event": "tile", "player": player, "at": at, "tile": {"features": list(features)}, **extra}


def meeple(player: str, at: list[int], feature: str, size: str = "small") -> dict[str, Any]:
    return {"event": "meeple", "player": player, "at": at, "feature": feature, "size": size}


def roll(player: str, *dice: Any) -> dict[str, Any]:
    return {"event": "roll", "player": player, "dice": list(dice)}


def planet(symbol: str = "rebels") -> dict[str, Any]:
    return {"kind": "planet", "symbols": [symbol]}


def route(edges: str) -> dict[str, Any]:
    return {"kind": "route", "edges": edges}


def asteroid(edges: str) -> dict[str, Any]:
    return {"kind": "asteroid", "edges": edges}


# id, edits, line, words the reason must hold
CASES: list[tuple[str, list[Edit], int, str]] = [
    # --- the file and its JSON
    ("empty file", [keep(0)], 1, "the record is empty"),
    ("not json", [put(3, '{"event": "tile", "player": "Ana"')], 3, "not valid JSON"),
    ("not an object", [put(3, "[1, 2]")], 3, "must be a JSON object"),
    ("duplicate key", [put(3, '{"event": "end", "event": "end"}')], 3, 'the key "event" appears twice'),
    ("NaN", [put(12, '{"event": "roll", "player": "Ana", "dice": [NaN]}')], 12, "not a number JSON allows"),
    (
        "number too large in meta",
        [put(12, '{"event": "roll", "player": "Ana", "dice": [3], "meta": {"confidence": 1e999}}')],
        12,
        "1e999 is too large a number to keep",
    ),
    ("second header", [insert(3, HEADER)], 3, "a second header"),
    # --- the header
    ("header is an event", [put(1, {"event": "end"})], 1, "must be the header"),
    ("header not object", [put(1, "[]")], 1, "must be the header, a JSON object"),
    ("no record key", [header(record=None)], 1, 'missing "record"'),
    ("record version", [header(record=2)], 1, '"record" must be 1'),
    ("unknown game", [header(game="chess")], 1, 'unknown game "chess"'),
    ("bad variant", [header(variant="solo")], 1, '"variant" in the header must be one of'),
    ("unknown header key", [header(varaint="teams")], 1, 'unknown key "varaint" in the header'),
    ("one player", [header(players=players(("Ana", "red")))], 1, "2 to 5 players"),
    ("six players", [header(players=players(*[(f"P{i}", "red") for i in range(6)]))], 1, "2 to 5 players"),
    ("same name", [header(players=players(("Ana", "red"), ("Ana", "white")))], 1, "two players are called"),
    ("same colour", [header(players=players(("Ana", "red"), ("Ben", "red")))], 1, "colours must differ"),
    ("bad colour", [header(players=players(("Ana", "red"), ("Ben", "blue")))], 1, '"blue"'),
    ("empty name", [header(players=players(("", "red"), ("Ben", "white")))], 1, "must not be empty"),
    (
        "player key",
        [
            header(
                players=[{"name": "Ana", "color": "red", "colour": "red"}, {"name": "Ben", "color": "white"}]
            )
        ],
        1,
        'unknown key "colour" in player 1',
    ),
    (
        "teams colours",
        [
            header(
                variant="teams",
                players=players(("Ana", "red"), ("Ben", "white"), ("Cid", "orange"), ("Dee", "black")),
            )
        ],
        1,
        "the team variant is for 4 players",
    ),
    (
        "teams seating",
        [
            header(
                variant="teams",
                players=players(("Ana", "red"), ("Cid", "green"), ("Ben", "black"), ("Dee", "white")),
            )
        ],
        1,
        "the teams alternate in turn order",
    ),
    (
        "meta null",
        [put(3, {**tile("Ana", [0, -1], planet("empire")), "meta": None})],
        3,
        '"meta" in a tile event',
    ),
    ("meta number", [put(1, {**HEADER, "meta": 5})], 1, '"meta" in the header must be a JSON object'),
    (
        "deep nesting",
        [put(3, '{"event": "end", "meta": {"a": ' + "[" * 100000 + "]" * 100000 + "}}")],
        3,
        "nested too deeply",
    ),
    (
        "lone surrogate",
        [put(12, '{"event": "roll", "player": "\\ud800", "dice": [6]}')],
        12,
        "lone surrogate",
    ),
    ("not blank", [insert(3, "\x1c\u00a0")], 3, "not valid JSON"),
    # --- event format
    ("no event key", [put(3, {"player": "Ana"})], 3, 'needs an "event" key'),
    ("unknown event", [put(3, {"event": "pass"})], 3, '"event" in an event must be one of'),
    ("typo key", [put(5, {**meeple("Ben", [-1, 0], "E"), "sise": "small"})], 5, 'unknown key "sise"'),
    (
        "missing key",
        [put(5, {"event": "meeple", "player": "Ben", "at": [-1, 0], "feature": "E"})],
        5,
        '"size"',
    ),
    ("at floats", [put(3, tile("Ana", [0.0, -1], planet()))], 3, '"at" in a tile event must be [x, y]'),
    ("at three", [put(3, tile("Ana", [0, -1, 0], planet()))], 3, '"at" in a tile event must be [x, y]'),
    ("at bools", [put(3, tile("Ana", [True, False], planet()))], 3, '"at" in a tile event must be [x, y]'),
    (
        "unknown catalog id",
        [put(3, {"event": "tile", "player": "Ana", "at": [0, -1], "tile": "XX99", "rotation": 0})],
        3,
        'tile "XX99" is not in the Star Wars catalog',
    ),
    (
        "no rotation",
        [put(3, {"event": "tile", "player": "Ana", "at": [0, -1], "tile": "SW25"})],
        3,
        'needs "rotation"',
    ),
    (
        "rotation 4",
        [put(3, {"event": "tile", "player": "Ana", "at": [0, -1], "tile": "SW25", "rotation": 4})],
        3,
        '"rotation" in a tile event must be 0 to 3',
    ),
    ("inline rotation", [put(3, tile("Ana", [0, -1], planet(), rotation=1))], 3, 'takes no "rotation"'),
    (
        "tile a number",
        [put(3, {"event": "tile", "player": "Ana", "at": [0, -1], "tile": 7})],
        3,
        "catalog id or an inline tile",
    ),
    (
        "features not list",
        [put(3, {"event": "tile", "player": "Ana", "at": [0, -1], "tile": {"features": {}}})],
        3,
        '"features" in inline tile must be a list',
    ),
    (
        "feature kind",
        [put(3, tile("Ana", [0, -1], {"kind": "city", "edges": "N"}))],
        3,
        '"kind" in feature 1',
    ),
    ("edge letter", [put(3, tile("Ana", [0, -1], route("NX")))], 3, 'may hold only N, E, S and W, not "X"'),
    ("edge twice", [put(3, tile("Ana", [0, -1], route("NN")))], 3, "names side N twice"),
    (
        "side twice",
        [put(3, tile("Ana", [0, -1], route("NE"), asteroid("E")))],
        3,
        "side E of the inline tile is touched by features 1 and 2",
    ),
    (
        "planet edges",
        [put(3, tile("Ana", [0, -1], {"kind": "planet", "edges": "N", "symbols": ["empire"]}))],
        3,
        "touches no side",
    ),
    ("planet no symbol", [put(3, tile("Ana", [0, -1], {"kind": "planet"}))], 3, "exactly one symbol"),
    (
        "planet two symbols",
        [put(3, tile("Ana", [0, -1], {"kind": "planet", "symbols": ["empire", "bounty"]}))],
        3,
        "exactly one symbol",
    ),
    ("two planets", [put(3, tile("Ana", [0, -1], planet(), planet()))], 3, "at most one"),
    ("route three sides", [put(3, tile("Ana", [0, -1], route("NEW")))], 3, "a trade route touches one side"),
    ("asteroid no side", [put(3, tile("Ana", [0, -1], asteroid("")))], 3, "touches at least one side"),
    (
        "bad symbol",
        [put(3, tile("Ana", [0, -1], {"kind": "planet", "symbols": ["jedi"]}))],
        3,
        'symbol "jedi"',
    ),
    (
        "feature key",
        [put(3, tile("Ana", [0, -1], {**planet(), "colour": "red"}))],
        3,
        'unknown key "colour" in feature 1',
    ),
    (
        "meeple size",
        [put(5, meeple("Ben", [-1, 0], "E", "huge"))],
        5,
        '"size" in a meeple event must be one of',
    ),
    ("meeple feature", [put(5, meeple("Ben", [-1, 0], "middle"))], 5, '"feature" in a meeple event'),
    ("no dice", [put(12, roll("Ana"))], 12, "at least one die"),
    ("die seven", [put(12, roll("Ana", 7))], 12, "a die shows 1 to 6, not the number 7"),
    ("die zero", [put(12, roll("Ana", 0))], 12, "a die shows 1 to 6"),
    ("die text", [put(12, roll("Ana", "6"))], 12, "a die shows 1 to 6"),
    ("die float", [put(12, roll("Ana", 6.0))], 12, "a die shows 1 to 6"),
    (
        "end extra key",
        [insert(14, {"event": "end", "final": True})],
        14,
        'unknown key "final" in an end event',
    ),
    (
        "adjust zero",
        [insert(14, {"event": "adjust", "player": "Ana", "points": 0, "reason": "x"})],
        14,
        "must not be 0",
    ),
    ("adjust no reason", [insert(14, {"event": "adjust", "player": "Ana", "points": 2})], 14, '"reason"'),
    (
        "adjust huge",
        [insert(14, {"event": "adjust", "player": "Ana", "points": 5000, "reason": "x"})],
        14,
        "-1000 to 1000",
    ),
    (
        "adjust stranger",
        [insert(14, {"event": "adjust", "player": "Zed", "points": 1, "reason": "x"})],
        14,
        '"Zed" is not a player',
    ),
    # --- the rules: tiles
    ("start tile player", [put(2, tile("Ana", [0, 0], route("WE")))], 2, 'its "player" must be null'),
    ("later tile null", [put(3, tile(None, [0, -1], planet("empire")))], 3, "only the first tile"),
    (
        "out of turn",
        [put(3, tile("Ben", [0, -1], planet("empire")))],
        3,
        "it is Ana's turn to place a tile, not Ben's",
    ),
    ("unknown player", [put(3, tile("Zed", [0, -1], planet("empire")))], 3, '"Zed" is not a player'),
    ("cell taken", [put(3, tile("Ana", [0, 0], planet("empire")))], 3, "cell [0, 0] already holds a tile"),
    ("not touching", [put(3, tile("Ana", [5, 5], planet("empire")))], 3, "would touch no placed tile"),
    (
        "sides differ",
        [put(3, tile("Ana", [1, 0], planet("empire")))],
        3,
        "side W of the tile at [1, 0] shows open space, but the tile to the west shows trade route",
    ),
    (
        "asteroid on route",
        [put(3, tile("Ana", [1, 0], asteroid("W")))],
        3,
        "shows asteroid field, but the tile to the west shows trade route",
    ),
    # --- the rules: meeples
    (
        "meeple before tile",
        [insert(3, meeple("Ana", [0, 0], "W"))],
        3,
        "a meeple goes right after its player's own tile",
    ),
    ("meeple other player", [put(5, meeple("Ana", [-1, 0], "E"))], 5, "Ana may not place a meeple now"),
    (
        "two meeples",
        [insert(6, meeple("Ben", [-1, 0], "planet"))],
        6,
        "Ben has already placed a meeple this turn",
    ),
    (
        "meeple elsewhere",
        [put(5, meeple("Ben", [0, 0], "E"))],
        5,
        "a meeple goes on the tile just placed at [-1, 0]",
    ),
    (
        "meeple no feature",
        [put(5, meeple("Ben", [-1, 0], "N"))],
        5,
        "no trade route or asteroid field touches side N",
    ),
    (
        "route occupied",
        [insert(12, meeple("Ana", [1, 0], "W"))],
        12,
        "that trade route already holds a meeple (Ana, Ben)",
    ),
    ("no planet there", [put(5, meeple("Ben", [0, 0], "planet"))], 5, "there is no planet at [0, 0]"),
    (
        "planet too far",
        [put(9, meeple("Ana", [-1, 0], "planet"))],
        9,
        "neither on the tile just placed at [2, 0] nor on one of the 8 cells",
    ),
    (
        "no large left",
        [put(5, meeple("Ben", [-1, 0], "E", "large")), insert(8, meeple("Ben", [2, -1], "planet", "large"))],
        8,
        "Ben has no large meeple left",
    ),
    ("meeple in battle", [insert(13, meeple("Ana", [1, 0], "planet"))], 13, "roll first"),
    # --- the rules: battles
    ("roll no battle", [insert(4, roll("Ana", 6))], 4, "no battle is waiting for dice"),
    ("wrong dice count", [put(12, roll("Ana", 6, 5))], 12, "Ana rolls 1 die in this battle, not 2"),
    ("rolled twice", [put(13, roll("Ana", 3))], 13, "Ana has already rolled in round 1"),
    (
        "tile in battle",
        [put(12, tile("Ben", [1, 1], planet("empire")))],
        12,
        "at [0, 0] is waiting for dice from Ana (1 die) and Ben (1 die): roll before the next tile",
    ),
    ("end in battle", [put(12, {"event": "end"})], 12, "roll before the end of the game"),
    ("end half battle", [put(13, {"event": "end"})], 13, "waiting for dice from Ben (1 die)"),
    (
        "after end",
        [insert(14, {"event": "end"}), insert(15, tile("Ben", [1, 1], planet("empire")))],
        15,
        'nothing but a score correction may follow "end"',
    ),
    ("end before start", [put(2, {"event": "end"})], 2, "before the start tile"),
    ("roll stranger", [put(12, roll("Zed", 6))], 12, '"Zed" is not a player'),
]


def test_a_game_the_contract_names_without_a_package_is_not_supported_yet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every game the contract names has its package today; one it named tomorrow, before its
    package came, would be refused as not supported, not as unknown."""
    from companion.games import registry

    assert set(RECORD_GAMES) <= {m.name for m in manifests()}
    monkeypatch.setattr(registry, "RECORD_GAMES", (*RECORD_GAMES, "hunters"))
    lines = list(BASE)
    header(game="hunters")(lines)
    with pytest.raises(BadRecord, match='line 1: the game "hunters" is not supported yet'):
        parse_record("\n".join(lines))
    header(game="hunterz")(lines)
    with pytest.raises(BadRecord, match='line 1: unknown game "hunterz"'):
        parse_record("\n".join(lines))


def _text(edits: list[Edit]) -> str:
    lines = list(BASE)
    for edit in edits:
        edit(lines)
    return "\n".join(lines) + ("\n" if lines else "")


@pytest.mark.parametrize(("edits", "line", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_record_names_its_line(edits: list[Edit], line: int, words: str) -> None:
    with pytest.raises(BadRecord) as caught:
        replay(parse_record(_text(edits)))
    assert caught.value.line == line, caught.value
    assert words in caught.value.reason


def refusal(lines: list[str]) -> BadRecord:
    """The error a record made of these lines is refused with."""
    with pytest.raises(BadRecord) as caught:
        replay(parse_record("\n".join(lines)))
    return caught.value


def test_the_base_record_is_good() -> None:
    assert replay(parse_record(_text([]))).scores() == {"Ana": 4, "Ben": 1}


def test_a_fighter_who_lost_rolls_no_more(records_dir: Path) -> None:
    lines = (records_dir / "asteroid-battle-tie.jsonl").read_text(encoding="utf-8").splitlines()
    lines[18] = json.dumps(roll("Ben", 4))  # Ben lost round 1 (line 19 is round 2)
    error = refusal(lines)
    assert error.line == 19
    assert "Ben is out of this battle" in error.reason


def test_a_non_fighter_may_not_roll(records_dir: Path) -> None:
    lines = (records_dir / "asteroid-battle-tie.jsonl").read_text(encoding="utf-8").splitlines()
    lines[6] = ""  # Cid places no explorer (line 7): only Ana and Ben fight
    lines.insert(15, json.dumps(roll("Cid", 4, 1)))  # and Cid rolls first, on line 16
    error = refusal(lines)
    assert error.line == 16
    assert "Cid is not fighting in this battle (fighters: Ana, Ben)" in error.reason


def test_a_team_rolls_once_a_round(records_dir: Path) -> None:
    lines = (records_dir / "teams-planet.jsonl").read_text(encoding="utf-8").splitlines()
    lines.insert(11, json.dumps(roll("Ana", 1, 2, 3)))  # Cid (line 12) then Ana, both Rebels
    error = refusal(lines)
    assert error.line == 13
    assert "Rebels (Ana, Cid) has already rolled in round 1" in error.reason


def test_not_utf8() -> None:
    data = _text([]).encode("utf-8").replace(b'"Ana", "dice"', b'"An\xff", "dice"')
    with pytest.raises(BadRecord) as caught:
        parse_record(data)
    assert caught.value.line == 12
    assert "not UTF-8" in caught.value.reason


@pytest.mark.parametrize(("edits", "line", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_cli_refuses_bad_record(
    edits: list[Edit], line: int, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(_text(edits), encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"line {line}: ")
    assert words in err
    assert err.count("\n") == 1


def test_cli_in_a_real_process(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(_text([put(3, tile("Ben", [0, -1], planet("empire")))]), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "companion", "replay", str(path), "--json"], capture_output=True, text=True
    )
    assert done.returncode != 0
    assert done.stdout == ""
    assert done.stderr == "line 3: it is Ana's turn to place a tile, not Ben's\n"


def test_cli_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nowhere.jsonl")]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "cannot read" in err and "Traceback" not in err


def test_the_first_bad_line_is_named_whether_it_breaks_a_rule_or_the_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rule broken on line 3 is reported before the format broken on line 5: a record is read
    and played line by line."""
    lines = list(BASE)
    lines[2] = lines[2].replace('"player": "Ana"', '"player": "Ben"')  # Ben's tile, on Ana's turn
    lines[4] = '{"event": "tile", "player": "Ana", "at": [1, 0], "tyle": "SW01"}'
    path = tmp_path / "two-faults.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("line 3: ")
