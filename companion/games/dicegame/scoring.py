"""What a turn scores, and the words that say why (shared/spec/dicegame.md, Scoring and Replay)."""

from __future__ import annotations

from dataclasses import dataclass

from companion.games.dicegame.city import City

ROLLS = 3  # "lanza los dados hasta 3 veces"
GOAL = 42  # "Tan pronto un jugador puntúe 42 puntos en total, el juego termina"
CATAPULTS_TO_WIN = 9
KNIGHTS_TO_KEEP = 3
# the seed's table: dice in the largest closed city -> points (fewer than 3 dice score nothing)
POINTS = {3: 1, 4: 3, 5: 6, 6: 10, 7: 15, 8: 21, 9: 28}

RULES = {
    "city": (
        "Only the dice of the largest closed city count: 3 dice score 1, 4 score 3, 5 score 6, "
        "6 score 10, 7 score 15, 8 score 21, 9 score 28; fewer than 3, or no closed city, score 0. "
        "A knight kept the turn before doubles the points."
    ),
    "knight": (
        "With 3 or more knights set aside, the player may score nothing this turn and keep one "
        "knight: the next turn's points are doubled, and the others have one die fewer until then."
    ),
    "catapults": "A player who throws 9 catapults in one turn wins at once, whatever the scores.",
    "adjust": "A score corrected by hand on a phone, with the reason given.",
}


def city_points(size: int) -> int:
    return POINTS.get(size, 0)


@dataclass(frozen=True, slots=True)
class TurnScore:
    points: int
    reason: str
    city: City | None  # the city that was counted: the largest closed one


def score_turn(best: City | None, laid: int, double: bool) -> TurnScore:
    """The points of a turn that ends with ``score``: ``best`` its largest closed city, ``laid``
    how many city dice it laid, ``double`` whether a kept knight began the turn."""
    if best is not None:
        base = city_points(best.size)
        words = f"closed city of {best.size} dice = {base}"
    else:
        base = 0
        words = "no closed city = 0" if laid else "no city = 0"
    if double:
        return TurnScore(2 * base, f"{words}, doubled by a knight = {2 * base}", best)
    return TurnScore(base, words, best)


def knight_reason(knights: int) -> str:
    return f"{knights} knights: no score this turn, a knight kept to double the next = 0"


CATAPULTS_REASON = f"{CATAPULTS_TO_WIN} catapults in one turn: wins at once = 0"
