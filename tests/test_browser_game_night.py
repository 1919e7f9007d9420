"""A game night on the phone: a phone-sized Chromium plays a short Star Wars game with no trays
and no JSON typed, from joining to the winner screen.

The game is simulated game 100 (two players, six tiles, a battle fought with dice). The
phone joins as the first phone, sets the game up, enters every tile by tapping its place on the
board and choosing it from the box (turned as it lies), places the meeples by tapping where
they stand, taps in the battle's dice, fixes a tile it entered turned the wrong way, opens the
battle's score with the camera's picture, and ends the game. The camera's pictures come from a
simulated camera over the table as the phone entered it: the mat seen from straight above, as
the rectified view of a real camera shows it. Screenshots of each step go to build/screenshots/
(docs/playing.md shows them).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import make_site
from test_browser import _browser_or_skip, _fits_the_phone, _phone_browser, _wait, join_the_table

from companion.games.base import ScoreChange
from companion.games.starwars.engine import StarWarsGame
from companion.games.starwars.events import DiceRolled, MeeplePlaced, TilePlaced
from companion.games.starwars.setup import colour_of
from companion.games.starwars.sim.games import simulate_game
from companion.games.starwars.sim.render import (
    SCENE_PX_PER_MM,
    Camera,
    PlacedMeeple,
    PlacedTile,
    Renderer,
    Scene,
)
from companion.games.starwars.spots import spots_of
from companion.games.starwars.tiles import parse_tile
from companion.live.evidence import Picture
from companion.live.table import Table
from companion.vision.lattice import Lattice
from companion.vision.mat import PX_PER_MM, STANDARD_MAT
from companion.vision.overlay import score_picture, table_picture

REPO = Path(__file__).resolve().parent.parent
SHOTS = REPO / "build" / "screenshots"
SEED, TILES = 100, 6
STYLE = 10_007  # an art style of the kind the cell model knows


class TopViewCamera:
    """The camera's pictures of a score, from a simulated camera over the table as it stands:
    the mat seen from straight above, at the rectified view's scale."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.renderer = Renderer(Camera.from_seed(1))
        self.origin_mm = STANDARD_MAT.board.centre

    def view(self) -> tuple[np.ndarray, Lattice]:
        live = self.table.live
        assert live is not None and isinstance(live.engine, StarWarsGame)
        game = live.engine
        scene = Scene(self.origin_mm)
        for cell, tile in game.board.tiles.items():
            scene.tiles[cell] = PlacedTile(tile, STYLE)
        colours = {p.name: colour_of(p) for p in game.players}
        for meeple in game.meeples_on_board():
            tile = game.board.tiles[meeple.cell]
            feature = tile.features[meeple.feature_index]
            letter = "planet" if feature.kind == "planet" else "NESW"[feature.sides[0]]
            spot = spots_of(tile, letter)[0]
            scene.meeples.append(PlacedMeeple(meeple.cell, spot, colours[meeple.player], meeple.size))
        top = self.renderer.top_view(scene)
        scale = PX_PER_MM / SCENE_PX_PER_MM
        view = cv2.resize(top, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        lattice = Lattice((self.origin_mm[0] * PX_PER_MM, self.origin_mm[1] * PX_PER_MM))
        return view, lattice

    def pictures(self, changes: Sequence[ScoreChange]) -> list[Picture]:
        view, lattice = self.view()
        if not changes:
            return [Picture(table_picture(view))]
        return [Picture(score_picture(view, lattice, c.cells), i) for i, c in enumerate(changes) if c.cells]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Table]]:
    from werkzeug.serving import make_server

    site = make_site(tmp_path / "state")
    site.table.set_evidence(TopViewCamera(site.table))
    server = make_server("127.0.0.1", 0, site.app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", site.table
    finally:
        server.shutdown()
        site.table.store.close()


def shot(driver: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"game-night-{name}.png"
    path.unlink(missing_ok=True)
    assert driver.save_screenshot(str(path))
    return path


def tap(driver: Any, css: str) -> None:
    element = driver.find_element("css selector", css)
    if element.tag_name == "input":  # the input is hidden in its label: a finger taps the label
        element = element.find_element("xpath", "./ancestor::label")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def events_of(table: Table) -> int:
    return len(table.live.steps) if table.live is not None else 0


def until_recorded(table: Table, count: int) -> None:
    _wait(f"{count} events recorded", lambda: events_of(table), lambda n: n >= count, timeout=15)


def enter_tile(driver: Any, base: str, table: Table, event: TilePlaced, lying_as: dict[str, Any]) -> int:
    """On the fix page: tap the tile's place, choose its type from the box, turn it until it lies
    as ``lying_as``, place it. Returns the taps."""
    before = events_of(table)
    driver.get(f"{base}/fix")
    tap(driver, f'#enter-tile .target[data-cell="{event.at[0]},{event.at[1]}"]')
    tap(driver, f'#enter-tile button.way[data-type="{event.catalog_id}"]:not([hidden])')
    taps = 2
    for _ in range(4):
        picked = driver.find_element("css selector", "#enter-tile button.way.picked")
        if same_tile(json.loads(picked.get_attribute("data-tile")), lying_as):
            break
        tap(driver, "#enter-tile button.turn-tile")
        taps += 1
    if event.player is not None:
        shot(driver, "tile")
    tap(driver, "#enter-tile button.place-tile")
    until_recorded(table, before + 1)
    return taps + 1


def enter_meeple(driver: Any, base: str, table: Table, event: MeeplePlaced) -> int:
    before = events_of(table)
    driver.get(f"{base}/fix")
    tap(driver, f'#enter-meeple input[name=meeple-size][value="{event.size}"]')
    shot(driver, "meeple")
    tap(driver, f'#enter-meeple .spot[data-at="{event.at[0]},{event.at[1]}"][data-feature="{event.feature}"]')
    until_recorded(table, before + 1)
    return 2


def enter_roll(driver: Any, base: str, table: Table, event: DiceRolled) -> int:
    before = events_of(table)
    driver.get(f"{base}/fix")
    rows = driver.find_elements("css selector", "#enter-dice form.dice-row")
    index = next(i for i, r in enumerate(rows) if event.player in r.text)
    row = f"#enter-dice form.dice-row:nth-of-type({index + 1})"
    for value in event.dice:
        tap(driver, f'{row} button.face[data-face="{value}"]')
    shot(driver, "dice")
    tap(driver, f"{row} button[type=submit]")
    until_recorded(table, before + 1)
    return len(event.dice) + 1


def test_a_short_game_is_played_on_the_phone_in_taps(served: tuple[str, Table], tmp_path: Path) -> None:
    _browser_or_skip()
    base, table = served
    script = simulate_game(2, SEED, tiles=TILES, catalog_ids=True, meeple_chance=0.8)
    assert any(isinstance(e, DiceRolled) for e in script.events), "the game has a battle"
    taps = 0
    with _phone_browser(tmp_path / "profile", tmp_path) as driver:
        taps += join_the_table(driver, base)
        # --- setup: the game, two players and their colours
        driver.get(f"{base}/setup")
        rows = driver.find_elements("css selector", "#players-form .player-row")
        while len(rows) > 2:
            rows[-1].find_element("css selector", "button.remove").click()
            rows = driver.find_elements("css selector", "#players-form .player-row")
        for row, player in zip(rows, script.setup.players, strict=True):
            row.find_element("name", "name").send_keys(player.name)
            row.find_element("css selector", f'select[name=color] option[value="{player.color}"]').click()
            taps += len(player.name) + 1
        _fits_the_phone(driver)
        shot(driver, "setup")
        tap(driver, "#setup button[type=submit]")
        taps += 1
        _wait("the game started", lambda: table.live is not None, bool)
        # the setup page goes on to the scoreboard by itself: wait, or its navigation replaces
        # the next page asked for
        _wait("the scoreboard", lambda: driver.current_url, lambda url: url == f"{base}/")
        # --- play: every event in taps; the second tile entered turned wrong, then fixed
        wrong_done = False
        for event in script.events:
            if isinstance(event, TilePlaced):
                lying = event.tile.to_json()
                ways = [t.to_json() for _, t in event.tile.distinct_rotations()]
                wrong = None
                if not wrong_done and event.player is not None:
                    wrong = next(
                        (w for w in ways if not same_tile(w, lying) and _fits(table, event, w)), None
                    )
                if wrong is not None:
                    taps += enter_tile(driver, base, table, event, wrong)
                    taps += fix_the_turn(driver, base, table, lying)
                    wrong_done = True
                else:
                    taps += enter_tile(driver, base, table, event, lying)
            elif isinstance(event, MeeplePlaced):
                taps += enter_meeple(driver, base, table, event)
            elif isinstance(event, DiceRolled):
                taps += enter_roll(driver, base, table, event)
                _fits_the_phone(driver)
        assert wrong_done, "a tile was entered turned wrong, and fixed"
        # --- the battle's score, opened from the scoreboard with the camera's picture
        driver.get(f"{base}/")
        _fits_the_phone(driver)
        shot(driver, "scoreboard")
        battle = next(i for i, c in enumerate(table.live.engine.log) if c.kind == "battle")  # type: ignore[union-attr]
        driver.get(f"{base}/scores/{battle}")
        picture = driver.find_element("css selector", "figure.picture img")
        loaded = driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth;", picture)
        assert loaded and loaded > 50, "the camera's picture of the battle is shown"
        shot(driver, "evidence")
        # --- the end: final scoring and the winner screen
        driver.get(f"{base}/setup")
        tap(driver, "#end-game")
        driver.switch_to.alert.accept()
        taps += 2
        _wait(
            "the winner screen", lambda: driver.find_elements("css selector", "#winner h1"), bool, timeout=15
        )
        winners = driver.find_element("css selector", "#winner h1").text
        _fits_the_phone(driver)
        shot(driver, "winner")
    engine = table.live.engine  # type: ignore[union-attr]
    assert engine.finished and engine.scores() == script.game.scores()
    won = script.game.winners()
    assert winners == f"{' and '.join(won)} {'wins' if len(won) == 1 else 'share the win'}"
    record = [json.loads(line) for line in table.record_text().splitlines()[1:]]  # type: ignore[union-attr]
    assert all((e.get("meta") or {}).get("source") == "phone" for e in record if e["event"] != "end")
    assert any("correction" in (e.get("meta") or {}) for e in record)  # the fixed tile says so
    print(f"\nplayed a {TILES}-tile game on the phone with {taps} taps and keys; screenshots in {SHOTS}")


def same_tile(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two inline tiles that lie alike, however their features and sides are written."""
    return parse_tile(a) == parse_tile(b)


def _fits(table: Table, event: TilePlaced, way: dict[str, Any]) -> bool:
    engine = table.live.engine  # type: ignore[union-attr]
    return engine.board.fit_error(event.at, parse_tile(way)) is None


def fix_the_turn(driver: Any, base: str, table: Table, lying: dict[str, Any]) -> int:
    """From the timeline: "That's wrong" on the last tile, turn it a quarter until it lies as it
    does on the table, say why, save."""
    before = len(table.live.journal)  # type: ignore[union-attr]
    driver.get(f"{base}/timeline")
    tap(driver, "#timeline li.event .fix-links a")
    form = driver.find_element("css selector", "li:target form.fix, details[open] form.fix")
    taps = 1
    for _ in range(4):
        if same_tile(json.loads(form.find_element("name", "event").get_attribute("value"))["tile"], lying):
            break
        form.find_element("css selector", "button.rotate").click()
        taps += 1
    form.find_element("name", "reason").send_keys("turned the wrong way")
    shot(driver, "fix")
    form.find_element("css selector", "button[type=submit]").click()
    _wait("the correction stored", lambda: len(table.live.journal), lambda n: n > before)  # type: ignore[union-attr]
    time.sleep(0.8)  # the page reloads after a correction
    return taps + len("turned the wrong way") + 1
