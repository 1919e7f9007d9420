"""Fan-out of state messages to every open scoreboard (one queue per Server-Sent Events client)."""

from __future__ import annotations

import contextlib
import queue
import threading


class Broadcast:
    """Each subscriber gets every message in order; a client too slow to keep up loses the older
    ones it has not read yet (each message is a whole state, so the newest is all it needs)."""

    def __init__(self, backlog: int = 16) -> None:
        self._backlog = backlog
        self._subscribers: dict[queue.Queue[str], str] = {}  # inbox -> who opened it
        self._lock = threading.Lock()

    def subscribe(self, owner: str = "") -> queue.Queue[str]:
        inbox: queue.Queue[str] = queue.Queue(self._backlog)
        with self._lock:
            self._subscribers[inbox] = owner
        return inbox

    def unsubscribe(self, inbox: queue.Queue[str]) -> None:
        with self._lock:
            self._subscribers.pop(inbox, None)

    def count(self, owner: str | None = None) -> int:
        """How many are listening (all, or those opened by ``owner``)."""
        with self._lock:
            return sum(1 for who in self._subscribers.values() if owner is None or who == owner)

    def publish(self, message: str) -> None:
        with self._lock:
            inboxes = list(self._subscribers)
        for inbox in inboxes:
            while True:
                try:
                    inbox.put_nowait(message)
                    break
                except queue.Full:
                    with contextlib.suppress(queue.Empty):
                        inbox.get_nowait()  # drop the oldest unread state
