"""The demo table: serve the scoreboard while a recorded game is played into it at table pace.

By default the game is played on the simulated table and read by the camera pipeline, frame
by frame (``make run``); with a record, its events are replayed instead. The demo keeps its
games in a state directory of its own (a temporary one unless given), never in the real one.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from companion.errors import UserError
from companion.games.base import IllegalEvent
from companion.live.table import Table
from companion.record import Record, read_record, replay
from companion.store import GameStore
from companion.table.reader import IdleReader, ReaderKit
from companion.web.server import serve


def feed(table: Table, record: Record, pace: float, stop: threading.Event) -> None:
    """Play the record's events into the table one by one, ``pace`` seconds apart."""
    for line, event in record.events:
        if stop.wait(pace):
            return
        try:
            table.add(record.game.event_to_json(event))
        except IllegalEvent as error:  # a correction on a phone can make the rest illegal
            print(f"demo stopped at line {line}: {error.reason}", file=sys.stderr)
            return


def run_demo(
    record: str, pace: float, host: str, port: int, state_dir: str | None, pin: str | None, mdns: bool
) -> int:
    path = Path(record)
    game_record = read_record(path)
    replay(game_record)  # refuse a bad record now, with its line, not halfway through the demo
    folder = Path(state_dir) if state_dir else Path(tempfile.mkdtemp(prefix="companion-demo-"))
    table = Table(GameStore(folder), source=f"demo: replaying {path.name}, one event every {pace:g} s")
    table.start(game_record.setup.to_json())
    stop = threading.Event()
    feeder = threading.Thread(target=feed, args=(table, game_record, pace, stop), daemon=True, name="demo")
    seconds = len(game_record.events) * pace
    length = f"about {seconds / 60:.0f} min" if seconds >= 90 else f"about {seconds:.0f} s"
    news = f"Replaying {path}: {len(game_record.events)} events, one every {pace:g} s ({length})"
    return _serve_demo(table, folder, state_dir, feeder, stop, news, host, port, pin, mdns)


def _serve_demo(
    table: Table,
    folder: Path,
    state_dir: str | None,
    worker: threading.Thread,
    stop: threading.Event,
    news: str,
    host: str,
    port: int,
    pin: str | None,
    mdns: bool,
    attachments: dict[str, Any] | None = None,
) -> int:
    """Serve ``table`` and start ``worker`` once the server listens; tidy everything on the way out."""

    def start() -> None:
        print(news)
        worker.start()

    try:
        return serve(
            table,
            host,
            port,
            pin=pin,
            mdns=mdns,
            title="Table Companion demo",
            on_ready=start,
            attachments=attachments,
        )
    finally:
        stop.set()
        if worker.is_alive():
            worker.join(timeout=5)
        table.store.close()
        if not state_dir:
            shutil.rmtree(folder, ignore_errors=True)


def demo_state_dir() -> Path:
    """Where the camera demo keeps its games from one run to the next:
    $XDG_STATE_HOME/table-companion-demo (~/.local/state/table-companion-demo without it)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "table-companion-demo"


def run_camera_demo(
    fps: float,
    seed: int,
    host: str,
    port: int,
    state_dir: str | None,
    pin: str | None,
    mdns: bool,
    fresh: bool = False,
) -> int:
    """``companion run`` over the simulated table: one game, read frame by frame by the pipeline.
    Its games are kept from one run to the next (in ``demo_state_dir()`` unless given a state
    dir), and each run plays the next simulated game; ``fresh`` plays in a store of its own
    that goes when the demo stops."""
    from companion.cameras.settings import camera_settings
    from companion.config import Config, WebSettings
    from companion.service.run import run_table

    camera = camera_settings({"source": "simulator", "fps": fps})  # refused before anything is made
    temporary = fresh and not state_dir
    if temporary:
        folder = Path(tempfile.mkdtemp(prefix="companion-demo-"))
    else:
        folder = Path(state_dir) if state_dir else demo_state_dir()
        seed += played_before(folder)  # the next game night, not the same game again
    config = Config(
        state_dir=folder, web=WebSettings(host=host, port=port, pin=pin, mdns=mdns), camera=camera
    )
    try:
        return run_table(
            config,
            simulated_games=1,
            first_seed=seed,
            title="Table Companion demo",
            on_ready=lambda: print(
                f"Playing simulated game {seed} on the simulated table at {fps:g} frames/s"
            ),
        )
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)


def played_before(folder: Path) -> int:
    """How many games a state dir already keeps."""
    if not (folder / "games.sqlite3").is_file():
        return 0
    store = GameStore(folder)
    try:
        return len(store.games())
    finally:
        store.close()


def show_box(idle: IdleReader, frames: Iterator[np.ndarray], stop: threading.Event) -> None:
    """A box laid out on the simulated mat, seen by the camera until the scene has settled."""
    for frame in frames:
        if stop.is_set():
            return
        idle.step(frame)


def run_enrol_demo(
    style: int, host: str, port: int, state_dir: str | None, pin: str | None, mdns: bool
) -> int:
    """The enrolment page over a simulated box laid out on the mat: describe each tile on the
    phone and it goes into the gallery of the state directory, where ``companion demo`` reads it.
    The box is the first game's (in the registry's order) that enrols one."""
    from companion.service.readers import Readers

    folder = Path(state_dir) if state_dir else Path(tempfile.mkdtemp(prefix="companion-demo-"))
    readers = Readers.load()
    readers.start(ReaderKit(state_dir=folder))
    for maker in readers.makers.values():
        idle, frames = maker.idle(), maker.box_frames(style)
        if idle is not None and frames is not None:
            break
    else:
        raise UserError("no game here enrols a box")
    table = Table(GameStore(folder), source="demo: enrolling a simulated box")
    stop = threading.Event()
    worker = threading.Thread(target=show_box, args=(idle, frames, stop), daemon=True, name="camera")
    news = "Enrolling a simulated box: open /enrol on the phone"
    return _serve_demo(
        table, folder, state_dir, worker, stop, news, host, port, pin, mdns, readers.attachments()
    )
