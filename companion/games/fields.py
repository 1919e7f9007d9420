"""Strict readers for the JSON objects of a record.

Every record object may carry ``meta``; any other key that is not expected is an error, so a
typo never passes silently. Messages name the key and what was wrong with it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from companion.games.base import Cell, FormatError, Player


def check_object(obj: Any, what: str, required: Collection[str], optional: Collection[str] = ()) -> None:
    """Check that ``obj`` is an object with all ``required`` keys and no unknown one."""
    if not isinstance(obj, Mapping):
        raise FormatError(f"{what} must be a JSON object, not {json_type(obj)}")
    missing = [key for key in required if key not in obj]
    if missing:
        raise FormatError(f"{what} is missing {quote_list(missing)}")
    allowed = set(required) | set(optional) | {"meta"}
    unknown = [key for key in obj if key not in allowed]
    if unknown:
        raise FormatError(
            f"unknown key {quote_list(unknown)} in {what} (allowed: {quote_list(sorted(allowed))})"
        )
    if "meta" in obj and not isinstance(obj["meta"], Mapping):
        raise FormatError(f'"meta" in {what} must be a JSON object, not {json_type(obj["meta"])}')


def get_str(obj: Mapping[str, Any], key: str, what: str, choices: Collection[str] = ()) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise FormatError(f'"{key}" in {what} must be a string, not {json_type(value)}')
    if choices and value not in choices:
        raise FormatError(f'"{key}" in {what} must be one of {quote_list(choices)}, not "{value}"')
    return value


def get_name(obj: Mapping[str, Any], key: str, what: str) -> str:
    value = get_str(obj, key, what)
    if not value.strip():
        raise FormatError(f'"{key}" in {what} must not be empty')
    return value


def get_int(obj: Mapping[str, Any], key: str, what: str, low: int, high: int) -> int:
    value = obj[key]
    if not is_int(value):
        raise FormatError(f'"{key}" in {what} must be a whole number, not {json_type(value)}')
    if not low <= value <= high:
        raise FormatError(f'"{key}" in {what} must be {low} to {high}, not {value}')
    return int(value)


def get_cell(obj: Mapping[str, Any], key: str, what: str) -> Cell:
    value = obj[key]
    if not (isinstance(value, list) and len(value) == 2 and all(is_int(v) for v in value)):
        raise FormatError(f'"{key}" in {what} must be [x, y] with two whole numbers')
    return (int(value[0]), int(value[1]))


def get_list(obj: Mapping[str, Any], key: str, what: str) -> list[Any]:
    value = obj[key]
    if not isinstance(value, list):
        raise FormatError(f'"{key}" in {what} must be a list, not {json_type(value)}')
    return value


def is_int(value: Any) -> bool:
    # JSON true/false arrive as bool, which Python counts as int: they are not numbers here.
    return isinstance(value, int) and not isinstance(value, bool)


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f'the string "{value}"'
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def quote_list(items: Collection[str]) -> str:
    return ", ".join(f'"{item}"' for item in items)


def get_players(
    header: Mapping[str, Any], colours: Collection[str], fewest: int, most: int
) -> tuple[Player, ...]:
    """The header's players, in turn order: distinct names, distinct colours of this game."""
    raw = get_list(header, "players", "the header")
    if not fewest <= len(raw) <= most:
        raise FormatError(f"this game takes {fewest} to {most} players, the header lists {len(raw)}")
    players: list[Player] = []
    for number, obj in enumerate(raw, start=1):
        what = f"player {number} in the header"
        check_object(obj, what, required=("name", "color"))
        name = get_name(obj, "name", what)
        color = get_str(obj, "color", what, colours)
        for other in players:
            if other.name == name:
                raise FormatError(f'two players are called "{name}"; names must differ')
            if other.color == color:
                raise FormatError(f"{other.name} and {name} both play {color}; colours must differ")
        players.append(Player(name, color, obj.get("meta")))
    return tuple(players)
