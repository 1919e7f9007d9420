"""One game at the table, live: its journal in the store, the engine that scores it, its timeline.

The journal holds two kinds of entries: game events as they happened, and corrections
(replace, insert or remove an event, with the reason). Folding the journal gives the game's
events as they stand; replaying those through the engine gives the scores. Every change is
checked first (a correction must leave a game the rules allow), stored durably second, and only
then shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import FormatError, Game, IllegalEvent, ScoreChange, Setup
from companion.games.fields import check_object, get_int, get_name, get_str
from companion.games.registry import manifest
from companion.live.evidence import Kept
from companion.record import dump_record
from companion.store import Entry, GameStore

Clock = Callable[[], str]
CORRECTIONS = ("replace", "insert", "remove", "undo")
# Keeps the camera's pictures of a moment beside the game: given the score changes an event
# caused (none: a correction), the paths kept and which change each shows.
Pictures = Callable[[Sequence[ScoreChange]], Kept]


class StaleView(Exception):
    """A correction made against a moment of the game that has since moved on."""


@dataclass
class Step:
    """One event of the game as it stands, with what it caused and how it was corrected."""

    event: Any
    record: dict[str, Any]  # the event's record form, as stored (meta included)
    seq: int  # the journal entry it comes from
    at: str
    changes: list[ScoreChange] = field(default_factory=list)
    correction: dict[str, Any] | None = None  # set when a correction put it here


class LiveGame:
    def __init__(self, store: GameStore, game_id: int, game: type[Game], setup: Setup, clock: Clock) -> None:
        self.store = store
        self.game_id = game_id
        self.game_type = game
        self.setup = setup
        self.clock = clock
        self.journal: list[Entry] = store.entries(game_id)
        self.steps = fold(game, self.journal)
        self.engine = replay_steps(game, setup, self.steps)
        row = store.game(game_id)
        if row is not None and (row.ended is None) == self.engine.finished:
            store.set_ended(game_id, self._ended())  # a store written before this was kept together

    # --- changing the game ---------------------------------------------------------------------

    def add(
        self, record_event: Any, base: int | None = None, pictures: Pictures | None = None
    ) -> list[ScoreChange]:
        """Check, store, then apply one event from the table (camera, trays, a phone).

        ``base``, when given, is the journal entry the sender last saw: a sender that retries an
        event it got no answer for cannot add it twice. ``pictures`` keeps the camera's pictures
        of what the event scored; their paths go in the event's meta.
        """
        self._check_base(base)
        event = self.game_type.parse_event(record_event)
        self.engine.line = record_line(len(self.steps))
        changes = self.engine.apply(event)  # an illegal event raises and changes nothing
        record = self.game_type.event_to_json(event)
        kept = Kept([], [])
        try:
            if pictures is not None and changes:
                kept = pictures(changes)
            if kept.paths:
                record["meta"] = {**(record.get("meta") or {}), **kept.to_meta()}
                event = self.game_type.parse_event(record)
            entry = self._store("event", {"event": record}, self.engine.finished)
        except BaseException:
            self.engine = replay_steps(self.game_type, self.setup, self.steps)  # not stored: not applied
            self.store.drop_evidence(kept.paths)  # pictures of an event that never was
            raise
        self.steps.append(Step(event, record, entry.seq, entry.at, list(changes)))
        return list(changes)

    def correct(self, request: Any, pictures: Pictures | None = None) -> Step | None:
        """Apply a correction from a phone: what changes, where, and why.

        ``{"op": "replace"|"insert"|"remove"|"undo", "index": N, "event": {...}, "reason": "...",
        "base": SEQ}``; ``base`` (optional) is the journal entry the phone last saw. ``pictures``
        keeps the camera's picture of the table at that moment, named in the correction.
        """
        what = "a correction"
        check_object(request, what, required=("op", "reason"), optional=("index", "event", "base"))
        op = get_str(request, "op", what, CORRECTIONS)
        reason = get_name(request, "reason", what)
        if "base" in request:
            self._check_base(get_int(request, "base", what, 0, 2**31))
        if op == "undo":
            if "index" in request:
                raise FormatError('"undo" takes no "index": it undoes the last event ("remove" takes one)')
            if not self.steps:
                raise IllegalEvent("there is no event to undo")
            index = len(self.steps) - 1
        else:
            if "index" not in request:
                raise FormatError(f'a "{op}" correction needs "index", the event to correct')
            high = len(self.steps) if op == "insert" else len(self.steps) - 1
            if high < 0:
                raise IllegalEvent("there is no event to correct")
            index = get_int(request, "index", what, 0, high)
        body: dict[str, Any] = {"op": op, "index": index, "reason": reason}
        if op in ("replace", "insert"):
            if "event" not in request:
                raise FormatError(f'a "{op}" correction needs "event", the event as it should be')
            body["event"] = self.game_type.event_to_json(self.game_type.parse_event(request["event"]))
        elif "event" in request:
            raise FormatError(f'a "{op}" correction takes no "event"')
        if op in ("replace", "remove", "undo"):
            body["was"] = self.steps[index].record
        if op == "replace" and _without_meta(body["event"]) == _without_meta(body["was"]):
            raise FormatError(f"event {index + 1} is already that: the correction would change nothing")

        steps = [dataclasses.replace(step) for step in self.steps]  # the live steps stay as they are
        placeholder = Entry(self.seq + 1, self.clock(), "correction", body)
        apply_correction(self.game_type, steps, placeholder)
        engine = replay_steps(self.game_type, self.setup, steps)  # raises with the broken rule
        kept = pictures([]) if pictures is not None else Kept([], [])
        if kept.paths:
            body["evidence"] = kept.paths
        try:
            entry = self._store("correction", body, engine.finished)
        except BaseException:
            self.store.drop_evidence(kept.paths)
            raise
        for step in steps:
            if step.seq == placeholder.seq:
                step.seq, step.at = entry.seq, entry.at
                assert step.correction is not None
                step.correction["at"] = entry.at
        self.steps, self.engine = steps, engine
        return next((s for s in steps if s.seq == entry.seq), None)

    def _check_base(self, base: int | None) -> None:
        if base is not None and base != self.seq:
            raise StaleView(
                f"the game has changed since this was sent (it was sent at entry {base}; the game is at "
                f"entry {self.seq}): look again"
            )

    def _store(self, kind: str, body: dict[str, Any], finished: bool) -> Entry:
        at = self.clock()
        seq = self.store.append(self.game_id, kind, body, at, at if finished else None)
        entry = Entry(seq, at, kind, body)
        self.journal.append(entry)
        return entry

    def _ended(self) -> str | None:
        """When the game ended: the time of the journal entry that finished it (None: it has not)."""
        if not self.engine.finished:
            return None
        return self.journal[-1].at if self.journal else None

    # --- reading -------------------------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The last journal entry: what a phone saw when it loaded."""
        return self.journal[-1].seq if self.journal else 0

    def state(self) -> dict[str, Any]:
        """The game now, as every page and the API read it: the engine's moment, the scores, the
        log (without each score's detail) and where the journal stands."""
        about = manifest(self.setup.game)
        return {
            "game": self.setup.game,
            "title": about.title,
            "variant": self.setup.variant,
            "score_word": about.score_word,
            **self.engine.moment().to_json(),
            "scores": self.engine.scores(),
            "breakdown": breakdown(self.engine, about.score_kinds),
            "log": list(self._log_entries().values()),
            "game_id": self.game_id,
            "seq": self.seq,
            "events": len(self.steps),
        }

    def record_text(self) -> str:
        """The game as it stands as a record. Corrected events say so in their meta, and the
        header's meta lists every correction, removals and undos too, with its reason."""
        events = []
        for step in self.steps:
            event = step.event
            if step.correction is not None:
                meta = dict(step.record.get("meta") or {})
                meta["correction"] = step.correction
                event = self.game_type.parse_event({**step.record, "meta": meta})
            events.append(event)
        corrections = [
            {"journal": e.seq, "at": e.at, **e.body} for e in self.journal if e.kind == "correction"
        ]
        setup = self.setup
        if corrections:
            setup = dataclasses.replace(setup, meta={**(setup.meta or {}), "corrections": corrections})
        return dump_record(self.game_type, setup, events)

    def events(self) -> list[dict[str, Any]]:
        """The game's events as they stand, numbered from 0, for the corrections page."""
        return [
            {"index": i, "text": self.engine.describe(step.event), "event": step.record, "at": step.at}
            for i, step in enumerate(self.steps)
        ]

    def timeline(self) -> list[dict[str, Any]]:
        """Every journal entry, newest first, each with what it did to the score."""
        by_seq = {step.seq: (index, step) for index, step in enumerate(self.steps)}
        numbered = self._log_entries()
        items = []
        for entry in reversed(self.journal):
            index, step = by_seq.get(entry.seq, (None, None))
            item: dict[str, Any] = {"seq": entry.seq, "at": entry.at, "kind": entry.kind, "index": index}
            if entry.kind == "event":
                event = self.game_type.parse_event(entry.body["event"])
                item["text"] = self.engine.describe(event)
                item["current"] = step is not None
            else:
                item["text"] = self._describe_correction(entry.body)
                item["reason"] = entry.body["reason"]
                item["evidence"] = [p for p in entry.body.get("evidence", []) if isinstance(p, str)]
            item["changes"] = [numbered[id(c)] for c in step.changes] if step else []
            items.append(item)
        return items

    def _log_entries(self) -> dict[int, dict[str, Any]]:
        """Every score change as JSON with its number in the log, keyed by the change's identity.
        The detail stays on the score's own page: it keeps every live update small."""
        entries = {}
        for index, change in enumerate(self.engine.log):
            entry = change.to_json()
            entry.pop("detail", None)
            entry["index"] = index
            entries[id(change)] = entry
        return entries

    def _describe_correction(self, body: dict[str, Any]) -> str:
        number = body["index"] + 1
        if body["op"] == "undo":
            return f"Undone: {self._describe(body['was'])}"
        if body["op"] == "remove":
            return f"Removed event {number}: {self._describe(body['was'])}"
        if body["op"] == "insert":
            return f"Inserted as event {number}: {self._describe(body['event'])}"
        return f"Corrected event {number}: {self._describe(body['was'])} -> {self._describe(body['event'])}"

    def _describe(self, record: dict[str, Any]) -> str:
        return self.engine.describe(self.game_type.parse_event(record))

    def entry_view(self) -> dict[str, Any]:
        return self.engine.entry_view()

    def score_view(self, index: int) -> dict[str, Any] | None:
        """Everything behind one score: what was counted, the rule, the dice, the picture."""
        if not 0 <= index < len(self.engine.log):
            return None
        change = self.engine.log[index]
        if not self.steps:
            return None
        # a score no event returned (one a game works out from an open turn, or again at the end)
        # is the latest event's doing
        step_index = next(
            (i for i, step in enumerate(self.steps) if any(c is change for c in step.changes)),
            len(self.steps) - 1,
        )
        then = replay_steps(
            self.game_type, self.setup, [dataclasses.replace(s) for s in self.steps[: step_index + 1]]
        )
        view: dict[str, Any] = {
            "index": index,
            "score": change.to_json(),
            "caused_by": {
                "index": step_index,
                "text": self.engine.describe(self.steps[step_index].event),
                "at": self.steps[step_index].at,
            },
            "picture": then.picture(change),
            "evidence": _evidence(self.steps[: step_index + 1], change),
            "game": self.setup.game,
            # what the game adds (a battle's rounds), for its own partial of the score's page
            "extras": self.engine.score_view(change),
        }
        return view


