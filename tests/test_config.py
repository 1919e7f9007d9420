"""The config file of ``companion run``: defaults that work, and every mistake named with its file and key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.cli import main
from companion.config import SYSTEM_CONFIG, Config, load_config, parse_config
from companion.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "hardware" / "config.example.toml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_empty_file_runs_one_table_with_a_pi_camera(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ""))
    assert config.camera.source == "picamera2"
    assert (config.web.host, config.web.port, config.web.mdns) == ("0.0.0.0", 8000, True)
    assert config.trays is None and config.dice_camera is None
    assert not config.mqtt.enabled


def test_the_state_dir_defaults_to_systemds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMPANION_STATE_DIR", raising=False)
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    assert load_config(write(tmp_path, "")).state_dir == tmp_path / "state"
    given = load_config(write(tmp_path, f'state_dir = "{tmp_path / "mine"}"'))
    assert given.state_dir == tmp_path / "mine"


def test_the_example_config_is_valid_as_shipped() -> None:
    config = load_config(EXAMPLE)
    assert config.camera.source == "picamera2" and not config.mqtt.enabled


def test_the_example_configs_commented_sections_are_valid_once_uncommented(tmp_path: Path) -> None:
    """Every '# key = value' and '# [section]' line of the example, switched on, still checks."""
    lines = []
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        bare = line.removeprefix("# ")
        switched_on = line.startswith("# ") and ("=" in bare.split("#")[0] or bare.startswith("["))
        lines.append(bare if switched_on else line)
    text = "\n".join(lines).replace('pin_factory = "lgpio"', 'pin_factory = "mock"')
    config = load_config(write(tmp_path, text))
    assert config.trays is not None and len(config.trays.trays) == 2
    assert config.trays.trays[0].region == (1000, 80, 240, 270)
    assert config.dice_camera is not None and config.dice_camera.camera_num == 1
    assert config.camera.controls.focus_dioptres == 2.0
    assert config.web.pin == "2468"


def test_the_example_config_names_every_key_the_config_takes() -> None:
    """README and running.md say the example shows them all: each key, set or commented out."""
    from companion.cameras.settings import KEYS as CAMERA_KEYS
    from companion.config import RETENTION_KEYS, TOP_KEYS, WEB_KEYS
    from companion.devices.config import TRAY_KEYS, TRAYS_KEYS
    from companion.live.mqtt_config import KEYS as MQTT_KEYS

    text = EXAMPLE.read_text(encoding="utf-8")
    keys = set(re.findall(r"^(?:# ?)?([a-z_]+) *=", text, re.M))
    tables = re.findall(r"^(?:# ?)?\[+([a-z_.]+)\]+", text, re.M)
    names = keys | {part for table in tables for part in table.split(".")}
    wanted = {*TOP_KEYS, *WEB_KEYS, *CAMERA_KEYS, *TRAY_KEYS, *TRAYS_KEYS, *MQTT_KEYS, *RETENTION_KEYS}
    assert wanted - names == set()


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[web]\nport = 0", "[web] port: a port is 1 to 65535, not 0"),
        ('[web]\nport = "8000"', "[web] port"),
        ("[web]\npin = 12", "[web] pin"),
        ('[web]\npin = "12"', "[web] pin"),
        ('[web]\npin = "1234567890123"', "[web] pin: 4 to 12 digits"),
        ('[web]\npin = "١٢٣٤"', "[web] pin"),  # digits, but not 0-9
        ("[web]\nmdns = 1", "[web] mdns: true or false"),
        ('[web]\nhost = "not a host!"', "[web] host: neither an IP address nor a host name"),
        ('[web]\nhost = "256.1.1.1"', "[web] host: not an IP address"),
        ('[web]\nhost = "[::1]"', "[web] host: an IPv6 address is written without brackets"),
        ("[web]\nthreads = 1", "[web] threads"),
        ('[web]\nhots = "x"', '[web] hots: no such key; did you mean "host"?'),
        ('stat_dir = "/x"', 'stat_dir: no such key; did you mean "state_dir"?'),
        ("state_dir = 3", "state_dir: a folder"),
        ('web = "x"', "[web] must be a table"),
        ("[camera]\nfps = -1", "[camera] fps"),
        ('[camera]\nsource = "webcam"', "[camera] source"),
        ("[dice_camera]\ncamera_num = -1", "[dice_camera] camera_num"),
        ('[mqtt]\nenabled = "yes"', "[mqtt] enabled"),
        ("[trays]\npin_factory = 'mock'", "trays.tray must list at least one tray"),
        (
            "[trays]\npin_factory = 'mock'\n[[trays.tray]]\nbutton = 17\nled = [5, 6, 13]",
            "trays.tray[0].region is missing",
        ),
        (  # each key a tray must have, said with what is wanted
            "[trays]\npin_factory = 'mock'\n[[trays.tray]]",
            "trays.tray[0].button is missing: the GPIO (BCM) pin of the tray's button, for example "
            "button = 17",
        ),
        (
            "[trays]\npin_factory = 'mock'\n[[trays.tray]]\nbutton = 17",
            "trays.tray[0].led is missing: the GPIO (BCM) pins of the tray's LED, its red, green and blue "
            "legs, for example led = [5, 6, 13]",
        ),
        (  # a typo is named as one, not taken for a missing key
            "[trays]\npin_factory = 'mock'\n[[trays.tray]]\nbuton = 17",
            'trays.tray[0].buton: no such key; did you mean "button"?',
        ),
        (
            "[trays]\npin_factory = 'mock'\n[[trays.tray]]\nbutton = 17\nled = [5, 6, 13]\nregion = [0, 1]",
            "trays.tray[0].region must be [x, y, width, height]",
        ),
        ("[web\nport = 1", "not valid TOML"),
    ],
)
def test_a_mistake_names_the_file_and_key(tmp_path: Path, text: str, named: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    message = str(raised.value)
    assert message.startswith(f"{path}: "), message
    assert named in message, message


def test_one_tray_seen_by_a_camera_of_its_own_needs_no_region() -> None:
    config = parse_config(
        {
            "dice_camera": {"source": "opencv", "device": 1},
            "trays": {"pin_factory": "mock", "tray": [{"button": 17, "led": [5, 6, 13]}]},
        }
    )
    assert isinstance(config, Config) and config.trays is not None and config.trays.trays[0].region is None


def test_a_missing_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no such file \(hardware/config.example.toml shows every key"):
        load_config(tmp_path / "nothing.toml")


def test_run_check_prints_what_the_config_sets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, f'state_dir = "{tmp_path}"\n[web]\nport = 8123\n[camera]\nsource = "simulator"\n')
    assert main(["run", "--config", str(path), "--check"]) == 0
    out = capsys.readouterr().out
    # listening on every interface: the addresses a phone or this machine can open, not 0.0.0.0
    assert "http://127.0.0.1:8123/" in out and "0.0.0.0" not in out and "camera: simulator" in out
    assert "the config is valid" in out


def test_run_with_a_bad_config_stops_before_starting_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, f'state_dir = "{tmp_path / "state"}"\n[web]\nport = 70000\n')
    assert main(["run", "--config", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"companion run: {path}: [web] port: a port is 1 to 65535, not 70000"
    assert not (tmp_path / "state").exists()  # nothing made before the config was whole


def test_run_check_says_what_a_bare_tray_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, f'state_dir = "{tmp_path / "state"}"\n[trays]\n[[trays.tray]]\n')
    assert main(["run", "--config", str(path), "--check"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        f"companion run: {path}: trays.tray[0].button is missing: the GPIO (BCM) pin of the tray's "
        "button, for example button = 17 (hardware/wiring.md)"
    )


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (
            '[dice_camera]\nsource = "none"',
            '[dice_camera] source: a camera ("picamera2", "opencv" or "folder")',
        ),
        (
            '[camera]\nsource = "none"\n[trays]\npin_factory = "mock"\n[[trays.tray]]\nbutton = 17\n'
            "led = [5, 6, 13]\nregion = [0, 0, 64, 64]",
            '[trays] need a picture of the dice, but [camera] source is "none"',
        ),
        (
            '[trays]\npin_factory = "mock"\n[[trays.tray]]\nbutton = 17\nled = [5, 6, 13]\n'
            "region = [1250, 0, 64, 64]",
            "trays.tray[0].region [1250, 0, 64, 64] reaches outside the 1280x720 picture of [camera]",
        ),
    ],
)
def test_parts_that_cannot_work_together_are_refused(tmp_path: Path, text: str, named: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(named)):
        load_config(write(tmp_path, text))


def test_the_systems_config_keeps_its_state_where_the_service_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.delenv("COMPANION_STATE_DIR", raising=False)
    assert parse_config({}, str(SYSTEM_CONFIG)).state_dir == Path("/var/lib/table-companion")
    assert parse_config({}, "elsewhere.toml").state_dir != Path("/var/lib/table-companion")


def test_a_pin_as_long_as_the_command_line_takes_is_taken_from_the_config_too(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, '[web]\npin = "123456789012"')).web.pin == "123456789012"
