"""Soak run: ``companion run`` on the simulated table for hours, at table pace, with phones watching.

The service is started as the systemd unit starts it (``companion run --config FILE``) with
``[camera] source = "simulator"``: simulated games one after another, read frame by frame by the
real pipeline, at ``--fps`` frames a second. Phones come and go: ``--phones`` scoreboards each
hold the live stream (``/api/events``) for a while, leave, and come back, and load the page and
the state now and then. Every ``--every`` seconds the server's resident memory (VmRSS), threads
and open files are sampled from /proc, with the games and events it has stored.

The run passes when, between the end of the warm-up (``--warm-up`` minutes) and the end, memory
grows by less than ``--rss-growth`` MiB and the threads and open files, sampled between the
phones' visits, end where they were. The samples go to ``build/soak.csv``, the summary to
``build/soak.json``.

    .venv/bin/python benchmarks/soak.py --minutes 120
"""

from __future__ import annotations

import argparse
import csv
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "build"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Sample:
    minute: float
    rss_mib: float
    threads: int
    open_files: int
    games: int
    events: int
    phones_watching: int
    cpu_seconds: float


def proc_fields(pid: int) -> dict[str, str]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def cpu_seconds(pid: int) -> float:
    parts = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def get_json(port: int, path: str) -> object:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        return json.loads(connection.getresponse().read())
    finally:
        connection.close()


class Phone(threading.Thread):
    """A scoreboard that watches the live stream for a while, leaves, and comes back."""

    def __init__(self, port: int, seed: int, stop: threading.Event) -> None:
        super().__init__(daemon=True, name=f"phone-{seed}")
        self.port, self.rng, self.stop = port, random.Random(seed), stop
        self.watching = False
        self.messages = 0
        self.errors = 0

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.visit()
            except (OSError, http.client.HTTPException):
                self.errors += 1
            self.watching = False
            self.stop.wait(self.rng.uniform(5, 40))  # away

    def visit(self) -> None:
        for path in ("/", "/api/state"):
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            connection.request("GET", path)
            connection.getresponse().read()
            connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        self.watching = True
        until = time.monotonic() + self.rng.uniform(20, 120)
        try:
            while time.monotonic() < until and not self.stop.is_set():
                line = response.fp.readline()
                if not line:
                    break
                if line.startswith(b"data:"):
                    self.messages += 1
        finally:
            connection.close()


def sample(pid: int, port: int, started: float, phones: list[Phone]) -> Sample:
    fields = proc_fields(pid)
    state = get_json(port, "/api/state")
    games = get_json(port, "/api/games")
    assert isinstance(state, dict)
    return Sample(
        minute=round((time.monotonic() - started) / 60, 2),
        rss_mib=round(int(fields["VmRSS"].split()[0]) / 1024, 1),
        threads=int(fields["Threads"]),
        open_files=len(os.listdir(f"/proc/{pid}/fd")),
        games=len(games) if isinstance(games, list) else -1,
        events=int(state.get("events") or 0),
        phones_watching=sum(phone.watching for phone in phones),
        cpu_seconds=round(cpu_seconds(pid), 1),
    )


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    if len(points) < 2:
        return 0.0
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    denominator = sum((x - mx) ** 2 for x in xs) or 1.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / denominator * 60


