"""The table's main loop (``companion run``'s): frames through the pipeline, a lost camera on the
scoreboard, a fresh pipeline per game, enrolment between games, and the watchdog fed every turn."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import record_lines

from companion.cameras.base import CameraError, Frame
from companion.cameras.feed import CameraFeed
from companion.cameras.simulated import FramesCamera, disconnected
from companion.config import parse_config
from companion.games.base import IllegalEvent
from companion.games.starwars.reader.enrolment import Enrolment, EnrolmentCamera
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.reader.maker import StarWarsReader, StarWarsReaderMaker
from companion.games.starwars.reader.tracker import DiceSource
from companion.games.starwars.sim.enrol_table import EnrolTable
from companion.games.starwars.sim.play import simulated_game
from companion.games.starwars.sim.table_games import SimulatedGames
from companion.live.table import Table
from companion.service.run import build_trays, tray_pictures
from companion.service.runner import MAX_FAILURES, NoCamera, TableRunner
from companion.store import GameStore
from companion.table.links import GameLink, TableLink
from companion.table.reader import ReaderKit
from companion.vision.lattice import Lattice
from companion.vision.watcher import aligned

TILES = 6  # a short game: enough turns to show the loop reads, short enough for the suite


class Heartbeat:
    def __init__(self) -> None:
        self.kicks = 0
        self.said: list[str] = []

    def kick(self) -> None:
        self.kicks += 1

    def status(self, text: str) -> None:
        self.said.append(text)


def placed(table: Table, game: int | None = None) -> list[dict[str, Any]]:
    """The tile events of the game under way (or of game ``game``), as stored."""
    text = table.record_text(game)
    assert text is not None
    import json

    lines = [json.loads(line) for line in text.splitlines()[1:]]
    return [{k: v for k, v in e.items() if k != "meta"} for e in lines if e["event"] == "tile"]


def truth_tiles(seed: int) -> list[dict[str, Any]]:
    truth = simulated_game(seed, tiles=TILES)
    events = [type(truth.game).event_to_json(e) for e in truth.events]
    return [{k: v for k, v in e.items() if k != "meta"} for e in events if e["event"] == "tile"]


def until_ended(runner: TableRunner) -> None:
    """Turn the loop as companion run does, until the source has ended (its first idle pause)."""
    stop = threading.Event()
    runner.pause = lambda _: stop.set()
    runner.run(stop)


def star_wars_readers(dice: DiceSource | None) -> Callable[[GameLink], StarWarsReader]:
    """How the service makes each game's reader, for Star Wars, with its battle dice from ``dice``."""
    maker = StarWarsReaderMaker()
    maker.start(ReaderKit(fps=5.0))
    maker.dice = dice
    return maker.reader


def runner_over(
    table: Table, games: SimulatedGames, faults: Any = None
) -> tuple[TableRunner, Heartbeat, CameraFeed]:
    camera = FramesCamera(games.frames(), faults=faults)
    feed = CameraFeed(camera, sleep=lambda _: None, backoff=(0.0,), max_age=60.0)
    heartbeat = Heartbeat()
    build = star_wars_readers(games)
    return TableRunner(table, feed, build, heartbeat), heartbeat, feed


def test_a_game_is_read_and_the_watchdog_is_fed_every_turn(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path))
    games = SimulatedGames(table, fps=0, first_seed=3, games=1, tiles=TILES)
    runner, heartbeat, feed = runner_over(table, games)
    until_ended(runner)
    assert feed.ended and games.played == 1
    assert placed(table) == truth_tiles(3)
    assert table.live is not None and table.live.engine.finished
    assert heartbeat.kicks == runner.turns == runner.frames + 2  # every turn: + opening, + the end
    assert heartbeat.said[0] == "reading the table"
    assert heartbeat.said[1:] == ["The camera has no more pictures: simulated table: no more frames."]


def test_a_lost_camera_shows_on_the_scoreboard_and_the_game_goes_on(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path))
    games = SimulatedGames(table, fps=0, first_seed=3, games=1, tiles=TILES)
    runner, heartbeat, feed = runner_over(table, games, faults=disconnected(40, 3))
    seen: list[str | None] = []
    while not feed.ended:
        runner.step()
        seen.append(table.state()["camera"]["status"])
    lost = [status for status in seen if status and status.startswith("Camera lost")]
    assert lost, seen
    assert any(said.startswith("Camera lost") for said in heartbeat.said)
    back = max(i for i, said in enumerate(heartbeat.said) if said.startswith("Camera lost")) + 1
    assert "reading the table" in heartbeat.said[back:]  # and back once frames flow again
    assert feed.faults == 3
    # three frames lost while the hands were away: the still scenes around them are read all the same
    assert placed(table) == truth_tiles(3)


def test_each_new_game_is_read_from_an_empty_mat(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path))
    games = SimulatedGames(table, fps=0, first_seed=3, games=2, tiles=TILES)
    runner, _, _ = runner_over(table, games)
    until_ended(runner)
    first, second = (row.id for row in reversed(table.games()))
    assert placed(table, first) == truth_tiles(3)
    assert placed(table, second) == truth_tiles(4)


