"""A turn's scoring, worked out from the turn as recorded so far (castle.md, Scoring).

The scoring has no event: it happens when the first event that cannot belong before it arrives
(a take, a use of wall tile 1, the next tile, end) or when the record ends. So the engine works it
out as a plan, without changing anything: shown while the turn is open, checked against the
event that closes the turn, and carried out then.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Cell, ScoreChange
from companion.games.castle.board import CastleDomain
from companion.games.castle.layout import TRACK
from companion.games.castle.scoring import RULES, completed_points, majority
from companion.games.castle.tiles import HOUSE, ROLES

FirstLaid = Callable[[CastleDomain], tuple[int, int, int]]

# Phases of the game.
TILE = "tile"  # before the first tile: the first player places it
OPEN = "open"  # a tile is down; its follower, order and wall tiles 2/3 may follow; scoring pending
SCORED = "scored"  # the turn is scored; its takes and wall tile 1 may follow, then the next tile
OVER = "over"  # ``end`` came; only wall tiles 4 to 9 may follow


@dataclass(frozen=True, slots=True)
class Keep:
    """A player's keep: the largest completed house they scored, by tiles."""

    tiles: int
    cells: tuple[Cell, ...]
    starts: tuple[int, ...]
    domain: int
    turn: int

    def to_json(self) -> dict[str, Any]:
        return {"tiles": self.tiles, "cells": [list(c) for c in self.cells], "turn": self.turn}


@dataclass(frozen=True)
class TurnPlan:
    """What the turn's scoring does, in scoring order."""

    changes: tuple[ScoreChange, ...]
    scored: tuple[CastleDomain, ...]  # the features that score, in the order they score
    dues: tuple[tuple[str, int], ...]  # (player, space) of each wall tile due, in landing order
    claimed: frozenset[int]  # the corners whose wall tiles are now due
    keeps: Mapping[str, Keep] = field(default_factory=dict)  # keeps that move
    returning: tuple[CastleDomain, ...] = ()  # completed features whose followers go home


@dataclass(frozen=True)
class TurnState:
    """What the plan reads of the game."""

    players: tuple[str, str]
    placer: str
    turn: int
    completed: Sequence[CastleDomain]
    order: Sequence[CastleDomain] | None
    doubled: Mapping[int, int]  # domain key -> wall tile 2 or 3 played on it
    points: Mapping[str, int]
    corners_left: frozenset[int]
    corner_of_space: Mapping[int, int]
    last_landing: bool
    keeps: Mapping[str, Keep | None]
    first_laid: FirstLaid


def scoring_features(state: TurnState) -> list[CastleDomain]:
    """The features that score this turn, in the default order: the placer's first, then the
    opponent's, each player's by the feature laid first."""
    owners = {id(d): majority(d, state.players) for d in state.completed}
    scoring = [d for d in state.completed if owners[id(d)] is not None]
    opponent = other(state.players, state.placer)
    ordered: list[CastleDomain] = []
    for player in (state.placer, opponent):
        ordered += sorted((d for d in scoring if owners[id(d)] == player), key=state.first_laid)
    return ordered


def plan_turn(state: TurnState) -> TurnPlan:
    if not any(domain.pieces for domain in state.completed):
        return NOTHING  # most turns: nothing held was completed
    order = list(state.order) if state.order is not None else scoring_features(state)
    totals = dict(state.points)
    changes: list[ScoreChange] = []
    dues: list[tuple[str, int]] = []
    claimed: set[int] = set()
    keeps: dict[str, Keep] = {}
    moved: list[str] = []

    def land(player: str) -> None:
        space = totals[player] % TRACK
        corner = state.corner_of_space.get(space)
        if corner is not None and corner in state.corners_left and corner not in claimed:
            claimed.add(corner)
            dues.append((player, space))

    for domain in order:
        player = majority(domain, state.players)
        assert player is not None  # an order names only features that score (checked)
        doubled = state.doubled.get(domain.key)
        points, reason = completed_points(domain, doubled is not None)
        totals[player] += points
        if player not in moved:
            moved.append(player)
        detail = feature_detail(domain, state.players)
        detail.update({"wall": doubled, "space": totals[player] % TRACK, "rule": RULES[domain.kind]})
        changes.append(
            ScoreChange(
                player,
                points,
                reason,
                domain.kind,
                state.turn,
                False,
                None,
                domain.key,
                tuple(sorted(domain.cells)),
                detail,
            )
        )
        if not state.last_landing:
            land(player)
        if domain.kind == HOUSE:
            keep = keeps.get(player) or state.keeps.get(player)
            if keep is None or domain.tile_count > keep.tiles:
                keeps[player] = Keep(
                    domain.tile_count,
                    tuple(sorted(domain.cells)),
                    tuple(sorted(domain.starts)),
                    domain.key,
                    state.turn,
                )
    if state.last_landing:
        for player in (state.placer, other(state.players, state.placer)):
            if player in moved:
                land(player)
    returning = tuple(d for d in state.completed if d.pieces)
    return TurnPlan(tuple(changes), tuple(order), tuple(dues), frozenset(claimed), keeps, returning)


NOTHING = TurnPlan((), (), (), frozenset())


def feature_detail(domain: CastleDomain, players: Sequence[str]) -> dict[str, Any]:
    """What a score's page shows of the feature: its tiles, its followers by player, where they
    stand (the picture draws them, though they have gone home since)."""
    counts = Counter(f.player for f in domain.pieces)
    return {
        "tiles": domain.tile_count,
        "start_spaces": len(domain.starts),
        "fountain": domain.counts.get("fountain", 0) > 0,
        "markets": domain.counts.get("markets", 0),
        "role": ROLES[domain.kind],
        "followers": {name: counts[name] for name in players},
        "standing": [{"player": f.player, "at": list(f.cell), "feature": f.feature} for f in domain.pieces],
    }


def other(players: Sequence[str], name: str) -> str:
    return players[1] if name == players[0] else players[0]
