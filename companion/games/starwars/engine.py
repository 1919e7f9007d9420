"""The Carcassonne: Star Wars rules engine.

A turn is: the player's tile, optionally one meeple, the battles that follow (dice arrive as
roll events), then scoring of what the tile completed. Records have no "end of turn" event,
so a turn without a battle is scored when the next event shows the turn is over (the next tile,
or ``end``); a meeple, which is the turn's last free choice, closes the turn at once.

Every check runs before anything changes: an illegal event leaves the game as it was.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from companion.games.base import Cell, Game, IllegalEvent, Moment, ScoreChange, Setup, leaders
from companion.games.shared_events import adjust_reason, describe_shared
from companion.games.starwars import events as ev
from companion.games.starwars import view, words
from companion.games.starwars.battle import Battle, Fighter, dice_for
from companion.games.starwars.board import Board, Domain, Meeple
from companion.games.starwars.phase import Phase
from companion.games.starwars.scoring import RULES, completed_score, final_score
from companion.games.starwars.setup import (
    SUPPLY,
    fighters,
    parse_setup,
)
from companion.games.starwars.tiles import PLANET, SIDES, Tile


def _dice_word(count: int) -> str:
    return f"{count} die" if count == 1 else f"{count} dice"


def _cells_json(cells: Sequence[Cell] | set[Cell]) -> list[list[int]]:
    return [list(c) for c in sorted(cells)]


class StarWarsGame(Game):
    name = "starwars"
    title = "Carcassonne: Star Wars"

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
        self.players = setup.players
        self.teams = setup.variant == "teams"
        self._turn_order = {p.name: i for i, p in enumerate(self.players)}
        self._fighter_of = fighters(setup)
        # Each fighter once, in turn order: the order fighters appear in battles and logs.
        self._fighters = list(dict.fromkeys(self._fighter_of.values()))

        self.board = Board()
        self.supply = {p.name: dict(SUPPLY) for p in self.players}
        self._points = {p.name: 0 for p in self.players}
        self._log: list[ScoreChange] = []
        self._phase = Phase.START
        self._turn = 0  # tiles placed after the start tile
        self._current: Cell | None = None  # the tile placed this turn
        self._meeple: Meeple | None = None  # the meeple placed this turn
        self._queue: list[Domain] = []  # contested domains whose battle has not started
        self._battle: Battle | None = None
        self._meeple_ids = 0
        self.battles: list[dict[str, Any]] = []  # every finished battle, round by round
        self.completed: list[dict[str, Any]] = []  # every domain completed during play

    @property
    def log(self) -> Sequence[ScoreChange]:
        return self._log

    @property
    def finished(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def current_player(self) -> str | None:
        """Who placed the latest tile: the turn under way or the one just closed (None at first)."""
        return self.players[(self._turn - 1) % len(self.players)].name if self._turn else None

    @property
    def turn_of(self) -> str | None:
        """Whose turn it is now: the player still placing a meeple or fighting out the battles of
        their tile, else the one whose tile comes next (None once the game is over)."""
        if self._phase in (Phase.MEEPLE, Phase.BATTLE):
            return self.current_player
        return None if self._phase is Phase.OVER else self.next_player

    @property
    def next_player(self) -> str:
        """Whose tile comes next."""
        return self.players[self._turn % len(self.players)].name

    def team_of(self, name: str) -> str | None:
        """The team a player plays in (``teams`` variant), else None."""
        return self._fighter_of[name].key if self.teams else None

    def own_points(self, name: str) -> int:
        """A player's own points; in ``teams`` their team's score adds its players' own."""
        return self._points[name]

    def scores(self) -> dict[str, int]:
        if not self.teams:
            return dict(self._points)
        team_total: dict[str, int] = {}
        for name, points in self._points.items():
            key = self._fighter_of[name].key
            team_total[key] = team_total.get(key, 0) + points
        return {p.name: team_total[self._fighter_of[p.name].key] for p in self.players}

    def copy(self) -> StarWarsGame:
        return copy.deepcopy(self)

    def meeples_on_board(self) -> list[Meeple]:
        return [m for domain in self.board.domains() for m in domain.meeples]

    # --- applying events -----------------------------------------------------------------------

    def apply(self, event: ev.Event) -> list[ScoreChange]:
        if self._phase is Phase.OVER and not isinstance(event, ev.ScoreAdjusted):
            raise IllegalEvent('the game is over: nothing but a score correction may follow "end"')
        logged = len(self._log)
        if isinstance(event, ev.TilePlaced):
            self._on_tile(event)
        elif isinstance(event, ev.MeeplePlaced):
            self._on_meeple(event)
        elif isinstance(event, ev.DiceRolled):
            self._on_roll(event)
        elif isinstance(event, ev.ScoreAdjusted):
            self._check_player(event.player)
            reason = adjust_reason(event)
            self._add(
                event.player, event.points, reason, "adjust", None, detail={"rule": RULES[("adjust", False)]}
            )
        elif isinstance(event, ev.GameEnded):
            self._on_end()
        else:
            raise IllegalEvent(f"not a Star Wars event: {event!r}")
        return self._log[logged:]

    def _check_player(self, name: str) -> None:
        if name not in self._turn_order:
            raise IllegalEvent(f'"{name}" is not a player in this game')

    def _on_tile(self, event: ev.TilePlaced) -> None:
        if self._phase is Phase.START:
            if event.player is not None:
                raise IllegalEvent('the first tile is the start tile: its "player" must be null')
            self.board.place(event.at, event.tile)
            self._phase = Phase.TILE
            return
        if event.player is None:
            raise IllegalEvent('only the first tile, the start tile, has "player": null')
        self._check_player(event.player)
        self._check_turn_can_end("the next tile")
        if event.player != self.next_player:
            raise IllegalEvent(f"it is {self.next_player}'s turn to place a tile, not {event.player}'s")
        reason = self.board.fit_error(event.at, event.tile)
        if reason:
            raise IllegalEvent(reason)
        self._end_open_turn()
        self.board.place(event.at, event.tile)
        self._turn += 1
        self._current = event.at
        self._meeple = None
        self._phase = Phase.MEEPLE

    def _on_meeple(self, event: ev.MeeplePlaced) -> None:
        self._check_player(event.player)
        if self._phase is Phase.BATTLE:
            raise IllegalEvent(self._battle_text(self._battle_or_pending()) + ": roll first")
        placed_by_them = event.player == self.current_player
        if placed_by_them and self._meeple is not None:
            raise IllegalEvent(f"{event.player} has already placed a meeple this turn")
        if self._phase is not Phase.MEEPLE or not placed_by_them:
            raise IllegalEvent(
                f"{event.player} may not place a meeple now: a meeple goes right after its player's own tile"
            )
        if self.supply[event.player][event.size] == 0:
            raise IllegalEvent(f"{event.player} has no {event.size} meeple left")
        domain, feature_index = self._meeple_target(event)
        meeple = Meeple(self._meeple_ids, event.player, event.size, event.at, feature_index)
        self._meeple_ids += 1
        domain.meeples.append(meeple)
        self.supply[event.player][event.size] -= 1
        self._meeple = meeple
        self._start_battles()

    def _meeple_target(self, event: ev.MeeplePlaced) -> tuple[Domain, int]:
        """The domain and feature a meeple event names, if the rules let it go there."""
        here = self._current
        assert here is not None
        if event.feature == PLANET:
            tile = self.board.tiles.get(event.at)
            if tile is None or tile.planet_index is None:
                raise IllegalEvent(f"there is no planet at {list(event.at)}")
            if event.at not in dict(self.board.planets_within_reach(here)):
                raise IllegalEvent(
                    f"the planet at {list(event.at)} is neither on the tile just placed at "
                    f"{list(here)} nor on one of the 8 cells around it"
                )
            return self.board.domain(event.at, tile.planet_index), tile.planet_index
        if event.at != here:
            raise IllegalEvent(
                f"a meeple goes on the tile just placed at {list(here)} (or on a planet around "
                f"it), not at {list(event.at)}"
            )
        feature_index = self.board.tiles[here].side_feature[SIDES.index(event.feature)]
        if feature_index < 0:
            raise IllegalEvent(
                f"no trade route or asteroid field touches side {event.feature} of the tile at {list(here)}"
            )
        domain = self.board.domain(here, feature_index)
        if domain.meeples:
            owners = ", ".join(sorted({m.player for m in domain.meeples}))
            raise IllegalEvent(f"that {domain.label} already holds a meeple ({owners})")
        return domain, feature_index

    def _on_roll(self, event: ev.DiceRolled) -> None:
        self._check_player(event.player)
        battle = self._battle_or_pending()
        if battle is None:
            raise IllegalEvent("no battle is waiting for dice")
        fighter = self._fighter_of[event.player]
        if fighter not in battle.fighters:
            names = ", ".join(f.label for f in battle.fighters)
            raise IllegalEvent(f"{event.player} is not fighting in this battle (fighters: {names})")
        if fighter.key not in battle.active:
            raise IllegalEvent(f"{fighter.label} is out of this battle and rolls no more")
        if fighter.key in battle.rolls:
            raise IllegalEvent(f"{fighter.label} has already rolled in round {battle.round}")
        wanted = battle.dice[fighter.key]
        if len(event.dice) != wanted:
            raise IllegalEvent(
                f"{fighter.label} rolls {_dice_word(wanted)} in this battle, not {len(event.dice)}"
            )
        if self._phase is Phase.MEEPLE:
            self._start_battles()
            battle = self._battle
            assert battle is not None
        battle.rolls[fighter.key] = (event.player, event.dice)
        if len(battle.rolls) == len(battle.active):
            self._finish_round(battle)

    def _on_end(self) -> None:
        if self._phase is Phase.START:
            raise IllegalEvent("the game cannot end before the start tile is placed")
        self._check_turn_can_end("the end of the game")
        self._end_open_turn()
        waiting = [d for d in self.board.domains() if d.meeples and not d.complete]
        for domain in sorted(waiting, key=lambda d: d.key):
            points, reason = final_score(domain)
            self._credit(domain, points, reason, final=True)
        self._phase = Phase.OVER

    def close_turn(self) -> list[ScoreChange]:
        """End the turn under way without a meeple: start its battles, or score it.

        Records need no event for this (the next tile or ``end`` closes a turn); the camera
        tracker calls it when it knows no meeple is coming, so the scoreboard need not wait.
        """
        if self._phase is not Phase.MEEPLE:
            raise IllegalEvent("no turn is waiting for its meeple")
        logged = len(self._log)
        self._start_battles()
        return self._log[logged:]

    # --- turn flow -----------------------------------------------------------------------------

    def _check_turn_can_end(self, what: str) -> None:
        battle = self._battle_or_pending()
        if battle is not None:
            raise IllegalEvent(f"{self._battle_text(battle)}: roll before {what}")

    def _end_open_turn(self) -> None:
        if self._phase is Phase.MEEPLE:
            self._start_battles()

    def _contested(self) -> list[Domain]:
        """Domains where this turn brought meeples of different fighters together, in the
        order records.md fixes: a planet attack first, then by the placed tile's sides N, E, S, W."""
        assert self._current is not None
        candidates = [domain for _, domain in self.board.domains_of_tile(self._current)]
        meeple = self._meeple
        if meeple is not None and meeple.cell != self._current:
            planet = self.board.planet_at(meeple.cell)
            assert planet is not None
            candidates.insert(0, planet)
        return [domain for domain in candidates if len(self._fighters_in(domain)) > 1]

    def _fighters_in(self, domain: Domain) -> list[Fighter]:
        keys = {self._fighter_of[m.player].key for m in domain.meeples}
        return [f for f in self._fighters if f.key in keys]

    def _make_battle(self, domain: Domain) -> Battle:
        fighters = tuple(self._fighters_in(domain))
        return Battle(domain, fighters, {f.key: dice_for(f, domain) for f in fighters}, self._turn)

    def _battle_or_pending(self) -> Battle | None:
        """The battle waiting for dice, also when the turn has not formally closed yet."""
        if self._phase is Phase.BATTLE:
            return self._battle
        if self._phase is Phase.MEEPLE:
            contested = self._contested()
            if contested:
                return self._make_battle(contested[0])
        return None

    def _battle_text(self, battle: Battle | None) -> str:
        assert battle is not None
        cell = list(battle.domain.anchor)
        waiting = " and ".join(f"{f.label} ({_dice_word(battle.dice[f.key])})" for f in battle.waiting_for())
        return f"a battle for the {battle.domain.label} at {cell} is waiting for dice from {waiting}"

    def _start_battles(self) -> None:
        self._queue = self._contested()
        self._next_battle()

    def _next_battle(self) -> None:
        if self._queue:
            self._battle = self._make_battle(self._queue.pop(0))
            self._phase = Phase.BATTLE
        else:
            self._battle = None
            self._score_turn()
            self._phase = Phase.TILE

    def _finish_round(self, battle: Battle) -> None:
        """All active fighters have rolled: score the round, then fight on or end the battle."""
        result = battle.judge()
        label = battle.domain.label
        detail = {
            "battle_for": battle.domain.kind,
            "round": battle.round,
            "dice": {battle.fighter(key).label: battle.dice[key] for key in battle.active},
            "rolls": [
                {
                    "fighter": battle.fighter(key).label,
                    "by": battle.rolls[key][0],
                    "dice": list(battle.rolls[key][1]),
                }
                for key in battle.active
            ],
            "meeples": self._pieces(battle.domain),
            "rule": RULES[("battle", False)],
        }
        for key in battle.active:
            roller = battle.rolls[key][0]
            if key in result.losers:
                dice = battle.dice[key]
                reason = (
                    f"battle for the {label}, round {battle.round}: lost with {_dice_word(dice)} = {dice}"
                )
                self._add(roller, dice, reason, "battle", battle.domain, detail=detail)
                self._withdraw(battle.domain, key)
            elif result.winner is None:
                top = result.highest[key]
                reason = f"battle for the {label}, round {battle.round}: tie for the highest die ({top}) = 1"
                self._add(roller, 1, reason, "battle", battle.domain, detail=detail)
        battle.next_round(result)
        if result.winner is not None:
            self.battles.append(battle.to_json())
            self._next_battle()

    def _withdraw(self, domain: Domain, fighter_key: str) -> None:
        for meeple in [m for m in domain.meeples if self._fighter_of[m.player].key == fighter_key]:
            domain.meeples.remove(meeple)
            self.supply[meeple.player][meeple.size] += 1

    def _score_turn(self) -> None:
        """Score what the turn's tile completed, in the order docs/records.md gives."""
        here = self._current
        assert here is not None
        candidates = [domain for _, domain in self.board.domains_of_tile(here)]
        candidates += [planet for _, planet in self.board.planets_within_reach(here)]
        for domain in candidates:
            if not domain.complete:
                continue
            # Kept for the scoreboard: any completed domain can be opened, scored or not.
            self.completed.append(
                {
                    "domain": domain.key,
                    "kind": domain.kind,
                    "cells": _cells_json(domain.cells),
                    "turn": self._turn,
                    "scored": bool(domain.meeples),
                }
            )
            if domain.meeples:
                points, reason = completed_score(domain)
                self._credit(domain, points, reason, final=False)
                self._withdraw(domain, self._fighter_of[domain.meeples[0].player].key)

    def _credit(self, domain: Domain, points: int, reason: str, final: bool) -> None:
        """Give a scored domain's points to its owner (after battles there is only one)."""
        owners = sorted({m.player for m in domain.meeples}, key=self._turn_order.__getitem__)
        assert len({self._fighter_of[p].key for p in owners}) == 1, "a scored domain has one owner"
        detail = {
            "tiles": len(domain.cells),
            "symbols": dict(sorted(domain.symbols.items())),
            "meeples": self._pieces(domain),
            "rule": RULES[(domain.kind, final)],
        }
        self._add(owners[0], points, reason, domain.kind, domain, final, detail)

    def _pieces(self, domain: Domain) -> list[dict[str, Any]]:
        """The meeples in a domain as JSON: who, which size, on which tile and feature."""
        pieces = []
        for m in domain.meeples:
            feature = self.board.tiles[m.cell].features[m.feature_index]
            spot = PLANET if feature.kind == PLANET else SIDES[feature.sides[0]]
            pieces.append({"player": m.player, "size": m.size, "at": list(m.cell), "feature": spot})
        return pieces

    def _add(
        self,
        player: str,
        points: int,
        reason: str,
        kind: str,
        domain: Domain | None,
        final: bool = False,
        detail: dict[str, Any] | None = None,
    ) -> None:
        self._points[player] += points
        team = self._fighter_of[player].key if self.teams else None
        key, cells = (domain.key, tuple(sorted(domain.cells))) if domain else (None, ())
        self._log.append(
            ScoreChange(player, points, reason, kind, self._turn, final, team, key, cells, detail)
        )

    # --- what may happen next (for the simulator and the camera tracker) -----------------------

    def legal_placements(self, tile: Tile) -> list[tuple[Cell, int, Tile]]:
        """Where the next tile may go, as (cell, quarter turns, tile as it would lie)."""
        if self._phase in (Phase.BATTLE, Phase.OVER) or self._battle_or_pending() is not None:
            return []
        return self.board.legal_placements(tile)

    def legal_meeples(self) -> list[ev.MeeplePlaced]:
        """Every meeple the player of the turn may place now."""
        if self._phase is not Phase.MEEPLE or self._meeple is not None:
            return []
        player, here = self.current_player, self._current
        assert player is not None and here is not None
        sizes = [size for size in ("small", "large") if self.supply[player][size] > 0]
        # each feature of the tile by its first side: two features of one tile can belong to one
        # route that loops back, and a meeple may stand on either
        tile = self.board.tiles[here]
        firsts = {
            feature: side for side, feature in reversed(list(enumerate(tile.side_feature))) if feature >= 0
        }
        spots = [
            (here, SIDES[side])
            for feature, side in sorted(firsts.items(), key=lambda item: item[1])
            if not self.board.domain(here, feature).meeples
        ]
        spots += [(cell, PLANET) for cell, _ in self.board.planets_within_reach(here)]
        return [ev.MeeplePlaced(player, at, feature, size) for at, feature in spots for size in sizes]

    def legal_events(self, chance: Any = None) -> list[Any]:
        """The legal events now. ``chance`` is a drawn ``Tile`` (its every place and turn) or the
        dice thrown, a tuple of values (the roll of each fighter the battle waits for with that
        many dice, by each player who may roll for it). Corrections by hand are not listed."""
        if self._phase is Phase.OVER:
            return []
        battle = self._battle_or_pending()
        events: list[Any] = list(self.legal_meeples())
        if battle is not None:
            if isinstance(chance, tuple):
                for fighter in battle.waiting_for():
                    if battle.dice[fighter.key] == len(chance):
                        events += [ev.DiceRolled(player, chance) for player in fighter.players]
            return events
        if isinstance(chance, Tile):
            player = None if self._phase is Phase.START else self.next_player
            events += [ev.TilePlaced(player, cell, lying) for cell, _, lying in self.legal_placements(chance)]
        if self._phase is not Phase.START:
            events.append(ev.GameEnded())
        return events

    def current_tile(self) -> Cell:
        """The cell of the tile placed this turn (the start tile's before any other)."""
        return self._current if self._current is not None else (0, 0)

    def entry_view(self) -> dict[str, Any]:
        from companion.games.starwars.entry import entry_view

        return entry_view(self)

    def pending_battle(self) -> Battle | None:
        """The battle the next roll events are for, if any. Read it, do not change it: while the
        turn has not closed yet this is a preview built for the question."""
        return self._battle_or_pending()

    # --- the picture of the moment (view.py) --------------------------------------------------

    def picture(self, change: ScoreChange | None = None) -> str:
        return view.picture(self, change)

    def describe(self, event: ev.Event) -> str:
        if isinstance(event, ev.ScoreAdjusted | ev.GameEnded):
            return describe_shared(event)
        return words.describe(event, self.board)

    def winners(self) -> list[str]:
        """The highest score wins; players (in ``teams``, teams) tied for it share the win."""
        return leaders(self.scores(), self.players) if self.finished else []

    def moment(self) -> Moment:
        return view.moment(self)

    def score_view(self, change: ScoreChange) -> dict[str, Any]:
        return view.score_view(self, change)
