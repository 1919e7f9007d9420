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

# The rule behind each kind of score, in words a player can hold against the rulebook.
RULES = {
    ("route", False): "A trade route is complete when both its ends are closed (at an intersection, "
    "an asteroid field, a planet, or by meeting itself). It scores 1 point per tile and 2 per "
    "faction symbol on it, whatever the faction.",
    ("asteroid", False): "An asteroid field is complete when it has no open side left. It scores "
    "2 points per tile and 2 per faction symbol in it, whatever the faction.",
    ("planet", False): "A planet is complete when all 8 cells around it hold tiles. It scores 9 "
    "points (itself and the 8 around it) and 2 for its own symbol; the symbols around it count "
    "for their own domains.",
    ("route", True): "At the end of the game an incomplete trade route with meeples scores 1 point "
    "per tile and 2 per faction symbol.",
    ("asteroid", True): "At the end of the game an incomplete asteroid field with meeples scores "
    "only 1 point per tile (half the rate of play) and 2 per faction symbol.",
    ("planet", True): "At the end of the game an incomplete planet with meeples scores 1 point, 1 "
    "per tile around it, and 2 for its symbol.",
    ("battle", False): "Meeples of different players in one domain fight at once. Each rolls 1 die "
    "per small meeple, 2 per large meeple, +1 with a symbol of their faction in the domain, at "
    "most 3; only the highest die counts. A tie gives each tied fighter 1 point and they roll "
    "again; a loser scores 1 point per die it rolled and its meeples go back to its supply.",
    ("adjust", False): "A score corrected by hand on a phone that joined the table; the reason was "
    "given by the person who corrected it.",
}


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
