"""Whether a tray's reading can be a roll, and if not, what a person must do: one sentence that
names the tray, the player and the die ("re-roll the second die"). Never a guessed value."""

from __future__ import annotations

from collections.abc import Sequence

from companion.vision.dice_reading import PIPS, Die, FaceSet, TrayReading

# A floor under the reader's own judgement: a value less likely than not is never scored, whatever
# the reader's status says (the reader is meant to give None well before this).
MIN_CONFIDENCE = 0.5
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")


def dice_word(count: int) -> str:
    return f"{count} die" if count == 1 else f"{count} dice"


def _ordinals(indexes: Sequence[int]) -> str:
    words = [ORDINALS[i] if i < len(ORDINALS) else f"number {i + 1}" for i in indexes]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def reading_problem(
    reading: TrayReading, wanted: int, roller: str, tray: int, floor: float, faces: FaceSet = PIPS
) -> str | None:
    """What a person must do before this reading can be a roll of ``wanted`` dice of ``faces``,
    or None when it can. Dice are named left to right as the tray's picture shows them."""
    dice = sorted(reading.dice, key=lambda d: (d.box[0], d.box[1]))
    here = f"tray {tray}"
    count = len(dice)

    def unclear(die: Die) -> bool:
        return die.face is None or die.face not in faces or die.confidence < floor

    status = reading.status
    if status == "ok" and count > wanted:
        status = "too-many-dice"
    if status == "ok" and any(unclear(d) for d in dice):
        status = "unreadable-die"
    if status == "ok" and count == wanted:
        return None
    if status == "ok":
        # a reader that does not compare counts itself: fewer dice than wanted are never a roll
        status = "too-few-dice"
    if status == "too-few-dice":
        short = f"{here} shows {dice_word(count)}, but {roller} rolls {dice_word(wanted)}"
        what = f"{short}: roll {dice_word(wanted)}"
    elif status in ("dark", "overexposed"):
        light = "dark" if status == "dark" else "washed out"
        what = f"the picture of {here} is {light}: check its light and camera, then press its button"
    elif status == "no-dice":
        what = f"no dice seen in {here}: {roller} rolls {dice_word(wanted)} there"
    elif status == "blurred":
        what = f"the picture of {here} is blurred: let the dice lie still, then press its button"
    elif status == "hand":
        what = f"a hand is over {here}: take it away, then press its button"
    elif status == "die-on-edge":
        what = f"a die lies against the edge of {here}: re-roll it into the middle"
    elif status == "too-many-dice":
        extra = count - wanted
        what = (
            f"{here} holds {dice_word(count)}, but {roller} rolls {dice_word(wanted)}: "
            f"take {extra} out and roll again"
            if extra > 0
            else f"{here} holds more dice than {roller} rolls ({dice_word(wanted)}): take the extra out"
        )
    elif status == "unreadable-die":
        bad = [i for i, die in enumerate(dice) if unclear(die)]
        if bad:
            which = _ordinals(bad)
            noun = "die" if len(bad) == 1 else "dice"
            what = (
                f"{here}: the {which} {noun} from the left cannot be read (cocked?): "
                f"re-roll the {which} {noun}"
            )
        else:
            what = f"a die in {here} cannot be read (cocked?): re-roll it"
    else:
        what = f"the dice in {here} could not be read ({status}): roll again"
    return f"{what} ({reading.message})" if reading.message else what
