"""How sure a gallery's reading is: the bars a match must clear, and the match itself.

``Gallery`` (gallery.py) scores a camera window against every picture; this module turns those
scores into a ``GalleryMatch``, the likeliest way of lying with its rivals' scores and the margins
by which the other ways of comparing back it, and says whether it is sure. The bars are set on
held-out games (models/starwars/gallery.md, docs/research.md) and weighed by
models/training/gallery_bars.py.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, Self, TypeVar

import numpy as np

# A match this alike, and this much more alike than any other way of lying the rules allow, is
# sure. Set on the held-out styles of the third family of art (models/starwars/gallery.md): there, no
# window read sure was wrong, where at 0.8 two of 3 845 were.
MATCH_SURE = 0.9
MATCH_MARGIN = 0.2
# Before a box is enrolled, the gallery holds only the tiles people entered, and a tile of
# another type (the same route with another badge) has no picture to lose to: its nearest
# picture wins by a wide margin. So where a way of lying the rules allow has no picture, only a
# near copy of a picture is sure. The same print seen again scores 0.96 to 0.999 (median
# 0.999); on the third family's held-out games a tile of another type reached 0.989 against a
# gallery of answers alone (models/starwars/gallery.md).
NEAR_COPY = 0.99
NEAR_COPY_MARGIN = 0.1
# Once every type has a picture (the box is whole), a looser near copy is sure: the window this
# alike to one of the tile's pictures itself, and this much above any other way's nearest
# picture. About half such readings or more are of a type a person entered earlier in the game,
# whose window the gallery then learnt. Chosen on the third family's dev games' logged readings: 24 more
# sure, none wrong (docs/research.md, "Gallery").
SEEN_COPY = 0.95
SEEN_COPY_MARGIN = 0.05
# A match is also sure when three ways of comparing agree: the likeness puts it AGREED_MARGIN
# above every other allowed way, the grey picture fits the window LAYOUT_MARGIN better than that
# of any tile of another structure (``structure``), and no close rival's colours fit better
# (colour_fit.py). The bars were chosen on the reads of 12 held-out games of the third family of
# art with the grey fit against every other tile (models/starwars/gallery.md): 334 of 765 sure so, 1
# wrong. Against other structures only (docs/research.md, "Gallery"), the dev games recorded 575
# tiles right of 911 where they recorded 519, with the same 5 wrong.
AGREED_SCORE = 0.5
AGREED_MARGIN = 0.05
LAYOUT_MARGIN = 0.03
CLOSE_RIVAL = 0.15  # of likeness: the rivals whose colours are compared
# A match that is not sure still offers the likeliest ways of lying to the person asked, so the
# phone can take the answer in one tap: of 582 box-art tiles asked about in 20 enrolled games,
# the right one was first for 474 (81 %), among the first three for 569 (98 %) (docs/research.md,
# "Gallery").
CHOICES = 3


class Lying(Hashable, Protocol):
    """A tile as it lies, as a gallery picture is labelled (equal when it lies the same way)."""

    def rotated(self, quarter_turns: int) -> Self:
        """The tile turned clockwise by quarter turns."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The label's form (a record's inline tile)."""
        ...


L = TypeVar("L", bound=Lying)


@dataclass(frozen=True)
class AgreedBars:
    """What the three ways of comparing must each reach for a match to be sure by agreeing."""

    score: float = AGREED_SCORE  # the likeness
    margin: float = AGREED_MARGIN  # the likeness above every other allowed way
    layout: float = LAYOUT_MARGIN  # the grey picture above any tile of another structure
    colour: float = 0.0  # the colours above any close rival's


SHIPPED_BARS = AgreedBars()


