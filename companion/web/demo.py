"""The demo table: serve the scoreboard while a recorded game is replayed at table pace.

Until the simulated camera table exists, this is what ``make run`` shows.
"""

from __future__ import annotations

import sys
import threading
from importlib import resources
from pathlib import Path

from companion.errors import UserError
from companion.games.base import IllegalEvent
from companion.record import Record, read_record, replay
from companion.session import GameSession
from companion.web import create_app
from companion.web.net import page_urls

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
    from waitress.server import create_server

    path = Path(record) if record else bundled_demo_record()
    game_record = read_record(path)
    replay(game_record)  # refuse a bad record now, with its line, not halfway through the demo
    session = GameSession.from_record(
        game_record, source=f"demo: replaying {path.name}, one event every {pace:g} s"
    )
    app = create_app(session.state)
    try:  # bind before telling anyone where to look
        server = create_server(app, host=host, port=port, threads=16, ident="table-companion")
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or error
        raise UserError(f"cannot listen on {host}:{port}: {reason} (try another --port or --host)") from None
    urls = page_urls(host, port)
    print(f"Table Companion demo: scoreboard on {urls[0]} (Ctrl+C to stop)", flush=True)
    for url in urls[1:]:
        print(f"  also on {url}", flush=True)
    minutes = len(game_record.events) * pace / 60
    print(
        f"Replaying {path}: {len(game_record.events)} events, one every {pace:g} s (about {minutes:.0f} min)"
    )
    stop = threading.Event()
    feeder = threading.Thread(target=feed, args=(session, game_record, pace, stop), daemon=True)
    feeder.start()
    try:
        server.run()
    finally:
        stop.set()
        server.close()
    return 0
