"""What the Dice Game shows the people at the table: the moment, and each turn's city as data that
the game's page partials draw (``templates/_city.html``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from companion.games.base import Cell, Moment, PlayerMoment, ScoreChange
from companion.games.dicegame.city import LaidDie, candidate_cells, cities, fits, largest_closed
from companion.games.dicegame.drawing import segment_paths
from companion.games.dicegame.faces import KNIGHT, SIDE_BIT, FaceTable, side_letters
from companion.games.dicegame.scoring import GOAL, KNIGHTS_TO_KEEP, ROLLS, score_turn

if TYPE_CHECKING:
    from companion.games.dicegame.engine import DiceGame, Turn


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def layout_json(faces: FaceTable, laid: Sequence[LaidDie], scored: Sequence[Cell] = ()) -> dict[str, Any]:
    """A turn's city for drawing: each die with its black parts and open sides, each city with
    its size and whether it is closed, in words too, the box of cells the drawing spans and
    the cells beside it where a die may go."""
    found = cities(laid)
    open_by_die: dict[int, int] = {}
    for city in found:
        for die, side in city.open_sides:
            open_by_die[die] = open_by_die.get(die, 0) | SIDE_BIT[side]
    dice = [
        {
            "at": list(die.at),
            "face": die.face,
            "rotation": die.rotation,
            "shapes": list(segment_paths(die.segments)),
            "open": side_letters(open_by_die.get(index, 0)),
        }
        for index, die in enumerate(laid)
    ]
    listed = []
    for number, city in enumerate(found, start=1):
        gaps = len(city.open_sides)
        state = "closed" if city.closed else f"open on {_count(gaps, 'side')}"
        listed.append(
            {
                "dice": city.size,
                "closed": city.closed,
                "open": gaps,
                "cells": [list(laid[i].at) for i in city.dice],
                "words": f"City {number}: {city.size} {'die' if city.size == 1 else 'dice'}, {state}",
            }
        )
    xs = [die.at[0] for die in laid] or [0]
    ys = [die.at[1] for die in laid] or [0]
    return {
        "dice": dice,
        "cities": listed,
        "scored": [list(cell) for cell in scored],
        # the cells the dice span
        "box": {"x": min(xs), "y": min(ys), "w": max(xs) - min(xs) + 1, "h": max(ys) - min(ys) + 1},
        # the empty cells beside a die, where a die may be laid: drawn to be tapped, never the
        # whole box (dice far apart would make it millions of cells)
        "spots": [list(cell) for cell in candidate_cells({die.at: index for index, die in enumerate(laid)})],
        "words": _words(listed),
    }


def _words(listed: list[dict[str, Any]]) -> str:
    if not listed:
        return "No city laid yet."
    closed = [c for c in listed if c["closed"]]
    if not closed:
        return "No city is closed."
    best = max(closed, key=lambda c: c["dice"])
    return f"The largest closed city has {best['dice']} dice."


def moment_of(game: DiceGame) -> Moment:
    turn = game.turn
    due = None if game.finished else game.next_player()
    players = tuple(
        PlayerMoment(
            name,
            None,
            game.points[name],
            {"to 42": max(0, GOAL - game.points[name])},
            "holds a kept knight" if name in game.kept else None,
        )
        for name in game.names
    )
    return Moment(
        turn=game.turns_begun if turn is not None or game.finished else game.turns_begun + 1,
        turn_of=due,
        phase=_phase(game),
        finished=game.finished,
        winners=tuple(game.winners()),
        prompts=_prompts(game),
        players=players,
        extras=_extras(game),
    )


def _phase(game: DiceGame) -> str:
    if game.winner is not None:
        return "game over"
    if game.stopped:
        return "game stopped"
    turn = game.turn
    to_roll = game.dice_to_roll()
    if turn is None:
        return f"{game.next_player()} rolls {to_roll} dice"
    done = f"{turn.player}: roll {turn.rolls} of {ROLLS}"
    if to_roll is None:
        return f"{done}; set dice aside, then score the turn"
    return f"{done}; set dice aside, roll the {to_roll} left, or score the turn"


def _prompts(game: DiceGame) -> tuple[str, ...]:
    if game.finished:
        return ()
    turn = game.turn
    prompts = []
    if turn is None:
        due = game.next_player()
        if due in game.kept:
            prompts.append(f"{due}'s kept knight is thrown with the dice: this turn scores double")
        return tuple(prompts)
    if turn.passed:
        following = game.names[(turn.seat + 1) % len(game.names)]
        prompts.append(f"Pass the {_count(turn.passed, 'catapult')} to {following} now")
    if turn.knights >= KNIGHTS_TO_KEEP:
        prompts.append(
            f"{turn.player} has {turn.knights} knights: keep one to double the next turn, or score"
        )
    return tuple(prompts)


def _extras(game: DiceGame) -> dict[str, Any]:
    turn = game.turn
    faces = game.faces
    extras: dict[str, Any] = {
        "goal": GOAL,
        "faces": list(faces.all_faces),
        "city_faces": {
            face: list(segment_paths(faces.turned_segments(face, 0))) for face in faces.city_faces
        },
        "next_player": None if game.finished else game.next_player(),
        "dice_to_roll": game.dice_to_roll(),
        "rolls_left": ROLLS - turn.rolls if turn is not None else ROLLS,
        "kept": [name for name in game.names if name in game.kept],
        "turn": _turn_json(game, turn) if turn is not None else None,
        "last_turn": _last_turn_json(game),
    }
    return extras


def _turn_json(game: DiceGame, turn: Turn) -> dict[str, Any]:
    return {
        "player": turn.player,
        "number": turn.number,
        "rolls": turn.rolls,
        "tray": list(turn.tray),
        "knights": turn.knights,
        "catapults": turn.catapults,
        "passed": turn.passed,
        "double": turn.double,
        "city": layout_json(game.faces, turn.laid),
        "fits": _fits(game, turn),
        # what "score" would give now, for the button that ends the turn
        "score_now": score_turn(largest_closed(cities(turn.laid)), len(turn.laid), turn.double).reason,
    }


def _fits(game: DiceGame, turn: Turn) -> dict[str, dict[str, list[int]]]:
    """For each city face in the tray: the cells of the drawing where it may be laid ("x,y"),
    each with the rotations that fit there; the phone offers only those."""
    cells = candidate_cells(turn.where)
    found: dict[str, dict[str, list[int]]] = {}
    for face in dict.fromkeys(turn.tray):
        if face == KNIGHT or not game.faces.is_city(face):
            continue
        places: dict[str, list[int]] = {}
        for cell in cells:
            turns = []
            for rotation in range(4):
                sides = 0
                for segment in game.faces.turned_segments(face, rotation):
                    sides |= segment
                if fits(turn.laid, turn.where, cell, sides):
                    turns.append(rotation)
            if turns:
                places[f"{cell[0]},{cell[1]}"] = turns
        found[face] = places
    return found


def _last_turn_json(game: DiceGame) -> dict[str, Any] | None:
    last = game.last_turn
    if last is None:
        return None
    change: ScoreChange | None = next(
        (c for c in reversed(game.log) if c.turn == last.number and c.kind != "adjust"), None
    )
    return {
        "player": last.player,
        "number": last.number,
        "points": change.points if change else 0,
        "reason": change.reason if change else "",
        "city": layout_json(game.faces, last.laid, change.cells if change else ()),
    }
