"""What the tracker learns at the table about the user's own tiles.

It keeps the window of each new tile the camera read, until a person says what lies there (by
answering a prompt) or changes what the camera recorded; that window then goes into the
gallery with the person's tile. It also holds the art trust (art_trust.py) of the
game under way. A new game forgets both; the gallery stays.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from companion.games.base import Cell
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.phase import Phase
from companion.games.starwars.reader.art_trust import ArtTrust
from companion.games.starwars.reader.box_read import SHIPPED as BOX_BARS
from companion.games.starwars.reader.box_read import tile_type
from companion.games.starwars.tiles import Tile
from companion.vision.gallery import Gallery
from companion.vision.gallery_match import GalleryMatch
from companion.vision.lattice import looks_printed
from companion.vision.tile_window import same_sight

# A tile's window this alike to the one the camera read it from still shows that tile, whatever
# the cell model says: on a box it never saw, the model takes many tiles for bare felt. In the
# box art, the same tile seen again, nudged or with a meeple on it, scores above 0.95; bare felt
# about 0; another tile laid there instead at most 0.45 (tests/test_gallery.py).
STILL_THERE = 0.6

# A reading of an enrolled box the gallery's own bars leave unsure is recorded by the box's bars
# only when the colours do not favour a close rival: in drawn box art, the likeness alone at
# those bars took a badge for another (5 of 89 such readings wrong, each with the colours
# against it); with the colours agreeing, 0 of 67 (models/starwars/gallery.md).
COLOURS_AGREE = 0.0


@dataclass
class Learnable:
    """A new tile's window, kept until a person says what lies there, or changes it."""

    window: np.ndarray
    recorded: Tile | None  # the tile recorded at the cell; None while asked about
    guessed: Tile | None  # the cell model's likeliest reading, if it was likely
    name: str | None = None  # its picture in the gallery, once learnt


class TileLearning:
    def __init__(self, gallery: Gallery[Tile], start_tile: Tile) -> None:
        self.gallery = gallery
        self._start_tile = start_tile
        self.start_ways = frozenset(start_tile.rotated(q) for q in range(4))  # how it may lie
        # every way a tile of the demo's box (the shipped catalog) may lie: what may compete for
        # a cell until the user's own box is enrolled
        self._catalog_ways = {entry.tile.rotated(q) for entry in load_catalog().tiles for q in range(4)}
        self.art = ArtTrust(start_tile)
        self.pending: dict[Cell, Learnable] = {}
        # the gallery's last reading of each cell this game that it decided (not a second opinion
        # on the cell model's): what an evaluation weighs its bars by (models/training/gallery_bars.py)
        self.reads: dict[Cell, GalleryMatch[Tile]] = {}
        self.problem: str | None = None  # why a picture could not be kept, if one could not
        # how many tiles of each type the box holds, where the user said (box_counts.py): a type
        # all of whose tiles lie on the board is no longer read for a new tile
        self.counts: Mapping[Tile, int] | None = None

    def keep(
        self, cell: Cell, window: np.ndarray | None, recorded: Tile | None, guessed: Tile | None
    ) -> None:
        if window is not None:
            self.pending[cell] = Learnable(window, recorded, guessed)

    def still_there(self, cell: Cell, window: np.ndarray | None, recorded: Tile | None = None) -> bool:
        """Whether ``window`` still shows the tile the camera read at ``cell``: then it has not
        gone, though a model that does not know the art reads felt. Against an enrolled box,
        whose art the cell model may never have seen, a tile square of printed texture (felt
        has none) also still holds a tile, and so does one as like the ``recorded`` tile's
        picture as the box's pictures are like any tile (a field of plain grass has little
        texture, and its green is near the felt's)."""
        if window is None:
            return False
        kept = self.pending.get(cell)
        if kept is not None and same_sight(kept.window, window) >= STILL_THERE:
            return True
        if not self.gallery.enrolled():
            return False
        if looks_printed(window):
            return True
        if recorded is None:
            return False
        match = self.gallery.match(window, allowed=lambda lying: lying == recorded, second_opinions=False)
        return match is not None and match.score >= BOX_BARS.not_a_tile

    def forget(self, cell: Cell) -> None:
        """The window kept for ``cell`` no longer shows what will lie there."""
        self.pending.pop(cell, None)
        self.reads.pop(cell, None)

    def learn(self, engine: StarWarsGame) -> None:
        """Add to the gallery every tile a person entered after the camera asked about it, or
        changed after the camera recorded it: the same print is then read, not asked about or
        misread, again. A tile changed again replaces its picture."""
        if not engine.board.tiles and (self.pending or self.reads or self.art.familiar is not None):
            self.pending.clear()  # a new game, perhaps of another box
            self.reads.clear()
            self.art = ArtTrust(self._start_tile)
        for cell, seen in self.pending.items():
            tile = engine.board.tiles.get(cell)
            if tile is None or tile == seen.recorded:
                continue
            if seen.recorded is None:
                self.art.answered(seen.guessed, tile)
            seen.recorded = tile
            try:
                seen.name = self.gallery.add_window(seen.window, tile, seen.name)
            except (OSError, ValueError) as error:  # the game goes on; the picture is not kept
                self.problem = f"the gallery could not keep a picture: {error}"

    def read(
        self, engine: StarWarsGame, cell: Cell, window: np.ndarray | None, second_opinion: bool = False
    ) -> GalleryMatch[Tile] | None:
        """The gallery's reading of a new tile, among the ways it may lie there by the rules;
        ``second_opinion`` when the cell model decides and the gallery only checks it."""
        if window is None or not len(self.gallery):
            return None
        if engine.phase is Phase.START:  # the start tile is known; only how it lies is read

            def allowed(tile: Tile) -> bool:
                return tile in self.start_ways
        else:
            used_up = self._used_up(engine)

            def allowed(tile: Tile) -> bool:
                return engine.board.fit_error(cell, tile) is None and tile_type(tile) not in used_up

        # every way of the box the rules allow competes. An enrolled box is the catalog: its
        # pictures are its types, so it is whole. Before one is, the demo's catalog is the box,
        # and a way of it without a picture makes the match need a near copy
        ways = self.gallery.ways() if self.gallery.enrolled() else self._catalog_ways
        match = self.gallery.match(window, allowed, rivals=[way for way in ways if allowed(way)])
        if match is not None and not ways <= self.gallery.ways():
            match = replace(match, whole_box=False)
        if match is not None and not second_opinion:
            self.reads[cell] = match
        return match

    def _used_up(self, engine: StarWarsGame) -> set[Tile]:
        """The types of the box (``counts``) every tile of which already lies on the board."""
        if not self.counts:
            return set()
        laid: dict[Tile, int] = {}
        for tile in engine.board.tiles.values():
            kind = tile_type(tile)
            laid[kind] = laid.get(kind, 0) + 1
        return {kind for kind, count in self.counts.items() if laid.get(kind, 0) >= count}

    def sure(self, match: GalleryMatch[Tile]) -> bool:
        """Whether a gallery reading may be recorded: by the gallery's own bars, or, against an
        enrolled box, by the bars `board read` holds a box reading to (box_read.SHIPPED), the
        rules having narrowed the ways to those that fit the board, with the colours not
        favouring a close rival (COLOURS_AGREE)."""
        if match.sure:
            return True
        if not self.gallery.enrolled() or not match.whole_box:
            return False
        return (
            BOX_BARS.sure(match.score, match.score - match.runner_up) and match.colour_margin >= COLOURS_AGREE
        )

    @property
    def message(self) -> str | None:
        notes = [note for note in (self.art.message, self.problem) if note]
        return "; ".join(notes) or None
