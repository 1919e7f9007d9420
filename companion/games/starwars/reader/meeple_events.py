"""The tracker's meeples: which meeple the camera sees is new, which one the record has, and
when to ask (docs/vision.md, "How a meeple seen becomes an event").

A part of the Tracker (companion/table/tracker.py), kept in a module of its own for its size:
the Tracker supplies the game, the art trust, and how a prompt is raised and an event added.
Like the rest of the tracker, it never records a guess: what is not sure becomes a prompt.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from companion.games.base import Cell
from companion.games.starwars.board import Meeple
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.reader.learning import TileLearning
from companion.games.starwars.reader.meeple_changes import ChangedMeeple, FirstSeen, unexplained
from companion.games.starwars.reader.meeple_match import match_cell
from companion.games.starwars.setup import colour_of as player_colour
from companion.games.starwars.spots import SPOT_XY, SPOTS, feature_letter, spots_of
from companion.games.starwars.tiles import PLANET, SIDES, Tile
from companion.vision.labels import FALLEN, NO_MEEPLE
from companion.vision.reader import CellReading, SpotReading

DOMINANT = 0.5  # a reading this likely is what the camera sees, allowed or not
# A new meeple, where the player of the turn may place one, is recorded from this: on pairs of
# calibration styles neither trained on nor tested (python -m models.training.calibrate), 0.85 asks about
# 31 fewer of 9 339 spots seen standing than 0.9, and records none more of the wrong size (7 at
# either). Those pairs are single frames; games are read from the mean of 4, which is steadier.
MEEPLE_ACCEPT = 0.85
# On art the cell model does not know (ArtTrust.familiar False) the meeple model is as sure, and
# wrong, about art it takes for a meeple, and about a meeple's size on planets drawn unlike its
# training: there a new meeple is recorded only from 0.98, and only when the player's own colour
# has at least an even chance. Chosen on 12 held-out games of the third art family (their new
# meeples recorded wrong: 11 of 247 at 0.85, 2 of 205 so); docs/vision.md, "How a meeple seen
# becomes an event", point 5; the figures in models/starwars/meeples.md.
MEEPLE_ACCEPT_UNFAMILIAR = 0.98
MEEPLE_OWN_COLOUR = 0.5
# prompts about a meeple this turn, which a phone entry answers
MEEPLE_PROMPTS = ("unsure-meeple", "meeple-colour", "two-meeples")
# A meeple read at one spot is moved to another when the change it made lies this much nearer
# that spot (in tiles; neighbouring spots are 0.21 to 0.42 apart), and at most this far from
# the spot it was read at (a change farther off is something else, a die or a hand's shadow).
CLEARLY_NEARER = 0.06
CHANGE_REACH = 0.3


class _Engines(Protocol):
    def engine(self) -> StarWarsGame | None: ...


def _standing(spot: SpotReading) -> float:
    """How likely a meeple stands at this spot, of any colour and size."""
    return spot.chance(lambda name: name not in (NO_MEEPLE, FALLEN))


def cell_json(cell: Cell) -> list[int]:
    """A cell as records write it."""
    return [cell[0], cell[1]]


def meeple_places(engine: StarWarsGame) -> dict[tuple[Cell, str], set[str]]:
    """Where the player of the turn may place a meeple now, with the sizes they still hold."""
    places: dict[tuple[Cell, str], set[str]] = {}
    for option in engine.legal_meeples():
        places.setdefault((option.at, option.feature), set()).add(option.size)
    return places


def _feature_index(tile: Tile, letter: str | None) -> int | None:
    if letter is None:
        return None
    return tile.planet_index if letter == PLANET else tile.side_feature[SIDES.index(letter)]


def where_changed(
    tile: Tile, spots: list[SpotReading], changes: tuple[tuple[float, float], ...]
) -> list[SpotReading]:
    """Each standing meeple at the spot nearest to where the tile changed around it.

    The meeple model says what stands and roughly where; on art it was not trained on, it can
    put a planet's meeple at the spot beside it (P1 read as N), which makes a known meeple look
    missing and a stray appear. Where the look changed since the tile lay bare is measured
    without knowing the art: a meeple read at one spot whose change lies clearly nearer another
    spot of the tile that takes a meeple (and that no other reading holds) is moved there."""
    places = [name for name in SPOTS if feature_letter(tile, name) is not None]
    taken = {spot.spot for spot in spots}
    moved: list[SpotReading] = []
    for spot in spots:
        if spot.label == FALLEN or not changes or not places or spot.spot not in SPOT_XY:
            moved.append(spot)
            continue
        at = SPOT_XY[spot.spot]
        change = min(changes, key=lambda c: _distance(c, at))
        nearest = min(places, key=lambda name: _distance(change, SPOT_XY[name]))
        if (
            nearest not in taken
            and _distance(change, SPOT_XY[nearest]) + CLEARLY_NEARER < _distance(change, at)
            and _distance(change, at) <= CHANGE_REACH
        ):
            taken.discard(spot.spot)
            taken.add(nearest)
            spot = replace(spot, spot=nearest)
        moved.append(spot)
    return moved


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return float(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5)


class MeepleEvents:
    """The meeple half of the Tracker, which supplies what is declared here."""

    link: _Engines
    learning: TileLearning
    _known: dict[int, Meeple]  # meeples the rules had on the board, by id
    _returned: dict[Cell, list[Meeple]]  # sent home, perhaps still on the table
    _last_spot: dict[int, str]  # where the camera last saw each meeple, by id
    _first_seen: FirstSeen  # when each patch of change appeared

    def _prompt(self, code: str, message: str, cells: tuple[Cell, ...]) -> None:
        raise NotImplementedError

    def _add(self, event: dict[str, Any], cells: tuple[Cell, ...]) -> bool:
        raise NotImplementedError

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
        colour_of = {p.name: player_colour(p) for p in engine.players}
        places = meeple_places(engine)
        # on art the model does not know, it takes patches of art for meeples: there only a sure
        # reading asks about a meeple no one may place, or one fallen over (docs/vision.md)
        unfamiliar = self.learning.art.unfamiliar
        new: list[tuple[Cell, SpotReading, str]] = []
        strays: list[tuple[Cell, SpotReading]] = []
        doubtful: list[Cell] = []  # a known meeple seen elsewhere where a new one may now stand
        changed: list[ChangedMeeple] = []  # this turn's changes that no meeple explains
        tiles_now = len(engine.board.tiles)
        for cell, reading in readings.items():
            tile = engine.board.tiles.get(cell)
            if tile is None:
                continue
            seen: list[tuple[SpotReading, int | None]] = []
            fallen = False
            # on art the cell model does not know, its own reading of meeples (no bare look to
            # compare with yet) is mostly art: only a spot sure of what lies there counts (not
            # merely that something does), and nothing unseen asks
            alone = unfamiliar and reading.meeples_from != "pair"
            spots = [
                spot for spot in reading.meeples() if not alone or spot.confidence >= MEEPLE_ACCEPT_UNFAMILIAR
            ]
            if unfamiliar:  # on the model's own art its spots are trusted (patches of two meeples merge)
                spots = where_changed(tile, spots, reading.changes)
            for spot in spots:
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
                            f"a meeple has fallen over on the tile at {cell_json(cell)}: stand it up",
                            (cell,),
                        )
                    continue
                seen.append((spot, _feature_index(tile, feature_letter(tile, spot.spot))))
            expected = [m for m in standing.values() if m.cell == cell]
            match = match_cell(seen, expected, colour_of, self._last_spot)
            if unfamiliar and reading.meeples_from == "pair":
                # every patch is dated, explained or not: a meeple's patch seen before this turn
                # is never this turn's meeple
                dated = {
                    (p.x, p.y): self._first_seen.turn_of(cell, (p.x, p.y), tiles_now) for p in reading.patches
                }
                held = {spot.spot for spot, _ in seen}
                for meeple in expected + self._returned.get(cell, []):
                    held |= self._spots_held(tile, meeple)
                # a known meeple not seen where it was may be the patch: nothing is read there
                if not match.unseen and not match.moved:
                    changed += [
                        found
                        for found in unexplained(cell, tile, reading.patches, held)
                        if dated[(found.x, found.y)] == tiles_now
                    ]
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
            if not fallen and not alone:
                for meeple in match.unseen:
                    self._prompt(
                        "missing-meeple",
                        f"{meeple.player}'s meeple on the tile at {cell_json(cell)} is not where it was: "
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
                f"a meeple ({spot.label}) at {cell_json(cell)} that the game does not have, where no one "
                "may place one now: take it away, or fix the record on the phone",
                (cell,),
            )
        if len(new) > 1:
            cells = tuple(sorted({n[0] for n in new}))
            seen_text = ", ".join(f"{spot.label} at {cell_json(cell)}" for cell, spot, _ in new)
            self._prompt(
                "two-meeples",
                f"more than one new meeple ({seen_text}): a player places one meeple per turn",
                cells,
            )
            return []
        if not new and not strays and len(changed) == 1 and (changed[0].cell, changed[0].letter) in places:
            # the meeple model saw nothing new, but the tile changed where a meeple may stand
            found = changed[0]
            return self._changed_meeple(engine, found, places[(found.cell, found.letter)])
        if not new:
            for cell in doubtful:
                self._prompt(
                    "unsure-meeple",
                    f"is there a new meeple on the planet at {cell_json(cell)}? The camera sees one meeple "
                    "where it saw another: check them, or enter the new one on the phone",
                    (cell,),
                )
            return []
        cell, spot, letter = new[0]
        return self._new_meeple(engine, cell, spot, letter, places[(cell, letter)], colour_of)

    def _spots_held(self, tile: Tile, meeple: Meeple) -> set[str]:
        """Where a known meeple stands on its tile: where it was last seen, else any spot of
        its feature."""
        last = self._last_spot.get(meeple.id)
        if last is not None:
            return {last}
        if meeple.feature_index == tile.planet_index:
            return set(spots_of(tile, PLANET))
        return set(spots_of(tile, SIDES[tile.features[meeple.feature_index].sides[0]]))

    def _changed_meeple(
        self, engine: StarWarsGame, found: ChangedMeeple, allowed: set[str]
    ) -> list[dict[str, Any]]:
        """A meeple read from the change it made (``meeple_changes``): recorded when its size is
        the only one the player holds or is sure from its patch; asked about otherwise."""
        player = engine.current_player
        assert player is not None
        at = cell_json(found.cell)
        if len(allowed) == 1:
            (size,) = allowed
            # its size is the player's only one; that a meeple stands there is the patch's word
            confidence = MEEPLE_ACCEPT_UNFAMILIAR
        elif found.large_chance is None:
            size, confidence = "", 0.0
        else:
            size = "large" if found.large_chance >= 0.5 else "small"
            confidence = max(found.large_chance, 1.0 - found.large_chance)
        if confidence < MEEPLE_ACCEPT_UNFAMILIAR or size not in allowed:
            self._prompt(
                "unsure-meeple",
                f"a meeple seems to have been placed on the tile at {at}: check it or enter it on the phone",
                (found.cell,),
            )
            return []
        event = {
            "event": "meeple",
            "player": player,
            "at": at,
            "feature": found.letter,
            "size": size,
            "meta": {"source": "camera", "confidence": round(confidence, 4), "read_by": "change"},
        }
        return self._record(engine, event, found.cell, found.spot)

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
        unfamiliar = self.learning.art.unfamiliar
        # a size the rules rule out, seen clearly, asks; on art the model does not know it reads
        # sizes far less surely (planets drawn unlike its training look large), so only surely
        ruled_out_from = MEEPLE_ACCEPT_UNFAMILIAR if unfamiliar else DOMINANT
        ruled_out = [s for s in sizes if s not in allowed and sizes[s] >= ruled_out_from]
        if ruled_out:
            self._prompt(
                "not-allowed",
                f"a {ruled_out[0]} meeple appeared at {cell_json(cell)}, but {player} has none left: "
                "check it, or fix it on the phone",
                (cell,),
            )
            return []
        # The player holds no meeple of a size they have used up: then only how sure the camera
        # is that a meeple is there counts, not which size it looks; the chance that it lies
        # rather than stands does not lower it (a spot read as lying asks "fallen-meeple" above).
        confidence = spot.chance(lambda name: name != NO_MEEPLE) if len(allowed) == 1 else sizes[size]
        at = cell_json(cell)
        unsure = f"not sure about a meeple on the tile at {at}: check it or enter it on the phone"
        if confidence < (MEEPLE_ACCEPT_UNFAMILIAR if unfamiliar else MEEPLE_ACCEPT):
            self._prompt("unsure-meeple", unsure, (cell,))
            return []
        colours = spot.standing_by(0)
        colour = max(colours, key=lambda c: colours[c])
        # The turn order says whose meeple it is, as it does for tiles; the colour only checks it.
        if colour != colour_of[player] and colours[colour] >= DOMINANT:
            self._prompt(
                "meeple-colour",
                f"a {colour} meeple appeared at {at}, but it is {player}'s turn ({colour_of[player]})",
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
            "at": cell_json(cell),
            "feature": letter,
            "size": size,
            "meta": {"source": "camera", "confidence": round(confidence, 4)},
        }
        return self._record(engine, event, cell, spot.spot)

    def _record(
        self, engine: StarWarsGame, event: dict[str, Any], cell: Cell, spot: str
    ) -> list[dict[str, Any]]:
        """Add the meeple ``event``; the meeple it placed was seen at ``spot``."""
        before = {m.id for m in engine.meeples_on_board()}
        if not self._add(event, (cell,)):
            return []
        after = self.link.engine()
        assert after is not None
        for meeple in after.meeples_on_board():
            if meeple.id not in before:
                self._last_spot[meeple.id] = spot
        return [event]
