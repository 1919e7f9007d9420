"""Live scoreboard over Server-Sent Events against the target of issue 3.

Run:  .venv/bin/python benchmarks/bench_sse.py [--one-core] [--check]
  --clients N     scoreboards (SSE streams) open at once, one thread and connection each (default 30)
  --events N      events of a simulated game posted through the API (default 60)
  --interval S    seconds between two events (default 0.2)
  --threads N     server threads, as `companion serve --threads` (default 48)
  --seed N        of the simulated 4-player game (default 0)
  --one-core      pin the server (not this script) to core 0 with taskset, where there is one
  --check         exit 1 if the p95 latency is over 300 ms or a client missed a state

The server runs as `python -m companion serve` in a temporary state dir. Latency is, for every
(client, event), the time the client read the state with that event's seq minus the time just
before the event's POST was sent; the client records the time as soon as the `data:` line is read,
before parsing it. The server's memory and threads come from /proc/PID/status.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import http.cookiejar
import json
import math
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.sim.games import simulate_game

TARGET_P95_MS = 300.0
PIN = "2468"
HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parents[1]


# --- the server ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def proc_status(pid: int) -> dict[str, str]:
    """The fields of /proc/PID/status ("VmRSS" -> "12345 kB")."""
    fields: dict[str, str] = {}
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
        for line in status:
            name, _, value = line.partition(":")
            fields[name] = value.strip()
    return fields


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        after_name = stat.read().rsplit(")", 1)[1].split()
    return (int(after_name[11]) + int(after_name[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Memory:
    rss_mib: float
    hwm_mib: float
    threads: int

    def __str__(self) -> str:
        return f"RSS {self.rss_mib:.1f} MiB (peak {self.hwm_mib:.1f} MiB), {self.threads} threads"


def memory(pid: int) -> Memory:
    fields = proc_status(pid)

    def mib(name: str) -> float:
        return int(fields[name].split()[0]) / 1024

    return Memory(mib("VmRSS"), mib("VmHWM"), int(fields["Threads"]))


@contextlib.contextmanager
def running_server(
    state_dir: Path, port: int, threads: int, one_core: bool
) -> Iterator[subprocess.Popen[bytes]]:
    command = [sys.executable, "-m", "companion", "serve", "--state-dir", str(state_dir / "store")]
    command += ["--port", str(port), "--pin", PIN, "--no-mdns", "--threads", str(threads)]
    if one_core:
        if shutil.which("taskset"):
            command = ["taskset", "-c", "0", *command]  # taskset execs: the PID stays the server's
        else:
            print("no taskset here: the server runs on every core")
    out_path, err_path = state_dir / "server.out", state_dir / "server.err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        server = subprocess.Popen(
            command, cwd=ROOT, stdout=out, stderr=err, env={**os.environ, "PYTHONUNBUFFERED": "1"}
        )
    try:
        deadline = time.monotonic() + 30
        while "scoreboard on http" not in out_path.read_text(errors="replace"):
            if server.poll() is not None or time.monotonic() > deadline:
                complaints = err_path.read_text(errors="replace")
                raise RuntimeError(f"the server did not start (exit {server.poll()}):\n{complaints}")
            time.sleep(0.05)
        yield server
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(5)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(5)
        complaints = err_path.read_text(errors="replace").strip()
        if complaints:
            print(f"server stderr (last 20 lines):\n{chr(10).join(complaints.splitlines()[-20:])}")


class Api:
    """A browser's session: the CSRF cookie and token, and the table PIN, for every POST."""

    def __init__(self, port: int) -> None:
        self.base = f"http://{HOST}:{port}"
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        with self.opener.open(f"{self.base}/api/csrf", timeout=10) as answer:
            self.token = str(json.load(answer)["token"])

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            f"{self.base}{path}",
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "X-CSRF-Token": self.token, "X-Table-PIN": PIN},
        )
        try:
            with self.opener.open(request, timeout=30) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")


# --- the scoreboards -----------------------------------------------------------------------------


