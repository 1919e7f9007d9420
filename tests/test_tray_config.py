"""The trays' pin map: a good section is read as written; each mistake is named by its key."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from companion.config import parse_config
from companion.devices.config import TrayConfigError, TrayPins, trays_config
from companion.errors import UserError

GOOD: dict[str, Any] = {
    "pin_factory": "mock",
    "settle_ms": 600,
    "tray": [
        {"button": 17, "vibration": 27, "led": [5, 6, 13], "buzzer": 19, "colour": "red"},
        {"button": 22, "led": [24, 25, 12]},
    ],
}


def test_a_good_section_is_read_as_written_with_defaults_for_the_rest() -> None:
    config = trays_config(GOOD)
    assert config.pin_factory == "mock"
    assert config.settle_ms == 600 and config.press_ms == 50 and config.rolling_pulses == 2
    assert config.trays[0] == TrayPins(button=17, led=(5, 6, 13), vibration=27, buzzer=19, colour="red")
    second = config.trays[1]
    assert (second.vibration, second.buzzer, second.colour) == (None, None, None)
    assert second.vibration_active_high and not second.led_common_anode


def changed(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """GOOD with one value changed (``...`` as the value deletes the key)."""
    section = copy.deepcopy(GOOD)
    where: Any = section
    for step in path[:-1]:
        where = where[step]
    if value is ...:
        del where[path[-1]]
    else:
        where[path[-1]] = value
    return section


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("tray", 0, "button"), ..., "trays.tray[0].button is missing"),
        (("tray", 1, "led"), [24, 25], "trays.tray[1].led must be three pins"),
        (("tray", 0, "button"), 2, "trays.tray[0].button = 2: BCM 2 is kept for I2C SDA"),
        (("tray", 0, "vibration"), 14, "trays.tray[0].vibration = 14: BCM 14 is kept for the serial"),
        (
            ("tray", 1, "led"),
            [24, 25, 40],
            "trays.tray[1].led[2] = 40: the header's GPIO pins are BCM 2 to 27",
        ),
        (("tray", 0, "buzzer"), True, "trays.tray[0].buzzer must be a BCM pin number, not True"),
        (("tray", 0, "buzzer"), "19", "trays.tray[0].buzzer must be a BCM pin number, not '19'"),
        (("tray", 1, "button"), 27, "trays.tray[1] uses BCM 27, which trays.tray[0] uses already"),
        (("tray", 1, "led"), [24, 24, 12], "trays.tray[1] uses BCM 24 twice"),
        (("tray", 0, "buton"), 17, 'trays.tray[0].buton: no such key; did you mean "button"?'),
        (("tray", 0, "colour"), "blue", "trays.tray[0].colour must be one of red, green"),
        (("tray", 1, "colour"), "red", 'two trays are the seat of colour "red"'),
        (("tray", 1, "led_common_anode"), "yes", "trays.tray[1].led_common_anode must be true or false"),
        (("pin_factory",), "pigpio", "trays.pin_factory must be one of lgpio, mock, not 'pigpio'"),
        (("settle_ms",), 5, "trays.settle_ms must be a whole number from 100 to 10000, not 5"),
        (("press_ms",), 0.05, "trays.press_ms must be a whole number from 5 to 2000"),
        (("tray",), [], "trays.tray must list at least one tray"),
        (("tray", 0), [17, 27], "trays.tray[0] must be a table of pins"),
        (("trays",), {}, 'trays.trays: no such key; did you mean "tray"?'),
    ],
)
def test_each_mistake_is_named_by_its_key(path: tuple[Any, ...], value: Any, message: str) -> None:
    with pytest.raises(TrayConfigError) as caught:
        trays_config(changed(path, value))
    assert message in str(caught.value)


def test_a_config_error_is_a_user_error_the_command_prints() -> None:
    with pytest.raises(UserError):
        trays_config({"tray": [{"led": [5, 6, 13]}]})


HARDWARE = Path(__file__).parent.parent / "hardware"


def test_the_reference_build_s_config_is_valid_and_matches_the_wiring_table() -> None:
    with (HARDWARE / "trays.toml").open("rb") as file:
        config = trays_config(tomllib.load(file)["trays"])
    assert config.pin_factory == "lgpio" and len(config.trays) == 2
    # wiring.md's pin map: "| line | tray 1 (BCM / header pin) | tray 2 ... |"
    table: dict[str, list[int]] = {}
    for line in (HARDWARE / "wiring.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        pins = [re.fullmatch(r"(\d+) / \d+", cell) for cell in cells[1:3]]
        if len(cells) >= 3 and all(pins):
            table[cells[0]] = [int(match.group(1)) for match in pins if match]
    for index, tray in enumerate(config.trays):
        assert table["button"][index] == tray.button
        assert table["vibration (SW-420 DO)"][index] == tray.vibration
        assert [table[f"LED {leg}"][index] for leg in ("red", "green", "blue")] == list(tray.led)
        assert table["buzzer (transistor base)"][index] == tray.buzzer


def test_the_recipe_s_section_is_accepted_by_companion_run() -> None:
    """docs/trays.md's example, as a user copies it into the config of `companion run`."""
    text = (HARDWARE.parent / "docs" / "trays.md").read_text(encoding="utf-8")
    found = re.search(r"```toml\n(.*?)```", text, re.S)
    assert found is not None
    snippet = "\n".join(line.removeprefix("   ") for line in found.group(1).splitlines())
    config = parse_config(tomllib.loads(snippet), "docs/trays.md")
    assert config.trays is not None and config.trays.trays[0].region == (40, 440, 320, 240)
