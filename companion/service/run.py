"""``companion run``: the table as a service, put together from one config.

Start-up reads the config, the game store (the newest game resumes where its journal left it),
the models and the gallery; opens the camera, the trays and MQTT if configured; then serves the
scoreboard and, once it listens, starts the table's loop and tells systemd it is ready. Nothing
here knows a rule or a pixel: it only connects the parts.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import TYPE_CHECKING

import numpy as np

from companion.cameras.base import CameraError, Frame
from companion.cameras.feed import CameraFeed
from companion.cameras.settings import CameraSettings, open_camera
from companion.config import Config
from companion.live.table import Table
from companion.service.memory import tune_allocator
from companion.service.notify import Notifier
from companion.service.readers import Readers
from companion.service.runner import NoCamera, TableRunner
from companion.store import GameStore
from companion.table.reader import ReaderKit
from companion.web.server import OPTIONS_ADVICE, serve

LOG = logging.getLogger("companion.run")

if TYPE_CHECKING:
    from companion.devices.config import TraysConfig
    from companion.table.trays import DiceTrays

# A tray picture must be this fresh: the dice have been still for settle_ms (700 ms) when it is
# asked for, so a picture from the last half second shows them settled.
TRAY_PICTURE_AGE = 0.5


def tray_pictures(
    latest: Callable[[], Frame | None], config: TraysConfig, clock: Callable[[], float]
) -> Callable[[int], np.ndarray]:
    """Each tray's picture: its region of the newest fresh frame of the camera that sees it."""

    def picture(index: int) -> np.ndarray:
        frame = latest()
        if frame is None or clock() - frame.captured > TRAY_PICTURE_AGE:
            raise CameraError("the camera gave no fresh picture of the trays: is it connected?")
        region = config.trays[index].region
        if region is None:
            return frame.image
        x, y, width, height = region
        crop = frame.image[y : y + height, x : x + width]
        if crop.shape[0] < height or crop.shape[1] < width:
            raise CameraError(
                f"trays.tray[{index}].region {list(region)} lies outside the camera's "
                f"{frame.image.shape[1]}x{frame.image.shape[0]} picture: fix it in the config"
            )
        return crop

    return picture


class DiceCamera:
    """A second camera for the trays, read all the time in a thread of its own: a tray's picture
    is at hand the moment its dice settle, and the table's loop never waits for it."""

    def __init__(self, settings: CameraSettings) -> None:
        self.feed = CameraFeed(open_camera(settings), read_timeout=read_timeout(settings))
        self._latest: Frame | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="dice-camera")
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            frame = self.feed.next()  # never raises; sleeps a little while the camera is away
            if frame is not None:
                self._latest = frame
            elif self.feed.ended:
                self._stop.wait(0.2)

    def latest(self) -> Frame | None:
        return self._latest

    def status(self) -> str | None:
        """What is wrong with the dice camera, for the scoreboard; None while it works."""
        said = self.feed.status
        return None if said is None else f"Dice camera: {said}"

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.feed.close()


def build_trays(
    config: Config, latest: Callable[[], Frame | None], stack: ExitStack
) -> tuple[DiceTrays | None, DiceCamera | None]:
    """The trays of the config on their pins, and the trays' own camera if it has one."""
    if config.trays is None:
        return None, None
    from companion.devices.pins import make_pin_factory
    from companion.devices.tray import build_trays as make_trays
    from companion.table.trays import DiceTrays
    from companion.vision.dice import DiceReader

    dice_camera = None
    if config.dice_camera is not None:
        dice_camera = DiceCamera(config.dice_camera)
        stack.callback(dice_camera.close)
        latest = dice_camera.latest
    trays = make_trays(config.trays, make_pin_factory(config.trays.pin_factory))
    flow = DiceTrays(trays, tray_pictures(latest, config.trays, time.monotonic), DiceReader())
    stack.callback(flow.close)
    return flow, dice_camera


