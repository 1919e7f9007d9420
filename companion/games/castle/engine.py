"""The Carcassonne: The Castle rules engine (castle.md).

A turn is: the tile, then optionally one follower (``meeple``), the scoring order (``order``) and
wall tiles 2 or 3 (``use``); then the turn's scoring, which has no event of its own: the first
event that cannot come before it (``take``, ``use`` of wall tile 1, the next ``tile``, ``end``)
carries it out, and until then it is worked out from the turn as it stands (``turn.py``) and
shown in the scores. After ``end`` only wall tiles 4 to 9 are played; final scoring is worked
out from them (``final.py``).

Every event is checked in full before anything changes (``refusals.py`` says why an event is
refused; ``_checked`` gives back the change to make), so an illegal event leaves the game as it
was and ``check`` says why without copying the game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.games.base import Cell, Game, IllegalEvent, Moment, ScoreChange, Setup, leaders
from companion.games.castle import entry, legal, refusals, view
from companion.games.castle import events as ev
from companion.games.castle.board import CastleBoard, CastleDomain, Follower
from companion.games.castle.final import FinalUse, final_scoring
from companion.games.castle.layout import parse_layout
from companion.games.castle.scoring import RULES
from companion.games.castle.setup import FOLLOWERS, parse_setup
from companion.games.castle.turn import (
    OPEN,
    OVER,
    SCORED,
    TILE,
    Keep,
    TurnPlan,
    TurnState,
    other,
    plan_turn,
    scoring_features,
)
from companion.games.castle.words import describe
from companion.games.shared_events import adjust_reason

Commit = Callable[[], list[ScoreChange]]


class CastleGame(Game):
    name = "castle"
    title = "Carcassonne: The Castle"

    # --- the record form ---------------------------------------------------------------------

    @classmethod
    def parse_setup(cls, header: Mapping[str, Any]) -> Setup:
        return parse_setup(header)

    @classmethod
    def parse_event(cls, obj: Mapping[str, Any]) -> ev.Event:
        return ev.parse_event(obj)

    @classmethod
    def event_to_json(cls, event: ev.Event) -> dict[str, Any]:
        return ev.event_to_json(event)

    # --- state ---------------------------------------------------------------------------------

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.layout = parse_layout(setup.options["board"])
        self.board = CastleBoard(self.layout)
        first, second = (p.name for p in setup.players)
        self.players: tuple[str, str] = (first, second)
        self.last_landing = setup.variant == "last-landing"
        self.points = dict.fromkeys(self.players, 0)
        self.supply = dict.fromkeys(self.players, FOLLOWERS)
        self._log: list[ScoreChange] = []
        self.phase = TILE
        self.placed = 0  # castle tiles placed
        self.tile_order: dict[Cell, int] = {}
        self.ranks: dict[Cell, tuple[int, ...]] = {}
        self.placer: str | None = None  # who placed the latest tile
        self.current: Cell | None = None  # where
        self.completed: list[CastleDomain] = []  # what the latest tile completed
        self.since_tile = 0  # meeple, order and use events since the latest tile
        self.follower: Follower | None = None  # the follower placed this turn
        self.order: list[CastleDomain] | None = None
        self.doubled: dict[int, int] = {}  # domain key -> wall tile 2 or 3, this turn
        self.due: list[tuple[str, int]] = []  # wall tiles due after this turn's scoring
        self.corners_left = frozenset(range(len(self.layout.corners)))
        self.extra = dict.fromkeys(self.players, 0)  # turns owed by wall tile 1
        self.held: dict[str, list[int]] = {name: [] for name in self.players}
        self.played: dict[str, list[int]] = {name: [] for name in self.players}
        self.taken: dict[int, int] = {}  # wall tile number -> how many were taken
        self.keeps: dict[str, Keep | None] = dict.fromkeys(self.players)
        self.final_uses: list[FinalUse] = []
        self.scored_features: list[dict[str, Any]] = []  # every feature completed during play
        self._followers = 0
        self._plan: TurnPlan | None = None  # the open turn's scoring, worked out when asked
        self._final: list[ScoreChange] | None = None

    # --- what the core reads -------------------------------------------------------------------

    @property
    def log(self) -> Sequence[ScoreChange]:
        """Every change of score: those made, then the open turn's scoring or the final scoring
        as they stand (castle.md: a record without ``end`` scores its open turn)."""
        pending = self.pending_changes()
        return [*self._log, *pending] if pending else self._log

    def pending_changes(self) -> list[ScoreChange]:
        if self.phase == OPEN:
            return list(self.plan().changes)
        if self.phase == OVER:
            return self.final_changes()
        return []

    def scores(self) -> dict[str, int]:
        totals = dict(self.points)
        for change in self.pending_changes():
            if change.player is not None:
                totals[change.player] += change.points
        return totals

    @property
    def finished(self) -> bool:
        return self.phase == OVER

    def winners(self) -> list[str]:
        """Every player with the highest score (both on a tie: castle.md, reading 20)."""
        return leaders(self.scores(), self.setup.players) if self.finished else []

    def describe(self, event: ev.Event) -> str:
        return describe(self, event)

    def moment(self) -> Moment:
        return view.moment(self)

    def legal_events(self, chance: Any = None) -> list[Any]:
        return legal.legal_events(self, chance)

    def entry_view(self) -> dict[str, Any]:
        return entry.entry_view(self)

    def score_view(self, change: ScoreChange) -> dict[str, Any]:
        return view.score_view(self, change)

    def picture(self, change: ScoreChange | None = None) -> str:
        return view.picture(self, change)

    # --- turn order ----------------------------------------------------------------------------

    @property
    def next_player(self) -> str:
        """Whose tile comes next: turns alternate, but each wall tile 1 played gives its player
        one more turn."""
        if self.placer is None:
            return self.players[0]
        if self.extra[self.placer] > 0:
            return self.placer
        return other(self.players, self.placer)

    def plan(self) -> TurnPlan:
        """The open turn's scoring as the turn stands now."""
        if self._plan is None:
            assert self.phase == OPEN and self.placer is not None
            self._plan = plan_turn(self._turn_state(self.order))
        return self._plan

    def _turn_state(self, order: Sequence[CastleDomain] | None) -> TurnState:
        assert self.placer is not None
        return TurnState(
            players=self.players,
            placer=self.placer,
            turn=self.placed,
            completed=self.completed,
            order=order,
            doubled=self.doubled,
            points=self.points,
            corners_left=self.corners_left,
            corner_of_space=self.layout.corner_of_space,
            last_landing=self.last_landing,
            keeps=self.keeps,
            first_laid=self.first_laid,
        )

    def scoring_now(self) -> list[CastleDomain]:
        """The features that score this turn, in the default order (nothing outside a turn)."""
        if self.phase != OPEN:
            return []
        return scoring_features(self._turn_state(None))

    def dues_now(self) -> list[tuple[str, int]]:
        """The wall tiles due and not yet taken: of the open turn's scoring, or the scored one's."""
        if self.phase == OPEN:
            return list(self.plan().dues)
        return list(self.due) if self.phase == SCORED else []

    def final_changes(self) -> list[ScoreChange]:
        if self._final is None:
            self._final = final_scoring(
                self.board, self.players, self.keeps, self.final_uses, self.placed, self.first_laid
            )
        return self._final

    def first_laid(self, domain: CastleDomain) -> tuple[int, int, int]:
        """When a feature was first laid: start spaces before every tile (in their order), then
        by the earliest tile it covers and the place its feature was listed on that tile."""
        if domain.starts:
            start = min(domain.starts)
            features = self.layout.starts[start].features
            rank = min(i for i in range(len(features)) if self.board.start_domain(start, i) is domain)
            return (0, start, rank)
        cell = domain.anchor
        tile = self.board.tiles[cell]
        ranks = self.ranks[cell]
        rank = min(ranks[i] for i in range(len(tile.features)) if self.board.domain(cell, i) is domain)
        return (1, self.tile_order[cell], rank)

    def keep_of(self, name: str) -> Keep | None:
        """A player's keep as it stands, the open turn's scoring included."""
        if self.phase == OPEN and name in self.plan().keeps:
            return self.plan().keeps[name]
        return self.keeps[name]

    # --- applying events -----------------------------------------------------------------------

    def apply(self, event: ev.Event) -> list[ScoreChange]:
        return self._checked(event)()

    def check(self, event: Any) -> str | None:
        try:
            self._checked(event)
        except IllegalEvent as error:
            return error.reason
        return None

    def _checked(self, event: ev.Event) -> Commit:
        """Check ``event`` against the rules without changing anything; give back the change."""
        if isinstance(event, ev.ScoreAdjusted):
            refusals.check_player(self, event.player)
            return lambda: self._adjust(event)
        if isinstance(event, ev.WallPlayed):
            domain = refusals.check_use(self, event)
            if event.wall == 1:
                return lambda: self._use_1(event.player)
            return lambda: self._use(event, domain)
        if self.phase == OVER:
            raise IllegalEvent("the game is over: after end only wall tiles 4 to 9 may be played")
        if isinstance(event, ev.TilePlaced):
            refusals.check_tile(self, event)
            return lambda: self._place(event)
        if isinstance(event, ev.FollowerPlaced):
            index, domain = refusals.check_follower(self, event)
            return lambda: self._follow(event, index, domain)
        if isinstance(event, ev.ScoringOrdered):
            chosen = refusals.check_order(self, event)
            return lambda: self._set_order(chosen)
        if isinstance(event, ev.WallTaken):
            refusals.check_take(self, event)
            return lambda: self._take(event)
        if isinstance(event, ev.GameEnded):
            refusals.check_no_due(self)
            return self._end
        raise IllegalEvent(f"not a Castle event: {event!r}")

    # --- the changes ---------------------------------------------------------------------------

    def _changed(self) -> None:
        self._plan = None
        self._final = None

    def _close_turn(self) -> None:
        """Carry out the open turn's scoring (the plan shown so far, the same objects)."""
        if self.phase != OPEN:
            return
        plan = self.plan()
        for change in plan.changes:
            assert change.player is not None
            self.points[change.player] += change.points
            self._log.append(change)
        for domain in plan.returning:
            for follower in domain.pieces:
                self.supply[follower.player] += 1
            domain.pieces.clear()
        self.keeps.update(plan.keeps)
        self.corners_left = self.corners_left - plan.claimed
        self.due = list(plan.dues)
        self.phase = SCORED
        self._changed()

    def _place(self, event: ev.TilePlaced) -> list[ScoreChange]:
        logged = len(self._log)
        self._close_turn()
        if self.placer == event.player:
            self.extra[event.player] -= 1  # a turn owed by wall tile 1
        self.board.place(event.at, event.tile)
        self.placed += 1
        self.tile_order[event.at] = self.placed
        self.ranks[event.at] = event.ranks or tuple(range(len(event.tile.features)))
        self.placer, self.current = event.player, event.at
        self.completed = [d for d in self.board.touched_by(event.at) if d.complete and d.kind != "courtyard"]
        for domain in self.completed:
            self.scored_features.append({"domain": domain.key, "kind": domain.kind, "turn": self.placed})
        self.since_tile = 0
        self.follower, self.order, self.doubled, self.due = None, None, {}, []
        self.phase = OPEN
        self._changed()
        return self._log[logged:]

    def _follow(self, event: ev.FollowerPlaced, index: int, domain: CastleDomain) -> list[ScoreChange]:
        follower = Follower(self._followers, event.player, event.at, index)
        self._followers += 1
        domain.pieces.append(follower)
        self.supply[event.player] -= 1
        self.follower = follower
        self.since_tile += 1
        self._changed()
        return []

    def _set_order(self, chosen: list[CastleDomain]) -> list[ScoreChange]:
        self.order = chosen
        self.since_tile += 1
        self._changed()
        return []

    def _take(self, event: ev.WallTaken) -> list[ScoreChange]:
        logged = len(self._log)
        self._close_turn()
        self.due.pop(0)
        self.held[event.player].append(event.wall)
        self.taken[event.wall] = self.taken.get(event.wall, 0) + 1
        self._changed()
        return self._log[logged:]

    def _use_1(self, player: str) -> list[ScoreChange]:
        logged = len(self._log)
        self._close_turn()
        self._spend(player, 1)
        self.extra[player] += 1
        self._changed()
        return self._log[logged:]

    def _use(self, event: ev.WallPlayed, domain: CastleDomain | None) -> list[ScoreChange]:
        self._spend(event.player, event.wall)
        if event.wall in (2, 3):
            assert domain is not None
            self.doubled[domain.key] = event.wall
            self.since_tile += 1
        else:
            self.final_uses.append(FinalUse(event.player, event.wall, domain))
        self._changed()
        return []

    def _spend(self, player: str, wall: int) -> None:
        self.held[player].remove(wall)
        self.played[player].append(wall)

    def _end(self) -> list[ScoreChange]:
        logged = len(self._log)
        self._close_turn()
        self.phase = OVER
        self.due = []
        self._changed()
        return self._log[logged:]

    def _adjust(self, event: ev.ScoreAdjusted) -> list[ScoreChange]:
        change = ScoreChange(
            event.player,
            event.points,
            adjust_reason(event),
            "adjust",
            self.placed,
            detail={"rule": RULES["adjust"]},
        )
        self.points[event.player] += event.points
        self._log.append(change)
        self._changed()
        return [change]
