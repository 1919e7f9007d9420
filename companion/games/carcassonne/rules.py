"""One configuration of the core: how a side is cut into parts, and which parts must agree.

Parts. Each side is cut into the same number P of parts, named by the configuration and
numbered clockwise around the tile: part ``side * P + k`` is the k-th part of ``side`` going
clockwise (Star Wars: one part a side, N E S W; The Castle: Nw N Ne, En E Es, Se S Sw, Ws W Wn).
A clockwise quarter turn moves part k of side s to part k of side s+1. Across an edge the
order runs the other way, so part k of side s faces part P-1-k of the neighbour's opposite
side: the Castle's Wn (W, k=2) faces En (E, k=0) of the tile to the west.

Fit. For each position k of a side the configuration gives either nothing (the part is free:
anything may face it) or a table from feature kind to a face value, where a part touched by
no feature, or by a kind the table leaves out, shows 0. Two facing checked parts must show the
same value. Star Wars checks its one part (open space 0, route 1, asteroid 2); The Castle checks
only the middle (path 1, anything else 0).

Joins. Features on facing parts are one feature when the configuration lists their two kinds
as joining; by default each kind joins itself only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, Self


class HasKind(Protocol):
    @property
    def kind(self) -> str: ...


@dataclass(frozen=True, eq=False)
class TileRules:
    """The data that makes the core one game's: part names, kinds, fit and join rules."""

    part_names: tuple[str, ...]  # 4 * P names: side N's parts clockwise, then E, S, W
    kinds: tuple[str, ...]
    # One entry per position within a side: None (free) or kind -> face value (others show 0).
    fit: tuple[Mapping[str, int] | None, ...]
    # Pairs of kinds that join across an edge; None means each kind joins itself only.
    joins: frozenset[tuple[str, str]] | None = None

    per_side: int = field(init=False)
    part_count: int = field(init=False)
    # facing[p]: the part of the neighbour across p's side that part p touches.
    facing: tuple[int, ...] = field(init=False, repr=False)
    # side_part_numbers[s]: the parts of side s, in order.
    side_part_numbers: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    join_pairs: frozenset[tuple[str, str]] = field(init=False, repr=False)  # both orders of each pair
    _checks: tuple[tuple[int, Mapping[str, int]], ...] = field(init=False, repr=False)
    _base: int = field(init=False, repr=False)
    # Set when the middle part (k == P-1-k, which faces itself) is all that is checked, as in
    # both shipped configurations: faces are then their own demands, and ``signature`` takes a
    # short way. Its table, and the middle part of each side.
    _single: tuple[Mapping[str, int], tuple[int, int, int, int]] | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        count = len(self.part_names)
        if count == 0 or count % 4:
            raise ValueError(f"a tile has 4 sides of equal parts, not {count} part names")
        if len(set(self.part_names)) != count:
            raise ValueError("part names must differ")
        per_side = count // 4
        if len(self.fit) != per_side:
            raise ValueError(
                f"the fit rule needs one entry per part of a side ({per_side}), not {len(self.fit)}"
            )
        for k, table in enumerate(self.fit):
            if (table is None) != (self.fit[per_side - 1 - k] is None):
                raise ValueError(f"position {k} and the position it faces must both be checked or both free")
            for kind, value in (table or {}).items():
                if kind not in self.kinds or value < 0:
                    raise ValueError(f"the fit rule names {kind!r} -> {value}; kinds are {self.kinds}")
        joins = self.joins if self.joins is not None else frozenset((k, k) for k in self.kinds)
        for a, b in joins:
            if a not in self.kinds or b not in self.kinds:
                raise ValueError(f"the join ({a!r}, {b!r}) names an unknown kind")
        # Joining is symmetric whatever order the pair was written in.
        joins = joins | frozenset((b, a) for a, b in joins)
        checks = tuple((k, table) for k, table in enumerate(self.fit) if table is not None)
        base = 1 + max((v for _, table in checks for v in table.values()), default=0)
        setattr_ = object.__setattr__
        setattr_(self, "per_side", per_side)
        setattr_(self, "part_count", count)
        setattr_(
            self,
            "facing",
            tuple(((p // per_side + 2) % 4) * per_side + per_side - 1 - p % per_side for p in range(count)),
        )
        setattr_(
            self, "side_part_numbers", tuple(tuple(range(s * per_side, (s + 1) * per_side)) for s in range(4))
        )
        setattr_(self, "join_pairs", joins)
        setattr_(self, "_checks", checks)
        setattr_(self, "_base", base)
        single = None
        if len(checks) == 1 and checks[0][0] == per_side - 1 - checks[0][0]:
            k, table = checks[0]
            single = (table, (k, per_side + k, 2 * per_side + k, 3 * per_side + k))
        setattr_(self, "_single", single)

    # Rules are shared, never changed: a deep copy of a board or game keeps the same ones.
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self

    # --- parts ----------------------------------------------------------------------------------

    def part_index(self, name: str) -> int:
        try:
            return self.part_names.index(name)
        except ValueError:
            raise ValueError(f"no part is called {name!r}; parts are {' '.join(self.part_names)}") from None

    def side_of(self, part: int) -> int:
        return part // self.per_side

    def rotate_part(self, part: int, quarter_turns: int) -> int:
        return (part + quarter_turns * self.per_side) % self.part_count

    # --- fit and joins --------------------------------------------------------------------------

    def joined(self, kind: str, other: str) -> bool:
        return (kind, other) in self.join_pairs

    def signature(
        self, part_feature: Sequence[int], features: Sequence[HasKind]
    ) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]]:
        """What each side shows across its edge (faces) and what it asks of the part facing it
        (demands), each side's checked parts packed into one number so that a fit test is four
        integer comparisons. Two sides fit when one's face equals the other's demand."""
        if self._single is not None:
            table, (n, e, s, w) = self._single
            # Unrolled: this runs for every tile built, and tiles are built for every turn asked.
            packed = (
                table.get(features[part_feature[n]].kind, 0) if part_feature[n] >= 0 else 0,
                table.get(features[part_feature[e]].kind, 0) if part_feature[e] >= 0 else 0,
                table.get(features[part_feature[s]].kind, 0) if part_feature[s] >= 0 else 0,
                table.get(features[part_feature[w]].kind, 0) if part_feature[w] >= 0 else 0,
            )
            return packed, packed
        per_side, base, checks = self.per_side, self._base, self._checks
        faces = [0, 0, 0, 0]
        demands = [0, 0, 0, 0]
        for side in range(4):
            first = side * per_side
            face = demand = 0
            for k, table in checks:
                index = part_feature[first + k]
                face = face * base + (table.get(features[index].kind, 0) if index >= 0 else 0)
                # Position k of the tile across meets this side's part P-1-k.
                mirror = per_side - 1 - k
                index = part_feature[first + mirror]
                mirror_table = self.fit[mirror]
                assert mirror_table is not None  # checked positions come in facing pairs
                demand = demand * base + (mirror_table.get(features[index].kind, 0) if index >= 0 else 0)
            faces[side] = face
            demands[side] = demand
        return (faces[0], faces[1], faces[2], faces[3]), (demands[0], demands[1], demands[2], demands[3])
