"""One camera step: a frame goes through the watcher, what it saw through the tracker."""

from __future__ import annotations

from typing import Any

import numpy as np

from companion.games.starwars.reader.tracker import Tracker
from companion.vision.watcher import Observation, Watcher


class CameraLoop:
    def __init__(self, watcher: Watcher, tracker: Tracker) -> None:
        self.watcher = watcher
        self.tracker = tracker
        self.last: Observation | None = None  # the last settled observation, for the scoreboard's view

    def step(self, frame: np.ndarray) -> list[dict[str, Any]]:
        """Feed one frame; returns the events it led to (most frames lead to none)."""
        added: list[dict[str, Any]] = []
        observation = self.watcher.feed(frame)
        if observation is not None:
            added += self.settled(observation)
        added += self.tracker.poll_dice()
        return added

    def settled(self, observation: Observation) -> list[dict[str, Any]]:
        """What a settled frame showed, then a second look at the cells where the player of the
        turn may place a meeple now: a small dark meeple may change too few pixels for the
        watcher to re-read its cell by itself."""
        if observation.problem is None:
            self.last = observation
        added = self.tracker.observe(observation)
        if observation.problem is not None:
            return added
        self._keep_bare_looks(observation)
        again = self.tracker.cells_to_recheck({r.cell for r in observation.readings})
        if again:
            readings = self.watcher.reread(again)
            again_seen = Observation(
                readings, observation.view, observation.lattice, message=observation.message
            )
            more = self.tracker.observe(again_seen)
            self._keep_bare_looks(again_seen)
            added += more
        return added

    def _keep_bare_looks(self, observation: Observation) -> None:
        """A tile the record holds with no meeple on it shows its bare look, the one the meeple
        model compares later looks with. It is kept the first time such a tile is seen, which
        for a tile the camera records is the settle that laid it, before any meeple: the cell
        model's own reading of a meeple-free tile is not needed, and on art it was not trained
        on it seldom comes."""
        engine = self.tracker.link.engine()
        if engine is None:
            return
        with_meeples = {meeple.cell for meeple in engine.meeples_on_board()}
        looks = self.watcher.bare.looks
        for reading in observation.readings:
            cell = reading.cell
            if cell in engine.board.tiles and cell not in with_meeples and cell not in looks:
                self.watcher.bare.keep_bare(reading)
