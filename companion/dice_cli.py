"""``companion dice read IMAGE... [--json] [--expected N]``: the dice in pictures of a tray.

Each picture is read on its own: one that cannot be opened is named on stderr and the others
are still read; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.errors import UserError


def add_dice_command(commands: Any) -> None:
    """Register ``dice read`` on the companion's sub-commands."""
    dice = commands.add_parser("dice", help="read the dice in pictures of a dice tray")
    actions = dice.add_subparsers(dest="dice_command", required=True, metavar="ACTION")
    read = actions.add_parser("read", help="each die's value, box, colour and confidence in each IMAGE")
    read.add_argument("images", nargs="+", metavar="IMAGE", help="a picture of one tray (PNG, JPEG)")
    read.add_argument("--json", action="store_true", help="print a JSON array, one object per image")
    read.add_argument(
        "--expected", type=_count, metavar="N", help="how many dice were rolled (more are reported)"
    )
    read.add_argument("--model", help="the dice model (default: models/dice/dice.onnx)")
    read.set_defaults(run=run_dice_read)


def _count(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of dice, not {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"at least 1 die, not {number}")
    return number


def run_dice_read(args: argparse.Namespace) -> int:
    from companion.vision.dice import MIN_SIDE_PX, DiceReader
    from companion.vision.dice_model import DEFAULT_MODEL, DiceModel, DiceModelMissing
    from companion.vision.picture_file import UnreadablePicture, read_picture_file

    try:
        reader = DiceReader(DiceModel(Path(args.model) if args.model else DEFAULT_MODEL))
    except DiceModelMissing as error:
        raise UserError(str(error)) from None
    results: list[dict[str, Any]] = []
    failed = 0
    for path in args.images:
        try:
            picture = read_picture_file(path, MIN_SIDE_PX, "for a tray")
        except UnreadablePicture as error:
            reason = str(error).removeprefix(f"{path}: ")
            print(f"companion dice: {path}: {reason}", file=sys.stderr)
            results.append({"image": path, "dice": [], "status": "error", "message": reason})
            failed += 1
            continue
        reading = reader.read(picture, expected=args.expected)
        dice = [
            {
                "face": d.face,
                "value": d.value,
                "box": list(d.box),
                "confidence": d.confidence,
                "colour": d.colour,
            }
            for d in reading.dice
        ]
        results.append({"image": path, "dice": dice, "status": reading.status, "message": reading.message})
    if args.json:
        sys.stdout.write(json.dumps(results, ensure_ascii=False) + "\n")
    else:
        for result in results:
            if result["status"] != "error":
                sys.stdout.write(_line(result) + "\n")
    return 1 if failed else 0


def _line(result: dict[str, Any]) -> str:
    """One line a person reads: the values left to right, or what is wrong."""
    values = ", ".join(
        f"{d['value'] if d['value'] is not None else '?'} ({d['colour']}, {d['confidence']:.2f})"
        for d in result["dice"]
    )
    if result["status"] == "ok":
        count = len(result["dice"])
        return f"{result['image']}: {count} {'die' if count == 1 else 'dice'}: {values}"
    seen = f" [{values}]" if values else ""
    return f"{result['image']}: {result['status']}: {result['message']}{seen}"
