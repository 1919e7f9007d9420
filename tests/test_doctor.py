"""``companion doctor`` and ``companion calibrate``: plain findings on this (non-Pi) machine, each
failure with what to do; calibration finding focus and exposure on a camera that can set them."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion import config as config_module
from companion.cameras.base import CameraError, Controls, Frame
from companion.cameras.settings import camera_settings
from companion.cli import main
from companion.config import load_config
from companion.games.starwars.sim.enrol_table import EnrolTable
from companion.service import doctor
from companion.service.calibrate import CALIBRATION, PICTURE, calibrate, saved_controls, with_calibration
from companion.service.doctor import FAIL, OK, WARN, diagnose


def config_file(tmp_path: Path, camera: str = 'source = "simulator"', extra: str = "") -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'state_dir = "{tmp_path / "state"}"\n[camera]\n{camera}\n{extra}', encoding="utf-8")
    return path


def by_check(findings: list[doctor.Finding]) -> dict[str, doctor.Finding]:
    return {finding.check: finding for finding in findings}


def test_the_pi_is_known_by_its_device_tree(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    assert doctor.pi_model(model) == "Raspberry Pi 5 Model B Rev 1.0"
    model.write_bytes(b"QEMU Virtual Machine\x00")
    assert doctor.pi_model(model) is None
    assert doctor.pi_model(tmp_path / "absent") is None


def test_a_healthy_table_on_another_machine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = by_check(diagnose(str(config_file(tmp_path)), tmp_path / "no-model"))
    assert found["machine"].message.startswith("not a Raspberry Pi")
    assert found["config"].level == OK and found["models"].level == OK
    message = found["models"].message
    assert "starwars/cells.onnx, starwars/gallery.onnx, starwars/meeples.onnx, dice/dice.onnx load" in message
    assert found["camera"].level == OK and found["pins"].level == OK and found["mqtt"].level == OK
    assert found["state dir"].message.endswith("does not exist yet: the first run makes it")
    assert main(["doctor", "--config", str(config_file(tmp_path)), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert {item["check"] for item in printed} >= {"machine", "camera", "disk", "clock", "state dir"}


def test_a_gallery_model_of_another_square_size_fails_the_models_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An experiment's likeness copied over the shipped one loads in onnxruntime, but the
    gallery cannot use it: the doctor says so, as `companion run` would refuse it."""
    import onnxruntime

    opened = onnxruntime.InferenceSession

    class Input:
        shape = ("n", 64, 64, 3)

    class Squares64:
        def get_inputs(self) -> list[Input]:
            return [Input()]

    def session(path: str, *args: object, **kwargs: object) -> object:
        return Squares64() if path.endswith("gallery.onnx") else opened(path, *args, **kwargs)

    monkeypatch.setattr(onnxruntime, "InferenceSession", session)
    found = doctor.check_models()
    assert found.level == FAIL
    assert "gallery.onnx reads 64 px squares, the gallery cuts 48 px ones" in found.message


def test_a_model_file_a_game_needs_that_is_missing_fails_by_name(tmp_path: Path) -> None:
    """A checkout that lost one of a game's files (its labels, one of its models) fails the
    check naming that file, though other models are there."""
    import shutil

    from companion.vision.model_files import models_root

    shipped = models_root()
    copy = tmp_path / "models"
    for folder in ("starwars", "dice"):
        shutil.copytree(shipped / folder, copy / folder)
    assert doctor.check_models(copy).level == OK
    (copy / "starwars" / "meeples.labels.json").unlink()
    (copy / "dice" / "dice.onnx").unlink()
    found = doctor.check_models(copy)
    assert found.level == FAIL
    assert "starwars/meeples.labels.json" in found.message and "dice/dice.onnx" in found.message