class Scoreboard(threading.Thread):
    """One phone: its own connection to /api/events, read line by line in its own thread."""

    def __init__(self, number: int, port: int) -> None:
        super().__init__(name=f"scoreboard-{number}", daemon=True)
        self.number = number
        self.port = port
        self.arrivals: dict[int, float] = {}  # seq -> time.monotonic() when it first came
        self.states = 0
        self.last_seq = -1
        self.last_size = 0  # bytes of the last state's data
        self.error: str | None = None
        self.first = threading.Event()
        self._socket: socket.socket | None = None
        self._stopping = False

    def run(self) -> None:
        try:
            self._read()
        except Exception as error:
            if not self._stopping:
                self.error = f"{type(error).__name__}: {error}"
        finally:
            self.first.set()  # never leave the main thread waiting on a dead client

    def _read(self) -> None:
        # Each phone has its own address, as at a table (the server caps streams per device);
        # every 127.x.y.z is this machine on Linux.
        source = (f"127.0.{1 + self.number // 250}.{1 + self.number % 250}", 0)
        connection = http.client.HTTPConnection(HOST, self.port, timeout=60, source_address=source)
        connection.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        self._socket = connection.sock  # the response keeps it; the connection may let go of it
        response = connection.getresponse()
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status}: {response.read(300)!r}")
        data: list[str] = []
        arrived = 0.0
        while not self._stopping:
            line = response.readline()
            if not line:
                raise RuntimeError("the server closed the stream")
            if line.startswith(b"data:"):
                if not data:
                    arrived = time.monotonic()
                data.append(line[5:].decode("utf-8").removeprefix(" ").rstrip("\r\n"))
            elif line in (b"\n", b"\r\n") and data:  # the end of one message
                text = "\n".join(data)
                data = []
                seq = int(json.loads(text)["seq"])
                self.arrivals.setdefault(seq, arrived)
                self.states += 1
                self.last_seq = max(self.last_seq, seq)
                self.last_size = len(text.encode())
                self.first.set()

    def close(self) -> None:
        self._stopping = True
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)  # wakes the blocked readline
            self._socket.close()


# --- the benchmark -------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (``share`` 0 to 1) of a non-empty list."""
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(share * len(ordered)))) - 1]


