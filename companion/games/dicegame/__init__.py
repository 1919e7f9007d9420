"""Carcassonne: The Dice Game: nine custom dice, a city laid from them each turn, 42 to win.

The rules are shared/seeds/003_d7713f9550f174cf.txt and the record contract shared/spec/dicegame.md;
docs/dicegame.md says how the companion plays them.
"""
