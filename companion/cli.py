"""The ``companion`` command."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from companion import __version__
from companion.dice_cli import add_dice_command
from companion.errors import UserError
from companion.games.registry import manifest, manifests
from companion.record import BadRecord, dump_record, play_record, read_bytes
from companion.replay import replay_json, scoreboard_text
from companion.service.cli import add_service_commands
from companion.sim.random_player import play_random
from companion.state_dir import STATE_DIR_DEFAULT, default_state_dir


def _replay(args: argparse.Namespace) -> int:
    data = sys.stdin.buffer.read() if args.file == "-" else read_bytes(args.file)
    _, game, lines = play_record(data)
    if args.json:
        sys.stdout.write(json.dumps(replay_json(game, lines), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(scoreboard_text(game))
    return 0


def _simulate(args: argparse.Namespace) -> int:
    game = manifest(args.game)
    flags = frozenset(flag for flag in game_flags() if getattr(args, flag.replace("-", "_")))
    kit = game.simulator() if game.simulator is not None else None
    if kit is not None and kit.play is not None and not args.random_player:
        result = kit.play(args.players, args.seed, args.variant or game.variants[0], flags)
    else:
        result = play_random(game, args.players, args.seed, args.variant)
    text = dump_record(type(result.game), result.setup, result.events)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as error:
            raise UserError(f"cannot write {args.out}: {error.strerror or error}") from None
    scores = ", ".join(f"{name} {points}" for name, points in result.game.scores().items())
    summary = result.summary or f"{len(result.events)} events"
    won = ", ".join(result.game.winners())
    ending = f"; won by {won}" if won else ""
    print(f"wrote {args.out}: {summary}{ending}; scores: {scores}", file=sys.stderr)
    return 0


def game_flags() -> dict[str, str]:
    """Every flag any game's simulator offers, with what it does."""
    flags: dict[str, str] = {}
    for game in manifests():
        for flag, meaning in game.sim_flags.items():
            flags.setdefault(flag, f"{meaning} ({game.name})")
    return flags


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def _number(text: str, kind: type[int] | type[float], what: str) -> float:
    """A number from the command line, or a message that says what was wanted."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what}, not {text!r}") from None


def _port(text: str) -> int:
    port = int(_number(text, int, "a port number"))
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


def _host(text: str) -> str:
    from companion.web.net import host_problem

    problem = host_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{problem}, not {text!r}")
    return text


def _pin(text: str) -> str:
    from companion.web.security import is_pin

    if not is_pin(text):
        raise argparse.ArgumentTypeError(f"a table PIN is 4 to 12 digits, not {text!r}")
    return text


def _seconds(text: str) -> float:
    seconds = _number(text, float, "a pause in seconds")
    if not 0 <= seconds <= LONGEST_PAUSE:  # also refuses nan
        raise argparse.ArgumentTypeError(f"a pause is 0 to {LONGEST_PAUSE:g} seconds, not {text}")
    return seconds


LONGEST_PAUSE = 3600.0  # seconds; a longer one is a mistake, and infinity cannot be waited


DEMO_PACE = 3.0  # seconds between a replayed record's events


def _fps(text: str) -> float:
    from companion.cameras.settings import MAX_FPS

    fps = _number(text, float, "frames a second")
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
        args.fps, args.seed, args.host, args.port, args.state_dir, args.pin, not args.no_mdns, args.fresh
    )


def _serve(args: argparse.Namespace) -> int:
    from companion.live.table import Table
    from companion.store import GameStore
    from companion.web.server import serve

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


def _add_server_options(command: argparse.ArgumentParser, state_help: str) -> None:
    command.add_argument(
        "--host",
        type=_host,
        default="127.0.0.1",
        help="address to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 for phones)",
    )
    command.add_argument("--port", type=_port, default=8000, help="port (default: 8000)")
    command.add_argument("--state-dir", help=state_help)
    command.add_argument(
        "--pin", type=_pin, help="the table PIN for changes (default: one made once, kept in the state dir)"
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

    games = manifests()
    simulated = [g.name for g in games if g.simulator is not None]
    sim = commands.add_parser("simulate", help="play a legal game drawn by --seed and write its record")
    sim.add_argument(
        "--game", choices=simulated, default=simulated[0], help=f"the game (default: {simulated[0]})"
    )
    sim.add_argument("--players", type=int, default=None, help="how many (default: the game's fewest, or 3)")
    sim.add_argument(
        "--seed", type=int, default=0, help="which game: the same seed gives the same game (default: 0)"
    )
    sim.add_argument("--variant", default=None, help="one of the game's variants (default: its first)")
    for flag, meaning in game_flags().items():
        sim.add_argument(f"--{flag}", action="store_true", help=meaning)
    sim.add_argument(
        "--random-player",
        action="store_true",
        help="play with the one random player every game has, not the game's own simulator",
    )
    sim.add_argument("--out", required=True, help="where to write the record ('-' for stdout)")
    sim.set_defaults(run=_simulate, command_parser=sim)

    demo = commands.add_parser(
        "demo",
        help="serve the scoreboard while the simulated table is played and read by the camera pipeline",
    )
    demo.add_argument(
        "--fps", type=_fps, default=5.0, help="camera frames per second (default: 5, table pace)"
    )
    demo.add_argument(
        "--seed",
        type=int,
        default=1,
        help="which simulated game (default: 1), counted on from the games a kept store has played; "
        "with --fresh, exactly this one",
    )
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
    _add_server_options(
        demo,
        "where the demo keeps its games (default: ~/.local/state/table-companion-demo, kept from one "
        "run to the next; a record or --enrol: a temporary folder)",
    )
    demo.add_argument(
        "--fresh", action="store_true", help="play in a new, empty store, thrown away when the demo stops"
    )
    demo.set_defaults(run=_demo, command_parser=demo)

    server = commands.add_parser(
        "serve", help="serve the scoreboard over the game store; events come through the API"
    )
    _add_server_options(server, f"the game store (default: {STATE_DIR_DEFAULT})")
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

    for game in manifests():
        if game.commands is not None:
            game.commands()(commands)  # the game's own commands ("board read", "enroll")
    add_dice_command(commands)
    add_service_commands(commands)
    return parser


def _check_simulate(args: argparse.Namespace) -> None:
    """Refuse what the chosen game cannot simulate, in its own terms."""
    game = manifest(args.game)
    fewest, most = game.players
    if args.players is None:
        args.players = max(fewest, min(3, most))
    if not args.out.strip():
        args.command_parser.error("--out names the file to write (or - for standard output)")
    if not fewest <= args.players <= most:
        args.command_parser.error(f"{game.title} takes {fewest} to {most} players, not {args.players}")
    if args.variant is not None and args.variant not in game.variants:
        args.command_parser.error(
            f"{game.title} has the variants {', '.join(game.variants)}, not {args.variant!r}"
        )
    for flag in game_flags():
        if getattr(args, flag.replace("-", "_")) and flag not in game.sim_flags:
            args.command_parser.error(f"--{flag} is not for {game.title}")
    if game.simulator is None:
        args.command_parser.error(f"{game.title} has no simulator")
        return
    try:  # the seating the game's simulator would choose, tried on a throwaway generator
        game.simulator().setup(args.players, args.variant or game.variants[0], random.Random(0))
    except ValueError as error:
        args.command_parser.error(str(error))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "simulate":
        _check_simulate(args)
    if args.command == "demo" and args.pace is not None and not args.record:
        args.command_parser.error("--pace is the pause between a record's events: give --record too")
    if args.command == "demo" and args.fresh and args.state_dir:
        args.command_parser.error(
            "--fresh plays in a store of its own, thrown away: give --state-dir or --fresh"
        )
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
    except BrokenPipeError:  # the reader went away (``| head``): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    except OSError as error:  # the machine's, not ours: a folder that cannot be read, a full disk
        if os.environ.get("COMPANION_DEBUG"):
            raise
        paths = [str(path) for path in (error.filename, error.filename2) if path]
        where = f"{' -> '.join(paths)}: " if paths else ""
        print(f"companion {args.command}: {where}{error.strerror or error}", file=sys.stderr)
        return 1
    except Exception as error:  # a bug of ours: say so in one line, keep the trace for --debug
        if os.environ.get("COMPANION_DEBUG"):
            raise
        print(f"companion: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        print("companion: run again with COMPANION_DEBUG=1 to see where", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
