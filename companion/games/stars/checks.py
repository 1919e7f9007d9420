"""The rules an event must meet before it changes anything (shared/spec/stars.md).

``RuleChecks`` is the engine's first half: each check reads the game and raises
``IllegalEvent`` with the rule broken, and none changes anything, so ``check`` needs no copy.
"""

from __future__ import annotations

from companion.games.base import Cell, IllegalEvent
from companion.games.fields import quote_list
from companion.games.stars import events as ev
from companion.games.stars.cards import Card
from companion.games.stars.scoring import where
from companion.games.stars.setup import Objective
from companion.games.stars.station import CARD, PLACEHOLDER, Station

YEARS, TURNS = 4, 6  # l.60, l.72
REACTOR_COST = 1  # l.129
POWER_REACTORS = 16  # power reactor cards in the box, for every station together (l.22, l.135)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


class RuleChecks:
    """Where the game stands in its years and turns, and whether an event is allowed there."""

    types: tuple[str, ...]
    objectives: tuple[Objective, ...]
    names: list[str]
    stations: dict[str, Station]
    credits: dict[str, int]
    points: dict[str, int]
    year: int
    turn: int
    acted: dict[str, ev.Action]
    directions: dict[int, str | None]
    pending: dict[str, Cell]
    counted: dict[str, dict[str, int]]
    cards_seen: dict[str, Card]
    reactors_built: int
    ended: bool

    def year_over(self) -> bool:
        """After the 6th turn of the year under way: removals, then the next year (or the end)."""
        return self.year > 0 and self.turn == TURNS and len(self.acted) == len(self.names)

    def turn_complete(self) -> bool:
        return self.turn == 0 or len(self.acted) == len(self.names)

    def may_act(self) -> list[str]:
        """Who may take an action now, in header order."""
        if self.ended or self.year == 0 or self.year_over():
            return []
        done = set() if self.turn_complete() else set(self.acted)
        return [name for name in self.names if name not in done and name not in self.pending]

    def current_turn(self) -> int:
        """The turn under way, or the one the next action starts (0 before year 1)."""
        if self.year == 0:
            return 0
        return self.turn + 1 if self.turn_complete() and self.turn < TURNS else self.turn

    def rule_check(self, event: ev.Event) -> None:
        if isinstance(event, ev.ScoreAdjusted):
            self._check_player(event.player)
            return
        if self.ended:
            raise IllegalEvent('the game is over: nothing follows "end"')
        if isinstance(event, ev.YearStarted):
            self._check_year(event)
        elif isinstance(event, ev.Built):
            self._check_action(event.player)
            self._check_build(event)
        elif isinstance(event, ev.ReactorBuilt):
            self._check_action(event.player)
            self._check_reactor(event)
        elif isinstance(event, ev.Discarded):
            self._check_action(event.player)
            self._check_card(event.card)
        elif isinstance(event, ev.AbilityCounted):
            self._check_ability(event)
        elif isinstance(event, ev.ObjectiveCounted):
            self._check_objective(event)
        elif isinstance(event, ev.CardRemoved):
            self._check_remove(event)
        elif isinstance(event, ev.GameEnded):
            self._check_closing("the end of the game")
            self._check_end_counts()
        else:
            raise IllegalEvent(f"not an Among the Stars event: {event!r}")

    # --- checks ----------------------------------------------------------------------------------

    def _check_player(self, name: str) -> None:
        if name not in self.points:
            raise IllegalEvent(f'"{name}" is not a player in this game ({quote_list(self.names)})')

    def _where_we_are(self) -> str:
        if self.year == 0:
            return "no year has begun"
        if self.year_over():
            return f"year {self.year} is over"
        waiting = [name for name in self.names if name not in self.acted]
        if self.turn_complete():
            return f"year {self.year} has had {self.turn} of its {TURNS} turns"
        return f"turn {self.turn} of year {self.year} waits for {', '.join(waiting)}"

    def _check_year(self, event: ev.YearStarted) -> None:
        if event.year != self.year + 1:
            if self.year == 0:
                raise IllegalEvent(f"the first event is year 1, not year {event.year}")
            if event.year <= self.year:
                raise IllegalEvent(f"year {event.year} has already begun (this is year {self.year})")
            raise IllegalEvent(f"year {self.year + 1} comes next, not year {event.year}")
        if self.year:
            self._check_closing(f"year {event.year}")
        before = self.directions.get(self.year)
        if before is not None and event.direction == before:
            other = "counterclockwise" if before == "clockwise" else "clockwise"
            raise IllegalEvent(
                f"the cards pass the other way each year: year {self.year} passed {before}, "
                f"so year {event.year} passes {other}"
            )

    def _check_closing(self, what: str) -> None:
        """What must hold before ``what`` closes the year: its 6 turns played, no manual ability
        waiting for its VP, and no station beyond a MAX limit."""
        ending = what == "the end of the game"
        if not self.year_over() or (ending and self.year != YEARS):
            needed = f"the {TURNS}th turn of year {YEARS if ending else self.year}"
            raise IllegalEvent(f"{what} comes after {needed}: {self._where_we_are()}")
        self._check_nothing_pending(what)
        for name in self.names:
            for card, cells in self.stations[name].max_breaks():
                extra = len(cells) - (card.max or 0)
                raise IllegalEvent(
                    f"{name}'s station has {len(cells)} {card.name} (at {', '.join(map(where, cells))}), "
                    f"beyond its MAX {card.max}: remove {extra} before {what}"
                )

    def _check_nothing_pending(self, what: str, only: str | None = None) -> None:
        for name, cell in self.pending.items():
            if only is not None and name != only:
                continue
            label = self.stations[name].cells[cell].label
            raise IllegalEvent(
                f"{name}'s {label} at {where(cell)} waits for the VP of its ability, counted by hand "
                f"(an ability event), before {what}"
            )

    def _check_action(self, player: str) -> None:
        self._check_player(player)
        if self.year == 0:
            raise IllegalEvent('no year has begun: the first event is {"event": "year", "year": 1}')
        self._check_nothing_pending(f"{player}'s next action", only=player)
        if self.turn_complete():
            if self.turn == TURNS:
                after = "end" if self.year == YEARS else f"year {self.year + 1}"
                raise IllegalEvent(f"year {self.year} has had its {TURNS} turns: next is {after}")
        elif player in self.acted:
            raise IllegalEvent(
                f"{player} has already acted in turn {self.turn} of year {self.year}: one action per "
                f"player per turn (waiting for {', '.join(n for n in self.names if n not in self.acted)})"
            )

    def card_problem(self, card: Card) -> str | None:
        """Why this card cannot be read in this game (a type the header lacks, other data than an
        earlier read of its name), or None."""
        try:
            self._check_card(card)
        except IllegalEvent as error:
            return error.reason
        return None

    def _check_card(self, card: Card | None) -> None:
        if card is None:
            return
        if card.type not in self.types:
            raise IllegalEvent(
                f'the card "{card.name}" is of type "{card.type}", which is not one of the header\'s '
                f"types ({quote_list(self.types)})"
            )
        counted = card.ability.type if card.ability is not None else None
        if counted is not None and counted not in self.types:
            raise IllegalEvent(
                f'the ability of "{card.name}" counts "{counted}" locations, which is not one of the '
                f"header's types ({quote_list(self.types)})"
            )
        before = self.cards_seen.get(card.name)
        if before is not None and before != card:
            differences = "; ".join(card.differences(before))
            raise IllegalEvent(
                f'the card "{card.name}" was read before with other data ({differences}): '
                "copies of a card are identical"
            )

    def _check_cell(self, player: str, at: Cell, what: str) -> Station:
        station = self.stations[player]
        slot = station.cells.get(at)
        if slot is not None:
            raise IllegalEvent(f"{where(at)} in {player}'s station already holds {slot.named}")
        if not station.touches_a_location(at):
            raise IllegalEvent(
                f"{player} cannot build {what} at {where(at)}: it goes side by side (not diagonally) "
                "with a location of the station"
            )
        return station

    def _check_build(self, event: ev.Built) -> None:
        card, player = event.card, event.player
        self._check_card(card)
        station = self._check_cell(player, event.at, card.name)
        if self.credits[player] < card.cost:
            raise IllegalEvent(
                f"{player} has {plural(self.credits[player], 'credit')} and {card.name} costs "
                f"{card.cost}: a card that cannot be paid is not built"
            )
        if len(event.energy_from) != card.energy:
            raise IllegalEvent(
                f"{card.name} needs {plural(card.energy, 'energy cube')}: "
                f'"energy_from" names {len(event.energy_from)} (one reactor cell per cube)'
            )
        reach = station.distances_from(event.at)
        taken_from: dict[Cell, int] = {}
        for cell in event.energy_from:
            taken_from[cell] = taken_from.get(cell, 0) + 1
        for cell, taken in taken_from.items():
            slot = station.cells.get(cell)
            if slot is None or not slot.is_reactor:
                held = "nothing" if slot is None else slot.named
                raise IllegalEvent(
                    f"energy comes from a reactor, and {player}'s station has {held} at {where(cell)}"
                )
            if cell not in reach:
                raise IllegalEvent(
                    f"the {slot.kind} at {where(cell)} is more than 2 cards from {where(event.at)}: energy "
                    "comes from a reactor within distance 2, counted through built cards"
                )
            if slot.cubes < taken:
                raise IllegalEvent(
                    f"the {slot.kind} at {where(cell)} has {plural(slot.cubes, 'energy cube')} left, "
                    f"not the {taken} taken from it"
                )

    def _check_reactor(self, event: ev.ReactorBuilt) -> None:
        self._check_card(event.card)
        self._check_cell(event.player, event.at, "a power reactor")
        if self.credits[event.player] < REACTOR_COST:
            raise IllegalEvent(f"{event.player} has no credits left: a power reactor costs {REACTOR_COST}")
        if self.reactors_built >= POWER_REACTORS:
            raise IllegalEvent(f"all {POWER_REACTORS} power reactor cards of the box are built")

    def _check_ability(self, event: ev.AbilityCounted) -> None:
        self._check_player(event.player)
        slot = self.stations[event.player].cells.get(event.at)
        if slot is None or slot.kind != CARD or slot.card is None:
            raise IllegalEvent(f"{event.player}'s station has no face-up location card at {where(event.at)}")
        ability = slot.card.ability
        if ability is None or not ability.manual:
            raise IllegalEvent(f"{slot.card.name} at {where(event.at)} has no ability counted by hand")
        if slot.manual_vp is not None:
            raise IllegalEvent(f"the ability of {slot.card.name} at {where(event.at)} was counted already")
        if not ability.immediate and not (self.year == YEARS and self.year_over()):
            raise IllegalEvent(
                f"the delayed ability of {slot.card.name} is counted at the end, after the {TURNS}th "
                f"turn of year {YEARS}: {self._where_we_are()}"
            )

    def _check_objective(self, event: ev.ObjectiveCounted) -> None:
        objective = next((o for o in self.objectives if o.name == event.name), None)
        if objective is None:
            raise IllegalEvent(f'the header has no objective called "{event.name}"')
        if objective.kind != "manual":
            raise IllegalEvent(
                f'objective "{event.name}" is counted by the companion ({objective.measure}), not by hand'
            )
        if not (self.year == YEARS and self.year_over()):
            raise IllegalEvent(
                f"a manual objective is counted at the end, after the {TURNS}th turn of year {YEARS}: "
                f"{self._where_we_are()}"
            )
        if event.name in self.counted:
            raise IllegalEvent(f'objective "{event.name}" was counted already')
        given = [name for name, _ in event.counts]
        for name in given:
            if name not in self.points:
                raise IllegalEvent(f'"{name}" in the counts of objective "{event.name}" is not a player')
        missing = [name for name in self.names if name not in given]
        if missing:
            raise IllegalEvent(
                f'the counts of objective "{event.name}" give every player: {", ".join(missing)} missing'
            )

    def _check_remove(self, event: ev.CardRemoved) -> None:
        self._check_player(event.player)
        if not self.year_over():
            raise IllegalEvent(
                f"a card is removed at the end of a year, after its {TURNS}th turn: {self._where_we_are()}"
            )
        self._check_nothing_pending("a card is removed")
        station = self.stations[event.player]
        slot = station.cells.get(event.at)
        if slot is None:
            raise IllegalEvent(f"{event.player}'s station has nothing at {where(event.at)}")
        if slot.kind == PLACEHOLDER:
            raise IllegalEvent(f"the card at {where(event.at)} is already face down, a placeholder")
        if slot.kind != CARD or slot.card is None:
            raise IllegalEvent(
                f"the {slot.kind} at {where(event.at)} stays: only a card beyond its MAX is removed"
            )
        card = slot.card
        if card.max is None:
            raise IllegalEvent(f"{card.name} has no MAX limit: only a card beyond its MAX is removed")
        copies = len(station.copies(card.name))
        if copies <= card.max:
            raise IllegalEvent(
                f"{event.player}'s station has {copies} {card.name}, within its MAX {card.max}: "
                "only as many as necessary are removed"
            )

    def _check_end_counts(self) -> None:
        for name in self.names:
            for cell, slot in self.stations[name].uncounted_delayed():
                raise IllegalEvent(
                    f"the delayed ability of {name}'s {slot.label} at {where(cell)} is counted by hand: "
                    "its ability event comes before the end"
                )
        for objective in self.objectives:
            if objective.kind == "manual" and objective.name not in self.counted:
                raise IllegalEvent(
                    f'objective "{objective.name}" is counted by hand: its objective event comes before '
                    "the end"
                )
