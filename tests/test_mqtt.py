"""MQTT for club screens and Home Assistant: the [mqtt] section, the messages built from real
states, and the publisher against a real mosquitto broker (Debian's package) started here."""

from __future__ import annotations

import getpass
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import paho.mqtt.client as mqtt
import pytest
from conftest import free_port, record_lines
from paho.mqtt.enums import CallbackAPIVersion

from companion.errors import ConfigError
from companion.live.mqtt import TablePublisher, make_client
from companion.live.mqtt_config import SLUG, MqttSettings, mqtt_settings
from companion.live.mqtt_topics import (
    event_messages,
    player_slugs,
    retained_messages,
    summary,
    sync_messages,
)
from companion.live.table import Table
from companion.store import GameStore

MOSQUITTO = "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
HA_TOPIC = r"homeassistant/sensor/[a-zA-Z0-9_-]+/[a-zA-Z0-9_-]+/config"


def make_table(tmp_path: Path) -> Table:
    return Table(GameStore(tmp_path / "state"))


def start_game(table: Table, record: str, players: list[str] | None = None) -> list[dict[str, Any]]:
    """Start a test record's game (with other player names when given); returns its events."""
    header, events = record_lines(record)
    if players is not None:
        colours = [p["color"] for p in header["players"]]
        header["players"] = [{"name": n, "color": c} for n, c in zip(players, colours, strict=False)]
        rename = {
            old["name"]: new for old, new in zip(record_lines(record)[0]["players"], players, strict=False)
        }
        events = [{**e, "player": rename.get(e.get("player"), e.get("player"))} for e in events]
    table.start(header)
    return events


def settings(**changes: Any) -> MqttSettings:
    return mqtt_settings({"enabled": True, "table": "table-3", "name": "Table 3", **changes})


# --- the [mqtt] section -------------------------------------------------------------------------


def test_no_section_means_off_with_defaults() -> None:
    made = mqtt_settings(None)
    assert made.enabled is False
    assert (made.host, made.port, made.tls, made.discovery) == ("localhost", 1883, False, True)
    assert (made.topic_prefix, made.discovery_prefix, made.keepalive) == (
        "table-companion",
        "homeassistant",
        60,
    )
    assert SLUG.fullmatch(made.table), made.table  # from the host name, made topic-safe
    assert made.name == f"Table {made.table}"


def test_a_full_section_is_read_as_written() -> None:
    made = mqtt_settings(
        {
            "enabled": True,
            "host": "broker.local",
            "port": 1884,
            "username": "club",
            "password": "s3cret",
            "tls": True,
            "table": "table-3",
            "name": "Table 3 (by the window)",
            "topic_prefix": "club/tables",
            "discovery": False,
            "discovery_prefix": "ha",
            "keepalive": 30,
        }
    )
    assert made == MqttSettings(
        True, "broker.local", 1884, "club", "s3cret", True, "table-3", "Table 3 (by the window)",
        "club/tables", False, "ha", 30,
    )  # fmt: skip
    assert made.state_topic == "club/tables/table-3/state"
    assert made.discovery_topic("game") == "ha/sensor/table-3/game/config"
    assert mqtt_settings({"tls": True}).port == 8883  # TLS's usual port unless one is given


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"prot": 1883}, '[mqtt] prot: no such key; did you mean "port"?'),
        ({"colour": "red"}, "[mqtt] colour: no such key; the keys are enabled, host"),
        ({"port": 0}, "[mqtt] port: a port is 1 to 65535, not 0"),
        ({"port": 70000}, "[mqtt] port: a port is 1 to 65535, not 70000"),
        ({"port": "1883"}, "[mqtt] port: must be a whole number, not '1883'"),
        ({"port": True}, "[mqtt] port: must be a whole number, not True"),
        ({"enabled": "yes"}, "[mqtt] enabled: must be true or false, not 'yes'"),
        ({"tls": 1}, "[mqtt] tls: must be true or false, not 1"),
        ({"host": 5}, "[mqtt] host: must be a quoted string"),
        ({"host": "mqtt://broker.local"}, "[mqtt] host: the broker's name or address alone"),
        ({"host": ""}, "[mqtt] host: the broker's name or address alone"),
        ({"password": "x"}, "[mqtt] password: a password needs its username"),
        ({"username": "club"}, "[mqtt] username: a username needs its password"),
        ({"username": "", "password": "x"}, "[mqtt] username: must not be empty"),
        ({"table": "Table 3"}, "[mqtt] table: the table's id in topics is 1 to 64 of a-z, 0-9, - and _"),
        ({"table": "t/3"}, "[mqtt] table: the table's id in topics"),
        ({"name": "  "}, "[mqtt] name: the table's name for people"),
        ({"topic_prefix": "club/#"}, "[mqtt] topic_prefix: topic levels without wildcards"),
        ({"topic_prefix": "club//tables"}, "[mqtt] topic_prefix: topic levels without wildcards"),
        ({"discovery_prefix": ""}, "[mqtt] discovery_prefix: topic levels without wildcards"),
        ({"discovery": "on"}, "[mqtt] discovery: must be true or false"),
        ({"keepalive": 1}, "[mqtt] keepalive: seconds between pings, 5 to 3600, not 1"),
    ],
)
def test_each_mistake_is_named_by_its_key(section: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        mqtt_settings(section)
    assert str(caught.value).startswith(message), str(caught.value)


def test_a_section_that_is_not_a_table_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"^\[mqtt\]: must be a section"):
        mqtt_settings(["enabled"])  # type: ignore[arg-type]


