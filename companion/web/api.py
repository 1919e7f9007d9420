"""The JSON API and the live stream of the scoreboard.

Reading is open; every POST needs the page's CSRF token and the table PIN. Mistakes get a 4xx
with a message a person can act on: 400 a malformed body, 401/403 no or a wrong PIN or token,
409 the game moved on since the page loaded, 422 an event the rules do not allow.
"""

from __future__ import annotations

import json
import queue
from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any, TypeVar, cast

from flask import Blueprint, Response, current_app, jsonify, request, session

from companion.games.base import RECORD_VERSION, FormatError, IllegalEvent, RecordError
from companion.games.fields import check_object
from companion.live.game import StaleView
from companion.live.table import NotRecorded
from companion.record import parse_json_text
from companion.web.context import WebContext
from companion.web.limits import REASON_CHARACTERS, player_names, short_text
from companion.web.security import CSRF_HEADER, PIN_HEADER, Refused, same

api = Blueprint("api", __name__, url_prefix="/api")
BASE_HEADER = "X-Base-Seq"
BASE_DIGITS = 10  # a journal entry number; more digits are no entry of a game
Handler = TypeVar("Handler", bound=Callable[..., Any])


def web() -> WebContext:
    return cast(WebContext, current_app.extensions["companion"])


def csrf_token() -> str:
    """This browser's CSRF token, kept in its signed session cookie."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = web().new_token()
        session["csrf"] = token
    return token


def problem(status: int, message: str) -> Response:
    response = jsonify({"error": status, "message": message})
    response.status_code = status
    return response


NOT_JOINED = (
    "this phone has not joined the table, so it cannot change the game: open Join (/join) and join "
    "with the table PIN, a player's invite, or as the first phone at the table"
)


def refused(error: Refused) -> Response:
    response = problem(error.status, error.message)
    if error.retry_after is not None:
        response.headers["Retry-After"] = str(error.retry_after)
    return response


def csrf_ok() -> bool:
    expected = session.get("csrf")
    offered = request.headers.get(CSRF_HEADER, "")
    return isinstance(expected, str) and bool(offered) and same(offered, expected)


def joined() -> bool:
    """Whether this phone joined the table (its signed session carries the table's mark)."""
    return web().pairing.is_member(session.get("joined"))


def guarded(handler: Handler) -> Handler:
    """Let a state-changing request through only with the page's CSRF token, from a phone that
    joined the table (or, for tools, with the table PIN in ``X-Table-PIN``)."""

    @wraps(handler)
    def check(*args: Any, **kwargs: Any) -> Any:
        if not csrf_ok():
            return problem(403, f"this request lacks the page's CSRF token ({CSRF_HEADER}): reload the page")
        pin = request.headers.get(PIN_HEADER)
        if pin is not None or not joined():
            if pin is None:
                return problem(401, NOT_JOINED)
            try:
                web().pins.check(request.remote_addr or "?", pin)
            except Refused as error:
                return refused(error)
        try:
            return handler(*args, **kwargs)
        except StaleView as stale:
            return problem(409, str(stale))
        except NotRecorded as unwritten:
            return problem(507, str(unwritten))
        except IllegalEvent as illegal:
            return problem(422, illegal.reason)
        except RecordError as bad:
            return problem(400, bad.reason)

    return cast(Handler, check)


def body() -> Any:
    """The request's JSON body, read as strictly as a record line."""
    try:
        text = request.get_data(as_text=False).decode("utf-8-sig")  # a BOM, as a record may have
    except UnicodeDecodeError:
        raise FormatError("the body is not UTF-8 text") from None
    if not text.strip():
        raise FormatError("the body is empty: send a JSON object")
    try:
        return parse_json_text(text)
    except ValueError as error:
        raise FormatError(
            f"the body {error}" if str(error).startswith("holds") else f"the body: {error}"
        ) from None


def base_seq() -> int | None:
    """``X-Base-Seq``: the journal entry the sender saw; a retry after a lost answer is then safe."""
    value = request.headers.get(BASE_HEADER)
    if value is None:
        return None
    if not (value.isascii() and value.isdigit()) or len(value) > BASE_DIGITS:
        shown = value if len(value) <= 40 else f"{value[:20]}... ({len(value)} characters)"
        raise FormatError(f"{BASE_HEADER} must be a journal entry number, not {shown!r}")
    return int(value)


def object_body() -> dict[str, Any]:
    value = body()
    if not isinstance(value, dict):
        raise FormatError("the body must be a JSON object")
    return value


# --- reading --------------------------------------------------------------------------------------


@api.get("/state")
def state() -> Response:
    return jsonify(web().table.state())


@api.get("/camera.jpg")
def camera_view() -> Response:
    """The latest rectified view of the mat with the readings drawn on it."""
    view = web().table.camera_view()
    if view is None:
        return problem(404, "no camera view yet: the camera has not read the mat")
    response = Response(view, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@api.get("/csrf")
def csrf() -> Response:
    return jsonify({"token": csrf_token(), "header": CSRF_HEADER, "pin_header": PIN_HEADER})


@api.get("/timeline")
def timeline() -> Response:
    return jsonify(web().table.timeline())


@api.get("/scores/<int:index>")
def score(index: int) -> Response:
    view = web().table.score_view(index)
    if view is None:
        return problem(404, f"there is no score number {index} in this game")
    return jsonify(view)


@api.get("/record")
def record() -> Response:
    if "game" in request.args:  # a past game has its own address; never answer with another game
        return problem(400, "this is the game under way's record; a past game's is /api/games/ID/record")
    text = web().table.record_text()
    if text is None:
        return problem(404, "no game yet: start one on the setup page")
    return _record_file(text, "game")


@api.get("/games")
def games() -> Response:
    return jsonify(
        [
            {
                "id": row.id,
                "game": row.game,
                "players": row.header.get("players", []),
                "variant": row.header.get("variant"),
                "started": row.started,
                "ended": row.ended,
                "entries": row.entries,
                "record": f"/api/games/{row.id}/record",
            }
            for row in web().table.games()
        ]
    )


@api.get("/games/<int:game_id>/record")
def game_record(game_id: int) -> Response:
    text = web().table.record_text(game_id)
    if text is None:
        return problem(404, f"there is no game {game_id}")
    return _record_file(text, f"game-{game_id}")


def _record_file(text: str, name: str) -> Response:
    response = Response(text, mimetype="application/jsonl")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}.jsonl"'
    return response


@api.get("/events")
def events() -> Response:
    """Server-Sent Events: the whole state now, then again after every change."""
    context = web()
    client = request.remote_addr or "?"
    if context.table.broadcast.count(client) >= context.max_streams_per_client:
        return problem(503, "this device has too many scoreboards open; close some tabs")
    if context.table.broadcast.count() >= context.max_streams:
        return problem(503, "too many scoreboards are open at once; close one and try again")
    inbox = context.table.broadcast.subscribe(client)  # before reading the state: nothing is missed
    first = json.dumps(context.table.state(), ensure_ascii=False)
    # waitress tells a stream its phone has gone (it reads ahead on the socket); without it a
    # stream learns so only when a write fails, holding its thread meanwhile.
    gone = request.environ.get("waitress.client_disconnected", lambda: False)

    def stream() -> Iterator[str]:
        try:
            yield "retry: 2000\n\n"
            yield f"event: state\ndata: {first}\n\n"
            quiet = 0.0
            while not gone():
                try:
                    message = inbox.get(timeout=context.poll)
                except queue.Empty:
                    quiet += context.poll
                    if quiet >= context.keepalive:
                        quiet = 0.0
                        yield ": keep-alive\n\n"
                    continue
                quiet = 0.0
                yield f"event: state\ndata: {message}\n\n"
        finally:
            context.table.broadcast.unsubscribe(inbox)

    response = Response(stream(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    return response


# --- changing -------------------------------------------------------------------------------------


@api.post("/event")
@guarded
def add_event() -> Response:
    event = object_body()
    short_text(event, "reason", REASON_CHARACTERS)
    changes = web().table.add(event, base_seq())
    return _changed(changes=[c.to_json() for c in changes])


@api.post("/end")
@guarded
def end() -> Response:
    if request.get_data().strip() and object_body():
        raise FormatError("/api/end takes an empty object, {}: the game ends with final scoring")
    changes = web().table.add({"event": "end"}, base_seq())
    return _changed(changes=[c.to_json() for c in changes])


@api.post("/undo")
@guarded
def undo() -> Response:
    request_body = object_body()
    if "op" in request_body:
        raise FormatError('/api/undo takes {"reason", "base"}; other corrections go to /api/corrections')
    short_text(request_body, "reason", REASON_CHARACTERS)
    web().table.correct(with_base({**request_body, "op": "undo"}))
    return _changed()


@api.post("/corrections")
@guarded
def correct() -> Response:
    correction = object_body()
    short_text(correction, "reason", REASON_CHARACTERS)
    web().table.correct(with_base(correction))
    return _changed()


def with_base(correction: dict[str, Any]) -> dict[str, Any]:
    """A correction with the ``X-Base-Seq`` header as its ``base``; the two must agree if both
    are sent."""
    header = base_seq()
    if header is None:
        return correction
    if "base" in correction and correction["base"] != header:
        raise FormatError(f'"base" {correction["base"]!r} and {BASE_HEADER} {header} name different entries')
    return {**correction, "base": header}


@api.post("/games")
@guarded
def start_game() -> Response:
    header = object_body()
    player_names(header)
    header.setdefault("record", RECORD_VERSION)
    table = web().table
    under_way = table.live is not None and not table.live.engine.finished
    if under_way and request.args.get("abandon") != "1":
        raise StaleView(
            "a game is under way: end it first (final scoring), or start anyway to leave it unfinished"
        )
    live = table.start(header)
    response = _changed(game_id=live.game_id)
    response.status_code = 201
    return response


def _changed(**extra: Any) -> Response:
    state = web().table.state()
    return jsonify({"ok": True, "seq": state["seq"], "scores": state.get("scores", {}), **extra})


# --- joining the table ----------------------------------------------------------------------------


@api.post("/join")
def join() -> Response:
    """A phone joins the table: ``{"pin": "..."}``, ``{"invite": "..."}`` (a player's QR code),
    or ``{"first": true}`` (the first phone at a table nobody has joined, soon after the start);
    ``{"leave": true}`` leaves. Needs the page's CSRF token, not the PIN."""
    if not csrf_ok():
        return problem(403, f"this request lacks the page's CSRF token ({CSRF_HEADER}): reload the page")
    try:
        ask = object_body()
        check_object(ask, "a join", required=(), optional=("pin", "invite", "first", "leave"))
    except FormatError as bad:
        return problem(400, bad.reason)
    if len(ask) != 1:
        return problem(400, 'join with one of "pin", "invite" or "first" (or send "leave")')
    pairing = web().pairing
    if ask.get("leave") is True:
        session.pop("joined", None)
        return jsonify({"joined": False})
    if "pin" in ask:
        if not isinstance(ask["pin"], str):
            return problem(400, '"pin" is the table PIN, as text')
        if not ask["pin"]:
            return problem(401, 'the table PIN is needed: send it as "pin"')
        try:
            web().pins.check(request.remote_addr or "?", ask["pin"])
        except Refused as error:
            return refused(error)
    elif "invite" in ask:
        if not isinstance(ask["invite"], str):
            return problem(400, '"invite" is the token of a player\'s invite, as text')
        if not pairing.accepts(ask["invite"]):
            return problem(403, "this invite is not the table's, or has expired: ask a player for a new one")
    elif ask.get("first") is True:
        mark = pairing.claim_first()
        if mark is None:
            return problem(
                403,
                "this table already has players (or was started a while ago): join with the table "
                "PIN or a player's invite",
            )
        session["joined"] = mark
        return jsonify({"joined": True})
    else:
        sent = "leave" if "leave" in ask else "first"
        return problem(400, f'"{sent}" is true when it is sent')
    session["joined"] = pairing.joined()
    return jsonify({"joined": True})


@api.post("/join/start-over")
@guarded
def start_over() -> Response:
    """Every other phone must join again; this one stays joined. ``{}``. A PIN the companion
    made (not one set in its config) is drawn again too: every joined phone could read the old
    one."""
    check_object(object_body(), "a start over", required=(), optional=())
    context = web()
    pairing = context.pairing
    pairing.start_over()
    if context.pin_drawn is not None:
        context.pins.pin = context.pin_drawn()
    session["joined"] = pairing.joined()
    return jsonify({"joined": True})
