"""Each rule of the Dice Game's text (shared/seeds/003) and each Reading of its contract, one test
each, on small games built event by event."""

from __future__ import annotations

import pytest
from test_dicegame import ANA_BEN, NINE, READING1, header, keep, knight, lay, play, roll, score, three_line

from companion.games.base import IllegalEvent
from companion.games.dicegame.engine import DiceGame
from companion.games.dicegame.events import Rolled, SetAside, TurnScored
from companion.games.dicegame.scoring import POINTS, city_points
from companion.games.shared_events import GameEnded

FILLER = ("knight",) * 9


def adjust(player: str, points: int) -> dict[str, object]:
    return {"event": "adjust", "player": player, "points": points, "reason": "carried over from last night"}


def test_the_start_player_is_the_first_and_the_dice_pass_to_the_next() -> None:
    """ "Se selecciona un jugador inicial ... pasa los dados al jugador a su izquierda" (Reading 13)."""
    game = play(header("Ana", "Ben", "Cara"), roll("Ana", *FILLER), score("Ana"))
    assert game.moment().turn_of == "Ben" and game.moment().turn == 2
    game = play(
        header("Ana", "Ben", "Cara"),
        *[event for who in ("Ana", "Ben", "Cara") for event in (roll(who, *FILLER), score(who))],
    )
    assert game.moment().turn_of == "Ana" and game.moment().turn == 4


def test_up_to_three_rolls_a_turn() -> None:
    game = play(ANA_BEN, roll("Ana", *FILLER), roll("Ana", *FILLER), roll("Ana", *FILLER))
    assert game.dice_to_roll() is None
    assert game.check(Rolled("Ana", FILLER)) == "Ana has already rolled 3 times this turn"
    assert game.check(TurnScored("Ana")) is None


def test_catapults_go_to_the_next_player_at_once() -> None:
    """ "el jugador pasa estos dados inmediatamente": not thrown again, not set aside, not scored."""
    game = play(ANA_BEN, roll("Ana", "catapult", "catapult", *FILLER[:7]))
    assert game.dice_to_roll() == 7
    assert "catapult" not in game.turn.tray  # type: ignore[union-attr]
    assert game.moment().prompts == ("Pass the 2 catapults to Ben now",)
    assert game.check(SetAside("Ana", "catapult")) == (
        "a catapult cannot be set aside: it went to the next player at once"
    )
    # the catapults do not cost the next player a die: they were passed on
    game = play(ANA_BEN, roll("Ana", "catapult", "catapult", *FILLER[:7]), score("Ana"))
    assert game.dice_to_roll() == 9


def test_a_city_die_set_aside_is_laid_at_once_and_never_moves_or_rolls_again() -> None:
    game = play(ANA_BEN, roll("Ana", "cap", *FILLER[:8]), lay("Ana", "cap", 0, 0, 1))
    assert game.dice_to_roll() == 8
    assert game.check(
        SetAside("Ana", "cap", (1, 0), 3)
    ) == "there is no cap in the tray: it holds " + ", ".join(FILLER[:8])
    assert game.check(Rolled("Ana", FILLER)) is not None  # 9 dice: the laid one is not thrown again


def test_knights_set_aside_are_not_rolled_again() -> None:
    game = play(ANA_BEN, roll("Ana", *NINE), knight("Ana"), knight("Ana"))
    assert game.dice_to_roll() == 6  # 9, less a catapult, less 2 knights


@pytest.mark.parametrize(
    ("laid", "fits"),
    [
        ((("cap", 0, 0, 1), ("cap", 1, 0, 3)), True),  # city meets city
        ((("cap", 0, 0, 0), ("cap", 1, 0, 0)), True),  # white meets white
        ((("cap", 0, 0, 1), ("cap", 1, 0, 0)), False),  # city meets white
        ((("cap", 0, 0, 0), ("cap", 5, 5, 2)), True),  # touching nothing: a second city (Reading 4)
    ],
)
def test_black_parts_meet_black_and_white_meets_white(
    laid: tuple[tuple[str, int, int, int], ...], fits: bool
) -> None:
    """ "Las partes negras deben estar adyacentes a otras partes negras, y las blancas a otras blancas"."""
    first, second = laid
    game = play(ANA_BEN, roll("Ana", "cap", "cap", *FILLER[:7]), lay("Ana", *first))
    assert (game.check(SetAside("Ana", second[0], (second[1], second[2]), second[3])) is None) == fits