def floors_by_game(samples: list[Sample]) -> list[tuple[float, float]]:
    """Each whole game's lowest sample (minute, MiB). Memory climbs within a game as its board
    grows and falls back when the next starts; the floors show what stays from game to game.
    The first and last games seen are left out: either may be only partly sampled."""
    lowest: dict[int, Sample] = {}
    for s in samples:
        if s.games not in lowest or s.rss_mib < lowest[s.games].rss_mib:
            lowest[s.games] = s
    games = sorted(lowest)[1:-1]
    return [(lowest[g].minute, lowest[g].rss_mib) for g in games]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=120.0)
    parser.add_argument("--fps", type=float, default=5.0, help="camera frames a second (table pace: 5)")
    parser.add_argument("--phones", type=int, default=6)
    parser.add_argument("--every", type=float, default=30.0, help="seconds between samples")
    parser.add_argument("--warm-up", type=float, default=10.0, help="minutes before the baseline")
    parser.add_argument("--rss-growth", type=float, default=16.0, help="MiB allowed after the warm-up")
    parser.add_argument("--out", type=Path, default=BUILD / "soak.csv")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="companion-soak-"))
    port = free_port()
    config = folder / "config.toml"
    config.write_text(
        f'state_dir = "{folder / "state"}"\n[web]\nhost = "127.0.0.1"\nport = {port}\nmdns = false\n'
        f'pin = "2468"\n[camera]\nsource = "simulator"\nfps = {args.fps}\n',
        encoding="utf-8",
    )
    log = (folder / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        cwd=REPO,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    stop = threading.Event()
    phones: list[Phone] = []
    samples: list[Sample] = []
    args.out.parent.mkdir(parents=True, exist_ok=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                get_json(port, "/api/state")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the server did not start: see {folder / 'server.log'}") from None
                time.sleep(0.5)
        started = time.monotonic()
        phones = [Phone(port, seed, stop) for seed in range(args.phones)]
        for phone in phones:
            phone.start()
        with args.out.open("w", newline="") as out:
            writer = csv.DictWriter(
                out, fieldnames=list(asdict(sample(server.pid, port, started, [])).keys())
            )
            writer.writeheader()
            end = started + args.minutes * 60
            while time.monotonic() < end:
                if server.poll() is not None:
                    raise SystemExit(
                        f"the server stopped (exit {server.returncode}): see {folder / 'server.log'}"
                    )
                now = sample(server.pid, port, started, phones)
                samples.append(now)
                writer.writerow(asdict(now))
                out.flush()
                print(
                    f"{now.minute:7.1f} min  rss {now.rss_mib:6.1f} MiB  threads {now.threads:3d}  "
                    f"files {now.open_files:3d}  games {now.games:3d}  events {now.events:4d}  "
                    f"watching {now.phones_watching}",
                    flush=True,
                )
                time.sleep(max(0.0, min(args.every, end - time.monotonic())))
        stop.set()
        for phone in phones:
            phone.join(timeout=35)
        time.sleep(2)
        quiet = sample(server.pid, port, started, phones)  # every phone gone
    finally:
        stop.set()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    return summarise(args, samples, quiet, phones, server.returncode)


def summarise(
    args: argparse.Namespace, samples: list[Sample], quiet: Sample, phones: list[Phone], code: int
) -> int:
    settled = [s for s in samples if s.minute >= args.warm_up]
    if len(settled) < 4:
        print("too short to judge: run longer than the warm-up", file=sys.stderr)
        return 1
    window = max(2, len(settled) // 10)
    first, last = settled[:window], settled[-window:]
    idle_first = [s for s in settled if s.phones_watching == 0][:window] or first
    summary = {
        "minutes": samples[-1].minute,
        "fps": args.fps,
        "phones": args.phones,
        "games_stored": quiet.games,
        "stream_messages": sum(phone.messages for phone in phones),
        "phone_errors": sum(phone.errors for phone in phones),
        "rss_mib_after_warm_up": statistics.median(s.rss_mib for s in first),
        "rss_mib_at_end": statistics.median(s.rss_mib for s in last),
        "rss_mib_per_hour_after_warm_up": round(slope_per_hour([(s.minute, s.rss_mib) for s in settled]), 2),
        "rss_mib_peak": max(s.rss_mib for s in samples),
        # not judged, shown: the lowest memory of each whole game after the warm-up, and its trend
        "rss_mib_floor_by_game": [round(mib, 1) for _, mib in floors_by_game(settled)],
        "rss_mib_floor_per_hour": round(slope_per_hour(floors_by_game(settled)), 2),
        "threads_range": [min(s.threads for s in samples), max(s.threads for s in samples)],
        "threads_no_phones_after_warm_up": min(s.threads for s in idle_first),
        "threads_no_phones_at_end": quiet.threads,
        "open_files_range": [min(s.open_files for s in samples), max(s.open_files for s in samples)],
        "open_files_no_phones_after_warm_up": min(s.open_files for s in idle_first),
        "open_files_no_phones_at_end": quiet.open_files,
        "cpu_share_of_one_core": round(samples[-1].cpu_seconds / (samples[-1].minute * 60 or 1), 3),
        "server_exit": code,
    }
    growth = summary["rss_mib_at_end"] - summary["rss_mib_after_warm_up"]
    flat = (
        growth < args.rss_growth
        and summary["threads_no_phones_at_end"] <= summary["threads_no_phones_after_warm_up"]
        and summary["open_files_no_phones_at_end"] <= summary["open_files_no_phones_after_warm_up"]
        and code == 0
    )
    summary["flat"] = flat
    (args.out.parent / "soak.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=1))
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
