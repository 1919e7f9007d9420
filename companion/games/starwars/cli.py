"""Star Wars' own commands: ``companion board read`` (a photograph of the mat read, no game) and
``companion enroll`` (the user's tiles taught from a folder of labelled pictures)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.errors import UserError
from companion.state_dir import STATE_DIR_DEFAULT, default_state_dir

if TYPE_CHECKING:
    from companion.games.starwars.tiles import Tile
    from companion.vision.gallery import Gallery


def add_commands(commands: Any) -> None:
    """Add the commands to ``companion``'s subcommands (an argparse ``_SubParsersAction``)."""
    board = commands.add_parser("board", help="read a board from a photograph of the play mat")
    board_commands = board.add_subparsers(dest="board_command", required=True, metavar="ACTION")
    board_read = board_commands.add_parser("read", help="every tile (inline, as it lies) and meeple in IMAGE")
    board_read.add_argument("image", metavar="IMAGE", help="a photograph or camera frame (PNG, JPEG)")
    board_read.add_argument(
        "--game", choices=("starwars",), default="starwars", help="the game (default: starwars)"
    )
    board_read.add_argument("--json", action="store_true", help="print the result as JSON")
    board_read.add_argument("--model", help="the cell model (default: the game's, in models/starwars/)")
    board_read.add_argument(
        "--state-dir",
        help=f"read against the box enrolled there (default: {STATE_DIR_DEFAULT})",
    )
    board_read.add_argument(
        "--no-box", action="store_true", help="read by the cell model alone, even with a box enrolled"
    )
    board_read.set_defaults(run=_board_read)

    enroll = commands.add_parser(
        "enroll",
        aliases=["enrol"],
        help="teach the companion your box's tiles from a folder of labelled pictures",
    )
    enroll.add_argument(
        "folder", metavar="FOLDER", help="NAME.png or NAME.jpg (one tile, filling it) beside NAME.json"
    )
    enroll.add_argument(
        "--state-dir",
        help=f"where the gallery is kept (default: {STATE_DIR_DEFAULT})",
    )
    enroll.add_argument("--check", action="store_true", help="only check the pictures; keep nothing")
    enroll.set_defaults(run=_enroll)


def _board_read(args: argparse.Namespace) -> int:
    from companion.games.starwars.models import cell_model
    from companion.games.starwars.reader.board_read import board_text, load_image, read_board
    from companion.games.starwars.reader.box_counts import COUNTS_FILE, load_counts
    from companion.vision.reader import CellModel, ModelMissing

    image = load_image(args.image)
    try:
        model = CellModel(Path(args.model)) if args.model else cell_model()
    except ModelMissing as error:
        raise UserError(str(error)) from None
    box = None if args.no_box else _enrolled_box(args.state_dir)
    counts = None if box is None else load_counts(_state_dir(args.state_dir))
    if counts:
        print(f"  with the counts of {len(counts)} tile types ({COUNTS_FILE})", file=sys.stderr)
    result = {"image": args.image, **read_board(image, model, box, counts)}
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(board_text(result))
    return 0


def _enrolled_box(state_dir: str | None) -> Gallery[Tile] | None:
    """The box enrolled in the state folder, None when none is; says on stderr which is read."""
    from companion.games.starwars.reader.gallery import tile_gallery
    from companion.vision.gallery_files import gallery_folder

    folder = gallery_folder(_state_dir(state_dir))
    try:
        labels = folder.is_dir() and any(path.suffix == ".json" for path in folder.iterdir())
    except OSError as error:
        raise UserError(f"cannot read the box enrolled in {folder}: {error.strerror or error}") from None
    if not labels:
        print(
            f"no box enrolled in {folder}: read by the cell model alone (companion enroll)", file=sys.stderr
        )
        return None
    box = tile_gallery(folder)
    print(f"read against your box: {len(box)} pictures in {folder}", file=sys.stderr)
    for reason in box.skipped:
        print(f"  not used: {reason}", file=sys.stderr)
    return box


def _state_dir(given: str | None) -> Path:

    return Path(given) if given else default_state_dir()


def _enroll(args: argparse.Namespace) -> int:
    from companion.games.starwars.catalog import load_catalog
    from companion.games.starwars.reader.box_counts import label_counts, save_counts
    from companion.games.starwars.reader.gallery import tile_gallery
    from companion.games.starwars.tiles import parse_tile
    from companion.vision.gallery import enrolled_name
    from companion.vision.gallery_files import PICTURE_SUFFIXES, gallery_folder, read_folder
    from companion.vision.tile_window import flat_picture

    source = Path(args.folder)
    if not source.is_dir():
        raise UserError(f"{source} is not a folder (expected NAME.png or NAME.jpg beside NAME.json)")
    pictures, bad = read_folder(source, parse_tile)
    pictured = {path.stem for path in source.iterdir() if path.suffix.lower() in PICTURE_SUFFIXES}
    lone_labels = [
        f"{label}: no {label.stem}.png or {label.stem}.jpg beside it, the picture it labels"
        for label in sorted(source.glob("*.json"))
        if label.stem not in pictured
    ]
    if not pictures and not bad:
        raise UserError(f"no NAME.png or NAME.jpg in {source}: take one picture per tile type")
    target = gallery_folder(_state_dir(args.state_dir))
    gallery = tile_gallery(None if args.check else target)
    known = {lying for entry in load_catalog().tiles for _, lying in entry.tile.distinct_rotations()}
    new: list[str] = []
    kept = 0
    offered = len(pictures) + len(bad)  # before the loop adds the pictures it cannot keep
    for picture, tile, name in pictures:
        if flat_picture(picture):
            bad.append(f"{name}: one flat colour, no tile in it: take the picture again, the tile filling it")
            continue
        try:
            gallery.add(picture, tile, name=enrolled_name(name))
        except ValueError as error:
            bad.append(f"{name}: {error}")
            continue
        except OSError as error:
            raise UserError(f"cannot keep the pictures in {target}: {error.strerror or error}") from None
        kept += 1
        if tile not in known:
            new.append(f"{name} ({tile.describe()})")
    counts, count_problems = label_counts(source)
    bad += count_problems
    if args.check:
        print(f"would enroll {kept} of {offered} pictures (--check: nothing kept)", file=sys.stderr)
    else:
        print(f"enrolled {kept} of {offered} pictures: kept in {target}", file=sys.stderr)
        if counts:
            kept_in = save_counts(_state_dir(args.state_dir), counts)
            print(
                f"  how many tiles of {len(counts)} types the box holds: kept in {kept_in}", file=sys.stderr
            )
    for reason in gallery.skipped:
        print(f"  already in the gallery but unusable: {reason}", file=sys.stderr)
    for name in new:
        print(f"  not in the catalog, read as a new tile type: {name}", file=sys.stderr)
    for reason in bad + lone_labels:
        print(f"  skipped {reason}", file=sys.stderr)
    return 1 if bad or lone_labels else 0
