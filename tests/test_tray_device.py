"""One tray's gpiozero parts on MockFactory pins: presses, shaking, the LED and the buzzer,
and the one place that chooses the pin factory."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory, MockPWMPin
from tray_kit import FakeClock, Hands, led_colour

from companion.devices.config import TrayPins, trays_config
from companion.devices.pins import make_pin_factory
from companion.devices.signals import GREEN, OFF_LIGHT, READ, RED, WAITING, Beeps, Light
from companion.devices.timing import ROLLING, SETTLED, STILL
from companion.devices.tray import DiceTray, build_trays
from companion.errors import UserError

PINS = TrayPins(button=17, led=(5, 6, 13), vibration=27, buzzer=19)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def make_tray(factory: Any, clock: FakeClock, pins: TrayPins = PINS) -> DiceTray:
    return DiceTray(
        0, pins, factory, clock, settle_after=0.7, rolling_pulses=2, min_press=0.05, animate=False
    )


def test_the_mock_factory_has_pwm_pins_and_other_names_are_refused() -> None:
    made = make_pin_factory("mock")
    assert isinstance(made, MockFactory) and made.pin_class is MockPWMPin
    with pytest.raises(UserError, match='unknown pin factory "pigpio"'):
        make_pin_factory("pigpio")


def test_without_lgpio_the_message_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)  # as on a machine without lgpio
    with pytest.raises(UserError, match="python3-lgpio"):
        make_pin_factory("lgpio")


def test_importing_the_trays_never_imports_lgpio() -> None:
    code = "import sys, companion.devices.tray, companion.table.trays; print('lgpio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_chattering_press_on_the_pin_counts_once(factory: Any, clock: FakeClock) -> None:
    tray = make_tray(factory, clock)
    Hands(factory, clock).press(tray, bounces=4)
    assert tray.take_presses(clock()) == 1
    assert tray.take_presses(clock.advance(1.0)) == 0
    pin = factory.pin(17)
    pin.drive_low()
    clock.advance(0.02)  # a 20 ms touch
    pin.drive_high()
    assert tray.take_presses(clock.advance(1.0)) == 0
    tray.close()


def test_vibration_pulses_on_the_pin_are_rolling_then_settled(factory: Any, clock: FakeClock) -> None:
    tray = make_tray(factory, clock)
    assert tray.motion(clock()) == STILL
    Hands(factory, clock).shake(tray)
    assert tray.motion(clock()) == ROLLING
    assert tray.motion(clock.advance(0.5)) == ROLLING
    assert tray.motion(clock.advance(0.3)) == SETTLED
    tray.rearm(clock())
    assert tray.motion(clock()) == STILL
    tray.close()


def test_the_led_and_buzzer_show_what_they_are_told_at_a_given_time(factory: Any, clock: FakeClock) -> None:
    tray = make_tray(factory, clock)
    tray.show(Light(WAITING, RED, count=1, since=0.0), Beeps(2, 0.08, since=0.0))
    tray.render(0.05)
    assert led_colour(factory, tray) == RED and factory.pin(19).state
    tray.render(0.1)  # the LED still lit, the first beep over
    assert led_colour(factory, tray) == RED and not factory.pin(19).state
    tray.render(0.28)  # the second beep
    assert factory.pin(19).state
    tray.render(0.4)
    assert led_colour(factory, tray) == (0, 0, 0) and not factory.pin(19).state
    tray.show(Light(READ, since=1.0))
    tray.render(1.0)
    assert led_colour(factory, tray) == GREEN
    tray.close()


def test_a_common_anode_led_lights_with_its_legs_low(factory: Any, clock: FakeClock) -> None:
    pins = TrayPins(button=17, led=(5, 6, 13), led_common_anode=True)
    tray = make_tray(factory, clock, pins)
    tray.show(Light(READ, since=0.0))
    tray.render(0.0)
    assert [factory.pin(n).state for n in (5, 6, 13)] == [1, 0, 1]  # green leg low: lit
    tray.show(Light(OFF_LIGHT))
    tray.render(0.0)
    assert [factory.pin(n).state for n in (5, 6, 13)] == [1, 1, 1]
    tray.close()


def test_a_tray_without_a_vibration_sensor_is_always_still(factory: Any, clock: FakeClock) -> None:
    tray = make_tray(factory, clock, TrayPins(button=17, led=(5, 6, 13)))
    assert tray.vibration is None and tray.buzzer is None
    assert tray.motion(clock.advance(5)) == STILL
    tray.close()


def test_a_tray_that_cannot_be_built_gives_back_the_pins_it_took(factory: Any, clock: FakeClock) -> None:
    blocker = LED(13, pin_factory=factory)  # the blue leg is taken
    with pytest.raises(Exception, match="13"):
        make_tray(factory, clock)
    blocker.close()
    for pin in (17, 27, 5, 6):  # the button, the sensor, the red and green legs: free again
        LED(pin, pin_factory=factory).close()


def test_build_trays_makes_every_configured_tray_with_its_timing(factory: Any, clock: FakeClock) -> None:
    config = trays_config(
        {
            "pin_factory": "mock",
            "settle_ms": 900,
            "press_ms": 80,
            "tray": [{"button": 17, "vibration": 27, "led": [5, 6, 13]}, {"button": 22, "led": [24, 25, 12]}],
        }
    )
    trays = build_trays(config, factory, clock, animate=False)
    assert [t.number for t in trays] == [1, 2]
    hands = Hands(factory, clock)
    hands.shake(trays[0])
    assert trays[0].motion(clock.advance(0.75)) == ROLLING  # quiet 820 ms: 900 asked, not the default 700
    assert trays[0].motion(clock.advance(0.1)) == SETTLED
    hands.press(trays[1], hold=0.06)  # 60 ms: short of the 80 ms asked for
    assert trays[1].take_presses(clock.advance(1)) == 0
    for tray in trays:
        tray.close()


def test_on_the_pi_the_led_is_redrawn_by_gpiozero_s_own_thread(factory: Any) -> None:
    tray = DiceTray(0, PINS, factory, time.monotonic, animate=True)
    try:
        tray.show(Light(READ, since=time.monotonic()))
        deadline = time.monotonic() + 2.0
        while led_colour(factory, tray) != GREEN and time.monotonic() < deadline:
            time.sleep(0.01)
        assert led_colour(factory, tray) == GREEN
    finally:
        tray.close()
