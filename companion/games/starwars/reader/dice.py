"""Battle dice from the trays: what a battle waits for asked of the trays, their rolls as events."""

from __future__ import annotations

from typing import Any

import numpy as np

from companion.games.starwars.engine import StarWarsGame
from companion.table.trays import DiceRequest, DiceTrays, TrayRoll, Want


def battle_request(engine: StarWarsGame) -> DiceRequest:
    """The rolls the battle under way waits for (none when no battle waits)."""
    colours = {player.name: player.color for player in engine.players}
    battle = engine.pending_battle()
    if battle is None:
        return DiceRequest(colours=colours)
    group = (battle.turn, battle.domain.key)
    wants = tuple(
        Want(group, battle.round, f.key, f.label, battle.dice[f.key], f.players) for f in battle.waiting_for()
    )
    return DiceRequest(wants, f"battle for the {battle.domain.label}, round {battle.round}", colours)


def roll_event(roll: TrayRoll) -> dict[str, Any]:
    """A tray's roll as the record's roll event: pips as numbers."""
    return {
        "event": "roll",
        "player": roll.roller,
        "dice": [int(face) for face in roll.faces],
        "meta": {"source": "tray", "tray": roll.tray, "confidence": roll.confidence},
    }


class BattleTrays:
    """The trays as the tracker's ``DiceSource``: ``poll(engine)`` gives the rolls read since the
    last poll, as roll events. The picture each player's roll in the battle under way was read
    from is kept, for the battle's evidence; none is kept once no battle waits (a later battle
    entered by hand must not show an old battle's dice)."""

    def __init__(self, trays: DiceTrays) -> None:
        self.trays = trays
        self.pictures: dict[str, np.ndarray] = {}  # by the player who rolled

    def poll(self, engine: StarWarsGame) -> list[dict[str, Any]]:
        request = battle_request(engine)
        if not request.wants:
            self.pictures.clear()
        rolls = self.trays.poll(request)
        for roll in rolls:
            if roll.picture is not None:
                self.pictures[roll.roller] = roll.picture
        return [roll_event(roll) for roll in rolls]

    def take_picture(self, player: str) -> np.ndarray | None:
        """The tray's picture of the player's roll, once: a picture shown is not shown again."""
        return self.pictures.pop(player, None)
