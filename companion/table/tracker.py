"""The tracker: what the camera saw -> record events, or a prompt for a person.

It reads the game only through the engine's questions (whose turn, what is legal, which meeples
stand where) and changes it only through record events, so a correction made on a phone is
simply the state it reads next. It never scores a guess: a reading that is not sure, not
allowed, or not alone becomes a prompt and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from companion.games.base import Cell, IllegalEvent
from companion.games.starwars.board import Meeple
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.engine import Phase, StarWarsGame
from companion.games.starwars.spots import feature_letter
from companion.games.starwars.tiles import PLANET, SIDES, Tile, parse_tile
from companion.table.learning import TileLearning
from companion.table.meeple_match import match_cell
from companion.vision.gallery import Gallery
from companion.vision.labels import EMPTY, FALLEN, NO_MEEPLE, UNKNOWN, TileLabels
from companion.vision.reader import CellReading, SpotReading
from companion.vision.watcher import Observation

ACCEPT = 0.9  # below this a reading goes to a person
# A new meeple, where the player of the turn may place one, is recorded from this: on pairs of
# calibration styles neither trained on nor tested (python -m models.calibrate), 0.85 asks about
# 31 fewer of 9 339 spots seen standing than 0.9, and records none more of the wrong size (7 at
# either). Those pairs are single frames; games are read from the mean of 4, which is steadier.
MEEPLE_ACCEPT = 0.85
# On art the cell model does not know (ArtTrust.familiar False) the meeple model is as sure, and
# wrong, about art it takes for a meeple, and about a meeple's size on planets drawn unlike its
# training: there a new meeple is recorded only from 0.98, and only when the player's own colour
# has at least an even chance. Chosen on 12 held-out games of the third art family (their new
# meeples recorded wrong: 11 of 247 at 0.85, 2 of 205 so); docs/vision.md, "How a meeple seen
# becomes an event", point 5.
MEEPLE_ACCEPT_UNFAMILIAR = 0.98
MEEPLE_OWN_COLOUR = 0.5
# prompts a phone entry answers: about a tile not yet recorded, or a meeple this turn
TILE_PROMPTS = ("unsure-tile", "illegal-tile", "unknown-tile", "two-tiles", "start-tile", "unfamiliar-tile")
MEEPLE_PROMPTS = ("unsure-meeple", "meeple-colour", "two-meeples")
DOMINANT = 0.5  # a reading this likely is what the camera sees, allowed or not


@dataclass(frozen=True)
class Prompt:
    code: str  # e.g. "unsure-tile", "illegal-tile", "two-tiles", "fallen-meeple"
    message: str  # for the people at the table
    cells: tuple[Cell, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "cells": [list(c) for c in self.cells]}


class GameLink(Protocol):
    """The game the tracker feeds: the live table in the companion, a plain engine in tests."""

    def engine(self) -> StarWarsGame | None: ...

    def add(self, event: dict[str, Any]) -> None: ...


class DiceSource(Protocol):
    """Where battle dice come from: the trays (issue 6), or the simulated table."""

    def poll(self, engine: StarWarsGame) -> list[dict[str, Any]]:
        """The rolls reported since the last poll, as record events."""
        ...


def _standing(spot: SpotReading) -> float:
    """How likely a meeple stands at this spot, of any colour and size."""
    return spot.chance(lambda name: name not in (NO_MEEPLE, FALLEN))


def _at(cell: Cell) -> list[int]:
    return [cell[0], cell[1]]


def _meeple_places(engine: StarWarsGame) -> dict[tuple[Cell, str], set[str]]:
    """Where the player of the turn may place a meeple now, with the sizes they still hold."""
    places: dict[tuple[Cell, str], set[str]] = {}
    for option in engine.legal_meeples():
        places.setdefault((option.at, option.feature), set()).add(option.size)
    return places


def _feature_index(tile: Tile, letter: str | None) -> int | None:
    if letter is None:
        return None
    return tile.planet_index if letter == PLANET else tile.side_feature[SIDES.index(letter)]


class Tracker:
    def __init__(
        self,
        link: GameLink,
        labels: TileLabels,
        dice: DiceSource | None = None,
        on_change: Callable[[], None] | None = None,
        gallery: Gallery | None = None,
    ) -> None:
        self.link = link
        self.labels = labels
        # the user's own tiles, from enrolment and from every tile a person entered or fixed
        self.learning = TileLearning(gallery if gallery is not None else Gallery(), load_catalog().start.tile)
        # each tile class as a tile, once
        self._lyings = [parse_tile(c) if isinstance(c, dict) else None for c in labels.classes]
        self.dice = dice
        self.on_change = on_change
        self.prompts: dict[tuple[str, tuple[Cell, ...]], Prompt] = {}
        self.status: str | None = None
        self.events: list[dict[str, Any]] = []  # what this tracker added, in order
        self._known: dict[int, Meeple] = {}  # meeples the rules had on the board, by id
        self._returned: dict[Cell, list[Meeple]] = {}  # sent home, perhaps still on the table
        self._raised_at: dict[tuple[str, tuple[Cell, ...]], tuple[object, ...]] = {}
        self.held_rolls: list[dict[str, Any]] = []  # reported by the trays, not yet recorded
        self._last_spot: dict[int, str] = {}  # where the camera last saw each meeple, by id

    # --- what the table sees -------------------------------------------------------------------

    def open_prompts(self) -> list[Prompt]:
        engine = self.link.engine()
        if engine is not None:
            self._drop_answered(engine)
        return list(self.prompts.values())

    @staticmethod
    def _moment(engine: StarWarsGame) -> tuple[object, ...]:
        return (engine.turn, engine.phase, tuple(m.id for m in engine.meeples_on_board()))

    def _drop_answered(self, engine: StarWarsGame) -> None:
        """Forget the prompts someone answered on the phone: the tile they asked about is now
        recorded, or the turn their meeple belonged to has moved on."""
        self.learning.learn(engine)
        for key, prompt in list(self.prompts.items()):
            if prompt.code in TILE_PROMPTS:
                answered = all(c in engine.board.tiles for c in prompt.cells)
                if prompt.code == "start-tile":
                    answered = engine.phase is not Phase.START
            elif prompt.code in MEEPLE_PROMPTS:
                answered = self._raised_at.get(key) != self._moment(engine)
            else:  # what the table shows (a fallen or missing meeple): cleared when seen again
                continue
            if answered:
                del self.prompts[key]

    def observe(self, observation: Observation) -> list[dict[str, Any]]:
        """Turn one observation into events; returns the events added."""
        added: list[dict[str, Any]] = []
        if observation.problem is not None:
            self.status = observation.message
            self._changed()
            return added
        engine = self.link.engine()
        if engine is None:
            self.status = "no game is under way: start one on the setup page"
            self._changed()
            return added
        self._drop_answered(engine)
        readings = {r.cell: r for r in observation.readings}
        for key in [k for k in self.prompts if any(c in readings for c in k[1])]:
            del self.prompts[key]
        start = readings.get((0, 0))
        if start is not None and (0, 0) in engine.board.tiles and self.learning.art.familiar is None:
            # a game resumed after a restart: its start tile lay there before this tracker began
            best, chance = start.best()
            self.learning.art.start_read(self._lyings[best] if chance >= DOMINANT else None, chance >= ACCEPT)
        new_tiles: list[CellReading] = []
        for reading in readings.values():
            # where the change is a tile's size and shape a tile was laid, though the model
            # reads felt: on a box it never saw, it takes some tiles for felt
            laid = reading.cell in observation.appeared
            if (
                self._is_empty(reading)
                and not laid
                and not self.learning.still_there(reading.cell, reading.window)
            ):
                self.learning.forget(reading.cell)  # a window kept for a tile taken away no longer shows it
            elif reading.cell not in engine.board.tiles:
                new_tiles.append(reading)
        if len(new_tiles) > 1:
            cells = tuple(sorted(r.cell for r in new_tiles))
            for cell in cells:
                self.learning.forget(cell)
            self._prompt(
                "two-tiles",
                f"{len(cells)} new tiles at once ({', '.join(str(list(c)) for c in cells)}): "
                "lay one tile per turn, or enter them on the phone",
                cells,
            )
        elif new_tiles:
            added += self._new_tile(engine, new_tiles[0])
        engine = self.link.engine()
        assert engine is not None
        for reading in readings.values():
            tile = engine.board.tiles.get(reading.cell)
            if tile is None:
                continue
            best, confidence = reading.best()
            gone = self.labels.classes[best] == EMPTY and confidence >= ACCEPT
            if gone and not self.learning.still_there(reading.cell, reading.window):
                self._prompt(
                    "tile-gone", f"the tile at {_at(reading.cell)} has gone: put it back", (reading.cell,)
                )
        if not any(p.code == "two-tiles" for p in self.prompts.values()):
            added += self._meeples(readings)
        added += self.poll_dice()
        notes = (self.learning.message, observation.message)
        self.status = "; ".join(note for note in notes if note) or None
        self._changed()
        return added

    def cells_to_recheck(self, read: set[Cell]) -> list[Cell]:
        """Tiles the camera should look at again though they seemed unchanged: where the player
        of the turn may place a meeple now."""
        engine = self.link.engine()
        if engine is None or engine.phase is not Phase.MEEPLE:
            return []
        return sorted({cell for cell, _ in _meeple_places(engine)} - read)

    def poll_dice(self) -> list[dict[str, Any]]:
        """Take the rolls the trays report. A roll no battle is waiting for is kept, not dropped:
        most likely the camera missed the meeple that started the battle, and once someone
        enters it on the phone the roll counts."""
        if self.dice is not None:
            engine = self.link.engine()
            if engine is not None:
                self.held_rolls += self.dice.poll(engine)
        added: list[dict[str, Any]] = []
        self.prompts.pop(("not-allowed", ()), None)  # raised again below if a roll is still refused
        while self.held_rolls:
            engine = self.link.engine()
            battle = engine.pending_battle() if engine is not None else None
            if battle is None:
                break
            roll = self.held_rolls[0]
            rollers = {player for fighter in battle.waiting_for() for player in fighter.players}
            if roll.get("player") not in rollers and (roll.get("meta") or {}).get("source") == "tray":
                # that fighter's roll came another way (typed on the phone) or its battle has
                # ended: a tray's late reading must not hold up the rolls behind it
                self.held_rolls.pop(0)
                continue
            if not self._add(roll, ()):
                break
            self.held_rolls.pop(0)
            added.append(roll)
        engine = self.link.engine()
        waiting = engine is not None and engine.pending_battle() is None and bool(self.held_rolls)
        if waiting:
            self._prompt(
                "dice-without-battle",
                f"the trays report {len(self.held_rolls)} roll(s), but no battle is waiting: did "
                "the camera miss a meeple? Enter it on the phone and the roll will count",
                (),
            )
        else:
            self.prompts.pop(("dice-without-battle", ()), None)
        return added

    # --- tiles ---------------------------------------------------------------------------------

    def _is_empty(self, reading: CellReading) -> bool:
        best, confidence = reading.best()
        return self.labels.classes[best] == EMPTY and confidence >= DOMINANT

    def _new_tile(self, engine: StarWarsGame, reading: CellReading) -> list[dict[str, Any]]:
        cell = reading.cell
        probs = reading.tile_probs
        unknown = float(probs[self.labels.index_of(UNKNOWN)])
        start = engine.phase is Phase.START
        if start and cell != (0, 0):
            self._prompt("start-tile", "the start tile should be the first tile on the mat", (cell,))
            return []
        legal: list[tuple[float, Tile]] = []
        illegal: list[tuple[float, Tile]] = []
        for index, p in enumerate(probs):
            lying = self._lyings[index]
            if lying is None:
                continue
            fits = start or engine.board.fit_error(cell, lying) is None
            (legal if fits else illegal).append((float(p), lying))
        best_legal = max(legal, key=lambda x: x[0], default=(0.0, None))
        best_illegal = max(illegal, key=lambda x: x[0], default=(0.0, None))
        best_index, best_chance = reading.best()
        guessed = self._lyings[best_index] if best_chance >= DOMINANT else None
        if start:
            self.learning.art.start_read(guessed, best_chance >= ACCEPT)
        if not self.learning.art.familiar:
            return self._by_gallery(engine, reading, guessed)
        events = self._by_model(engine, reading, unknown, best_legal, best_illegal)
        self.learning.keep(cell, reading.window, best_legal[1] if events else None, guessed)
        if not start:
            self.learning.art.new_tile(asked=not events)
        return events

    def _by_model(
        self,
        engine: StarWarsGame,
        reading: CellReading,
        unknown: float,
        best_legal: tuple[float, Tile | None],
        best_illegal: tuple[float, Tile | None],
    ) -> list[dict[str, Any]]:
        cell = reading.cell
        where = _at(cell)
        if unknown >= DOMINANT:
            self._prompt(
                "unknown-tile",
                f"the tile at {where} is not one the companion knows: enter it on the phone",
                (cell,),
            )
            return []
        if best_legal[1] is not None and best_legal[0] >= ACCEPT:
            learnt = self.learning.read(engine, cell, reading.window)
            if learnt is not None and learnt.sure and learnt.tile != best_legal[1]:
                self._prompt(
                    "unsure-tile",
                    f"the tile at {where} reads as {best_legal[1].describe()}, but looks like "
                    f"{learnt.tile.describe()}, as a person entered before: check it on the phone",
                    (cell,),
                )
                return []
            return self._emit_tile(engine, cell, best_legal[1], best_legal[0])
        if best_illegal[1] is not None and best_illegal[0] >= DOMINANT:
            self._prompt(
                "illegal-tile",
                f"the tile at {where} ({best_illegal[1].describe()}) does not fit its neighbours: "
                "check it, or fix it on the phone",
                (cell,),
            )
            return []
        guess = best_legal[1] or best_illegal[1]
        shown = guess.describe() if guess is not None else "?"
        self._prompt(
            "unsure-tile",
            f"not sure about the tile at {where} (perhaps {shown}, {best_legal[0]:.0%}): "
            "straighten it or enter it on the phone",
            (cell,),
        )
        return []

    def _by_gallery(
        self, engine: StarWarsGame, reading: CellReading, guessed: Tile | None
    ) -> list[dict[str, Any]]:
        """A new tile of art the model does not know: read by the user's gallery, or asked."""
        cell = reading.cell
        learnt = self.learning.read(engine, cell, reading.window)
        if learnt is not None and learnt.sure:
            events = self._emit_tile(engine, cell, learnt.tile, learnt.score, by_gallery=True)
            if events:
                self.learning.keep(cell, reading.window, learnt.tile, guessed)
            return events
        self.learning.keep(cell, reading.window, None, guessed)
        self._prompt(
            "unfamiliar-tile",
            f"the companion does not know this box's tiles well enough yet: enter the tile at "
            f"{_at(cell)} on the phone, and it will learn it",
            (cell,),
        )
        return []

    def _emit_tile(
        self, engine: StarWarsGame, cell: Cell, tile: Tile, confidence: float, by_gallery: bool = False
    ) -> list[dict[str, Any]]:
        player = None if engine.phase is Phase.START else engine.next_player
        # the model gives a probability; the gallery how alike the tile and a picture are (-1 to 1)
        how_sure = (
            {"read_by": "gallery", "match_score": round(confidence, 4)}
            if by_gallery
            else {"confidence": round(confidence, 4)}
        )
        event = {
            "event": "tile",
            "player": player,
            "at": _at(cell),
            "tile": tile.to_json(),
            "meta": {"source": "camera", **how_sure},
        }
        return [event] if self._add(event, (cell,)) else []

    # --- meeples -------------------------------------------------------------------------------

    def _meeples(self, readings: dict[Cell, CellReading]) -> list[dict[str, Any]]:
        engine = self.link.engine()
        assert engine is not None
        standing = {m.id: m for m in engine.meeples_on_board()}
        # meeples the rules sent home stay on the table until someone takes them back
        for key in [k for k in self._known if k not in standing]:
            gone = self._known.pop(key)
            self._last_spot.pop(key, None)
            self._returned.setdefault(gone.cell, []).append(gone)
        self._known.update(standing)
        colour_of = {p.name: p.color for p in engine.players}
        places = _meeple_places(engine)
        # on art the model does not know, it takes patches of art for meeples: there only a sure
        # reading asks about a meeple no one may place, or one fallen over (docs/vision.md)
        unfamiliar = self.learning.art.familiar is False
        new: list[tuple[Cell, SpotReading, str]] = []
        strays: list[tuple[Cell, SpotReading]] = []
        doubtful: list[Cell] = []  # a known meeple seen elsewhere where a new one may now stand
        for cell, reading in readings.items():
            tile = engine.board.tiles.get(cell)
            if tile is None:
                continue
            seen: list[tuple[SpotReading, int | None]] = []
            fallen = False
            for spot in reading.meeples():
                if spot.label == FALLEN:
                    # on unknown art, only when something surely lies or stands there: a weaker
                    # reading is most likely art, and must not hide a missing meeple either
                    if (
                        not unfamiliar
                        or spot.chance(lambda name: name != NO_MEEPLE) >= MEEPLE_ACCEPT_UNFAMILIAR
                    ):
                        fallen = True
                        self._prompt(
                            "fallen-meeple",
                            f"a meeple has fallen over on the tile at {_at(cell)}: stand it up",
                            (cell,),
                        )
                    continue
                seen.append((spot, _feature_index(tile, feature_letter(tile, spot.spot))))
            expected = [m for m in standing.values() if m.cell == cell]
            match = match_cell(seen, expected, colour_of, self._last_spot)
            for spot, meeple in match.known:
                self._last_spot[meeple.id] = spot.spot
            for spot, _meeple in match.moved:
                if (cell, feature_letter(tile, spot.spot)) in places:
                    doubtful.append(cell)
            # re-read now: the meeples sent home that are not seen were taken back
            returned = self._returned.pop(cell, [])
            still = match_cell(match.new, returned, colour_of, {})
            if still.known:
                self._returned[cell] = [meeple for _, meeple in still.known]
            for spot, _ in still.new:
                letter = feature_letter(tile, spot.spot)
                if letter is not None and (cell, letter) in places:
                    new.append((cell, spot, letter))
                else:
                    strays.append((cell, spot))
            if not fallen:
                for meeple in match.unseen:
                    self._prompt(
                        "missing-meeple",
                        f"{meeple.player}'s meeple on the tile at {_at(cell)} is not where it was: "
                        "put it back, or fix it on the phone",
                        (cell,),
                    )
        if unfamiliar:
            strays = [(cell, spot) for cell, spot in strays if _standing(spot) >= MEEPLE_ACCEPT_UNFAMILIAR]
            # of several new spots, those below the familiar bar are most likely art; two or more
            # above it still ask "two-meeples" below, and only faint ones ask once
            likely = [n for n in new if _standing(n[1]) >= MEEPLE_ACCEPT]
            if len(new) > 1 and not likely:
                self._prompt(
                    "unsure-meeple",
                    "not sure whether a meeple was placed: check it or enter it on the phone",
                    tuple(sorted({n[0] for n in new})),
                )
                return []
            new = likely or new
        for cell, spot in strays:
            self._prompt(
                "stray-meeple",
                f"a meeple ({spot.label}) at {_at(cell)} that the game does not have, where no one "
                "may place one now: take it away, or fix the record on the phone",
                (cell,),
            )
        if len(new) > 1:
            cells = tuple(sorted({n[0] for n in new}))
            seen_text = ", ".join(f"{spot.label} at {_at(cell)}" for cell, spot, _ in new)
            self._prompt(
                "two-meeples",
                f"more than one new meeple ({seen_text}): a player places one meeple per turn",
                cells,
            )
            return []
        if not new:
            for cell in doubtful:
                self._prompt(
                    "unsure-meeple",
                    f"is there a new meeple on the planet at {_at(cell)}? The camera sees one meeple "
                    "where it saw another: check them, or enter the new one on the phone",
                    (cell,),
                )
            return []
        cell, spot, letter = new[0]
        return self._new_meeple(engine, cell, spot, letter, places[(cell, letter)], colour_of)

    def _new_meeple(
        self,
        engine: StarWarsGame,
        cell: Cell,
        spot: SpotReading,
        letter: str,
        allowed: set[str],
        colour_of: dict[str, str],
    ) -> list[dict[str, Any]]:
        player = engine.current_player
        assert player is not None  # a new meeple is only looked for where the player may place one
        sizes = spot.standing_by(1)
        size = max(allowed, key=lambda s: sizes.get(s, 0.0))
        unfamiliar = self.learning.art.familiar is False
        # a size the rules rule out, seen clearly, asks; on art the model does not know it reads
        # sizes far less surely (planets drawn unlike its training look large), so only surely
        ruled_out_from = MEEPLE_ACCEPT_UNFAMILIAR if unfamiliar else DOMINANT
        ruled_out = [s for s in sizes if s not in allowed and sizes[s] >= ruled_out_from]
        if ruled_out:
            self._prompt(
                "not-allowed",
                f"a {ruled_out[0]} meeple appeared at {_at(cell)}, but {player} has none left: "
                "check it, or fix it on the phone",
                (cell,),
            )
            return []
        # The player holds no meeple of a size they have used up: then only how sure the camera
        # is that a meeple is there counts, not which size it looks; the chance that it lies
        # rather than stands does not lower it (a spot read as lying asks "fallen-meeple" above).
        confidence = spot.chance(lambda name: name != NO_MEEPLE) if len(allowed) == 1 else sizes[size]
        unsure = f"not sure about a meeple on the tile at {_at(cell)}: check it or enter it on the phone"
        if confidence < (MEEPLE_ACCEPT_UNFAMILIAR if unfamiliar else MEEPLE_ACCEPT):
            self._prompt("unsure-meeple", unsure, (cell,))
            return []
        colours = spot.standing_by(0)
        colour = max(colours, key=lambda c: colours[c])
        # The turn order says whose meeple it is, as it does for tiles; the colour only checks it.
        if colour != colour_of[player] and colours[colour] >= DOMINANT:
            self._prompt(
                "meeple-colour",
                f"a {colour} meeple appeared at {_at(cell)}, but it is {player}'s turn ({colour_of[player]})",
                (cell,),
            )
            return []
        # on unknown art the player's colour must also have at least an even chance
        if unfamiliar and colours.get(colour_of[player], 0.0) < MEEPLE_OWN_COLOUR:
            self._prompt("unsure-meeple", unsure, (cell,))
            return []
        event = {
            "event": "meeple",
            "player": player,
            "at": _at(cell),
            "feature": letter,
            "size": size,
            "meta": {"source": "camera", "confidence": round(confidence, 4)},
        }
        before = {m.id for m in engine.meeples_on_board()}
        if not self._add(event, (cell,)):
            return []
        after = self.link.engine()
        assert after is not None
        for meeple in after.meeples_on_board():
            if meeple.id not in before:
                self._last_spot[meeple.id] = spot.spot
        return [event]

    # --- plumbing ------------------------------------------------------------------------------

    def _add(self, event: dict[str, Any], cells: tuple[Cell, ...]) -> bool:
        try:
            self.link.add(event)
        except IllegalEvent as error:
            self._prompt(
                "not-allowed", f"the camera saw something the rules do not allow: {error.reason}", cells
            )
            return False
        self.events.append(event)
        return True

    def _prompt(self, code: str, message: str, cells: tuple[Cell, ...]) -> None:
        self.prompts[(code, cells)] = Prompt(code, message, cells)
        engine = self.link.engine()
        if engine is not None:
            self._raised_at[(code, cells)] = self._moment(engine)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
