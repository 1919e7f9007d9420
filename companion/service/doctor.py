"""``companion doctor``: what is wrong with this table, in plain words, and what to do about it.

Each check gives ok, warn or FAIL with one sentence, and a fix when there is something to do.
The command exits 1 when any check fails, so the install script and people alike can rely on it.
On a machine that is not a Raspberry Pi the Pi's parts are checked as far as they exist, and
the advice says what to use instead (a USB camera, the mock pins, ``companion demo``).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from companion.cameras.settings import CameraSettings, open_camera
from companion.config import DEFAULTS, SYSTEM_CONFIG, Config, load_config
from companion.errors import UserError
from companion.games.registry import manifests
from companion.vision.likeness import size_problem
from companion.vision.model_files import models_root

OK, WARN, FAIL = "ok", "warn", "FAIL"
DICE_FOLDER = "dice"  # ordinary dice's model, beside the games' folders
DICE_FILES = ("dice.onnx", "dice.labels.json")
DISK_WARN_MB = 500  # a season of games with their evidence pictures fits in far less
DISK_FAIL_MB = 100  # SQLite needs room to write its journal; a full card corrupts nothing but stops play
PI_MODEL = Path("/proc/device-tree/model")
# The journal's bounds, as hardware/install.sh installs them (systemd/README.md)
JOURNAL_DROP_IN = Path("/etc/systemd/journald.conf.d/table-companion.conf")
JOURNAL_BOUNDS = ("SystemMaxUse", "RuntimeMaxUse")
# No record can be older than this project; a clock before it has not been set (a Pi has no
# battery-backed clock and takes the time from the network at boot).
EARLIEST_SANE = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Finding:
    check: str
    level: str  # OK, WARN or FAIL
    message: str
    fix: str = ""


def pi_model(path: Path = PI_MODEL) -> str | None:
    """The board's name ("Raspberry Pi 5 Model B Rev 1.0"), or None on another machine."""
    try:
        model = path.read_text(encoding="utf-8", errors="replace").strip("\x00\n ")
    except OSError:
        return None
    return model if model.startswith("Raspberry Pi") else None


def check_machine(model: str | None) -> Finding:
    if model:
        return Finding("machine", OK, model)
    return Finding(
        "machine",
        OK,
        "not a Raspberry Pi: the Pi camera and GPIO pins are checked only as far as this machine has them",
        'a USB camera works with [camera] source = "opencv"; companion demo needs no hardware',
    )


def model_files(root: Path) -> tuple[list[Path], list[str]]:
    """Every model file the games (and ordinary dice) ship, and the files missing: those each
    game names as needed, or its whole folder when it names none and holds no model."""
    needed = {m.models: m.model_files for m in manifests() if m.models is not None}
    needed[DICE_FOLDER] = DICE_FILES
    found: list[Path] = []
    missing: list[str] = []
    for folder, names in needed.items():
        files = sorted((root / folder).glob("*.onnx"))
        found += files
        missing += [f"{folder}/{name}" for name in names if not (root / folder / name).is_file()]
        if not files and not names:
            missing.append(f"{folder}/*.onnx")
    return found, missing


def check_models(root: Path | None = None) -> Finding:
    import onnxruntime

    root = root if root is not None else models_root()
    files, missing = model_files(root)
    if missing:
        return Finding(
            "models",
            FAIL,
            f"missing: {', '.join(str(root / name) for name in missing)}",
            "the models ship in the checkout's models/ folder: check out the project again",
        )
    size = 0
    for path in files:
        size += path.stat().st_size
        try:
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = 1
            session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime raises its own types
            return Finding("models", FAIL, f"{path} does not load: {error}", "check out models/ again")
        problem = size_problem(session, path) if path.name == "gallery.onnx" else None
        if problem is not None:
            return Finding("models", FAIL, problem, "check out models/ again")
    names = ", ".join(str(path.relative_to(root)) for path in files)
    return Finding("models", OK, f"{names} load ({size / 1e6:.1f} MB) from {root}")