def test_between_games_the_camera_feeds_the_enrolment_page(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path))  # no game under way
    enrolment = Enrolment(tile_gallery())
    box = EnrolTable(1_000_000)
    frames = (box.frame() for _ in range(40))
    feed = CameraFeed(FramesCamera(frames), sleep=lambda _: None, max_age=60.0)
    build = star_wars_readers(None)
    runner = TableRunner(table, feed, build, Heartbeat(), enrolment=EnrolmentCamera(enrolment))
    until_ended(runner)
    assert len(enrolment.state()["tiles"]) == len(box.truth)
    assert enrolment.state()["game_under_way"] is False


def test_while_a_game_is_read_the_enrolment_page_is_told_why_it_waits(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path))
    table.start(record_lines("route-battle.jsonl")[0])
    enrolment = Enrolment(tile_gallery())
    box = EnrolTable(1_000_000)
    feed = CameraFeed(FramesCamera(box.frame() for _ in range(40)), sleep=lambda _: None, max_age=60.0)
    build = star_wars_readers(None)
    runner = TableRunner(table, feed, build, Heartbeat(), enrolment=EnrolmentCamera(enrolment))
    until_ended(runner)
    state = enrolment.state()
    assert state["game_under_way"] is True and state["tiles"] == []  # the game had the camera


class Broken:
    """A reader that fails on every frame: a bug of ours, not the camera's."""

    def __init__(self, reader: StarWarsReader) -> None:
        self.reader = reader

    def step(self, frame: np.ndarray | None) -> list[dict[str, Any]]:
        raise RuntimeError("a bug")


def test_a_loop_that_fails_on_every_frame_stops_the_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = Table(GameStore(tmp_path))
    games = SimulatedGames(table, fps=0, first_seed=3, games=1, tiles=TILES)
    fatal: list[bool] = []
    build = star_wars_readers(games)

    def broken(link: TableLink) -> Any:
        return Broken(build(link))

    feed = CameraFeed(FramesCamera(games.frames()), sleep=lambda _: None, max_age=60.0)
    runner = TableRunner(table, feed, broken, Heartbeat(), on_fatal=lambda: fatal.append(True))
    runner.run(threading.Event())
    assert fatal == [True] and runner.failed and runner.failures == MAX_FAILURES
    err = capsys.readouterr().err
    assert "RuntimeError: a bug" in err and f"{MAX_FAILURES} frames in a row failed" in err


def test_a_lattice_found_mid_game_is_numbered_as_the_games_board() -> None:
    """After a restart the camera finds the tiles in view; they are the game's cells, shifted."""
    found = Lattice((200.0, 150.0))  # (0, 0): the tile nearest the board's centre
    laid = {(0, 0), (0, -1), (1, -1), (-1, -1)}
    lattice, cells = aligned(found, [(0, 0), (0, 1), (1, 0), (-1, 0)], laid)
    assert cells == [(0, -1), (0, 0), (1, -1), (-1, -1)]
    assert lattice.centre((0, -1)) == (200.0, 150.0)
    assert aligned(found, [(0, 0)], set()) == (found, [(0, 0)])  # a new game: as found
    # four tiles in view, but no shift puts even two of them on the game's four: as found
    scattered = [(0, 0), (3, 0), (0, 3), (3, 3)]
    assert aligned(found, scattered, laid) == (found, scattered)


def test_each_tray_is_seen_in_its_region_of_a_fresh_picture() -> None:
    config = parse_config(
        {
            "trays": {
                "pin_factory": "mock",
                "tray": [
                    {"button": 17, "led": [5, 6, 13], "region": [10, 20, 64, 48]},
                    {"button": 22, "led": [24, 25, 12], "region": [600, 400, 64, 48]},
                ],
            }
        }
    )
    assert config.trays is not None
    image = np.zeros((240, 320, 3), np.uint8)
    image[20:68, 10:74] = 200  # the first tray's region, and only it
    now = [100.0]
    latest: list[Frame | None] = [Frame(image, 1, 100.0)]
    picture = tray_pictures(lambda: latest[0], config.trays, lambda: now[0])
    first = picture(0)
    assert first.shape == (48, 64, 3) and int(first.min()) == 200
    with pytest.raises(CameraError, match=r"trays.tray\[1\].region .* lies outside the camera's 320x240"):
        picture(1)
    now[0] = 101.0  # the newest picture is a second old: the dice may have moved since
    with pytest.raises(CameraError, match="no fresh picture of the trays"):
        picture(0)
    latest[0] = None
    with pytest.raises(CameraError, match="no fresh picture"):
        picture(0)


TWO_TRAYS = {
    "trays": {
        "pin_factory": "mock",
        "tray": [
            {"button": 17, "vibration": 27, "led": [5, 6, 13], "region": [0, 0, 64, 64]},
            {"button": 22, "vibration": 23, "led": [24, 25, 12], "region": [64, 0, 64, 64]},
        ],
    }
}


