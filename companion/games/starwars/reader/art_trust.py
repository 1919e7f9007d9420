"""Whether the cell model knows the art of the tiles on this table.

A model trained on one art can be sure, and wrong, about another: on a box it never saw it
recorded 2.4 % of tiles wrong while asking about most of the rest (docs/vision.md). No single
reading shows it (neither the model's confidence nor its embedding does), but a whole table
does: the start tile is known, and on familiar art nearly every new tile is read sure and
legal. Until the art has shown itself familiar, and once it has shown itself not to be, the
tracker records no tile from the cell model alone; the user's own gallery still reads tiles.
"""

from __future__ import annotations

from collections import deque

from companion.games.starwars.tiles import Tile

RECENT = 8  # new tiles looked back over
ASKED_LIMIT = 3  # of those, this many asked about shows the art is not the model's


class ArtTrust:
    def __init__(self, start_tile: Tile) -> None:
        self.familiar: bool | None = None  # None: not yet known
        self._start = {lying for _, lying in start_tile.distinct_rotations()}
        self._recent: deque[bool] = deque(maxlen=RECENT)  # True: that new tile was asked about

    def start_read(self, best: Tile | None, sure: bool) -> None:
        """The camera's first reading of the start tile, whose print every box shares."""
        if self.familiar is None:
            self.familiar = sure and best in self._start

    def answered(self, guessed: Tile | None, entered: Tile) -> None:
        """A person entered a tile the model was not trusted to record: if the model's likeliest
        reading was that tile, the art is the model's."""
        if self.familiar is None:
            self.familiar = guessed == entered

    def new_tile(self, asked: bool) -> None:
        """How a new tile went while the art was trusted: recorded, or asked about."""
        if not self.familiar:
            return
        self._recent.append(asked)
        if sum(self._recent) >= ASKED_LIMIT:
            self.familiar = False

    @property
    def unfamiliar(self) -> bool:
        """Whether the table has shown its art is not the model's (not merely not yet known)."""
        return self.familiar is False

    @property
    def message(self) -> str | None:
        if self.unfamiliar:
            return (
                "these tiles do not look like the ones the companion was trained on: enter each "
                "new tile on the phone and it learns them, or enrol the box (companion enroll)"
            )
        return None