def test_only_the_largest_closed_city_scores() -> None:
    """Reading 2: an open larger city does not stop a smaller closed one from scoring."""
    open_five = [lay("Ana", "cap", 0, 0, 1), *[lay("Ana", "straight", x, 0, 1) for x in (1, 2, 3, 4)]]
    closed_three = [lay("Ana", "cap", 0, 2, 1), lay("Ana", "straight", 1, 2, 1), lay("Ana", "cap", 2, 2, 3)]
    game = play(
        ANA_BEN,
        roll("Ana", "cap", "cap", "cap", *["straight"] * 5, "knight"),
        *open_five,
        *closed_three,
        score("Ana"),
    )
    entry = game.log[-1]
    assert (entry.points, entry.reason) == (1, "closed city of 3 dice = 1")
    assert entry.cells == ((0, 2), (1, 2), (2, 2))
    assert [(c["dice"], c["closed"]) for c in entry.detail["cities"]] == [(5, False), (3, True)]  # type: ignore[index]


def test_a_city_left_open_scores_nothing() -> None:
    """ "si el jugador no cerró la ciudad, él no puntuará dicho turno"."""
    game = play(
        ANA_BEN,
        roll("Ana", "cap", "straight", *FILLER[:7]),
        lay("Ana", "cap", 0, 0, 1),
        lay("Ana", "straight", 1, 0, 1),
        score("Ana"),
    )
    assert (game.log[-1].points, game.log[-1].reason) == (0, "no closed city = 0")
    game = play(ANA_BEN, roll("Ana", *FILLER), score("Ana"))
    assert (game.log[-1].points, game.log[-1].reason) == (0, "no city = 0")


def test_the_score_table() -> None:
    assert [city_points(n) for n in range(1, 10)] == [0, 0, 1, 3, 6, 10, 15, 21, 28]
    assert POINTS == {3: 1, 4: 3, 5: 6, 6: 10, 7: 15, 8: 21, 9: 28}


def test_three_knights_keep_one_and_score_nothing_this_turn() -> None:
    """ "podrá elegir no puntuar nada durante este turno ... se queda con 1 caballero": the city
    built is given up, the others roll one die fewer, and the next turn is doubled (Readings 7-9)."""
    game = play(
        ANA_BEN,
        roll("Ana", *NINE),
        knight("Ana"),
        knight("Ana"),
        knight("Ana"),
        lay("Ana", "cap", 0, 0, 0),
        lay("Ana", "cap", 0, -1, 2),
        keep("Ana"),
    )
    assert (game.log[-1].points, game.log[-1].kind) == (0, "knight")
    assert game.kept == {"Ana"} and game.dice_to_roll() == 8
    assert game.moment().players[0].label == "holds a kept knight"
    game = play(
        ANA_BEN,
        roll("Ana", *NINE),
        *[knight("Ana")] * 3,
        keep("Ana"),
        roll("Ben", *FILLER[:8]),
        score("Ben"),
        roll("Ana", "cap", "straight", "cap", *FILLER[:6]),
        *three_line("Ana"),
        score("Ana"),
    )
    assert (game.log[-1].points, game.log[-1].reason) == (
        2,
        "closed city of 3 dice = 1, doubled by a knight = 2",
    )
    assert game.kept == set()  # the knight was thrown with the rest, and now belongs to no one


def test_each_player_holds_at_most_one_knight_and_every_holder_costs_the_others_a_die() -> None:
    """ "cada jugador puede tener un caballero reduciendo el número de dados ... para los otros"."""
    names = ("Ana", "Ben", "Cara", "Dan", "Eva")
    events = []
    dice = 9
    for name in names[:4]:
        events += [roll(name, *(["knight"] * dice)), *[knight(name)] * 3, keep(name)]
        dice -= 1
    game = play(header(*names), *events)
    assert game.kept == set(names[:4])
    assert game.dice_to_roll() == 5  # Eva: 9 less 4 kept knights
    assert (
        game.check(Rolled("Eva", FILLER[:6]))
        == "Eva has 5 dice to roll, not 6 (4 knights kept by other players)"
    )
    # Ana's own knight is thrown with the rest: 9 less the 3 others hold
    game = play(header(*names), *events, roll("Eva", *FILLER[:5]), score("Eva"))
    assert game.dice_to_roll() == 6


