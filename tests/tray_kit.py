"""Helpers for the tray tests: a clock the test sets, hands that press and shake trays on
gpiozero's mock pins, and what a tray's LED shows, read back from those pins."""

from __future__ import annotations

from typing import Any

from companion.devices.signals import BLINK_OFF, BLINK_ON, COUNT_PAUSE, RGB
from companion.devices.tray import DiceTray


class FakeClock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


class Hands:
    """Presses and shakes trays the way people do, through the mock pins, in the clock's time."""

    def __init__(self, factory: Any, clock: FakeClock) -> None:
        self.factory = factory
        self.clock = clock

    def pin(self, number: int) -> Any:
        return self.factory.pin(number)

    def press(self, tray: DiceTray, bounces: int = 3, hold: float = 0.12) -> None:
        """A press that chatters (2 ms edges) on the way down and up, held ``hold`` seconds."""
        pin = self.pin(tray.pins.button)
        for _ in range(bounces):
            pin.drive_low()
            self.clock.advance(0.002)
            pin.drive_high()
            self.clock.advance(0.002)
        pin.drive_low()
        self.clock.advance(hold)
        for _ in range(bounces):
            pin.drive_high()
            self.clock.advance(0.002)
            pin.drive_low()
            self.clock.advance(0.002)
        pin.drive_high()

    def shake(self, tray: DiceTray, pulses: int = 6) -> None:
        """Dice tumbling: the vibration sensor's output pulses (30 ms on, 70 ms off)."""
        assert tray.pins.vibration is not None
        pin = self.pin(tray.pins.vibration)
        for _ in range(pulses):
            pin.drive_high()
            self.clock.advance(0.03)
            pin.drive_low()
            self.clock.advance(0.07)


def led_colour(factory: Any, tray: DiceTray) -> RGB:
    """What the LED's three legs show now, from the mock pins (a common-cathode LED)."""
    red, green, blue = (float(factory.pin(n).state) for n in tray.pins.led)
    return (red, green, blue)


def blinks(factory: Any, tray: DiceTray, step: float = 0.05) -> list[RGB]:
    """The colours the LED lights up in, once per blink, over one cycle of its waiting light
    (a blink per die, then the pause), read from the pins as the battle flow draws them."""
    start = tray.light.since
    seconds = tray.light.count * (BLINK_ON + BLINK_OFF) + COUNT_PAUSE
    seen: list[RGB] = []
    was_lit = False
    for i in range(int(seconds / step)):
        tray.render(start + i * step + step / 2)
        colour = led_colour(factory, tray)
        lit = any(c > 0 for c in colour)
        if lit and not was_lit:
            seen.append(colour)
        was_lit = lit
    return seen
