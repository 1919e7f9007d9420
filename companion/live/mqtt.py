"""The table's game over MQTT, for club screens and Home Assistant (off by default).

A ``TablePublisher`` follows the table's broadcast from a thread of its own and keeps the broker
in step with the table: retained state, scores and discovery configs, and one event message per
new journal entry. paho-mqtt's network thread connects and reconnects with backoff. Nothing here
may block or break the table: a broker that is down or refuses costs one log line and a status
sentence, and everything retained is sent again once it answers.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import socket
import ssl
import sys
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from companion.live.mqtt_config import MqttSettings, mqtt_settings
from companion.live.mqtt_topics import (
    OFFLINE,
    Message,
    event_messages,
    owned,
    owned_filters,
    retained_messages,
    sync_messages,
)
from companion.live.table import Table

__all__ = ["MqttSettings", "TablePublisher", "make_client", "mqtt_settings"]

log = logging.getLogger(__name__)

ClientFactory = Callable[[str], mqtt.Client]
WAKE = ""  # put in the inbox to wake the publisher's thread; a state is never empty


def make_client(client_id: str) -> mqtt.Client:
    # MQTT 3.1.1: every broker a club may run speaks it, and Home Assistant is happy with it.
    return mqtt.Client(
        CallbackAPIVersion.VERSION2, client_id=client_id, protocol=MQTTProtocolVersion.MQTTv311
    )


class TablePublisher:
    """Publishes one table over MQTT; ``start()`` returns at once, ``stop()`` says goodbye."""

    def __init__(
        self,
        table: Table,
        settings: MqttSettings,
        client_factory: ClientFactory = make_client,
        reconnect_delays: tuple[int, int] = (1, 60),
    ) -> None:
        self.table = table
        self.settings = settings
        self._factory = client_factory
        self._delays = reconnect_delays  # seconds: the first retry, then doubled up to the second
        self._client: mqtt.Client | None = None
        self._inbox: queue.Queue[str] | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # guards what paho's thread and ours both touch, below
        self._status = "MQTT: not started"
        self._connected = False
        self._leftover: set[str] = set()  # retained topics of ours found on the broker
        self._republish = threading.Event()
        self._stopping = threading.Event()
        # Only the publisher's thread touches these.
        self._published: dict[str, str] = {}  # retained topic -> payload the broker holds
        self._events_at: tuple[Any, int] = (None, 0)  # (game id, journal seq) sent as events
        self._last_error = ""

    # --- the table's side ----------------------------------------------------------------------

    @property
    def status(self) -> str:
        """One sentence for the scoreboard and ``companion doctor``."""
        with self._lock:
            return self._status

    @property
    def connected(self) -> bool:
        with self._lock:
            return self._connected

    def start(self) -> None:
        """Connect in the background and follow the table; never blocks, never raises."""
        if self._thread is not None:
            return
        s = self.settings
        if not s.enabled:
            self._set_status("MQTT: off ([mqtt] enabled = false)", level=logging.INFO)
            return
        try:
            client = self._factory(f"table-companion-{s.table}")
            if s.username is not None:
                client.username_pw_set(s.username, s.password)
            if s.tls:
                client.tls_set()  # the system's CA certificates check the broker
            # The broker says "offline" for us when we vanish without a goodbye.
            client.will_set(s.availability_topic, OFFLINE, qos=1, retain=True)
            client.reconnect_delay_set(*self._delays)
            client.on_connect = self._on_connect
            client.on_connect_fail = self._on_connect_fail
            client.on_disconnect = self._on_disconnect
            client.on_message = self._on_message
            state = self.table.state()
            # What the game holds already is history: only entries after this become events.
            self._events_at = (state.get("game_id"), int(state.get("seq", 0)))
            self._inbox = self.table.broadcast.subscribe("mqtt")
            self._client = client
            self._set_status(f"MQTT: connecting to {s.where}", level=logging.INFO)
            client.connect_async(s.host, s.port, s.keepalive)
            client.loop_start()
        except Exception as error:  # a bad TLS setup, say: the table carries on without MQTT
            if self._inbox is not None:
                self.table.broadcast.unsubscribe(self._inbox)
            self._set_status(f"MQTT: cannot start ({error})", level=logging.ERROR)
            return
        self._thread = threading.Thread(target=self._run, name="mqtt-publisher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 3.0) -> None:
        """Publish "offline", disconnect cleanly, and let go of the table (for good: a publisher
        runs once; make another to start again)."""
        self._stopping.set()
        if self._inbox is not None:
            self.table.broadcast.unsubscribe(self._inbox)
            self._wake()
        if self._thread is not None:
            self._thread.join(timeout)  # it finishes what it was sending; "offline" comes last
            self._thread = None
        client = self._client
        if client is None:
            return
        if self.connected:
            info = client.publish(self.settings.availability_topic, OFFLINE, qos=1, retain=True)
            # When the connection went meanwhile, the broker sends our will instead.
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout)
        client.disconnect()
        client.loop_stop()
        self._client = None
        self._set_status("MQTT: stopped", level=logging.INFO)

    # --- paho's network thread -----------------------------------------------------------------

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.ConnectFlags,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        where = self.settings.where
        if reason.is_failure:
            hint = "; check [mqtt] username and password" if reason.value in (0x86, 0x87) else ""
            self._set_status(f"MQTT: {where} refused us ({str(reason).lower()}{hint}); retrying")
            return
        with self._lock:
            self._connected = True
            self._leftover.clear()
        self._set_status(f"MQTT: connected to {where}", level=logging.INFO)
        # Retained topics of ours come back at once: those of players gone are then removed.
        client.subscribe([(topic, 0) for topic in owned_filters(self.settings)])
        self._republish.set()  # the broker may have lost everything (a restart without persistence)
        self._wake()

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        # paho calls this inside its "except OSError", so the error at hand is the reason.
        why = describe_error(sys.exception())
        self._set_status(f"MQTT: cannot reach {self.settings.where} ({why}); retrying")

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.DisconnectFlags,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        with self._lock:
            was_connected, self._connected = self._connected, False
        # A refusal is followed by a disconnect: keep the refusal, it says more.
        if was_connected and not self._stopping.is_set():
            self._set_status(f"MQTT: lost the connection to {self.settings.where}; retrying")

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.payload and owned(self.settings, message.topic):
            with self._lock:
                self._leftover.add(message.topic)
            self._wake()

    # --- the publisher's thread ----------------------------------------------------------------

    def _run(self) -> None:
        assert self._inbox is not None
        while not self._stopping.is_set():
            self._inbox.get()
            try:
                while True:
                    self._inbox.get_nowait()  # each state is whole: the table itself is read below
            except queue.Empty:
                pass
            if self._stopping.is_set():
                return
            try:
                self._sync()
            except Exception as error:  # a bug here must not stop the table; say it once
                if str(error) != self._last_error:
                    self._last_error = str(error)
                    log.exception("MQTT: could not publish the table's state")

    def _sync(self) -> None:
        client = self._client
        with self._lock:
            if not self._connected or client is None:
                return  # on_connect wakes us again
            leftover, self._leftover = self._leftover, set()
        everything = self._republish.is_set()
        self._republish.clear()
        state, timeline = self._read()
        desired = retained_messages(self.settings, state)
        for message in sync_messages(desired, self._published, everything, leftover):
            if not self._send(client, message):
                self._republish.set()
                return
        self._published = {m.topic: m.payload for m in desired}
        if timeline is None:
            return
        game_id, seq = state.get("game_id"), int(state.get("seq", 0))
        after = self._events_at[1] if game_id == self._events_at[0] else 0
        for message in event_messages(self.settings, game_id, timeline, after):
            if not self._send(client, message):
                return  # sent once connected again: the mark stays where it is
        self._events_at = (game_id, seq)

    def _read(self) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
        """The table's state, and its timeline when the journal moved on (None when not).

        The two are read one after the other; a state read again after the timeline shows that no
        change slipped in between (a new game, say), so the events belong to that game."""
        state = self.table.state()
        for _ in range(5):
            mark = (state.get("game_id"), int(state.get("seq", 0)))
            if mark == self._events_at:
                return state, None
            timeline = self.table.timeline()
            again = self.table.state()
            if (again.get("game_id"), int(again.get("seq", 0))) == mark:
                return again, timeline
            state = again
        return state, None  # the table is busy: the events go with the next state

    def _send(self, client: mqtt.Client, message: Message) -> bool:
        info = client.publish(message.topic, message.payload, qos=message.qos, retain=message.retain)
        # Without a connection paho keeps a QoS 1 message to send on reconnecting; QoS 0 is lost.
        return info.rc == MQTTErrorCode.MQTT_ERR_SUCCESS or (
            info.rc == MQTTErrorCode.MQTT_ERR_NO_CONN and message.qos > 0
        )

    # --- both ----------------------------------------------------------------------------------

    def _wake(self) -> None:
        inbox = self._inbox
        if inbox is None:
            return
        with contextlib.suppress(queue.Full):  # states are waiting: the thread wakes for them anyway
            inbox.put_nowait(WAKE)

    def _set_status(self, text: str, level: int = logging.WARNING) -> None:
        """Set the status; log it only when it changes, so a broker that stays down costs one line."""
        with self._lock:
            if text == self._status:
                return
            self._status = text
        log.log(level, text)


def describe_error(error: BaseException | None) -> str:
    """Why a connection failed, in a few words."""
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, socket.gaierror):
        return "unknown host name"
    if isinstance(error, TimeoutError):
        return "no answer"
    if isinstance(error, ssl.SSLError):
        return f"TLS: {error.reason or error}"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) if error else "no answer"
