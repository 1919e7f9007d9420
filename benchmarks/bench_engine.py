"""Speed of the Star Wars engine against the targets of issue 2.

Run on one core:  taskset -c 0 .venv/bin/python benchmarks/bench_engine.py  (or `make bench`)
  --games N   how many random games for the simulation figure (default 1000)
  --check     exit 1 if a figure misses its target
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.phase import Phase
from companion.games.starwars.sim.games import simulate_game
from companion.record import dump_record, parse_record, replay

TARGET_PLACEMENTS_MS = 2.0
TARGET_REPLAY_MS = 50.0
TARGET_1000_GAMES_S = 60.0


def best_of(repeats: int, work: Callable[[], object]) -> float:
    """Seconds of the fastest of ``repeats`` runs (the least disturbed by the machine)."""
    fastest = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        fastest = min(fastest, time.perf_counter() - start)
    return fastest


def full_board(seed: int) -> StarWarsGame:
    """A game with all 76 tiles down, just before final scoring."""
    sim = simulate_game(players=4, seed=seed)
    game = StarWarsGame(sim.setup)
    for event in sim.events[:-1]:  # all but "end"
        game.apply(event)
    if game.phase is Phase.MEEPLE:
        game.close_turn()
    return game


def bench_placements() -> tuple[float, float, int]:
    """Per call: median over tile types and boards, the slowest type, tiles on the board."""
    per_call = []
    for seed in range(5):
        game = full_board(seed)
        for entry in load_catalog().tiles:
            per_call.append(best_of(20, lambda g=game, e=entry: g.legal_placements(e.tile)))
    return statistics.median(per_call) * 1000, max(per_call) * 1000, len(game.board.tiles)


def bench_replay() -> tuple[float, float, int]:
    """Parse and replay whole records: median and slowest, and the events in the longest."""
    times = []
    longest = 0
    for seed in range(20):
        sim = simulate_game(players=2 + seed % 4, seed=seed)
        text = dump_record(StarWarsGame, sim.setup, sim.events)
        longest = max(longest, len(sim.events))
        times.append(best_of(5, lambda t=text: replay(parse_record(t))))
    return statistics.median(times) * 1000, max(times) * 1000, longest


def bench_simulation(games: int) -> float:
    start = time.perf_counter()
    for seed in range(games):
        simulate_game(players=2 + seed % 4, seed=seed)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()

    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(f"python {platform.python_version()} on {platform.machine()}, cores allowed: {cores}")
    placements_ms, placements_worst_ms, tiles = bench_placements()
    print(
        f"legal placements of one tile, {tiles}-tile board: median {placements_ms:.3f} ms, "
        f"slowest tile type {placements_worst_ms:.3f} ms (target <= {TARGET_PLACEMENTS_MS} ms)"
    )
    replay_ms, replay_worst_ms, events = bench_replay()
    print(
        f"whole game parsed and replayed: median {replay_ms:.1f} ms, slowest {replay_worst_ms:.1f} ms "
        f"(up to {events} events; target <= {TARGET_REPLAY_MS} ms)"
    )
    print(f"simulating {args.games} random games ...", flush=True)
    seconds = bench_simulation(args.games)
    per_1000 = seconds * 1000 / args.games
    print(
        f"{args.games} random games simulated: {seconds:.1f} s (target for 1000 <= {TARGET_1000_GAMES_S} s)"
    )

    missed = [
        name
        for name, ok in (
            ("placements", placements_worst_ms <= TARGET_PLACEMENTS_MS),
            ("replay", replay_worst_ms <= TARGET_REPLAY_MS),
            ("simulation", per_1000 <= TARGET_1000_GAMES_S),
        )
        if not ok
    ]
    if missed:
        print(f"missed: {', '.join(missed)}")
    return 1 if (missed and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
