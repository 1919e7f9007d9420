"""Errors a user can fix: the command prints the message on one line and exits 1."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any


class UserError(Exception):
    """A problem with what the user asked for or with the machine; the message says what to do."""


class ConfigError(UserError):
    """The config file is wrong. The message names the file, the section and key, and what is
    wanted, as in ``config.toml: [mqtt] port: a port is 1 to 65535, not 0``."""


def refuse_unknown_keys(
    section: Mapping[str, Any],
    known: Iterable[str],
    where: str,
    error: type[UserError] = ConfigError,
) -> None:
    """Refuse the first key ``section`` does not know, with the nearest known one (a typo) or the
    list: ``[mqtt] prot: no such key; did you mean "port"?``. ``where`` is put before the key:
    ``"[mqtt] "``, ``"trays.tray[0]."``, or ``""`` at the top level."""
    names = tuple(known)
    for key in section:
        if key not in names:
            near = difflib.get_close_matches(str(key), names, n=1)
            hint = f'did you mean "{near[0]}"?' if near else f"the keys are {', '.join(names)}"
            raise error(f"{where}{key}: no such key; {hint}")
