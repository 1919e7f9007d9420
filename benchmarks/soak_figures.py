"""The soak's figures: each game's memory, each run's record, and how they are judged.

Kept apart from ``soak.py``, which plays the games, so that the report can be read and changed
on its own: ``soak.py --report`` prints what ``summarise`` works out from the state folder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Game:
    number: int  # 1, 2, ... over every run
    run: int
    game_id: int
    lowest_mib: float
    highest_mib: float
    samples: int
    complete: bool = False  # seen to its end (the next game's start)
    store_mib: float = 0.0  # the state dir on disk (games, pictures, database) as it ended
    # the lowest of its anonymous memory (RssAnon: heaps, arenas, numpy's and the models' blocks);
    # the rest of VmRSS is file pages (libraries, models) the kernel can take back. 0: not sampled
    lowest_anon_mib: float = 0.0


@dataclass
class Soak:
    """What is kept between runs."""

    runs: int = 0
    next_seed: int = 1
    last_game_id: int = 0  # the game under way when the last run stopped
    games: list[Game] = field(default_factory=list)
    minutes: float = 0.0
    stream_messages: int = 0
    phone_errors: int = 0
    # per run: threads and open files with no phone connected, after its warm-up and at its end
    idle: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Soak:
        if not path.exists():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        data["games"] = [Game(**game) for game in data["games"]]
        return cls(**data)

    def save(self, path: Path) -> None:
        """Whole or not at all: a machine that stops mid-write leaves the last copy."""
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps(asdict(self), indent=1) + "\n", encoding="utf-8")
        os.replace(partial, path)


def per_ten_games(points: list[tuple[int, float]]) -> float:
    """The least-squares slope of MiB against game number, per 10 games."""
    if len(points) < 2:
        return 0.0
    xs, ys = [float(p[0]) for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    denominator = sum((x - mx) ** 2 for x in xs) or 1.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / denominator * 10


def summarise(args: argparse.Namespace, soak: Soak) -> int:
    settled = [
        g
        for g in soak.games
        if g.complete and sum(1 for h in soak.games if h.run == g.run and h.number < g.number) >= args.warm_up
    ]
    for game in soak.games:
        mark = "" if game in settled else "  (warm-up)"
        print(
            f"game {game.number:4d}  run {game.run}  lowest {game.lowest_mib:6.1f}  "
            f"highest {game.highest_mib:6.1f}  store {game.store_mib:6.2f} MiB{mark}"
        )
    summary: dict[str, Any] = {
        "games_played": sum(g.complete for g in soak.games),
        "games_after_warm_up": len(settled),
        "runs": soak.runs,
        "minutes": round(soak.minutes, 1),
        "fps": sorted({idle["fps"] for idle in soak.idle if "fps" in idle}),
        "tiles": sorted({str(idle["tiles"]) for idle in soak.idle if "tiles" in idle}),
        "runs_without_an_end": [idle["run"] for idle in soak.idle if "exit" not in idle],
        "stream_messages": soak.stream_messages,
        "phone_errors": soak.phone_errors,
        "idle": soak.idle,
    }
    # Each run is a process of its own, whose memory starts afresh: the trend and the rise are
    # judged within each run, after its warm-up.
    ok = bool(settled)
    by_run: dict[int, dict[str, Any]] = {}
    for run in sorted({g.run for g in settled}):
        games = [g for g in settled if g.run == run]
        tenth = games[: max(1, len(games) // 10)]
        first_tenth = min(g.lowest_mib for g in tenth)
        by_run[run] = {
            "games": len(games),
            "lowest_trend_mib_per_10_games": round(
                per_ten_games([(g.number, g.lowest_mib) for g in games]), 2
            ),
            "highest_trend_mib_per_10_games": round(
                per_ten_games([(g.number, g.highest_mib) for g in games]), 2
            ),
            "first_tenth_lowest_mib": first_tenth,
            "lowest_mib_range": [min(g.lowest_mib for g in games), max(g.lowest_mib for g in games)],
            "highest_mib": max(g.highest_mib for g in games),
        }
        anon = [(g.number, g.lowest_anon_mib) for g in games if g.lowest_anon_mib]
        if len(anon) > 1:
            by_run[run]["lowest_anon_trend_mib_per_10_games"] = round(per_ten_games(anon), 2)
        judged = by_run[run]
        ok = (
            ok
            and judged["lowest_trend_mib_per_10_games"] < args.trend
            and judged["lowest_mib_range"][1] - first_tenth <= args.floor_rise
        )
    summary["by_run"] = by_run
    stored = [g for g in soak.games if g.complete and g.store_mib]
    if stored:
        summary["store_mib_after_each_game_max"] = max(g.store_mib for g in stored)
        summary["store_mib_at_end"] = stored[-1].store_mib
    for idle in soak.idle:
        if "threads_at_start" in idle and "threads_at_end" in idle:
            ok = ok and idle["threads_at_end"] <= idle["threads_at_start"]
            ok = ok and idle["open_files_at_end"] <= idle["open_files_at_start"]
    summary["flat"] = ok
    (args.state / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=1))
    return 0 if ok else 1


def grown(folder: Path, skip: int) -> None:
    """What grew most between the snapshot after the warm-up and the last one."""
    import tracemalloc

    files = sorted(folder.glob("*.snapshot"))
    if len(files) < skip + 2:
        print(f"too few snapshots to compare ({len(files)})")
        return
    first, last = tracemalloc.Snapshot.load(str(files[skip])), tracemalloc.Snapshot.load(str(files[-1]))
    print(f"tracemalloc: {files[skip].name} -> {files[-1].name}, what grew most")
    for stat in last.compare_to(first, "traceback")[:15]:
        print(f"{stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks")
        for line in stat.traceback.format()[-8:]:
            print("    " + line)
