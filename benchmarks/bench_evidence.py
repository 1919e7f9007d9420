"""How much disk a whole game's evidence takes: every score's camera pictures, kept beside it.

    .venv/bin/python benchmarks/bench_evidence.py [--seed 1] [--check]

Plays one whole simulated Star Wars game (76 tiles) on the simulated table, read frame by frame
by the camera pipeline as ``companion run`` reads it, and reports the pictures kept: how many,
how large, and the total against the target (a 76-tile game's pictures within 20 MB).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_runner import Heartbeat, star_wars_readers

from companion.cameras.feed import CameraFeed
from companion.cameras.simulated import FramesCamera
from companion.games.starwars.sim.table_games import SimulatedGames
from companion.live.evidence import MIB
from companion.live.table import Table
from companion.service.runner import TableRunner
from companion.store import EVIDENCE, GameStore

TARGET_MB = 20.0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", action="store_true", help="exit 1 if the figure misses its target")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        table = Table(GameStore(folder))
        games = SimulatedGames(table, fps=0, first_seed=args.seed, games=1, people=True)
        feed = CameraFeed(FramesCamera(games.frames()), sleep=lambda _: None, max_age=3600.0)
        runner = TableRunner(table, feed, star_wars_readers(games), Heartbeat())
        stop = threading.Event()
        runner.pause = lambda _: stop.set()
        started = time.monotonic()
        runner.run(stop)
        live = table.live
        assert live is not None
        pictures = sorted((Path(folder) / EVIDENCE / str(live.game_id)).glob("*.jpg"))
        total = sum(p.stat().st_size for p in pictures)
        sizes = sorted(p.stat().st_size for p in pictures)
        scores = len(live.engine.log)
        print(
            f"seed {args.seed}: {len(live.engine.setup.players)} players, "
            f"{len(live.steps)} events, {scores} scores, finished {live.engine.finished}, "
            f"read in {time.monotonic() - started:.0f} s"
        )
        print(
            f"pictures kept: {len(pictures)}, median {sizes[len(sizes) // 2] / 1024:.0f} KiB, "
            f"largest {sizes[-1] / 1024:.0f} KiB; in all {total / MIB:.2f} MiB "
            f"(target <= {TARGET_MB:g} MB a 76-tile game)"
        )
        table.store.close()
    return 1 if args.check and total > TARGET_MB * 1e6 else 0


if __name__ == "__main__":
    sys.exit(main())
