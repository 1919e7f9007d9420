"""The phone pages: scoreboard, timeline, a score's evidence, setup, corrections, past games, joining.

Each page is drawn once, by its template; the live parts of the scoreboard and the timeline are
drawn again by the same templates (``/parts/NAME``) whenever the game changes. What is a game's
own is drawn by that game's partials (``<game>/player.html``, ``score.html``, ``fix.html``,
``edit.html``, ``setup.html``, ``status.html``), with the defaults in ``web/templates/common/``.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template, request, send_file, send_from_directory
from werkzeug.wrappers import Response

from companion.games.base import FormatError
from companion.games.registry import manifest, manifests
from companion.web.api import csrf_token, joined, web
from companion.web.join import qr_svg
from companion.web.net import ALL_INTERFACES, is_loopback

pages = Blueprint("pages", __name__)
PARTS = ("scoreboard", "timeline")


def page(template: str, **values: Any) -> str:
    context = web()
    values.setdefault("joined", joined())
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


@pages.get("/parts/<name>")
def part(name: str) -> str:
    """A live part of a page, drawn by the same template as the page itself."""
    if name not in PARTS:
        abort(404, f"There is no live part called {name!r}.")
    items = web().table.timeline() if name == "timeline" else None
    return render_template(f"parts/{name}.html", state=web().table.state(), items=items)


@pages.get("/scores/<int:index>")
def score(index: int) -> str:
    view = web().table.score_view(index)
    if view is None:
        abort(404, f"There is no score number {index} in this game.")
    return page("score.html", view=view)


@pages.get("/setup")
def setup() -> str:
    games = manifests()
    wanted = request.args.get("game")
    live = web().table.live
    name = wanted or (live.setup.game if live is not None else games[0].name)
    try:
        chosen = manifest(name)
    except FormatError as error:
        abort(404, error.reason)
    fewest, most = chosen.players
    rows = max(fewest, min(3, most))  # three rows to start with, where the game allows
    under_way = manifest(live.setup.game) if live is not None else None
    # a game's setup partial may offer what its reader knows (the Dice Game: the enrolled dice)
    return page(
        "setup.html",
        games=games,
        chosen=chosen,
        rows=rows,
        under_way=under_way,
        attachments=web().attachments,
    )


@pages.get("/fix")
def fix() -> str:
    return page("fix.html", events=web().table.events(), entry=web().table.entry_view())


@pages.get("/games")
def games() -> str:
    live = web().table.live
    titles = {m.name: m.title for m in manifests()}
    return page(
        "games.html", games=web().table.results(), titles=titles, current=live.game_id if live else None
    )


@pages.get("/join")
def join() -> str:
    """Joining the table: the scoreboard's address as a QR code; how this phone joins (the
    table PIN, a player's invite, or as the first phone); and, on a phone that joined, the
    invite and the PIN to let the others join."""
    context = web()
    url = context.join_urls[0] if context.join_urls else None
    member = joined()
    offered = request.args.get("invite") or ""
    values: dict[str, Any] = {
        "joined": member,
        "first_join": not member and context.pairing.first_join_open(),
        "invited": offered if offered and not member and context.pairing.accepts(offered) else None,
        "bad_invite": bool(offered) and not member and not context.pairing.accepts(offered),
        "pin": context.pins.pin if member else None,
        "invite_qr": None,
        "invite_url": None,
    }
    if url is not None and is_loopback(url):
        # A phone that opens 127.0.0.1 opens itself: no QR to scan in vain, but why and what to do.
        # Listening everywhere and still showing loopback means no network address was found.
        reason = "no network" if context.host in ALL_INTERFACES else "this machine only"
        return page("join.html", qr=None, unreachable=reason, **values)
    if member and url is not None:
        invite = f"{url.rstrip('/')}/join?invite={context.pairing.invite().token}"
        values.update(invite_url=invite, invite_qr=qr_svg(invite))
    return page("join.html", qr=qr_svg(url) if url else None, unreachable=None, **values)


@pages.get("/evidence/<path:relative>")
def evidence(relative: str) -> Response:
    found = web().table.store.evidence_file(f"evidence/{relative}")
    if found is None:
        abort(404, "No such evidence image.")
    return send_file(found, max_age=3600)


@pages.get("/games/<name>/static/<path:filename>")
def game_static(name: str, filename: str) -> Response:
    """A game's own scripts and styles, from its package's ``static`` folder."""
    try:
        folder = manifest(name).folder() / "static"
    except FormatError:
        abort(404, f"There is no game {name!r} here.")
    return send_from_directory(folder, filename, max_age=300)
