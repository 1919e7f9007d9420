"""A simulated game played on the simulated table, frame by frame.

A hand brings each tile to its cell, lays it a little off the lattice and leaves; meeples are
put down and taken back the same way; battle dice go to the dice source, as the trays will
give them. The frames are all the camera pipeline gets; the events are the ground truth.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.events import DiceRolled, MeeplePlaced, TilePlaced
from companion.games.starwars.setup import colour_of
from companion.games.starwars.sim.games import SimulatedGame
from companion.games.starwars.sim.render import Camera, Hand, PlacedMeeple, PlacedTile, Renderer, Scene
from companion.games.starwars.spots import PLANET_SPOTS, spots_of
from companion.vision.mat import STANDARD_MAT
from companion.vision.motion import SETTLE_FRAMES as STILLS_PER_SCENE  # what the watcher averages

# The cells a game may use on the standard mat, start tile at (0, 0) near the board's centre.
MAT_BOUNDS = (-7, 7, -5, 5)
SETTLE_FRAMES = 6  # still frames after each action: enough for the settle detector, with a margin


@dataclass
class SimDice:
    """Battle dice as the trays would report them: queued when rolled, taken when polled."""

    queue: list[dict[str, Any]] = field(default_factory=list)

    def poll(self, engine: StarWarsGame) -> list[dict[str, Any]]:
        taken, self.queue = self.queue, []
        return taken


@dataclass
class TableFrame:
    # one camera frame; with ``settled_only``, the still frames the watcher would average
    stills: tuple[np.ndarray, ...]
    dice: list[dict[str, Any]]  # rolls made right after this frame
    truth_events: int  # how many ground-truth events have happened by this frame

    @property
    def frame(self) -> np.ndarray:
        """The (last) camera frame."""
        return self.stills[-1]


class SimulatedTable:
    """Plays ``game`` on a rendered table: iterate ``frames()``."""

    def __init__(
        self,
        game: SimulatedGame,
        style: int,
        camera_seed: int,
        seed: int = 0,
        harsh: bool = False,
        settled_only: bool = False,
    ) -> None:
        """``settled_only``: one shot per settled scene and no hands, for suites that read
        thousands of tiles (the motion path is tested on the full stream); each shot carries
        the still frames the watcher would have averaged."""
        self.game = game
        self.settled_only = settled_only
        self.settle_frames = 1 if settled_only else SETTLE_FRAMES
        self.rng = random.Random(f"table-{seed}")
        self.style = style
        self.renderer = Renderer(Camera.from_seed(camera_seed, harsh=harsh))
        board = STANDARD_MAT.board
        self.scene = Scene(
            (board.centre[0] + self.rng.uniform(-6, 6), board.centre[1] + self.rng.uniform(-6, 6))
        )
        self.dice = SimDice()
        self._frame_seed = seed * 100_000

    def _placed(self, tile: Any) -> PlacedTile:
        r = self.rng
        return PlacedTile(
            tile, self.style, r.randrange(6), (r.uniform(-2, 2), r.uniform(-2, 2)), r.uniform(-3, 3)
        )

    def _shot(self, dice: list[dict[str, Any]] | None = None, done: int = 0) -> TableFrame:
        frames = []
        for _ in range(STILLS_PER_SCENE if self.settled_only else 1):
            self._frame_seed += 1
            frames.append(self.renderer.render(self.scene, self._frame_seed))
        return TableFrame(tuple(frames), dice or [], done)

    def _hand_over(self, cell: tuple[int, int], holding: PlacedTile | None = None) -> Iterator[Hand]:
        if self.settled_only:
            return
        x, y = self.scene.cell_centre_mm(cell)
        angle = self.rng.uniform(30, 150)
        skin = self.rng.randrange(5)
        for distance in (160.0, 70.0, 0.0):
            dx, dy = np.cos(np.radians(angle)) * distance, np.sin(np.radians(angle)) * distance
            yield Hand((x + dx, y + dy), angle, skin, holding if distance > 0 else None)

    def frames(self) -> Iterator[TableFrame]:
        engine = StarWarsGame(self.game.setup)
        colour = {p.name: colour_of(p) for p in self.game.setup.players}
        on_board: dict[int, PlacedMeeple] = {}
        yield from (self._shot() for _ in range(self.settle_frames))  # the empty mat
        meeple_id = 0
        for done, event in enumerate(self.game.events, start=1):
            engine.apply(event)
            if isinstance(event, TilePlaced):
                placed = self._placed(event.tile)
                if event.player is not None:
                    for hand in self._hand_over(event.at, placed):
                        self.scene.hand = hand
                        yield self._shot(done=done - 1)
                self.scene.tiles[event.at] = placed
                self.scene.hand = None
            elif isinstance(event, MeeplePlaced):
                tile = engine.board.tiles[event.at]
                taken = {m.spot for m in self.scene.meeples if m.cell == event.at}
                spots = spots_of(tile, event.feature)
                free = [s for s in spots if s not in taken] or list(spots)  # a crowded planet: side by side
                spot = free[0] if free[0] in PLANET_SPOTS else self.rng.choice(free)
                for hand in self._hand_over(event.at):
                    self.scene.hand = hand
                    yield self._shot(done=done - 1)
                self.scene.hand = None
                meeple = PlacedMeeple(
                    event.at,
                    spot,
                    colour[event.player],
                    event.size,
                    False,
                    (self.rng.uniform(-1.2, 1.2), self.rng.uniform(-1.2, 1.2)),
                    self.rng.uniform(-20, 20),
                )
                self.scene.meeples.append(meeple)
                on_board[meeple_id] = meeple  # the engine numbers meeples in the order they are placed
                meeple_id += 1
            elif isinstance(event, DiceRolled):
                # a tray reports its dice once they settle; the scene on the mat does not change
                yield self._shot([self.game.game.event_to_json(event)], done)
                yield from self._take_back(engine, on_board, done)
                continue
            else:
                continue
            for _ in range(self.settle_frames):
                yield self._shot(done=done)
            yield from self._take_back(engine, on_board, done)
        for _ in range(self.settle_frames):
            yield self._shot(done=len(self.game.events))

    def _take_back(
        self, engine: StarWarsGame, on_board: dict[int, PlacedMeeple], done: int
    ) -> Iterator[TableFrame]:
        """Players take back the meeples the rules returned, after everyone has seen the score."""
        still = {m.id for m in engine.meeples_on_board()}
        gone = [key for key in on_board if key not in still]
        if not gone:
            return
        cells = {on_board[key].cell for key in gone}
        for cell in sorted(cells):
            for hand in self._hand_over(cell):
                self.scene.hand = hand
                yield self._shot(done=done)
        for key in gone:
            self.scene.meeples.remove(on_board.pop(key))
        self.scene.hand = None
        for _ in range(self.settle_frames):
            yield self._shot(done=done)