FINAL = "final scoring"


def breakdown(engine: Game, kinds: Mapping[str, str]) -> dict[str, list[list[Any]]]:
    """Each player's points by what scored them, in words, in the order first scored; final
    scoring on its own line: what the winner screen lists. In a game played in teams a player's
    lines are the team's, as the score beside them is."""
    by_player: dict[str, dict[str, int]] = {p.name: {} for p in engine.setup.players}
    members: dict[str, list[str]] = {}
    for player in engine.moment().players:
        if player.team is not None:
            members.setdefault(player.team, []).append(player.name)
    for change in engine.log:
        if change.player is None or change.player not in by_player:
            continue
        what = FINAL if change.final else kinds.get(change.kind, change.kind)
        for name in members.get(change.team, [change.player]) if change.team else [change.player]:
            parts = by_player[name]
            parts[what] = parts.get(what, 0) + change.points
    # a kind that came to nothing (a tie, a meal) says nothing of how a player scored
    return {
        name: [[what, points] for what, points in parts.items() if points]
        for name, parts in by_player.items()
    }


def _without_meta(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key != "meta"}


def _evidence(steps: Sequence[Step], change: ScoreChange) -> list[str]:
    """The pictures of ``change``, caused by the last of ``steps``: those its event keeps of
    it, else of the table as the event was seen. A record written elsewhere names pictures
    without saying what each shows: then every picture of the event and the two before it
    (the tile that closed a feature comes a step or two before its score)."""
    step = steps[-1]
    paths, shows = _pictures_of(step)
    if shows is not None:
        number = next(i for i, c in enumerate(step.changes) if c is change)
        own = [p for p, of in zip(paths, shows, strict=True) if of == number]
        return own or [p for p, of in zip(paths, shows, strict=True) if of is None]
    return [path for earlier in steps[-3:] for path in _pictures_of(earlier)[0]]


