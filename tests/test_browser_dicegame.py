"""The Dice Game played on a phone in a real browser: two turns entered in taps on the fix page,
one that closes a city and scores it, one that sets three knights aside and keeps one; the
scoreboard follows each.

It uses the real-browser helpers of tests/test_browser.py (Debian's chromium and chromedriver;
skipped without them unless COMPANION_REQUIRE_BROWSER=1). Screenshots: build/screenshots/dicegame-*.png.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conftest import PIN
from test_browser import REPO, Client, _browser_or_skip, _fits_the_phone, _phone_browser, _server, _wait
from test_dicegame import READING1, header

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

SHOTS = REPO / "build" / "screenshots"


def _join(driver: WebDriver, base: str) -> None:
    """Let this phone change the game: through the Join page where the companion has one, else
    with the table PIN kept for the tab, as the pages ask for it."""
    try:
        from test_browser import join_the_table
    except ImportError:
        driver.get(f"{base}/fix")
        driver.execute_script(f"sessionStorage.setItem('table-pin', '{PIN}');")
        return
    join_the_table(driver, base)


def _tap(driver: WebDriver, css: str) -> None:
    driver.find_element("css selector", css).click()


def _tap_and_reload(driver: WebDriver, css: str) -> None:
    """Tap what sends an event; the page is drawn again once the companion took it."""
    driver.execute_script("window.__before = true;")
    _tap(driver, css)
    _wait(
        "the page drawn again after the event",
        lambda: driver.execute_script(
            "return [window.__before === undefined, document.readyState, "
            "document.getElementById('message')?.textContent];"
        ),
        lambda seen: seen[0] and seen[1] == "complete",
    )


def _enter_roll(driver: WebDriver, faces: list[str]) -> None:
    for face in faces:
        _tap(driver, f'#roll-entry .dg-add[data-face="{face}"]')
    assert driver.find_element("id", "thrown-count").text == f"{len(faces)} of {len(faces)}"
    _tap_and_reload(driver, "#roll-send")


def _lay(driver: WebDriver, face: str, at: str, turns: int) -> None:
    """Tap the die in the tray, the lit cell, "Turn it" ``turns`` times, then "Lay it here"."""
    _tap(driver, f'#tray .dg-take[data-face="{face}"]')
    lit = [c.get_attribute("data-at") for c in driver.find_elements("css selector", ".dg-cell.dg-can")]
    assert at in lit, f"{face} may go to {lit}"
    _tap(driver, f'.dg-cell[data-at="{at}"]')
    for _ in range(turns):
        _tap(driver, "#lay-turn")
    assert driver.find_elements("css selector", "#dg-preview-spot use"), "the die is shown where it goes"
    _tap_and_reload(driver, "#lay-send")


def _record(base: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{base}/api/record", timeout=10) as response:
        return [json.loads(line) for line in response.read().decode().splitlines()]


def _scores(driver: WebDriver) -> dict[str, str]:
    return dict(
        driver.execute_script(
            "return [...document.querySelectorAll('#players li.player')]"
            ".map((li) => [li.dataset.player, li.querySelector('.score').textContent.trim()]);"
        )
    )


def _shot(driver: WebDriver, name: str) -> Path:
    path = SHOTS / f"dicegame-{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    assert driver.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5_000
    return path


def test_two_turns_played_on_the_phone_a_closed_city_and_three_knights_kept(tmp_path: Path) -> None:
    _browser_or_skip()
    with _server(tmp_path / "state", tmp_path) as base:
        Client(base).post("/api/games", header("Ana", "Ben", faces=READING1), status=201)
        with _phone_browser(tmp_path / "profile", tmp_path) as driver:
            _join(driver, base)
            driver.get(f"{base}/fix#dice-entry")
            _fits_the_phone(driver)

            # Ana: one roll, a cap, a band and a cap laid in a row (the first cap turned once, to
            # face east), and the closed city of 3 dice scored
            _enter_roll(
                driver,
                ["cap", "straight", "cap", "knight", "knight", "corner", "three", "corner", "catapult"],
            )
            _lay(driver, "cap", "0,0", turns=1)
            _lay(driver, "straight", "1,0", turns=0)
            _tap(driver, '#tray .dg-take[data-face="cap"]')
            _tap(driver, '.dg-cell[data-at="2,0"]')
            driver.execute_script("document.querySelector('#dice-entry h2').scrollIntoView();")
            laying = _shot(driver, "laying")
            _tap_and_reload(driver, "#lay-send")
            entry = driver.find_element("id", "dice-entry").text
            assert "City 1: 3 dice, closed" in entry and "The largest closed city has 3 dice." in entry
            score_button = driver.find_element("id", "score-turn")
            assert score_button.text == "Score the turn: closed city of 3 dice = 1"
            _tap_and_reload(driver, "#score-turn")

            driver.get(f"{base}/")
            _wait(
                "Ana's 1 point on the scoreboard",
                lambda: _scores(driver),
                lambda s: s == {"Ana": "1", "Ben": "0"},
            )
            board = driver.find_element("id", "players").text
            assert "Last turn: closed city of 3 dice = 1" in board and "41 to 42" in board
            # the city is the table, drawn once below the players: the 3 dice that scored outlined
            city = driver.find_element("css selector", "#board .dg-board")
            assert city.find_element("tag name", "h2").text.lower() == "ana's city, last turn"
            assert len(city.find_elements("css selector", ".dg-die.dg-scored")) == 3
            assert not driver.find_elements("css selector", "#players .dg-city")
            _fits_the_phone(driver)
            closed = _shot(driver, "closed-city")

            # Ben: three knights set aside, one tap each, and one kept
            driver.get(f"{base}/fix#dice-entry")
            assert driver.find_element("css selector", "#dice-entry h2").text.startswith("BEN'S TURN")
            _enter_roll(
                driver, ["knight", "knight", "knight", "cap", "cap", "straight", "corner", "three", "three"]
            )
            for _ in range(3):
                _tap_and_reload(driver, '#tray .dg-take[data-face="knight"]')
            _tap_and_reload(driver, "#keep-knight")

            driver.get(f"{base}/")
            _wait(
                "Ben's kept knight on the scoreboard",
                lambda: driver.find_element("id", "players").text,
                lambda text: "holds a kept knight" in text,
            )
            summary = driver.find_element("id", "summary").text
            assert "Ana's turn" in summary and "8 dice to throw" in summary  # Ben's knight is his
            assert "3 knights: no score this turn" in driver.find_element("id", "log").text
            kept = _shot(driver, "knight-kept")

            console = driver.get_log("browser")
            errors = [
                e["message"] for e in console if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]
            ]
            assert not errors, f"the browser console has errors: {errors}"

        events = _record(base)[1:]
    assert [e["event"] for e in events] == ["roll", "aside", "aside", "aside", "score", "roll"] + [
        "aside"
    ] * 3 + ["keep"]
    assert [e.get("at") for e in events[1:4]] == [[0, 0], [1, 0], [2, 0]]
    assert [e.get("rotation") for e in events[1:4]] == [1, 1, 3]
    assert all(e["meta"] == {"source": "phone"} for e in events)
    print(f"\nscreenshots: {laying}, {closed}, {kept}")
