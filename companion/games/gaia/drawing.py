"""The land as an SVG picture for a score's page: tiles in their terrain's colour, animals,
cities with each need met or not, and the players' pawns; the cells a score names outlined."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from companion.games.base import Cell

if TYPE_CHECKING:
    from companion.games.gaia.engine import GaiaGame

SIZE = 64  # pixels a cell
TERRAIN_COLOURS = {
    "plains": "#cfe08a",
    "forest": "#3f8a3a",
    "sea": "#4f8fd8",
    "desert": "#e6c36e",
    "mountain": "#9a9a9a",
    "swamp": "#6f7f52",
}
PAWN_COLOURS = {
    "yellow": "#f2c200",
    "blue": "#1e63d6",
    "white": "#f7f7f7",
    "green": "#2e9d3a",
    "red": "#d23a2a",
}
NEED_LETTERS = {
    "plains": "Pl",
    "forest": "Fo",
    "sea": "Se",
    "desert": "De",
    "mountain": "Mo",
    "swamp": "Sw",
    "animals": "An",
    "star": "★",
}


def land_svg(game: GaiaGame, highlight: Sequence[Cell] = ()) -> str | None:
    land = game.land
    if not land.tiles:
        return None
    colour_of = {p.name: p.color or "" for p in game.players}
    xs = [c[0] for c in land.tiles]
    ys = [c[1] for c in land.tiles]
    left, top = min(xs), min(ys)
    width, height = (max(xs) - left + 1) * SIZE, (max(ys) - top + 1) * SIZE
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="The land">'
    ]
    for (x, y), terrain in sorted(land.tiles.items()):
        px, py = (x - left) * SIZE, (y - top) * SIZE
        parts.append(
            f'<rect x="{px}" y="{py}" width="{SIZE}" height="{SIZE}" fill="{TERRAIN_COLOURS[terrain]}" '
            'stroke="#333" stroke-width="1"/>'
        )
        parts.append(f'<text x="{px + 3}" y="{py + 11}" font-size="9" fill="#111">{x},{y} {terrain}</text>')
        animals = land.animals.get((x, y), 0)
        if animals:
            parts.append(
                f'<circle cx="{px + SIZE / 2}" cy="{py + SIZE / 2 + 4}" r="12" fill="#8b5a2b"/>'
                f'<text x="{px + SIZE / 2}" y="{py + SIZE / 2 + 9}" font-size="13" fill="#fff" '
                f'text-anchor="middle">{animals}</text>'
            )
        city = land.cities.get((x, y))
        if city is not None:
            parts.append(
                f'<rect x="{px + 6}" y="{py + 14}" width="{SIZE - 12}" height="{SIZE - 20}" rx="5" '
                'fill="#fff" stroke="#222"/>'
            )
            for index, (need, met) in enumerate(zip(city.needs, city.met, strict=True)):
                nx = px + 9 + index * 12
                fill = "#1b7f2a" if met else "#fff"
                ink = "#fff" if met else "#b00"
                parts.append(
                    f'<rect x="{nx}" y="{py + 17}" width="11" height="12" fill="{fill}" stroke="#555"/>'
                    f'<text x="{nx + 5.5}" y="{py + 26}" font-size="7" fill="{ink}" '
                    f'text-anchor="middle">{escape(NEED_LETTERS[need])}</text>'
                )
            pawns = [colour_of[name] for name, count in city.pawns.items() for _ in range(count)]
            for index, colour in enumerate(pawns):
                parts.append(
                    f'<circle cx="{px + 14 + index * 12}" cy="{py + 42}" r="5" '
                    f'fill="{PAWN_COLOURS.get(colour, "#000")}" stroke="#000"/>'
                )
    for x, y in highlight:
        if (x, y) in land.tiles or (x, y) in land.cities:
            px, py = (x - left) * SIZE, (y - top) * SIZE
            parts.append(
                f'<rect x="{px + 2}" y="{py + 2}" width="{SIZE - 4}" height="{SIZE - 4}" fill="none" '
                'stroke="#e0218a" stroke-width="4"/>'
            )
    parts.append("</svg>")
    return "".join(parts)
