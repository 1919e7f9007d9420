"""Joining from a phone: a QR code of the scoreboard's address, on screen and in the terminal.

segno is a small pure-Python QR encoder with no dependencies, so it runs on a Pi offline.
"""

from __future__ import annotations

import io

import segno


def qr_svg(url: str) -> str:
    """The QR code as inline SVG markup, dark on light so any phone camera reads it."""
    code = segno.make(url, error="m")
    # no width or height: the page sizes it to the screen (a fixed size is cut on narrow phones)
    return str(code.svg_inline(scale=8, dark="#111111", light="#ffffff", border=2, omitsize=True))


def qr_terminal(url: str) -> str:
    """The QR code drawn with block characters, for the terminal at start."""
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()
