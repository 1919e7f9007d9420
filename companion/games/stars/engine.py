"""The Among the Stars rules engine (peaceful game, shared/spec/stars.md).

Four years of six turns; in each turn every player does one action (build a location, build a
power reactor, or discard for 3 credits), in any order, since the players act at once. Each
event is first checked against every rule (``rule_check``), and only then applied (``_do``), which
cannot fail: an illegal event changes nothing, and ``check`` is the first half alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.games.base import Cell, Game, IllegalEvent, Moment, ScoreChange, Setup
from companion.games.shared_events import adjust_reason, describe_shared
from companion.games.stars import events as ev
from companion.games.stars.cards import Card
from companion.games.stars.checks import REACTOR_COST, TURNS, RuleChecks, plural
from companion.games.stars.scoring import (
    RULES,
    Scored,
    build_score,
    credits_score,
    delayed_score,
    manual_score,
    measure,
    objective_scores,
    reactors_score,
    where,
)
from companion.games.stars.setup import parse_setup, read_options
from companion.games.stars.station import CARD, CUBES, PLACEHOLDER, REACTOR, Slot, Station

CREDITS_A_YEAR = 10  # l.64
DISCARD_CREDITS = 3  # l.139


class StarsGame(RuleChecks, Game):
    name = "stars"
    title = "Among the Stars"

    # --- the record form -------------------------------------------------------------------------

    @classmethod
    def parse_setup(cls, header: Mapping[str, Any]) -> Setup:
        return parse_setup(header)

    @classmethod
    def parse_event(cls, obj: Mapping[str, Any]) -> ev.Event:
        return ev.parse_event(obj)

    @classmethod
    def event_to_json(cls, event: ev.Event) -> dict[str, Any]:
        return ev.event_to_json(event)

    # --- state -----------------------------------------------------------------------------------

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        options = read_options(setup.options, len(setup.players))
        self.types = options.types
        self.objectives = options.objectives
        self.names = [p.name for p in setup.players]
        self.stations = {name: Station() for name in self.names}
        self.credits = dict.fromkeys(self.names, 0)
        self.points = dict.fromkeys(self.names, 0)
        self._log: list[ScoreChange] = []
        self.year = 0  # the year under way (0 before year 1)
        self.turn = 0  # turns begun in this year
        self.acted: dict[str, ev.Action] = {}  # this turn's action of each player who has acted
        self.directions: dict[int, str | None] = {}  # each year's "pass"
        self.pending: dict[str, Cell] = {}  # a manual immediate ability waiting for its VP
        self.counted: dict[str, dict[str, int]] = {}  # manual objectives, as counted
        self.cards_seen: dict[str, Card] = {}  # every card read, by name (copies are identical)
        self.reactors_built = 0
        self.ended = False

    @property
    def log(self) -> Sequence[ScoreChange]:
        return self._log

    @property
    def finished(self) -> bool:
        return self.ended

    def scores(self) -> dict[str, int]:
        return dict(self.points)

    # --- applying --------------------------------------------------------------------------------

    def apply(self, event: ev.Event) -> list[ScoreChange]:
        self.rule_check(event)
        logged = len(self._log)
        self._do(event)
        return self._log[logged:]

    def check(self, event: Any) -> str | None:
        """Why the event is refused, or None; the checks change nothing, so no copy is needed."""
        try:
            self.rule_check(event)
        except IllegalEvent as error:
            return error.reason
        return None

    def _do(self, event: ev.Event) -> None:
        if isinstance(event, ev.ScoreAdjusted):
            self._add(
                event.player, Scored(event.points, adjust_reason(event), {"rule": RULES["adjust"]}), "adjust"
            )
        elif isinstance(event, ev.YearStarted):
            self.year += 1
            self.turn = 0
            self.acted = {}
            self.directions[self.year] = event.direction
            for name in self.names:
                self.credits[name] += CREDITS_A_YEAR
        elif isinstance(event, ev.Built | ev.ReactorBuilt | ev.Discarded):
            self._do_action(event)
        elif isinstance(event, ev.AbilityCounted):
            self._do_ability(event)
        elif isinstance(event, ev.ObjectiveCounted):
            self.counted[event.name] = dict(event.counts)
        elif isinstance(event, ev.CardRemoved):
            self._do_remove(event)
        else:
            self._final_scoring()
            self.ended = True

    # --- changes ---------------------------------------------------------------------------------

    def _do_action(self, event: ev.Action) -> None:
        if self.turn_complete():
            self.turn += 1
            self.acted = {}
        self.acted[event.player] = event
        card = event.card
        if card is not None:
            self.cards_seen.setdefault(card.name, card)
        player = event.player
        if isinstance(event, ev.Discarded):
            self.credits[player] += DISCARD_CREDITS
            return
        station = self.stations[player]
        if isinstance(event, ev.ReactorBuilt):
            self.credits[player] -= REACTOR_COST
            station.place(event.at, Slot(REACTOR, cubes=CUBES))
            self.reactors_built += 1
            return
        assert card is not None
        self.credits[player] -= card.cost
        for cell in event.energy_from:
            station.cells[cell].cubes -= 1
        slot = Slot(CARD, card=card)
        station.place(event.at, slot)
        scored = build_score(station, event.at, card)
        slot.scored = scored.points
        ability = card.ability
        if ability is not None and ability.immediate and ability.kind == "credits":
            self.credits[player] += ability.credits or 0
        if ability is not None and ability.immediate and ability.manual:
            self.pending[player] = event.at
        self._add(player, scored, "build", event.at)

    def _do_ability(self, event: ev.AbilityCounted) -> None:
        slot = self.stations[event.player].cells[event.at]
        assert slot.card is not None and slot.card.ability is not None
        slot.manual_vp = event.vp
        if slot.card.ability.immediate:
            slot.scored += event.vp
            del self.pending[event.player]
            self._add(
                event.player, manual_score(slot.card, event.at, event.vp, delayed=False), "ability", event.at
            )

    def _do_remove(self, event: ev.CardRemoved) -> None:
        station = self.stations[event.player]
        slot = station.cells[event.at]
        assert slot.card is not None
        lost = slot.scored
        if station.splits_without(event.at):
            slot.kind = PLACEHOLDER
            fate = "left face down as a placeholder"
        else:
            del station.cells[event.at]
            fate = "removed"
        reason = (
            f"{slot.card.name} at {where(event.at)} {fate}, MAX {slot.card.max} broken: "
            f"the {lost} VP it scored are lost = {-lost}"
        )
        detail = {"card": slot.card.data(), "at": list(event.at), "lost": lost, "rule": RULES["remove"]}
        self._add(event.player, Scored(-lost, reason, detail), "remove", event.at)

    def _final_scoring(self) -> None:
        """Objectives in header order; then each player's delayed abilities (in the order the
        cards were built), empty power reactors and credits (l.169-175)."""
        for objective in self.objectives:
            if objective.kind == "manual":
                measures = self.counted[objective.name]
            else:
                measures = {name: measure(objective, self.stations[name]) for name in self.names}
            for name, scored in objective_scores(objective, measures, self.names):
                self._add(name, scored, "objective", final=True)
        for name in self.names:
            station = self.stations[name]
            for cell, slot in station.cards():
                ability = slot.card.ability if slot.card else None
                if slot.card is not None and ability is not None and not ability.immediate:
                    self._add(
                        name, delayed_score(station, cell, slot.card, slot.manual_vp), "delayed", cell, True
                    )
            for kind, end_score in (
                ("reactors", reactors_score(station)),
                ("credits", credits_score(self.credits[name])),
            ):
                if end_score is not None:
                    self._add(name, end_score, kind, final=True)

    def _add(
        self, player: str, scored: Scored, kind: str, at: Cell | None = None, final: bool = False
    ) -> None:
        self.points[player] += scored.points
        # the log counts turns through the game (year 2's first is turn 7); "year" says which year
        extra: dict[str, Any] = {"year": self.year}
        if at is not None:
            extra["at"] = list(at)
        self._log.append(
            ScoreChange(
                player,
                scored.points,
                scored.reason,
                kind,
                (self.year - 1) * TURNS + self.turn if self.year else 0,
                final,
                detail=scored.detail,
                extra=extra,
            )
        )

    # --- the end ---------------------------------------------------------------------------------

    def winners(self) -> list[str]:
        """The most VP; then the most location cards; then the most credits; still tied: shared
        (l.179-183). Header order."""
        if not self.ended:
            return []

        def rank(name: str) -> tuple[int, int, int]:
            return (self.points[name], self.stations[name].location_cards(), self.credits[name])

        best = max(rank(name) for name in self.names)
        return [name for name in self.names if rank(name) == best]

    # --- for people ------------------------------------------------------------------------------

    def describe(self, event: ev.Event) -> str:
        return describe_event(event)

    def moment(self) -> Moment:
        from companion.games.stars.view import moment

        return moment(self)

    def legal_events(self, chance: Any = None) -> list[Any]:
        from companion.games.stars.legal import legal_events

        return legal_events(self, chance)

    def score_view(self, change: ScoreChange) -> dict[str, Any]:
        from companion.games.stars.view import score_view

        return score_view(self, change)


def describe_event(event: ev.Event) -> str:
    """One line for the timeline; it reads the event alone, so any event of a journal is told."""
    if isinstance(event, ev.YearStarted):
        passing = f", cards pass {event.direction}" if event.direction else ""
        return f"Year {event.year} begins: 10 credits each{passing}"
    if isinstance(event, ev.Built):
        card = event.card
        energy = f", energy from {', '.join(map(where, event.energy_from))}" if event.energy_from else ""
        return (
            f"{event.player} built {card.name} at {where(event.at)} ({plural(card.cost, 'credit')}{energy})"
        )
    if isinstance(event, ev.ReactorBuilt):
        given = f", giving up {event.card.name}" if event.card else ""
        return f"{event.player} built a power reactor at {where(event.at)}{given}"
    if isinstance(event, ev.Discarded):
        given = f" {event.card.name}" if event.card else " a card"
        return f"{event.player} discarded{given} for 3 credits"
    if isinstance(event, ev.AbilityCounted):
        return f"{event.player}'s card at {where(event.at)}: ability counted by hand, {event.vp} VP"
    if isinstance(event, ev.ObjectiveCounted):
        counts = ", ".join(f"{name} {count}" for name, count in event.counts)
        return f"Objective {event.name} counted by hand: {counts}"
    if isinstance(event, ev.CardRemoved):
        return f"{event.player} removed the card at {where(event.at)} (beyond its MAX)"
    return describe_shared(event)
