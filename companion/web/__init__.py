"""The web layer: a Flask app over the table, served by waitress inside the companion's process.

Templates and assets live in the top-level ``web/`` folder of the checkout (the client's layout);
``COMPANION_WEB_DIR`` points elsewhere if needed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, render_template, request
from jinja2 import BaseLoader, ChoiceLoader, Environment, FileSystemLoader, TemplateNotFound
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from companion.errors import UserError
from companion.games.base import FormatError
from companion.games.registry import manifest, manifests
from companion.web.api import api
from companion.web.context import WebContext
from companion.web.pages import pages

log = logging.getLogger(__name__)
MAX_BODY = 256 * 1024  # events and corrections are small; nothing bigger is posted
SECURITY_HEADERS = {
    # Everything is served from here: the table has no internet, and nothing else may load.
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def web_dir() -> Path:
    configured = os.environ.get("COMPANION_WEB_DIR")
    folder = Path(configured) if configured else Path(__file__).resolve().parents[2] / "web"
    if not (folder / "templates").is_dir():
        raise UserError(
            f"the web templates are not at {folder}/templates: run the companion from its "
            "checkout (pip install -e .) or set COMPANION_WEB_DIR"
        )
    return folder


class GamePartials(BaseLoader):
    """``<game>/NAME.html`` from the ``templates`` folder of that game's package, found through
    the registry when it is asked for (a game registered later is found too)."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Any]:
        name, _, rest = template.partition("/")
        if not rest:
            raise TemplateNotFound(template)
        try:
            folder = manifest(name).folder() / "templates"
        except FormatError:
            raise TemplateNotFound(template) from None
        return FileSystemLoader(str(folder)).get_source(environment, rest)


def by_score(players: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Highest score first; a player without a score (a game that keeps no points) after those
    with one, in seat order (Jinja's ``sort`` cannot compare None with a number)."""
    return sorted(players, key=lambda p: _rank(p.get("score")))


def ranked(scores: Mapping[str, int | None]) -> list[tuple[str, int | None]]:
    """A game's final scores by name, highest first, as ``by_score`` orders players."""
    return sorted(scores.items(), key=lambda item: _rank(item[1]))


def _rank(score: int | None) -> tuple[bool, int]:
    return score is None, -(score or 0)


def create_app(context: WebContext, secret: bytes) -> Flask:
    folder = web_dir()
    app = Flask(__name__, template_folder=str(folder / "templates"), static_folder=str(folder / "static"))
    app.secret_key = secret
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["companion"] = context
    # the core's templates first, then each game's own partials and pages
    app.jinja_loader = ChoiceLoader([FileSystemLoader(str(folder / "templates")), GamePartials()])
    app.add_template_filter(by_score)
    app.add_template_filter(ranked)
    app.register_blueprint(api)
    app.register_blueprint(pages)
    for game in manifests():
        if game.pages is not None:
            app.register_blueprint(game.pages())

    @app.after_request
    def secure(response: Response) -> Response:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        code = error.code or 500
        if request.path.startswith("/api/"):
            return jsonify({"error": code, "message": error.description}), code
        return render_template("error.html", code=code, message=error.description, state=None), code

    @app.errorhandler(Exception)
    def internal_error(error: Exception) -> Any:
        log.exception("internal error on %s %s", request.method, request.path)  # the trace stays here
        message = "something went wrong inside the companion; the game is safe, try again"
        if request.path.startswith("/api/"):
            return jsonify({"error": 500, "message": message}), 500
        return render_template("error.html", code=500, message=message, state=None), 500

    return app