def check_camera(
    settings: CameraSettings, model: str | None, timeout: float = 5.0, check: str = "camera"
) -> Finding:
    """Open the camera of ``settings`` and judge one picture; ``check`` names it in the report
    (``camera`` for the overhead one, ``dice camera`` for the trays' own)."""
    if settings.source == "simulator":
        return Finding(check, OK, "the simulated table (no camera needed)")
    if settings.source == "none":
        return Finding(check, WARN, "no camera configured: everything is entered on the phone")
    camera = open_camera(settings)
    try:
        camera.open()
        frame = camera.read(timeout)
    except Exception as error:  # CameraError, or a backend's own (OSError, cv2.error ...)
        fix = "is the cable seated, the camera enabled, and the service stopped while checking?"
        if settings.source == "picamera2" and model is None:
            fix = (
                'this is not a Pi: use a USB camera with [camera] source = "opencv", or try the '
                'companion with source = "simulator" (or companion demo)'
            )
        if "busy" in str(error).lower() or "in use" in str(error).lower():
            fix = (
                "the running service holds the camera: sudo systemctl stop table-companion, then check again"
            )
        return Finding(check, FAIL, f"{camera.name}: {error}", fix)
    finally:
        camera.close()
    from companion.vision.frames import check_frame

    height, width = frame.image.shape[:2]
    quality = check_frame(frame.image)
    if not quality.ok:
        return Finding(check, WARN, f"{camera.name} gives {width}x{height}, but: {quality.message}")
    return Finding(check, OK, f"{camera.name} gives {width}x{height} pictures")


def check_pins(config: Config, model: str | None, dev: Path = Path("/dev")) -> Finding:
    trays = config.trays
    if trays is None:
        return Finding("pins", OK, "no dice trays configured: dice rolls are entered on the phone")
    if trays.pin_factory == "mock":
        return Finding("pins", WARN, "the trays use mock pins: nothing real lights or is read")
    chips = sorted(dev.glob("gpiochip*"))
    if not chips:
        fix = 'on another machine, set pin_factory = "mock" in [trays]' if model is None else ""
        return Finding("pins", FAIL, f"no GPIO chip in {dev} (/dev/gpiochip*)", fix)
    unreachable = [str(chip) for chip in chips if not os.access(chip, os.R_OK | os.W_OK)]
    if len(unreachable) == len(chips):
        return Finding(
            "pins",
            FAIL,
            f"cannot open {', '.join(unreachable)} as this user",
            "add the user to the gpio group (the service's user is in it): sudo adduser $USER gpio",
        )
    try:
        import lgpio  # type: ignore[import-not-found]  # noqa: F401  (Raspberry Pi OS: python3-lgpio)
    except ImportError:
        return Finding(
            "pins",
            FAIL,
            "the lgpio module is not installed",
            "sudo apt install python3-lgpio, with the venv made with --system-site-packages",
        )
    pins = sum(len(tray.pins()) for tray in trays.trays)
    return Finding("pins", OK, f"{len(trays.trays)} trays on {pins} pins; {chips[0]} can be opened")


def check_disk(state_dir: Path) -> Finding:
    where = state_dir if state_dir.exists() else next((p for p in state_dir.parents if p.exists()), Path("/"))
    free_mb = shutil.disk_usage(where).free / 1e6
    message = f"{free_mb:,.0f} MB free for {state_dir}"
    if free_mb < DISK_FAIL_MB:
        return Finding("disk", FAIL, message, "free some space: old evidence pictures can go first")
    if free_mb < DISK_WARN_MB:
        return Finding("disk", WARN, message, "space is getting short")
    return Finding("disk", OK, message)


def check_journal(model: str | None, drop_in: Path = JOURNAL_DROP_IN) -> Finding:
    """Whether the system's journal is bounded as the product installs it: without the drop-in,
    journald may keep 10% of the card in logs."""
    try:
        lines = [line.strip() for line in drop_in.read_text(encoding="utf-8").splitlines()]
        settings = dict(line.split("=", 1) for line in lines if "=" in line and line[0] not in "#;")
    except OSError:
        settings = {}
    bounds = [f"{key} {settings[key].strip()}" for key in JOURNAL_BOUNDS if key in settings]
    if bounds:
        return Finding("journal", OK, f"bounded by {drop_in}: " + ", ".join(bounds))
    fix = (
        "sudo install -D -m 0644 systemd/journald-table-companion.conf "
        f"{drop_in} && sudo systemctl restart systemd-journald (hardware/install.sh does both)"
    )
    if model is None:
        return Finding("journal", OK, "not a Pi: the system's journal keeps its own bounds", fix)
    return Finding("journal", WARN, "the journal has no bound of its own: it may take 10% of the card", fix)


def check_clock(now: datetime, synchronised: bool | None) -> Finding:
    if now < EARLIEST_SANE:
        return Finding(
            "clock",
            FAIL,
            f"the clock says {now:%Y-%m-%d}, which cannot be right",
            "connect the Pi to a network once so it sets its clock (timedatectl shows it)",
        )
    if synchronised is False:
        return Finding(
            "clock",
            WARN,
            f"{now:%Y-%m-%d %H:%M} UTC, not synchronised with a time server",
            "the times in the records may be off; scores are not affected",
        )
    return Finding("clock", OK, f"{now:%Y-%m-%d %H:%M} UTC" + (", synchronised" if synchronised else ""))


