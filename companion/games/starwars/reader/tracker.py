"""The tracker: what the camera saw -> record events, or a prompt for a person.

It reads the game only through the engine's questions (whose turn, what is legal, which meeples
stand where) and changes it only through record events, so a correction made on a phone is
simply the state it reads next. It never scores a guess: a reading that is not sure, not
allowed, or not alone becomes a prompt and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from companion.games.base import Cell, IllegalEvent
from companion.games.starwars.board import Meeple
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.phase import Phase
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.reader.learning import TileLearning
from companion.games.starwars.reader.meeple_changes import FirstSeen
from companion.games.starwars.reader.meeple_events import (
    DOMINANT,
    MEEPLE_PROMPTS,
    MeepleEvents,
    cell_json,
    meeple_places,
)
from companion.games.starwars.tiles import Tile, parse_tile
from companion.live.table import NotRecorded
from companion.table.links import GameLink
from companion.vision.gallery import Gallery
from companion.vision.gallery_match import CHOICES
from companion.vision.labels import EMPTY, UNKNOWN, TileLabels
from companion.vision.reader import CellReading
from companion.vision.watcher import Observation

ACCEPT = 0.9  # below this a reading goes to a person
# prompts a phone entry answers about a tile not yet recorded (the meeples': MEEPLE_PROMPTS)
TILE_PROMPTS = ("unsure-tile", "illegal-tile", "unknown-tile", "two-tiles", "start-tile", "unfamiliar-tile")
# those a person answers by entering the one tile at the prompt's cell
ENTER_TILE_PROMPTS = ("unsure-tile", "illegal-tile", "unknown-tile", "unfamiliar-tile")


@dataclass(frozen=True)
class Prompt:
    code: str  # e.g. "unsure-tile", "illegal-tile", "two-tiles", "fallen-meeple"
    message: str  # for the people at the table
    cells: tuple[Cell, ...] = ()
    # for a tile asked about: its likeliest ways of lying, first the likeliest, for the phone
    # to offer as one-tap answers (none when the camera has no idea)
    choices: tuple[Tile, ...] = ()

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"code": self.code, "message": self.message}
        obj["cells"] = [list(c) for c in self.cells]
        if self.choices:
            obj["choices"] = [tile.to_json() for tile in self.choices]
            obj["choice_texts"] = [tile.describe() for tile in self.choices]  # for the phone's buttons
        return obj


class StarWarsLink:
    """The game a tracker feeds (``companion.table.links``), read as a Star Wars game: any other
    game under way is no game for this tracker."""

    def __init__(self, link: GameLink) -> None:
        self.link = link

    def engine(self) -> StarWarsGame | None:
        engine = self.link.engine()
        return engine if isinstance(engine, StarWarsGame) else None

    def add(self, event: dict[str, Any]) -> None:
        self.link.add(event)


class DiceSource(Protocol):
    """Where battle dice come from: the trays (issue 6), or the simulated table."""

    def poll(self, engine: StarWarsGame) -> list[dict[str, Any]]:
        """The rolls reported since the last poll, as record events."""
        ...


class Tracker(MeepleEvents):
    link: StarWarsLink

    def __init__(
        self,
        link: GameLink,
        labels: TileLabels,
        dice: DiceSource | None = None,
        on_change: Callable[[], None] | None = None,
        gallery: Gallery[Tile] | None = None,
        start_tile: Tile | None = None,
        box_counts: Mapping[Tile, int] | None = None,
    ) -> None:
        """``start_tile``: the box's start tile, as its scan is upright (the shipped catalog's
        by default). ``box_counts``: how many tiles of each type the enrolled box holds, where
        the user said."""
        self.link = StarWarsLink(link)
        self.labels = labels
        # the user's own tiles, from enrolment and from every tile a person entered or fixed
        self.learning = TileLearning(
            gallery if gallery is not None else tile_gallery(),
            start_tile if start_tile is not None else load_catalog().start.tile,
        )
        self.learning.counts = box_counts
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
        self._first_seen = FirstSeen()  # when each patch of change on a tile appeared

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
            if gone and not self.learning.still_there(reading.cell, reading.window, tile):
                self._prompt(
                    "tile-gone",
                    f"the tile at {cell_json(reading.cell)} has gone: put it back",
                    (reading.cell,),
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
        return sorted({cell for cell, _ in meeple_places(engine)} - read)

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
        events = self._by_model(engine, reading, unknown, best_legal, best_illegal, legal)
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
        legal: list[tuple[float, Tile]],
    ) -> list[dict[str, Any]]:
        cell = reading.cell
        where = cell_json(cell)
        if unknown >= DOMINANT:
            self._prompt(
                "unknown-tile",
                f"the tile at {where} is not one the companion knows: enter it on the phone",
                (cell,),
            )
            return []
        if best_legal[1] is not None and best_legal[0] >= ACCEPT:
            learnt = self.learning.read(engine, cell, reading.window, second_opinion=True)
            if learnt is not None and learnt.sure and learnt.tile != best_legal[1]:
                self._prompt(
                    "unsure-tile",
                    f"the tile at {where} reads as {best_legal[1].describe()}, but looks like "
                    f"{learnt.tile.describe()}, as a person entered before: check it on the phone",
                    (cell,),
                    (learnt.tile, best_legal[1]),
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
            self._likeliest(engine, legal),
        )
        return []

    def _likeliest(self, engine: StarWarsGame, legal: list[tuple[float, Tile]]) -> tuple[Tile, ...]:
        """What to offer a person asked about a tile: the likeliest legal ways of lying (the
        start tile: its own turnings)."""
        if engine.phase is Phase.START:
            legal = [x for x in legal if x[1] in self.learning.start_ways]
        return tuple(dict.fromkeys(tile for _, tile in sorted(legal, key=lambda x: -x[0])))[:CHOICES]

    def _by_gallery(
        self, engine: StarWarsGame, reading: CellReading, guessed: Tile | None
    ) -> list[dict[str, Any]]:
        """A new tile of art the model does not know: read by the user's gallery, or asked."""
        cell = reading.cell
        learnt = self.learning.read(engine, cell, reading.window)
        if learnt is not None and self.learning.sure(learnt):
            events = self._emit_tile(engine, cell, learnt.tile, learnt.score, by_gallery=True)
            if events:
                self.learning.keep(cell, reading.window, learnt.tile, guessed)
            return events
        self.learning.keep(cell, reading.window, None, guessed)
        self._prompt(
            "unfamiliar-tile",
            f"the companion does not know this box's tiles well enough yet: enter the tile at "
            f"{cell_json(cell)} on the phone, and it will learn it",
            (cell,),
            learnt.choices if learnt is not None else (),
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
            "at": cell_json(cell),
            "tile": tile.to_json(),
            "meta": {"source": "camera", **how_sure},
        }
        return [event] if self._add(event, (cell,)) else []

    # --- plumbing ------------------------------------------------------------------------------

    def _add(self, event: dict[str, Any], cells: tuple[Cell, ...]) -> bool:
        try:
            self.link.add(event)
        except IllegalEvent as error:
            self._prompt(
                "not-allowed", f"the camera saw something the rules do not allow: {error.reason}", cells
            )
            return False
        except NotRecorded as error:  # the store could not keep it: asked again next time
            self._prompt("not-recorded", str(error), cells)
            return False
        self.events.append(event)
        return True

    def _prompt(
        self, code: str, message: str, cells: tuple[Cell, ...], choices: tuple[Tile, ...] = ()
    ) -> None:
        self.prompts[(code, cells)] = Prompt(code, message, cells, choices)
        engine = self.link.engine()
        if engine is not None:
            self._raised_at[(code, cells)] = self._moment(engine)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
