"""The ``companion`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from companion import __version__
from companion.errors import UserError
from companion.record import BadRecord, dump_record, parse_record, read_record, replay
from companion.replay import replay_json, scoreboard_text


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


def _seconds(text: str) -> float:
    seconds = float(text)
    if not seconds >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"a pause is 0 seconds or more, not {text}")
    return seconds


def _demo(args: argparse.Namespace) -> int:
    from companion.web.demo import run_demo

    return run_demo(args.record, args.pace, args.host, args.port, args.state_dir, args.pin, not args.no_mdns)


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


def _add_server_options(command: argparse.ArgumentParser, state_help: str) -> None:
    command.add_argument("--host", default="127.0.0.1", help="address to listen on; 0.0.0.0 for phones")
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

    sim = commands.add_parser("simulate", help="play a random legal game and write its record")
    sim.add_argument("--game", default="starwars", help="the game (default: starwars)")
    sim.add_argument("--players", type=int, default=3, help="2 to 5 (default: 3)")
    sim.add_argument("--seed", type=int, default=0, help="the same seed gives the same game")
    sim.add_argument("--variant", choices=("standard", "teams"), default="standard")
    sim.add_argument("--catalog-ids", action="store_true", help="write tiles as catalog ids, not inline")
    sim.add_argument("--out", required=True, help="where to write the record ('-' for stdout)")
    sim.set_defaults(run=_simulate)

    demo = commands.add_parser("demo", help="serve the scoreboard while replaying a game at table pace")
    demo.add_argument("--record", help="the record to replay (default: the bundled demo game)")
    demo.add_argument("--pace", type=_seconds, default=3.0, help="seconds between events (default: 3)")
    _add_server_options(demo, "where the demo keeps its game (default: a temporary folder)")
    demo.set_defaults(run=_demo)

    server = commands.add_parser(
        "serve", help="serve the scoreboard over the game store; events come through the API"
    )
    _add_server_options(
        server, "the game store (default: $STATE_DIRECTORY or ~/.local/state/table-companion)"
    )
    server.add_argument(
        "--threads", type=int, default=48, help="server threads; each open scoreboard holds one"
    )
    server.set_defaults(run=_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "simulate":
        if args.game != "starwars":
            parser.error(f"only --game starwars can be simulated so far, not {args.game}")
        if not 2 <= args.players <= 5:
            parser.error(f"Star Wars takes 2 to 5 players, not {args.players}")
        if args.variant == "teams" and args.players != 4:
            parser.error("the team variant is for exactly 4 players")
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