@dataclass(frozen=True)
class GalleryMatch(Generic[L]):
    tile: L  # the best-matching tile, as it lies in the window
    score: float  # the likeness of the window and the picture (its camera-like views), -1 to 1
    runner_up: float  # the best score of any other way of lying
    # some way of lying the rules allow has no picture in the gallery, so it could not compete
    unseen_rivals: bool = False
    # how much better the tile's grey picture fits the window than that of any tile of another
    # structure (negative when another fits best; its fit + 1 when no such tile is allowed, and
    # the grey then vouches for nothing); and its colours than any close rival's
    layout_margin: float = -1.0
    colour_margin: float = -1.0
    # the gallery holds a picture of every type of the box: until it does (before a box is
    # enrolled its pictures are camera windows of the tiles people entered), neither three ways
    # agreeing nor a near copy below NEAR_COPY is enough. Their bars were chosen with every type
    # enrolled.
    whole_box: bool = True
    # the ways of lying the rules allow, likeliest first (at most CHOICES): what to offer a
    # person when the match is not sure
    choices: tuple[L, ...] = ()
    # the likeness of the window and the tile's nearest picture itself, not its views, and of
    # the nearest picture of any other way: a near copy is judged by these
    copy_score: float = -1.0
    copy_runner_up: float = -1.0
    # every way of lying allowed, with its best score, likeliest first: what a reader that
    # weighs the neighbours' readings too (the rules' fit) chooses among
    ranked: tuple[tuple[L, float], ...] = ()

    @property
    def sure(self) -> bool:
        return self.sure_by(SHIPPED_BARS)

    def sure_by(self, bars: AgreedBars) -> bool:
        """Sure with other bars for the three ways agreeing: what models/training/gallery_bars.py weighs."""
        if self.near_copy(NEAR_COPY, NEAR_COPY_MARGIN):
            return True
        if self.unseen_rivals:
            return False
        if self.whole_box and self.near_copy(SEEN_COPY, SEEN_COPY_MARGIN):
            return True
        margin = self.score - self.runner_up
        alone = self.score >= MATCH_SURE and margin >= MATCH_MARGIN
        agreed = (
            self.whole_box
            and self.score >= bars.score
            and margin >= bars.margin
            and self.layout_margin >= bars.layout
            and self.colour_margin >= bars.colour
        )
        return alone or agreed

    def near_copy(self, score: float, margin: float) -> bool:
        """Whether the window is at least ``score`` alike to one of the tile's pictures itself,
        and ``margin`` above the nearest picture of any other way."""
        return self.copy_score >= score and self.copy_score - self.copy_runner_up >= margin


@dataclass(frozen=True)
class SecondLook(Generic[L]):
    """How some ways of lying fit a camera window by other means than the likeness: what tells
    close rivals apart when it cannot (``Gallery.second_look``)."""

    grey: dict[L, float]  # each way's grey picture's fit, at its best picture and place, -1 to 1
    colour: dict[L, float]  # and its colours' (colour_fit.py)
    # for each way after the first, how much nearer the window is to the first than to it where
    # their pictures differ, -1 to 1 (second_look.py)
    nearer: dict[L, float]


def scored_match(
    tiles: list[L],
    candidates: list[int],
    fits: list[float],
    copy_fits: list[float],
    rivals: Iterable[L],
) -> GalleryMatch[L]:
    """The match from every candidate picture's likeness to the window, of its views (``fits``)
    and of itself (``copy_fits``); ``rivals`` as ``Gallery.match`` takes them."""
    best = best_by_tile(tiles, candidates, fits)
    ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
    runner_up = ranked[1][1] if len(ranked) > 1 else -1.0
    unseen = bool(set(rivals) - set(tiles) - {ranked[0][0]})
    choices = tuple(tile for tile, _ in ranked[:CHOICES])
    copy = best_by_tile(tiles, candidates, copy_fits)
    copy_score = copy.pop(ranked[0][0])
    return GalleryMatch(
        ranked[0][0],
        ranked[0][1],
        runner_up,
        unseen,
        choices=choices,
        copy_score=copy_score,
        copy_runner_up=max(copy.values(), default=-1.0),
        ranked=tuple(ranked),
    )


def best_by_tile(tiles: list[L], candidates: list[int], fits: list[float]) -> dict[L, float]:
    """Each way of lying's best score among its pictures."""
    best: dict[L, float] = {}
    for k, score in zip(candidates, fits, strict=True):
        tile = tiles[k]
        if score > best.get(tile, -np.inf):
            best[tile] = score
    return best
