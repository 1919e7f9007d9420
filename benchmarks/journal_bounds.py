"""Does journald keep to the bounds of systemd/journald-table-companion.conf? Flood it and see.

Runs as root (``sudo``) on a machine with systemd's journald: a Pi, or any Debian. It starts a
journald of its own, in a namespace (``systemd-journald NAMESPACE``, the way
``systemd-journald@.service`` runs one), reading the product's drop-in, so the system's journal
is not touched. It sends more log lines than the bound holds, then reads how much the journal
takes. Twice: kept on disk (``Storage=persistent``: ``SystemMaxUse``) and kept in memory
(``Storage=volatile``: ``RuntimeMaxUse``). Everything it made is removed at the end.

    sudo python3 benchmarks/journal_bounds.py                    # 300,000 lines each way
    sudo python3 benchmarks/journal_bounds.py --lines 1000000

It exits 1 when the journal takes more than the drop-in allows. Only the standard library: it
runs with the system's Python, outside the project's virtual environment.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import socket
import string
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DROP_IN = REPO / "systemd" / "journald-table-companion.conf"
JOURNALD = [Path("/lib/systemd/systemd-journald"), Path("/usr/lib/systemd/systemd-journald")]
# Only for this run's namespace: a flood from one process is what rate limiting exists to drop,
# and dropped lines would never reach the bound.
TEST_ONLY = "[Journal]\nStorage={storage}\nRateLimitIntervalSec=0\n"
UNITS = {"K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def size_setting(text: str, key: str) -> int:
    """Bytes of a size setting (``SystemMaxUse=64M``) in a journald.conf text."""
    found = re.search(rf"^{key}=(\d+)([KMGT]?)\s*$", text, re.MULTILINE)
    if found is None:
        raise SystemExit(f"{DROP_IN} sets no {key}")
    return int(found.group(1)) * UNITS.get(found.group(2), 1)


def journald_binary() -> Path:
    for path in JOURNALD:
        if path.exists():
            return path
    raise SystemExit("no systemd-journald here (looked in /lib/systemd and /usr/lib/systemd)")


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_blocks * 512 for path in folder.rglob("*") if path.is_file())


@dataclass
class Flood:
    storage: str
    sent: int
    kept: int
    taken: int  # bytes of the journal's files on disk


def send_lines(socket_path: Path, count: int) -> None:
    """Send ``count`` lines the way a program logs to the journal. Random text, so that
    compression does not make the bound look easy to keep."""
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    rng = random.Random(0)
    alphabet = string.ascii_letters + string.digits
    for number in range(count):
        text = "".join(rng.choices(alphabet, k=160))
        entry = f"MESSAGE=line {number}: {text}\nSYSLOG_IDENTIFIER=table-companion\nPRIORITY=6\n"
        while True:
            try:
                sender.sendto(entry.encode(), str(socket_path))
                break
            except BlockingIOError:  # journald is behind: wait for it, lose nothing
                time.sleep(0.001)
        if number and number % 100_000 == 0:
            print(f"  {number:,} lines sent", flush=True)
    sender.close()


def flood(storage: str, lines: int, machine_id: str) -> Flood:
    namespace = f"tcbounds{storage}"
    conf_dir = Path(f"/etc/systemd/journald@{namespace}.conf.d")
    sockets = Path(f"/run/systemd/journal.{namespace}")
    journal = Path("/var/log/journal" if storage == "persistent" else "/run/log/journal")
    journal_parent_made = not journal.exists()
    folder = journal / f"{machine_id}.{namespace}"
    conf_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(DROP_IN, conf_dir / "table-companion.conf")
    (conf_dir / "zz-this-run.conf").write_text(TEST_ONLY.format(storage=storage))
    sockets.mkdir(parents=True, exist_ok=True)
    daemon = subprocess.Popen([str(journald_binary()), namespace], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not (sockets / "socket").exists():
            if daemon.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"journald for {namespace} did not start")
            time.sleep(0.05)
        print(f"{storage}: sending {lines:,} lines", flush=True)
        send_lines(sockets / "socket", lines)
        time.sleep(1)  # let journald take in what is queued
        kept = subprocess.run(
            ["journalctl", f"--namespace={namespace}", "-q", "-o", "cat"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.count("\n")
        return Flood(storage, lines, kept, folder_bytes(folder))
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
        shutil.rmtree(conf_dir, ignore_errors=True)
        shutil.rmtree(sockets, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)
        if journal_parent_made:  # an empty /var/log/journal would make the system's journal persistent
            shutil.rmtree(journal, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=300_000, help="log lines sent each way")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("run as root (sudo): it starts a journald and writes under /etc, /run and /var/log")
    conf = DROP_IN.read_text()
    bounds = {
        "persistent": size_setting(conf, "SystemMaxUse"),
        "volatile": size_setting(conf, "RuntimeMaxUse"),
    }
    machine_id = Path("/etc/machine-id").read_text().strip()
    results = [flood(storage, args.lines, machine_id) for storage in bounds]
    mib = 1024**2
    print("\n| journal | bound | lines sent | lines kept | takes |")
    print("| --- | --- | --- | --- | --- |")
    within = True
    for result in results:
        bound = bounds[result.storage]
        within &= result.taken <= bound
        print(
            f"| {result.storage} | {bound / mib:.0f} MiB | {result.sent:,} | {result.kept:,} "
            f"| {result.taken / mib:.1f} MiB |"
        )
    print("\nwithin the bounds" if within else "\nOVER a bound")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
