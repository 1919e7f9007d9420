"""Read a simulated game from its rendered frames alone: the end-to-end path of the companion.

Used by the end-to-end test, the held-out suite and the benchmarks; ``make run`` runs the same
loop against the live table instead of an in-memory game.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import IllegalEvent
from companion.games.starwars.catalog import Catalog
from companion.games.starwars.events import TilePlaced
from companion.games.starwars.reader.loop import CameraLoop
from companion.games.starwars.reader.tracker import ENTER_TILE_PROMPTS, Prompt, Tracker
from companion.games.starwars.sim.games import SimulatedGame, simulate_game
from companion.games.starwars.sim.table import MAT_BOUNDS, SimulatedTable
from companion.games.starwars.spots import PLANET_SPOTS
from companion.games.starwars.tiles import Tile, parse_tile
from companion.table.links import EngineLink
from companion.vision.gallery import Gallery
from companion.vision.meeples import MeepleModel
from companion.vision.motion import mean_frame
from companion.vision.reader import CellModel
from companion.vision.watcher import Watcher


@dataclass
class GameRead:
    truth: SimulatedGame
    link: EngineLink
    tracker: Tracker
    frames: int
    prompts: list[Prompt] = field(default_factory=list)  # every prompt raised along the way
    seconds: float = 0.0
    answered: int = 0  # events a person entered on the phone after a prompt
    # the camera's events a person took back on the phone (``fix_mistakes``): each wrong one and
    # any it recorded after it
    corrected: list[dict[str, Any]] = field(default_factory=list)
    # tiles a person entered after the camera asked about that one tile, and of those, how many
    # the question offered as a one-tap choice (the first choice, or any)
    tiles_asked: int = 0
    tiles_first_choice: int = 0
    tiles_in_choices: int = 0

    def camera_events(self) -> list[dict[str, Any]]:
        """The events the camera recorded (not those a person entered), without their meta."""
        return [
            {k: v for k, v in e.items() if k != "meta"}
            for e in self.link.events
            if e.get("meta", {}).get("source") == "camera"
        ]

    def truth_events(self) -> list[dict[str, Any]]:
        return [self.truth.game.event_to_json(e) for e in self.truth.events]

    def read_events(self) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "meta"} for e in self.link.events]

    @property
    def exact(self) -> bool:
        return (
            self.read_events() == self.truth_events() and self.link.game.scores() == self.truth.game.scores()
        )


def simulated_game(
    seed: int,
    players: int = 3,
    tiles: int | None = None,
    meeple_chance: float = 0.6,
    people: bool = False,
    catalog: Catalog | None = None,
) -> SimulatedGame:
    # the table shows two meeples on a planet (PLANET_SPOTS); a third would stand on one of them
    return simulate_game(
        players,
        seed,
        meeple_chance=meeple_chance,
        bounds=MAT_BOUNDS,
        tiles=tiles,
        planet_room=len(PLANET_SPOTS),
        people=people,
        catalog=catalog,
    )


def read_game(
    truth: SimulatedGame,
    model: CellModel,
    style: int,
    camera_seed: int,
    seed: int = 0,
    on_frame: Callable[[int], None] | None = None,
    settled_only: bool = False,
    meeple_model: MeepleModel | None = None,
    answer_prompts: bool = False,
    gallery: Gallery[Tile] | None = None,
    fix_mistakes: bool = False,
) -> GameRead:
    """Play ``truth`` on the simulated table and read it back from the frames. With
    ``settled_only`` each settled scene is read directly from the mean of its still frames, as
    the watcher reads it, skipping motion. With ``answer_prompts`` a person answers every prompt
    by entering what really happened, as the phone lets them, so that one unsure reading does
    not throw the rest of the game off. With ``fix_mistakes`` that person also puts right, on the
    phone, what the camera recorded wrong, once it happened (else a game gone astray is read no
    further). ``gallery``: the user's enrolled tiles, if any."""
    table = SimulatedTable(truth, style, camera_seed, seed, settled_only=settled_only)
    link = EngineLink(truth.setup)
    # the box's start tile is known before the game, as the shipped catalog's is
    first = truth.events[0]
    start = first.tile if isinstance(first, TilePlaced) else None
    tracker = Tracker(link, model.labels, table.dice, gallery=gallery, start_tile=start)
    watcher = Watcher(model, meeple_model=meeple_model)
    loop = CameraLoop(watcher, tracker)
    started = time.perf_counter()
    result = GameRead(truth, link, tracker, 0)
    for number, shot in enumerate(table.frames()):
        if settled_only:
            loop.settled(watcher.look(mean_frame(shot.stills)))
        else:
            loop.step(shot.frame)
        for prompt in tracker.open_prompts():
            if prompt not in result.prompts:
                result.prompts.append(prompt)
        if fix_mistakes:
            fix_what_went_wrong(result, shot.truth_events - len(shot.dice))
        if answer_prompts and tracker.open_prompts():  # before anyone rolls for the battle
            result.answered += enter_what_happened(result, shot.truth_events - len(shot.dice))
        table.dice.queue.extend(shot.dice)
        tracker.poll_dice()
        if tracker.held_rolls:  # rolls for a battle the record lacks
            result.prompts += [p for p in tracker.open_prompts() if p not in result.prompts]
            if fix_mistakes:
                fix_what_went_wrong(result, shot.truth_events)
            if answer_prompts:
                result.answered += enter_what_happened(result, shot.truth_events)
                tracker.poll_dice()
        result.frames = number + 1
        if on_frame is not None:
            on_frame(number)
    if fix_mistakes:
        fix_what_went_wrong(result, len(truth.events))
    if answer_prompts and tracker.open_prompts():
        result.answered += enter_what_happened(result, len(truth.events))
    # the last tile is down: a player says so on the phone ("end"), which scores the game
    try:
        link.add({"event": "end"})
    except IllegalEvent as error:  # the game could not be followed far enough to end
        result.prompts.append(Prompt("not-allowed", f"the game could not end: {error.reason}"))
    result.seconds = time.perf_counter() - started
    return result


