"""The table: the game store, the game under way, and everyone watching it.

The web layer, the demo and (later) the camera tracker all change the game through a Table, which
keeps one order for every change: check, store durably, apply, then tell the scoreboards.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from companion.games.base import IllegalEvent, RecordError, ScoreChange
from companion.live.broadcast import Broadcast
from companion.live.evidence import EvidenceKeeper, EvidenceSource, Kept
from companion.live.game import Clock, LiveGame, Step
from companion.record import parse_header
from companion.store import GameRow, GameStore, Retention

LOG = logging.getLogger(__name__)


class NotRecorded(Exception):
    """A change that could not be stored (the disk is full, the store is gone): it was not
    applied either, and nothing was acknowledged. The message says what to do."""


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Table:
    def __init__(
        self,
        store: GameStore,
        clock: Clock = utc_now,
        source: str = "",
        retention: Retention | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.source = source  # where events come from, shown on the scoreboard
        self.retention = retention or Retention()  # how many old games and pictures are kept
        self.broadcast = Broadcast()
        self._lock = threading.RLock()
        games = store.games()
        self._resume_problem: str | None = None  # why the newest game could not be resumed
        # A restart resumes the newest game exactly where its journal left it.
        self.live: LiveGame | None = self._resume(games[0].id) if games else None
        # What the camera says, when one feeds this table: its status, its prompts, its view.
        self._camera_status: str | None = None
        self._camera_prompts: list[str] = []
        self._camera_asks: list[dict[str, Any]] = []
        self._camera_view: bytes | None = None
        self._camera_views = 0
        self._trays: list[dict[str, Any]] = []  # the dice trays as the scoreboard draws them
        # the camera's pictures of each score, when a table reader gives them (set_evidence)
        self.evidence: EvidenceSource | None = None
        self.keeper = EvidenceKeeper(store)
        self._storage_problem: str | None = None  # why the last change could not be stored
        # each game's scores and winners for the list of games, with the journal entries they are of
        self._results: dict[int, tuple[int, dict[str, Any]]] = {}
        self._prune()

    def _resume(self, game_id: int) -> LiveGame | None:
        """The newest game, as its journal left it; None, said on every phone, when these rules
        refuse a line of it (a game entered before a rule was enforced): it stays in the list of
        games with its record, and a new game can start."""
        try:
            return self._open(game_id)
        except RecordError as error:
            LOG.error("game %s could not be resumed: %s", game_id, error)
            self._resume_problem = (
                f"game {game_id} could not be resumed ({error}); it is kept in the list of games: "
                "start a new one"
            )
            return None

    def _open(self, game_id: int) -> LiveGame:
        row = self.store.game(game_id)
        if row is None:
            raise KeyError(game_id)
        game, setup = parse_header(row.header)
        return LiveGame(self.store, game_id, game, setup, self.clock)

    @property
    def lock(self) -> threading.RLock:
        """Held while the game changes; the camera's loop holds it while it reads the game, so a
        phone's change never lands halfway through a frame's decisions."""
        return self._lock

    # --- changes -------------------------------------------------------------------------------

    def start(self, header: Any) -> LiveGame:
        """Start a new game from a record header (the setup page); it becomes the game under way."""
        game, setup = parse_header(header)
        with self._lock, self._storing():
            game_id = self.store.new_game(setup.to_json(), self.clock())
            live = self.live = LiveGame(self.store, game_id, game, setup, self.clock)
            self._resume_problem = None
            self._publish()
        self._prune()
        return live

    def _prune(self) -> None:
        """Old games beyond the retention go, never the one under way; a store that cannot remove
        them now keeps them until the next game starts."""
        with self._lock:
            keep = self.live.game_id if self.live is not None else None
            try:
                removed = self.store.prune(self.retention, keep)
            except sqlite3.Error:
                LOG.exception("old games could not be removed")
                return
        for game_id in removed:
            self._results.pop(game_id, None)
        if removed:
            LOG.info("removed %d old game(s) and their pictures, as the retention keeps", len(removed))

    def add(self, event: Any, base: int | None = None) -> list[ScoreChange]:
        with self._lock:
            live = self._current()
            with self._storing():
                changes = live.add(event, base, self._pictures(live))
            self._publish()
            return changes

    def correct(self, request: Any) -> Step | None:
        with self._lock:
            live = self._current()
            with self._storing():
                step = live.correct(request, self._pictures(live))
            self._publish()
            return step

    def set_evidence(self, source: EvidenceSource | None) -> None:
        """Where the pictures of each score come from: the reader of the game under way."""
        with self._lock:
            self.evidence = source

    def _pictures(self, live: LiveGame) -> Callable[[Sequence[ScoreChange]], Kept] | None:
        source = self.evidence
        if source is None:
            return None

        def keep(changes: Sequence[ScoreChange]) -> Kept:
            try:
                pictures = source.pictures(changes)
            except Exception:  # a picture is never worth an event
                LOG.exception("the camera's pictures of a score could not be made")
                return Kept([], [])
            return self.keeper.keep(live.game_id, pictures)

        return keep

    @contextmanager
    def _storing(self) -> Iterator[None]:
        """A change the store cannot write is refused in words (and was not applied)."""
        try:
            yield
        except (sqlite3.Error, OSError) as error:
            self._storage_problem = (
                f"the companion could not record the last change ({error}): is its disk full? "
                "Free some space, then enter it again"
            )
            self._publish()
            raise NotRecorded(self._storage_problem) from None
        if self._storage_problem is not None:
            self._storage_problem = None

    def set_camera(
        self,
        status: str | None,
        prompts: list[str],
        view_jpeg: bytes | None = None,
        asks: list[dict[str, Any]] | None = None,
    ) -> None:
        """The camera's news for the scoreboard; publishes only when something changed.
        ``asks``: the questions a phone can answer in a tap, in full (a reader prompt's JSON: code,
        message, cells and the likeliest ``choices``), for the fix page to answer in a tap."""
        asks = list(asks or [])
        with self._lock:
            changed = (status, prompts, asks) != (
                self._camera_status,
                self._camera_prompts,
                self._camera_asks,
            ) or view_jpeg is not None
            self._camera_status, self._camera_prompts, self._camera_asks = status, list(prompts), asks
            if view_jpeg is not None:
                self._camera_view = view_jpeg
                self._camera_views += 1
            if changed:
                self._publish()

    def set_trays(self, trays: list[dict[str, Any]]) -> None:
        """The dice trays' news (``DiceTrays.to_json()``); publishes only when it changed."""
        with self._lock:
            if trays != self._trays:
                self._trays = [dict(tray) for tray in trays]
                self._publish()

    def camera_view(self) -> bytes | None:
        with self._lock:
            return self._camera_view

    def _current(self) -> LiveGame:
        if self.live is None:
            raise IllegalEvent("no game is under way: start one on the setup page")
        return self.live

    def _publish(self) -> None:
        self.broadcast.publish(json.dumps(self.state(), ensure_ascii=False))

    # --- reading -------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        with self._lock:
            state = self.live.state() if self.live else {"game": None, "seq": 0, "players": [], "log": []}
        state["source"] = self.source
        with self._lock:
            problems = [p for p in (self._resume_problem, self._storage_problem, self.keeper.problem) if p]
            state["prompts"] = [*problems, *state.get("prompts", []), *self._camera_prompts]
            state["camera"] = {
                "status": self._camera_status,
                "view": self._camera_views if self._camera_view is not None else None,
                "asks": [dict(ask) for ask in self._camera_asks],
            }
            state["trays"] = [dict(tray) for tray in self._trays]
        return state

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            return self.live.events() if self.live else []

    def timeline(self) -> list[dict[str, Any]]:
        with self._lock:
            return self.live.timeline() if self.live else []

    def entry_view(self) -> dict[str, Any]:
        with self._lock:
            return self.live.entry_view() if self.live else {}

    def score_view(self, index: int) -> dict[str, Any] | None:
        with self._lock:
            return self.live.score_view(index) if self.live else None

    def record_text(self, game_id: int | None = None) -> str | None:
        with self._lock:
            if game_id is None or (self.live and self.live.game_id == game_id):
                return self.live.record_text() if self.live else None
        if self.store.game(game_id) is None:
            return None
        return self._open(game_id).record_text()

    def games(self) -> list[GameRow]:
        return self.store.games()

    def results(self) -> list[dict[str, Any]]:
        """Every game, newest first, with its scores and winners as its journal stands (a game
        left unfinished has none); each worked out once for as long as its journal is unchanged."""
        results = []
        rows = self.store.games()
        for row in rows:
            entries, result = self._results.get(row.id, (-1, {}))
            if entries != row.entries:
                try:
                    with self._lock:
                        engine = self._open(row.id).engine
                    result = {"scores": engine.scores(), "winners": engine.winners()}
                except Exception:  # a game whose game is no longer here: listed without scores
                    LOG.exception("game %s could not be replayed for the list of games", row.id)
                    result = {"scores": {}, "winners": []}
                self._results[row.id] = (row.entries, result)
            results.append({"row": row, **result})
        listed = {row.id for row in rows}
        for gone in set(self._results) - listed:
            self._results.pop(gone, None)
        return results
