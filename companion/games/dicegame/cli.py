"""The Dice Game's own command: ``companion enrol-dice FOLDER``, the user's dice taught from
photographs taken by the tray's camera (``empty.jpg``, then one die a photograph, the face named:
``knight.jpg``, ``catapult.jpg``, ``cap.jpg``, ...). The photographs are checked against the faces
table and kept in the state folder, where the trays read the next game's dice with them."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from companion.errors import UserError
from companion.state_dir import STATE_DIR_DEFAULT, default_state_dir


def add_commands(commands: Any) -> None:
    """Add the command to ``companion``'s subcommands (an argparse ``_SubParsersAction``)."""
    enrol = commands.add_parser(
        "enrol-dice",
        help="teach the trays the Dice Game's dice: a photograph of the empty tray and one of each face",
    )
    enrol.add_argument(
        "folder",
        metavar="FOLDER",
        help="empty.jpg (the empty tray), knight.jpg, catapult.jpg and one per city face (cap.jpg, ...)",
    )
    enrol.add_argument(
        "--table", default="reading1", help="the faces table to check against (default: reading1)"
    )
    enrol.add_argument(
        "--state-dir",
        help=f"where the dice are kept (default: {STATE_DIR_DEFAULT})",
    )
    enrol.add_argument("--check", action="store_true", help="check the photographs only; keep nothing")
    enrol.set_defaults(run=_enrol_dice)


def _enrol_dice(args: argparse.Namespace) -> int:
    from companion.games.dicegame.faces import named_tables
    from companion.games.dicegame.reader.enrolment import EnrolmentError
    from companion.games.dicegame.reader.table import dice_folder, enrol_folder, photographs

    source = Path(args.folder)
    if not source.is_dir():
        raise UserError(f"{source} is not a folder (expected empty.jpg, knight.jpg, catapult.jpg, ...)")
    tables = named_tables()
    if args.table not in tables:
        raise UserError(f"no faces table {args.table!r}: the tables are {', '.join(sorted(tables))}")
    try:
        enrolled = enrol_folder(source, tables[args.table])
    except EnrolmentError as error:
        raise UserError(f"the dice cannot be enrolled: {error}") from None
    print(enrolled.report())
    if args.check:
        print("--check: nothing kept", file=sys.stderr)
        return 0
    target = dice_folder(Path(args.state_dir) if args.state_dir else default_state_dir())
    if target.exists() and source.resolve() == target.resolve():
        print(f"{target} holds the dice enrolled already: nothing to copy", file=sys.stderr)
        return 0
    try:
        _replace_folder(target, list(photographs(source).values()))
    except OSError as error:
        raise UserError(f"cannot keep the photographs in {target}: {error.strerror or error}") from None
    print(f"kept in {target}: the trays read the next game's dice with them", file=sys.stderr)
    if not enrolled.confirmed:
        print(
            "these dice are not the faces table's: the trays read them only in a game whose record "
            "holds the table printed above",
            file=sys.stderr,
        )
    return 0


def _replace_folder(target: Path, files: list[Path]) -> None:
    """The files become the folder's whole content: copied into a new folder beside it first and
    swapped in only once all are written, so a failed copy leaves the old enrolment as it was.
    The folders it makes have names of their own: nothing there before is removed but ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{target.name}-new-", dir=target.parent))
    fresh.chmod(0o755)  # as a folder made by hand: the service may run as another user
    old = fresh.with_name(fresh.name.replace("-new-", "-old-"))
    try:
        for path in files:
            shutil.copy2(path, fresh / path.name)
        if target.exists() or target.is_symlink():
            target.rename(old)
        fresh.rename(target)
    except OSError:
        if (old.exists() or old.is_symlink()) and not (target.exists() or target.is_symlink()):
            old.rename(target)
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    if old.is_symlink():
        old.unlink()  # a link the user made to a folder elsewhere: the folder itself stays
    else:
        shutil.rmtree(old, ignore_errors=True)
