"""Carcassonne: The Dice Game: the rules' worked examples and score table replayed as records, and
bad records refused with their line, through ``companion replay`` as a person runs it.

Each record in tests/records/dicegame/ carries what the rules say must come out in its header's
"meta" (replay ignores meta): the scores, the winners, finished, and every log line in order.
The helpers here (``roll``, ``lay``, ...) also serve the other tests of the game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.games.dicegame.engine import DiceGame
from companion.games.dicegame.scoring import RULES
from companion.games.registry import manifest
from companion.record import dump_record, parse_record, read_record, replay
from companion.replay import replay_json

RECORDS = sorted((Path(__file__).parent / "records" / "dicegame").glob("*.jsonl"))
READING1 = {"cap": ["N"], "corner": ["NE"], "straight": ["NS"], "three": ["NEW"]}


# --- building records -----------------------------------------------------------------------------


def header(*names: str, **extra: Any) -> dict[str, Any]:
    return {
        "record": 1,
        "game": "dicegame",
        "variant": "standard",
        "players": [{"name": n} for n in names],
        **extra,
    }


def roll(player: str, *dice: str) -> dict[str, Any]:
    return {"event": "roll", "player": player, "dice": list(dice)}


def lay(player: str, face: str, x: int, y: int, rotation: int) -> dict[str, Any]:
    return {"event": "aside", "player": player, "face": face, "at": [x, y], "rotation": rotation}


def knight(player: str) -> dict[str, Any]:
    return {"event": "aside", "player": player, "face": "knight"}


def score(player: str) -> dict[str, Any]:
    return {"event": "score", "player": player}


def keep(player: str) -> dict[str, Any]:
    return {"event": "keep", "player": player}


def text(head: dict[str, Any], *events: dict[str, Any] | str) -> str:
    """A record's text; a str event is written as it is (a blank line, broken JSON)."""
    lines = [json.dumps(head)] + [e if isinstance(e, str) else json.dumps(e) for e in events]
    return "\n".join(lines) + "\n"


def play(head: dict[str, Any], *events: dict[str, Any]) -> DiceGame:
    game = replay(parse_record(text(head, *events)))
    assert isinstance(game, DiceGame)
    return game


def three_line(player: str) -> list[dict[str, Any]]:
    """A closed city of 3 dice: a cap, a band, a cap, in a row."""
    return [lay(player, "cap", 0, 0, 1), lay(player, "straight", 1, 0, 1), lay(player, "cap", 2, 0, 3)]


