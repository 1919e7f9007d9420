"""Where a Star Wars turn stands: what the engine waits for next."""

from __future__ import annotations

import enum


class Phase(enum.Enum):
    START = "start"  # waiting for the start tile
    TILE = "tile"  # waiting for the next player's tile
    MEEPLE = "meeple"  # a tile is down; its player may add a meeple
    BATTLE = "battle"  # dice are awaited
    OVER = "over"  # final scoring is done
