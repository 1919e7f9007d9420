"""What a domain is worth, with the breakdown a player can check against the rulebook.

During play (completed domains): trade route 1 per tile, asteroid field 2 per tile, planet 9
(itself and the 8 around it). At the end (incomplete domains holding meeples): route 1 per
tile, asteroid field 1 per tile, planet 1 plus 1 per tile around it. Always +2 per faction
symbol in the domain, whatever its faction (a planet counts only its own symbol).
"""

from __future__ import annotations

from companion.games.starwars.board import Domain
from companion.games.starwars.tiles import ASTEROID, PLANET

POINTS_PER_SYMBOL = 2


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _symbol_part(symbols: int) -> tuple[int, str]:
    if not symbols:
        return 0, ""
    return symbols * POINTS_PER_SYMBOL, f" + {_plural(symbols, 'symbol')} x {POINTS_PER_SYMBOL}"


def completed_score(domain: Domain) -> tuple[int, str]:
    """Points and breakdown for a domain completed during play."""
    tiles = len(domain.cells)
    per_tile = 2 if domain.kind == ASTEROID else 1
    bonus, symbol_text = _symbol_part(domain.symbol_count())
    points = tiles * per_tile + bonus
    return points, f"{domain.label}: {_plural(tiles, 'tile')} x {per_tile}{symbol_text} = {points}"


def final_score(domain: Domain) -> tuple[int, str]:
    """Points and breakdown for an incomplete domain at the end of the game."""
    bonus, symbol_text = _symbol_part(domain.symbol_count())
    if domain.kind == PLANET:
        around = len(domain.cells) - 1
        points = 1 + around + bonus
        breakdown = f"1 planet + {_plural(around, 'tile')} around x 1{symbol_text}"
    else:
        tiles = len(domain.cells)
        points = tiles + bonus
        breakdown = f"{_plural(tiles, 'tile')} x 1{symbol_text}"
    return points, f"{domain.label} (final scoring): {breakdown} = {points}"
