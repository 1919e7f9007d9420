"""The demo table: serve the scoreboard while a recorded game is played into it at table pace.

Until the simulated camera table exists, this is what ``make run`` shows. The demo keeps its
games in a state directory of its own (a temporary one unless given), never in the real one.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import threading
from importlib import resources
from pathlib import Path

from companion.games.base import IllegalEvent
from companion.live.table import Table
from companion.record import Record, read_record, replay
from companion.store import GameStore
from companion.web.server import serve

DEMO_RECORD = "demo-starwars.jsonl"


def bundled_demo_record() -> Path:
    return Path(str(resources.files("companion.data").joinpath(DEMO_RECORD)))


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
    record: str | None, pace: float, host: str, port: int, state_dir: str | None, pin: str | None, mdns: bool
) -> int:
    path = Path(record) if record else bundled_demo_record()
    game_record = read_record(path)
    replay(game_record)  # refuse a bad record now, with its line, not halfway through the demo
    folder = Path(state_dir) if state_dir else Path(tempfile.mkdtemp(prefix="companion-demo-"))
    table = Table(GameStore(folder), source=f"demo: replaying {path.name}, one event every {pace:g} s")
    table.start(game_record.setup.to_json())
    stop = threading.Event()
    feeder = threading.Thread(target=feed, args=(table, game_record, pace, stop), daemon=True, name="demo")
    minutes = len(game_record.events) * pace / 60

    def start_feeding() -> None:
        count = len(game_record.events)
        print(f"Replaying {path}: {count} events, one every {pace:g} s (about {minutes:.0f} min)")
        feeder.start()

    try:
        return serve(
            table, host, port, pin=pin, mdns=mdns, title="Table Companion demo", on_ready=start_feeding
        )
    finally:
        stop.set()
        table.store.close()
        if not state_dir:
            shutil.rmtree(folder, ignore_errors=True)
