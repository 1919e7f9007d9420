"""The game store: every game's journal in SQLite, evidence images on disk, in the state directory.

An entry is durable before anyone is shown it: the database runs in WAL mode with
``synchronous=FULL`` and each entry is its own transaction, committed before ``append`` returns.
After a power cut the journal holds every entry that was acknowledged, and at most loses the one
being written.

What the store keeps is bounded (``Retention``): past so many games, or so many bytes of pictures,
the oldest games go, journal and pictures together, and the database file is compacted; the game
under way is never removed.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import UserError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    header TEXT NOT NULL,      -- the record header, JSON
    started TEXT NOT NULL,     -- ISO 8601 time
    ended TEXT                 -- when its "end" event was stored; NULL while in progress
);
CREATE TABLE IF NOT EXISTS journal (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,      -- 1, 2, ... within a game
    at TEXT NOT NULL,          -- ISO 8601 time it was stored
    kind TEXT NOT NULL,        -- "event" or "correction"
    body TEXT NOT NULL,        -- JSON
    PRIMARY KEY (game_id, seq)
);
"""
DATABASE = "games.sqlite3"
EVIDENCE = "evidence"
EVIDENCE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
# The write-ahead log is cut back to this after each checkpoint (SQLite lets it keep its largest
# size otherwise, which after a VACUUM is the whole database again).
WAL_LIMIT = 4 * 1024 * 1024


@dataclass(frozen=True)
class Retention:
    """How much the store keeps besides the game under way: the newest ``games`` games, and of
    those no more than fit in ``evidence_bytes`` of pictures together. Older games are removed,
    oldest first, with their pictures."""

    games: int = 100
    evidence_bytes: int = 500_000_000


@dataclass(frozen=True)
class Entry:
    seq: int
    at: str
    kind: str
    body: dict[str, Any]


@dataclass(frozen=True)
class GameRow:
    id: int
    game: str
    header: dict[str, Any]
    started: str
    ended: str | None
    entries: int