def test_the_config_finding_says_whether_a_file_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config_module, "SYSTEM_CONFIG", tmp_path / "absent.toml")
    monkeypatch.setenv("COMPANION_STATE_DIR", str(tmp_path / "state"))
    none = doctor.check_config(load_config(None))
    assert (none.level, none.message) == (
        OK,
        "no config file: the defaults are used",
    )  # not "defaults is valid"
    assert "/etc/table-companion/config.toml or pass --config FILE" in none.fix
    assert "(to change them, write" in doctor.report([none])
    path = config_file(tmp_path)
    assert doctor.check_config(load_config(path)) == doctor.Finding("config", OK, f"{path} is valid")
    # a file named "defaults" is a file read, not the defaults
    monkeypatch.chdir(tmp_path)
    Path("defaults").write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert doctor.check_config(load_config("defaults")).message == "defaults is valid"


def test_a_pi_camera_asked_for_on_another_machine_says_what_to_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_file(tmp_path, 'source = "picamera2"')
    found = by_check(diagnose(str(config), tmp_path / "no-model"))
    assert found["camera"].level == FAIL
    assert 'source = "opencv"' in found["camera"].fix
    assert main(["doctor", "--config", str(config)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  camera" in out and "-> this is not a Pi" in out and "1 to fix" in out


def test_a_black_picture_is_a_warning_with_the_frame_checks_words(tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), np.zeros((120, 160, 3), np.uint8))
    config = config_file(tmp_path, f'source = "folder"\nfolder = "{folder}"\nrealtime = false')
    camera = by_check(diagnose(str(config), tmp_path / "no-model"))["camera"]
    assert camera.level == WARN and "160x120" in camera.message and "only black" in camera.message


def test_a_dice_camera_is_checked_as_its_own_camera(tmp_path: Path) -> None:
    folder = tmp_path / "dice"
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), np.zeros((90, 120, 3), np.uint8))
    trays = "[trays]\npin_factory = 'mock'\n[[trays.tray]]\nbutton = 17\nled = [5, 6, 13]\n"
    dark = f'[dice_camera]\nsource = "folder"\nfolder = "{folder}"\nrealtime = false\n'
    found = by_check(diagnose(str(config_file(tmp_path, extra=trays + dark)), tmp_path / "no-model"))
    assert found["camera"].level == OK  # the overhead one is the simulator
    assert found["dice camera"].level == WARN and "120x90" in found["dice camera"].message
    missing = '[dice_camera]\nsource = "picamera2"\n'
    found = by_check(diagnose(str(config_file(tmp_path, extra=trays + missing)), tmp_path / "no-model"))
    assert found["dice camera"].level == FAIL and 'source = "opencv"' in found["dice camera"].fix
    assert "dice camera" not in by_check(diagnose(str(config_file(tmp_path)), tmp_path / "no-model"))


def test_a_bad_config_is_named_and_the_rest_still_checked(tmp_path: Path) -> None:
    config = config_file(tmp_path, "fps = -1")
    found = by_check(diagnose(str(config), tmp_path / "no-model"))
    assert found["config"].level == FAIL and "[camera] fps" in found["config"].message
    assert found["models"].level == OK and "clock" in found


def test_trays_without_gpio_fail_and_mock_pins_warn(tmp_path: Path) -> None:
    trays = (
        "[trays]\npin_factory = '{}'\n[[trays.tray]]\nbutton = 17\nled = [5, 6, 13]\nregion = [0, 0, 64, 64]"
    )
    usb = 'source = "opencv"'
    real = load_config(config_file(tmp_path, usb, extra=trays.format("lgpio")))
    no_gpio = doctor.check_pins(real, None, dev=tmp_path)
    assert no_gpio.level == FAIL and "gpiochip" in no_gpio.message and 'pin_factory = "mock"' in no_gpio.fix
    mock = load_config(config_file(tmp_path, usb, extra=trays.format("mock")))
    assert doctor.check_pins(mock, None, dev=tmp_path).level == WARN


def test_the_clock_the_disk_and_the_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert doctor.check_clock(datetime(1970, 1, 1, tzinfo=UTC), None).level == FAIL
    assert doctor.check_clock(datetime(2026, 11, 21, tzinfo=UTC), False).level == WARN
    assert doctor.check_clock(datetime(2026, 11, 21, tzinfo=UTC), True).level == OK

    class Usage:
        def __init__(self, free: float) -> None:
            self.free = free

    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda _: Usage(50e6))
    assert doctor.check_disk(tmp_path).level == FAIL
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda _: Usage(300e6))
    assert doctor.check_disk(tmp_path).level == WARN
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert doctor.check_state_dir(blocked / "state").level == FAIL