def test_the_double_is_for_the_next_turn_only() -> None:
    """Reading 9: keeping again gives up this turn's double; doubles never stack."""
    game = play(
        ANA_BEN,
        roll("Ana", *NINE),
        *[knight("Ana")] * 3,
        keep("Ana"),
        roll("Ben", *FILLER[:8]),
        score("Ben"),
        roll("Ana", *FILLER),
        *[knight("Ana")] * 3,
        keep("Ana"),
        roll("Ben", *FILLER[:8]),
        score("Ben"),
        roll("Ana", "cap", "straight", "cap", *FILLER[:6]),
        *three_line("Ana"),
        score("Ana"),
        roll("Ben", *FILLER),
        score("Ben"),
        roll("Ana", "cap", "straight", "cap", *FILLER[:6]),
        *three_line("Ana"),
        score("Ana"),
    )
    assert [c.points for c in game.log if c.player == "Ana"] == [0, 0, 2, 1]


def test_nine_catapults_in_one_turn_win_at_once() -> None:
    """ "si un jugador saca 9 catapultas durante su turno, este gana inmediatamente" (Reading 10)."""
    game = play(
        ANA_BEN,
        roll("Ana", "catapult", *FILLER[:8]),
        score("Ana"),
        roll("Ben", *FILLER),
        score("Ben"),
        roll("Ana", *["catapult"] * 5, *FILLER[:4]),
        roll("Ana", *["catapult"] * 4),
    )
    assert game.finished and game.winners() == ["Ana"]
    assert (
        game.log[-1].kind == "catapults"
        and game.log[-1].reason == "9 catapults in one turn: wins at once = 0"
    )
    # the winning roll is the record's line 7 (the header is line 1)
    assert game.check(Rolled("Ben", FILLER)) == "the game is over: Ana won at line 7; only 'end' may follow"
    assert game.check(GameEnded()) is None
    # 8 over two turns do not win
    game = play(ANA_BEN, roll("Ana", *["catapult"] * 8, "knight"), score("Ana"))
    assert not game.finished


def test_42_points_win_and_the_game_stops_there() -> None:
    """Reading 11: 42 or more at a score ends the game; the others get no last turn."""
    game = play(
        ANA_BEN,
        adjust("Ana", 41),
        roll("Ana", "cap", "straight", "cap", *FILLER[:6]),
        *three_line("Ana"),
        score("Ana"),
    )
    assert game.finished and game.winners() == ["Ana"] and game.scores() == {"Ana": 42, "Ben": 0}
    assert game.moment().turn_of is None and game.moment().phase == "game over"
    assert game.check(Rolled("Ben", FILLER)) == "the game is over: Ana won at line 7; only 'end' may follow"
    # a hand correction alone does not end the game: only a score does
    game = play(ANA_BEN, adjust("Ana", 50))
    assert not game.finished
    # and the player's next score ends it, even one worth nothing (docs/dicegame.md)
    game = play(ANA_BEN, adjust("Ana", 50), roll("Ana", *["knight"] * 9), score("Ana"))
    assert game.finished and game.winners() == ["Ana"] and game.scores() == {"Ana": 50, "Ben": 0}


def test_a_win_names_its_line_and_an_engine_fed_without_lines_names_the_turn() -> None:
    """Replay and the live game set the line of each event; the win keeps the line it came on,
    whatever line is applied after. A simulation feeds the engine without lines."""
    game = play(ANA_BEN, roll("Ana", *["catapult"] * 9), {"event": "end"})
    assert game.line == 3 and game.won_how == "Ana won at line 2"
    fed = DiceGame(DiceGame.parse_setup(ANA_BEN))
    fed.apply(DiceGame.parse_event(roll("Ana", *["catapult"] * 9)))
    assert fed.check(Rolled("Ben", FILLER)) == (
        "the game is over: Ana won with 9 catapults in turn 1; only 'end' may follow"
    )


def test_end_drops_the_turn_under_way_and_names_no_winner() -> None:
    game = play(
        ANA_BEN,
        roll("Ana", "cap", "cap", *FILLER[:7]),
        lay("Ana", "cap", 0, 0, 2),
        lay("Ana", "cap", 0, 1, 0),
        {"event": "end"},
    )
    assert game.finished and game.winners() == [] and game.log == []
    assert game.check(GameEnded()) == "the game has ended: nothing may follow 'end'"


