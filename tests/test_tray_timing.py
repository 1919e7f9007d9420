"""Debounce, settle and the tray's light patterns: pure logic on a clock the test sets."""

from __future__ import annotations

import pytest

from companion.devices.signals import (
    GREEN,
    OFF,
    OFF_LIGHT,
    PROBLEM,
    READ,
    RED,
    ROLLING,
    WAITING,
    WHITE,
    Beeps,
    Light,
)
from companion.devices.timing import ROLLING as SHAKING
from companion.devices.timing import SETTLED, STILL, ButtonDebouncer, SettleDetector


def chatter(
    debouncer: ButtonDebouncer, start: float, final: bool, edges: int = 5, gap: float = 0.002
) -> float:
    """Contacts that bounce: ``edges`` edges (odd), ``gap`` apart, the last one to ``final``.
    Returns when the last edge came."""
    assert edges % 2 == 1
    t = start
    for i in range(edges):
        t = start + i * gap
        debouncer.feed(t, final if i % 2 == 0 else not final)
    return t


def test_a_bouncing_press_counts_once_and_only_after_it_has_held() -> None:
    button = ButtonDebouncer(min_press=0.05)
    rest = chatter(button, 1.0, True)
    assert button.take_presses(rest + 0.049) == 0  # not held long enough yet
    assert button.take_presses(rest + 0.051) == 1
    released = chatter(button, rest + 0.3, False)
    assert button.take_presses(released + 1.0) == 0  # the release and its chatter are no press
    assert not button.held


def test_a_press_shorter_than_the_minimum_is_nothing() -> None:
    button = ButtonDebouncer(min_press=0.05)
    button.feed(2.0, True)
    button.feed(2.03, False)  # a brush of the hand: 30 ms
    assert button.take_presses(5.0) == 0


def test_two_real_presses_count_two_even_when_asked_only_once() -> None:
    button = ButtonDebouncer(min_press=0.05)
    button.feed(0.0, True)
    button.feed(0.2, False)  # the release edge itself shows the press held 200 ms
    button.feed(0.5, True)
    button.feed(0.6, False)
    assert button.take_presses(0.7) == 2
    assert button.take_presses(0.8) == 0  # taken once


def pulses(detector: SettleDetector, times: list[float], width: float = 0.02) -> None:
    for t in times:
        detector.feed(t, True)
        detector.feed(t + width, False)


def test_dice_roll_then_settle_after_the_quiet_time() -> None:
    detector = SettleDetector(settle_after=0.7, rolling_pulses=2, burst_window=0.5)
    assert detector.state(0.0) == STILL
    pulses(detector, [1.0, 1.1, 1.25, 1.4])
    last_quiet = 1.42
    assert detector.state(1.3) == SHAKING
    assert detector.state(last_quiet + 0.69) == SHAKING
    assert detector.state(last_quiet + 0.71) == SETTLED


def test_a_single_knock_or_knocks_far_apart_are_not_a_roll() -> None:
    detector = SettleDetector(settle_after=0.7, rolling_pulses=2, burst_window=0.5)
    pulses(detector, [1.0])
    assert detector.state(1.01) == STILL
    pulses(detector, [2.0, 3.0])  # each alone in its window
    assert detector.state(5.0) == STILL


def test_a_sensor_held_active_is_still_rolling_however_long() -> None:
    detector = SettleDetector(settle_after=0.7, rolling_pulses=2)
    pulses(detector, [0.0])
    detector.feed(0.1, True)  # and it stays active
    assert detector.state(10.0) == SHAKING
    detector.feed(10.0, False)
    assert detector.state(10.5) == SHAKING
    assert detector.state(10.8) == SETTLED


def test_reset_forgets_the_roll_so_the_next_settle_is_a_new_one() -> None:
    detector = SettleDetector(settle_after=0.7, rolling_pulses=2)
    pulses(detector, [0.0, 0.1])
    assert detector.state(1.0) == SETTLED
    detector.reset()
    assert detector.state(1.0) == STILL
    pulses(detector, [2.0, 2.1])
    assert detector.state(2.5) == SHAKING
    assert detector.state(3.0) == SETTLED


def test_waiting_blinks_once_per_die_then_pauses_and_repeats() -> None:
    light = Light(WAITING, RED, count=2, since=10.0)
    # on 0-0.25, off 0.25-0.5, on 0.5-0.75, off, then the pause up to 2.25, then again
    samples = {10.1: RED, 10.35: OFF, 10.6: RED, 10.85: OFF, 11.5: OFF, 12.2: OFF, 12.35: RED, 12.85: RED}
    for t, colour in samples.items():
        assert light.colour_at(t) == colour, t
    three = Light(WAITING, RED, count=3, since=0.0)
    assert three.colour_at(1.1) == RED  # a third blink where two dice pause
    assert light.colour_at(11.1) == OFF


def test_rolling_breathes_in_the_fighter_colour_read_is_green_problem_is_red_and_white() -> None:
    rolling = Light(ROLLING, (0.0, 1.0, 0.0), since=0.0)
    low, high = rolling.colour_at(0.0), rolling.colour_at(0.5)
    assert low[1] == pytest.approx(0.2) and high[1] == pytest.approx(1.0) and low[0] == high[0] == 0
    assert Light(READ, since=0.0).colour_at(99.0) == GREEN
    problem = Light(PROBLEM, since=0.0)
    assert [problem.colour_at(t) for t in (0.05, 0.2, 0.35)] == [RED, WHITE, RED]
    assert Light(OFF_LIGHT).colour_at(3.0) == OFF


def test_beeps_sound_the_count_once_and_stop() -> None:
    beeps = Beeps(count=3, length=0.08, since=1.0)
    sounding = [t for t in (0.99, 1.04, 1.12, 1.27, 1.39, 1.5, 1.7, 5.0) if beeps.sounding_at(t)]
    assert sounding == [1.04, 1.27, 1.5]
    assert beeps.over_at(1.7) and not beeps.over_at(1.5)
