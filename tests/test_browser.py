"""The scoreboard in a real browser: a phone-sized headless Chromium follows the game live.

Debian's chromium and its chromedriver drive the page; nothing is downloaded (the driver and the browser
are named explicitly, so Selenium Manager never runs). Without them the test is skipped, unless
COMPANION_REQUIRE_BROWSER=1 (as in CI), where it fails instead, so it can never be skipped silently.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest
from conftest import PIN, record_lines

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
REPO = Path(__file__).resolve().parent.parent
SCREENSHOT = REPO / "build" / "screenshots" / "scoreboard-phone.png"
PHONE = {"width": 390, "height": 844, "pixelRatio": 3.0}
PHONE_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0.0.0 Mobile Safari/537.36"
)
# What the page shows of each player, as {name: score text}.
SCORES_JS = """return Object.fromEntries([...document.querySelectorAll('#players li.player')]
    .map((li) => [li.dataset.player, li.querySelector('.score').textContent.trim()]));"""

T = TypeVar("T")


def _browser_or_skip() -> None:
    """Skip without the browser; fail instead when COMPANION_REQUIRE_BROWSER=1 asks for it."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -e '.[test]')")
    if not missing:
        return
    needs = " and ".join(missing)
    reason = f"the real-browser test needs {needs}; on Debian: apt-get install chromium chromium-driver"
    if os.environ.get("COMPANION_REQUIRE_BROWSER") == "1":
        pytest.fail(f"COMPANION_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def _server(state_dir: Path, logs: Path, how: tuple[str, ...] = ("serve",)) -> Iterator[str]:
    """``companion serve`` (or ``how``, e.g. a demo) on a free port; yields its base URL once it
    says it is listening."""
    port = _free_port()
    out, err = logs / "server.out", logs / "server.err"
    command = [sys.executable, "-m", "companion", *how, "--state-dir", str(state_dir)]
    command += ["--port", str(port), "--pin", PIN, "--no-mdns"]
    with out.open("w") as stdout, err.open("w") as stderr:
        server = subprocess.Popen(command, stdout=stdout, stderr=stderr, cwd=REPO)
    try:
        title = "Table Companion demo" if how[0] == "demo" else "Table Companion"
        expected = f"{title}: scoreboard on http://127.0.0.1:{port}/ (Ctrl+C to stop)"
        deadline = time.monotonic() + 30
        while not out.read_text().endswith("\n") and server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        first = out.read_text().partition("\n")[0]
        assert first == expected, f"the server said {first!r} (exit {server.poll()}): {err.read_text()}"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def join_the_table(driver: WebDriver, base: str) -> int:
    """Join as a player does on the Join page: the first phone with a tap, any other with the
    table PIN. Returns the taps it took (a key pressed counts as one)."""
    driver.get(f"{base}/join")
    first = driver.find_elements("id", "join-first")
    if first:
        first[0].click()
        taps = 1
    else:
        form = driver.find_element("id", "join-pin")
        form.find_element("name", "pin").send_keys(PIN)
        form.find_element("css selector", "button[type=submit]").click()
        taps = len(PIN) + 1
    _wait("this phone to join", lambda: driver.find_elements("id", "joined"), bool)
    return taps


def _fits_the_phone(driver: WebDriver) -> None:
    """Nothing sticks out sideways: a page wider than the phone is zoomed out, and taps land
    beside what they aim at."""
    # a mobile browser widens its viewport to what sticks out: the screen is the measure
    width = driver.execute_script(
        "return [Math.max(document.documentElement.scrollWidth, innerWidth), screen.width]"
    )
    assert width[0] <= width[1], f"the page is {width[0]} px wide on a {width[1]} px phone"


SMALL_PHONE = {"width": 320, "height": 640, "deviceScaleFactor": 2, "mobile": True}


def _fits_a_small_phone(driver: WebDriver) -> None:
    """The page as it is now also fits a 320 px phone (an iPhone SE's first size); the phone's
    own size is put back after."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SMALL_PHONE)
    try:
        _fits_the_phone(driver)
    finally:
        metrics = {
            "width": PHONE["width"],
            "height": PHONE["height"],
            "deviceScaleFactor": PHONE["pixelRatio"],
        }
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "mobile": True})


class Client:
    """Changes over HTTP as a phone makes them: a session cookie, its CSRF token and the table PIN."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        with self.opener.open(f"{base}/api/csrf", timeout=10) as response:
            self.token: str = json.load(response)["token"]

    def post(self, path: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.base}{path}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-CSRF-Token": self.token, "X-Table-PIN": PIN},
            method="POST",
        )
        try:
            with self.opener.open(request, timeout=10) as response:
                got, answer = response.status, json.load(response)
        except urllib.error.HTTPError as error:
            got, answer = error.code, json.loads(error.read() or b"{}")
        assert got == status, f"POST {path} {body}: {got} {answer}"
        return dict(answer)


