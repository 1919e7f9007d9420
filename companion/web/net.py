"""Where phones can reach the companion: this machine's addresses on the local network."""

from __future__ import annotations

import socket

ALL_INTERFACES = ("0.0.0.0", "::", "")


def lan_addresses() -> list[str]:
    """IPv4 addresses of this machine other than loopback, best first; empty if none is known.

    Works without internet: asking the kernel which source address it would use for a private
    address sends nothing, and the host name's addresses are a fallback.
    """
    found: list[str] = []
    for probe in ("10.255.255.255", "192.168.255.255", "172.31.255.255"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.connect((probe, 9))
                found.append(sock.getsockname()[0])
        except OSError:
            continue
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    unique = []
    for address in found:
        if not address.startswith("127.") and address != "0.0.0.0" and address not in unique:
            unique.append(address)
    return unique


def page_urls(host: str, port: int) -> list[str]:
    """The addresses to open the scoreboard at, for people and phones."""
    if host in ALL_INTERFACES:
        return [f"http://{address}:{port}/" for address in lan_addresses()] + [f"http://127.0.0.1:{port}/"]
    shown = f"[{host}]" if ":" in host else host
    return [f"http://{shown}:{port}/"]