def run_table(
    config: Config,
    notifier: Notifier | None = None,
    simulated_games: int | None = None,
    first_seed: int = 1,
    title: str = "Table Companion",
    on_ready: Callable[[], None] | None = None,
    advice: str = OPTIONS_ADVICE,
) -> int:
    """Serve the table of ``config`` until stopped. A ``simulator`` camera plays simulated games
    from ``first_seed`` on, ``simulated_games`` of them (None: without end). ``advice``: what to
    change when the address cannot be had."""
    notifier = notifier or Notifier.from_environment()
    LOG.info(tune_allocator())  # before the first frame: see companion/service/memory.py
    with ExitStack() as stack:
        readers = Readers.load()  # every game's models, before anything is opened
        store = GameStore(config.state_dir)
        stack.callback(store.close)
        table = Table(store, retention=config.retention)
        stop = threading.Event()
        runner_box: list[TableRunner] = []

        def latest() -> Frame | None:
            return runner_box[0].latest if runner_box else None

        trays, dice_camera = build_trays(config, latest, stack)
        readers.start(ReaderKit(config.state_dir, config.camera.fps, trays))
        feed: CameraFeed | NoCamera
        if config.camera.source == "simulator":
            from companion.cameras.simulated import FramesCamera

            frames = readers.simulated_frames(table, config.camera.fps, first_seed, simulated_games)
            feed = CameraFeed(FramesCamera(frames, name="the simulated table"))
        elif config.camera.source == "none":
            feed = NoCamera()
        else:
            feed = CameraFeed(open_camera(config.camera), read_timeout=read_timeout(config.camera))
        name = feed.camera.name if isinstance(feed, CameraFeed) else "no camera"
        table.source = f"camera: {name}"
        stack.callback(feed.close)
        runner = TableRunner(
            table,
            feed,
            readers.build,
            notifier,
            enrolment=readers.idle(),
            trays=trays,
            dice_camera=dice_camera.status if dice_camera is not None else lambda: None,
            # SIGTERM, whose handler serve() installs: a program started in the background by
            # a shell without job control inherits SIGINT ignored, and would never stop
            on_fatal=lambda: os.kill(os.getpid(), signal.SIGTERM),
        )
        runner_box.append(runner)
        worker = threading.Thread(target=runner.run, args=(stop,), daemon=True, name="table")
        # undone last to first: say stopping, stop the loop, then let MQTT tell the club (so it
        # hears the loop's last events), then the camera, the trays and the store
        _start_mqtt(config, table, stack)
        stack.callback(_stop_worker, worker, stop)
        stack.callback(notifier.stopping)

        def started() -> None:
            notifier.ready(f"reading the table with {name}")  # before the loop's first kick
            worker.start()
            if on_ready is not None:
                on_ready()

        code = serve(
            table,
            config.web.host,
            config.web.port,
            pin=config.web.pin,
            threads=config.web.threads,
            mdns=config.web.mdns,
            title=title,
            on_ready=started,
            attachments=readers.attachments(),
            advice=advice,
        )
        # waitress ends its loop on the SIGTERM of on_fatal as on Ctrl+C and returns 0: a loop
        # that failed must still exit non-zero, for systemd's Restart=on-failure
        return 1 if runner.failed else code


def read_timeout(settings: CameraSettings) -> float:
    """How long a read may wait for a frame: 2 s, or three frames of a slow camera."""
    return max(2.0, 3.0 / settings.fps)


def _stop_worker(worker: threading.Thread, stop: threading.Event, timeout: float = 10.0) -> None:
    """Ask the loop to stop and wait for it. A loop stuck in a camera read is left behind (a
    daemon thread) so the rest still shuts down, and the journal says so."""
    stop.set()
    if worker.is_alive():
        worker.join(timeout=timeout)
        if worker.is_alive():
            print(f"companion run: the table's loop did not stop within {timeout:g} s", file=sys.stderr)


def _start_mqtt(config: Config, table: Table, stack: ExitStack) -> None:
    if not config.mqtt.enabled:
        return
    from companion.live.mqtt import TablePublisher

    publisher = TablePublisher(table, config.mqtt)
    publisher.start()
    stack.callback(publisher.stop)
