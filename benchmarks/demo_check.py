"""`companion demo` played to its end, checked as a phone would see it: every score's
``/api/scores/N`` names evidence the server serves as an image, and ``/api/state`` names the
winners once the game is over.

    .venv/bin/python benchmarks/demo_check.py [--fps 100] [--port 8766]

Runs the demo in a fresh store (``--fresh``) with its state home in a temporary folder, so that
nothing of a person's demo games is touched. Exit 1 when a score lacks a served picture or the
game ends without winners. Takes about 3 minutes at 100 frames a second.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fps", type=float, default=100.0)
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--minutes", type=float, default=15.0, help="give up after this long")
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"

    def get(path: str) -> tuple[int, str, bytes]:
        with urllib.request.urlopen(base + path, timeout=10) as answer:
            return answer.status, answer.headers.get("Content-Type", ""), answer.read()

    with tempfile.TemporaryDirectory() as home:
        command = [sys.executable, "-m", "companion", "demo", "--fresh", "--no-mdns"]
        command += ["--fps", str(args.fps), "--port", str(args.port)]
        demo = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.DEVNULL, env={**os.environ, "XDG_STATE_HOME": home}
        )
        try:
            started = time.monotonic()
            state: dict[str, Any] = {}
            while not state.get("finished"):
                if time.monotonic() - started > args.minutes * 60:
                    print(f"the game did not end within {args.minutes} minutes", file=sys.stderr)
                    return 1
                if demo.poll() is not None:
                    print(f"the demo stopped with exit code {demo.returncode}", file=sys.stderr)
                    return 1
                time.sleep(3)
                try:
                    state = json.loads(get("/api/state")[2])
                except OSError:
                    continue  # not listening yet
                print(f"\r{state.get('events', 0)} events", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            served = 0
            for entry in state["log"]:
                view = json.loads(get(f"/api/scores/{entry['index']}")[2])
                pictures = [get("/" + path) for path in view.get("evidence", [])]
                served += any(s == 200 and kind.startswith("image/") and body for s, kind, body in pictures)
            took = time.monotonic() - started
            print(
                f"scores {len(state['log'])}, each with a picture served: {served}; "
                f"winners {state['winners']}; {took:.0f} s"
            )
            return 0 if served == len(state["log"]) and state["winners"] else 1
        finally:
            demo.terminate()
            demo.wait(10)


if __name__ == "__main__":
    sys.exit(main())
