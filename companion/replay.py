"""What ``companion replay`` shows: the JSON of records.md, or a scoreboard a person reads."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from companion.games.base import Game
from companion.games.registry import manifest


def replay_json(game: Game, lines: Sequence[int] = ()) -> dict[str, Any]:
    """The contract's replay object. ``lines`` (the record line of each log entry) are written
    into the log for games whose contract asks for them."""
    log = list(game.log)
    if manifest(game.setup.game).log_lines and len(lines) == len(log):
        log = [dataclasses.replace(entry, line=line) for entry, line in zip(log, lines, strict=True)]
    return {
        "game": game.setup.game,
        "variant": game.setup.variant,
        "finished": game.finished,
        "scores": game.scores(),
        "winners": game.winners(),
        "log": [entry.to_json() for entry in log],
    }


def scoreboard_text(game: Game) -> str:
    moment = game.moment()
    about = manifest(game.setup.game)
    if moment.finished:
        won = ", ".join(moment.winners)
        state = f"finished, won by {won}" if won else "finished, no winner"
    else:
        state = f"in progress, turn {moment.turn}" + (f", {moment.turn_of}'s turn" if moment.turn_of else "")
    lines = [f"{about.title} ({game.setup.variant}): {state}", ""]
    width = max(len(p.name) for p in moment.players)
    ranked = sorted(moment.players, key=lambda p: -(p.score or 0))
    for player in ranked:
        beside = player.label or player.color or ""
        score = "" if player.score is None else f"{player.score:>4}"
        lines.append(f"  {player.name:<{width}}  {beside:<14}  {score}".rstrip())
    if not about.keeps_points:
        lines += ["", f"Scores count {about.score_word}; {about.won_by}."]
    for prompt in moment.prompts:
        lines += ["", f"Waiting: {prompt}"]
    lines += ["", "Log:"]
    if not game.log:
        lines.append("  (nothing scored yet)")
    for entry in game.log:
        who = (entry.player or "-") + (f" ({entry.team})" if entry.team else "")
        lines.append(f"  turn {entry.turn:>3}  {who:<{width + 10}} {entry.points:+4d}  {entry.reason}")
    return "\n".join(lines) + "\n"
