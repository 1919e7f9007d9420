"""A disk that really fills during a game: the phone is told so in words, no event is lost.

The state dir is a 3 MiB tmpfs, mounted in a user and mount namespace of the test's own
(``unshare --user --map-root-user --mount``: no root needed, nothing seen outside). A file fills
the rest of it mid-game; every event of the game is then sent as a phone sends it, again and
again until it is taken, and the filler is removed after a few refusals, as a player who reads
the message frees some space. Skipped where the system does not allow such namespaces.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
SIZE = "3m"


def namespaces_allowed() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        [
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            "mount -t tmpfs -o size=1m none /mnt",
        ],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


def test_a_full_disk_mid_game_is_said_on_the_phone_and_loses_no_event(tmp_path: Path) -> None:
    if not namespaces_allowed():
        pytest.skip("this system allows no user and mount namespace for a small file system")
    mount = tmp_path / "small"
    mount.mkdir()
    script = f'mount -t tmpfs -o size={SIZE} none "$1" && exec "{sys.executable}" "{__file__}" "$1"'
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", str(mount)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=HERE.parent,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["refused"] >= 1, "the disk never refused a write: the test filled nothing"
    assert seen["statuses"] == [507] * seen["refused"]
    for message in seen["messages"]:  # SQLite's own reason, then what to do
        assert "(database or disk is full): is its disk full? Free some space, then enter it again" in message
    assert all(any("could not record the last change" in p for p in ps) for ps in seen["prompts_then"])
    assert seen["picture_problem"] and "No space left on device" in seen["picture_problem"]
    assert seen["events_stored"] == seen["events_sent"] == seen["events_in_record"]
    assert seen["prompts_after"] == []
    assert seen["scores_after_restart"] == seen["scores_at_end"] and seen["scores_at_end"]
    assert seen["half_written_pictures"] == 0


def fills_at(header: dict[str, Any], events: list[dict[str, Any]]) -> int:
    """The first event of the game's second half that scores on the board, so has pictures: the
    disk is filled just before it (worked out on a store of its own, off the small disk)."""
    import tempfile

    from companion.live.table import Table
    from companion.store import GameStore

    with tempfile.TemporaryDirectory() as folder:
        scratch = Table(GameStore(folder))
        scratch.start(header)
        for index, event in enumerate(events):
            changes = scratch.add(event)
            if index >= len(events) // 3 and any(change.cells for change in changes):
                scratch.store.close()
                return index
    raise AssertionError("no event of the record scores on the board")


def in_the_small_file_system(mount: Path) -> None:
    """The child, inside the namespace, on the tmpfs at ``mount``: prints what it saw as JSON."""
    sys.path.insert(0, str(HERE))
    from conftest import make_site, record_lines
    from test_evidence import Camera

    from companion.live.evidence import EvidenceKeeper
    from companion.store import EVIDENCE, GameStore

    site = make_site(mount / "state")
    site.table.set_evidence(Camera())
    # the keeper is told there is room, so that it writes until the disk itself says no
    site.table.keeper = EvidenceKeeper(site.table.store, free=lambda _: 10**12)
    header, events = record_lines("three-battles-one-turn.jsonl")
    half = fills_at(header, events)
    assert site.post("/api/games", header).status_code == 201
    for event in events[:half]:
        assert site.post("/api/event", event).status_code == 200
    filler = mount / "filler"
    with open(filler, "wb", buffering=0) as file:  # the rest of the disk, to the last byte
        for chunk in (65536, 4096, 1):
            try:
                while True:
                    file.write(b"\0" * chunk)
            except OSError as error:
                assert error.errno == errno.ENOSPC
    statuses, messages, prompts_then = [], [], []
    picture_problem = None
    sent = half
    for event in events[half:]:
        while True:
            response = site.post("/api/event", event)
            if response.status_code == 200:
                sent += 1
                break
            statuses.append(response.status_code)
            messages.append(response.get_json().get("message", ""))
            state = site.client.get("/api/state").get_json()
            prompts_then.append(state["prompts"])
            picture_problem = picture_problem or site.table.keeper.problem
            if len(statuses) >= 3 and filler.exists():
                filler.unlink()  # a player frees some space, as the message asks
            assert len(statuses) < 50, "refused again and again after space was freed"
        picture_problem = picture_problem or site.table.keeper.problem
    if filler.exists():
        filler.unlink()
    state = site.client.get("/api/state").get_json()
    game_id = state["game_id"]
    record = site.client.get("/api/record").get_data(as_text=True).splitlines()
    site.table.store.close()
    again = GameStore(mount / "state")
    from companion.live.table import Table

    restarted = Table(again)
    assert restarted.live is not None
    folder = mount / "state" / EVIDENCE / str(game_id)
    named = {p for step in restarted.live.steps for p in (step.record.get("meta") or {}).get("evidence", [])}
    files = {f"{EVIDENCE}/{game_id}/{f.name}" for f in folder.iterdir()} if folder.exists() else set()
    print(
        json.dumps(
            {
                "refused": len(statuses),
                "statuses": statuses,
                "messages": messages,
                "prompts_then": prompts_then,
                "picture_problem": picture_problem,
                "events_sent": sent,
                "events_stored": len(restarted.live.steps),
                "events_in_record": len(record) - 1,
                "prompts_after": [p for p in state["prompts"] if "disk" in p or "record" in p],
                "scores_at_end": state["scores"],
                "scores_after_restart": restarted.live.engine.scores(),
                "half_written_pictures": len(files - named),
            }
        )
    )
    again.close()


if __name__ == "__main__":
    os.chdir(HERE.parent)
    in_the_small_file_system(Path(sys.argv[1]))
