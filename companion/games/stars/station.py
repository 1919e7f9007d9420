"""One player's space station: cells holding the main reactor, power reactors, location cards
and placeholders, and the questions the rules ask of it.

"Location" means the main reactor, a power reactor or a location card (reactors count as
locations, seed l.133), never a placeholder: a removed card left face down fills its cell and
carries energy distance, but is adjacent to nothing and counts for nothing (l.151).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from companion.games.base import Cell
from companion.games.stars.cards import Card

MAIN, REACTOR, CARD, PLACEHOLDER = "main reactor", "power reactor", "card", "placeholder"
MAIN_CELL: Cell = (0, 0)
CUBES = 2  # a reactor comes into play with 2 energy cubes (l.94, l.131)
ENERGY_REACH = 2  # energy comes from a reactor at most 2 cards away (l.92)


@dataclass
class Slot:
    """What one cell of a station holds."""

    kind: str  # MAIN, REACTOR, CARD or PLACEHOLDER
    cubes: int = 0
    card: Card | None = None  # a location card (or, face down, the card a placeholder was)
    scored: int = 0  # the VP it scored when built: printed, immediate ability, manual count
    built: int = 0  # the order it was built in this station (the main reactor is 0)
    manual_vp: int | None = None  # what a person counted for its manual ability

    @property
    def is_location(self) -> bool:
        return self.kind != PLACEHOLDER

    @property
    def is_reactor(self) -> bool:
        return self.kind in (MAIN, REACTOR)

    @property
    def named(self) -> str:
        """As a sentence names it: "the main reactor", "a power reactor", "Casino"."""
        if self.kind == MAIN:
            return "the main reactor"
        if self.kind in (REACTOR, PLACEHOLDER):
            return f"a {self.kind}"
        return self.label

    @property
    def label(self) -> str:
        if self.card is not None:
            return self.card.name
        return self.kind


def neighbours(cell: Cell) -> tuple[Cell, Cell, Cell, Cell]:
    x, y = cell
    return ((x + 1, y), (x, y + 1), (x - 1, y), (x, y - 1))


class Station:
    def __init__(self) -> None:
        self.cells: dict[Cell, Slot] = {MAIN_CELL: Slot(MAIN, cubes=CUBES)}
        self.builds = 0

    def place(self, at: Cell, slot: Slot) -> None:
        self.builds += 1
        slot.built = self.builds
        self.cells[at] = slot

    # --- what is where ---------------------------------------------------------------------------

    def location_at(self, cell: Cell) -> Slot | None:
        slot = self.cells.get(cell)
        return slot if slot is not None and slot.is_location else None

    def adjacent_locations(self, cell: Cell) -> list[Slot]:
        return [slot for n in neighbours(cell) if (slot := self.location_at(n)) is not None]

    def touches_a_location(self, cell: Cell) -> bool:
        return any(self.location_at(n) is not None for n in neighbours(cell))

    def open_cells(self) -> list[Cell]:
        """The empty cells next to a location: where a card or a power reactor may be built."""
        found = {n for cell, slot in self.cells.items() if slot.is_location for n in neighbours(cell)}
        return sorted(cell for cell in found if cell not in self.cells)

    def cards(self) -> list[tuple[Cell, Slot]]:
        """The location cards (face up), in the order they were built."""
        found = [(cell, slot) for cell, slot in self.cells.items() if slot.kind == CARD]
        return sorted(found, key=lambda item: item[1].built)

    def uncounted_delayed(self) -> list[tuple[Cell, Slot]]:
        """The face-up cards whose delayed ability a person counts and has not counted yet."""
        found = []
        for cell, slot in self.cards():
            ability = slot.card.ability if slot.card else None
            if ability is not None and ability.manual and not ability.immediate and slot.manual_vp is None:
                found.append((cell, slot))
        return found

    def location_cards(self) -> int:
        return sum(1 for slot in self.cells.values() if slot.kind == CARD)

    def of_type(self, kind: str) -> int:
        return sum(
            1 for slot in self.cells.values() if slot.kind == CARD and slot.card and slot.card.type == kind
        )

    def power_reactors(self) -> list[Slot]:
        return [slot for slot in self.cells.values() if slot.kind == REACTOR]

    def cubes(self) -> int:
        return sum(slot.cubes for slot in self.cells.values())

    def copies(self, name: str) -> list[Cell]:
        return [cell for cell, slot in self.cards() if slot.card is not None and slot.card.name == name]

    def max_breaks(self) -> list[tuple[Card, list[Cell]]]:
        """Each card whose copies in the station are more than its MAX, with their cells."""
        by_name: dict[str, tuple[Card, list[Cell]]] = {}
        for cell, slot in self.cards():
            card = slot.card
            if card is not None and card.max is not None:
                by_name.setdefault(card.name, (card, []))[1].append(cell)
        return [(card, cells) for card, cells in by_name.values() if len(cells) > (card.max or 0)]

    # --- energy --------------------------------------------------------------------------------

    def distances_from(self, start: Cell, limit: int = ENERGY_REACH) -> dict[Cell, int]:
        """How far each built cell is from ``start``, counting the cards a path steps on (every
        step lands on a built card, placeholders included), up to ``limit``."""
        found: dict[Cell, int] = {}
        queue = deque([(start, 0)])
        while queue:
            cell, far = queue.popleft()
            if far == limit:
                continue
            for n in neighbours(cell):
                if n in self.cells and n != start and n not in found:
                    found[n] = far + 1
                    queue.append((n, far + 1))
        return found

    def reactors_in_reach(self, start: Cell) -> dict[Cell, int]:
        """The reactors with cubes within energy reach of ``start``, with their cubes."""
        return {
            cell: self.cells[cell].cubes
            for cell in self.distances_from(start)
            if self.cells[cell].is_reactor and self.cells[cell].cubes > 0
        }

    # --- removing --------------------------------------------------------------------------------

    def splits_without(self, cell: Cell) -> bool:
        """Whether taking the card at ``cell`` away leaves the station in two or more pieces
        (cells held by anything, placeholders too, hold it together)."""
        # the station was whole: it stays whole when the card's neighbours still reach each other
        around = [n for n in neighbours(cell) if n in self.cells]
        if len(around) < 2:
            return False
        wanted = set(around[1:])
        seen = {around[0]}
        queue = deque([around[0]])
        while queue and wanted:
            for n in neighbours(queue.popleft()):
                if n in self.cells and n != cell and n not in seen:
                    seen.add(n)
                    wanted.discard(n)
                    queue.append(n)
        return bool(wanted)
