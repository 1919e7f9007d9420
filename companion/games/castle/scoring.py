"""Points and their reasons (castle.md, Scoring): what one feature, the keep or a wall tile is
worth, and the words a person checks it by. Pure functions of what was counted."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from companion.games.castle.board import CastleDomain
from companion.games.castle.tiles import COURTYARD, HOUSE, PATH, TOWER, counts_of

PER_TILE = {PATH: 1, TOWER: 2, HOUSE: 1}
PER_MARKET, PER_MARKET_WALL_7 = 3, 4
WALL_9_POINTS = 5
KEEP_BONUS_PER_WALL_8 = 2
# Which kind each wall tile played on a feature needs (castle.md, the table under "use").
WALL_KIND = {2: TOWER, 3: HOUSE, 4: PATH, 5: TOWER, 6: HOUSE, 7: COURTYARD}

RULES = {
    PATH: "A completed path scores 1 point a tile for the player with more heralds on it, 2 a tile "
    "if it has a fountain; a tie scores nothing.",
    TOWER: "A completed tower scores 2 points a tile for the player with more knights on it (4 with "
    "wall tile 2); a tie scores nothing.",
    HOUSE: "A completed house scores 1 point a tile for the player with more squires on it (2 with "
    "wall tile 3); a tie scores nothing. The largest house a player scores holds their keep.",
    COURTYARD: "At the end, a courtyard scores 3 points a market for the player with more merchants "
    "in it (4 with wall tile 7); a tie scores nothing.",
    "keep": "At the end, the player whose keep stands on the larger house (+2 tiles for each wall "
    "tile 8) scores the largest empty area inside the walls; equal keeps score nothing.",
    "wall": "Wall tiles 4, 5 and 6 score an incomplete path (1 a tile), tower (2 a tile) or house "
    "(1 a tile) where the player has more followers; wall tile 9 scores 5.",
    "adjust": "A score corrected by hand, with the reason given.",
}


def tiles_word(count: int) -> str:
    return f"{count} tile" if count == 1 else f"{count} tiles"


def markets_word(count: int) -> str:
    return f"{count} market" if count == 1 else f"{count} markets"


def majority(domain: CastleDomain, players: Sequence[str]) -> str | None:
    """The player with more followers on the feature; None on a tie (0-0 included)."""
    counts = Counter(f.player for f in domain.pieces)
    first, second = (counts[name] for name in players)
    if first == second:
        return None
    return players[0] if first > second else players[1]


def completed_points(domain: CastleDomain, doubled: bool) -> tuple[int, str]:
    """A completed path, tower or house: its points and the reason ("tower, 3 tiles x 2 = 6")."""
    tiles = domain.tile_count
    fountain, _ = counts_of(domain.counts)
    if domain.kind == PATH:
        per = 2 if fountain else 1
        name = "path with fountain" if fountain else "path"
        return tiles * per, f"{name}, {tiles_word(tiles)} x {per} = {tiles * per}"
    per = PER_TILE[domain.kind]
    points = tiles * per * (2 if doubled else 1)
    wall = 2 if domain.kind == TOWER else 3
    extra = f" x 2 (wall tile {wall})" if doubled else ""
    return points, f"{domain.kind}, {tiles_word(tiles)} x {per}{extra} = {points}"


def courtyard_points(markets: int, wall_7: bool) -> tuple[int, str]:
    per = PER_MARKET_WALL_7 if wall_7 else PER_MARKET
    extra = " (wall tile 7)" if wall_7 else ""
    return markets * per, f"courtyard, {markets_word(markets)} x {per}{extra} = {markets * per}"


def incomplete_points(wall: int, domain: CastleDomain) -> tuple[int, str]:
    """Wall tile 4, 5 or 6 on an incomplete path, tower or house (4 gives 1 a tile, fountain or
    not: castle.md, reading 12)."""
    tiles = domain.tile_count
    per = 2 if wall == 5 else 1
    points = tiles * per
    return points, f"wall tile {wall}: incomplete {domain.kind}, {tiles_word(tiles)} x {per} = {points}"


def keep_points(house_tiles: int, walls_8: int, against: int, area: int) -> tuple[int, str]:
    bonus = ""
    if walls_8:
        plural = "s" if walls_8 > 1 else ""
        bonus = f" +{KEEP_BONUS_PER_WALL_8 * walls_8} (wall tile{plural} 8)"
    spaces = "1 space" if area == 1 else f"{area} spaces"
    return area, (
        f"keep on a house of {tiles_word(house_tiles)}{bonus} against {against}: "
        f"largest empty area, {spaces} = {area}"
    )


def wall_9_points() -> tuple[int, str]:
    return WALL_9_POINTS, f"wall tile 9 = {WALL_9_POINTS}"


def largest_empty_area(
    interior: Iterable[tuple[int, int]],
    placed: Iterable[tuple[int, int]],
    start_cells: Sequence[tuple[int, int]],
) -> tuple[int, list[tuple[int, int]]]:
    """The largest group of side-connected empty interior spaces, counted with each start space
    against one of them (no tile was laid against it): its size and its spaces."""
    empty = set(interior) - set(placed)
    starts_at = Counter(start_cells)
    best: tuple[int, list[tuple[int, int]]] = (0, [])
    seen: set[tuple[int, int]] = set()
    for first in sorted(empty):
        if first in seen:
            continue
        group = [first]
        seen.add(first)
        for x, y in group:
            for other in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
                if other in empty and other not in seen:
                    seen.add(other)
                    group.append(other)
        size = len(group) + sum(starts_at[cell] for cell in group)
        if size > best[0]:
            best = (size, sorted(group))
    return best
