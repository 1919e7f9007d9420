"""What stays behind from game to game: short simulated games read in one process, with tracemalloc.

The service's own parts in one process, without the web server: the game store, the table, the
camera loop (``TableRunner``) and Star Wars' reader, fed by the simulated table as fast as it is
read. A tracemalloc snapshot is taken as each game starts; at the end the Python memory that grew
most between the first game after ``--warm-up`` and the last is printed, by where it was
allocated, with each game's traced total and resident memory. A leak kept per game shows as a
line that grows with the games; the soak (benchmarks/soak.py) says whether the process as a whole
stays flat.

    nice -n 10 taskset -c 1 .venv/bin/python benchmarks/memory_hunt.py --games 40 --tiles 12
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import tracemalloc
from pathlib import Path


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Quiet:
    """No service manager to tell."""

    def kick(self) -> None:
        pass

    def status(self, text: str) -> None:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--tiles", type=int, default=12, help="tiles a game (None: whole games)")
    parser.add_argument("--warm-up", type=int, default=5)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()

    from companion.cameras.feed import CameraFeed
    from companion.cameras.simulated import FramesCamera
    from companion.games.starwars.reader.maker import StarWarsReaderMaker
    from companion.games.starwars.sim.table_games import SimulatedGames
    from companion.live.table import Table
    from companion.service.memory import tune_allocator
    from companion.service.runner import TableRunner
    from companion.store import GameStore, Retention
    from companion.table.reader import ReaderKit

    print(tune_allocator())
    folder = Path(tempfile.mkdtemp(prefix="companion-hunt-"))
    table = Table(GameStore(folder), retention=Retention(games=5))
    games = SimulatedGames(table, fps=0, first_seed=1, games=args.games, tiles=args.tiles, people=True)
    maker = StarWarsReaderMaker()
    maker.check()
    maker.start(ReaderKit(folder, 5.0, None))
    maker.dice = games
    feed = CameraFeed(FramesCamera(games.frames(), name="hunt"), sleep=lambda _: None, max_age=60.0)
    runner = TableRunner(table, feed, maker.reader, Quiet())
    tracemalloc.start(10)
    # only two snapshots are held (each is several MiB): the one after the warm-up and the last
    snapshots: list[tracemalloc.Snapshot] = []
    seen: int | None = None
    started = 0
    stop = threading.Event()

    def step() -> None:
        nonlocal seen, started
        game_id = table.live.game_id if table.live is not None else None
        if game_id != seen:
            seen = game_id
            started += 1
            traced, _ = tracemalloc.get_traced_memory()
            own = tracemalloc.get_tracemalloc_memory()
            print(
                f"game {started:3d}: traced {traced / 2**20:7.2f} MiB (tracemalloc's own "
                f"{own / 2**20:5.1f}), resident {rss_mib():6.1f} MiB",
                flush=True,
            )
            if started > args.warm_up:
                del snapshots[1:]
                snapshots.append(tracemalloc.take_snapshot())

    runner.pause = lambda _: stop.set()  # the source has ended: every game played
    while not stop.is_set() and not feed.ended:
        runner.step()
        step()
    if len(snapshots) < 2:
        print("too few games after the warm-up to compare")
        return 1
    first, last = snapshots
    print(f"what grew most from game {args.warm_up + 1} to game {started}:")
    for stat in last.compare_to(first, "traceback")[: args.top]:
        print(f"{stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks")
        for line in stat.traceback.format()[-6:]:
            print("    " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
