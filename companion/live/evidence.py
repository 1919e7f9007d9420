"""Evidence: the camera's pictures of a moment, kept with the game so that any score can be
opened with the picture of what was counted.

A game's table reader makes the pictures (``EvidenceSource``: it knows where each cell lies in
the camera's view, and the trays' pictures of a battle's dice); the keeper stores them beside the
game, within a budget, and says so in words when it cannot. A picture that cannot be kept never
costs an event: the event is recorded without it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from companion.games.base import ScoreChange
from companion.store import GameStore

MIB = 1024 * 1024
# one game's pictures at most; a whole Star Wars game keeps about 1.3 MiB (benchmarks/README.md)
GAME_BUDGET = 20_000_000
# Pictures stop while less than this is free, so that the journal can always be written: an
# event without its picture is still an event, a journal that cannot be written loses one.
RESERVE = 64 * MIB


@dataclass(frozen=True)
class Picture:
    """One picture of a moment: a JPEG, and which of the event's score changes it shows (its
    index among them; None: the table as the event was seen)."""

    jpeg: bytes
    score: int | None = None


class EvidenceSource(Protocol):
    def pictures(self, changes: Sequence[ScoreChange]) -> list[Picture]:
        """The camera's pictures of what ``changes`` counted (none: of the table now)."""
        ...


@dataclass
class Kept:
    paths: list[str]  # relative to the state directory, served at /evidence/...
    scores: list[int | None]  # for each path, the score change it shows

    def to_meta(self) -> dict[str, Any]:
        return {"evidence": self.paths, "evidence_of": self.scores} if self.paths else {}


class EvidenceKeeper:
    def __init__(
        self,
        store: GameStore,
        budget: int = GAME_BUDGET,
        reserve: int = RESERVE,
        free: Callable[[Path], int] | None = None,
    ) -> None:
        self.store = store
        self.budget = budget
        self.reserve = reserve
        self._free = free or (lambda path: shutil.disk_usage(path).free)
        self.problem: str | None = None  # why pictures are not being kept, for the scoreboard

    def keep(self, game_id: int, pictures: Sequence[Picture]) -> Kept:
        kept = Kept([], [])
        if not pictures:
            return kept
        try:
            free = self._free(self.store.state_dir)
        except OSError:
            free = 0
        needed = sum(len(p.jpeg) for p in pictures)
        if free - needed < self.reserve:
            self.problem = (
                f"the disk is nearly full ({free // MIB} MiB free): the camera's pictures are no "
                "longer kept, so that every event still is; free some space"
            )
            return kept
        if self.used(game_id) + needed > self.budget:
            self.problem = (
                f"this game's pictures reached {self.budget / 1e6:.0f} MB: later scores are kept without them"
            )
            return kept
        for picture in pictures:
            try:
                path = self.store.save_evidence(game_id, picture.jpeg, ".jpg")
            except OSError as error:
                self.problem = (
                    f"a picture could not be kept ({error.strerror or error}): events are kept without"
                )
                return kept
            kept.paths.append(path)
            kept.scores.append(picture.score)
        self.problem = None
        return kept

    def used(self, game_id: int) -> int:
        """Bytes of pictures this game keeps now."""
        return self.store.evidence_bytes(game_id)
