"""What a table says over MQTT: every message, built from the table's state with no network, so
that all of it can be checked without a broker.

Topics, for ``topic_prefix = "table-companion"`` and ``table = "table-3"``:

- ``table-companion/table-3/state`` (retained): the game, the players with their scores, whose
  turn, finished, the camera's status, as JSON.
- ``table-companion/table-3/player/<player>/score`` (retained): one player's score, a number.
- ``table-companion/table-3/event`` (not retained): each new entry of the game's journal (an event
  or a correction) with its text and the score changes it caused, with their reasons.
- ``table-companion/table-3/availability`` (retained): ``online``, or ``offline`` (the last will).
- ``homeassistant/sensor/table-3/<object>/config`` (retained): Home Assistant's discovery configs.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion import __version__
from companion.live.mqtt_config import MqttSettings

ONLINE, OFFLINE = "online", "offline"
TURN_TEMPLATE = "{{ value_json.turn_of or ('game over' if value_json.finished else 'no game') }}"
# Home Assistant refuses a sensor state longer than 255 characters.
STATE_TEXT_MAX = 250


# --- messages -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    topic: str
    payload: str
    retain: bool
    qos: int = 0


def slug(name: str) -> str:
    """A player's name as a topic level and Home Assistant object id ([a-z0-9_-])."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "_", folded).strip("_")[:40] or "player"


def player_slugs(names: Sequence[str]) -> list[str]:
    """One slug per player, unique within the game (two names that fold alike get _2, _3)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        base = slug(name)
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}_{seen[base]}")
    return out


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def summary(settings: MqttSettings, state: Mapping[str, Any]) -> dict[str, Any]:
    """The retained state: what a club screen shows for one table."""
    players = state.get("players") or []
    slugs = player_slugs([p["name"] for p in players])
    camera = (state.get("camera") or {}).get("status")
    out_players = []
    for player, key in zip(players, slugs, strict=True):
        entry = {
            "name": player["name"],
            "id": key,
            "color": player.get("color"),
            "score": player.get("score"),
        }
        if player.get("label"):
            entry["label"] = player["label"]  # a faction, a team: the words beside the name
        out_players.append(entry)
    return {
        "table": settings.table,
        "name": settings.name,
        "game": state.get("game"),
        "title": state.get("title"),
        "game_id": state.get("game_id"),
        "variant": state.get("variant"),
        "players": out_players,
        "turn": state.get("turn"),
        "turn_of": state.get("turn_of"),
        "phase": state.get("phase"),
        "finished": bool(state.get("finished", False)),
        "winners": list(state.get("winners") or []),
        "camera": camera[:STATE_TEXT_MAX] if isinstance(camera, str) else None,
        "seq": state.get("seq", 0),
    }


def retained_messages(settings: MqttSettings, state: Mapping[str, Any]) -> list[Message]:
    """Everything retained that describes the table now: discovery configs (when on), the
    availability, the state summary and one score topic per player."""
    brief = summary(settings, state)
    messages = discovery_messages(settings, brief) if settings.discovery else []
    messages.append(Message(settings.availability_topic, ONLINE, retain=True, qos=1))
    messages.append(Message(settings.state_topic, _dumps(brief), retain=True))
    for player in brief["players"]:
        score = "" if player["score"] is None else str(player["score"])  # a game may keep no points
        messages.append(Message(settings.score_topic(player["id"]), score, retain=True))
    return messages


def discovery_messages(settings: MqttSettings, brief: Mapping[str, Any]) -> list[Message]:
    """Home Assistant discovery configs: one sensor per player's score, the game, whose turn and
    the camera, grouped as one device per table."""
    device = {
        "identifiers": [f"table-companion-{settings.table}"],
        "name": settings.name,
        "manufacturer": "Table Companion",
        "model": "Board-game scorekeeper",
        "sw_version": __version__,
    }

    def config(object_id: str, name: str, **options: Any) -> Message:
        payload = {
            "name": name,
            "unique_id": f"table-companion-{settings.table}-{object_id}",
            "availability_topic": settings.availability_topic,
            "device": device,
            "origin": {"name": "Table Companion", "sw_version": __version__},
            **options,
        }
        return Message(settings.discovery_topic(object_id), _dumps(payload), retain=True)

    # Home Assistant renders these Jinja templates over the state's JSON.
    sensors = [
        ("game", "Game", "mdi:dice-multiple", "{{ value_json.title or 'no game' }}"),
        ("turn", "Turn", "mdi:account-clock", TURN_TEMPLATE),
        ("camera", "Camera", "mdi:camera", "{{ value_json.camera or 'no camera' }}"),
    ]
    messages = [
        config(object_id, name, state_topic=settings.state_topic, icon=icon, value_template=template)
        for object_id, name, icon, template in sensors
    ]
    for player in brief["players"]:
        messages.append(
            config(
                f"score_{player['id']}",
                f"{player['name']} score",
                state_topic=settings.score_topic(player["id"]),
                icon="mdi:trophy-outline",
                unit_of_measurement="points",
                state_class="measurement",
            )
        )
    return messages


def owned(settings: MqttSettings, topic: str) -> bool:
    """A retained topic this table publishes for one player or one sensor, which a later game
    may have to remove (the filters the publisher subscribes to, to find those left over)."""
    return any(_matches(pattern, topic) for pattern in owned_filters(settings))


def owned_filters(settings: MqttSettings) -> list[str]:
    # The discovery configs are ours even with discovery turned off: turning it off removes them.
    return [
        f"{settings.base}/player/+/score",
        f"{settings.discovery_prefix}/sensor/{settings.table}/+/config",
    ]


def _matches(pattern: str, topic: str) -> bool:
    want, got = pattern.split("/"), topic.split("/")
    return len(want) == len(got) and all(w in ("+", g) for w, g in zip(want, got, strict=True))


def sync_messages(
    desired: Sequence[Message],
    published: Mapping[str, str],
    everything: bool,
    leftover: Iterable[str] = (),
) -> list[Message]:
    """What to send so the broker holds ``desired``: the retained messages that changed since
    ``published`` (all of them when ``everything``, after a reconnect), then an empty retained
    payload for each topic published or found on the broker (``leftover``) that is no longer
    wanted, which clears it and, for a discovery config, is Home Assistant's way to remove it."""
    wanted = {m.topic for m in desired}
    out = [m for m in desired if everything or published.get(m.topic) != m.payload]
    gone = sorted({t for t in [*published, *leftover] if t not in wanted})
    out.extend(Message(topic, "", retain=True) for topic in gone)
    return out


def event_messages(
    settings: MqttSettings, game_id: int | None, timeline: Iterable[Mapping[str, Any]], after_seq: int
) -> list[Message]:
    """One event message for each journal entry after ``after_seq``, oldest first: the event or
    the correction in words and the score changes it caused, each with its reason."""
    messages = []
    for item in sorted((i for i in timeline if i["seq"] > after_seq), key=lambda i: int(i["seq"])):
        payload: dict[str, Any] = {
            "table": settings.table,
            "game_id": game_id,
            "seq": item["seq"],
            "at": item.get("at"),
            "kind": item.get("kind"),
            "text": item.get("text"),
        }
        if item.get("reason"):
            payload["reason"] = item["reason"]  # why a correction was made
        payload["scores"] = [
            {
                "player": change["player"],
                "points": change["points"],
                "reason": change["reason"],
                "kind": change.get("kind"),
                "final": change.get("final", False),
            }
            for change in item.get("changes", [])
        ]
        messages.append(Message(settings.event_topic, _dumps(payload), retain=False, qos=1))
    return messages
