"""Where phones can reach the companion: this machine's addresses on the local network."""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

import ifaddr

ALL_INTERFACES = ("0.0.0.0", "::", "")


HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def host_problem(host: str) -> str | None:
    """Why ``host`` cannot be listened on, as far as its spelling tells (None: it may be): an IP
    address (IPv6 without brackets) or a host name; "" listens on every address."""
    if host in ALL_INTERFACES:
        return None
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    if host.startswith("["):
        return "an IPv6 address is written without brackets here, such as ::1"
    labels = host.rstrip(".").split(".")
    if all(label.isdigit() for label in labels):
        return "not an IP address (each of its four numbers is 0 to 255)"
    if len(host) > 253 or not all(HOST_LABEL.fullmatch(label) for label in labels):
        return "neither an IP address nor a host name (letters, digits, hyphens and dots)"
    return None


def lan_addresses() -> list[str]:
    """IPv4 addresses of this machine other than loopback and link-local, best first.

    Works without internet and without a default route (a Pi running its own hotspot): every
    interface's addresses are listed (ifaddr, which python-zeroconf uses too); the one the kernel
    would use to reach a private network, when there is a route, comes first.
    """
    found: list[str] = []
    for probe in ("10.255.255.255", "192.168.255.255", "172.31.255.255"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.connect((probe, 9))  # sends nothing: only asks for a route
                found.append(sock.getsockname()[0])
        except OSError:
            continue
    try:
        for adapter in ifaddr.get_adapters():
            found.extend(ip.ip for ip in adapter.ips if isinstance(ip.ip, str))
    except OSError:
        pass
    unique: list[str] = []
    for address in found:
        if address.startswith(("127.", "169.254.", "0.")) or address in unique:
            continue
        unique.append(address)
    return unique


def page_urls(host: str, port: int) -> list[str]:
    """The addresses to open the scoreboard at, for people and phones."""
    if host in ALL_INTERFACES:
        return [f"http://{address}:{port}/" for address in lan_addresses()] + [f"http://127.0.0.1:{port}/"]
    shown = f"[{host}]" if ":" in host else host
    return [f"http://{shown}:{port}/"]


def is_loopback(url: str) -> bool:
    """Whether ``url`` names this machine only (127.x.x.x, ::1, localhost): a phone that opens it
    opens itself, not the companion."""
    host = urlsplit(url).hostname or ""  # lower case, without an IPv6 address's brackets
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name, such as table-companion.local
        return False