def clock_synchronised(run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run) -> bool | None:
    """What systemd says of the clock, or None where it cannot say (no timedatectl, no systemd)."""
    try:
        answer = run(
            ["timedatectl", "show", "--property=NTPSynchronized", "--value"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = answer.stdout.strip()
    return {"yes": True, "no": False}.get(value) if answer.returncode == 0 else None


def check_state_dir(state_dir: Path) -> Finding:
    """Whether the service can keep its games in ``state_dir``. Looks and changes nothing that
    stays: the doctor is often run by hand, as another user, before the first run."""
    from companion.store import DATABASE, GameStore

    fix = "run as the service's user (sudo -u table-companion companion doctor) or fix the folder's owner"
    if not state_dir.exists():
        parent = next((p for p in state_dir.parents if p.exists()), Path("/"))
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            return Finding(
                "state dir", FAIL, f"cannot create {state_dir}: {parent} cannot be written in", fix
            )
        return Finding("state dir", OK, f"{state_dir} does not exist yet: the first run makes it")
    try:
        probe = state_dir / ".doctor-probe"
        probe.write_text("ok", encoding="utf-8")
        probe.unlink()
    except OSError as error:
        return Finding(
            "state dir",
            FAIL,
            f"cannot write in {state_dir}: {error.strerror or error}",
            fix,
        )
    if not (state_dir / DATABASE).exists():
        return Finding("state dir", OK, f"{state_dir}: no games kept yet")
    try:
        store = GameStore(state_dir)
    except UserError as error:
        return Finding(
            "state dir", FAIL, str(error), "the database may be damaged: keep a copy, then move it away"
        )
    try:
        games = store.games()
    finally:
        store.close()
    under_way = sum(1 for game in games if game.ended is None)
    return Finding("state dir", OK, f"{state_dir}: {len(games)} games kept, {under_way} under way")


def check_mqtt(config: Config, timeout: float = 3.0) -> Finding:
    settings = config.mqtt
    if not settings.enabled:
        return Finding("mqtt", OK, "off (turn it on in [mqtt] for a club screen or Home Assistant)")
    where = f"{settings.host}:{settings.port}"
    try:
        with socket.create_connection((settings.host, settings.port), timeout=timeout):
            pass
    except OSError as error:
        return Finding(
            "mqtt",
            FAIL,
            f"cannot reach the broker at {where}: {error.strerror or error}",
            "is the broker running, and host and port right in [mqtt]?",
        )
    return Finding("mqtt", OK, f"the broker at {where} answers")


def check_config(config: Config) -> Finding:
    """A config that loaded is valid; without a file, say so rather than call "defaults" valid."""
    if config.source == DEFAULTS:
        return Finding(
            "config",
            OK,
            "no config file: the defaults are used",
            f"to change them, write {SYSTEM_CONFIG} or pass --config FILE; "
            "hardware/config.example.toml shows every key",
        )
    return Finding("config", OK, f"{config.source} is valid")


def diagnose(config_path: str | None, model_path: Path = PI_MODEL) -> list[Finding]:
    model = pi_model(model_path)
    findings = [check_machine(model)]
    try:
        config = load_config(config_path)
    except UserError as error:
        findings.append(Finding("config", FAIL, str(error), "fix the key named, then check again"))
        findings += [check_models(), check_clock(datetime.now(UTC), clock_synchronised())]
        return findings
    findings.append(check_config(config))
    findings.append(check_models())
    findings.append(check_camera(config.camera, model))
    if config.dice_camera is not None:
        findings.append(check_camera(config.dice_camera, model, check="dice camera"))
    findings.append(check_pins(config, model))
    findings.append(check_state_dir(config.state_dir))
    findings.append(check_disk(config.state_dir))
    findings.append(check_journal(model))
    findings.append(check_clock(datetime.now(UTC), clock_synchronised()))
    findings.append(check_mqtt(config))
    return findings


def report(findings: list[Finding], as_json: bool = False) -> str:
    if as_json:
        return json.dumps([asdict(finding) for finding in findings], ensure_ascii=False, indent=1)
    width = max(len(finding.check) for finding in findings)
    lines = []
    for finding in findings:
        lines.append(f"{finding.level:<4}  {finding.check:<{width}}  {finding.message}")
        if finding.fix and finding.level != OK:
            lines.append(f"{'':<4}  {'':<{width}}  -> {finding.fix}")
        elif finding.fix:
            lines.append(f"{'':<4}  {'':<{width}}  ({finding.fix})")
    failed = sum(1 for finding in findings if finding.level == FAIL)
    warned = sum(1 for finding in findings if finding.level == WARN)
    if failed:
        lines.append(f"{failed} to fix" + (f", {warned} to look at" if warned else ""))
    else:
        lines.append(f"{warned} to look at" if warned else "all well")
    return "\n".join(lines)
