"""Debounce and settle timing: pure logic fed (time, level) edges, asked at a given time.

gpiozero's ``bounce_time`` is left off: it is done by the pin library, differs between pin
factories, and MockFactory does not simulate it. Here the same code runs on the Pi and in the tests,
with the clock handed in, so a test can say "50 ms later" without sleeping.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ButtonDebouncer:
    """Counts presses of a bouncing button.

    The contacts of a cheap tactile switch chatter for a few milliseconds when they close or open.
    A level counts only once it has held for ``min_press`` seconds, so the chatter, and a press
    shorter than that (a brush of the hand), count as nothing.
    """

    min_press: float = 0.05
    _raw: bool = False  # the level last seen on the pin
    _raw_since: float = 0.0
    _stable: bool = False  # the level that has held long enough to believe
    _presses: int = 0

    def feed(self, now: float, pressed: bool) -> None:
        """An edge: the pin went to ``pressed`` at ``now``."""
        self._settle(now)
        if pressed != self._raw:
            self._raw = pressed
            self._raw_since = now

    def take_presses(self, now: float) -> int:
        """How many presses have counted since the last call."""
        self._settle(now)
        presses, self._presses = self._presses, 0
        return presses

    @property
    def held(self) -> bool:
        return self._stable

    def _settle(self, now: float) -> None:
        if self._raw != self._stable and now - self._raw_since >= self.min_press:
            self._stable = self._raw
            if self._stable:
                self._presses += 1


STILL = "still"  # nothing has shaken the tray since it was last reset
ROLLING = "rolling"  # dice are tumbling
SETTLED = "settled"  # they were tumbling and have been still for ``settle_after``


@dataclass
class SettleDetector:
    """Rolling, then settled, from the pulses of a vibration sensor (a SW-420 module).

    The module's output goes active for as long as its spring switch shakes. Dice produce a burst
    of pulses; a single pulse is more likely a knock on the table, so ``rolling_pulses`` pulses
    within ``burst_window`` seconds are needed to call it rolling. Settled is then
    ``settle_after`` seconds with the output inactive.
    """

    settle_after: float = 0.7
    rolling_pulses: int = 2
    burst_window: float = 0.5
    _active: bool = False
    _last_activity: float = 0.0  # when the output was last seen active
    _pulse_times: tuple[float, ...] = ()  # recent pulse starts, within the burst window
    _rolling: bool = False

    def feed(self, now: float, active: bool) -> None:
        """An edge: the sensor's output became ``active`` (shaking) or inactive at ``now``."""
        if active == self._active:
            return
        self._active = active
        self._last_activity = now
        if active:
            recent = tuple(t for t in self._pulse_times if now - t <= self.burst_window)
            self._pulse_times = (*recent, now)
            if len(self._pulse_times) >= self.rolling_pulses:
                self._rolling = True

    def state(self, now: float) -> str:
        if not self._rolling:
            return STILL
        if self._active or now - self._last_activity < self.settle_after:
            return ROLLING
        return SETTLED

    def reset(self) -> None:
        """Forget what shook the tray: the next settle is a new roll. The output's level is kept,
        since the pin reports only changes."""
        self._pulse_times = ()
        self._rolling = False
