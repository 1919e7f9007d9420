"""Simulated games played one after another on the simulated table: a camera and a dice source.

``companion run`` with ``[camera] source = "simulator"``, ``companion demo`` and the soak run
(benchmarks/soak.py) use it. Each game is started on the table as players would on the setup
page, played on the mat frame by frame, and ended as players would on the phone once its last
tile is down; a few frames of the finished table later, the next game starts.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from companion.cameras.base import Pace
from companion.games.base import IllegalEvent
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.sim.play import simulated_game
from companion.games.starwars.sim.table import SimDice, SimulatedTable
from companion.live.table import Table

# Frames of the finished table before the next game starts (the players look at the scores).
PAUSE_FRAMES = 10


class SimulatedGames:
    def __init__(
        self,
        table: Table,
        fps: float = 5.0,
        first_seed: int = 1,
        games: int | None = None,
        tiles: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        people: bool = False,
    ) -> None:
        """``games``: how many to play (None: without end); ``tiles``: each game stops after so
        many (None: the whole game). ``fps`` paces the frames as a camera would; 0 gives them as
        fast as they are asked for."""
        self.table = table
        self.first_seed = first_seed
        self.games = games
        self.tiles = tiles
        self.people = people  # players who play as people do (the demo), not at random
        # paced as a live camera delivers frames (0: as fast as they are asked for)
        self._pace = Pace(fps or 1.0, fps > 0, clock, sleep)
        self.dice = SimDice()  # the current game's rolls, as the trays would report them
        self.played = 0  # games played to their last tile
        self.left_unfinished = 0  # of those, games the rules would not end (see ``end_game``)

    def poll(self, engine: StarWarsGame) -> list[dict[str, Any]]:
        """The tracker's DiceSource: the rolls of the game on the mat."""
        return self.dice.poll(engine)

    def end_game(self) -> None:
        """The last tile is down: a player ends the game on the phone. No one at this table answers
        the camera's prompts, so the game on the scoreboard can have parted from the one played (a
        battle still waiting for dice, say); the rules then refuse the end, and the game is left
        unfinished, as players would leave it, for the next one to start."""
        try:
            self.table.add({"event": "end"})
        except IllegalEvent as error:
            self.left_unfinished += 1
            print(f"simulated table: game left unfinished ({error.reason})", file=sys.stderr)

    def frames(self) -> Iterator[np.ndarray]:
        seed = self.first_seed
        while self.games is None or self.played < self.games:
            truth = simulated_game(seed, tiles=self.tiles, people=self.people)
            simulated = SimulatedTable(
                truth, style=10_000 + seed % 100, camera_seed=500_000 + seed, seed=seed
            )
            self.table.start(truth.setup.to_json())
            self.dice = SimDice()
            last: np.ndarray | None = None
            for shot in simulated.frames():
                self._pace.wait(1.0)
                self.dice.queue.extend(shot.dice)
                last = shot.frame
                yield last
            self.end_game()
            self.played += 1
            for still in range(PAUSE_FRAMES if last is not None else 0):
                self._pace.wait(1.0)
                assert last is not None
                again = last.copy()
                again[0, 0, 0] ^= 1 + still % 2  # a live sensor never gives the same bytes twice
                yield again
            seed += 1
