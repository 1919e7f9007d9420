"""Carcassonne: The Castle (docs/castle.md): two players, tiles laid inside the castle walls on the
shared Carcassonne core, majorities where a tie scores nothing, wall tiles and the keep."""
