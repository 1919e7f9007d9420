"""What the core knows of Carcassonne: The Castle, without importing its engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.games.manifest import Manifest, SimulatorKit

if TYPE_CHECKING:
    from companion.games.base import Game


def _engine() -> type[Game]:
    from companion.games.castle.engine import CastleGame

    return CastleGame


def _simulator() -> SimulatorKit:
    from companion.games.castle.sim import simulator_kit

    return simulator_kit()


MANIFEST = Manifest(
    name="castle",
    title="Carcassonne: The Castle",
    players=(2, 2),
    # the colours are not public (castle.md): any word goes; these two are offered
    colours=("yellow", "blue"),
    colour_rule="free",
    variants=("standard", "last-landing"),
    events=("tile", "meeple", "order", "take", "use", "adjust", "end"),
    package="companion.games.castle",
    engine=_engine,
    simulator=_simulator,
    score_kinds={
        "path": "paths",
        "tower": "towers",
        "house": "houses",
        "courtyard": "courtyards",
        "keep": "the keep",
        "wall": "wall tiles",
        "adjust": "corrected by hand",
    },
    # the phone's setup writes "board": "standard" unless a board is pasted (templates/setup.html)
    setup_defaults={"board": "standard"},
)
