"""The ``companion`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from companion import __version__
from companion.dice_cli import add_dice_command
from companion.errors import UserError
from companion.record import BadRecord, dump_record, parse_record, read_record, replay
from companion.replay import replay_json, scoreboard_text
from companion.service.cli import add_service_commands


def _replay(args: argparse.Namespace) -> int:
    record = parse_record(sys.stdin.buffer.read()) if args.file == "-" else read_record(args.file)
    game = replay(record)
    if args.json:
        sys.stdout.write(json.dumps(replay_json(game), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(scoreboard_text(game))
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from companion.sim.starwars_games import simulate_game

    result = simulate_game(args.players, args.seed, args.variant, catalog_ids=args.catalog_ids)
    text = dump_record(type(result.game), result.setup, result.events)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as error:
            raise UserError(f"cannot write {args.out}: {error.strerror or error}") from None
    scores = ", ".join(f"{name} {points}" for name, points in result.game.scores().items())
    print(
        f"wrote {args.out}: {len(result.events)} events, {len(result.game.board.tiles)} tiles, "
        f"{_count(len(result.game.battles), 'battle')}; scores: {scores}",
        file=sys.stderr,
    )
    return 0


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def _port(text: str) -> int:
    port = int(text)
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, not {port}")
    return port


def _threads(text: str) -> int:
    from companion.web.server import THREADS_RANGE

    low, high = THREADS_RANGE
    try:
        threads = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of threads, not {text!r}") from None
    if not low <= threads <= high:
        raise argparse.ArgumentTypeError(
            f"{low} to {high} threads (each open scoreboard holds one), not {threads}"
        )
    return threads


def _seconds(text: str) -> float:
    seconds = float(text)
    if not seconds >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"a pause is 0 seconds or more, not {text}")
    return seconds


DEMO_PACE = 3.0  # seconds between a replayed record's events


def _fps(text: str) -> float:
    from companion.cameras.settings import MAX_FPS

    fps = float(text)
    if not 0 < fps <= MAX_FPS:  # also refuses nan
        raise argparse.ArgumentTypeError(f"frames a second are above 0 and at most {MAX_FPS:g}, not {text}")
    return fps


def _demo(args: argparse.Namespace) -> int:
    from companion.web.demo import run_camera_demo, run_demo, run_enrol_demo

    if args.enrol:
        return run_enrol_demo(
            args.box_style, args.host, args.port, args.state_dir, args.pin, not args.no_mdns
        )
    if args.record:
        return run_demo(
            args.record,
            DEMO_PACE if args.pace is None else args.pace,
            args.host,
            args.port,
            args.state_dir,
            args.pin,
            not args.no_mdns,
        )
    return run_camera_demo(
        args.fps, args.seed, args.host, args.port, args.state_dir, args.pin, not args.no_mdns
    )


def _serve(args: argparse.Namespace) -> int:
    from companion.live.table import Table
    from companion.store import GameStore
    from companion.web.server import default_state_dir, serve

    store = GameStore(args.state_dir or default_state_dir())
    try:
        table = Table(store, source="events arrive through the API")
        return serve(table, args.host, args.port, pin=args.pin, threads=args.threads, mdns=not args.no_mdns)
    finally:
        store.close()


def _mat_out(text: str) -> str:
    if Path(text).suffix.lower() not in (".pdf", ".png"):
        raise argparse.ArgumentTypeError(f"the mat is written as .pdf or .png, not {text!r}")
    return text


def _dpi(text: str) -> int:
    try:
        dpi = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of dots per inch, not {text!r}") from None
    if not 72 <= dpi <= 600:
        raise argparse.ArgumentTypeError(f"72 to 600 dots per inch, not {dpi}")
    return dpi


def _mat(args: argparse.Namespace) -> int:
    from companion.vision.mat import MARKER_DICTIONARY, STANDARD_MAT
    from companion.vision.matfile import marker_ids_text, write_mat_pdf, write_mat_png

    mat = STANDARD_MAT
    size = f"{mat.width_mm:g} x {mat.height_mm:g} mm"
    try:
        if Path(args.out).suffix.lower() == ".png":
            write_mat_png(args.out, mat, args.dpi)
            scale = args.dpi / 25.4
            pixels = f"{round(mat.width_mm * scale)} x {round(mat.height_mm * scale)} px"
            size = f"{size} at {args.dpi} dpi ({pixels})"
        else:
            write_mat_pdf(args.out, mat)
    except OSError as error:
        raise UserError(f"cannot write {args.out}: {error.strerror or error}") from None
    print(
        f"wrote {args.out}: {size}, {len(mat.markers)} ArUco markers "
        f"({MARKER_DICTIONARY}, ids {marker_ids_text(mat)}); print at 100% scale",
        file=sys.stderr,
    )
    return 0


def _board_read(args: argparse.Namespace) -> int:
    from companion.table.board_read import board_text, load_image, read_board
    from companion.vision.reader import CellModel, ModelMissing

    image = load_image(args.image)
    try:
        model = CellModel(Path(args.model)) if args.model else CellModel()
    except ModelMissing as error:
        raise UserError(str(error)) from None
    result = {"image": args.image, **read_board(image, model)}
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(board_text(result))
    return 0


def _enroll(args: argparse.Namespace) -> int:
    from companion.games.starwars.catalog import load_catalog
    from companion.vision.gallery import Gallery, flat_picture
    from companion.vision.gallery_files import PICTURE_SUFFIXES, gallery_folder, read_folder
    from companion.web.server import default_state_dir

    source = Path(args.folder)
    if not source.is_dir():
        raise UserError(f"{source} is not a folder (expected NAME.png or NAME.jpg beside NAME.json)")
    pictures, bad = read_folder(source)
    pictured = {path.stem for path in source.iterdir() if path.suffix.lower() in PICTURE_SUFFIXES}
    lone_labels = [
        f"{label}: no {label.stem}.png or {label.stem}.jpg beside it, the picture it labels"
        for label in sorted(source.glob("*.json"))
        if label.stem not in pictured
    ]
    if not pictures and not bad:
        raise UserError(f"no NAME.png or NAME.jpg in {source}: take one picture per tile type")
    target = gallery_folder(Path(args.state_dir) if args.state_dir else default_state_dir())
    gallery = Gallery(None if args.check else target)
    known = {lying for entry in load_catalog().tiles for _, lying in entry.tile.distinct_rotations()}
    new: list[str] = []
    kept = 0
    offered = len(pictures) + len(bad)  # before the loop adds the pictures it cannot keep
    for picture, tile, name in pictures:
        if flat_picture(picture):
            bad.append(f"{name}: one flat colour, no tile in it: take the picture again, the tile filling it")
            continue
        try:
            gallery.add(picture, tile, name=f"enrolled-{name}")
        except ValueError as error:
            bad.append(f"{name}: {error}")
            continue
        except OSError as error:
            raise UserError(f"cannot keep the pictures in {target}: {error.strerror or error}") from None
        kept += 1
        if tile not in known:
            new.append(f"{name} ({tile.describe()})")
    if args.check:
        print(f"would enroll {kept} of {offered} pictures (--check: nothing kept)", file=sys.stderr)
    else:
        print(f"enrolled {kept} of {offered} pictures: kept in {target}", file=sys.stderr)
    for reason in gallery.skipped:
        print(f"  already in the gallery but unusable: {reason}", file=sys.stderr)
    for name in new:
        print(f"  not in the catalog, read as a new tile type: {name}", file=sys.stderr)
    for reason in bad + lone_labels:
        print(f"  skipped {reason}", file=sys.stderr)
    return 1 if bad or lone_labels else 0


def _add_server_options(command: argparse.ArgumentParser, state_help: str) -> None:
    command.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 for phones)",
    )
    command.add_argument("--port", type=_port, default=8000, help="port (default: 8000)")
    command.add_argument("--state-dir", help=state_help)
    command.add_argument(
        "--pin", help="the table PIN for changes (default: one made once, kept in the state dir)"
    )
    command.add_argument("--no-mdns", action="store_true", help="do not advertise table-companion.local")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table Companion: keeps score of physical board games.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    replay_cmd = commands.add_parser("replay", help="replay a game record and show the scores")
    replay_cmd.add_argument("file", help="a game record (.jsonl), or - to read it from stdin")
    replay_cmd.add_argument("--json", action="store_true", help="print the result as JSON")
    replay_cmd.set_defaults(run=_replay)

    sim = commands.add_parser("simulate", help="play a legal game drawn by --seed and write its record")
    sim.add_argument("--game", default="starwars", help="the game (default: starwars)")
    sim.add_argument("--players", type=int, default=3, help="2 to 5 (default: 3)")
    sim.add_argument(
        "--seed", type=int, default=0, help="which game: the same seed gives the same game (default: 0)"
    )
    sim.add_argument("--variant", choices=("standard", "teams"), default="standard")
    sim.add_argument("--catalog-ids", action="store_true", help="write tiles as catalog ids, not inline")
    sim.add_argument("--out", required=True, help="where to write the record ('-' for stdout)")
    sim.set_defaults(run=_simulate, command_parser=sim)

    demo = commands.add_parser(
        "demo",
        help="serve the scoreboard while the simulated table is played and read by the camera pipeline",
    )
    demo.add_argument(
        "--fps", type=_fps, default=5.0, help="camera frames per second (default: 5, table pace)"
    )
    demo.add_argument("--seed", type=int, default=1, help="which simulated game (default: 1)")
    demo.add_argument("--record", help="replay this record instead of reading the simulated table")
    demo.add_argument(
        "--pace",
        type=_seconds,
        default=None,
        help=f"with --record: seconds between events (default: {DEMO_PACE:g})",
    )
    demo.add_argument(
        "--enrol",
        action="store_true",
        help="a box of unfamiliar tiles laid out on the mat: teach them on the phone's /enrol page",
    )
    demo.add_argument(
        "--box-style",
        type=int,
        default=1_000_000,
        help="with --enrol: the simulated box's art, a style of the unseen box art (default: 1000000)",
    )
    _add_server_options(demo, "where the demo keeps its game (default: a temporary folder)")
    demo.set_defaults(run=_demo, command_parser=demo)

    server = commands.add_parser(
        "serve", help="serve the scoreboard over the game store; events come through the API"
    )
    _add_server_options(
        server, "the game store (default: $STATE_DIRECTORY or ~/.local/state/table-companion)"
    )
    server.add_argument(
        "--threads",
        type=_threads,
        default=48,
        help="server threads, 4 to 512; each open scoreboard holds one",
    )
    server.set_defaults(run=_serve)

    mat = commands.add_parser("mat", help="write the printable play mat (PDF or PNG)")
    mat.add_argument(
        "--out",
        type=_mat_out,
        default="play-mat.pdf",
        metavar="FILE",
        help="a .pdf (vector) or .png file (default: play-mat.pdf)",
    )
    mat.add_argument(
        "--dpi", type=_dpi, default=150, metavar="N", help="a PNG's resolution, 72 to 600 (default: 150)"
    )
    mat.set_defaults(run=_mat)

    board = commands.add_parser("board", help="read a board from a photograph of the play mat")
    board_commands = board.add_subparsers(dest="board_command", required=True, metavar="ACTION")
    board_read = board_commands.add_parser("read", help="every tile (inline, as it lies) and meeple in IMAGE")
    board_read.add_argument("image", metavar="IMAGE", help="a photograph or camera frame (PNG, JPEG)")
    board_read.add_argument(
        "--game", choices=("starwars",), default="starwars", help="the game (default: starwars)"
    )
    board_read.add_argument("--json", action="store_true", help="print the result as JSON")
    board_read.add_argument("--model", help="the cell model (default: models/cells.onnx)")
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
        help="where the gallery is kept (default: $STATE_DIRECTORY or ~/.local/state/table-companion)",
    )
    enroll.add_argument("--check", action="store_true", help="only check the pictures; keep nothing")
    enroll.set_defaults(run=_enroll)

    add_dice_command(commands)
    add_service_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "simulate":
        if args.game != "starwars":
            args.command_parser.error(f"only --game starwars can be simulated so far, not {args.game}")
        if not 2 <= args.players <= 5:
            args.command_parser.error(f"Star Wars takes 2 to 5 players, not {args.players}")
        if args.variant == "teams" and args.players != 4:
            args.command_parser.error("the team variant is for exactly 4 players")
    if args.command == "demo" and args.pace is not None and not args.record:
        args.command_parser.error("--pace is the pause between a record's events: give --record too")
    try:
        code: int = args.run(args)
        return code
    except BadRecord as error:
        print(error, file=sys.stderr)
        return 1
    except UserError as error:
        print(f"companion {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug of ours: say so in one line, keep the trace for --debug
        if os.environ.get("COMPANION_DEBUG"):
            raise
        print(f"companion: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        print("companion: run again with COMPANION_DEBUG=1 to see where", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