@contextmanager
def _phone_browser(profile: Path, logs: Path) -> Iterator[WebDriver]:
    """Headless Chromium as a 390x844 phone (Chrome's mobile emulation, touch and a mobile user agent)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        f"--window-size={PHONE['width']},{PHONE['height']}",
    ):
        options.add_argument(flag)
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": PHONE, "userAgent": PHONE_AGENT})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(str(CHROMEDRIVER), log_output=str(logs / "chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.set_script_timeout(10)
        yield driver
    finally:
        driver.quit()


def _wait(what: str, probe: Callable[[], T], done: Callable[[T], bool], timeout: float = 10.0) -> T:
    """Poll ``probe`` until ``done`` says yes; fail with the last thing seen after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        seen = probe()
        if done(seen):
            return seen
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout:.0f} s for {what}; the page shows {seen!r}", pytrace=False)
        time.sleep(0.1)


def _page(driver: WebDriver) -> dict[str, Any]:
    """What a player sees: the live indicator, the scores, the prompts, and the state's sequence number."""
    # read in one script: the live part may be swapped between two questions from here
    seen: dict[str, Any] = driver.execute_script(
        "const scores = (() => {" + SCORES_JS + "})();"
        "return {live: document.getElementById('live').innerText.trim(), scores,"
        " prompts: [...document.querySelectorAll('#prompts .prompt')].map((p) => p.innerText.trim()),"
        " seq: document.body.dataset.seq ?? null};"
    )
    return seen


@contextmanager
def _battle_waiting_for_a_roll(tmp_path: Path) -> Iterator[tuple[str, Client, WebDriver, dict[str, Any]]]:
    """A served game of route-battle.jsonl but its last event (Ben's roll), and a phone browser:
    the address, a client that changes the game, the browser and the roll still to come."""
    header, events = record_lines("route-battle.jsonl")
    *first, last = events
    assert last == {"event": "roll", "player": "Ben", "dice": [1]}
    with _server(tmp_path / "state", tmp_path) as base:
        client = Client(base)
        client.post("/api/games", header, status=201)
        for event in first:
            client.post("/api/event", event)
        with _phone_browser(tmp_path / "profile", tmp_path) as driver:
            yield base, client, driver, last


def test_phone_scoreboard_follows_the_game_live_without_reloading(tmp_path: Path) -> None:
    _browser_or_skip()
    started = time.monotonic()
    with _battle_waiting_for_a_roll(tmp_path) as (base, client, driver, last):
        _follow_the_last_roll(driver, base, client, last)
    print(f"browser test took {time.monotonic() - started:.1f} s")


def _follow_the_last_roll(driver: WebDriver, base: str, client: Client, last: dict[str, Any]) -> None:
    driver.get(f"{base}/")
    assert driver.execute_script("return [innerWidth, navigator.userAgent.includes('Mobile')];") == [
        PHONE["width"],
        True,
    ]
    before = _wait(
        "the live stream and Ana 0, Ben 0",
        lambda: _page(driver),
        lambda page: page["live"] == "live" and page["scores"] == {"Ana": "0", "Ben": "0"},
    )
    assert before["prompts"], "the battle should be waiting for Ben's dice"
    driver.execute_script("window.__sameDocument = 42;")

    answer = client.post("/api/event", last)
    after = _wait(
        "Ana 4, Ben 1 to arrive live",
        lambda: _page(driver),
        lambda page: page["scores"] == {"Ana": "4", "Ben": "1"} and page["seq"] == str(answer["seq"]),
    )
    assert answer["scores"] == {"Ana": 4, "Ben": 1}
    assert after["live"] == "live" and int(after["seq"]) > int(before["seq"])
    assert driver.execute_script("return window.__sameDocument;") == 42, "the page was reloaded"
    assert driver.execute_script('return performance.getEntriesByType("navigation").length;') == 1
    # Only a live render flashes the scores that changed; the server's HTML never has the class.
    flashed = driver.execute_script(
        "return [...document.querySelectorAll('#players li.scored')].map((li) => li.dataset.player);"
    )
    assert sorted(flashed) == ["Ana", "Ben"]
    assert [
        li.get_attribute("data-player") for li in driver.find_elements("css selector", "#players li")
    ] == [
        "Ana",
        "Ben",
    ]

    # Let the score flash finish so the picture shows the page at rest.
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "Promise.all(document.getAnimations().map((a) => a.finished))"
        ".then(() => done(true), () => done(false));"
    )
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    assert driver.save_screenshot(str(SCREENSHOT))
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert SCREENSHOT.stat().st_size > 5_000, f"{SCREENSHOT} is only {SCREENSHOT.stat().st_size} bytes"
    print(f"\nscoreboard screenshot: {SCREENSHOT} ({SCREENSHOT.stat().st_size} bytes)")

    console = driver.get_log("browser")
    for entry in console:
        print(f"browser console {entry['level']}: {entry['message']}")
    errors = [e["message"] for e in console if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]]
    assert not errors, f"the browser console has errors: {errors}"


