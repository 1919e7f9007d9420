"""A game's manifest: everything the core needs to know about a game, readable without its engine.

Each game package has a ``manifest`` module holding ``MANIFEST``. It imports nothing heavy: the
engine, the simulator, the table reader and the models are reached through factories that
import them only when called. The games registry (``registry.py``) is the list of manifests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import TYPE_CHECKING, Any, Literal, Protocol

from companion.games.base import Game, Setup

if TYPE_CHECKING:
    from flask import Blueprint

    from companion.table.reader import ReaderMaker

# How a game's players are told apart at the table: by a colour from a fixed list, by any word
# the players choose, by a word they may leave out, or not at all (names only).
ColourRule = Literal["fixed", "free", "optional", "none"]


class Chance(Protocol):
    """What a simulated table holds beyond the record (the box, the deck, the dice): each step,
    the events that may come next and how much the table favours each."""

    def next(self, game: Game, rng: Random) -> tuple[Sequence[Any], Sequence[float] | None]:
        """The engine's legal events given what chance gives now (a tile drawn, dice thrown),
        with weights (None: all alike); nothing once the game can go no further."""
        ...


@dataclass(frozen=True)
class Simulated:
    """A simulated game: its setup, its events in order, and the engine that played them."""

    setup: Setup
    events: list[Any]
    game: Game
    summary: str = ""  # one line for a person: "76 tiles, 3 battles"


@dataclass(frozen=True)
class SimulatorKit:
    """How a game is simulated. ``setup`` seats the players; ``chance`` is the table's chance
    for the random player (None: the engine's legal events, chosen alike); ``play``, when the
    game has a player of its own (``players``, ``seed``, ``variant``, ``flags``), is used by
    ``companion simulate`` instead of the random player."""

    setup: Callable[[int, str, Random], Setup]
    chance: Callable[[Setup, Random], Chance] | None = None
    play: Callable[[int, int, str, frozenset[str]], Simulated] | None = None


@dataclass(frozen=True)
class Manifest:
    name: str  # the record header's "game"
    title: str
    players: tuple[int, int]  # fewest, most
    colours: tuple[str, ...]  # the colours offered (the only ones allowed when ``colour_rule`` is fixed)
    colour_rule: ColourRule
    variants: tuple[str, ...]  # the first is the default
    events: tuple[str, ...]  # the record events of the game, "end" and "adjust" among them
    package: str  # the game's package: its page partials are in its ``templates`` folder
    engine: Callable[[], type[Game]]
    # How the game is won, in words, when it is not by points: "the first to place all their
    # pawns wins". None: the highest score wins.
    won_by: str | None = None
    score_word: str = "points"  # what a score counts, for a person: "points", "pawns placed"
    # each log entry's kind in words, for a player's breakdown ("route": "trade routes")
    score_kinds: Mapping[str, str] = field(default_factory=dict)
    # the game ends with the shared ``{"event": "end"}`` (the setup page's "End the game"); False
    # when its own end says more (who drew from an empty deck) and its pages enter it
    end_button: bool = True
    simulator: Callable[[], SimulatorKit] | None = None
    reader: Callable[[], ReaderMaker] | None = None  # the table reader: camera and trays to events
    pages: Callable[[], Blueprint] | None = None  # the game's own pages beyond its partials
    # the game's own commands: given ``companion``'s subcommands (argparse), adds its own
    commands: Callable[[], Callable[[Any], None]] | None = None
    models: str | None = None  # its folder under models/, when it has models
    # the files in that folder its table reader cannot start without (``companion doctor``)
    model_files: tuple[str, ...] = ()
    # flags ``companion simulate`` offers this game: name -> what it does
    sim_flags: Mapping[str, str] = field(default_factory=dict)
    log_lines: bool = False  # the contract puts the record line in each log entry
    # setup options offered on the phone: header key -> its default JSON value (the game's
    # setup partial draws them)
    setup_defaults: Mapping[str, Any] = field(default_factory=dict)

    @property
    def keeps_points(self) -> bool:
        return self.won_by is None

    def folder(self) -> Path:
        """The game package's folder (its partials are in ``templates``, its files in ``static``)."""
        import importlib

        module = importlib.import_module(self.package)
        files = getattr(module, "__file__", None)
        if files is None:
            raise RuntimeError(f"the game package {self.package} has no folder")
        return Path(files).parent

    def to_json(self) -> dict[str, Any]:
        """What the setup page and the API say of the game."""
        return {
            "name": self.name,
            "title": self.title,
            "players": list(self.players),
            "colours": list(self.colours),
            "colour_rule": self.colour_rule,
            "variants": list(self.variants),
            "won_by": self.won_by,
            "score_word": self.score_word,
            "events": list(self.events),
            "setup": dict(self.setup_defaults),
            "end_button": self.end_button,
        }
