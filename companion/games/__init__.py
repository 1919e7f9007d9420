"""The games: one package per game, each with its manifest; the interface they share is ``base``.

``registry`` finds the games; ``manifest`` says what a manifest holds; ``shared_events`` are the
record events every game has (``end``, ``adjust``); ``fields`` reads record objects strictly.
"""
