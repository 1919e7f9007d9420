"""The table reader: how a game turns what the camera and the trays see into events and prompts.

Each game that can be read brings a ``ReaderMaker`` (its manifest's ``reader``): made once when
the companion starts (its models loaded), it makes a ``TableReader`` for every game started, fed
the camera's frames and polled for the trays. The service loop, the links and the trays speak
only to these; what a frame means is the game's own business.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from companion.games.base import ScoreChange
from companion.live.evidence import Picture
from companion.table.links import GameLink
from companion.table.trays import DiceTrays

if TYPE_CHECKING:
    from companion.live.table import Table


class ReaderPrompt(Protocol):
    """Something the reader asks the people at the table to do or to answer."""

    @property
    def code(self) -> str:
        """What kind of question: "unsure-tile", "two-tiles"."""
        ...

    @property
    def message(self) -> str:
        """For the people at the table."""
        ...

    def to_json(self) -> dict[str, Any]:
        """``code``, ``message``, and what a phone needs to answer it (cells, choices)."""
        ...


class TableReader(Protocol):
    """One game's reading of the table, made afresh for each game."""

    @property
    def status(self) -> str | None:
        """What the camera says now ("hold still", "no mat in view"), or None."""
        ...

    def step(self, frame: np.ndarray | None) -> list[dict[str, Any]]:
        """One turn of the table's loop: a camera frame (None: no new frame, only the trays and
        other sources are polled); returns the record events added."""
        ...

    def prompts(self) -> Sequence[ReaderPrompt]:
        """What the reader waits for a person to do or answer, now."""
        ...

    def asks(self) -> list[dict[str, Any]]:
        """The questions a phone can answer in a tap (the fix page's), as JSON."""
        ...

    def view(self, fresh: bool) -> bytes | None:
        """The camera's view with the readings drawn on it (a JPEG), when a new one is ready
        (None otherwise); ``fresh`` is False while the camera reports a problem."""
        ...

    def pictures(self, changes: Sequence[ScoreChange]) -> list[Picture]:
        """The evidence of a moment (``companion.live.evidence``): the camera's pictures of what
        ``changes`` counted; with none, of the table as it is."""
        ...


class IdleReader(Protocol):
    """What reads the camera between games (enrolling a box laid out on the mat)."""

    def game_started_or_ended(self, in_play: bool) -> None: ...

    def step(self, frame: np.ndarray) -> None: ...


@dataclass
class ReaderKit:
    """What the service gives a game's reader maker."""

    state_dir: Path | None = None  # where the game keeps what it learns (a gallery of tiles)
    fps: float = 5.0
    trays: DiceTrays | None = None  # the dice trays, when the table has them


class ReaderMaker(Protocol):
    """A game's readers, made once at start-up (its models loaded)."""

    def check(self) -> None:
        """Raise ``UserError`` saying what is missing (a model file) and what to do."""
        ...

    def start(self, kit: ReaderKit) -> None:
        """Load what every reader of the game shares (models, galleries); called once."""
        ...

    def reader(self, link: GameLink) -> TableReader:
        """A reader for a game just started (or resumed)."""
        ...

    def idle(self) -> IdleReader | None:
        """What reads the camera while no game is under way, if anything."""
        ...

    def attachments(self) -> dict[str, Any]:
        """What the game's own pages need from the running table (its enrolment), by name; the
        web layer keeps them for those pages (``WebContext.attachments``)."""
        ...

    def box_frames(self, style: int) -> Iterator[np.ndarray] | None:
        """Frames of a simulated box laid out on the mat for the idle reader (``demo --enrol``),
        until it has seen them; None if the game enrols nothing."""
        ...

    def simulated_frames(
        self, table: Table, fps: float, first_seed: int, games: int | None
    ) -> Iterator[np.ndarray] | None:
        """Frames of simulated games played on a simulated table into ``table`` (the demo); their
        dice are the simulated table's unless the table has trays. None: the game simulates none."""
        ...
