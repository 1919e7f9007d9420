"""Starting the scoreboard server: bind first, then tell people where to look and the PIN."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from flask import Flask
from waitress.server import BaseWSGIServer, MultiSocketServer

from companion.errors import UserError
from companion.live.table import Table
from companion.web import create_app
from companion.web.context import WebContext
from companion.web.join import qr_terminal
from companion.web.mdns import Advertisement
from companion.web.net import ALL_INTERFACES, is_loopback, lan_addresses, page_urls
from companion.web.pairing import Pairing
from companion.web.security import PinGuard, new_table_pin, secret_key, table_pin

# Each open scoreboard holds one thread for its live stream: 30 phones and their page loads fit.
DEFAULT_THREADS = 48
# fewer than a few and the scoreboards' open streams take them all: the server stops answering
THREADS_RANGE = (4, 512)


def stop_on_sigterm() -> None:
    """systemd and ``kill`` stop a service with SIGTERM: leave as after Ctrl+C, tidying up."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_cleanly)


def _exit_cleanly(signum: int, frame: object) -> None:
    ignore_sigterm_while_stopping()
    raise SystemExit(0)


def ignore_sigterm_while_stopping() -> None:
    """Once a stop is under way, however it began (SIGTERM, Ctrl+C, a failed loop), a SIGTERM
    (a second ``kill``, a supervisor's repeat) would break into the tidying up, could leave the
    table's loop in native code as Python finalises, and abort the process. systemd's SIGKILL
    after TimeoutStopSec still ends a stop that hangs."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


OPTIONS_ADVICE = "try another --port or --host"


def bind(
    app: Flask, host: str, port: int, threads: int = DEFAULT_THREADS, advice: str = OPTIONS_ADVICE
) -> BaseWSGIServer | MultiSocketServer:
    """The waitress server for the app, listening already; UserError if the port cannot be had."""
    from waitress.server import create_server

    try:
        return create_server(
            app,
            host=host,
            port=port,
            threads=threads,
            ident="table-companion",
            channel_request_lookahead=4,  # lets a live stream notice its phone has gone
        )
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or error
        raise UserError(f"cannot listen on {host}:{port}: {reason} ({advice})") from None


def invite_url(page: str, pairing: Pairing) -> str:
    """The Join page's address with the table's invite: a phone that opens it joins in one tap."""
    return f"{page.rstrip('/')}/join?invite={pairing.invite().token}"


def phones_cannot_join(host: str) -> str:
    """Why a phone cannot open the scoreboard at a loopback address, and what to do, for the terminal."""
    if host in ALL_INTERFACES:  # listening everywhere, but no network address was found
        return "this machine has no network address; connect it to the table's network and restart"
    return f"the scoreboard listens on {host}, this machine only; restart with --host 0.0.0.0 for phones"


def serve(
    table: Table,
    host: str,
    port: int,
    pin: str | None = None,
    threads: int = DEFAULT_THREADS,
    mdns: bool = True,
    title: str = "Table Companion",
    on_ready: Callable[[], None] | None = None,
    attachments: dict[str, Any] | None = None,
    advice: str = OPTIONS_ADVICE,
) -> int:
    """``advice``: what to change when the address cannot be had (the options, or the config)."""
    state_dir = table.store.state_dir
    try:
        the_pin = table_pin(state_dir, pin)
    except ValueError as error:
        raise UserError(str(error)) from None
    urls = page_urls(host, port)
    pairing = Pairing(state_dir)
    context = WebContext(
        table,
        PinGuard(the_pin),
        pairing=pairing,
        pin_drawn=None if pin is not None else (lambda: new_table_pin(state_dir)),
        join_urls=urls,
        host=host,
        attachments=dict(attachments or {}),
    )

    def registered(name: str) -> None:
        context.mdns_name = f"{name}:{port}"  # the Join page shows it from now on
        print(f"  and on http://{name}:{port}/ for phones that resolve .local names", flush=True)

    addresses = lan_addresses()
    advertisement = None
    if mdns and host in ALL_INTERFACES and addresses:
        advertisement = Advertisement(port, addresses, on_registered=registered)
    app = create_app(context, secret_key(state_dir))
    server = bind(app, host, port, threads, advice)  # before telling anyone where to look
    pairing.serving_at(host, port)
    print(f"{title}: scoreboard on {urls[0]} (Ctrl+C to stop)")
    for url in urls[1:]:
        print(f"  also on {url}")
    print(f"Table PIN for changes and corrections: {the_pin}   (state in {state_dir})")
    if pairing.first_join_open():
        print("The first phone to open Join (/join) joins with one tap, then invites the others.")
    if sys.stdout.isatty() and is_loopback(urls[0]):  # a QR a phone would scan in vain: say why
        print(f"Phones cannot open {urls[0]}: {phones_cannot_join(host)}")
    elif sys.stdout.isatty():
        print(f"Scan to join as a player:\n{qr_terminal(invite_url(urls[0], pairing))}")
    sys.stdout.flush()
    if advertisement:
        advertisement.start()
    if on_ready:
        on_ready()
    stop_on_sigterm()
    try:
        server.run()
    finally:
        ignore_sigterm_while_stopping()
        server.close()
        if advertisement:
            advertisement.close()
    return 0
