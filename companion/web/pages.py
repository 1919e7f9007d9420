"""The phone pages: scoreboard, timeline, a score's evidence, setup, corrections, past games, joining."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template, send_file
from werkzeug.wrappers import Response

from companion.games import GAMES
from companion.games.base import FormatError
from companion.games.starwars.setup import COLOURS, VARIANTS
from companion.games.starwars.tiles import parse_tile
from companion.web.api import csrf_token, web
from companion.web.join import qr_svg
from companion.web.net import ALL_INTERFACES, is_loopback

pages = Blueprint("pages", __name__)
GAME_TITLES = {
    "starwars": "Carcassonne: Star Wars",
    "castle": "Carcassonne: The Castle",
    "dicegame": "Carcassonne: The Dice Game",
    "gaia": "Gaia",
    "stars": "Among the Stars",
}


def page(template: str, **values: Any) -> str:
    context = web()
    return render_template(
        template,
        state=context.table.state(),
        csrf=csrf_token(),
        join_url=context.join_urls[0] if context.join_urls else None,
        mdns_name=context.mdns_name,
        **values,
    )


@pages.get("/")
def scoreboard() -> str:
    return page("scoreboard.html")


@pages.get("/timeline")
def timeline() -> str:
    return page("timeline.html", items=web().table.timeline())


@pages.get("/scores/<int:index>")
def score(index: int) -> str:
    view = web().table.score_view(index)
    if view is None:
        abort(404, f"There is no score number {index} in this game.")
    return page("score.html", view=view)


@pages.get("/setup")
def setup() -> str:
    games = [{"id": g, "title": GAME_TITLES[g], "ready": GAMES[g] is not None} for g in GAMES]
    return page("setup.html", games=games, colours=COLOURS, variants=VARIANTS)


@pages.get("/fix")
def fix() -> str:
    state = web().table.state()
    # the tile asked about is the next one: its player's (the last player may still be placing
    # a meeple, so not ``turn_of``); the start tile is no one's. No game, or one over: nothing
    # a tap could enter.
    player = None if state.get("phase") == "start" else state.get("next_player")
    playing = state.get("game") is not None and not state.get("finished")
    asks = [_ask(ask, player) for ask in state["camera"].get("asks", [])] if playing else []
    return page("fix.html", events=web().table.events(), asks=asks)


def _ask(ask: dict[str, Any], player: str | None) -> dict[str, Any]:
    """A camera question about one tile, with each choice put in words for its button."""
    choices = []
    for tile in ask.get("choices", []):
        try:
            text = parse_tile(tile, "a choice").describe()
        except FormatError:  # the camera's own tiles parse; a stranger's is left out, not shown
            continue
        choices.append({"tile": tile, "text": text})
    return {"message": ask["message"], "at": ask["cells"][0], "choices": choices, "player": player}


@pages.get("/games")
def games() -> str:
    live = web().table.live
    return page(
        "games.html", games=web().table.games(), titles=GAME_TITLES, current=live.game_id if live else None
    )


@pages.get("/join")
def join() -> str:
    context = web()
    url = context.join_urls[0] if context.join_urls else None
    if url is not None and is_loopback(url):
        # A phone that opens 127.0.0.1 opens itself: no QR to scan in vain, but why and what to do.
        # Listening everywhere and still showing loopback means no network address was found.
        reason = "no network" if context.host in ALL_INTERFACES else "this machine only"
        return page("join.html", qr=None, unreachable=reason)
    return page("join.html", qr=qr_svg(url) if url else None, unreachable=None)


@pages.get("/evidence/<path:relative>")
def evidence(relative: str) -> Response:
    found = web().table.store.evidence_file(f"evidence/{relative}")
    if found is None:
        abort(404, "No such evidence image.")
    return send_file(found, max_age=3600)