ENTER_TILE_SHOT = REPO / "build" / "screenshots" / "enter-tile-phone.png"


def test_a_tile_is_entered_on_the_phone_by_tapping_its_sides(tmp_path: Path) -> None:
    """The "Enter a tile" card of the fix page, as a player answers a tile the camera asked about:
    tap the sides, check the preview, send; the record gets the tile as it lies."""
    _browser_or_skip()
    header, events = record_lines("route-battle.jsonl")
    with _server(tmp_path / "state", tmp_path) as base:
        client = Client(base)
        client.post("/api/games", header, status=201)
        client.post("/api/event", events[0])  # the start tile: a trade route W-E
        with _phone_browser(tmp_path / "profile", tmp_path) as driver:
            join_the_table(driver, base)
            driver.get(f"{base}/fix")
            _fits_the_phone(driver)
            driver.find_element("css selector", '#enter-tile .target[data-cell="1,0"]').click()
            driver.find_element("css selector", "#enter-tile button.describe").click()
            form = driver.find_element("css selector", "form.tile-entry")
            taps = 2
            for side in ("W", "E"):  # one tap each: trade route
                form.find_element("css selector", f".side-{side} .kind-route").click()
                taps += 1
            preview = form.find_element("css selector", ".tile-preview").text
            assert preview == "trade route EW"
            assert form.find_element("css selector", ".side-W input[value=route]").is_selected()
            assert form.find_element("css selector", ".side-N input[value=space]").is_selected()
            ENTER_TILE_SHOT.parent.mkdir(parents=True, exist_ok=True)
            ENTER_TILE_SHOT.unlink(missing_ok=True)
            driver.execute_script("document.getElementById('enter-tile').scrollIntoView();")
            assert driver.save_screenshot(str(ENTER_TILE_SHOT))
            form.find_element("css selector", "button[type=submit]").click()
            taps += 1

            def last_event() -> dict[str, Any]:
                with urllib.request.urlopen(f"{base}/api/record", timeout=10) as response:
                    return dict(json.loads(response.read().decode().splitlines()[-1]))

            entered = _wait(
                "the tile in the record", last_event, lambda e: e.get("event") == "tile" and e["at"] == [1, 0]
            )
    assert entered["player"] == "Ana" and entered["meta"] == {"source": "phone"}
    assert entered["tile"] == {"features": [{"kind": "route", "edges": "EW"}]}
    assert ENTER_TILE_SHOT.stat().st_size > 5_000
    print(
        f"\nentered a straight trade route with {taps} taps, the cell tapped on the board; "
        f"screenshot: {ENTER_TILE_SHOT}"
    )


def _on_screen(driver: WebDriver, element_id: str) -> dict[str, Any]:
    """Where an element is on the phone's screen, and whether the whole of it is in view."""
    return dict(
        driver.execute_script(
            "const box = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return {text: document.getElementById(arguments[0]).textContent.trim(), top: box.top,"
            " below: innerHeight - box.bottom,"
            " seen: box.height > 0 && box.top >= -0.5 && box.bottom <= innerHeight + 0.5};",
            element_id,
        )
    )


def _loaded_afresh(driver: WebDriver) -> bool:
    """The page marked with ``window.__before`` has been replaced by a new one, loaded in full
    (asked while the browser swaps them, the old one may be gone: not yet)."""
    from selenium.common.exceptions import WebDriverException

    try:
        return bool(driver.execute_script("return !window.__before && document.readyState === 'complete';"))
    except WebDriverException:
        return False


