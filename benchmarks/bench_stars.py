"""Speed of replaying a whole 4-player Among the Stars game (issue 55: <= 50 ms on one core).

Run on one core:  taskset -c 0 .venv/bin/python benchmarks/bench_stars.py [--games N] [--check]

Simulates N whole 4-player games (seeds 1..N, the made-up card set of the simulator), writes
each as its record text, then times what ``companion replay FILE --json`` does with that text:
read every line, play it through the engine, and build the replay JSON. Each game is timed 9
times and its fastest run kept, by the wall clock and by the process's CPU time; the median and
the slowest game are reported. On a quiet machine the two agree; on a busy one the wall clock
also counts the time other processes held the core, so ``--check`` (exit 1 when the slowest
game is over the target) judges the CPU time, the work one core does for a replay.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from companion.games.registry import manifest
from companion.record import dump_record, parse_record, replay_lines
from companion.replay import replay_json
from companion.sim.random_player import play_random

TARGET_MS = 50.0
PLAYERS = 4
RUNS = 9


def replay_text(text: str) -> str:
    """What ``companion replay --json`` does with a record's text."""
    record = parse_record(text)
    game, lines = replay_lines(record)
    return json.dumps(replay_json(game, lines), ensure_ascii=False)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20, help="simulated 4-player games (default: 20)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the slowest game misses the target")
    args = parser.parse_args()
    stars = manifest("stars")
    texts = []
    for seed in range(1, args.games + 1):
        result = play_random(stars, PLAYERS, seed)
        assert result.game.finished, f"seed {seed} did not end"
        texts.append(dump_record(type(result.game), result.setup, result.events))
    replay_text(texts[0])  # warm up: imports and caches
    best, cpu = [], []
    for text in texts:
        fastest = used = float("inf")
        for _ in range(RUNS):
            started, cpu_started = time.perf_counter(), time.process_time()
            replay_text(text)
            fastest = min(fastest, (time.perf_counter() - started) * 1000)
            used = min(used, (time.process_time() - cpu_started) * 1000)
        best.append(fastest)
        cpu.append(used)
    events = [len(text.splitlines()) - 1 for text in texts]
    print(
        f"{args.games} whole {PLAYERS}-player games of {min(events)} to {max(events)} events, "
        f"each read, replayed and turned into replay JSON (fastest of {RUNS} runs each):"
    )
    median, slowest = statistics.median(best), max(best)
    print(f"  wall clock: median {median:.1f} ms, slowest {slowest:.1f} ms (target <= {TARGET_MS:.0f} ms)")
    print(f"  CPU time:   median {statistics.median(cpu):.1f} ms, slowest {max(cpu):.1f} ms")
    if args.check and max(cpu) > TARGET_MS:
        print(f"bench_stars: the slowest took {max(cpu):.1f} ms, over {TARGET_MS:.0f} ms", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
