"""Gaia: land tiles, animals and cities; the first to place all their pawns wins.

The rules are seed 002 of the shared rules texts, read through the Gaia record contract
(shared/spec/gaia.md); docs/gaia.md says how the companion plays them.
"""