def simulated_events(count: int, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """The header and the first ``count`` events of the first 4-player game, from ``seed`` on, that
    is long enough; and the seed used."""
    for tried in range(seed, seed + 50):
        sim = simulate_game(players=4, seed=tried)
        if len(sim.events) >= count:
            return sim.setup.to_json(), [StarWarsGame.event_to_json(e) for e in sim.events[:count]], tried
    raise SystemExit(f"no simulated game has {count} events: ask for fewer with --events")


def describe(values_ms: list[float]) -> str:
    if not values_ms:
        return "none"
    return (
        f"p50 {percentile(values_ms, 0.5):.1f} ms, p95 {percentile(values_ms, 0.95):.1f} ms, "
        f"p99 {percentile(values_ms, 0.99):.1f} ms, max {max(values_ms):.1f} ms"
    )


def run(args: argparse.Namespace, state_dir: Path) -> bool:
    header, events, seed = simulated_events(args.events, args.seed)
    port = free_port()
    clients: list[Scoreboard] = []
    with running_server(state_dir, port, args.threads, args.one_core) as server:
        try:
            cores = proc_status(server.pid).get("Cpus_allowed_list", "?")
            print(f"server PID {server.pid} on port {port}, cores {cores}: {memory(server.pid)} once started")
            api = Api(port)
            status, answer = api.post("/api/games", header)
            if status != 201:
                raise RuntimeError(f"starting the game: HTTP {status} {answer}")
            print(f"game started (seed {seed}, 4 players), seq {answer['seq']}")

            started = time.monotonic()
            clients = [Scoreboard(n, port) for n in range(args.clients)]
            for client in clients:
                client.start()
            for client in clients:
                client.first.wait(max(0.1, started + 30 - time.monotonic()))
            broken = [f"{c.name}: {c.error or 'no first state in 30 s'}" for c in clients if not c.arrivals]
            if broken:
                raise RuntimeError("scoreboards that never got the state:\n  " + "\n  ".join(broken))
            took = time.monotonic() - started
            print(f"{args.clients} scoreboards connected, each with its first state, in {took:.2f} s")
            time.sleep(0.5)
            connected = memory(server.pid)
            print(f"server after connecting them: {connected}")

            sent: list[tuple[int, float]] = []  # (seq, time just before its POST)
            round_trips_ms: list[float] = []
            cpu_before, wall_before = cpu_seconds(server.pid), time.monotonic()
            for number, event in enumerate(events):
                time.sleep(max(0.0, wall_before + number * args.interval - time.monotonic()))
                before = time.monotonic()
                status, answer = api.post("/api/event", event)
                round_trips_ms.append((time.monotonic() - before) * 1000)
                if status != 200:
                    raise RuntimeError(f"event {number} {event}: HTTP {status} {answer}")
                sent.append((int(answer["seq"]), before))
            last_seq = sent[-1][0]
            deadline = time.monotonic() + 10
            while (
                any(c.last_seq < last_seq and c.error is None for c in clients)
                and time.monotonic() < deadline
            ):
                time.sleep(0.02)
            wall = time.monotonic() - wall_before
            server_cpu = cpu_seconds(server.pid) - cpu_before
            final = memory(server.pid)
        finally:
            for client in clients:
                client.close()
            for client in clients:
                client.join(5)

    latencies_ms: list[float] = []
    first_ms: list[float] = []  # per event: the quickest client
    spread_ms: list[float] = []  # per event: the slowest client minus the quickest
    missed = 0
    for seq, before in sent:
        times = [c.arrivals[seq] for c in clients if seq in c.arrivals]
        missed += len(clients) - len(times)
        latencies_ms += [(t - before) * 1000 for t in times]
        if times:
            first_ms.append((min(times) - before) * 1000)
            spread_ms.append((max(times) - min(times)) * 1000)
    errors = [f"{c.name}: {c.error}" for c in clients if c.error]
    duplicates = sum(c.states - len(c.arrivals) for c in clients)
    p95 = percentile(latencies_ms, 0.95) if latencies_ms else float("inf")

    print(
        f"{len(sent)} events posted, one every {args.interval * 1000:.0f} ms, seq {sent[0][0]} to {last_seq}"
    )
    print(f"POST /api/event round trip: {describe(round_trips_ms)}")
    print(
        f"event-to-client latency, {len(latencies_ms)} (client, event) pairs: {describe(latencies_ms)} "
        f"(target p95 <= {TARGET_P95_MS:.0f} ms)"
    )
    print(f"  the quickest client, per event: {describe(first_ms)}")
    print(f"  the slowest minus the quickest client, per event: {describe(spread_ms)}")
    print(f"(client, event) pairs never received: {missed}; repeated states: {duplicates}")
    for error in errors:
        print(f"  client error: {error}")
    sizes = sorted(c.last_size for c in clients)
    print(f"last state: {sizes[-1] / 1024:.1f} KiB of JSON to each client")
    busy = 100 * server_cpu / wall
    print(f"server CPU while posting: {server_cpu:.2f} s in {wall:.1f} s ({busy:.0f}% of one core)")
    print(f"server at the end: {final}")
    ok = p95 <= TARGET_P95_MS and missed == 0 and not errors
    print("target met" if ok else "target MISSED")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--events", type=int, default=60)
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--threads", type=int, default=48)
    parser.add_argument("--seed", type=int, default=0, help="of the simulated game (default 0)")
    parser.add_argument("--one-core", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.clients < 1 or args.events < 1 or args.interval < 0:
        parser.error("--clients and --events must be 1 or more, --interval 0 or more")

    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    machine = f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores"
    print(f"{machine}, this script on cores {cores}")
    state_dir = Path(tempfile.mkdtemp(prefix="bench-sse-"))
    try:
        ok = run(args, state_dir)
    except RuntimeError as error:
        print(f"failed: {error}")
        return 1
    finally:
        shutil.rmtree(state_dir, ignore_errors=True)
    return 1 if (not ok and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
