"""What an event does to the land and the pawns on it, once the engine has accepted it: cities
falling (pawns sent home, a city removed, its tile freed), cities rising (pawns owed to the
player whose event it was), raids, and the log entry that explains each."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.games.base import Cell, ScoreChange
from companion.games.gaia import events as ev
from companion.games.gaia.land import City, Land
from companion.games.gaia.rules import ANIMALS_PER_CARD, NEEDS_PER_CITY, at, pawn_words

RULES = {
    "city": "A city is laid on a free tile of its terrain with at least 2 of its 4 needs met by the "
    "tiles beside it, and its owner's pawn goes on it (2 pawns at 4 needs in the advanced game).",
    "pawn": "A player whose event raises a city's satisfaction puts a pawn on it, one per player "
    "per city (advanced game: 2 at 4 needs met, and the first pawn sends the others home).",
    "return": "A city left with 1 need met loses all its pawns; with 0 it is removed as well. In "
    "the advanced game a city falling to 2 or 3 needs keeps one of two pawns.",
    "removed": "A city with no need met is removed, and its tile is free again.",
    "eaten": "At the start of a turn each city that carries the player's pawn and needs animals "
    "eats one animal from a tile beside it.",
    "objective": "A player whose Nature cards in front include every card of an objective discards "
    "them and puts a pawn on the objective for good.",
    "end": "The first to place all their pawns wins; when a deck runs out, most pawns placed wins, "
    "a tie going to the tied player seated first clockwise after the one who ended the game.",
    "adjust": "A score corrected by hand on a phone, with the reason given.",
}


@dataclass
class Owed:
    """Pawns a player owes on one city, and the rise that made them owed."""

    pawns: int
    rose_from: int
    rose_to: int


class LandEffects:
    """The part of the engine that changes the land; ``GaiaGame`` holds the state it reads."""

    land: Land
    advanced: bool
    names: list[str]
    pawns_left: dict[str, int]
    owed: dict[Cell, Owed]
    eaten: list[City]
    turn: int
    bank: int
    _log: list[ScoreChange]

    def _change_land(
        self, player: str, cells: list[Cell], change: Callable[[], None], new_city: City | None = None
    ) -> None:
        """Make a change at ``cells`` and settle what follows: cities beside them that fall lose
        pawns (or are removed, freeing their tiles), and every city that ends the event higher
        than it began makes ``player`` owe pawns."""
        touched = [c for c in self.land.cities_beside(cells) if c is not new_city]
        before = {id(c): c.satisfaction for c in touched}
        change()
        self.land.refresh(touched)
        freed = []
        for city in touched:  # in reading order
            if city.satisfaction < before[id(city)] and self._drop(city):
                freed.append(city.at)
        risen = []
        if new_city is not None:  # a new city rises from what it met when laid
            before[id(new_city)] = new_city.satisfaction
            risen.append(new_city)
        if freed:  # an uncovered tile may raise the cities beside it
            around = self.land.cities_beside(freed)
            for city in around:
                before.setdefault(id(city), city.satisfaction)
            self.land.refresh(around)
            risen += [c for c in around if c is not new_city]
        risen += [c for c in touched if self.land.cities.get(c.at) is c and c not in risen]
        for city in risen:
            if city.satisfaction > before[id(city)]:
                self._owe(player, city, before[id(city)])

    def _owe(self, player: str, city: City, rose_from: int) -> None:
        wanted = 2 if self.advanced and city.satisfaction == NEEDS_PER_CITY else 1
        short = wanted - city.pawns_of(player)
        if short > 0:
            self.owed[city.at] = Owed(short, rose_from, city.satisfaction)

    def _drop(self, city: City) -> bool:
        """A city whose satisfaction fell: its pawns go home at 1 or 0 (removed at 0); in the
        advanced game one of two pawns goes home at 2 or 3. True when the city is removed."""
        satisfaction = city.satisfaction
        if satisfaction <= 1:
            for owner in [name for name in self.names if city.pawns_of(name)]:
                count = city.pawns.pop(owner)
                self.pawns_left[owner] += count
                returns = f"{owner}'s pawn returns" if count == 1 else f"{owner}'s {count} pawns return"
                self._add(owner, -count, f"{self.city_text(city)} — {returns}", "return", city)
            if satisfaction == 0:
                del self.land.cities[city.at]
                removed = f"{self.city_text(city)} — the city is removed and its tile is free again"
                self._add(None, 0, removed, "removed", city)
                return True
        elif self.advanced:
            for owner in [name for name in self.names if city.pawns_of(name) == 2]:
                city.pawns[owner] = 1
                self.pawns_left[owner] += 1
                self._add(
                    owner, -1, f"{self.city_text(city)} — one of {owner}'s 2 pawns returns", "return", city
                )
        return False

    def _lay_tile(self, player: str, event: ev.TileLaid) -> None:
        def lay() -> None:
            self.land.tiles[event.at] = event.terrain

        self._change_land(player, [event.at], lay)

    def _put_animals(self, player: str, event: ev.AnimalsPut) -> None:
        def put() -> None:
            self.land.animals[event.at] = ANIMALS_PER_CARD
            self.bank -= ANIMALS_PER_CARD

        self._change_land(player, [event.at], put)

    def _lay_city(self, player: str, event: ev.CityLaid) -> None:
        city = City(event.at, event.card.terrain, event.card.needs)

        def lay() -> None:
            self.land.cities[city.at] = city
            self.land.refresh([city])
            wanted = 2 if self.advanced and city.satisfaction == NEEDS_PER_CITY else 1
            count = min(wanted, self.pawns_left[player])
            city.pawns[player] = count
            self.pawns_left[player] -= count
            self._add(
                player, count, f"{self.city_text(city)} — {player} places {pawn_words(count)}", "city", city
            )

        self._change_land(player, [event.at], lay, new_city=city)

    def _feed(self, player: str, event: ev.CityFed) -> None:
        city = self.land.cities[event.city]
        self.eaten.append(city)
        left = self.land.animals[event.source] - 1

        def eat() -> None:
            if left:
                self.land.animals[event.source] = left
            else:
                del self.land.animals[event.source]
            self.bank += 1
            reason = (
                f"{player}'s city at {at(city.at)} eats an animal from the tile at {at(event.source)} "
                f"({left} left there)"
            )
            self._add(player, 0, reason, "eaten", None, cell=event.source, extra={"city": list(city.at)})

        self._change_land(player, [event.source], eat)

    def _place_pawn(self, player: str, city: City) -> None:
        first = city.pawns_of(player) == 0
        city.pawns[player] = city.pawns_of(player) + 1
        self.pawns_left[player] -= 1
        owed = self.owed[city.at]
        owed.pawns -= 1
        if owed.pawns == 0:
            del self.owed[city.at]
        self._add(player, 1, f"{self.city_text(city)} — {player} places a pawn", "pawn", city)
        if self.advanced and first:  # a raid: the first pawn sends every other player's home
            for owner in [name for name in self.names if name != player and city.pawns_of(name)]:
                count = city.pawns.pop(owner)
                self.pawns_left[owner] += count
                returns = f"{owner}'s pawn returns" if count == 1 else f"{owner}'s {count} pawns return"
                self._add(
                    owner, -count, f"city at {at(city.at)}: {player} raids it — {returns}", "return", city
                )

    def city_text(self, city: City) -> str:
        met = city.met_needs()
        listed = f" ({', '.join(met)})" if met else ""
        return f"city at {at(city.at)}: {city.satisfaction} of {NEEDS_PER_CITY} needs met{listed}"

    def _add(
        self,
        player: str | None,
        pawns: int,
        reason: str,
        kind: str,
        city: City | None,
        cell: Cell | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        where = city.at if city is not None else cell
        entry: dict[str, Any] = {"pawns": pawns, "at": list(where) if where is not None else None}
        entry.update(extra or {})
        detail: dict[str, Any] = {"rule": RULES[kind]}
        if city is not None:
            detail.update(
                {
                    "terrain": city.terrain,
                    "needs": list(city.needs),
                    "met": list(city.met),
                    "pawns": dict(city.pawns),
                }
            )
        cells = (where,) if where is not None else ()
        change = ScoreChange(player, pawns, reason, kind, self.turn, cells=cells, detail=detail, extra=entry)
        self._log.append(change)
