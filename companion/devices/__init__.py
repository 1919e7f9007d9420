"""Devices on the Pi's pins: the dice trays, built from gpiozero parts.

Nothing here knows a game. A tray reports what its button and vibration sensor did and shows the
light and the beeps it is told to; ``companion.table.trays`` decides what they mean for a battle.
"""
