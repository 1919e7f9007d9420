"""Table Companion: keeps score of physical board games from a camera and dice trays."""

__version__ = "0.1.0"
