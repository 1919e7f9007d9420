"""Tray readings turned into the Dice Game's record events, or a prompt: never a guess.

``roll_events``: the dice thrown, read, become the contract's ``roll`` when the engine takes a roll
of that many dice now; any other count is a prompt in the engine's own words ("Ana has 9 dice to
roll, not 8 ..."). ``aside_events``: what left the tray since the roll, and what is new in the
city area, become ``aside`` events: a knight for each knight gone, a city die (``at``, ``rotation``)
for each die new in the city. Every event is tried on a copy of the engine in order, so an event
the rules refuse is a prompt with the rule's sentence, and nothing half-done is given.

The city's frame: north is up the tray's picture; the first die laid is at [0, 0], and later dice
are placed by matching the dice already laid (the engine's) with those the camera sees now.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass

from companion.games.base import Cell, IllegalEvent
from companion.games.dicegame import events as ev
from companion.games.dicegame.engine import DiceGame
from companion.games.dicegame.faces import CATAPULT, KNIGHT
from companion.games.dicegame.reader.tray_read import CityReading
from companion.vision.dice_reading import TrayReading

# What a prompt is about, beyond a tray reading's own statuses (dice_reading.TRAY_STATUSES):
WRONG_COUNT = "wrong-count"  # a roll of another number of dice than the engine expects
REFUSED = "refused"  # the rules refuse what was seen (a face not in the tray, a misfit)
NOT_NOW = "not-now"  # no roll, or no turn, is under way
CITY_MOVED = "city-moved"  # the dice laid before are not where they were
UNCLEAR = "unclear"  # what left the tray and what came into the city do not agree


@dataclass(frozen=True)
class Outcome:
    """Events to record, or none and a prompt: ``status`` ``ok`` or what is wrong, ``message``
    what a person should do."""

    events: tuple[ev.Event, ...] = ()
    status: str = "ok"
    message: str = ""


def _prompt(status: str, message: str) -> Outcome:
    return Outcome((), status, message)


def roll_events(game: DiceGame, throw: TrayReading) -> Outcome:
    """The roll the tray shows, for the player whose roll the engine waits for."""
    wanted = game.dice_to_roll()
    player = game.next_player()
    if wanted is None:
        return _prompt(NOT_NOW, f"no roll may come now: {player} scores or keeps a knight to end the turn")
    if throw.status != "ok":
        return _prompt(throw.status, throw.message)
    faces = throw.faces
    if faces is None:
        return _prompt("unreadable-die", "a die cannot be read surely: roll it again")
    event = ev.Rolled(player, faces)
    reason = game.check(event)
    if reason is not None:
        status = WRONG_COUNT if len(faces) != wanted else REFUSED
        return _prompt(status, f"{reason}: count the dice in the tray, then roll again")
    return Outcome((event,))


def aside_events(game: DiceGame, throw: TrayReading, city: CityReading) -> Outcome:
    """The dice set aside since the engine's last event: knights gone from the tray, city dice
    new in the city area. ``throw`` is the tray's floor now (catapults still lying there are
    not counted), ``city`` the city area now."""
    turn = game.turn
    if turn is None or turn.rolls == 0:
        return _prompt(NOT_NOW, "no turn is under way: the next roll starts one")
    for reading in (throw, city):
        if reading.status not in ("ok", "no-dice"):
            return _prompt(reading.status, reading.message)
    if throw.status == "ok" and throw.faces is None:
        return _prompt("unreadable-die", "a die in the tray cannot be read surely: turn it face up")
    placed = _placed(game, city)
    if isinstance(placed, Outcome):
        return placed
    left = Counter(face for face in (throw.faces or ()) if face != CATAPULT)
    was = Counter(turn.tray)
    gone = was - left
    if left - was:
        extra = ", ".join(sorted((left - was).elements()))
        return _prompt(
            UNCLEAR,
            f"the tray shows dice that were not in it after the roll ({extra}): "
            "take them out, or enter the roll on the phone",
        )
    laid = Counter(face for face, _, _ in placed)
    if gone - Counter({KNIGHT: gone[KNIGHT]}) != laid:
        return _prompt(
            UNCLEAR,
            "the dice gone from the tray are not the dice new in the city: "
            "lay each city die in the city area, and put knights aside out of view",
        )
    events: list[ev.Event] = [ev.SetAside(turn.player, KNIGHT) for _ in range(gone[KNIGHT])]
    events += [ev.SetAside(turn.player, face, at, rotation) for face, at, rotation in placed]
    trial = copy.deepcopy(game)
    for event in events:
        try:
            trial.apply(event)
        except IllegalEvent as error:
            return _prompt(REFUSED, f"{error.reason}: lay that die again, or enter it on the phone")
    return Outcome(tuple(events))


def _placed(game: DiceGame, city: CityReading) -> list[tuple[str, Cell, int]] | Outcome:
    """The city dice the camera sees that the engine has not laid yet, in the engine's frame,
    the dice touching the city first."""
    turn = game.turn
    assert turn is not None
    faces = game.faces

    def shape(face: str, rotation: int | None) -> tuple[int, ...]:
        return tuple(sorted(faces.turned_segments(face, rotation or 0)))

    seen = {cell: (face, rotation) for cell, (face, rotation) in city.dice.items() if faces.is_city(face)}
    if len(seen) != len(city.dice):
        return _prompt(REFUSED, "a knight or a catapult lies in the city area: only city dice are laid there")
    shifts: list[Cell] = []
    if not turn.laid:
        if seen:
            first = min(seen, key=lambda c: (c[1], c[0]))
            shifts = [(-first[0], -first[1])]
    else:
        anchor = turn.laid[0]
        for (x, y), (face, rotation) in seen.items():
            if face != anchor.face or shape(face, rotation) != shape(anchor.face, anchor.rotation):
                continue
            shift = (anchor.at[0] - x, anchor.at[1] - y)
            if all(
                (d.at[0] - shift[0], d.at[1] - shift[1]) in seen
                and seen[(d.at[0] - shift[0], d.at[1] - shift[1])][0] == d.face
                and shape(*seen[(d.at[0] - shift[0], d.at[1] - shift[1])]) == shape(d.face, d.rotation)
                for d in turn.laid
            ):
                shifts.append(shift)
    if turn.laid and not shifts:
        return _prompt(
            CITY_MOVED, "the city's dice are not as they were laid: put them back, or fix it on the phone"
        )
    options = {tuple(sorted(_new(turn.where, seen, shift))) for shift in shifts}
    if len(options) > 1:
        return _prompt(UNCLEAR, "the city can be matched more than one way: enter the new dice on the phone")
    if not options:
        return []
    return _in_laying_order(set(turn.where), list(next(iter(options))))


def _new(
    where: dict[Cell, int], seen: dict[Cell, tuple[str, int | None]], shift: Cell
) -> list[tuple[str, Cell, int]]:
    out = []
    for (x, y), (face, rotation) in seen.items():
        at = (x + shift[0], y + shift[1])
        if at not in where:
            out.append((face, at, rotation or 0))
    return out


def _in_laying_order(laid: set[Cell], new: list[tuple[str, Cell, int]]) -> list[tuple[str, Cell, int]]:
    """New dice next to the city first, then outward; a die apart comes after, top to bottom."""
    order: list[tuple[str, Cell, int]] = []
    known = set(laid)
    rest = sorted(new, key=lambda d: (d[1][1], d[1][0]))
    while rest:
        touching = [
            d
            for d in rest
            if any((d[1][0] + dx, d[1][1] + dy) in known for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)))
        ]
        pick = touching[0] if touching else rest[0]
        order.append(pick)
        known.add(pick[1])
        rest.remove(pick)
    return order
