"""Tiles as data: features of a kind touching parts of the sides, counted attributes, rotation.

A configuration subclasses ``Tile`` and sets ``rules`` (its ``TileRules``); its features may be
the core's ``Feature`` or the game's own class, as long as it reads as a ``PartFeature``. A tile
is written as it lies; its features are kept in a canonical order, so equal tiles compare equal
and a feature's index on a tile is stable (the board and the records name features by it).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from companion.games.carcassonne.rules import TileRules


class PartFeature(Protocol):
    """What the core reads of a feature."""

    @property
    def kind(self) -> str: ...

    @property
    def parts(self) -> tuple[int, ...]:
        """The parts it touches, ascending; empty for a feature inside the tile."""

    @property
    def counts(self) -> tuple[tuple[str, int], ...]:
        """What it adds to its domain's counted attributes (a name may come more than once)."""

    def with_parts(self, parts: tuple[int, ...]) -> Self:
        """The same feature touching other parts (used to turn a tile)."""


F = TypeVar("F", bound=PartFeature)


@dataclass(frozen=True, slots=True)
class Feature:
    """A plain feature for configurations that need nothing more (The Castle's path with its
    fountain, a courtyard with its markets)."""

    kind: str
    parts: tuple[int, ...]
    counts: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        # Sorted, so that features written in another order compare equal.
        object.__setattr__(self, "parts", tuple(sorted(self.parts)))
        object.__setattr__(self, "counts", tuple(sorted(self.counts)))

    def with_parts(self, parts: tuple[int, ...]) -> Feature:
        return Feature(self.kind, parts, self.counts)


@dataclass(frozen=True, slots=True)
class Tile(Generic[F]):
    """A tile as it lies. ``part_feature[p]`` is the index of the feature touching part p (-1:
    none); ``faces`` and ``demands`` are the packed fit values of each side (``TileRules``)."""

    rules: ClassVar[TileRules]

    features: tuple[F, ...]
    part_feature: tuple[int, ...] = field(init=False, compare=False, repr=False)
    faces: tuple[int, int, int, int] = field(init=False, compare=False, repr=False)
    demands: tuple[int, int, int, int] = field(init=False, compare=False, repr=False)
    # Each way it can lie, worked out once when first asked: a tile is asked on every turn.
    _turns: tuple[tuple[int, Self], ...] | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        rules = self.rules
        features = tuple(sorted(self.features, key=self.feature_order))
        owner = [-1] * rules.part_count
        for index, feature in enumerate(features):
            for part in feature.parts:
                owner[part] = index
        faces, demands = rules.signature(owner, features)
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "part_feature", tuple(owner))
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "demands", demands)
        object.__setattr__(self, "_turns", None)

    # A tile never changes, so a copy of a board or a game may share it (and deep copies of
    # games stay cheap: every check of an event copies the game).
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self

    @staticmethod
    def feature_order(feature: Any) -> tuple[Any, ...]:
        """The canonical order of features: by first part touched (inner features last), then
        kind, parts and counts. A configuration may keep an order of its own."""
        parts = feature.parts
        return (parts[0] if parts else sys.maxsize, feature.kind, parts, feature.counts)

    def rotated(self, quarter_turns: int) -> Self:
        """The tile turned clockwise by ``quarter_turns``: part k of side s goes to part k of
        side s+1."""
        quarter_turns %= 4
        if quarter_turns == 0:
            return self
        count = self.rules.part_count
        shift = quarter_turns * self.rules.per_side
        return type(self)(
            tuple(f.with_parts(tuple(sorted((p + shift) % count for p in f.parts))) for f in self.features)
        )

    def distinct_rotations(self) -> list[tuple[int, Self]]:
        """Each way the tile can lie, once: a straight path looks the same turned twice."""
        if self._turns is None:
            seen: list[Self] = []
            result = []
            for quarter_turns in range(4):
                turned = self.rotated(quarter_turns)
                if turned not in seen:
                    seen.append(turned)
                    result.append((quarter_turns, turned))
            object.__setattr__(self, "_turns", tuple(result))
            return result
        return list(self._turns)
