"""What ``companion replay`` shows: the JSON of records.md, or a scoreboard a person reads."""

from __future__ import annotations

from typing import Any

from companion.games.base import Game


def replay_json(game: Game) -> dict[str, Any]:
    return {
        "game": game.setup.game,
        "variant": game.setup.variant,
        "finished": game.finished,
        "scores": game.scores(),
        "log": [entry.to_json() for entry in game.log],
    }


def scoreboard_text(game: Game) -> str:
    status = game.status()
    scores = game.scores()
    state = "finished" if game.finished else f"in progress, turn {status.get('turns_begun', '?')}"
    lines = [f"{status.get('title', game.setup.game)} ({game.setup.variant}): {state}", ""]
    width = max(len(p.name) for p in game.setup.players)
    ranked = sorted(game.setup.players, key=lambda p: -scores[p.name])
    for player in ranked:
        lines.append(f"  {player.name:<{width}}  {player.color:<6}  {scores[player.name]:>4}")
    for prompt in status.get("prompts", []):
        lines += ["", f"Waiting: {prompt}"]
    lines += ["", "Log:"]
    if not game.log:
        lines.append("  (no points scored yet)")
    for entry in game.log:
        who = entry.player + (f" ({entry.team})" if entry.team else "")
        lines.append(f"  turn {entry.turn:>3}  {who:<{width + 10}} {entry.points:+4d}  {entry.reason}")
    return "\n".join(lines) + "\n"
