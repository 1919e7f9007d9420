"""The one place that chooses how gpiozero reaches the pins.

Each tray's parts are given the factory made here, so nothing depends on gpiozero's global default
or on the GPIOZERO_PIN_FACTORY variable. lgpio is imported only when asked for: it exists only on a
Pi (and Linux boards like it), and the tests and the demo must run anywhere.
"""

from __future__ import annotations

from typing import Any

from companion.errors import UserError


def make_pin_factory(name: str) -> Any:
    """A gpiozero pin factory: "lgpio" for the Pi's real pins (the only one that works on a Pi 5),
    "mock" for gpiozero's MockFactory with PWM-capable pins (the RGB LED dims by PWM)."""
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    if name != "lgpio":
        raise UserError(f'unknown pin factory "{name}": use "lgpio" on a Pi, "mock" anywhere else')
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError as error:
        raise UserError(
            f"the lgpio pin library is missing ({error}): on Raspberry Pi OS, `sudo apt install "
            'python3-lgpio` and make the virtualenv with --system-site-packages, or set pin_factory = "mock"'
        ) from error
    try:
        return LGPIOFactory()
    except Exception as error:  # lgpio raises its own error type when no gpiochip can be opened
        raise UserError(
            f"cannot open the GPIO pins with lgpio ({error}): is this a Raspberry Pi, and may this "
            "user open /dev/gpiochip* (the gpio group)?"
        ) from error
