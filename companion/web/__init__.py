"""The web layer: a Flask app factory over whatever supplies the game's state.

Templates and assets live in the top-level ``web/`` folder of the checkout (the client's layout);
``COMPANION_WEB_DIR`` points elsewhere if needed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion.errors import UserError

StateSource = Callable[[], dict[str, Any]]


def web_dir() -> Path:
    configured = os.environ.get("COMPANION_WEB_DIR")
    folder = Path(configured) if configured else Path(__file__).resolve().parents[2] / "web"
    if not (folder / "templates").is_dir():
        raise UserError(
            f"the web templates are not at {folder}/templates: run the companion from its "
            "checkout (pip install -e .) or set COMPANION_WEB_DIR"
        )
    return folder


def create_app(state: StateSource) -> Flask:
    folder = web_dir()
    app = Flask(
        __name__,
        template_folder=str(folder / "templates"),
        static_folder=str(folder / "static"),
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]

    @app.get("/")
    def scoreboard() -> str:
        return render_template("scoreboard.html", state=state())

    @app.get("/api/state")
    def api_state() -> Any:
        return jsonify(state())

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        if request.path.startswith("/api/"):
            return jsonify({"error": error.name, "message": error.description}), error.code
        return error

    return app
