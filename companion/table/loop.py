"""One camera step: a frame goes through the watcher, what it saw through the tracker."""

from __future__ import annotations

from typing import Any

import numpy as np

from companion.table.tracker import Tracker
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
            if observation.problem is None:
                self.last = observation
            added += self.tracker.observe(observation)
        added += self.tracker.poll_dice()
        return added
