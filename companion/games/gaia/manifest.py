"""What the core knows of Gaia, without importing its engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.games.manifest import Manifest, SimulatorKit

if TYPE_CHECKING:
    from companion.games.base import Game


def _engine() -> type[Game]:
    from companion.games.gaia.engine import GaiaGame

    return GaiaGame


def _simulator() -> SimulatorKit:
    from companion.games.gaia.sim import simulator_kit

    return simulator_kit()


MANIFEST = Manifest(
    name="gaia",
    title="Gaia",
    players=(2, 5),
    colours=("yellow", "blue", "white", "green", "red"),
    colour_rule="fixed",
    variants=("basic", "advanced"),
    events=("draw", "discard", "tile", "animals", "city", "feed", "pawn", "objective", "end", "adjust"),
    package="companion.games.gaia",
    engine=_engine,
    won_by="the first to place all their pawns wins; when a deck runs out, most pawns placed wins",
    score_word="pawns placed",
    simulator=_simulator,
    # the log's kinds in words, for the winner screen's breakdown of pawns placed (a removed city
    # belongs to no one; a meal and the end change no score, and are named all the same)
    score_kinds={
        "city": "pawns on cities laid",
        "pawn": "pawns on cities raised",
        "objective": "objectives",
        "return": "pawns sent home",
        "removed": "cities removed",
        "eaten": "animals eaten",
        "end": "the end",
        "adjust": "corrected by hand",
    },
    # its "end" names who wanted a card and which deck ran out: the fix page enters it
    end_button=False,
    log_lines=True,
    # the objectives laid face up, as the phone's setup form starts them (players change them)
    setup_defaults={
        "objectives": [
            {"id": "O1", "cards": ["plains", "forest", "mountain", "swamp"]},
            {"id": "O2", "cards": ["desert", "desert", "sea", "sea"]},
        ]
    },
)
