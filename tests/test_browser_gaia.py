"""Gaia played on a phone in a real browser (a phone-sized headless Chromium): a game is set up
with its starting hands and objectives, then a few turns are entered in taps on the fix page, one
of them a city whose tile was meeting a neighbour's needs, so the pawns there go home; the
scoreboard follows. Screenshots go to build/screenshots/gaia-*.png."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

from test_browser import (
    REPO,
    Client,
    _browser_or_skip,
    _fits_the_phone,
    _page,
    _phone_browser,
    _server,
    _wait,
    join_the_table,
)

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement

SHOTS = REPO / "build" / "screenshots"
RECORD = Path(__file__).parent / "records" / "gaia" / "cover-to-one.jsonl"


def state(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/api/state", timeout=10) as response:
        return dict(json.load(response))


def record(base: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{base}/api/record", timeout=10) as response:
        return [json.loads(line) for line in response.read().decode().splitlines()]


def tap(driver: WebDriver, css: str) -> None:
    element = driver.find_element("css selector", css)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def choose(driver: WebDriver, name: str, value: str) -> None:
    """A chip: the radio input is hidden, its label is what a finger taps."""
    tap(driver, f"label:has(> input[name='{name}'][value='{value}'])")


def deal(driver: WebDriver, row: WebElement, hand: str) -> None:
    """Choose a player's starting hand in that player's row, as a phone's list picker does
    (open the list, tap the choice): the choice made, then input and change."""
    select = row.find_element("css selector", "select[name='player:hand']")
    driver.execute_script(
        """const [select, text] = arguments;
        select.scrollIntoView({block: 'center'});
        const option = [...select.options].find((o) => o.text.trim() === text);
        if (!option) throw new Error(`no choice ${text}`);
        select.value = option.value;
        for (const kind of ['input', 'change']) select.dispatchEvent(new Event(kind, {bubbles: true}));""",
        select,
        hand,
    )


def shot(driver: WebDriver, name: str) -> Path:
    path = SHOTS / f"gaia-{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 5_000
    return path


def entered(driver: WebDriver, base: str, seq: int) -> int:
    """Wait for the event a tap sent to be stored and the fix page to be drawn again with it."""
    after = _wait("the event to be stored", lambda: state(base)["seq"], lambda s: s > seq)
    _wait(
        "the fix page to be drawn again",
        lambda: driver.execute_script("return document.body.dataset.seq;"),
        lambda s: s == str(after),
    )
    return int(after)


def tap_choice(driver: WebDriver, base: str, seq: int, text: str) -> int:
    buttons = [b for b in driver.find_elements("css selector", "button.gaia-choice") if b.text == text]
    assert buttons, [b.text for b in driver.find_elements("css selector", "button.gaia-choice")]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", buttons[0])
    buttons[0].click()
    return entered(driver, base, seq)


def test_a_few_turns_of_gaia_are_played_on_the_phone(tmp_path: Path) -> None:
    _browser_or_skip()
    lines = RECORD.read_text(encoding="utf-8").splitlines()
    prefix = [json.loads(line) for line in lines[1:12]]  # turns 1 to 5; the phone plays on from 6
    started = time.monotonic()
    taps = 0
    with (
        _server(tmp_path / "state", tmp_path) as base,
        _phone_browser(tmp_path / "profile", tmp_path) as driver,
    ):
        # --- the game is set up on the phone: two players, 3 Nature and 1 Life card dealt each
        taps += join_the_table(driver, base)
        driver.get(f"{base}/setup?game=gaia")
        rows = driver.find_elements("css selector", ".player-row")
        rows[0].find_element("name", "name").send_keys("Ana")
        rows[1].find_element("name", "name").send_keys("Ben")
        rows[2].find_element("css selector", "button.remove").click()
        for row in rows[:2]:  # each player's own row: the cards dealt to that player
            deal(driver, row, "3 Nature, 1 Life")
        # the second objective offered is swapped for one showing a swamp and a desert
        tap(driver, ".gaia-objective-list li:nth-child(2) button")
        tap(driver, "button.gaia-objective-card[data-card='swamp']")
        tap(driver, "button.gaia-objective-card[data-card='desert']")
        tap(driver, "button.gaia-objective-add")
        taps += 10  # a row removed, two hands chosen, an objective swapped, and the start below
        listed = [li.text for li in driver.find_elements("css selector", ".gaia-objective-list li")]
        assert listed == ["O1: plains, forest, mountain, swamp remove", "O2: swamp, desert remove"]
        _fits_the_phone(driver)
        shot(driver, "setup")
        tap(driver, "#setup button[type=submit]")
        _wait("the scoreboard", lambda: driver.current_url, lambda url: url == f"{base}/")
        header = record(base)[0]
        assert [(p["name"], p["color"], p["hand"]) for p in header["players"]] == [
            ("Ana", "yellow", {"nature": 3, "life": 1}),
            ("Ben", "blue", {"nature": 3, "life": 1}),
        ]
        assert header["objectives"] == [
            {"id": "O1", "cards": ["plains", "forest", "mountain", "swamp"]},
            {"id": "O2", "cards": ["swamp", "desert"]},
        ]
        assert header["variant"] == "basic"

        client = Client(base)
        for event in prefix:
            client.post("/api/event", event)
        seq = int(state(base)["seq"])

        # --- turn 6, Ben: a plains city on [0,0], tapped in; it covers the plains that met two
        # of the needs of Ana's city at [1,0], which falls to 1 need: both pawns there go home
        driver.get(f"{base}/fix")
        choose(driver, "gaia-mode", "city")
        choose(driver, "gaia-icon", "plains")
        for need in ("forest", "forest", "mountain", "swamp"):
            tap(driver, f"button.gaia-need-add[data-need='{need}']")
        tap(driver, "button.gaia-cell[data-at='0,0']")
        taps += 8  # with "Record it" below
        preview = driver.find_element("css selector", ".gaia-preview").text
        assert preview == "Ben lays a plains city at [0,0] needing forest, forest, mountain, swamp"
        _fits_the_phone(driver)
        shot(driver, "fix-city")
        tap(driver, "button.gaia-send")
        seq = entered(driver, base, seq)
        now = state(base)
        assert now["scores"] == {"Ana": 0, "Ben": 1}
        assert [(e["kind"], e["player"], e["points"]) for e in now["log"][-3:]] == [
            ("city", "Ben", 1),
            ("return", "Ana", -1),
            ("return", "Ben", -1),
        ]
        seq = tap_choice(driver, base, seq, "Draw a Nature card from the deck")
        taps += 1

        # --- turn 7, Ana: a mountain tile beside the emptied city raises it to 2: she owes a pawn
        choose(driver, "gaia-mode", "tile")
        choose(driver, "gaia-terrain", "mountain")
        tap(driver, "button.gaia-cell[data-at='1,1']")
        tap(driver, "button.gaia-send")
        taps += 4
        seq = entered(driver, base, seq)
        prompts = [p.text for p in driver.find_elements("css selector", "#gaia-entry .prompt")]
        assert prompts == ["Ana owes a pawn on the city at [1,0] (its satisfaction rose from 1 to 2)"]
        driver.execute_script("document.getElementById('gaia-entry').scrollIntoView();")
        shot(driver, "fix-owed")
        seq = tap_choice(driver, base, seq, "Ana puts a pawn on the city at [1,0]")
        seq = tap_choice(driver, base, seq, "Draw a Life card from the market")
        # --- turn 8, Ben draws twice
        seq = tap_choice(driver, base, seq, "Draw a Nature card from the deck")
        seq = tap_choice(driver, base, seq, "Draw a Life card from the deck")
        taps += 4

        events = record(base)[1:]
        assert [e["event"] for e in events[11:]] == ["city", "draw", "tile", "pawn", "draw", "draw", "draw"]
        assert all(e["meta"] == {"source": "phone"} for e in events[11:])
        assert events[11]["card"] == {"terrain": "plains", "needs": ["forest", "forest", "mountain", "swamp"]}

        # --- the scoreboard follows: pawns placed and left, the land with the city at [1,0] again held
        driver.get(f"{base}/")
        seen = _wait(
            "the live scoreboard",
            lambda: _page(driver),
            lambda p: p["live"] == "live" and p["scores"] == {"Ana": "1", "Ben": "1"},
        )
        assert seen["seq"] == str(seq)
        ana = driver.find_element("css selector", "li.player[data-player='Ana'] .meeples").text
        assert ana.endswith("1 placed · 5 left")
        city = driver.find_element("css selector", "#board .gaia-board .gaia-land [data-at='1,0'] .gaia-city")
        assert len(city.find_elements("css selector", ".gaia-need.met")) == 2
        assert len(city.find_elements("css selector", ".pawn.pawn-yellow")) == 1
        _fits_the_phone(driver)
        shot(driver, "scoreboard")
        summary = driver.find_element("id", "summary").text
        assert summary.startswith("Turn 9 · Ana's turn")

        console = driver.get_log("browser")
        errors = [
            e["message"] for e in console if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]
        ]
        assert not errors, f"the browser console has errors: {errors}"
    took = time.monotonic() - started
    print(f"\nGaia on the phone: set up, then 3 turns in {taps} taps, {took:.1f} s; screenshots in {SHOTS}")
