"""What a tray shows and sounds, as patterns in time: pure functions of the clock.

A pattern is started at a moment (``since``) and asked for its colour, or whether the buzzer
sounds, at any later moment. The same function drives the LED from gpiozero's background source
thread on the Pi and is asked at chosen times in the tests, so "blinking three times" can be
checked without waiting for it.
"""

from __future__ import annotations

from dataclasses import dataclass

RGB = tuple[float, float, float]
OFF: RGB = (0.0, 0.0, 0.0)
GREEN: RGB = (0.0, 1.0, 0.0)
RED: RGB = (1.0, 0.0, 0.0)
WHITE: RGB = (1.0, 1.0, 1.0)

# Waiting: the colour blinks once per die, then a pause, so "blink blink, pause" is two dice.
BLINK_ON = 0.25
BLINK_OFF = 0.25
COUNT_PAUSE = 1.25
# Rolling: the colour breathes (a slow triangle of brightness) while the dice tumble.
BREATH = 1.0
BREATH_FLOOR = 0.2
# A problem: red and white swap fast, a look no player colour and no other state has.
PROBLEM_HALF = 0.15

OFF_LIGHT = "off"
WAITING = "waiting"
ROLLING = "rolling"
READ = "read"
PROBLEM = "problem"


@dataclass(frozen=True)
class Light:
    kind: str  # off, waiting, rolling, read, problem
    colour: RGB = OFF  # the fighter's colour, for waiting and rolling
    count: int = 0  # dice to roll, for waiting
    since: float = 0.0

    def colour_at(self, now: float) -> RGB:
        elapsed = max(0.0, now - self.since)
        if self.kind == WAITING:
            blinks = self.count * (BLINK_ON + BLINK_OFF)
            phase = elapsed % (blinks + COUNT_PAUSE)
            lit = phase < blinks and phase % (BLINK_ON + BLINK_OFF) < BLINK_ON
            return self.colour if lit else OFF
        if self.kind == ROLLING:
            rise = (elapsed % BREATH) / BREATH
            level = BREATH_FLOOR + (1 - BREATH_FLOOR) * (1 - abs(2 * rise - 1))
            r, g, b = self.colour
            return (r * level, g * level, b * level)
        if self.kind == READ:
            return GREEN
        if self.kind == PROBLEM:
            return RED if int(elapsed / PROBLEM_HALF) % 2 == 0 else WHITE
        return OFF


# Buzzer: short beeps, one per die, when a tray starts waiting; one short on a good read; one long
# on a problem. Never repeated: a tray that keeps beeping is a tray people unplug.
BEEP = 0.08
BEEP_GAP = 0.15
LONG_BEEP = 0.6


@dataclass(frozen=True)
class Beeps:
    count: int = 0
    length: float = BEEP
    since: float = 0.0

    def sounding_at(self, now: float) -> bool:
        elapsed = now - self.since
        if elapsed < 0 or elapsed >= self.count * (self.length + BEEP_GAP):
            return False
        return elapsed % (self.length + BEEP_GAP) < self.length

    def over_at(self, now: float) -> bool:
        return now - self.since >= self.count * (self.length + BEEP_GAP)


SILENT = Beeps()
