"""The companion's model files, installed with it as the package ``companion_models``.

One folder per game (``starwars/``: the cell, meeple and gallery models), and ``dice/`` for the
ordinary dice every game with pips dice throws. The code that makes them is in ``training/``,
which is not installed.
"""
