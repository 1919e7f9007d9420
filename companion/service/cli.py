"""The commands of the table as a service: ``companion run``, ``doctor``, ``calibrate``, ``join``."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.config import Config

# companion.config.SYSTEM_CONFIG, not imported here: the other commands need none of what it loads
CONFIG_HELP = "the config file (default: /etc/table-companion/config.toml if it exists, else the defaults)"


def _describe(config: Config) -> str:
    from companion.web.net import page_urls  # here: the other commands need no web layer

    camera = config.camera
    lines = [
        f"config: {config.source}",
        f"  state dir: {config.state_dir}",
        "  scoreboard: "
        + ", ".join(page_urls(config.web.host, config.web.port))
        + ("" if config.web.mdns else " (no mDNS)"),
        f"  camera: {camera.source}",
        f"  dice camera: {config.dice_camera.source if config.dice_camera else 'the overhead camera'}",
        f"  trays: {len(config.trays.trays) if config.trays else 'none (dice typed on the phone)'}",
        f"  mqtt: {f'{config.mqtt.host}:{config.mqtt.port}' if config.mqtt.enabled else 'off'}",
        f"  kept: the last {config.retention.games} games besides the one under way, their pictures "
        f"within {config.retention.evidence_bytes // 1_000_000} MB",
    ]
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    from companion.config import DEFAULTS, load_config
    from companion.service.calibrate import with_calibration

    config = load_config(args.config)
    if args.check:
        print(_describe(config))
        print("the config is valid")
        return 0
    import logging

    from companion.service.run import run_table

    # the MQTT publisher's and the libraries' notes go to the service's journal
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")

    config = dataclasses.replace(config, camera=with_calibration(config.camera, config.state_dir))
    if config.source == DEFAULTS:
        return run_table(config, advice="set [web] host and port in a config file given with --config")
    return run_table(config, advice=f"change [web] host or port in {config.source}")


def _doctor(args: argparse.Namespace) -> int:
    from companion.service.doctor import FAIL, diagnose, report

    findings = diagnose(args.config)
    print(report(findings, as_json=args.json))
    return 1 if any(finding.level == FAIL for finding in findings) else 0


def _join(args: argparse.Namespace) -> int:
    """The table PIN and an invite a phone scans to join, from the table's state dir (where the
    running companion keeps them), for whoever has this machine at hand."""
    from companion.config import load_config
    from companion.errors import UserError
    from companion.web.join import qr_terminal
    from companion.web.net import is_loopback, page_urls
    from companion.web.pairing import PAIRING_FILE, Pairing
    from companion.web.security import kept_table_pin
    from companion.web.server import invite_url, phones_cannot_join

    config = load_config(args.config)
    if not (config.state_dir / PAIRING_FILE).is_file():
        # the running companion draws the invite; one drawn here would not be the table's
        raise UserError(f"no table here yet: nothing in {config.state_dir} (start the companion first)")
    try:
        pin = kept_table_pin(config.state_dir, config.web.pin)
        pairing = Pairing(config.state_dir, writable=False)  # the service's file, read only
        host, port = pairing.served or (config.web.host, config.web.port)
        link = invite_url(page_urls(host, port)[0], pairing)
    except (OSError, ValueError) as error:
        raise UserError(f"cannot read the table's PIN and invite in {config.state_dir}: {error}") from None
    print(f"Table PIN: {pin}")
    if not pairing.kept:
        # one drawn here would be saved nowhere: the companion would not take it
        raise UserError(
            f"the invite kept in {config.state_dir / PAIRING_FILE} has expired or is damaged: a joined "
            "phone's page shows a new one; meanwhile phones join with the PIN"
        )
    print(f"Invite (a phone that opens it joins in one tap): {link}")
    if is_loopback(link):  # as serve says it: a QR to scan in vain would only puzzle
        print(f"Phones cannot open it: {phones_cannot_join(host)}")
    elif sys.stdout.isatty():
        print(qr_terminal(link))
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from companion.cameras.base import CameraError
    from companion.cameras.settings import open_camera
    from companion.config import load_config
    from companion.errors import UserError
    from companion.service.calibrate import calibrate

    config = load_config(args.config)
    if config.camera.source in ("simulator", "none"):
        raise UserError(f'[camera] source = "{config.camera.source}" has no camera to calibrate')
    camera = open_camera(config.camera)
    print(f"calibrating {camera.name}: keep the play mat in view and hands away", file=sys.stderr)
    try:
        calibrate(camera, config.state_dir, say=lambda line: print(line, file=sys.stderr))
    except CameraError as error:
        raise UserError(str(error)) from None
    except (OSError, RuntimeError) as error:  # a backend's own failure, said plainly
        raise UserError(f"{camera.name}: {error}") from None
    return 0


def add_service_commands(commands: Any) -> None:
    run = commands.add_parser("run", help="run the table: camera, trays and scoreboard, as the service does")
    run.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    run.add_argument("--check", action="store_true", help="only check the config and say what it sets")
    run.set_defaults(run=_run)

    doctor = commands.add_parser("doctor", help="check camera, pins, models, disk, clock and state dir")
    doctor.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    doctor.add_argument("--json", action="store_true", help="print the findings as JSON")
    doctor.set_defaults(run=_doctor)

    calibrate = commands.add_parser(
        "calibrate", help="set the camera's focus and exposure over the mat and check its markers"
    )
    calibrate.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    calibrate.set_defaults(run=_calibrate)

    join = commands.add_parser("join", help="show the table PIN and an invite phones scan to join")
    join.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    join.set_defaults(run=_join)
