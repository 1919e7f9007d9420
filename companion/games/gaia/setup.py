"""Who plays Gaia and what lies on the table when it starts: the record header (shared/spec/gaia.md).

The game's own header keys travel as written (``Setup.options`` holds ``objectives``,
``Player.extra`` each player's starting ``hand``), so a record written back loses nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.games.base import FormatError, Player, Setup
from companion.games.fields import check_object, get_int, get_list, get_name, get_str, json_type
from companion.games.gaia.rules import (
    CARD_KINDS,
    COLOURS,
    FEWEST_PLAYERS,
    GAME,
    HAND_LIMIT,
    MOST_OBJECTIVE_CARDS,
    MOST_OBJECTIVES,
    MOST_PLAYERS,
    TERRAINS,
    VARIANTS,
)


@dataclass(frozen=True, slots=True)
class Objective:
    id: str
    cards: tuple[str, ...]  # the Nature cards it shows, repeats allowed


def parse_setup(header: Mapping[str, Any]) -> Setup:
    what = "the header"
    check_object(header, what, required=("record", "game", "players", "objectives"), optional=("variant",))
    variant = get_str(header, "variant", what, VARIANTS) if "variant" in header else VARIANTS[0]
    players = _players(header)
    objectives = get_list(header, "objectives", what)
    _objectives(objectives)
    meta = header.get("meta")
    return Setup(GAME, variant, players, meta, {"objectives": objectives})


def _players(header: Mapping[str, Any]) -> tuple[Player, ...]:
    raw = get_list(header, "players", "the header")
    if not FEWEST_PLAYERS <= len(raw) <= MOST_PLAYERS:
        raise FormatError(
            f"Gaia takes {FEWEST_PLAYERS} to {MOST_PLAYERS} players, the header lists {len(raw)}"
        )
    players: list[Player] = []
    for number, obj in enumerate(raw, start=1):
        what = f"player {number} in the header"
        check_object(obj, what, required=("name", "color", "hand"))
        name = get_name(obj, "name", what)
        color = get_str(obj, "color", what, COLOURS)
        for other in players:
            if other.name == name:
                raise FormatError(f'two players are called "{name}"; names must differ')
            if other.color == color:
                raise FormatError(f"{other.name} and {name} both play {color}; colours must differ")
        hand = obj["hand"]
        _hand(hand, name)
        players.append(Player(name, color, obj.get("meta"), {"hand": hand}))
    return tuple(players)


def _hand(hand: Any, name: str) -> None:
    what = f"the starting hand of {name}"
    check_object(hand, what, required=CARD_KINDS)
    total = sum(get_int(hand, kind, what, 0, HAND_LIMIT) for kind in CARD_KINDS)
    if total > HAND_LIMIT:
        raise FormatError(f"{name}'s starting hand holds {total} cards; a hand holds {HAND_LIMIT} at most")


def _objectives(raw: Sequence[Any]) -> None:
    if not 1 <= len(raw) <= MOST_OBJECTIVES:
        raise FormatError(f"the header lays 1 to {MOST_OBJECTIVES} objectives face up, not {len(raw)}")
    seen: set[str] = set()
    for number, obj in enumerate(raw, start=1):
        what = f"objective {number} in the header"
        check_object(obj, what, required=("id", "cards"))
        ident = get_name(obj, "id", what)
        if ident in seen:
            raise FormatError(f'two objectives have the id "{ident}"; ids must differ')
        seen.add(ident)
        cards = get_list(obj, "cards", what)
        if not 1 <= len(cards) <= MOST_OBJECTIVE_CARDS:
            raise FormatError(
                f"objective {ident} shows 1 to {MOST_OBJECTIVE_CARDS} Nature cards, not {len(cards)}"
            )
        for card in cards:
            if card not in TERRAINS:
                allowed = ", ".join(f'"{t}"' for t in TERRAINS)
                raise FormatError(
                    f"objective {ident} shows Nature cards, each one of {allowed}, not {json_type(card)}"
                )


def objectives_of(setup: Setup) -> tuple[Objective, ...]:
    """The objectives laid face up (a header already read by ``parse_setup``)."""
    return tuple(Objective(o["id"], tuple(o["cards"])) for o in setup.options["objectives"])


def starting_hand(player: Player) -> dict[str, int]:
    hand = player.extra["hand"]
    return {kind: int(hand[kind]) for kind in CARD_KINDS}


def make_setup(
    variant: str, players: Sequence[tuple[str, str, Mapping[str, int]]], objectives: Sequence[Objective]
) -> Setup:
    """A setup built in code (the simulator, tests): players as (name, colour, hand)."""
    seated = tuple(Player(name, colour, None, {"hand": dict(hand)}) for name, colour, hand in players)
    laid = [{"id": o.id, "cards": list(o.cards)} for o in objectives]
    return Setup(GAME, variant, seated, None, {"objectives": laid})
