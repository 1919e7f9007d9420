"""Battles: who fights, how many dice each rolls, and what one round of dice decides.

A fighter is a player, or a team in the team variant. Dice: 1 per small meeple, 2 per large
meeple, +1 if the domain holds a symbol of the fighter's faction, at most 3. Only each fighter's
highest die counts. A tie for the highest die gives each tied fighter 1 point and they roll
again; fighters below the highest lose, score 1 point per die they rolled in that round, and
their meeples in the domain go back to their supply.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.starwars.board import Domain

MAX_DICE = 3
DICE_PER_SIZE = {"small": 1, "large": 2}


@dataclass(frozen=True, slots=True)
class Fighter:
    key: str  # the player's name, or the team's faction in the team variant
    label: str  # how a person reads it: "Ana", "Rebels (Ana, Cid)"
    faction: str
    players: tuple[str, ...]  # who may roll for this fighter, in turn order


def dice_for(fighter: Fighter, domain: Domain) -> int:
    meeples = sum(DICE_PER_SIZE[m.size] for m in domain.meeples if m.player in fighter.players)
    symbol = 1 if domain.symbols.get(fighter.faction) else 0
    return min(MAX_DICE, meeples + symbol)


@dataclass(frozen=True, slots=True)
class RoundResult:
    highest: dict[str, int]  # fighter key -> highest die
    leaders: tuple[str, ...]  # fighters with the highest die; one means a winner
    losers: tuple[str, ...]

    @property
    def winner(self) -> str | None:
        return self.leaders[0] if len(self.leaders) == 1 else None


def judge_round(rolls: dict[str, tuple[int, ...]]) -> RoundResult:
    """Decide one round from each active fighter's dice (in fighter order)."""
    highest = {key: max(dice) for key, dice in rolls.items()}
    top = max(highest.values())
    leaders = tuple(key for key, value in highest.items() if value == top)
    losers = tuple(key for key, value in highest.items() if value < top)
    return RoundResult(highest, leaders, losers)


@dataclass(slots=True)
class Battle:
    """A battle in progress over one domain."""

    domain: Domain
    fighters: tuple[Fighter, ...]
    dice: dict[str, int]  # fighter key -> dice rolled each round (fixed for the battle)
    turn: int
    active: list[str] = field(default_factory=list)
    round: int = 1
    rolls: dict[str, tuple[str, tuple[int, ...]]] = field(default_factory=dict)  # key -> roller, dice
    history: list[dict[str, object]] = field(default_factory=list)
    winner: str | None = None  # the winner's label once the battle is decided

    def __post_init__(self) -> None:
        if not self.active:
            self.active = [f.key for f in self.fighters]

    def fighter(self, key: str) -> Fighter:
        return next(f for f in self.fighters if f.key == key)

    def judge(self) -> RoundResult:
        return judge_round({key: self.rolls[key][1] for key in self.active})

    def next_round(self, result: RoundResult) -> None:
        """Keep the round in the history; the tied fighters, if any, roll again."""
        label = {f.key: f.label for f in self.fighters}
        self.history.append(
            {
                "round": self.round,
                "rolls": [
                    {"fighter": label[key], "by": self.rolls[key][0], "dice": list(self.rolls[key][1])}
                    for key in self.active
                ],
                "tied": [label[key] for key in result.leaders] if result.winner is None else [],
                "lost": [label[key] for key in result.losers],
                "won": label[result.winner] if result.winner else None,
            }
        )
        if result.winner is None:
            self.active = list(result.leaders)
            self.round += 1
            self.rolls = {}
        else:
            self.active = [result.winner]
            self.winner = label[result.winner]

    def waiting_for(self) -> list[Fighter]:
        return [self.fighter(key) for key in self.active if key not in self.rolls]

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.domain.kind,
            "domain": self.domain.key,
            "cells": sorted([list(c) for c in self.domain.cells]),
            "turn": self.turn,
            "round": self.round,
            "fighters": [
                {
                    "fighter": f.label,
                    "players": list(f.players),
                    "dice": self.dice[f.key],
                    "active": f.key in self.active,
                    "rolled": f.key in self.rolls,
                }
                for f in self.fighters
            ],
            "rounds": list(self.history),
            "winner": self.winner,
        }