def test_configured_trays_are_built_on_their_pins_and_let_go_on_the_way_out() -> None:
    config = parse_config(TWO_TRAYS)
    with ExitStack() as stack:
        battle, dice_camera = build_trays(config, lambda: None, stack)
        assert battle is not None and dice_camera is None and [tray.number for tray in battle.trays] == [1, 2]
        assert battle.status is None  # dark until a battle waits
        closed = [tray.button for tray in battle.trays]
    assert all(button.closed for button in closed)
    assert build_trays(parse_config({}), lambda: None, ExitStack()) == (None, None)


def test_a_dice_camera_of_its_own_is_read_all_the_time_and_its_trouble_shown(tmp_path: Path) -> None:
    import cv2

    folder = tmp_path / "tray"
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), np.full((60, 80, 3), 90, np.uint8))
    config = parse_config(
        {
            "dice_camera": {"source": "folder", "folder": str(folder), "realtime": False},
            "trays": {"pin_factory": "mock", "tray": [{"button": 17, "led": [5, 6, 13]}]},
        }
    )
    with ExitStack() as stack:
        battle, dice_camera = build_trays(config, lambda: None, stack)
        assert battle is not None and dice_camera is not None
        for _ in range(50):
            if dice_camera.latest() is not None:
                break
            time.sleep(0.05)
        latest = dice_camera.latest()
        assert latest is not None and latest.image.shape == (60, 80, 3)
        for _ in range(50):  # one picture, not looped: the folder ends, and says so
            if dice_camera.status():
                break
            time.sleep(0.05)
        assert (dice_camera.status() or "").startswith("Dice camera: The camera has no more pictures")
    assert not dice_camera._thread.is_alive()


def test_a_table_without_a_camera_still_turns_for_the_trays_and_the_watchdog(tmp_path: Path) -> None:
    table = Table(GameStore(tmp_path))
    naps: list[float] = []
    heartbeat = Heartbeat()
    runner = TableRunner(table, NoCamera(sleep=naps.append), star_wars_readers(None), heartbeat)
    for _ in range(3):
        runner.step()
    assert naps == [0.2, 0.2, 0.2] and runner.frames == 0
    assert table.state()["camera"]["status"] == "no camera: enter what happens on the phone"
    assert heartbeat.said == ["no camera: enter what happens on the phone"]


@pytest.mark.parametrize("sigint", ["handled", "ignored"])
def test_a_loop_that_fails_on_every_frame_ends_companion_run_with_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sigint: str
) -> None:
    """Not 0, which systemd's Restart=on-failure would take for a wanted stop; and it stops even
    when started with SIGINT ignored, as a shell without job control starts a program with &."""
    from conftest import free_port

    from companion.cameras.settings import camera_settings
    from companion.config import Config, WebSettings
    from companion.service import run

    class Dead:
        def step(self, frame: np.ndarray) -> list[dict[str, Any]]:
            raise RuntimeError("a bug")

    monkeypatch.setattr(run.Readers, "build", lambda self, link: Dead())
    port = free_port()
    config = Config(
        state_dir=tmp_path,
        web=WebSettings(host="127.0.0.1", port=port, pin="2468", mdns=False),
        camera=camera_settings({"source": "simulator", "fps": 50}),
    )

    def too_long(signum: int, frame: object) -> None:
        raise TimeoutError("companion run did not stop within 30 s of its loop failing")

    term = signal.getsignal(signal.SIGTERM)
    before = signal.signal(
        signal.SIGINT, signal.SIG_IGN if sigint == "ignored" else signal.default_int_handler
    )
    alarm = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(30)
    try:
        assert run.run_table(config) == 1
    except (KeyboardInterrupt, SystemExit):
        pytest.fail("the loop's signal escaped the server")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, alarm)
        signal.signal(signal.SIGINT, before)
        signal.signal(signal.SIGTERM, term)  # serve() set its own


class RefusingTable:
    """A table whose rules refuse every end: the game on it has parted from the one played."""

    def __init__(self) -> None:
        self.started = 0

    def start(self, header: Any) -> None:
        self.started += 1

    def add(self, event: Any) -> None:
        raise IllegalEvent("a battle is waiting for dice")


def test_a_game_the_rules_will_not_end_is_left_unfinished_and_play_goes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = RefusingTable()
    games = SimulatedGames(table, fps=0, first_seed=3, games=2, tiles=2)  # type: ignore[arg-type]
    frames = sum(1 for _ in games.frames())  # the feed does not end at the first refusal
    assert frames > 0 and table.started == 2
    assert games.played == 2 and games.left_unfinished == 2
    assert "game left unfinished (a battle is waiting for dice)" in capsys.readouterr().err


def test_trays_let_go_at_once_leave_no_thread_failing(monkeypatch: pytest.MonkeyPatch) -> None:
    # gpiozero's RGBLED.close lets its LEDs go before it stops the thread that redraws them;
    # closed at once, about 1 build in 20 failed in that thread before the tray stopped it first
    failures: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda hook: failures.append(repr(hook.exc_value)))
    config = parse_config(TWO_TRAYS)
    for _ in range(60):  # before the fix, 60 builds failed at least once 97 times in 100
        with ExitStack() as stack:
            build_trays(config, lambda: None, stack)
    assert failures == []
