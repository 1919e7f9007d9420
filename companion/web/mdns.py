"""An mDNS name for the scoreboard, so phones can open http://table-companion.local:PORT/."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)
SERVICE = "_http._tcp.local."
HOST_NAME = "table-companion"


class Advertisement:
    """Registers the scoreboard with mDNS in the background; ``close`` withdraws it."""

    def __init__(
        self,
        port: int,
        addresses: list[str],
        title: str = "Table Companion",
        on_registered: Callable[[str], None] | None = None,
    ) -> None:
        self.name = f"{HOST_NAME}.local"
        self._on_registered = on_registered  # told the name once phones can use it
        self.port = port
        self._addresses = addresses
        self._title = title
        self._zeroconf: object | None = None
        self._info: object | None = None
        self._thread = threading.Thread(target=self._register, name="mdns", daemon=True)

    def service_info(self) -> object:
        from zeroconf import ServiceInfo

        return ServiceInfo(
            SERVICE,
            f"{self._title}.{SERVICE}",
            addresses=[socket.inet_aton(address) for address in self._addresses],
            port=self.port,
            properties={"path": "/"},
            server=f"{self.name}.",
        )

    def start(self) -> None:
        self._thread.start()

    def _register(self) -> None:
        # Probing for name conflicts takes a few seconds: it must not hold up the scoreboard.
        try:
            from zeroconf import IPVersion, Zeroconf

            zeroconf = Zeroconf(interfaces=self._addresses, ip_version=IPVersion.V4Only)
            info = self.service_info()
            zeroconf.register_service(info, allow_name_change=True)  # type: ignore[arg-type]
            self._zeroconf, self._info = zeroconf, info
            if self._on_registered:
                self._on_registered(self.name)
        except Exception as error:  # no multicast here: the numeric address still works
            log.warning("mDNS name not advertised: %s", error)

    def close(self) -> None:
        zeroconf, info = self._zeroconf, self._info
        if zeroconf is not None and info is not None:
            zeroconf.unregister_service(info)  # type: ignore[attr-defined]
            zeroconf.close()  # type: ignore[attr-defined]
