"""Where the companion keeps its state (games, pictures, the table PIN) when not told: light,
so that every command's help can say it without loading the web server."""

from __future__ import annotations

import os
from pathlib import Path

# The commands' --state-dir help, in the words of default_state_dir().
STATE_DIR_DEFAULT = (
    "$COMPANION_STATE_DIR, $STATE_DIRECTORY, $XDG_STATE_HOME/table-companion "
    "or ~/.local/state/table-companion"
)


def default_state_dir() -> Path:
    """$COMPANION_STATE_DIR, else systemd's StateDirectory, else $XDG_STATE_HOME/table-companion
    (~/.local/state/table-companion without it)."""
    for variable in ("COMPANION_STATE_DIR", "STATE_DIRECTORY"):
        if os.environ.get(variable):
            return Path(os.environ[variable].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "table-companion"
