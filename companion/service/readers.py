"""Every game's table reader, as the service uses them: loaded once, one reader made per game.

A game without a reader of its own is played on the phone alone: its reader says so and adds
nothing. Between games the camera is lent to the first game (in the registry's order) that reads
something then (Star Wars enrols a box); the simulated table (``[camera] source = "simulator"``)
is the first game's that can simulate one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from companion.games.base import ScoreChange
from companion.games.registry import manifest, manifests
from companion.live.evidence import Picture
from companion.live.table import Table
from companion.table.links import GameLink
from companion.table.reader import IdleReader, ReaderKit, ReaderMaker, ReaderPrompt, TableReader


class NoReader:
    """The reader of a game the camera does not read: every event is entered on the phone."""

    def __init__(self, title: str | None) -> None:
        self._status = (
            None if title is None else f"the camera does not read {title} yet: enter each event on the phone"
        )

    @property
    def status(self) -> str | None:
        return self._status

    def step(self, frame: np.ndarray | None) -> list[dict[str, Any]]:
        return []

    def prompts(self) -> list[ReaderPrompt]:
        return []

    def asks(self) -> list[dict[str, Any]]:
        return []

    def view(self, fresh: bool) -> bytes | None:
        return None

    def pictures(self, changes: Sequence[ScoreChange]) -> list[Picture]:
        return []


class Readers:
    def __init__(self, makers: dict[str, ReaderMaker]) -> None:
        self.makers = makers  # by game name, in the registry's order

    @classmethod
    def load(cls) -> Readers:
        """The reader maker of every game that has one, each checked (a missing model stops the
        start here, with what to do)."""
        makers: dict[str, ReaderMaker] = {}
        for game in manifests():
            if game.reader is not None:
                maker = game.reader()
                maker.check()
                makers[game.name] = maker
        return cls(makers)

    def start(self, kit: ReaderKit) -> None:
        for maker in self.makers.values():
            maker.start(kit)

    def build(self, link: GameLink) -> TableReader:
        """A reader for the game under way (or for no game yet)."""
        engine = link.engine()
        name = engine.setup.game if engine is not None else next(iter(self.makers), None)
        maker = self.makers.get(name) if name is not None else None
        if maker is not None:
            return maker.reader(link)
        return NoReader(manifest(name).title if name is not None and engine is not None else None)

    def idle(self) -> IdleReader | None:
        for maker in self.makers.values():
            idle = maker.idle()
            if idle is not None:
                return idle
        return None

    def attachments(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for maker in self.makers.values():
            found.update(maker.attachments())
        return found

    def simulated_frames(
        self, table: Table, fps: float, first_seed: int, games: int | None
    ) -> Iterator[np.ndarray]:
        for maker in self.makers.values():
            frames = maker.simulated_frames(table, fps, first_seed, games)
            if frames is not None:
                return frames
        raise RuntimeError("no game here can simulate a table")
