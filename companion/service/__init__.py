"""Running the companion as a systemd service on the Pi: readiness, status and the watchdog."""

from companion.service.notify import Notifier

__all__ = ["Notifier"]