def test_the_journal_bounds_are_read_from_the_drop_in_on_a_pi(tmp_path: Path) -> None:
    pi = "Raspberry Pi 5 Model B Rev 1.0"
    missing = doctor.check_journal(pi, tmp_path / "absent.conf")
    assert missing.level == WARN and "journald-table-companion.conf" in missing.fix
    assert doctor.check_journal(None, tmp_path / "absent.conf").level == OK  # not a Pi: the system's own
    shipped = Path(__file__).resolve().parents[1] / "systemd" / "journald-table-companion.conf"
    installed = doctor.check_journal(pi, shipped)
    assert installed.level == OK
    assert "SystemMaxUse 64M" in installed.message and "RuntimeMaxUse 16M" in installed.message
    unbounded = tmp_path / "empty.conf"
    unbounded.write_text("[Journal]\n# SystemMaxUse=64M is only a comment\n")
    assert doctor.check_journal(pi, unbounded).level == WARN


def test_the_state_dir_is_looked_at_not_made(tmp_path: Path) -> None:
    from companion.store import DATABASE, GameStore

    first_run = tmp_path / "new" / "state"
    finding = doctor.check_state_dir(first_run)
    assert finding.level == OK and "does not exist yet" in finding.message
    assert not (tmp_path / "new").exists()  # the doctor made nothing
    first_run.mkdir(parents=True)
    assert "no games kept yet" in doctor.check_state_dir(first_run).message
    assert list(first_run.iterdir()) == []
    GameStore(first_run).close()
    kept = doctor.check_state_dir(first_run)
    assert kept.level == OK and "0 games kept" in kept.message
    assert (first_run / DATABASE).exists()


def test_an_unreachable_broker_fails(tmp_path: Path) -> None:
    config = load_config(
        config_file(tmp_path, extra='[mqtt]\nenabled = true\nhost = "127.0.0.1"\nport = 9\n')
    )
    finding = doctor.check_mqtt(config, timeout=1.0)
    assert finding.level == FAIL and "127.0.0.1:9" in finding.message


# --- calibrate ----------------------------------------------------------------------------------