def test_what_goes_wrong_is_said_on_screen_wherever_the_phone_is_scrolled(tmp_path: Path) -> None:
    """A refusal on Fix or Setup shows however far down the button was; a live part the phone
    failed to fetch is said along the bottom of the scoreboard, then fetched again, not left out
    of date; pages left close their streams; Fix says when the game moved on under it."""
    _browser_or_skip()
    with _battle_waiting_for_a_roll(tmp_path) as (base, client, driver, last):
        join_the_table(driver, base)
        driver.get(f"{base}/fix")
        assert not driver.find_elements("id", "not-joined")
        oldest = driver.find_elements("css selector", "ol.events > li")[-1]
        driver.execute_script(
            "arguments[0].scrollIntoView(); arguments[0].querySelector('details').open = true;", oldest
        )
        button = oldest.find_element("css selector", ".remove-event")
        driver.execute_script("arguments[0].scrollIntoView({block: 'end'});", button)
        assert driver.execute_script("return scrollY;") > 800, "the event should be far down the page"
        button.click()
        said = _wait(
            "the refusal on screen", lambda: _on_screen(driver, "message"), lambda m: bool(m["text"])
        )
        assert said["text"] == "Say why first." and said["seen"], said
        driver.find_element("id", "message").click()  # a tap puts it away
        _wait("the message put away", lambda: _on_screen(driver, "message")["text"], lambda t: t == "")

        driver.get(f"{base}/setup")
        fewest = int(driver.find_element("id", "players-form").get_attribute("data-fewest"))
        while len(rows := driver.find_elements("css selector", "#players-form .remove")) > fewest:
            rows[-1].click()
        driver.execute_script("arguments[0].scrollIntoView({block: 'end'});", rows[-1])
        rows[-1].click()  # one player too few
        said = _wait(
            "the refusal on screen", lambda: _on_screen(driver, "message"), lambda m: bool(m["text"])
        )
        assert said["text"].startswith("This game needs at least") and said["seen"], said

        driver.get(f"{base}/")
        _wait("the live stream", lambda: _page(driver)["live"], lambda live: live == "live")
        # the next fetch of the live part fails, as on a wifi blip
        driver.execute_script(
            "const real = window.fetch; let failed = false;"
            "window.fetch = (url, options) => (!failed && String(url).startsWith('/parts/'))"
            " ? (failed = true, Promise.reject(new TypeError('network'))) : real(url, options);"
        )
        client.post("/api/event", last)
        banner = _wait(
            "the out-of-date banner",
            lambda: _on_screen(driver, "live"),
            lambda s: "not up to date" in s["text"],
        )
        assert abs(banner["below"]) < 0.5 and banner["seen"], banner  # along the bottom of the screen
        caught_up = _wait(
            "the scores fetched again",
            lambda: _page(driver),
            lambda page: page["scores"] == {"Ana": "4", "Ben": "1"} and page["live"] == "live",
        )
        assert caught_up["seq"] is not None

        # pages left for others close their live streams: a phone has six connections to a host,
        # and pages held for "back" with their streams open would take them all
        for path in ["/", "/timeline", "/fix"] * 3:
            driver.get(f"{base}{path}")
        asked = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "const late = setTimeout(() => done('no answer in 5 s'), 5000);"
            "fetch('/api/state').then((r) => { clearTimeout(late); done(r.status); });"
        )
        assert asked == 200, asked

        # the game moves on under an open Fix page: said at once, with the way out
        driver.get(f"{base}/fix")
        time.sleep(0.5)  # the stream's first state, the page's own, has come
        assert not driver.find_element("id", "moved-on").is_displayed()
        client.post("/api/event", {"event": "adjust", "player": "Ana", "points": 1, "reason": "a miscount"})
        _wait("the moved-on notice", lambda: _on_screen(driver, "moved-on"), lambda s: s["seen"])
        driver.execute_script("window.__before = true;")
        driver.find_element("css selector", "#moved-on button").click()
        _wait("the page drawn again", lambda: _loaded_afresh(driver), bool)
        assert not driver.find_element("id", "moved-on").is_displayed()
        shown = driver.execute_script("return document.body.dataset.seq;")
        undone = client.post("/api/event", {"event": "adjust", "player": "Ana", "points": -1, "reason": "no"})
        assert shown == str(undone["seq"] - 1), "the page drawn again shows the game as it was then"
