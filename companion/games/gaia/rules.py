"""The fixed numbers and words of Gaia (shared/FACTS.md, section Gaia, and the record contract)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from companion.games.base import Cell

GAME = "gaia"
TITLE = "Gaia"
VARIANTS = ("basic", "advanced")
COLOURS = ("yellow", "blue", "white", "green", "red")
FEWEST_PLAYERS, MOST_PLAYERS = 2, 5

TERRAINS = ("plains", "forest", "sea", "desert", "mountain", "swamp")
ANIMALS = "animals"  # a city's need met by a neighbouring tile with at least one animal token
STAR = "star"  # a card whose corner icon allows any terrain (sea excepted for a city)
NEEDS = (*TERRAINS, ANIMALS)
CARD_KINDS = ("nature", "life")
SOURCES = ("market", "deck")

# the land tiles in the box, by terrain (48 in all)
LAND_TILES = {"plains": 10, "forest": 8, "sea": 7, "desert": 10, "mountain": 6, "swamp": 7}
ANIMAL_TOKENS = 20
ANIMALS_PER_CARD = 4
HAND_LIMIT = 6
ACTIONS_PER_TURN = 2
NEEDS_PER_CITY = 4
NEEDS_TO_LAY = 2
MOST_OBJECTIVES = 9  # objective cards in the box
MOST_OBJECTIVE_CARDS = 6
FIRST_CELL: Cell = (0, 0)  # "la primera ficha jugada se coloca simplemente en el centro"

POWER_REFUSED = "Power cards are not modelled in this version of the record"

# north, east, south, west: the cells that share a side (diagonals never count)
SIDES: tuple[Cell, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))


def pawns_each(players: int) -> int:
    """6 pawns each with 2 players, 5 with 3 to 5."""
    return 6 if players == 2 else 5


def neighbours(cell: Cell) -> Iterator[Cell]:
    x, y = cell
    for dx, dy in SIDES:
        yield (x + dx, y + dy)


def are_neighbours(one: Cell, other: Cell) -> bool:
    return abs(one[0] - other[0]) + abs(one[1] - other[1]) == 1


def reading_order(cells: Iterable[Cell]) -> list[Cell]:
    """North to south, then west to east: the order drops are listed in."""
    return sorted(cells, key=lambda cell: (cell[1], cell[0]))


def at(cell: Cell) -> str:
    """A cell as the contract writes it in reasons: [1,0]."""
    return f"[{cell[0]},{cell[1]}]"


def card_word(kind: str) -> str:
    return "Nature" if kind == "nature" else "Life"


def pawn_words(count: int) -> str:
    return "a pawn" if count == 1 else f"{count} pawns"
