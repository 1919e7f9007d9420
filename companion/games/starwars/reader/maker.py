"""The Star Wars table reader as the service sees it (``companion.table.reader``).

The maker loads the models and the user's gallery once; each game gets a reader: the watcher
(frames in, readings of the changed cells out) and the tracker (readings in, events or prompts
out), with battle dice from the trays, or from the simulated table in the demo.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from companion.errors import UserError
from companion.games.base import ScoreChange
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.models import cell_model, likeness, meeple_model
from companion.games.starwars.reader.box_counts import load_counts
from companion.games.starwars.reader.dice import BattleTrays
from companion.games.starwars.reader.enrolment import Enrolment, EnrolmentCamera
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.reader.loop import CameraLoop
from companion.games.starwars.reader.tracker import ENTER_TILE_PROMPTS, DiceSource, Prompt, Tracker
from companion.games.starwars.tiles import Tile
from companion.games.starwars.web import ENROLMENT
from companion.live.evidence import Picture
from companion.live.table import Table
from companion.table.links import GameLink
from companion.table.reader import IdleReader, ReaderKit
from companion.vision.gallery_files import gallery_folder
from companion.vision.meeples import MeepleModel
from companion.vision.overlay import annotate, jpeg, score_picture, table_picture
from companion.vision.reader import CellModel, ModelMissing
from companion.vision.watcher import Watcher


class StarWarsReader:
    """One game read from the camera and the trays; the evidence of its scores too."""

    def __init__(self, loop: CameraLoop, link: GameLink, dice: DiceSource | None = None) -> None:
        self.loop = loop
        self.link = link
        self.dice = dice
        self._shown: object = None  # the observation whose view the scoreboard has

    @property
    def tracker(self) -> Tracker:
        return self.loop.tracker

    @property
    def status(self) -> str | None:
        return self.loop.tracker.status

    def step(self, frame: np.ndarray | None) -> list[dict[str, Any]]:
        if frame is None:
            return self.loop.tracker.poll_dice()
        return self.loop.step(frame)

    def prompts(self) -> list[Prompt]:
        return self.loop.tracker.open_prompts()

    def asks(self) -> list[dict[str, Any]]:
        """The tile questions in full (cell, one-tap choices), for the fix page to answer."""
        return [p.to_json() for p in self.prompts() if p.code in ENTER_TILE_PROMPTS]

    def pictures(self, changes: Sequence[ScoreChange]) -> list[Picture]:
        """What the camera saw of each score: the counted tiles outlined in the last settled view,
        and for a battle the trays' pictures of its dice; with no score, the whole table."""
        last = self.loop.last
        if last is None or last.view is None or last.lattice is None:
            return []
        if not changes:
            return [Picture(table_picture(last.view))]
        found = []
        for index, change in enumerate(changes):
            if change.cells:
                found.append(Picture(score_picture(last.view, last.lattice, change.cells), index))
            elif change.kind == "adjust":
                found.append(Picture(table_picture(last.view), index))
            if change.kind == "battle" and isinstance(self.dice, BattleTrays):
                for roll in (change.detail or {}).get("rolls", []):
                    tray = self.dice.take_picture(roll.get("by", ""))
                    if tray is not None:
                        found.append(Picture(jpeg(tray, 75), index))
        return found

    def view(self, fresh: bool) -> bytes | None:
        last = self.loop.last
        if last is None or last is self._shown or last.view is None or not fresh:
            return None
        self._shown = last
        engine = self.link.engine()
        tiles = list(engine.board.tiles) if isinstance(engine, StarWarsGame) else []
        asking = [cell for prompt in self.prompts() for cell in prompt.cells]
        return annotate(last.view, last.lattice, tiles, asking)


class StarWarsReaderMaker:
    def __init__(self) -> None:
        self.cells: CellModel | None = None
        self.meeples: MeepleModel | None = None
        self.gallery = tile_gallery()
        self.box_counts: dict[Tile, int] | None = None
        self.enrolment: Enrolment | None = None
        self.dice: DiceSource | None = None
        self.fps = 5.0

    def check(self) -> None:
        self._load()

    def _load(self) -> tuple[CellModel, MeepleModel]:
        if self.cells is None or self.meeples is None:
            try:
                likeness()  # the gallery's, loaded now so that a missing file stops the start
                self.cells, self.meeples = cell_model(), meeple_model()
            except ModelMissing as error:
                raise UserError(
                    f"{error}; the table cannot be read without it (is the checkout whole?)"
                ) from None
        return self.cells, self.meeples

    def start(self, kit: ReaderKit) -> None:
        self._load()
        self.fps = kit.fps
        if kit.state_dir is not None:
            # one gallery: a tile taught on /enrol is read by the next game's tracker
            self.gallery = tile_gallery(gallery_folder(kit.state_dir))
            # how many of each type the box holds (UserError naming the file if it is bad)
            self.box_counts = load_counts(kit.state_dir)
        self.enrolment = Enrolment(self.gallery, state_dir=kit.state_dir, on_counts=self._box_counted)
        if kit.trays is not None:
            self.dice = BattleTrays(kit.trays)

    def _box_counted(self, counts: dict[Tile, int]) -> None:
        """The enrolment page kept the box's counts: the next game's tracker reads by them."""
        self.box_counts = counts

    def reader(self, link: GameLink) -> StarWarsReader:
        cells, meeples = self._load()
        tracker = Tracker(link, cells.labels, self.dice, gallery=self.gallery, box_counts=self.box_counts)

        def laid() -> set[tuple[int, int]]:
            engine = link.engine()
            return set(engine.board.tiles) if isinstance(engine, StarWarsGame) else set()

        watcher = Watcher(cells, fps=self.fps, meeple_model=meeples, laid=laid)
        return StarWarsReader(CameraLoop(watcher, tracker), link, self.dice)

    def idle(self) -> IdleReader | None:
        return EnrolmentCamera(self.enrolment) if self.enrolment is not None else None

    def attachments(self) -> dict[str, Any]:
        return {ENROLMENT: self.enrolment} if self.enrolment is not None else {}

    def box_frames(self, style: int) -> Iterator[np.ndarray] | None:
        from companion.games.starwars.sim.enrol_table import DEMO_COPIES, EnrolTable

        enrolment = self.enrolment
        if enrolment is None:
            return None
        table = EnrolTable(style, copies=DEMO_COPIES)

        def frames() -> Iterator[np.ndarray]:
            while not enrolment.views:
                yield table.frame()

        return frames()

    def simulated_frames(
        self, table: Table, fps: float, first_seed: int, games: int | None
    ) -> Iterator[np.ndarray]:
        from companion.games.starwars.sim.table_games import SimulatedGames

        played = SimulatedGames(table, fps, first_seed, games, people=True)
        if self.dice is None:
            self.dice = played  # no trays: the simulated table's own rolls
        return played.frames()