# --- the worked examples ------------------------------------------------------------------------


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_record_scores_as_the_rules_say(path: Path) -> None:
    record = read_record(path)
    assert record.setup.meta is not None
    expect = record.setup.meta["expect"]
    result = replay_json(replay(record))
    assert result["game"] == "dicegame" and result["variant"] == "standard"
    assert result["finished"] == expect["finished"]
    assert result["scores"] == expect["scores"]
    assert result["winners"] == expect["winners"]
    assert [[e["player"], e["points"], e["reason"]] for e in result["log"]] == expect["log"]
    if "cells" in expect:  # the dice of the city that scored, in laying order
        assert [e["cells"] for e in result["log"]] == expect["cells"]
    assert sum(e["points"] for e in result["log"]) == sum(result["scores"].values())
    for entry in result["log"]:
        assert entry["reason"].endswith(f"= {entry['points']}")
        assert set(entry["detail"]) == {"cities", "knights", "catapults", "double"}


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_companion_replay_prints_the_contracts_object(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == replay_json(replay(read_record(path)))


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_a_record_is_written_back_as_it_was_read(path: Path) -> None:
    record = read_record(path)
    written = dump_record(record.game, record.setup, [event for _, event in record.events])
    assert written.splitlines()[1:] == [
        json.dumps(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()[1:]
    ]
    head = json.loads(written.splitlines()[0])
    assert head.get("faces") == json.loads(path.read_text(encoding="utf-8").splitlines()[0]).get("faces")


def test_every_worked_example_of_the_seed_is_covered() -> None:
    assert {p.stem for p in RECORDS} >= {
        "example-1ab",  # examples 1a and 1b
        "example-2abc",  # examples 2a, 2b and 2c
        "score-table",  # the score table and "Ejemplos de posibles ciudades"
        "knight-kept",  # "Ejemplo - Final del turno"
        "nine-catapults",  # "Caso especial"
        "reach-42",  # the contract's replay example: exactly 42 wins, at once
    }


def test_the_log_of_a_turn_names_its_cities_in_the_order_of_their_first_die() -> None:
    result = replay_json(replay(read_record(Path(__file__).parent / "records/dicegame/example-2abc.jsonl")))
    (entry,) = result["log"]
    assert entry["kind"] == "city" and entry["turn"] == 1
    assert entry["detail"] == {
        "cities": [
            {"dice": 4, "closed": False, "cells": [[0, 0], [1, 0], [0, 1], [2, 0]]},
            {"dice": 2, "closed": True, "cells": [[2, 1], [2, 2]]},
        ],
        "knights": 1,
        "catapults": 2,
        "double": False,
    }


# --- bad records --------------------------------------------------------------------------------

ANA_BEN = header("Ana", "Ben", faces=READING1)
NINE = ("knight", "knight", "knight", "cap", "straight", "cap", "corner", "three", "catapult")

# id, the record, the line, the reason (the contract's own examples word for word where it gives one)
BAD: list[tuple[str, str, int, str]] = [
    (
        "contract: a fourth roll",
        text(
            ANA_BEN,
            roll("Ana", *NINE),
            knight("Ana"),
            roll("Ana", *NINE[1:8]),
            roll("Ana", *NINE[:7]),
            roll("Ana", *NINE[:7]),
        ),
        6,
        "Ana has already rolled 3 times this turn",
    ),
    (
        "contract: set-aside dice rolled again",
        text(
            ANA_BEN,
            roll("Ana", "catapult", "cap", "straight", "cap", *["knight"] * 5),
            *three_line("Ana"),
            roll("Ana", *["knight"] * 6),
        ),
        6,
        "Ana has 5 dice left to roll, not 6: dice set aside or taken by catapults are not rolled again",
    ),
    (
        "contract: a kept knight leaves 8 dice",
        text(
            ANA_BEN,
            roll("Ana", *NINE),
            knight("Ana"),
            knight("Ana"),
            knight("Ana"),
            keep("Ana"),
            roll("Ben", *NINE),
        ),
        7,
        "Ben has 8 dice to roll, not 9 (1 knight kept by other players)",
    ),
    (
        "contract: white meets city",
        text(ANA_BEN, roll("Ana", *NINE), lay("Ana", "cap", 0, 0, 1), lay("Ana", "corner", 1, 0, 0)),
        4,
        "the corner at [1, 0] (rotation 0) has no city on its W side, "
        "but the cap at [0, 0] has city on its E side",
    ),
    (
        "contract: a catapult set aside",
        text(ANA_BEN, roll("Ana", *NINE), {"event": "aside", "player": "Ana", "face": "catapult"}),
        3,
        "a catapult cannot be set aside: it went to the next player at once",
    ),
    (
        "contract: two knights kept",
        text(ANA_BEN, roll("Ana", *NINE), knight("Ana"), knight("Ana"), keep("Ana")),
        5,
        "Ana has set aside 2 knights this turn; keeping one needs 3 or more",
    ),
    (
        "contract: a turn ends only by score or keep",
        text(ANA_BEN, roll("Ana", *NINE), roll("Ben", *NINE)),
        3,
        "Ana's turn has not ended: 'score' or 'keep' comes first",
    ),
    (
        "contract: after a win only end",
        text(ANA_BEN, roll("Ana", *["catapult"] * 9), roll("Ben", *NINE)),
        3,
        "the game is over: Ana won at line 2; only 'end' may follow",
    ),
    (
        "city meets white",
        text(ANA_BEN, roll("Ana", *NINE), lay("Ana", "cap", 0, 0, 0), lay("Ana", "corner", 0, 1, 0)),
        4,
        "the corner at [0, 1] (rotation 0) has city on its N side, "
        "but the cap at [0, 0] has no city on its S side",
    ),
    (
        "a die never moves",
        text(ANA_BEN, roll("Ana", *NINE), lay("Ana", "cap", 0, 0, 0), lay("Ana", "cap", 0, 0, 2)),
        4,
        "the cell [0, 0] already holds the cap laid this turn",
    ),
    (
        "not in the tray",
        text(ANA_BEN, roll("Ana", *NINE), lay("Ana", "straight", 0, 0, 0), lay("Ana", "straight", 3, 3, 0)),
        4,
        "there is no straight in the tray",
    ),
    (
        "unknown face",
        text(ANA_BEN, roll("Ana", *NINE[:8], "hexagon")),
        2,
        '"hexagon" is not a face of these dice',
    ),
    ("first roll short", text(ANA_BEN, roll("Ana", *NINE[:8])), 2, "Ana has 9 dice to roll, not 8"),
    ("wrong starter", text(ANA_BEN, roll("Ben", *NINE)), 2, "it is Ana's turn to roll, not Ben's"),
    (
        "no dice left",
        text(ANA_BEN, roll("Ana", *["catapult"] * 4, *["knight"] * 5), *[knight("Ana")] * 5, roll("Ana")),
        8,
        "Ana has no dice left to roll",
    ),
    (
        "aside before a roll",
        text(ANA_BEN, knight("Ana")),
        2,
        "Ana's turn has not started: a turn starts with a roll",
    ),
    ("another's aside", text(ANA_BEN, roll("Ana", *NINE), knight("Ben")), 3, "it is Ana's turn, not Ben's"),
    ("another's score", text(ANA_BEN, roll("Ana", *NINE), score("Ben")), 3, "it is Ana's turn, not Ben's"),
    ("a stranger", text(ANA_BEN, roll("Zoe", *NINE)), 2, '"Zoe" is not a player in this game'),
    ("after end", text(ANA_BEN, {"event": "end"}, roll("Ana", *NINE)), 3, "nothing may follow 'end'"),
    (
        "knight placed",
        text(ANA_BEN, roll("Ana", *NINE), {**knight("Ana"), "at": [0, 0]}),
        3,
        'a knight is set aside without "at" or "rotation"',
    ),
    (
        "city die unplaced",
        text(ANA_BEN, roll("Ana", *NINE), {"event": "aside", "player": "Ana", "face": "cap"}),
        3,
        'the cap set aside needs "at" and "rotation"',
    ),
    (
        "rotation 4",
        text(ANA_BEN, roll("Ana", *NINE), lay("Ana", "cap", 0, 0, 4)),
        3,
        '"rotation" in an aside event',
    ),
    ("ten dice", text(ANA_BEN, roll("Ana", *NINE, "cap")), 2, "lists 10 dice; the game has 9"),
    (
        "a number for a face",
        text(ANA_BEN, {"event": "roll", "player": "Ana", "dice": [1] * 9}),
        2,
        'die 1 of "dice" in a roll event must be a face',
    ),
    ("typo", text(ANA_BEN, {**roll("Ana", *NINE), "dcie": []}), 2, 'unknown key "dcie" in a roll event'),
    (
        "unknown event",
        text(ANA_BEN, {"event": "pass", "player": "Ana"}),
        2,
        '"event" in an event must be one of',
    ),
    (
        "blank lines count",
        text(ANA_BEN, "", roll("Ana", *NINE), "", roll("Ben", *NINE)),
        5,
        "turn has not ended",
    ),
    ("broken JSON", text(ANA_BEN, '{"event": "roll"'), 2, "not valid JSON"),
    # the header
    ("one player", text(header("Ana")), 1, "the Dice Game takes 2 to 5 players, the header lists 1"),
    ("six players", text(header(*"ABCDEF")), 1, "the Dice Game takes 2 to 5 players, the header lists 6"),
    (
        "a colour",
        text({**ANA_BEN, "players": [{"name": "Ana", "color": "red"}, {"name": "Ben"}]}),
        1,
        "the Dice Game has no colours",
    ),
    ("same name", text(header("Ana", "Ana")), 1, 'two players are called "Ana"'),
    (
        "variant",
        text(header("Ana", "Ben", variant="teams")),
        1,
        '"variant" in the header must be one of "standard"',
    ),
    (
        "unknown table",
        text(header("Ana", "Ben", faces="reading9")),
        1,
        'the header names the faces table "reading9", which the companion does not know',
    ),
    (
        "three faces",
        text(header("Ana", "Ben", faces={"cap": ["N"], "corner": ["NE"], "band": ["NS"]})),
        1,
        '"faces" must list exactly 4 city faces, not 3',
    ),
    (
        "a face of numbers",
        text(header("Ana", "Ben", faces={**READING1, "cap": [1]})),
        1,
        'the face "cap" in "faces" must be a list of segments',
    ),
    (
        "a reserved name",
        text(
            header(
                "Ana", "Ben", faces={"cap": ["N"], "corner": ["NE"], "straight": ["NS"], "knight": ["NEW"]}
            )
        ),
        1,
        '"knight" cannot name a city face',
    ),
    (
        "a capital",
        text(header("Ana", "Ben", faces={**{k: v for k, v in READING1.items() if k != "cap"}, "Cap": ["N"]})),
        1,
        'the face name "Cap"',
    ),
    (
        "a side twice",
        text(header("Ana", "Ben", faces={**READING1, "three": ["NE", "EW"]})),
        1,
        'the face "three" has the side E in two segments',
    ),
    (
        "a side called X",
        text(header("Ana", "Ben", faces={**READING1, "three": ["NX"]})),
        1,
        'the segment "NX" of the face "three"',
    ),
    ("no segment", text(header("Ana", "Ben", faces={**READING1, "three": []})), 1, "has no city segment"),
]


@pytest.mark.parametrize(("record", "line", "reason"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_bad_record_is_refused_naming_its_line(
    record: str, line: int, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(record, encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"line {line}: "), err
    assert reason in err, err
    assert err.count("\n") == 1  # only the first bad line


def test_the_contracts_examples_are_given_word_for_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cases named "contract: ..." above print exactly the contract's example line."""
    exact = {c[0]: (c[2], c[3]) for c in BAD if c[0].startswith("contract:")}
    for name, (line, reason) in exact.items():
        path = tmp_path / "bad.jsonl"
        path.write_text(next(c[1] for c in BAD if c[0] == name), encoding="utf-8")
        assert main(["replay", str(path)]) == 1
        assert capsys.readouterr().err == f"line {line}: {reason}\n"


def test_an_event_after_a_win_names_the_winning_line_as_the_contract_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The contract's own example, word for word: reach-42 (Ana wins on her last score) with 11
    blank lines after the header, which are counted, so that the win is line 63; then Ben rolls."""
    reach = Path(__file__).parent / "records" / "dicegame" / "reach-42.jsonl"
    lines = reach.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([lines[0], *[""] * 11, *lines[1:], json.dumps(roll("Ben", *NINE))]) + "\n")
    assert main(["replay", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "line 64: the game is over: Ana won at line 63; only 'end' may follow\n"
    # a hand correction may follow the win (line 64): the line named is still the win's
    fixed = {"event": "adjust", "player": "Ben", "points": 1, "reason": "a miscount"}
    events = [*lines[1:], json.dumps(fixed), json.dumps(roll("Ben", *NINE))]
    path.write_text("\n".join([lines[0], *[""] * 11, *events]) + "\n")
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr().err == "line 65: the game is over: Ana won at line 63; only 'end' may follow\n"


def test_simulate_writes_a_record_that_replays_to_the_same_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sim.jsonl"
    assert main(["simulate", "--game", "dicegame", "--players", "4", "--seed", "7", "--out", str(path)]) == 0
    said = capsys.readouterr().err
    assert said.startswith(f"wrote {path}: ")
    assert main(["replay", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["finished"] is True and len(result["scores"]) == 4
    assert result["winners"] and f"won by {result['winners'][0]}" in said
    winner = result["winners"][0]
    assert result["scores"][winner] >= 42 or result["log"][-1]["kind"] == "catapults"
    # the same seed, the same game
    again = tmp_path / "again.jsonl"
    assert main(["simulate", "--game", "dicegame", "--players", "4", "--seed", "7", "--out", str(again)]) == 0
    assert again.read_text() == path.read_text()


def test_the_quick_reading_of_well_formed_events_is_the_strict_one() -> None:
    """Replay reads plainly well-formed events the quick way: it must give exactly what reading
    key by key gives, and leave everything else (odd, or wrong) to the strict reading."""
    from companion.games.dicegame.events import _well_formed, event_to_json, parse_strictly

    objects = [
        json.loads(line) for path in RECORDS for line in path.read_text(encoding="utf-8").splitlines()[1:]
    ]
    objects += [{**roll("Ana", *NINE), "meta": {"source": "phone"}}, {**score("Ana"), "meta": {}}]
    for obj in objects:
        quick = _well_formed(obj)
        if obj["event"] != "end":
            assert quick is not None, obj
            assert event_to_json(quick) == event_to_json(parse_strictly(obj)) == obj
    odd = [
        {**roll("Ana", *NINE), "meta": None},
        {**knight("Ana"), "at": [0, 0]},
        {"event": "aside", "player": "Ana", "face": "catapult"},
        {"event": "aside", "player": "Ana", "face": "cap", "at": [True, 0], "rotation": 0},
        {"event": "aside", "player": "Ana", "face": "cap", "at": [0, 0], "rotation": 4},
        {"event": "aside", "player": "Ana", "face": "cap", "at": [0, 0]},
        {"event": "aside", "player": " ", "face": "cap", "at": [0, 0], "rotation": 0},
        {**score("Ana"), "extra": 1},
        {"event": "roll", "player": "Ana", "dice": ["cap", 3]},
    ]
    assert [_well_formed(obj) for obj in odd] == [None] * len(odd)


def test_the_manifest_names_every_kind_of_score_in_words() -> None:
    """The winner screen's breakdown says what scored in words ("cities 42"): every kind the
    engine writes has its rule, and every one of them its words, as has each kind in the logs."""
    kinds = manifest("dicegame").score_kinds
    assert set(kinds) == set(RULES)
    assert all(words and words != kind for kind, words in kinds.items())
    logged = {entry.kind for path in RECORDS for entry in replay(read_record(path)).log}
    assert logged == {"city", "knight", "catapults"} and logged <= set(kinds)
    assert manifest("dicegame").end_button  # the contract's end is a bare {"event": "end"}
