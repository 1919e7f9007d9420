"""One dice tray: a button, a vibration sensor, an RGB LED and a buzzer, as gpiozero parts.

The tray reports, it does not decide: how many times the button was pressed (debounced) and whether
the dice are still, rolling or settled, each asked at a given time. It shows the ``Light`` and plays
the ``Beeps`` it is given. Edges are stamped with the injected clock when gpiozero reports them (in
its own callback thread on a Pi, so a lock guards the timing state).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from gpiozero import RGBLED, Button, Buzzer, DigitalInputDevice

from companion.devices.config import TrayPins, TraysConfig
from companion.devices.signals import OFF_LIGHT, RGB, SILENT, Beeps, Light
from companion.devices.timing import STILL, ButtonDebouncer, SettleDetector

Clock = Callable[[], float]
# How often gpiozero's source thread redraws a blinking LED on the Pi (50 times a second).
REDRAW = 0.02


class DiceTray:
    def __init__(
        self,
        index: int,
        pins: TrayPins,
        pin_factory: Any,
        clock: Clock = time.monotonic,
        settle_after: float = 0.7,
        rolling_pulses: int = 2,
        min_press: float = 0.05,
        animate: bool = True,
    ) -> None:
        """``animate``: let gpiozero's background thread redraw the LED and buzzer from the clock
        (the Pi); without it, ``render(now)`` draws them (the tests, with a clock they set)."""
        self.index = index
        self.pins = pins
        self.clock = clock
        self.animate = animate
        self._lock = threading.Lock()
        self._debouncer = ButtonDebouncer(min_press)
        self._settle = SettleDetector(settle_after, rolling_pulses)
        self._light = Light(OFF_LIGHT)
        self._beeps = SILENT
        made: list[Any] = []  # closed again if a later part fails: its pin would stay taken
        try:
            # Pressed pulls the pin to ground against the internal pull-up. bounce_time stays
            # off: debouncing is ours (companion.devices.timing).
            self.button = Button(pins.button, pull_up=True, bounce_time=None, pin_factory=pin_factory)
            made.append(self.button)
            self.vibration: DigitalInputDevice | None = None
            if pins.vibration is not None:
                # The pull holds the pin at "still" while the module is unplugged.
                self.vibration = DigitalInputDevice(
                    pins.vibration, pull_up=not pins.vibration_active_high, pin_factory=pin_factory
                )
                made.append(self.vibration)
            self.led = RGBLED(
                *pins.led, active_high=not pins.led_common_anode, pwm=True, pin_factory=pin_factory
            )
            made.append(self.led)
            self.buzzer: Buzzer | None = None
            if pins.buzzer is not None:
                self.buzzer = Buzzer(pins.buzzer, pin_factory=pin_factory)
        except Exception:
            for part in made:
                part.close()
            raise
        self.button.when_activated = self._button_down
        self.button.when_deactivated = self._button_up
        if self.vibration is not None:
            self.vibration.when_activated = self._shaking
            self.vibration.when_deactivated = self._still
        if animate:
            self.led.source_delay = REDRAW
            self.led.source = self._colours()
            if self.buzzer is not None:
                self.buzzer.source_delay = REDRAW
                self.buzzer.source = self._sounds()

    @property
    def number(self) -> int:
        """How people call it: tray 1, tray 2."""
        return self.index + 1

    # --- what the tray reports ---------------------------------------------------------------

    def _button_down(self) -> None:
        with self._lock:
            self._debouncer.feed(self.clock(), True)

    def _button_up(self) -> None:
        with self._lock:
            self._debouncer.feed(self.clock(), False)

    def _shaking(self) -> None:
        with self._lock:
            self._settle.feed(self.clock(), True)

    def _still(self) -> None:
        with self._lock:
            self._settle.feed(self.clock(), False)

    def take_presses(self, now: float) -> int:
        """Debounced presses of the button since the last call."""
        with self._lock:
            return self._debouncer.take_presses(now)

    def motion(self, now: float) -> str:
        """``still``, ``rolling`` or ``settled`` (timing.py); always still without a sensor."""
        if self.vibration is None:
            return STILL
        with self._lock:
            return self._settle.state(now)

    def rearm(self, now: float) -> None:
        """Start afresh: forget the roll that settled and presses not yet taken."""
        with self._lock:
            self._settle.reset()
            self._debouncer.take_presses(now)

    # --- what the tray shows -----------------------------------------------------------------

    @property
    def light(self) -> Light:
        return self._light

    @property
    def beeps(self) -> Beeps:
        return self._beeps

    def show(self, light: Light, beeps: Beeps | None = None) -> None:
        self._light = light
        if beeps is not None:
            self._beeps = beeps

    def render(self, now: float) -> None:
        """Draw the light and the buzzer as they are at ``now`` (when not animated)."""
        if self.animate:
            return
        self.led.color = self._light.colour_at(now)
        if self.buzzer is not None:
            self.buzzer.value = self._beeps.sounding_at(now)

    def _colours(self) -> Iterator[RGB]:
        while True:
            yield self._light.colour_at(self.clock())

    def _sounds(self) -> Iterator[bool]:
        while True:
            yield self._beeps.sounding_at(self.clock())

    def close(self) -> None:
        for output in (self.led, self.buzzer):
            if output is not None:
                # stop the redrawing thread first: RGBLED.close lets its LEDs go before it stops
                # that thread, which may then set a colour on none (an IndexError in the thread)
                output.source = None
        for part in (self.led, self.buzzer, self.vibration, self.button):
            if part is not None:
                part.close()


def build_trays(
    config: TraysConfig, pin_factory: Any, clock: Clock = time.monotonic, animate: bool = True
) -> list[DiceTray]:
    """The configured trays on ``pin_factory`` (``companion.devices.pins.make_pin_factory``)."""
    trays: list[DiceTray] = []
    try:
        for index, pins in enumerate(config.trays):
            trays.append(
                DiceTray(
                    index,
                    pins,
                    pin_factory,
                    clock,
                    settle_after=config.settle_ms / 1000,
                    rolling_pulses=config.rolling_pulses,
                    min_press=config.press_ms / 1000,
                    animate=animate,
                )
            )
    except Exception:
        for tray in trays:  # give back the pins of the trays already made
            tray.close()
        raise
    return trays
