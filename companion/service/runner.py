"""The table's main loop: camera frames through the pipeline, trays polled, scoreboard told, watchdog fed.

One thread turns it, as fast as the camera gives frames. Each turn:

1. a new game started on the phone gets a fresh pipeline (watcher and tracker start from an
   empty table, not from the last game's);
2. the next fresh frame, if the camera gives one, goes to the game's pipeline, or, while no game
   is under way, to what reads the camera between games (a box laid out to be taught);
3. the trays are polled even while the camera is away: they read their own pictures;
4. the scoreboard is told the camera's status, the open prompts and the annotated view;
5. the systemd watchdog is fed. A loop that hangs stops feeding it and systemd restarts the
   service. A single failing frame is logged and skipped; a loop that fails on every frame
   (``MAX_FAILURES`` in a row) will not mend itself, so it calls ``on_fatal``, which stops the
   program with an error (and systemd starts it again).
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from companion.cameras.base import Frame
from companion.live.table import Table
from companion.service.memory import give_back_free_memory
from companion.table.links import TableLink
from companion.table.reader import IdleReader, TableReader
from companion.table.trays import DiceTrays

# Frames in a row that fail with an error of ours before the program stops (systemd restarts it).
MAX_FAILURES = 50
IDLE_PAUSE = 0.2  # seconds between turns when no camera gives frames


class FrameSource(Protocol):
    """A camera feed (``companion.cameras.feed.CameraFeed``): fresh frames or None, never raises."""

    status: str | None
    ended: bool

    def next(self) -> Frame | None: ...


class NoCamera:
    """The feed of a table without a camera (``[camera] source = "none"``): everything is entered
    on the phone; the loop still turns, for the trays and the watchdog."""

    status: str | None = "no camera: enter what happens on the phone"
    ended = False

    def __init__(self, sleep: Callable[[float], None] = time.sleep, pause: float = IDLE_PAUSE) -> None:
        self.sleep, self.pause = sleep, pause

    def next(self) -> Frame | None:
        self.sleep(self.pause)
        return None

    def close(self) -> None:
        pass


class Heartbeat(Protocol):
    """The service manager (``companion.service.notify.Notifier``)."""

    def kick(self) -> None: ...

    def status(self, text: str) -> None: ...


@dataclass
class Pipeline:
    """What reads one game: built afresh for every game by ``build``."""

    game_id: int | None
    reader: TableReader


class TableRunner:
    def __init__(
        self,
        table: Table,
        feed: FrameSource,
        build: Callable[[TableLink], TableReader],
        heartbeat: Heartbeat,
        enrolment: IdleReader | None = None,
        trays: DiceTrays | None = None,
        dice_camera: Callable[[], str | None] = lambda: None,
        on_fatal: Callable[[], None] = lambda: None,
        pause: Callable[[float], None] = time.sleep,
    ) -> None:
        self.table = table
        self.feed = feed
        self.build = build
        self.heartbeat = heartbeat
        self.enrolment = enrolment  # what reads the camera between games (enrolling a box)
        self.trays = trays
        self.dice_camera = dice_camera  # what is wrong with the trays' own camera, if any
        self.on_fatal = on_fatal
        self.pause = pause
        self.failed = False  # set once MAX_FAILURES frames in a row failed
        self.link = TableLink(table)
        self.pipeline = Pipeline(self._game_id(), build(self.link))
        table.set_evidence(self.pipeline.reader)  # the camera's pictures of each score
        self.latest: Frame | None = None  # the newest fresh frame, for the trays' region
        self.frames = 0
        self.turns = 0  # turns of the loop, each ending with a kick of the watchdog
        self.failures = 0  # frames in a row that failed
        self._said: str | None = None

    def _game_id(self) -> int | None:
        live = self.table.live
        return live.game_id if live is not None else None

    def _in_play(self) -> bool:
        live = self.table.live
        return live is not None and not live.engine.finished

    def step(self) -> None:
        """One turn of the loop (see the module's docstring)."""
        if self._game_id() != self.pipeline.game_id:
            self.pipeline = Pipeline(self._game_id(), self.build(self.link))
            give_back_free_memory()  # the last game's reader is gone: see companion/service/memory.py
            self.table.set_evidence(self.pipeline.reader)
        reader = self.pipeline.reader
        frame = self.feed.next()
        with self.table.lock:  # the reader reads the engine, which a phone's change rewrites
            in_play = self._in_play()
            if self.enrolment is not None:
                self.enrolment.game_started_or_ended(in_play)
            if frame is not None:
                self.latest = frame
                self.frames += 1
                if in_play or self.enrolment is None:
                    reader.step(frame.image)
                else:
                    self.enrolment.step(frame.image)
            if frame is None or not in_play:
                reader.step(None)  # the trays read their own pictures, camera or not
        if frame is None and self.feed.ended:
            self.pause(IDLE_PAUSE)  # a video file or folder has ended: turn slowly, for the trays
        self._tell_scoreboard(reader)

    def _tell_scoreboard(self, reader: TableReader) -> None:
        prompts = [p.message for p in reader.prompts()]
        if self.trays is not None and self.trays.status:
            prompts.append(self.trays.status)
        dice_camera = self.dice_camera()
        if dice_camera:
            prompts.append(dice_camera)
        status = self.feed.status or reader.status
        view = reader.view(fresh=self.feed.status is None)
        self.table.set_camera(status, prompts, view, reader.asks())
        if self.trays is not None:
            self.table.set_trays(self.trays.to_json())
        said = self.feed.status or "reading the table"
        if said != self._said:
            self._said = said
            self.heartbeat.status(said)

    def run(self, stop: threading.Event) -> None:
        """Turn until ``stop`` is set. After a finite source (a video file, a folder) has ended it
        goes on turning slowly: the trays, the scoreboard and the watchdog still need it."""
        while not stop.is_set():
            try:
                self.step()
                self.failures = 0
            except Exception:  # a bug of ours on one frame must not stop the table
                self.failures += 1
                if self.failures in (1, MAX_FAILURES):
                    print("companion run: a frame could not be handled:", file=sys.stderr)
                    traceback.print_exc(file=sys.stderr)
                if self.failures >= MAX_FAILURES:
                    print(f"companion run: {MAX_FAILURES} frames in a row failed: stopping", file=sys.stderr)
                    self.failed = True
                    self.on_fatal()
                    return
                time.sleep(0.05)
            self.turns += 1
            self.heartbeat.kick()