def _lacking_columns(db: sqlite3.Connection) -> str:
    """What a store made by something else lacks of SCHEMA's tables ("" when nothing): its
    ``CREATE TABLE IF NOT EXISTS`` leaves a table of the same name as it found it."""
    wanted = sqlite3.connect(":memory:")
    try:
        wanted.executescript(SCHEMA)
        tables = [row[0] for row in wanted.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            need = [row[1] for row in wanted.execute(f"PRAGMA table_info({table})")]
            have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            missing = [column for column in need if column not in have]
            if missing:
                return f"its table {table} has no {', '.join(missing)}"
        return ""
    finally:
        wanted.close()


class GameStore:
    def __init__(self, state_dir: str | Path) -> None:
        self.state_dir = Path(state_dir)
        if self.state_dir.exists() and not self.state_dir.is_dir():
            raise UserError(f"the state dir {self.state_dir} is a file, not a folder")
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                self.state_dir / DATABASE, check_same_thread=False, isolation_level=None, timeout=10
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
            self._db.executescript(SCHEMA)
            lacking = _lacking_columns(self._db)
        except (OSError, sqlite3.Error) as error:
            raise UserError(f"cannot open the game store in {self.state_dir}: {error}") from None
        if lacking:
            self._db.close()
            raise UserError(
                f"{self.state_dir / DATABASE} is not this companion's game store ({lacking}): "
                "move it away, and a new one is started"
            )
        self._lock = threading.Lock()  # one connection, shared by the web threads

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- writing -------------------------------------------------------------------------------

    def new_game(self, header: dict[str, Any], at: str) -> int:
        with self._lock:
            cursor = self._db.execute(
                "INSERT INTO games (game, header, started) VALUES (?, ?, ?)",
                (header["game"], json.dumps(header, ensure_ascii=False), at),
            )
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def append(self, game_id: int, kind: str, body: dict[str, Any], at: str, ended: str | None) -> int:
        """Store one journal entry durably and return its sequence number. ``ended`` is when the
        game ended as of this entry (None: in progress), kept in the same transaction."""
        text = json.dumps(body, ensure_ascii=False)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                (last,) = self._db.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM journal WHERE game_id = ?", (game_id,)
                ).fetchone()
                self._db.execute(
                    "INSERT INTO journal (game_id, seq, at, kind, body) VALUES (?, ?, ?, ?, ?)",
                    (game_id, last + 1, at, kind, text),
                )
                self._db.execute("UPDATE games SET ended = ? WHERE id = ?", (ended, game_id))
                self._db.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
            return int(last) + 1

    def _rollback(self) -> None:
        """Undo the transaction under way, if SQLite has not already: a full disk makes it roll
        back by itself, and a second ROLLBACK would hide why behind "no transaction is active"."""
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def set_ended(self, game_id: int, at: str | None) -> None:
        """Mark a game ended (``at``) or back in progress (None), for the list of games."""
        with self._lock:
            self._db.execute("UPDATE games SET ended = ? WHERE id = ?", (at, game_id))

    def save_evidence(self, game_id: int, data: bytes, suffix: str) -> str:
        """Keep an evidence image; the returned path (relative to the state dir) goes in an event's meta."""
        if suffix.lower() not in EVIDENCE_SUFFIXES:
            raise ValueError(f"evidence images are {', '.join(EVIDENCE_SUFFIXES)}, not {suffix}")
        folder = self.state_dir / EVIDENCE / str(game_id)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{uuid.uuid4().hex}{suffix.lower()}"
        try:
            with open(folder / name, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
        except OSError:
            (folder / name).unlink(missing_ok=True)  # no half-written picture left (a full disk)
            raise
        return f"{EVIDENCE}/{game_id}/{name}"

    def drop_evidence(self, paths: list[str]) -> None:
        """Remove pictures kept for an entry that was never written (none else names them)."""
        root = (self.state_dir / EVIDENCE).resolve()
        for relative in paths:
            path = (self.state_dir / relative).resolve()
            if path.is_relative_to(root):
                path.unlink(missing_ok=True)

    def prune(self, retention: Retention, keep: int | None) -> list[int]:
        """Remove the games ``retention`` does not keep, oldest first, never game ``keep`` (the one
        under way), with their pictures and any pictures no game names; then compact the database
        file. Returns the games removed."""
        with self._lock:
            ids = [i for (i,) in self._db.execute("SELECT id FROM games ORDER BY id DESC")]
        used = self.evidence_bytes(keep) if keep is not None else 0
        kept = 0
        doomed: list[int] = []
        for game_id in (i for i in ids if i != keep):
            size = self.evidence_bytes(game_id)
            if doomed or kept >= retention.games or used + size > retention.evidence_bytes:
                doomed.append(game_id)  # this one and every older one
            else:
                kept += 1
                used += size
        if doomed:
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    marks = ",".join("?" * len(doomed))
                    self._db.execute(f"DELETE FROM journal WHERE game_id IN ({marks})", doomed)
                    self._db.execute(f"DELETE FROM games WHERE id IN ({marks})", doomed)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise
                # the freed pages go back to the file system, and the log that copied them too
                self._db.execute("VACUUM")
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        # pictures after the journal: a power cut between the two leaves pictures of no game,
        # removed here next time, never a game without its pictures
        left = set(ids) - set(doomed)
        for folder in self._evidence_folders():
            if not folder.name.isdigit() or int(folder.name) not in left:
                shutil.rmtree(folder, ignore_errors=True)
        return doomed

    def evidence_bytes(self, game_id: int) -> int:
        """Bytes of pictures game ``game_id`` keeps."""
        try:
            with os.scandir(self.state_dir / EVIDENCE / str(game_id)) as found:
                return sum(entry.stat().st_size for entry in found if entry.is_file())
        except OSError:
            return 0

    def _evidence_folders(self) -> list[Path]:
        try:
            return [path for path in (self.state_dir / EVIDENCE).iterdir() if path.is_dir()]
        except OSError:
            return []

    # --- reading -------------------------------------------------------------------------------

    def entries(self, game_id: int) -> list[Entry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, at, kind, body FROM journal WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        return [Entry(seq, at, kind, json.loads(body)) for seq, at, kind, body in rows]

    def games(self) -> list[GameRow]:
        """Every game, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.game, g.header, g.started, g.ended, COUNT(j.seq) FROM games g "
                "LEFT JOIN journal j ON j.game_id = g.id GROUP BY g.id ORDER BY g.id DESC"
            ).fetchall()
        return [
            GameRow(i, game, json.loads(header), started, ended, n)
            for i, game, header, started, ended, n in rows
        ]

    def game(self, game_id: int) -> GameRow | None:
        return next((row for row in self.games() if row.id == game_id), None)

    def evidence_file(self, relative: str) -> Path | None:
        """The file an event's evidence path names, if it is one of ours and exists."""
        root = (self.state_dir / EVIDENCE).resolve()
        try:
            candidate = (self.state_dir / relative).resolve()
            if root not in candidate.parents or candidate.suffix.lower() not in EVIDENCE_SUFFIXES:
                return None
            return candidate if candidate.is_file() else None
        except (ValueError, OSError):  # a NUL byte, a name too long: no file of ours
            return None