def _pictures_of(step: Step) -> tuple[list[str], list[int | None] | None]:
    """The pictures an event's meta names, and which score each shows (None: not said)."""
    meta = step.record.get("meta") or {}
    found = meta.get("evidence", [])
    paths = [found] if isinstance(found, str) else [p for p in found if isinstance(p, str)]
    shows = meta.get("evidence_of")
    if isinstance(shows, list) and len(shows) == len(paths):
        return paths, [s if isinstance(s, int) else None for s in shows]
    return paths, None


def fold(game: type[Game], journal: Sequence[Entry]) -> list[Step]:
    """The game's events as they stand after every correction in the journal."""
    steps: list[Step] = []
    for entry in journal:
        if entry.kind == "event":
            record = entry.body["event"]
            steps.append(Step(game.parse_event(record), record, entry.seq, entry.at))
        else:
            apply_correction(game, steps, entry)
    return steps


def apply_correction(game: type[Game], steps: list[Step], entry: Entry) -> None:
    body = entry.body
    op, index = body["op"], body["index"]
    if op in ("remove", "undo"):
        del steps[index]
        return
    record = body["event"]
    note = {"op": op, "reason": body["reason"], "at": entry.at, "journal": entry.seq}
    if op == "replace":
        note["was"] = body["was"]
        steps[index] = Step(game.parse_event(record), record, entry.seq, entry.at, correction=note)
    else:
        steps.insert(index, Step(game.parse_event(record), record, entry.seq, entry.at, correction=note))


def record_line(index: int) -> int:
    """The line of the game's record (``record_text``) that holds its event number ``index``
    (from 0): the header is line 1."""
    return index + 2


def replay_steps(game: type[Game], setup: Setup, steps: Sequence[Step]) -> Game:
    """A fresh engine fed with ``steps``; each step is given the score changes it caused."""
    engine = game(setup)
    for number, step in enumerate(steps, start=1):
        try:
            engine.line = record_line(number - 1)
            step.changes = list(engine.apply(step.event))
        except IllegalEvent as error:
            raise IllegalEvent(
                f"event {number} ({engine.describe(step.event)}) would break a rule: {error.reason}"
            ) from None
    return engine
