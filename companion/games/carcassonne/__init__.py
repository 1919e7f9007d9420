"""The Carcassonne core that the tile games share: tiles whose sides are cut into parts, the
board that joins their features into domains, the fit rules, and an optional fixed board shape.

It is a library, not a game (it has no ``manifest``): only game packages import it. A game
configures it with data: how many parts a side has and their names, which kinds must agree
across an edge, which kinds join, and where tiles may lie. Importing this package imports
nothing else, so the games registry can look past it cheaply.

- ``geometry``: sides, offsets, neighbours.
- ``rules``: ``TileRules``, the parts and the fit and join rules of one configuration.
- ``tiles``: ``Feature`` and ``Tile``, features touching parts, rotation.
- ``shape``: ``BoardShape`` and ``StartSegment``, a bounded board and what lies on its wall.
- ``board``: ``Board`` and ``Domain``, the union-find over features and the frontier.
"""
