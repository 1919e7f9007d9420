"""Speed of the Castle engine against issue 52's targets: a 60-tile game replayed in 20 ms or less,
and the legal placements of one tile in 2 ms or less.

Run on one core:  taskset -c 0 .venv/bin/python benchmarks/bench_castle.py
  --games N   how many simulated 60-tile games to time (default 20)
  --repeats N runs of each measurement, the fastest counting (default 5)
  --check     exit 1 if a figure misses its target

Each game is a simulated game on the standard board (``companion simulate --game castle``'s
player), kept only when all 60 castle tiles were placed. Replayed means what ``companion replay``
does: the record's text read line by line and every event played through the engine, the open
turns' and the final scoring worked out. Legal placements: every shape of the box (our
approximation) asked about on the board after 20, 40 and 59 tiles of each game, through the
engine's legal events for that drawn tile (every space and turn as tile events). On a busy
machine the wall clock runs high; the processor time of the run is printed beside it.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial

from companion.games.castle import events as ev
from companion.games.castle import tiles
from companion.games.castle.box import box
from companion.games.castle.engine import CastleGame
from companion.games.castle.legal import Draw
from companion.games.castle.sim import play
from companion.record import dump_record, play_record

TILES = 60
TARGET_REPLAY_MS = 20.0
TARGET_PLACEMENTS_MS = 2.0
CUTS = (20, 40, 59)  # tiles placed when the placements are asked for


def best_of(repeats: int, work: Callable[[], object]) -> float:
    """Seconds of the fastest of ``repeats`` runs (the least disturbed by the machine)."""
    fastest = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        fastest = min(fastest, time.perf_counter() - start)
    return fastest


def cold(text: str) -> object:
    tiles.forget_parsed()
    return play_record(text)


def full_games(count: int) -> list[tuple[str, list[ev.Event], CastleGame]]:
    """Simulated games that placed all 60 tiles: their record text, events and setup's engine."""
    found: list[tuple[str, list[ev.Event], CastleGame]] = []
    seed = 0
    while len(found) < count:
        result = play(2, seed, "standard", frozenset())
        seed += 1
        game = result.game
        assert isinstance(game, CastleGame)
        if game.placed == TILES:
            found.append((dump_record(CastleGame, result.setup, result.events), list(result.events), game))
    return found


def cut(game: CastleGame, events: list[ev.Event], tiles: int) -> CastleGame:
    """A fresh game fed with the events up to the tile after ``tiles`` tiles (that tile not placed)."""
    fresh = CastleGame(game.setup)
    placed = 0
    for event in events:
        if isinstance(event, ev.TilePlaced):
            if placed == tiles:
                break
            placed += 1
        fresh.apply(event)
    return fresh


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    cpu = time.process_time()
    games = full_games(args.games)
    events = [len(evs) for _, evs, _ in games]
    # cold: every tile read afresh, as a process does the first time it meets a record (the
    # reader keeps the tiles it has read, so a replay of a known game is faster: warm)
    cold_ms = [1000 * best_of(args.repeats, partial(cold, text)) for text, _, _ in games]
    warm_ms = [1000 * best_of(args.repeats, partial(play_record, text)) for text, _, _ in games]
    placements_ms: list[float] = []
    listed = 0
    for _, evs, game in games:
        for placed in CUTS:
            board = cut(game, evs, placed)
            for shape in box():
                chance = Draw(shape.tile)
                placements_ms.append(1000 * best_of(args.repeats * 4, partial(board.legal_events, chance)))
                listed += sum(isinstance(e, ev.TilePlaced) for e in board.legal_events(chance))
    cpu = time.process_time() - cpu
    where = f"{platform.machine()}, Python {platform.python_version()}, pid {os.getpid()}"
    print(f"Castle engine ({where}); {len(games)} games of 60 tiles, {min(events)}-{max(events)} events")
    cold_text = f"median {statistics.median(cold_ms):.1f} ms, slowest {max(cold_ms):.1f} ms"
    warm_text = f"median {statistics.median(warm_ms):.1f} ms, slowest {max(warm_ms):.1f} ms"
    print(
        f"replay of a 60-tile game (parse + play, fastest of {args.repeats}), tiles read afresh: "
        f"{cold_text} (target <= {TARGET_REPLAY_MS:.0f} ms); tiles already read: {warm_text}"
    )
    asks = f"{len(placements_ms)} asks: {len(box())} shapes x {len(CUTS)} boards x {len(games)} games"
    print(
        f"legal placements of one tile ({asks}, fastest of {args.repeats * 4}): "
        f"median {statistics.median(placements_ms):.3f} ms, slowest {max(placements_ms):.3f} ms "
        f"(target <= {TARGET_PLACEMENTS_MS:.0f} ms); "
        f"{listed / len(placements_ms):.1f} placements listed on average"
    )
    print(f"processor time of the whole run: {cpu:.1f} s")
    missed = max(cold_ms) > TARGET_REPLAY_MS or max(placements_ms) > TARGET_PLACEMENTS_MS
    if args.check and missed:
        print("a target was missed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
