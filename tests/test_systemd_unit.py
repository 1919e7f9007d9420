"""The systemd unit: `systemd-analyze verify` finds nothing to say, and its key settings stay.

`systemd-analyze verify` also checks that ExecStart's program exists and is executable, which
/opt/table-companion/venv/bin/companion is not on a development machine; so verify runs on a copy
whose only change is that path. Skipped where systemd-analyze is missing, except with
COMPANION_REQUIRE_SYSTEMD=1 (as in CI), where it fails instead.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "table-companion.service"
INSTALLED_PROGRAM = "/opt/table-companion/venv/bin/companion"
EXEC_START = f"{INSTALLED_PROGRAM} run --config /etc/table-companion/config.toml"

Unit = dict[str, dict[str, list[str]]]


def parse_unit(text: str) -> Unit:
    """Sections to keys to every value given, in order (a key may repeat, as DeviceAllow= does)."""
    unit: Unit = {}
    section: dict[str, list[str]] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        assert not line.endswith("\\"), f"line {number}: continued lines are not expected here"
        if line.startswith("[") and line.endswith("]"):
            section = unit.setdefault(line[1:-1], {})
            continue
        assert section is not None, f"line {number} is outside any section: {raw!r}"
        key, equals, value = line.partition("=")
        assert equals, f"line {number} is not KEY=VALUE: {raw!r}"
        section.setdefault(key.strip(), []).append(value.strip())
    return unit


SECONDS_PER_UNIT = {"ms": 0.001, "s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}


def seconds(timespan: str) -> float:
    """A systemd time span of the forms used in the unit ("30s", "3min", "1min 30s") in seconds."""
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*([a-z]*)", timespan)
    assert parts and "".join(f"{n}{u}" for n, u in parts) == timespan.replace(" ", ""), timespan
    return sum(float(number) * SECONDS_PER_UNIT[unit or "s"] for number, unit in parts)


@pytest.fixture(scope="module")
def unit() -> Unit:
    return parse_unit(UNIT.read_text(encoding="utf-8"))


def one(unit: Unit, section: str, key: str) -> str:
    values = unit.get(section, {}).get(key, [])
    assert len(values) == 1, f"[{section}] {key}= is set {len(values)} times, once expected"
    return values[0]


def words(unit: Unit, section: str, key: str) -> set[str]:
    return {word for value in unit.get(section, {}).get(key, []) for word in value.split()}


def test_the_service_notifies_and_is_watched(unit: Unit) -> None:
    assert one(unit, "Service", "Type") == "notify"
    assert one(unit, "Service", "NotifyAccess") == "main"
    watchdog = seconds(one(unit, "Service", "WatchdogSec"))
    # Kicked every frame; long enough for a slow frame on a Pi 4, short enough to notice a hang.
    assert 10 <= watchdog <= 120
    # Loading the models and opening the camera on a Pi 4 must fit before the start times out.
    assert seconds(one(unit, "Service", "TimeoutStartSec")) >= 90


def test_the_service_restarts_on_failure_within_limits(unit: Unit) -> None:
    assert one(unit, "Service", "Restart") == "on-failure"
    assert seconds(one(unit, "Service", "RestartSec")) >= 1
    burst = int(one(unit, "Unit", "StartLimitBurst"))
    interval = seconds(one(unit, "Unit", "StartLimitIntervalSec"))
    restart = seconds(one(unit, "Service", "RestartSec"))
    # The limit must be reachable: a crash loop has to fit `burst` starts inside the interval.
    assert burst >= 2 and burst * restart < interval


def test_the_service_runs_as_its_own_user_with_camera_and_gpio_groups(unit: Unit) -> None:
    assert one(unit, "Service", "User") == "table-companion"
    assert one(unit, "Service", "Group") == "table-companion"
    assert {"video", "gpio"} <= words(unit, "Service", "SupplementaryGroups")
    assert one(unit, "Service", "ExecStart") == EXEC_START


def test_state_and_config_directories(unit: Unit) -> None:
    assert one(unit, "Service", "StateDirectory") == "table-companion"
    assert one(unit, "Service", "ConfigurationDirectory") == "table-companion"
    # lgpio makes its FIFOs in the working directory: it must be the (writable) state directory.
    assert one(unit, "Service", "WorkingDirectory") == "/var/lib/table-companion"


def test_hardening_leaves_the_camera_and_gpio_reachable(unit: Unit) -> None:
    service = unit["Service"]
    assert one(unit, "Service", "ProtectSystem") == "strict"
    assert one(unit, "Service", "NoNewPrivileges") == "yes"
    assert one(unit, "Service", "DevicePolicy") == "closed"
    allowed = dict(value.split() for value in service["DeviceAllow"])
    for device_group in ("char-video4linux", "char-media", "char-dma_heap", "char-gpiochip"):
        assert allowed.get(device_group) == "rw", device_group
    families = words(unit, "Service", "RestrictAddressFamilies")
    assert families == {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}
    # Each of these would cut the service off from the camera or the pins (systemd/README.md).
    for key in ("PrivateDevices", "PrivateUsers", "MemoryDenyWriteExecute", "ProcSubset", "DynamicUser"):
        assert key not in service, f"{key}= is set"
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def _systemd_analyze_or_skip() -> str:
    found = shutil.which("systemd-analyze")
    if found:
        return found
    reason = "systemd-analyze is missing; on Debian: apt-get install systemd"
    if os.environ.get("COMPANION_REQUIRE_SYSTEMD") == "1":
        pytest.fail(f"COMPANION_REQUIRE_SYSTEMD=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def verify(analyze: str, unit_file: Path) -> tuple[int, str]:
    """systemd-analyze verify's exit status and everything it printed."""
    done = subprocess.run(
        [analyze, "verify", unit_file.name],
        cwd=unit_file.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, (done.stdout + done.stderr).strip()


def copy_with_runnable_program(tmp_path: Path, text: str) -> Path:
    """The unit as written, with ExecStart's program replaced by a script that exists here."""
    program = tmp_path / "companion"
    program.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    program.chmod(0o755)
    copy = tmp_path / UNIT.name
    runnable = text.replace(f"ExecStart={INSTALLED_PROGRAM} ", f"ExecStart={program} ")
    copy.write_text(runnable, encoding="utf-8")
    return copy


def test_systemd_analyze_verify_finds_nothing(tmp_path: Path) -> None:
    analyze = _systemd_analyze_or_skip()
    original = UNIT.read_text(encoding="utf-8")
    copy = copy_with_runnable_program(tmp_path, original)

    diff = difflib.unified_diff(original.splitlines(), copy.read_text(encoding="utf-8").splitlines(), n=0)
    changed = [line for line in diff if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]
    assert changed == [
        f"-ExecStart={EXEC_START}",
        f"+ExecStart={EXEC_START.replace(INSTALLED_PROGRAM, str(tmp_path / 'companion'))}",
    ]

    returncode, output = verify(analyze, copy)
    assert (returncode, output) == (0, "")


def test_verify_would_catch_a_mistake(tmp_path: Path) -> None:
    """The check above is only worth something if verify speaks up: a misspelt key is reported."""
    analyze = _systemd_analyze_or_skip()
    text = UNIT.read_text(encoding="utf-8").replace("WatchdogSec=", "WatchDogSec=")
    returncode, output = verify(analyze, copy_with_runnable_program(tmp_path, text))
    assert "WatchDogSec" in output
    assert (returncode, output) != (0, "")


JOURNALD = UNIT.parent / "journald-table-companion.conf"
BYTES = {"K": 1024, "M": 1024**2, "G": 1024**3}


def test_the_journal_is_bounded_on_the_sd_card_and_in_memory() -> None:
    """journald's own bound is a share of the disk (up to 4 GiB): the drop-in keeps the log
    small beside the games, whether the journal lives on the card or in RAM."""
    journal = parse_unit(JOURNALD.read_text(encoding="utf-8"))
    assert set(journal) == {"Journal"}

    def size(key: str) -> int:
        value = one(journal, "Journal", key)
        assert re.fullmatch(r"\d+[KMG]", value), f"{key}={value}"
        return int(value[:-1]) * BYTES[value[-1]]

    assert size("SystemMaxUse") <= 100 * BYTES["M"]
    assert size("RuntimeMaxUse") <= 32 * BYTES["M"]
    assert size("SystemKeepFree") >= 100 * BYTES["M"]
    assert one(journal, "Journal", "MaxRetentionSec")
