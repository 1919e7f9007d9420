"""Soak run: ``companion run`` on the simulated table for hundreds of games, with phones watching.

The service is started as the systemd unit starts it (``companion run``'s own code, from a config
file) with ``[camera] source = "simulator"``: simulated Star Wars games one after another, read
frame by frame by the real pipeline at ``--fps`` frames a second (5 is table pace; more plays
faster, as fast as one core reads), stored with their pictures, broadcast. Phones come and go:
``--phones`` scoreboards each hold the live stream for a while, leave, come back, and load the
page, the state and the list of games on each visit.

It plays until ``--games`` games have been played, or for ``--minutes``, then stops the service
(SIGTERM, as systemd does). Everything is kept in ``--state`` (the store, the figures so far), so
the next run with the same ``--state`` goes on where this one stopped: the service restarts on
the same store, the interrupted game is resumed from its journal, and the next game has the next
seed.

Every ``--every`` seconds the service's resident memory (VmRSS, and its anonymous part
RssAnon), threads and open files are read from /proc (``samples.csv`` in the state folder). For
each game: its lowest and highest memory, and its lowest anonymous memory. At the end: the
memory trend per 10 games after the warm-up (``--warm-up`` games of each run), each game's
lowest against the lowest of the first tenth of games, each judged within its run, and the
threads and open files with no phone connected at the run's end against its start.
``summary.json`` in the state folder holds them. It passes when the trend is under ``--trend``
MiB per 10 games, no game's lowest is more than ``--floor-rise`` MiB above the first tenth's,
and threads and open files are back where they started.

    nice -n 10 taskset -c 1 .venv/bin/python benchmarks/soak.py --games 300 --fps 100
    .venv/bin/python benchmarks/soak.py --games 300 --fps 100     # again: goes on where it stopped
    .venv/bin/python benchmarks/soak.py --report                  # the figures so far

``--tracemalloc`` also has the service take a tracemalloc snapshot at each new game and prints
what grew most between the first game after the warm-up and the last (slow: for a hunt over a
few dozen games, not for the figures). ``--under "heaptrack -o FILE"`` starts the service under
a native profiler instead (memory figures then include the profiler's own).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import http.client
import json
import os
import random
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from soak_figures import Game, Soak, grown, summarise  # beside this file: on the path as a script

REPO = Path(__file__).resolve().parents[1]
STATE = REPO / "build" / "soak"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


COLUMNS = ["run", "minute", "game", "game_id", "rss_mib", "threads", "open_files", "watching", "anon_mib"]


def proc_status(pid: int) -> dict[str, str]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def disk_use(folder: Path) -> int:
    """Bytes the files under ``folder`` take on disk."""
    return sum(path.stat().st_blocks * 512 for path in folder.rglob("*") if path.is_file())


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    parts = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def get_json(port: int, path: str, timeout: float = 10) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
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
            except (OSError, http.client.HTTPException, ValueError):
                self.errors += 1
            self.watching = False
            self.stop.wait(self.rng.uniform(5, 40))  # away

    def visit(self) -> None:
        for path in ("/", "/api/state", "/games", "/api/games"):
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


def write_config(folder: Path, port: int, fps: float) -> Path:
    config = folder / "config.toml"
    config.write_text(
        f'state_dir = "{folder / "store"}"\n[web]\nhost = "127.0.0.1"\nport = {port}\nmdns = false\n'
        f'pin = "2468"\n[camera]\nsource = "simulator"\nfps = {fps}\n',
        encoding="utf-8",
    )
    return config


def serve(config_path: str, first_seed: int, snapshots: str | None, tiles: int | None) -> int:
    """The child: ``companion run --config FILE`` as the service runs it, its simulated games from
    ``first_seed`` on, each stopped after ``tiles`` tiles (None: whole games); with ``snapshots``,
    a tracemalloc snapshot there on each SIGUSR1."""
    import dataclasses
    import functools
    import logging

    if tiles is not None:  # the simulated table's games, shorter; nothing else changes
        from companion.games.starwars.sim import table_games

        whole = table_games.SimulatedGames.__init__

        @functools.wraps(whole)
        def shorter(self: table_games.SimulatedGames, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("tiles", tiles)
            whole(self, *args, **kwargs)

        table_games.SimulatedGames.__init__ = shorter  # type: ignore[method-assign]

    if snapshots is not None:
        import tracemalloc

        tracemalloc.start(12)
        taken = [0]

        def snapshot(signum: int, frame: object) -> None:
            taken[0] += 1
            tracemalloc.take_snapshot().dump(f"{snapshots}/{taken[0]:04d}.snapshot")

        signal.signal(signal.SIGUSR1, snapshot)

    from companion.config import load_config
    from companion.service.calibrate import with_calibration
    from companion.service.run import run_table

    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    config = load_config(config_path)
    config = dataclasses.replace(config, camera=with_calibration(config.camera, config.state_dir))
    return run_table(config, first_seed=first_seed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="games to play in all, over every run")
    parser.add_argument("--minutes", type=float, default=None, help="stop this run after so long")
    parser.add_argument("--fps", type=float, default=5.0, help="camera frames a second (table pace: 5)")
    parser.add_argument("--tiles", type=int, default=None, help="tiles a game (default: whole games)")
    parser.add_argument("--phones", type=int, default=6)
    parser.add_argument("--every", type=float, default=2.0, help="seconds between samples")
    # the service's memory climbs over its first 15 to 20 games (caches filling, the allocator's
    # arenas settling) and then holds: benchmarks/README.md, runs 4-6
    parser.add_argument(
        "--warm-up", type=int, default=20, help="games of each run before the baseline (default 20)"
    )
    parser.add_argument("--trend", type=float, default=1.0, help="MiB per 10 games allowed")
    parser.add_argument("--floor-rise", type=float, default=10.0, help="MiB above the first tenth allowed")
    parser.add_argument("--state", type=Path, default=STATE, help="the soak's folder, kept between runs")
    parser.add_argument("--tracemalloc", action="store_true", help="snapshots at each game (slow)")
    parser.add_argument(
        "--under",
        default="",
        help="a profiler to start the service under, such as 'heaptrack -o build/soak.heaptrack'",
    )
    parser.add_argument("--report", action="store_true", help="only print the figures so far")
    parser.add_argument("--serve", metavar="CONFIG", help=argparse.SUPPRESS)
    parser.add_argument("--first-seed", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--snapshots", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve, args.first_seed, args.snapshots, args.tiles)

    args.state.mkdir(parents=True, exist_ok=True)
    progress = args.state / "soak.json"
    soak = Soak.load(progress)
    if args.report:
        return summarise(args, soak)
    if sum(game.complete for game in soak.games) >= args.games:
        print(f"{args.games} games already played: --report prints the figures")
        return summarise(args, soak)
    soak.runs += 1
    run = soak.runs
    port = free_port()
    config = write_config(args.state, port, args.fps)
    snapshots = args.state / f"snapshots-{run}"
    command = [*shlex.split(args.under), sys.executable, __file__, "--serve", str(config)]
    command += ["--first-seed", str(soak.next_seed)]
    if args.tiles is not None:
        command += ["--tiles", str(args.tiles)]
    if args.tracemalloc:
        snapshots.mkdir(exist_ok=True)
        command += ["--snapshots", str(snapshots)]
    log = (args.state / f"server-{run}.log").open("w")
    # a session of its own: Ctrl+C at the terminal reaches this script only, which then reads the
    # service's end figures and stops it as systemd would
    server = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    stop = threading.Event()
    phones: list[Phone] = []
    pid = 0
    started = time.monotonic()
    deadline = None if args.minutes is None else started + args.minutes * 60
    stopping = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    current: Game | None = None
    games_this_run = 0
    idle: dict[str, Any] = {"run": run, "fps": args.fps, "tiles": args.tiles or "whole games"}
    soak.idle.append(idle)  # kept from the start: a run killed outright still shows what it was
    minutes_before, messages_before, errors_before = soak.minutes, soak.stream_messages, soak.phone_errors

    def serving() -> bool:
        return server.poll() is None and Path(f"/proc/{pid}").exists()

    def tally() -> None:
        soak.minutes = minutes_before + (time.monotonic() - started) / 60
        soak.stream_messages = messages_before + sum(phone.messages for phone in phones)
        soak.phone_errors = errors_before + sum(phone.errors for phone in phones)

    new_samples = not (args.state / "samples.csv").exists()
    # a soak folder begun before RssAnon was sampled goes on with its own columns
    columns = COLUMNS if new_samples else next(csv.reader((args.state / "samples.csv").open()))
    try:
        wait_until_serving(server, port, args.state / f"server-{run}.log")
        pid = service_pid(server.pid)  # the service itself, under a profiler or not
        fields = proc_status(pid)  # no phone yet: where the threads and open files start
        idle.update(threads_at_start=int(fields["Threads"]), open_files_at_start=open_files(pid))
        soak.save(progress)  # this run and its record, before its first game ends
        phones = [Phone(port, run * 100 + seed, stop) for seed in range(args.phones)]
        for phone in phones:
            phone.start()
        with (args.state / "samples.csv").open("a", newline="") as out:
            writer = csv.writer(out)
            if new_samples:
                writer.writerow(COLUMNS)
            while not stopping.is_set() and (deadline is None or time.monotonic() < deadline):
                if not serving():
                    raise SystemExit(f"the service stopped (exit {server.returncode}): see {log.name}")
                state = get_json(port, "/api/state")
                fields = proc_status(pid)
                rss = int(fields["VmRSS"].split()[0]) / 1024
                anon = int(fields.get("RssAnon", "0 kB").split()[0]) / 1024
                threads = int(fields["Threads"])
                files = open_files(pid)
                watching = sum(phone.watching for phone in phones)
                game_id = int(state.get("game_id") or 0)
                resumed = current is None and game_id in (0, soak.last_game_id)
                if not resumed and (current is None or game_id != current.game_id):
                    if current is not None:
                        current.complete = True
                        current.store_mib = round(disk_use(args.state / "store") / 2**20, 2)
                        games_this_run += 1
                        soak.next_seed += 1
                        if args.tracemalloc:
                            os.kill(pid, signal.SIGUSR1)
                        print(
                            f"game {current.number:4d} (run {run}, id {current.game_id}): lowest "
                            f"{current.lowest_mib:6.1f} MiB, highest {current.highest_mib:6.1f} MiB; "
                            f"threads {threads}, open files {files}, watching {watching}",
                            flush=True,
                        )
                    soak.last_game_id = game_id  # under way: resumed, not counted, after a kill
                    tally()
                    soak.save(progress)  # once a game: the one ended and the one begun
                    if sum(game.complete for game in soak.games) >= args.games:
                        break
                    number = (soak.games[-1].number + 1) if soak.games else 1
                    current = Game(number, run, game_id, rss, rss, 0, lowest_anon_mib=anon)
                    soak.games.append(current)
                if games_this_run >= args.warm_up and watching == 0:  # after the warm-up, no phone
                    idle["threads_no_phone_after_warm_up"] = min(
                        threads, idle.get("threads_no_phone_after_warm_up", threads)
                    )
                    idle["open_files_no_phone_after_warm_up"] = min(
                        files, idle.get("open_files_no_phone_after_warm_up", files)
                    )
                if current is not None:
                    current.lowest_mib = round(min(current.lowest_mib, rss), 1)
                    current.highest_mib = round(max(current.highest_mib, rss), 1)
                    current.lowest_anon_mib = round(min(current.lowest_anon_mib or anon, anon), 1)
                    current.samples += 1
                minute = round((time.monotonic() - started) / 60, 2)
                number = current.number if current is not None else 0
                row = [run, minute, number, game_id, round(rss, 1), threads, files, watching, round(anon, 1)]
                writer.writerow(row[: len(columns)])
                out.flush()
                stopping.wait(args.every)
        stop.set()
        for phone in phones:
            phone.join(timeout=35)
        time.sleep(2)
        if serving():  # not a process already gone
            fields = proc_status(pid)
            idle.update(
                threads_at_end=int(fields["Threads"]),
                open_files_at_end=open_files(pid),
                cpu_seconds=round(cpu_seconds(pid), 1),
            )
    finally:
        stop.set()
        under_profiler = bool(pid) and pid != server.pid
        if under_profiler:  # the service stops; the profiler then writes its findings and exits
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        else:
            server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=300 if args.under else 60)
        except subprocess.TimeoutExpired:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        log.close()
        if current is not None and not current.complete and soak.games and soak.games[-1] is current:
            # a game cut short by the end of the run: the service resumes it from its journal on
            # the next start, then the simulated table plays this seed again from its first tile
            soak.games.pop()
            soak.last_game_id = current.game_id
        tally()
        idle["exit"] = server.returncode
        soak.save(progress)
    if args.tracemalloc:
        grown(snapshots, args.warm_up)
    return summarise(args, soak)


def service_pid(started: int) -> int:
    """The process serving: ``started`` itself, or its descendant under ``--under``'s profiler."""
    for _ in range(100):
        pids = [started]
        for parent in pids:
            children = Path(f"/proc/{parent}/task/{parent}/children")
            if children.exists():
                pids += [int(child) for child in children.read_text().split()]
        for candidate in reversed(pids):  # the deepest: a profiler's own command line names it too
            try:
                if b"--serve" in Path(f"/proc/{candidate}/cmdline").read_bytes():
                    return candidate
            except OSError:
                continue
        time.sleep(0.1)
    return started


def wait_until_serving(server: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 180
    while True:
        try:
            get_json(port, "/api/state", timeout=5)
            return
        except (OSError, ValueError):
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the service did not start: see {log}") from None
            time.sleep(0.5)


if __name__ == "__main__":
    sys.exit(main())
