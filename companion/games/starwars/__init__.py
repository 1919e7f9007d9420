"""Carcassonne: Star Wars (2015): trade routes, asteroid fields, planets and dice battles.

Importing the package imports nothing else: its manifest (``manifest.py``) is read by the
registry without the engine.
"""