def test_a_face_of_two_segments_makes_two_separate_cities() -> None:
    """A die with two separate caps ["N", "S"] joins two cities, not one (the contract's Faces)."""
    faces = {"cap": ["N"], "two-caps": ["N", "S"], "straight": ["NS"], "three": ["NEW"]}
    game = play(
        header("Ana", "Ben", faces=faces),
        roll("Ana", "cap", "cap", "two-caps", *FILLER[:6]),
        lay("Ana", "cap", 0, 0, 2),
        lay("Ana", "two-caps", 0, 1, 0),
        score("Ana"),
    )
    cities = game.log[-1].detail["cities"]  # type: ignore[index]
    assert [(c["dice"], c["closed"]) for c in cities] == [(2, True), (1, False)]
    game = play(
        header("Ana", "Ben", faces=faces),
        roll("Ana", "cap", "cap", "two-caps", *FILLER[:6]),
        lay("Ana", "cap", 0, 0, 2),
        lay("Ana", "two-caps", 0, 1, 0),
        lay("Ana", "cap", 0, 2, 0),
        score("Ana"),
    )
    assert [(c["dice"], c["closed"]) for c in game.log[-1].detail["cities"]] == [(2, True), (2, True)]  # type: ignore[index]


def test_the_faces_table_is_reading1_when_the_header_names_none() -> None:
    game = play(header("Ana", "Ben"))
    assert game.faces.to_json() == READING1 and game.faces.name == "reading1"
    assert game.setup.to_json().get("faces") is None  # written back as it was: without one


def test_an_illegal_event_changes_nothing_and_check_agrees() -> None:
    game = play(ANA_BEN, roll("Ana", *NINE), lay("Ana", "cap", 0, 0, 1))
    before = (game.moment().to_json(), game.scores(), list(game.log))
    bad = SetAside("Ana", "corner", (1, 0), 0)
    reason = game.check(bad)
    with pytest.raises(IllegalEvent) as raised:
        game.apply(bad)
    assert raised.value.reason == reason
    assert (game.moment().to_json(), game.scores(), list(game.log)) == before


def test_the_legal_events_take_the_dice_thrown_as_chance() -> None:
    """A tray reading feeds the engine unchanged: the faces thrown are the roll."""
    game = play(ANA_BEN)
    assert game.legal_events() == [GameEnded()]
    assert game.legal_events(NINE) == [GameEnded(), Rolled("Ana", NINE)]
    assert game.legal_events(NINE[:8]) == [GameEnded()]  # 8 dice: not a roll that may come now
    game = play(ANA_BEN, roll("Ana", *NINE), lay("Ana", "cap", 0, 0, 1))
    listed = game.legal_events()
    assert TurnScored("Ana") in listed and SetAside("Ana", "knight") in listed
    assert (
        SetAside("Ana", "straight", (1, 0), 1) in listed
        and SetAside("Ana", "straight", (1, 0), 0) not in listed
    )
    assert all(game.check(event) is None for event in listed)


def test_the_moment_tells_the_table_what_it_needs() -> None:
    game = play(ANA_BEN, roll("Ana", *NINE), knight("Ana"), lay("Ana", "cap", 0, 0, 1))
    moment = game.moment()
    assert moment.turn_of == "Ana" and moment.turn == 1
    turn = moment.extras["turn"]
    assert turn["tray"] == ["knight", "knight", "straight", "cap", "corner", "three"]
    assert (turn["rolls"], turn["knights"], turn["catapults"]) == (1, 1, 1)
    assert turn["city"]["cities"] == [
        {"dice": 1, "closed": False, "open": 1, "cells": [[0, 0]], "words": "City 1: 1 die, open on 1 side"}
    ]
    assert turn["city"]["dice"][0]["open"] == "E"
    assert turn["fits"]["straight"]["1,0"] == [1, 3]  # a band turned to meet the cap, either way round
    assert turn["score_now"] == "no closed city = 0"
    assert moment.extras["dice_to_roll"] == 6 and moment.extras["rolls_left"] == 2


def test_describe_says_what_each_event_did() -> None:
    game = DiceGame(DiceGame.parse_setup(ANA_BEN))
    assert game.describe(Rolled("Ana", NINE)) == (
        "Ana rolled 9 dice: knight x3, cap x2, straight, corner, three, catapult"
    )
    assert (
        game.describe(SetAside("Ana", "corner", (1, 0), 2))
        == "Ana laid a corner at [1, 0], turned 2 quarters"
    )
    assert game.describe(SetAside("Ana", "knight")) == "Ana set aside a knight"
    assert game.describe(GameEnded()) == "The players stopped the game"
