"""Game records (shared/spec/records.md): JSON Lines, the header on line 1, then one event a line.

Reading refuses every bad line with its number and a plain reason (``BadRecord``); writing gives
back a record that reads as the same game.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.games.base import RECORD_VERSION, FormatError, Game, IllegalEvent, RecordError, Setup
from companion.games.fields import is_int, json_type
from companion.games.registry import game_class

JSON_WHITESPACE = " \t\r"  # what JSON counts as white space (a line has no \n); nothing else is blank


class BadRecord(Exception):
    """A record that cannot be accepted, with the line that shows it (None: the whole file)."""

    def __init__(self, line: int | None, reason: str) -> None:
        super().__init__(f"line {line}: {reason}" if line is not None else reason)
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class Record:
    game: type[Game]
    setup: Setup
    events: tuple[tuple[int, Any], ...]  # (line number, event) in the order they happened


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f'the key "{key}" appears twice in one object')
        obj[key] = value
    return obj


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    # 1e999 is valid JSON but no float holds it: read as infinity, it would be written back as
    # Infinity, which is not JSON, and the record could not be read again
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} is too large a number to keep")
    return number


# Made once: json.loads with these hooks makes a new decoder for every line it reads.
_STRICT = json.JSONDecoder(
    object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants, parse_float=_finite
)


def parse_json_text(text: str) -> Any:
    """One JSON value read strictly: no duplicate keys, no NaN, no lone surrogates; ValueError."""
    try:
        value = _STRICT.decode(text)
    except json.JSONDecodeError as error:
        what = "more after the first JSON value" if error.msg == "Extra data" else error.msg
        where = f"line {error.lineno}, column {error.colno}" if error.lineno > 1 else f"column {error.colno}"
        raise ValueError(f"not valid JSON: {what} ({where})") from None
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    except ValueError as error:
        if "digits" in str(error):  # Python refuses integers of thousands of digits
            raise ValueError("holds a number too long to read") from None
        raise
    if "\\u" in text:  # only a \u escape can make half a character (a lone surrogate)
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("holds a \\u escape that is half of a character (a lone surrogate)") from None
    return value


def _lines(data: bytes) -> Iterable[tuple[int, str]]:
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]  # a byte-order mark some editors write; harmless
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise BadRecord(number, f"not UTF-8 text (byte {error.start + 1} of the line)") from None
        if text.strip(JSON_WHITESPACE):
            yield number, text


def parse_record(data: bytes | str) -> Record:
    """Read a whole record, refusing the first line that breaks the format (the rules are not
    checked: ``play_record`` does both, line by line)."""
    return _read(data, play=False)[0]


def play_record(data: bytes | str) -> tuple[Record, Game, list[int]]:
    """Read a record and play it through its engine line by line, refusing the first bad line,
    whether it breaks the format or a rule; also, for each entry of the game's log, the line
    that caused it."""
    record, played = _read(data, play=True)
    assert played is not None
    return record, played[0], played[1]


def _read(data: bytes | str, play: bool) -> tuple[Record, tuple[Game, list[int]] | None]:
    if isinstance(data, str):
        data = data.encode("utf-8")
    lines = iter(_lines(data))
    first = next(lines, None)
    if first is None:
        raise BadRecord(1, "the record is empty: line 1 must be the header")
    header_line, header_text = first
    try:
        game, setup = parse_header(parse_json_text(header_text))
    except (ValueError, RecordError) as error:
        raise BadRecord(header_line, _reason(error)) from None

    engine = game(setup) if play else None
    origins: list[int] = []
    events = []
    for number, text in lines:
        try:
            obj = parse_json_text(text)
            if isinstance(obj, dict) and "record" in obj and "event" not in obj:
                raise ValueError("a second header: only line 1 is the header")
            event = game.parse_event(obj)
            if engine is not None:
                engine.line = number
                origins += [number] * len(engine.apply(event))
        except (ValueError, RecordError) as error:
            raise BadRecord(number, _reason(error)) from None
        events.append((number, event))
    record = Record(game, setup, tuple(events))
    return record, (engine, origins) if engine is not None else None


def _reason(error: Exception) -> str:
    return error.reason if isinstance(error, RecordError) else str(error)


def parse_header(header: Any) -> tuple[type[Game], Setup]:
    """The engine and setup a record header names; raises FormatError with the reason."""
    if isinstance(header, dict) and "event" in header and "record" not in header:
        raise FormatError('line 1 must be the header ({"record": 1, "game": ...}), not an event')
    if not isinstance(header, dict):
        raise FormatError(f"line 1 must be the header, a JSON object, not {json_type(header)}")
    for key in ("record", "game"):
        if key not in header:
            raise FormatError(f'the header is missing "{key}"')
    version = header["record"]
    if not is_int(version) or version != RECORD_VERSION:
        raise FormatError(f'"record" must be {RECORD_VERSION} (the format version), not {json_type(version)}')
    name = header["game"]
    if not isinstance(name, str):
        raise FormatError(f'"game" must be a string, not {json_type(name)}')
    game = game_class(name)
    return game, game.parse_setup(header)


def read_bytes(path: str | Path) -> bytes:
    """A record file's bytes; an unreadable file is a ``BadRecord`` of the whole file."""
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise BadRecord(None, f"cannot read {path}: {error.strerror or error}") from None


def read_record(path: str | Path) -> Record:
    return parse_record(read_bytes(path))


def replay(record: Record, upto: int | None = None) -> Game:
    """Play a record's events through its engine; a rule broken names its line."""
    return replay_lines(record, upto)[0]


def replay_lines(record: Record, upto: int | None = None) -> tuple[Game, list[int]]:
    """``replay``, and for each entry of the game's log the record line that caused it."""
    game = record.game(record.setup)
    lines: list[int] = []
    events = record.events if upto is None else record.events[:upto]
    for number, event in events:
        try:
            game.line = number
            changes = game.apply(event)
        except IllegalEvent as error:
            raise BadRecord(number, error.reason) from None
        lines += [number] * len(changes)
    return game, lines


def dump_record(game: type[Game], setup: Setup, events: Sequence[Any]) -> str:
    """The record text of a game: the header, then one event a line."""
    # allow_nan=False: a record is JSON, which has no NaN or Infinity (none can be read in)
    lines = [json.dumps(setup.to_json(), ensure_ascii=False, allow_nan=False)]
    lines.extend(json.dumps(game.event_to_json(e), ensure_ascii=False, allow_nan=False) for e in events)
    return "\n".join(lines) + "\n"
