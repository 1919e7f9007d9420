"""The ``[mqtt]`` section of the config: checked once at start-up, every mistake named by its key."""

from __future__ import annotations

import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.errors import ConfigError, refuse_unknown_keys

SLUG = re.compile(r"[a-z0-9_-]{1,64}")


@dataclass(frozen=True)
class MqttSettings:
    """The ``[mqtt]`` section as checked; off unless ``enabled = true``."""

    enabled: bool = False
    host: str = "localhost"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    table: str = "table"
    name: str = "Table"
    topic_prefix: str = "table-companion"
    discovery: bool = True
    discovery_prefix: str = "homeassistant"
    keepalive: int = 60

    @property
    def base(self) -> str:
        return f"{self.topic_prefix}/{self.table}"

    @property
    def state_topic(self) -> str:
        return f"{self.base}/state"

    @property
    def event_topic(self) -> str:
        return f"{self.base}/event"

    @property
    def availability_topic(self) -> str:
        return f"{self.base}/availability"

    def score_topic(self, player_slug: str) -> str:
        return f"{self.base}/player/{player_slug}/score"

    def discovery_topic(self, object_id: str) -> str:
        return f"{self.discovery_prefix}/sensor/{self.table}/{object_id}/config"

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"


KEYS: dict[str, type] = {
    "enabled": bool,
    "host": str,
    "port": int,
    "username": str,
    "password": str,
    "tls": bool,
    "table": str,
    "name": str,
    "topic_prefix": str,
    "discovery": bool,
    "discovery_prefix": str,
    "keepalive": int,
}
TYPE_WORDS = {bool: "true or false", int: "a whole number", str: 'a quoted string, as "text"'}


def mqtt_settings(section: Mapping[str, Any] | None) -> MqttSettings:
    """Check a ``[mqtt]`` section (TOML already parsed); a missing section means MQTT is off."""
    if section is None:
        table = default_table()
        return MqttSettings(table=table, name=default_name(table))
    if not isinstance(section, Mapping):
        raise ConfigError(f"[mqtt]: must be a section of key = value lines, not {type(section).__name__}")
    refuse_unknown_keys(section, KEYS, "[mqtt] ")
    for key, value in section.items():
        wanted = KEYS[key]
        # bool is an int in Python; TOML keeps them apart, and so do we.
        if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
            raise ConfigError(f"[mqtt] {key}: must be {TYPE_WORDS[wanted]}, not {value!r}")

    def get(key: str, default: Any) -> Any:
        return section.get(key, default)

    host = get("host", "localhost").strip()
    if not host or "://" in host or any(c.isspace() for c in host) or "/" in host:
        raise ConfigError(
            f"[mqtt] host: the broker's name or address alone, as broker.local or 192.168.1.20, not {host!r}"
        )
    tls = get("tls", False)
    port = get("port", 8883 if tls else 1883)  # the usual ports: 1883 plain, 8883 over TLS
    if not 1 <= port <= 65535:
        raise ConfigError(f"[mqtt] port: a port is 1 to 65535, not {port}")
    username, password = get("username", None), get("password", None)
    if password is not None and username is None:
        raise ConfigError("[mqtt] password: a password needs its username; add username = ...")
    if username is not None and password is None:
        raise ConfigError("[mqtt] username: a username needs its password; add password = ...")
    if username == "":
        raise ConfigError("[mqtt] username: must not be empty (leave out username and password instead)")
    table = get("table", None)
    if table is None:
        table = default_table()
    elif not SLUG.fullmatch(table):
        raise ConfigError(
            "[mqtt] table: the table's id in topics is 1 to 64 of a-z, 0-9, - and _ "
            f'(as "table-3"), not {table!r}'
        )
    name = get("name", None)
    if name is None:
        name = default_name(table)
    elif not name.strip() or len(name) > 64:
        raise ConfigError(f"[mqtt] name: the table's name for people, 1 to 64 characters, not {name!r}")
    topic_prefix = _prefix("topic_prefix", get("topic_prefix", "table-companion"))
    discovery_prefix = _prefix("discovery_prefix", get("discovery_prefix", "homeassistant"))
    keepalive = get("keepalive", 60)
    if not 5 <= keepalive <= 3600:
        raise ConfigError(f"[mqtt] keepalive: seconds between pings, 5 to 3600, not {keepalive}")
    return MqttSettings(
        enabled=get("enabled", False),
        host=host,
        port=port,
        username=username,
        password=password,
        tls=tls,
        table=table,
        name=name.strip(),
        topic_prefix=topic_prefix,
        discovery=get("discovery", True),
        discovery_prefix=discovery_prefix,
        keepalive=keepalive,
    )


def _prefix(key: str, value: str) -> str:
    levels = value.split("/")
    if not value or any(not level for level in levels) or any(c in value for c in "+#\0"):
        raise ConfigError(
            f"[mqtt] {key}: topic levels without wildcards or empty levels, as "
            f'"table-companion" or "club/tables", not {value!r}'
        )
    return value


def default_table() -> str:
    """The table's id when none is set: this machine's name, as a topic-safe slug."""
    host = socket.gethostname().split(".")[0].lower()
    return re.sub(r"[^a-z0-9_-]+", "-", host).strip("-")[:64] or "table"


def default_name(table: str) -> str:
    return f"Table {table}"