def fix_what_went_wrong(result: GameRead, happened: int) -> None:
    """A person at the table puts the record right on the phone, where it went astray from the
    first ``happened`` events: what follows the last right event is taken back (the camera's
    events among it are kept in ``result.corrected``) and what really happened is entered, rolls
    included (the trays reported them once already)."""
    truth = result.truth_events()[:happened]
    read = result.read_events()
    agree = next(
        (k for k, (a, b) in enumerate(zip(read, truth, strict=False)) if a != b), min(len(read), len(truth))
    )
    if agree == len(read):
        return  # nothing wrong; what is missing is asked about, and answered by enter_what_happened
    for event in result.link.keep_first(agree):
        if event.get("meta", {}).get("source") == "camera":
            result.corrected.append({k: v for k, v in event.items() if k != "meta"})
    for event in truth[agree:]:
        if event["event"] == "end":
            break
        try:
            result.link.add({**event, "meta": {"source": "phone"}})
        except IllegalEvent:
            break
        result.answered += 1


def enter_what_happened(result: GameRead, happened: int) -> int:
    """A person at the table enters, on the phone, what happened that the record lacks (up to
    the next dice roll, which the trays report, or the end, which is announced after the last
    tile whatever was asked). Nothing when the record already went astray: that is a reading
    error, and the suite counts it."""
    truth = result.truth_events()[:happened]
    read = result.read_events()
    if read != truth[: len(read)]:
        return 0
    entered = 0
    asked = {p.cells[0]: p for p in result.tracker.open_prompts() if p.code in ENTER_TILE_PROMPTS}
    for event in truth[len(read) :]:
        if event["event"] in ("roll", "end"):
            break
        question = asked.get(tuple(event["at"])) if event["event"] == "tile" else None
        if question is not None:
            tile = parse_tile(event["tile"])
            result.tiles_asked += 1
            result.tiles_first_choice += question.choices[:1] == (tile,)
            result.tiles_in_choices += tile in question.choices
        try:
            result.link.add({**event, "meta": {"source": "phone"}})
        except IllegalEvent:
            break
        entered += 1
    return entered
