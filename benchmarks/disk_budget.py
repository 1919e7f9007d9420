"""The state dir over hundreds of games with the default retention: does it stay within its budget?

Simulated Star Wars games (``companion simulate``'s players, as people play) are played one
after another into a Table with the default retention, each event stored as the camera stores it,
with a picture for every score that counts cells (random bytes of the sizes the camera's pictures
have: 12 to 43 KiB, median about 22 KiB; benchmarks/README.md, "Evidence"). After each game the
state dir's size on disk is read (database, its log and the pictures). It passes when the
largest size stays within ``--budget`` MB, the default retention's stated bound (docs/running.md).

    nice -n 10 taskset -c 1 .venv/bin/python benchmarks/disk_budget.py --games 300
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from companion.games.base import ScoreChange
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.sim.play import simulated_game
from companion.live.evidence import Picture
from companion.live.table import Table
from companion.store import GameStore, Retention


class Pictures:
    """A camera's worth of pictures: one per score that counts cells, sized as the camera's are."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pictures(self, changes: Sequence[ScoreChange]) -> list[Picture]:
        return [
            Picture(os.urandom(int(self.rng.triangular(12, 43, 20) * 1024)), index)
            for index, change in enumerate(changes)
            if change.cells
        ]


def disk_use(folder: Path) -> int:
    return sum(path.stat().st_blocks * 512 for path in folder.rglob("*") if path.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--budget", type=float, default=550.0, help="MB the state dir may take")
    parser.add_argument("--out", type=Path, default=Path("build/disk_budget.json"))
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="companion-disk-"))
    retention = Retention()
    table = Table(GameStore(folder), retention=retention)
    table.set_evidence(Pictures(1))
    sizes: list[float] = []
    for seed in range(1, args.games + 1):
        game = simulated_game(seed, people=True)
        table.start(game.setup.to_json())
        for event in game.events:
            table.add(StarWarsGame.event_to_json(event))
        sizes.append(disk_use(folder) / 1e6)
        if seed % 25 == 0:
            print(f"game {seed:4d}: {sizes[-1]:7.1f} MB, {len(table.store.games())} games kept", flush=True)
    summary = {
        "games": args.games,
        "retention": {"games": retention.games, "evidence_mb": retention.evidence_bytes / 1e6},
        "games_kept_at_end": len(table.store.games()),
        "mb_largest": round(max(sizes), 1),
        "mb_at_end": round(sizes[-1], 1),
        "mb_after_game_100": round(sizes[min(99, len(sizes) - 1)], 1),
        "mb_per_game_before_the_bound": round(sizes[min(99, len(sizes) - 1)] / min(100, len(sizes)), 2),
        "database_mb_at_end": round(sum(p.stat().st_size for p in folder.glob("games.sqlite3*")) / 1e6, 2),
        "budget_mb": args.budget,
    }
    summary["within_budget"] = summary["mb_largest"] <= args.budget
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=1))
    table.store.close()
    return 0 if summary["within_budget"] else 1


if __name__ == "__main__":
    sys.exit(main())
