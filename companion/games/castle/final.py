"""Final scoring, after ``end`` (castle.md): the keep, the courtyards in the order first laid,
then wall tiles 4, 5, 6 and 9 in record order. Worked out again whenever a wall tile is played
after ``end``, since 7 and 8 change what the courtyards and the keeps are worth."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from companion.games.base import ScoreChange
from companion.games.castle.board import CastleBoard, CastleDomain
from companion.games.castle.scoring import (
    KEEP_BONUS_PER_WALL_8,
    RULES,
    courtyard_points,
    incomplete_points,
    keep_points,
    largest_empty_area,
    majority,
    wall_9_points,
)
from companion.games.castle.tiles import COURTYARD
from companion.games.castle.turn import FirstLaid, Keep, feature_detail, other


@dataclass(frozen=True, slots=True)
class FinalUse:
    """A wall tile 4 to 9 played after ``end``; ``domain`` is the feature it was played on."""

    player: str
    wall: int
    domain: CastleDomain | None


def keep_size(keep: Keep | None, uses: Sequence[FinalUse], player: str) -> tuple[int, int]:
    """(the keep's size in the comparison, how many wall tiles 8 it has)."""
    walls_8 = sum(1 for use in uses if use.player == player and use.wall == 8)
    if keep is None:
        return 0, walls_8
    return keep.tiles + KEEP_BONUS_PER_WALL_8 * walls_8, walls_8


def final_scoring(
    board: CastleBoard,
    players: tuple[str, str],
    keeps: Mapping[str, Keep | None],
    uses: Sequence[FinalUse],
    turn: int,
    first_laid: FirstLaid,
) -> list[ScoreChange]:
    changes: list[ScoreChange] = []
    # 1. the keep: the larger keep scores the largest empty area
    sizes = {name: keep_size(keeps.get(name), uses, name) for name in players}
    first, second = players
    if sizes[first][0] != sizes[second][0]:
        winner = first if sizes[first][0] > sizes[second][0] else second
        keep = keeps[winner]
        assert keep is not None  # a larger size needs a keep: wall tile 8 is refused without one
        start_cells = [s.cell for s in board.layout.starts]
        area, spaces = largest_empty_area(board.layout.interior, board.tiles, start_cells)
        if area:
            points, reason = keep_points(keep.tiles, sizes[winner][1], sizes[other(players, winner)][0], area)
            detail = {
                "house_tiles": keep.tiles,
                "walls_8": sizes[winner][1],
                "against": sizes[other(players, winner)][0],
                "area": area,
                "empty": [list(c) for c in spaces],
                "keep_cells": [list(c) for c in keep.cells],
                "rule": RULES["keep"],
            }
            changes.append(
                ScoreChange(winner, points, reason, "keep", turn, True, None, None, keep.cells, detail)
            )
    # 2. the courtyards, in the order first laid
    sevens = {id(use.domain): use.player for use in uses if use.wall == 7 and use.domain is not None}
    courtyards = sorted((d for d in board.domains() if d.kind == COURTYARD), key=first_laid)
    for domain in courtyards:
        owner = majority(domain, players)
        markets = domain.counts.get("markets", 0)
        if owner is None or not markets:
            continue
        points, reason = courtyard_points(markets, sevens.get(id(domain)) == owner)
        detail = feature_detail(domain, players) | {"wall": 7 if id(domain) in sevens else None}
        detail["rule"] = RULES[COURTYARD]
        cells = tuple(sorted(domain.cells))
        changes.append(
            ScoreChange(owner, points, reason, COURTYARD, turn, True, None, domain.key, cells, detail)
        )
    # 3. wall tiles 4, 5, 6 and 9, in record order
    for use in uses:
        if use.wall == 9:
            points, reason = wall_9_points()
            changes.append(
                ScoreChange(
                    use.player, points, reason, "wall", turn, True, detail={"wall": 9, "rule": RULES["wall"]}
                )
            )
        elif use.wall in (4, 5, 6):
            assert use.domain is not None
            points, reason = incomplete_points(use.wall, use.domain)
            detail = feature_detail(use.domain, players) | {"wall": use.wall, "rule": RULES["wall"]}
            cells = tuple(sorted(use.domain.cells))
            changes.append(
                ScoreChange(
                    use.player, points, reason, "wall", turn, True, None, use.domain.key, cells, detail
                )
            )
    return changes
