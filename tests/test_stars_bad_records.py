"""Every kind of mistake an Among the Stars record can hold is refused by ``companion replay``
with exit code 1, nothing on stdout, and ``line N: reason`` on stderr.

Cases are edits of the good records in tests/records/stars/. sandra-holographic.jsonl:
 1 header (Sandra, Tomás)            5 Tomás discards (turn 2)
 2 year 1                            6 Sandra builds Docking Ring at [0, 1]
 3 Sandra builds Cargo Bay at [1, 0]  7 Sandra builds Holographic Display Area at [1, 1], cube from [0, 0]
 4 Tomás discards (turn 1)           8 Tomás discards (turn 3)
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main

RECORDS = Path(__file__).parent / "records" / "stars"
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
    """Set (or, with value None, take out) a key inside a line: "card.ability.vp"."""

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


SANDRA = "sandra-holographic.jsonl"
CARGO = {"name": "Cargo Bay", "type": "administrative", "cost": 1, "vp": 1}
TWO = [{"name": "Ana"}, {"name": "Ben"}]
ARCADE_ABILITY = 24  # objectives.jsonl: Ben's Arcade counted by hand, right after its build
YEAR4_DONE = 78  # objectives.jsonl: the last action of year 4's 6th turn
SHARED_END = 54  # shared-win.jsonl: the end

# (name, record, edit, the line named, what the reason says)
CASES: list[tuple[str, str, Edit, int, str]] = [
    # --- the header -------------------------------------------------------------------------------
    ("aggressive", SANDRA, set_key(1, "variant", "aggressive"), 1, 'the variant "aggressive" is reserved'),
    (
        "unknown variant",
        SANDRA,
        set_key(1, "variant", "solo"),
        1,
        '"variant" in the header must be "peaceful"',
    ),
    (
        "one player",
        SANDRA,
        set_key(1, "players", [{"name": "Ana"}]),
        1,
        "takes 2 to 4 players, the header lists 1",
    ),
    ("five players", SANDRA, set_key(1, "players", [{"name": str(n)} for n in range(5)]), 1, "lists 5"),
    (
        "same names",
        SANDRA,
        set_key(1, "players", [{"name": "Ana"}, {"name": "Ana"}]),
        1,
        'two players are called "Ana"',
    ),
    (
        "a race",
        SANDRA,
        set_key(1, "players", [{"name": "Ana", "race": "Vak"}, {"name": "Ben"}]),
        1,
        'unknown key "race"',
    ),
    ("no types", SANDRA, set_key(1, "types", None), 1, 'the header is missing "types"'),
    (
        "seven types",
        SANDRA,
        set_key(1, "types", [str(n) for n in range(7)]),
        1,
        "1 to 6 location types, not 7",
    ),
    ("no type", SANDRA, set_key(1, "types", []), 1, "1 to 6 location types, not 0"),
    ("a type twice", SANDRA, set_key(1, "types", ["military", "military"]), 1, 'names "military" twice'),
    ("a header key", SANDRA, set_key(1, "races", []), 1, 'unknown key "races" in the header'),
    (
        "objectives not one each",
        SANDRA,
        set_key(1, "objectives", [{"name": "Big", "kind": "most_locations", "vp": 3}]),
        1,
        "one per player: 2 objectives, not 1",
    ),
    (
        "objective kind",
        SANDRA,
        set_key(
            1,
            "objectives",
            [{"name": "A", "kind": "richest", "vp": 3}, {"name": "B", "kind": "manual", "vp": 2}],
        ),
        1,
        '"kind" in objective 1 in the header must be one of',
    ),
    (
        "most_type without its type",
        SANDRA,
        set_key(
            1,
            "objectives",
            [{"name": "A", "kind": "most_type", "vp": 3}, {"name": "B", "kind": "manual", "vp": 2}],
        ),
        1,
        'objective 1 in the header is missing "type"',
    ),
    (
        "most_type of a type the header lacks",
        SANDRA,
        set_key(
            1,
            "objectives",
            [
                {"name": "A", "kind": "most_type", "type": "pirate", "vp": 3},
                {"name": "B", "kind": "manual", "vp": 2},
            ],
        ),
        1,
        'counts "pirate" locations, which is not one of the header\'s types',
    ),
    (
        "a type where it does not belong",
        SANDRA,
        set_key(
            1,
            "objectives",
            [
                {"name": "A", "kind": "most_locations", "type": "military", "vp": 3},
                {"name": "B", "kind": "manual", "vp": 2},
            ],
        ),
        1,
        'unknown key "type" in objective 1',
    ),
    (
        "objective vp 0",
        SANDRA,
        set_key(
            1,
            "objectives",
            [{"name": "A", "kind": "manual", "vp": 0}, {"name": "B", "kind": "manual", "vp": 2}],
        ),
        1,
        '"vp" in objective 1 in the header must be 1 to 99, not 0',
    ),
    (
        "objective names twice",
        SANDRA,
        set_key(
            1,
            "objectives",
            [{"name": "A", "kind": "manual", "vp": 1}, {"name": "A", "kind": "manual", "vp": 2}],
        ),
        1,
        'two objectives are called "A"',
    ),
    # --- the form of events -------------------------------------------------------------------------
    ("not JSON", SANDRA, put(4, "{event: discard}"), 4, "not valid JSON"),
    (
        "unknown event",
        SANDRA,
        put(4, {"event": "conflict", "player": "Tomás"}),
        4,
        '"event" in an event must be one of',
    ),
    ("a build without its cell", SANDRA, set_key(3, "at", None), 3, 'a build event is missing "at"'),
    ("year 5", SANDRA, set_key(2, "year", 5), 2, '"year" in a year event must be 1 to 4, not 5'),
    ("a pass direction", SANDRA, set_key(2, "pass", "left"), 2, '"pass" in a year event must be one of'),
    ("a card without vp", SANDRA, set_key(3, "card.vp", None), 3, 'the card "Cargo Bay" is missing "vp"'),
    (
        "a cost of 100",
        SANDRA,
        set_key(3, "card.cost", 100),
        3,
        '"cost" in the card "Cargo Bay" must be 0 to 99, not 100',
    ),
    (
        "energy 10",
        SANDRA,
        set_key(3, "card.energy", 10),
        3,
        '"energy" in the card "Cargo Bay" must be 0 to 9',
    ),
    ("MAX 0", SANDRA, set_key(3, "card.max", 0), 3, '"max" in the card "Cargo Bay" must be 1 to 9, not 0'),
    ("text on a card", SANDRA, set_key(3, "card.text", "x"), 3, 'unknown key "text" in the card "Cargo Bay"'),
    (
        "ability kind",
        SANDRA,
        set_key(7, "card.ability.kind", "steal"),
        7,
        '"kind" in the ability of the card',
    ),
    ("ability vp 0", SANDRA, set_key(7, "card.ability.vp", 0), 7, "must not be 0"),
    ("ability vp 100", SANDRA, set_key(7, "card.ability.vp", 100), 7, "must be -99 to 99, not 100"),
    (
        "delayed credits",
        SANDRA,
        set_key(7, "card.ability", {"timing": "delayed", "kind": "credits", "credits": 2}),
        7,
        '"credits" ability is immediate only',
    ),
    (
        "per type without the type",
        SANDRA,
        set_key(7, "card.ability", {"timing": "immediate", "kind": "vp_per_type_in_station", "vp": 1}),
        7,
        'is missing "type"',
    ),
    (
        "a key not of the kind",
        SANDRA,
        set_key(
            7,
            "card.ability",
            {"timing": "immediate", "kind": "vp_per_adjacent_empty_reactor", "vp": 1, "type": "military"},
        ),
        7,
        'unknown key "type"',
    ),
    (
        "manual with vp",
        SANDRA,
        set_key(7, "card.ability", {"timing": "immediate", "kind": "manual", "vp": 1}),
        7,
        'unknown key "vp"',
    ),
    (
        "energy_from not cells",
        SANDRA,
        set_key(7, "energy_from", [0, 0]),
        7,
        '"energy_from" in a build event lists reactor cells',
    ),
    # --- the rules ------------------------------------------------------------------------------------
    (
        "an action before year 1",
        SANDRA,
        delete(2),
        2,
        'no year has begun: the first event is {"event": "year", "year": 1}',
    ),
    ("year 2 first", SANDRA, set_key(2, "year", 2), 2, "the first event is year 1, not year 2"),
    ("year 1 twice", SANDRA, insert(4, {"event": "year", "year": 1}), 4, "year 1 has already begun"),
    (
        "year 2 too soon",
        SANDRA,
        insert(5, {"event": "year", "year": 2}),
        5,
        "year 2 comes after the 6th turn of year 1",
    ),
    (
        "acting twice in a turn",
        SANDRA,
        put(4, {"event": "discard", "player": "Sandra"}),
        4,
        "Sandra has already acted in turn 1 of year 1",
    ),
    (
        "someone else",
        SANDRA,
        put(4, {"event": "discard", "player": "Zed"}),
        4,
        '"Zed" is not a player in this game',
    ),
    ("not beside a location", SANDRA, set_key(3, "at", [2, 0]), 3, "Sandra cannot build Cargo Bay at [2, 0]"),
    ("only diagonal", SANDRA, set_key(7, "at", [-1, -1]), 7, "side by side (not diagonally)"),
    (
        "an occupied cell",
        SANDRA,
        set_key(6, "at", [1, 0]),
        6,
        "[1, 0] in Sandra's station already holds Cargo Bay",
    ),
    (
        "a cost not paid",
        SANDRA,
        set_key(3, "card", {**CARGO, "name": "Palace", "cost": 11}),
        3,
        "Sandra has 10 credits and Palace costs 11",
    ),
    (
        "no cube named",
        SANDRA,
        set_key(7, "energy_from", None),
        7,
        'needs 1 energy cube: "energy_from" names 0',
    ),
    (
        "energy from a card",
        SANDRA,
        set_key(7, "energy_from", [[1, 0]]),
        7,
        "energy comes from a reactor, and Sandra's station has Cargo Bay at [1, 0]",
    ),
    (
        "the same card read otherwise",
        SANDRA,
        set_key(6, "card", {**CARGO, "cost": 2}),
        6,
        'the card "Cargo Bay" was read before with other data (cost 2, not 1)',
    ),
    (
        "a type the header lacks",
        SANDRA,
        set_key(3, "card.type", "pirate"),
        3,
        'the card "Cargo Bay" is of type "pirate"',
    ),
    (
        "a discarded card of another type",
        SANDRA,
        set_key(4, "card", {**CARGO, "type": "military"}),
        4,
        "was read before with other data (type military, not administrative)",
    ),
    ("energy 3 away", "placeholder.jsonl", set_key(18, "at", [3, 0]), 18, "is more than 2 cards from [3, 0]"),
    (
        "beside a placeholder only",
        "placeholder.jsonl",
        set_key(18, "at", [1, 1]),
        18,
        "cannot build Observatory at [1, 1]",
    ),
    (
        "cubes a reactor lacks",
        "power-reactors.jsonl",
        set_key(5, "energy_from", [[1, 0], [1, 0], [1, 0]]),
        5,
        "has 2 energy cubes left, not the 3 taken",
    ),
    (
        "the 17th power reactor",
        "sixteen-reactors.jsonl",
        put(20, {"event": "reactor", "player": "Ana", "at": [9, 0]}),
        20,
        "all 16 power reactor cards of the box are built",
    ),
    (
        "a 7th turn",
        "shared-win.jsonl",
        insert(15, {"event": "discard", "player": "Ana"}),
        15,
        "year 1 has had its 6 turns: next is year 2",
    ),
    ("year 3 after year 1", "shared-win.jsonl", set_key(15, "year", 3), 15, "year 2 comes next, not year 3"),
    (
        "the same pass twice",
        "shared-win.jsonl",
        set_key(15, "pass", "clockwise"),
        15,
        "the cards pass the other way each year",
    ),
    (
        "MAX broken at the new year",
        "max-removal.jsonl",
        both(delete(16), delete(15)),
        15,
        "Ana's station has 2 Command Center (at [1, 0], [2, 0]), beyond its MAX 1",
    ),
    (
        "a removal mid-year",
        "max-removal.jsonl",
        insert(14, {"event": "remove", "player": "Ana", "at": [2, 0]}),
        14,
        "a card is removed at the end of a year, after its 6th turn",
    ),
    (
        "more than necessary",
        "max-removal.jsonl",
        insert(17, {"event": "remove", "player": "Ana", "at": [1, 0]}),
        17,
        "within its MAX 1: only as many as necessary are removed",
    ),
    (
        "the main reactor removed",
        "max-removal.jsonl",
        insert(17, {"event": "remove", "player": "Ana", "at": [0, 0]}),
        17,
        "the main reactor at [0, 0] stays",
    ),
    (
        "an empty cell removed",
        "max-removal.jsonl",
        insert(17, {"event": "remove", "player": "Ben", "at": [1, 0]}),
        17,
        "Ben's station has nothing at [1, 0]",
    ),
    (
        "a pending ability",
        "objectives.jsonl",
        delete(ARCADE_ABILITY),
        26,
        "Ben's Arcade at [0, 1] waits for the VP of its ability",
    ),
    (
        "an ability of a card without one",
        "objectives.jsonl",
        both(
            delete(ARCADE_ABILITY),
            keep(21),
            insert(21, {"event": "ability", "player": "Ben", "at": [1, 0], "vp": 1}),
        ),
        21,
        "has no ability counted by hand",
    ),
    (
        "counted twice",
        "objectives.jsonl",
        insert(25, {"event": "ability", "player": "Ben", "at": [0, 1], "vp": 3}),
        25,
        "the ability of Arcade at [0, 1] was counted already",
    ),
    (
        "a delayed ability too soon",
        "objectives.jsonl",
        insert(77, {"event": "ability", "player": "Cleo", "at": [1, 0], "vp": 2}),
        77,
        "the delayed ability of Casino is counted at the end",
    ),
    (
        "no delayed count at the end",
        "objectives.jsonl",
        delete(79),
        80,
        "the delayed ability of Cleo's Casino at [1, 0] is counted by hand",
    ),
    (
        "no objective count at the end",
        "objectives.jsonl",
        delete(80),
        80,
        'objective "Alliance Charter" is counted by hand',
    ),
    (
        "an objective the companion counts",
        "objectives.jsonl",
        set_key(80, "name", "Big Station"),
        80,
        "is counted by the companion",
    ),
    (
        "an objective not in the header",
        "objectives.jsonl",
        set_key(80, "name", "Galactic Senate"),
        80,
        'the header has no objective called "Galactic Senate"',
    ),
    ("a count missing", "objectives.jsonl", set_key(80, "counts", {"Ana": 1, "Ben": 4}), 80, "Cleo missing"),
    (
        "a count of no player",
        "objectives.jsonl",
        set_key(80, "counts", {"Ana": 1, "Ben": 4, "Cleo": 2, "Zed": 1}),
        80,
        '"Zed" in the counts of objective',
    ),
    (
        "a negative count",
        "objectives.jsonl",
        set_key(80, "counts", {"Ana": -1, "Ben": 4, "Cleo": 2}),
        80,
        "must be a whole number from 0",
    ),
    (
        "an objective twice",
        "objectives.jsonl",
        insert(
            81, {"event": "objective", "name": "Alliance Charter", "counts": {"Ana": 1, "Ben": 4, "Cleo": 2}}
        ),
        81,
        "was counted already",
    ),
    (
        "the end too soon",
        "shared-win.jsonl",
        insert(50, {"event": "end"}),
        50,
        "the end of the game comes after the 6th turn of year 4",
    ),
    (
        "after the end",
        "shared-win.jsonl",
        insert(SHARED_END + 1, {"event": "discard", "player": "Ana"}),
        SHARED_END + 1,
        'the game is over: nothing follows "end"',
    ),
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
    path.write_text("\n".join(text if isinstance(text, str) else json.dumps(text) for text in lines) + "\n")
    assert main(["replay", str(path), "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"line {line}: "), err
    assert says in err, err


def test_every_good_record_replays() -> None:
    for path in sorted(RECORDS.glob("*.jsonl")):
        assert main(["replay", str(path)]) == 0, path.name


def test_nothing_is_refused_before_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record cut just before its bad line replays: the refusal is of that line, not earlier."""
    for name, record, edit, line, _ in CASES:
        if line == 1:
            continue
        lines = copy.deepcopy(lines_of(record))
        edit(lines)
        path = tmp_path / "cut.jsonl"
        path.write_text(
            "\n".join(t if isinstance(t, str) else json.dumps(t) for t in lines[: line - 1]) + "\n"
        )
        assert main(["replay", str(path)]) == 0, f"{name}: {capsys.readouterr().err}"
    capsys.readouterr()
