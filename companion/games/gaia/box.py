"""Our approximation of the Gaia box (``box.json``), for the simulator only: the split of the
decks, the city cards' needs and the objectives are not public, so the file says it made them up."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from companion.games.gaia.events import CityCard
from companion.games.gaia.setup import Objective

BOX_FILE = Path(__file__).with_name("box.json")


@dataclass(frozen=True)
class Box:
    nature: tuple[str, ...]  # every Nature card, by the terrain it shows
    animals: tuple[str, ...]  # every animal Life card, by its icon
    cities: tuple[CityCard, ...]  # every city Life card
    objectives: tuple[Objective, ...]
    objectives_laid: int
    market: dict[str, int]  # face-up cards of each kind
    deal: dict[str, int]  # cards of each kind dealt to each player


@cache
def load_box() -> Box:
    raw = json.loads(BOX_FILE.read_text(encoding="utf-8"))
    return Box(
        nature=tuple(t for t, count in raw["nature"].items() for _ in range(count)),
        animals=tuple(raw["animals"]),
        cities=tuple(CityCard(c["terrain"], tuple(c["needs"])) for c in raw["cities"]),
        objectives=tuple(Objective(o["id"], tuple(o["cards"])) for o in raw["objectives"]),
        objectives_laid=int(raw["objectives_laid"]),
        market=dict(raw["market"]),
        deal=dict(raw["deal"]),
    )
