"""The config file of ``companion run``: one TOML file, every key optional, checked at start-up.

Each section is checked by the part of the program it belongs to (``[camera]`` by
``companion.cameras``, ``[trays]`` by ``companion.devices``, ``[mqtt]`` by ``companion.live.mqtt``);
this module reads the file, checks the top level and ``[web]``, and puts the file's name in front
of every message, so a mistake reads ``/etc/table-companion/config.toml: [web] port: ...``.

Without a file (or with an empty one) the defaults run one table with a Pi camera, no trays and no
MQTT, its scoreboard open to the local network. ``hardware/config.example.toml`` shows every key.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.cameras.settings import CameraSettings, camera_settings
from companion.devices.config import TraysConfig, trays_config
from companion.errors import ConfigError, UserError, refuse_unknown_keys
from companion.live.mqtt import MqttSettings, mqtt_settings
from companion.state_dir import default_state_dir
from companion.store import Retention
from companion.web.net import host_problem
from companion.web.security import is_pin
from companion.web.server import DEFAULT_THREADS, THREADS_RANGE

# Where the service's file lives (systemd/table-companion.service passes it with --config).
SYSTEM_CONFIG = Path("/etc/table-companion/config.toml")
# Config.source when no file was read, as ``companion doctor`` tells apart.
# Angle brackets: no config file a person names looks like it.
DEFAULTS = "<defaults>"
TOP_KEYS = ("state_dir", "web", "camera", "dice_camera", "trays", "mqtt", "retention")
WEB_KEYS = ("host", "port", "pin", "mdns", "threads")
RETENTION_KEYS = ("games", "evidence_mb")


@dataclass(frozen=True)
class WebSettings:
    host: str = "0.0.0.0"  # every phone on the table's network
    port: int = 8000
    pin: str | None = None  # None: one made once and kept in the state dir
    mdns: bool = True
    threads: int = DEFAULT_THREADS


@dataclass(frozen=True)
class Config:
    state_dir: Path
    web: WebSettings = field(default_factory=WebSettings)
    camera: CameraSettings = field(default_factory=lambda: camera_settings(None))
    # a camera of the dice trays' own; None: each tray's region of the overhead camera's picture
    dice_camera: CameraSettings | None = None
    trays: TraysConfig | None = None  # None: no trays, dice are typed on the phone
    mqtt: MqttSettings = field(default_factory=lambda: mqtt_settings(None))
    retention: Retention = field(default_factory=Retention)
    source: str = DEFAULTS  # the file it came from, for messages


def _web(section: Any) -> WebSettings:
    if section is None:
        return WebSettings()
    if not isinstance(section, Mapping):
        raise ConfigError("[web] must be a table of keys")
    refuse_unknown_keys(section, WEB_KEYS, "[web] ")
    defaults = WebSettings()
    host = section.get("host", defaults.host)
    if not isinstance(host, str) or not host.strip():
        raise ConfigError(f'[web] host: an address to listen on, such as "0.0.0.0", not {host!r}')
    problem = host_problem(host.strip())
    if problem is not None:
        raise ConfigError(f"[web] host: {problem}, not {host!r}")
    port = section.get("port", defaults.port)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ConfigError(f"[web] port: a port is 1 to 65535, not {port!r}")
    pin = section.get("pin", defaults.pin)
    if pin is not None and (not isinstance(pin, str) or not is_pin(pin)):
        raise ConfigError(f'[web] pin: 4 to 12 digits in quotes, such as "2468", not {pin!r}')
    mdns = section.get("mdns", defaults.mdns)
    if not isinstance(mdns, bool):
        raise ConfigError(f"[web] mdns: true or false, not {mdns!r}")
    threads = section.get("threads", defaults.threads)
    low, high = THREADS_RANGE
    if isinstance(threads, bool) or not isinstance(threads, int) or not low <= threads <= high:
        raise ConfigError(f"[web] threads: a number from {low} to {high}, not {threads!r}")
    return WebSettings(host.strip(), port, pin, mdns, threads)


def _retention(section: Mapping[str, Any] | None) -> Retention:
    defaults = Retention()
    if section is None:
        return defaults
    refuse_unknown_keys(section, RETENTION_KEYS, "[retention] ")
    games = section.get("games", defaults.games)
    if isinstance(games, bool) or not isinstance(games, int) or not 0 <= games <= 100_000:
        raise ConfigError(f"[retention] games: how many finished games to keep, 0 to 100000, not {games!r}")
    megabytes = section.get("evidence_mb", defaults.evidence_bytes // 1_000_000)
    if isinstance(megabytes, bool) or not isinstance(megabytes, int) or not 0 <= megabytes <= 10_000_000:
        raise ConfigError(
            f"[retention] evidence_mb: the megabytes all games' pictures may take, a whole number "
            f"from 0, not {megabytes!r}"
        )
    return Retention(games, megabytes * 1_000_000)


# The service's StateDirectory: where the system's config keeps its state, whoever reads it
# (the service, or a person running doctor or calibrate by hand).
SYSTEM_STATE = Path("/var/lib/table-companion")


def _state_dir(value: Any, source: str) -> Path:
    if value is None:
        return SYSTEM_STATE if source == str(SYSTEM_CONFIG) else default_state_dir()
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"state_dir: a folder, not {value!r}")
    return Path(os.path.expanduser(value.strip()))


def parse_config(data: Mapping[str, Any], source: str = "config") -> Config:
    """Check a config already read from TOML; a ConfigError names the file, section and key."""
    try:
        refuse_unknown_keys(data, TOP_KEYS, "")
        dice_camera = _table(data, "dice_camera")
        trays = data.get("trays")
        config = Config(
            state_dir=_state_dir(data.get("state_dir"), source),
            web=_web(data.get("web")),
            camera=camera_settings(_table(data, "camera")),
            dice_camera=None if dice_camera is None else _dice_camera(dice_camera),
            trays=None if trays is None else trays_config(trays),
            mqtt=mqtt_settings(_table(data, "mqtt")),
            retention=_retention(_table(data, "retention")),
            source=source,
        )
    except UserError as error:
        raise ConfigError(f"{source}: {error}") from None
    _check_cameras(config, source)
    if config.trays is not None and (config.dice_camera is None or len(config.trays.trays) > 1):
        for index, tray in enumerate(config.trays.trays):
            if tray.region is None:
                seen = "the [dice_camera]'s" if config.dice_camera else "the overhead camera's"
                raise ConfigError(
                    f"{source}: trays.tray[{index}].region is missing: where the tray lies in {seen} "
                    "picture, [x, y, width, height] (companion calibrate shows the picture)"
                )
    return config


def _check_cameras(config: Config, source: str) -> None:
    dice = config.dice_camera
    if dice is not None and dice.source in ("none", "simulator"):
        raise ConfigError(
            f'{source}: [dice_camera] source: a camera ("picamera2", "opencv" or "folder"), not '
            f'"{dice.source}"; without a camera of their own the trays are seen by [camera]'
        )
    if config.trays is None:
        return
    seeing = dice or config.camera
    if dice is None and seeing.source in ("none", "simulator"):
        raise ConfigError(
            f'{source}: [trays] need a picture of the dice, but [camera] source is "{seeing.source}": '
            "add a [dice_camera] section"
        )
    for index, tray in enumerate(config.trays.trays):
        if tray.region is None:
            continue
        x, y, width, height = tray.region
        if x + width > seeing.width or y + height > seeing.height:
            section = "[dice_camera]" if dice else "[camera]"
            raise ConfigError(
                f"{source}: trays.tray[{index}].region {list(tray.region)} reaches outside the "
                f"{seeing.width}x{seeing.height} picture of {section}"
            )


def _table(data: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    section = data.get(name)
    if section is not None and not isinstance(section, Mapping):
        raise ConfigError(f"[{name}] must be a table of keys, not {section!r}")
    return section


def _dice_camera(section: Mapping[str, Any]) -> CameraSettings:
    """A second camera is checked as [camera] is; its messages name [dice_camera]."""
    try:
        return camera_settings(section)
    except UserError as error:
        raise ConfigError(str(error).replace("[camera]", "[dice_camera]", 1)) from None


def load_config(path: str | Path | None) -> Config:
    """The config in ``path``; with None, the system's file if there is one, else the defaults."""
    if path is None:
        if not SYSTEM_CONFIG.exists():
            return parse_config({}, DEFAULTS)
        path = SYSTEM_CONFIG
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: no such file (hardware/config.example.toml shows every key; "
            "an empty file runs with the defaults)"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read it: {getattr(error, 'strerror', None) or error}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    return parse_config(data, str(path))
