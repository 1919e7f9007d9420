"""The demo table: serve the scoreboard while a recorded game is replayed at table pace.

Until the simulated camera table exists (issue 4), this is what ``make run`` shows.
"""

from __future__ import annotations

import sys
import threading
from importlib import resources
from pathlib import Path

from companion.games.base import IllegalEvent
from companion.record import Record, read_record, replay
from companion.session import GameSession
from companion.web import create_app

DEMO_RECORD = "demo-starwars.jsonl"


def bundled_demo_record() -> Path:
    return Path(str(resources.files("companion.data").joinpath(DEMO_RECORD)))


def feed(session: GameSession, record: Record, pace: float, stop: threading.Event) -> None:
    """Apply the record's events one by one, ``pace`` seconds apart, until done or stopped."""
    for line, event in record.events:
        if stop.wait(pace):
            return
        try:
            session.apply(event)
        except IllegalEvent as error:  # the record was checked before; say so if it happens
            print(f"demo stopped at line {line}: {error.reason}", file=sys.stderr)
            return


def run_demo(record: str | None, pace: float, host: str, port: int) -> int:
    from waitress import serve

    path = Path(record) if record else bundled_demo_record()
    game_record = read_record(path)
    replay(game_record)  # refuse a bad record now, with its line, not halfway through the demo
    session = GameSession.from_record(
        game_record, source=f"demo: replaying {path.name}, one event every {pace:g} s"
    )
    stop = threading.Event()
    feeder = threading.Thread(target=feed, args=(session, game_record, pace, stop), daemon=True)
    app = create_app(session.state)
    print(f"Table Companion demo: scoreboard on http://{host}:{port}/ (Ctrl+C to stop)", flush=True)
    print(f"Replaying {path} at one event every {pace:g} s", flush=True)
    feeder.start()
    try:
        serve(app, host=host, port=port, threads=16, ident="table-companion")
    except OSError as error:
        reason = error.strerror or error
        print(f"companion demo: cannot listen on {host}:{port}: {reason}; try --port", file=sys.stderr)
        return 1
    finally:
        stop.set()
    return 0
