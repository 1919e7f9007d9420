"""Carcassonne: Star Wars (2015): trade routes, asteroid fields, planets and dice battles."""

from companion.games.starwars.engine import StarWarsGame

__all__ = ["StarWarsGame"]