class Adjustable:
    """The mat through a camera whose picture is sharp at 2.5 dioptres and black below 8 ms of
    exposure, as a camera that can set both would give it."""

    name = "test camera"
    SHARP_AT = 2.5

    def __init__(self, can_focus: bool = True, light_needed: float = 8_000) -> None:
        self.scene = EnrolTable(1_000_000).frame()
        self.can_focus = can_focus
        self.light_needed = light_needed  # exposure (us) times analogue gain for a bright picture
        self.focus: float | None = None
        self.exposure: int | None = None
        self.gain: float | None = None
        self.seq = 0
        self.closed = False

    def open(self) -> None:
        self.closed = False

    def read(self, timeout: float) -> Frame:
        picture = self.scene
        if self.focus is not None:
            blur = 1 + 2 * round(abs(self.focus - self.SHARP_AT) * 4)
            picture = cv2.GaussianBlur(picture, (blur, blur), 0) if blur > 1 else picture
        if self.exposure is None or self.exposure * (self.gain or 1.0) < self.light_needed:
            picture = (picture // 40).astype(np.uint8)  # automatic exposure: far too dark
        self.seq += 1
        return Frame(picture, self.seq, time.monotonic())

    def close(self) -> None:
        self.closed = True

    def apply(self, controls: Controls) -> bool:
        if controls.focus_dioptres is not None and not self.can_focus:
            return False
        self.focus = controls.focus_dioptres if controls.focus_dioptres is not None else self.focus
        self.exposure = controls.exposure_us if controls.exposure_us is not None else self.exposure
        self.gain = controls.gain if controls.gain is not None else self.gain
        return True


def test_calibrate_finds_the_exposure_and_the_sharpest_focus_and_keeps_them(tmp_path: Path) -> None:
    camera = Adjustable()
    said: list[str] = []
    result = calibrate(camera, tmp_path, say=said.append)
    assert result.exposure_us is not None and result.exposure_us >= 8_000
    assert result.gain == 1.0 and camera.gain == 1.0  # fixed with the exposure, not left to chance
    assert not any("gain 2" in line for line in said)  # a picture passed at gain 1: no more gain tried
    assert result.focus_dioptres == Adjustable.SHARP_AT
    assert result.markers == list(range(8)) and result.markers_total == 8
    assert result.tile_px is not None and 20 < result.tile_px < 200
    _, _, width, height = result.dice_strip or [0, 0, 0, 0]
    assert width > 0 and height > width  # the strip runs down the mat's right side
    assert result.picture == "" and camera.closed
    kept = json.loads((tmp_path / CALIBRATION).read_text())
    assert kept["focus_dioptres"] == 2.5 and (tmp_path / PICTURE).stat().st_size > 10_000
    assert saved_controls(tmp_path) == Controls(focus_dioptres=2.5, exposure_us=result.exposure_us, gain=1.0)
    settings = with_calibration(camera_settings({"source": "picamera2"}), tmp_path)
    assert settings.controls == Controls(focus_dioptres=2.5, exposure_us=result.exposure_us, gain=1.0)
    own_gain = with_calibration(camera_settings({"source": "picamera2", "gain": 2.0}), tmp_path)
    assert own_gain.controls.gain == 2.0 and own_gain.controls.exposure_us is None  # they go together
    fixed = with_calibration(camera_settings({"source": "picamera2", "focus_dioptres": 1.0}), tmp_path)
    assert fixed.controls.focus_dioptres == 1.0  # the config's own setting wins


def test_a_dim_room_gets_the_longest_exposure_and_the_least_gain_that_is_bright_enough(
    tmp_path: Path,
) -> None:
    camera = Adjustable(light_needed=33_000 * 3)  # 33 ms is not enough at gain 1, nor at 2
    result = calibrate(camera, tmp_path, say=lambda _: None)
    assert (result.exposure_us, result.gain) == (33_000, 4.0)
    assert (camera.exposure, camera.gain) == (33_000, 4.0) and result.picture == ""
    assert saved_controls(tmp_path) == Controls(focus_dioptres=2.5, exposure_us=33_000, gain=4.0)


def test_a_fixed_focus_camera_is_measured_and_told_to_turn_its_lens(tmp_path: Path) -> None:
    result = calibrate(Adjustable(can_focus=False), tmp_path, say=lambda _: None)
    assert result.focus_dioptres is None and result.sharpness > 0
    assert any("turn its lens" in note for note in result.notes)


def test_calibrate_without_the_mat_in_view_says_so(tmp_path: Path) -> None:
    camera = Adjustable()
    camera.scene = np.full_like(camera.scene, 128)
    with pytest.raises(CameraError, match="no mat marker seen"):
        calibrate(camera, tmp_path, say=lambda _: None)
    assert (tmp_path / PICTURE).exists()  # what it saw is kept, to look at
    assert not (tmp_path / CALIBRATION).exists()  # but nothing for companion run to set the camera from
    assert saved_controls(tmp_path) is None


@pytest.mark.parametrize(
    ("kept", "controls"),
    [
        ("[]", None),
        ('"x"', None),
        ('{"exposure_us": -5, "gain": 2.0, "focus_dioptres": 2.5}', Controls(focus_dioptres=2.5)),
        ('{"exposure_us": 20000, "gain": 1e9, "focus_dioptres": -40}', Controls(exposure_us=20000)),
    ],
)
def test_a_damaged_calibration_file_leaves_the_camera_automatic(
    tmp_path: Path, kept: str, controls: Controls | None
) -> None:
    """Only what a config could set itself is taken from the file; the rest stays automatic."""
    (tmp_path / CALIBRATION).write_text(kept, encoding="utf-8")
    assert saved_controls(tmp_path) == controls