# --- messages from real states ------------------------------------------------------------------


def by_topic(messages: list[Any]) -> dict[str, Any]:
    return {m.topic: m for m in messages}


def test_retained_messages_describe_the_game(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    events = start_game(table, "route-three.jsonl")
    for event in events[:3]:
        table.add(event)
    state = table.state()
    assert not state["finished"]
    made = by_topic(retained_messages(settings(), state))
    assert all(m.retain for m in made.values())

    brief = json.loads(made["table-companion/table-3/state"].payload)
    assert brief["title"] == "Carcassonne: Star Wars" and brief["game_id"] == state["game_id"]
    assert [(p["name"], p["score"]) for p in brief["players"]] == list(state["scores"].items())
    assert (brief["turn"], brief["turn_of"], brief["finished"]) == (
        state["turn"],
        state["turn_of"],
        state["finished"],
    )
    assert brief["camera"] is None and brief["table"] == "table-3" and brief["name"] == "Table 3"
    for name, score in state["scores"].items():
        assert made[f"table-companion/table-3/player/{name.lower()}/score"].payload == str(score)
    assert made["table-companion/table-3/availability"].payload == "online"

    configs = {t: json.loads(m.payload) for t, m in made.items() if t.startswith("homeassistant/")}
    assert set(configs) == {
        f"homeassistant/sensor/table-3/{o}/config"
        for o in ("game", "turn", "camera", "score_ana", "score_ben")
    }
    assert len({c["unique_id"] for c in configs.values()}) == len(configs)
    for config in configs.values():
        assert config["device"]["identifiers"] == ["table-companion-table-3"]
        assert config["device"]["manufacturer"] == "Table Companion"
        assert config["device"]["name"] == "Table 3" and config["device"]["model"]
        assert config["availability_topic"] == "table-companion/table-3/availability"
        assert config["state_topic"] in made  # a topic this table publishes
    assert configs["homeassistant/sensor/table-3/score_ben/config"]["state_topic"] == (
        "table-companion/table-3/player/ben/score"
    )

    # The templates are Jinja, as Home Assistant renders them, over the state just built.
    def render(object_id: str, value: dict[str, Any]) -> str:
        template = configs[f"homeassistant/sensor/table-3/{object_id}/config"]["value_template"]
        return jinja2.Environment().from_string(template).render(value_json=value)

    assert render("game", brief) == "Carcassonne: Star Wars"
    assert render("turn", brief) == state["turn_of"] == "Ben"
    assert render("camera", brief) == "no camera"
    table.set_camera("the board is in view", [])
    assert render("camera", summary(settings(), table.state())) == "the board is in view"
    for event in events[3:]:
        table.add(event)
    assert render("turn", summary(settings(), table.state())) == "game over"
    empty = summary(settings(), make_table(tmp_path / "empty").state())
    assert (render("game", empty), render("turn", empty), empty["players"]) == ("no game", "no game", [])

    no_discovery = retained_messages(settings(discovery=False), state)
    assert not [m for m in no_discovery if m.topic.startswith("homeassistant/")]


def test_a_new_game_removes_the_players_gone(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    start_game(table, "route-three.jsonl")
    first = retained_messages(settings(), table.state())
    published = {m.topic: m.payload for m in first}
    assert sync_messages(first, published, everything=False) == []  # nothing changed
    assert sync_messages(first, published, everything=True) == first  # after a reconnect

    start_game(table, "route-three.jsonl", players=["Ana", "Zoe"])
    second = retained_messages(settings(), table.state())
    sent = sync_messages(second, published, everything=False)
    removed = sorted(m.topic for m in sent if m.payload == "")
    assert removed == [
        "homeassistant/sensor/table-3/score_ben/config",
        "table-companion/table-3/player/ben/score",
    ]
    assert all(m.retain for m in sent)
    changed = {m.topic for m in sent if m.payload}
    assert "homeassistant/sensor/table-3/score_zoe/config" in changed
    assert "homeassistant/sensor/table-3/score_ana/config" not in changed  # the same as before
    # A config left on the broker by an earlier run is removed too.
    stale = "homeassistant/sensor/table-3/score_old/config"
    assert sync_messages(second, {m.topic: m.payload for m in second}, False, [stale]) == [
        type(second[0])(stale, "", retain=True)
    ]


def test_one_event_message_per_new_journal_entry_with_its_reasons(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    events = start_game(table, "adjust-score.jsonl")
    for event in events:
        table.add(event)
    state = table.state()
    timeline = table.timeline()
    made = event_messages(settings(), state["game_id"], timeline, after_seq=0)
    assert len(made) == len(events) == state["seq"]
    assert all(m.topic == "table-companion/table-3/event" and not m.retain for m in made)
    payloads = [json.loads(m.payload) for m in made]
    assert [p["seq"] for p in payloads] == list(range(1, len(events) + 1))  # oldest first
    reasons = [s["reason"] for p in payloads for s in p["scores"]]
    assert reasons == [entry["reason"] for entry in state["log"]]
    assert all(p["text"] for p in payloads)
    # Entries already sent are not sent again.
    assert event_messages(settings(), state["game_id"], timeline, after_seq=state["seq"]) == []
    assert len(event_messages(settings(), state["game_id"], timeline, after_seq=state["seq"] - 2)) == 2
    # A correction is an entry of its own, with its reason.
    table.correct({"op": "undo", "reason": "the wrong tile was read"})
    newest = event_messages(settings(), state["game_id"], table.timeline(), after_seq=state["seq"])
    assert len(newest) == 1
    undo = json.loads(newest[0].payload)
    assert undo["kind"] == "correction" and undo["reason"] == "the wrong tile was read"
    assert undo["text"].startswith("Undone: ")


def test_player_ids_are_topic_safe_and_unique() -> None:
    assert player_slugs(["José", "jose", "Ana Lú", "", "++"]) == [
        "jose",
        "jose_2",
        "ana_lu",
        "player",
        "player_2",
    ]


# --- a real broker ------------------------------------------------------------------------------


def wait_until(check: Callable[[], Any], timeout: float = 8.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.02)
    raise AssertionError(f"waited {timeout} s for {what or check}")


@dataclass
class Broker:
    """A mosquitto of our own on 127.0.0.1, nothing kept on disk (a restart forgets all)."""

    folder: Path
    port: int = field(default_factory=free_port)
    users: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        conf = self.folder / "mosquitto.conf"
        # Run as whoever runs the tests: as root, mosquitto would switch to its own user, which
        # cannot read a password file under pytest's private tmp folder.
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", f"user {getpass.getuser()}"]
        if self.users:
            passwords = self.folder / "passwords"
            for number, (user, password) in enumerate(self.users.items()):
                create = ["-c"] if number == 0 else []
                subprocess.run([MOSQUITTO_PASSWD, *create, "-b", str(passwords), user, password], check=True)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        conf.write_text("\n".join(lines) + "\n")
        with (self.folder / "mosquitto.log").open("ab") as out:
            self.process = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=out, stderr=out)
        wait_until(self._accepts, 5, f"mosquitto to listen on {self.port}")

    def _accepts(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            log = (self.folder / "mosquitto.log").read_text(errors="replace")
            raise AssertionError(f"mosquitto exited ({self.process.returncode}):\n{log}")
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
            return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        self.process = None


def need_mosquitto() -> None:
    if os.path.exists(MOSQUITTO):
        return
    if os.environ.get("COMPANION_REQUIRE_MOSQUITTO") == "1":
        pytest.fail(f"COMPANION_REQUIRE_MOSQUITTO=1 but {MOSQUITTO} is missing: apt-get install mosquitto")
    pytest.skip(f"{MOSQUITTO} is missing (apt-get install mosquitto)")


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    need_mosquitto()
    (tmp_path / "broker").mkdir()
    made = Broker(tmp_path / "broker")
    made.start()
    yield made
    made.stop()


@dataclass
class Watcher:
    """A test client subscribed to everything, keeping what arrives in order."""

    port: int
    username: str | None = None
    password: str | None = None
    messages: list[tuple[str, str, bool]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._marker = f"test/marker/{uuid.uuid4().hex}"
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"watcher-{uuid.uuid4().hex[:8]}")
        if self.username:
            self.client.username_pw_set(self.username, self.password)
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", self.port)
        self.client.loop_start()
        self.client.subscribe("#")
        # Whatever the broker holds arrives before the marker sent after subscribing.
        self.client.publish(self._marker, "here")
        wait_until(lambda: self.seen(self._marker), 5, "the watcher's own marker")

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self._lock:
            self.messages.append((message.topic, message.payload.decode(), bool(message.retain)))

    def seen(self, topic: str) -> list[str]:
        with self._lock:
            return [payload for t, payload, _ in self.messages if t == topic]

    def held(self) -> dict[str, str]:
        """What the broker held when this watcher subscribed (its retained messages)."""
        with self._lock:
            return {t: p for t, p, retained in self.messages if retained and p}

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def held_now(port: int, **login: str) -> dict[str, str]:
    """The retained messages the broker holds now, read by a fresh client."""
    watcher = Watcher(port, **login)
    watcher.close()
    return watcher.held()


def fast(table: Table, made: MqttSettings, **kwargs: Any) -> TablePublisher:
    # Retries after 1 s, then 2 s: paho takes whole seconds.
    return TablePublisher(table, made, reconnect_delays=(1, 2), **kwargs)


def local(port: int, **changes: Any) -> MqttSettings:
    return settings(host="127.0.0.1", port=port, **changes)


def scores_held(held: dict[str, str]) -> dict[str, int]:
    prefix = "table-companion/table-3/player/"
    return {t[len(prefix) : -len("/score")]: int(p) for t, p in held.items() if t.startswith(prefix)}


def test_publisher_follows_a_game_on_a_real_broker(broker: Broker, tmp_path: Path) -> None:
    table = make_table(tmp_path)
    events = start_game(table, "three-battles-one-turn.jsonl")
    for event in events[:3]:
        table.add(event)  # played before MQTT started: history, not events
    watcher = Watcher(broker.port)
    publisher = fast(table, local(broker.port))
    publisher.start()
    try:
        wait_until(lambda: watcher.seen("table-companion/table-3/state"), what="the state")
        connected = f"MQTT: connected to 127.0.0.1:{broker.port}"
        wait_until(lambda: publisher.status == connected, what="the status to say connected")
        held = held_now(broker.port)
        for object_id in ("game", "turn", "camera", "score_ana", "score_ben", "score_cid"):
            config = json.loads(held[f"homeassistant/sensor/table-3/{object_id}/config"])
            assert config["device"]["identifiers"] == ["table-companion-table-3"]
        assert held["table-companion/table-3/availability"] == "online"
        assert json.loads(held["table-companion/table-3/state"])["seq"] == 3

        before = len(table.state()["log"])
        for event in events[3:]:
            table.add(event)
        state = table.state()
        wanted = len(events) - 3
        wait_until(lambda: len(watcher.seen("table-companion/table-3/event")) >= wanted, what="the events")
        time.sleep(0.3)  # nothing more should come
        sent = [json.loads(p) for p in watcher.seen("table-companion/table-3/event")]
        assert [e["seq"] for e in sent] == list(range(4, len(events) + 1))
        reasons = [s["reason"] for e in sent for s in e["scores"]]
        assert reasons == [entry["reason"] for entry in state["log"][before:]] and reasons
        assert any("battle" in r for r in reasons), reasons

        def scores_match() -> bool:
            return scores_held(held_now(broker.port)) == {n.lower(): s for n, s in state["scores"].items()}

        wait_until(scores_match, what="the retained scores to equal the table's")
        brief = json.loads(held_now(broker.port)["table-companion/table-3/state"])
        assert {p["name"]: p["score"] for p in brief["players"]} == state["scores"]

        # A new game with other players: their sensors appear, those of the players gone go.
        start_game(table, "route-three.jsonl", players=["Zoe", "Ana"])

        def sensors() -> set[str]:
            return {t.split("/")[3] for t in held_now(broker.port) if t.startswith("homeassistant/")}

        wait_until(lambda: sensors() == {"game", "turn", "camera", "score_zoe", "score_ana"}, what="sensors")
        wait_until(lambda: scores_held(held_now(broker.port)) == {"zoe": 0, "ana": 0}, what="new scores")
        assert watcher.seen("homeassistant/sensor/table-3/score_ben/config")[-1] == ""
    finally:
        publisher.stop()
    assert publisher.status == "MQTT: stopped"
    wait_until(lambda: watcher.seen("table-companion/table-3/availability")[-1] == "offline", what="offline")
    assert held_now(broker.port)["table-companion/table-3/availability"] == "offline"
    watcher.close()


def test_turning_discovery_off_removes_the_sensors(broker: Broker, tmp_path: Path) -> None:
    table = make_table(tmp_path)
    start_game(table, "route-three.jsonl")

    def configs() -> list[str]:
        return [t for t in held_now(broker.port) if t.startswith("homeassistant/")]

    first = fast(table, local(broker.port))
    first.start()
    wait_until(lambda: len(configs()) == 5, what="five sensors")
    first.stop()
    # A later run with discovery off finds the configs the first left and clears them.
    second = fast(table, local(broker.port, discovery=False))
    second.start()
    try:
        wait_until(lambda: second.connected and configs() == [], what="the sensors removed")
        assert scores_held(held_now(broker.port)) == {"ana": 0, "ben": 0}  # the topics stay
    finally:
        second.stop()


class GatedClient(mqtt.Client):
    """paho's client, whose reconnecting waits while the test holds the gate shut."""

    gate = threading.Event()

    def reconnect(self) -> Any:
        self.gate.wait(10)
        return super().reconnect()


def gated_client(client_id: str) -> mqtt.Client:
    return GatedClient(CallbackAPIVersion.VERSION2, client_id=client_id)


def test_publisher_reconnects_after_the_broker_restarts(broker: Broker, tmp_path: Path) -> None:
    table = make_table(tmp_path)
    events = start_game(table, "route-three.jsonl")
    GatedClient.gate.set()
    publisher = fast(table, local(broker.port), client_factory=gated_client)
    publisher.start()
    try:
        wait_until(lambda: publisher.connected, what="connected")
        broker.stop()  # the publisher's connection dies with it
        wait_until(lambda: "retrying" in publisher.status, what="the status to say so")
        assert publisher.status.startswith(
            (
                f"MQTT: lost the connection to 127.0.0.1:{broker.port}",
                f"MQTT: cannot reach 127.0.0.1:{broker.port}",
            )
        )
        GatedClient.gate.clear()  # it tries again only once a watcher is in place
        began = time.monotonic()
        for event in events:
            table.add(event)  # the table does not wait for MQTT
        assert time.monotonic() - began < 1.0
        broker.start()  # the same port, nothing retained
        assert held_now(broker.port) == {}
        watcher = Watcher(broker.port)
        GatedClient.gate.set()
        wait_until(lambda: publisher.connected, what="reconnected")
        state = table.state()

        def republished() -> bool:
            held = held_now(broker.port)
            return scores_held(held) == {n.lower(): s for n, s in state["scores"].items()} and (
                "homeassistant/sensor/table-3/game/config" in held
            )

        wait_until(republished, what="the retained state published again")
        assert held_now(broker.port)["table-companion/table-3/availability"] == "online"
        # What was played while the broker was away is sent once it is back, each entry once.
        wait_until(lambda: len(watcher.seen("table-companion/table-3/event")) == len(events), what="events")
        time.sleep(0.2)
        seqs = [json.loads(p)["seq"] for p in watcher.seen("table-companion/table-3/event")]
        assert seqs == list(range(1, len(events) + 1))
        watcher.close()
    finally:
        GatedClient.gate.set()
        publisher.stop()


def test_a_broker_not_there_at_start(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    need_mosquitto()
    caplog.set_level(logging.INFO, logger="companion.live.mqtt")
    (tmp_path / "broker").mkdir()
    later = Broker(tmp_path / "broker")
    table = make_table(tmp_path)
    events = start_game(table, "route-three.jsonl")
    publisher = fast(table, local(later.port))
    began = time.monotonic()
    publisher.start()
    assert time.monotonic() - began < 0.5  # start() does not wait for the broker
    try:
        cannot = f"MQTT: cannot reach 127.0.0.1:{later.port} (connection refused); retrying"
        wait_until(lambda: publisher.status == cannot, what="the status")
        for event in events:
            table.add(event)  # the table works meanwhile
        time.sleep(2.5)  # at least two more tries
        lines = [r.getMessage() for r in caplog.records if r.name == "companion.live.mqtt"]
        assert lines.count(cannot) == 1, lines  # one line, not one per try
        later.start()
        wait_until(lambda: publisher.connected, what="connected once the broker is there")
        assert publisher.status == f"MQTT: connected to 127.0.0.1:{later.port}"
        state = table.state()
        wait_until(
            lambda: scores_held(held_now(later.port)) == {n.lower(): s for n, s in state["scores"].items()},
            what="the scores",
        )
    finally:
        publisher.stop()
        later.stop()


def test_username_and_password(tmp_path: Path) -> None:
    need_mosquitto()
    (tmp_path / "broker").mkdir()
    guarded = Broker(tmp_path / "broker", users={"club": "s3cret", "watcher": "w"})
    guarded.start()
    table = make_table(tmp_path)
    start_game(table, "route-three.jsonl")
    right = fast(table, local(guarded.port, username="club", password="s3cret"))
    wrong = fast(table, local(guarded.port, username="club", password="guess", table="table-4"))
    try:
        right.start()
        wait_until(lambda: right.connected, what="the right password to connect")
        wait_until(
            lambda: (
                "table-companion/table-3/state" in held_now(guarded.port, username="watcher", password="w")
            ),
            what="the state",
        )
        wrong.start()
        refused = wait_until(lambda: "refused" in wrong.status and wrong.status, what="a refusal")
        assert refused.startswith(f"MQTT: 127.0.0.1:{guarded.port} refused us (not authorized")
        assert "check [mqtt] username and password" in refused and refused.endswith("retrying")
        assert not wrong.connected
        table.add(record_lines("route-three.jsonl")[1][0])  # the table is not troubled
    finally:
        wrong.stop()
        right.stop()
        guarded.stop()
    assert wrong.status == "MQTT: stopped"


def test_the_default_client_is_paho_with_callback_api_2() -> None:
    client = make_client("table-companion-test")
    assert client.callback_api_version is CallbackAPIVersion.VERSION2


def test_a_publisher_that_is_not_enabled_does_nothing(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    made: list[str] = []

    def factory(client_id: str) -> mqtt.Client:
        made.append(client_id)
        return make_client(client_id)

    publisher = TablePublisher(table, mqtt_settings({}), client_factory=factory)
    publisher.start()
    assert publisher.status == "MQTT: off ([mqtt] enabled = false)"
    assert made == [] and table.broadcast.count() == 0
    publisher.stop()


def test_companion_run_with_mqtt_on_publishes_the_table(broker: Broker, tmp_path: Path) -> None:
    """The config's [mqtt] section is all it takes: `companion run` over the simulated table
    publishes its game, and says offline when stopped."""
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text(
        f'state_dir = "{tmp_path / "state"}"\n[web]\nhost = "127.0.0.1"\nport = {port}\nmdns = false\n'
        f'pin = "2468"\n[camera]\nsource = "simulator"\nfps = 20\n'
        f'[mqtt]\nenabled = true\nhost = "127.0.0.1"\nport = {broker.port}\ntable = "club-1"\n',
        encoding="utf-8",
    )
    watcher = Watcher(broker.port)
    server = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: watcher.seen("table-companion/club-1/event"), 60, "a game event over MQTT")
        state = json.loads(watcher.seen("table-companion/club-1/state")[-1])
        assert state["game"] is not None
        assert any(t.startswith("homeassistant/sensor/") for t, _, _ in watcher.messages)
        assert watcher.seen("table-companion/club-1/availability")[-1] == "online"
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    wait_until(lambda: watcher.seen("table-companion/club-1/availability")[-1] == "offline", 10, "offline")
    watcher.close()
