"""Among the Stars: four years of card drafting, each player building a space station
(shared/spec/stars.md). The registry finds the game through ``manifest.py``."""
