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
        self._subscribers: set[queue.Queue[str]] = set()
        self._lock = threading.Lock()

    def subscribe(self) -> queue.Queue[str]:
        inbox: queue.Queue[str] = queue.Queue(self._backlog)
        with self._lock:
            self._subscribers.add(inbox)
        return inbox

    def unsubscribe(self, inbox: queue.Queue[str]) -> None:
        with self._lock:
            self._subscribers.discard(inbox)

    def count(self) -> int:
        with self._lock:
            return len(self._subscribers)

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
