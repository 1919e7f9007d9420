"""The trays' pin map and timing, from a plain dict (a ``[trays]`` TOML section once read).

Every problem names the key it is about, so a typo in the config is found at start-up, not at the
first battle.

    [trays]
    pin_factory = "lgpio"          # "lgpio" on a Pi 5 (and 4); "mock" anywhere else
    settle_ms = 700                # dice still this long after shaking: settled
    press_ms = 50                  # a button press must last this long to count
    [[trays.tray]]
    button = 17
    vibration = 27                 # optional: without it, the button alone says "read now"
    led = [5, 6, 13]               # red, green, blue legs
    buzzer = 19                    # optional
    colour = "red"                 # optional: the seat of the player of that colour
    region = [40, 600, 320, 240]   # where the tray lies in the camera's picture: x, y, width, height
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.errors import UserError, refuse_unknown_keys

# BCM pins that the header exposes as plain GPIO.
HEADER_PINS = range(2, 28)
# Pins whose other job the companion may need; a tray must not take them. (The Pi camera has its
# own CSI connector and needs none of the header pins.)
RESERVED_PINS = {
    0: "the HAT EEPROM's I2C (ID_SD)",
    1: "the HAT EEPROM's I2C (ID_SC)",
    2: "I2C SDA",
    3: "I2C SCL",
    7: "SPI0 CE1",
    8: "SPI0 CE0",
    9: "SPI0 MISO",
    10: "SPI0 MOSI",
    11: "SPI0 SCLK",
    14: "the serial console's TX",
    15: "the serial console's RX",
}
PIN_FACTORIES = ("lgpio", "mock")
# The player colours a tray may be the seat of (every game's colours so far).
SEAT_COLOURS = ("red", "green", "black", "white", "orange")
TRAY_KEYS = (
    "button",
    "vibration",
    "led",
    "buzzer",
    "colour",
    "vibration_active_high",
    "led_common_anode",
    "region",
)
TRAYS_KEYS = ("pin_factory", "settle_ms", "rolling_pulses", "press_ms", "tray")


class TrayConfigError(UserError):
    """The ``[trays]`` section is wrong; the message names the key."""


@dataclass(frozen=True)
class TrayPins:
    button: int
    led: tuple[int, int, int]  # red, green, blue
    vibration: int | None = None
    buzzer: int | None = None
    colour: str | None = None  # the player colour whose seat this tray is, if it has one
    # A SW-420 module's output goes high while it shakes; some boards are wired the other way.
    vibration_active_high: bool = True
    # A common-anode LED lights when its legs are pulled low.
    led_common_anode: bool = False
    # Where the tray lies in the dice camera's picture (the overhead camera's, unless the config
    # has a [dice_camera]): x, y, width, height in pixels. None: the whole picture is this tray.
    region: tuple[int, int, int, int] | None = None

    def pins(self) -> list[int]:
        optional = [pin for pin in (self.vibration, self.buzzer) if pin is not None]
        return [self.button, *self.led, *optional]


@dataclass(frozen=True)
class TraysConfig:
    trays: tuple[TrayPins, ...]
    pin_factory: str = "lgpio"
    settle_ms: int = 700
    rolling_pulses: int = 2  # vibration pulses close together that mean dice, not a knock
    press_ms: int = 50


def _pin(value: Any, key: str) -> int:
    # bool is an int in Python; "button = true" is a typo, not pin 1.
    if not isinstance(value, int) or isinstance(value, bool):
        raise TrayConfigError(f"{key} must be a BCM pin number, not {value!r}")
    if value in RESERVED_PINS:
        raise TrayConfigError(
            f"{key} = {value}: BCM {value} is kept for {RESERVED_PINS[value]}; choose another pin"
        )
    if value not in HEADER_PINS:
        raise TrayConfigError(f"{key} = {value}: the header's GPIO pins are BCM 2 to 27")
    return value


def _whole(section: Mapping[str, Any], key: str, default: int, low: int, high: int, where: str) -> int:
    value = section.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise TrayConfigError(f"{where}.{key} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _flag(section: Mapping[str, Any], key: str, default: bool, where: str) -> bool:
    value = section.get(key, default)
    if not isinstance(value, bool):
        raise TrayConfigError(f"{where}.{key} must be true or false, not {value!r}")
    return value


# What each key a tray cannot do without is, said when it is missing.
REQUIRED_TRAY_KEYS = {
    "button": "the GPIO (BCM) pin of the tray's button, for example button = 17 (hardware/wiring.md)",
    "led": "the GPIO (BCM) pins of the tray's LED, its red, green and blue legs, for example "
    "led = [5, 6, 13] (hardware/wiring.md)",
}


def _tray(section: Any, where: str) -> TrayPins:
    if not isinstance(section, Mapping):
        raise TrayConfigError(f"{where} must be a table of pins, not {section!r}")
    refuse_unknown_keys(section, TRAY_KEYS, f"{where}.", TrayConfigError)
    for key, wanted in REQUIRED_TRAY_KEYS.items():
        if key not in section:
            raise TrayConfigError(f"{where}.{key} is missing: {wanted}")
    led = section["led"]
    if not isinstance(led, list | tuple) or len(led) != 3:
        raise TrayConfigError(f"{where}.led must be three pins [red, green, blue], not {led!r}")
    colour = section.get("colour")
    if colour is not None and colour not in SEAT_COLOURS:
        raise TrayConfigError(f"{where}.colour must be one of {', '.join(SEAT_COLOURS)}, not {colour!r}")
    red, green, blue = (_pin(pin, f"{where}.led[{leg}]") for leg, pin in enumerate(led))
    optional = {
        key: None if section.get(key) is None else _pin(section[key], f"{where}.{key}")
        for key in ("vibration", "buzzer")
    }
    return TrayPins(
        button=_pin(section["button"], f"{where}.button"),
        led=(red, green, blue),
        vibration=optional["vibration"],
        buzzer=optional["buzzer"],
        colour=colour,
        vibration_active_high=_flag(section, "vibration_active_high", True, where),
        led_common_anode=_flag(section, "led_common_anode", False, where),
        region=_region(section.get("region"), f"{where}.region"),
    )


def _region(value: Any, key: str) -> tuple[int, int, int, int] | None:
    if value is None:
        return None
    if (
        not isinstance(value, list | tuple)
        or len(value) != 4
        or any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in value)
        or value[2] < 32
        or value[3] < 32
    ):
        raise TrayConfigError(
            f"{key} must be [x, y, width, height] in pixels of the camera's picture "
            f"(whole numbers, at least 32 wide and high), not {value!r}"
        )
    x, y, width, height = value
    return (x, y, width, height)


def trays_config(section: Mapping[str, Any]) -> TraysConfig:
    """Check a ``[trays]`` section given as a dict; raises TrayConfigError naming the bad key."""
    if not isinstance(section, Mapping):
        raise TrayConfigError(f"[trays] must be a table, not {section!r}")
    refuse_unknown_keys(section, TRAYS_KEYS, "trays.", TrayConfigError)
    factory = section.get("pin_factory", "lgpio")
    if factory not in PIN_FACTORIES:
        raise TrayConfigError(f"trays.pin_factory must be one of {', '.join(PIN_FACTORIES)}, not {factory!r}")
    listed = section.get("tray", [])
    if not isinstance(listed, list) or not listed:
        raise TrayConfigError("trays.tray must list at least one tray ([[trays.tray]] with its pins)")
    trays = tuple(_tray(entry, f"trays.tray[{index}]") for index, entry in enumerate(listed))
    used: dict[int, str] = {}
    for index, tray in enumerate(trays):
        for pin in tray.pins():
            if pin in used:
                other = used[pin]
                where = f"trays.tray[{index}]"
                raise TrayConfigError(
                    f"{where} uses BCM {pin} twice"
                    if other == where
                    else f"{where} uses BCM {pin}, which {other} uses already"
                )
            used[pin] = f"trays.tray[{index}]"
    seats = [tray.colour for tray in trays if tray.colour is not None]
    for colour in seats:
        if seats.count(colour) > 1:
            raise TrayConfigError(
                f'two trays are the seat of colour "{colour}": each trays.tray[].colour may appear once'
            )
    return TraysConfig(
        trays=trays,
        pin_factory=factory,
        settle_ms=_whole(section, "settle_ms", 700, 100, 10_000, "trays"),
        rolling_pulses=_whole(section, "rolling_pulses", 2, 1, 50, "trays"),
        press_ms=_whole(section, "press_ms", 50, 5, 2_000, "trays"),
    )
