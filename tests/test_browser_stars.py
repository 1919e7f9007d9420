"""A year of a 2-player Among the Stars game played on a phone in a real browser: every action
entered in taps on the fix page (a new card entered once, then picked by name; the cell tapped;
the reactor that pays tapped), and the scoreboard drawing both stations at the year's end.

Debian's chromium and its chromedriver drive a phone-sized headless page, as in test_browser.py
(whose helpers this uses); without them the test is skipped, unless COMPANION_REQUIRE_BROWSER=1.
Screenshots: build/screenshots/stars-*.png.
"""

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
    _phone_browser,
    _server,
    _wait,
    join_the_table,
)

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

SHOTS = REPO / "build" / "screenshots"
HEADER = {
    "game": "stars",
    "variant": "peaceful",
    "players": [{"name": "Sandra"}, {"name": "Tomás", "color": "red"}],
    "types": ["administrative", "commercial", "diplomatic", "military", "recreational", "scientific"],
}
CARGO = {"name": "Cargo Bay", "type": "administrative", "cost": 1, "vp": 1}
RING = {"name": "Docking Ring", "type": "commercial", "cost": 1, "vp": 1}
HOLO = {
    "name": "Holographic Display Area",
    "type": "recreational",
    "cost": 2,
    "vp": 2,
    "energy": 1,
    "ability": {"timing": "immediate", "kind": "vp_per_adjacent", "vp": 1},
}


# a tap: in view, the element (or what it holds) on top at its centre, then its click
TAP = """const [element] = arguments;
element.scrollIntoView({block: 'center'});
const box = element.getBoundingClientRect();
const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
if (!top || !(element === top || element.contains(top))) return top ? top.outerHTML.slice(0, 80) : 'nothing';
element.click();
return null;"""
# what a phone's list picker does when a choice is tapped: that option chosen, then input and change
PICK = """const [select, text] = arguments;
select.scrollIntoView({block: 'center'});
const option = [...select.options].find((o) => o.text.trim() === text);
if (!option) throw new Error(`no choice ${text}`);
select.value = option.value;
for (const kind of ['input', 'change']) select.dispatchEvent(new Event(kind, {bubbles: true}));"""


def _state(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/api/state", timeout=10) as response:
        state: dict[str, Any] = json.load(response)
        return state


def _record(base: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{base}/api/record", timeout=10) as response:
        return [json.loads(line) for line in response.read().decode().splitlines()[1:]]


class Phone:
    """The fix page on the phone, tapped as a player taps it; counts the taps."""

    def __init__(self, driver: WebDriver, base: str) -> None:
        self.driver, self.base, self.taps = driver, base, 0

    def open(self) -> None:
        self.driver.get(f"{self.base}/fix")
        _wait("the entry card", lambda: self.driver.find_elements("id", "stars-entry"), bool)

    def tap(self, css: str) -> None:
        """Tap what ``css`` finds, once it is in view and nothing covers its centre. (The tap is
        the element's click: the emulated phone's hiding address bar shifts Selenium's own
        clicks off their target near the bottom of a page.)"""
        element = self.driver.find_element("css selector", css)
        covered = self.driver.execute_script(TAP, element)
        assert not covered, f"{css} is covered by {covered}"
        self.taps += 1

    def choose(self, name: str, value: str, within: str = "#stars-action") -> None:
        """Tap the chip (the label round a radio button) of ``name`` = ``value``."""
        self.tap(f"{within} label:has(> input[name='{name}'][value='{value}'])")

    def pick(self, name: str, text: str) -> None:
        self.pick_in(self.driver.find_element("css selector", f"#stars-action select[name='{name}']"), text)

    def pick_in(self, select: Any, text: str) -> None:
        """Choose in a list as a phone does: its own picker opens, one choice is tapped. (A
        phone's picker is not part of the page, so the choice is made the way it lands.)"""
        self.driver.execute_script(PICK, select, text)
        self.taps += 2  # open the list, tap the choice

    def card(self, name: str) -> None:
        """Tap a card the table has entered before, by its name."""
        inputs = self.driver.find_elements("css selector", "#stars-action input[name='card']")
        values = [i.get_attribute("value") for i in inputs if name in (i.get_attribute("data-card") or "")]
        assert values, f"{name} is not offered"
        self.choose("card", values[0])

    def send(self, events: int, button: str = "#stars-action button[type=submit]") -> None:
        """Tap the button and wait until the companion holds ``events`` events and the page is
        drawn again."""
        self.driver.execute_script("window.__before = true;")
        self.tap(button)
        _wait(f"event {events}", lambda: _state(self.base)["events"], lambda n: n == events)
        _wait(
            "the page drawn again",
            lambda: self.driver.execute_script(
                "return [window.__before === undefined, document.readyState];"
            ),
            lambda seen: seen == [True, "complete"],
        )
        _wait("the entry card", lambda: self.driver.find_elements("id", "stars-entry"), bool)

    def act(self, player: str, does: str) -> None:
        self.choose("player", player)
        self.choose("does", does)

    def cell(self, player: str, at: str) -> None:
        self.tap(f".stars-station-entry[data-player='{player}'] label.stars-open:has(> input[value='{at}'])")

    def pay(self, player: str, at: str) -> None:
        self.tap(f".stars-station-entry[data-player='{player}'] button.stars-pay[data-at='{at}']")

    def shot(self, name: str) -> Path:
        path = SHOTS / f"stars-{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        assert self.driver.save_screenshot(str(path))
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5_000
        return path


def test_a_year_of_a_two_player_game_is_played_on_the_phone(tmp_path: Path) -> None:
    _browser_or_skip()
    started = time.monotonic()
    with _server(tmp_path / "state", tmp_path) as base:
        Client(base).post("/api/games", HEADER, status=201)
        with _phone_browser(tmp_path / "profile", tmp_path) as driver:
            join_the_table(driver, base)
            phone = Phone(driver, base)
            phone.open()
            _fits_the_phone(driver)
            phone.send(1, "#stars-year button[type=submit]")  # year 1 begins
            _play_year_one(phone)
            shots = _the_year_is_over(phone, base)
            console = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            assert not console, f"the browser console has errors: {console}"
    print(
        f"\nyear 1 of a 2-player game entered in {phone.taps} taps and 3 card names typed, "
        f"{time.monotonic() - started:.1f} s; screenshots: {', '.join(str(s) for s in shots)}"
    )


def _play_year_one(phone: Phone) -> None:
    # turn 1: Sandra builds a card the table has never entered: its name typed once, the rest tapped
    phone.act("Sandra", "build")
    phone.choose("card", "new")
    phone.driver.find_element("css selector", "#stars-action input[name='card-name']").send_keys("Cargo Bay")
    phone.choose("card-type", "administrative")
    phone.cell("Sandra", "1,0")
    summary = phone.driver.find_element("css selector", "#stars-action .stars-summary").text
    assert summary == "Sandra builds Cargo Bay at [1, 0]"
    phone.send(2)
    # Tomás builds a power reactor
    phone.act("Tomás", "reactor")
    phone.cell("Tomás", "0,1")
    phone.send(3)
    # turn 2: Sandra enters a second new card; Tomás discards Cargo Bay, picked by name
    phone.act("Sandra", "build")
    phone.choose("card", "new")
    phone.driver.find_element("css selector", "#stars-action input[name='card-name']").send_keys(
        "Docking Ring"
    )
    phone.choose("card-type", "commercial")
    phone.cell("Sandra", "0,1")
    phone.send(4)
    phone.act("Tomás", "discard")
    phone.card("Cargo Bay")
    phone.send(5)
    # turn 3: the seed's example. Sandra enters the Holographic Display Area (cost 2, 1 energy,
    # 2 VP, +1 VP per adjacent location), taps [1, 1] and her main reactor, 2 cards away, to pay
    phone.act("Sandra", "build")
    phone.choose("card", "new")
    phone.driver.find_element("css selector", "#stars-action input[name='card-name']").send_keys(
        "Holographic Display Area"
    )
    phone.choose("card-type", "recreational")
    phone.pick("card-cost", "2")
    phone.pick("card-energy", "1")
    phone.pick("card-vp", "2")
    phone.choose("card-timing", "immediate")
    phone.choose("card-kind", "vp_per_adjacent")
    phone.cell("Sandra", "1,1")
    reactor = "#stars-action .stars-station-entry[data-player='Sandra'] button.stars-pay[data-at='0,0']"
    assert "in-reach" in phone.driver.find_element("css selector", reactor).get_attribute("class")
    phone.pay("Sandra", "0,0")
    assert phone.driver.find_element("css selector", f"{reactor} .stars-paying").text == "pays 1"
    station = phone.driver.find_element("css selector", ".stars-station-entry[data-player='Sandra']")
    phone.driver.execute_script("arguments[0].scrollIntoView();", station)
    phone.shot("entry-phone")
    phone.send(6)
    # Tomás picks Cargo Bay from the cards entered before
    phone.act("Tomás", "build")
    phone.card("Cargo Bay")
    phone.cell("Tomás", "1,0")
    phone.send(7)
    # turn 4: Tomás builds the hologram too, paid from his power reactor; Sandra discards
    phone.act("Tomás", "build")
    phone.card("Holographic Display Area")
    phone.cell("Tomás", "1,1")
    phone.pay("Tomás", "0,1")
    phone.send(8)
    phone.act("Sandra", "discard")
    phone.send(9)
    # turn 5: Sandra builds a power reactor; Tomás discards
    phone.act("Sandra", "reactor")
    phone.cell("Sandra", "-1,0")
    phone.send(10)
    phone.act("Tomás", "discard")
    phone.send(11)
    # turn 6: both discard
    for events, player in ((12, "Sandra"), (13, "Tomás")):
        phone.act(player, "discard")
        phone.send(events)


def _the_year_is_over(phone: Phone, base: str) -> list[Path]:
    state = _state(base)
    assert state["scores"] == {"Sandra": 6, "Tomás": 5}
    assert state["extras"]["year_over"] is True and state["extras"]["next_year"] == 2
    assert {s["player"]: s["credits"] for s in state["extras"]["stations"]} == {"Sandra": 11, "Tomás": 15}
    events = _record(base)
    builds = [e for e in events if e["event"] == "build"]
    assert [(e["player"], e["at"], e["card"]["name"]) for e in builds] == [
        ("Sandra", [1, 0], "Cargo Bay"),
        ("Sandra", [0, 1], "Docking Ring"),
        ("Sandra", [1, 1], "Holographic Display Area"),
        ("Tomás", [1, 0], "Cargo Bay"),
        ("Tomás", [1, 1], "Holographic Display Area"),
    ]
    assert [e.get("energy_from") for e in builds] == [None, None, [[0, 0]], None, [[0, 1]]]
    assert builds[2]["card"] == HOLO and builds[0]["card"] == CARGO and builds[1]["card"] == RING
    assert all(e["meta"] == {"source": "phone"} for e in events)
    with urllib.request.urlopen(f"{base}/api/stars/cards", timeout=10) as response:
        kept = [c["name"] for c in json.load(response)["cards"]]
    assert kept == ["Cargo Bay", "Docking Ring", "Holographic Display Area"]
    # the fix page now offers year 2; the scoreboard draws both stations
    phone.open()
    assert "Start year 2" in phone.driver.find_element("id", "stars-year").text
    phone.driver.get(f"{base}/")
    _wait("the live scoreboard", lambda: phone.driver.find_element("id", "live").text, lambda t: t == "live")
    _fits_the_phone(phone.driver)
    # the stations are the table, drawn once below the players' lines
    assert not phone.driver.find_elements("css selector", "#players .stars-grid")
    grids = phone.driver.find_elements("css selector", "#board .stars-board .stars-grid")
    assert [g.get_attribute("data-player") for g in grids] == ["Sandra", "Tomás"]
    cells = phone.driver.find_elements(
        "css selector", "#board .stars-board .stars-grid[data-player='Sandra'] .stars-cell"
    )
    assert len(cells) == 5  # main reactor, 3 cards, 1 power reactor
    return [SHOTS / "stars-entry-phone.png", phone.shot("scoreboard-phone")]


def test_setup_year_end_removals_counts_and_the_end_on_the_phone(tmp_path: Path) -> None:
    """The rest of the game's entry: the setup page's types and objectives, a card kept in the
    library beforehand, a removal at a year's end, the counts made by hand, and the end."""
    from conftest import record_lines

    _browser_or_skip()
    header, events = record_lines("stars/objectives.jsonl")
    with _server(tmp_path / "state", tmp_path) as base:
        client = Client(base)
        with _phone_browser(tmp_path / "profile", tmp_path) as driver:
            join_the_table(driver, base)
            phone = Phone(driver, base)
            driver.get(f"{base}/setup?game=stars")
            rows = driver.find_elements("css selector", ".player-row")
            for row, name in zip(rows, ("Ana", "Ben", "Cleo"), strict=True):
                row.find_element("name", "name").send_keys(name)
            for objective in header["objectives"]:
                phone.tap("#stars-add-objective")
                row = driver.find_elements("css selector", ".stars-objective-row")[-1]
                row.find_element("css selector", ".objective-name").send_keys(objective["name"])
                kinds = {"most_type": "most locations of a type", "most_locations": "most locations"}
                kinds["manual"] = "something else: counted by hand"
                phone.pick_in(row.find_element("css selector", ".objective-kind"), kinds[objective["kind"]])
                for field in ("type", "vp"):
                    if field in objective:
                        phone.pick_in(
                            row.find_element("css selector", f".objective-{field}"), str(objective[field])
                        )
            _fits_the_phone(driver)
            phone.tap("#setup button[type=submit]")
            _wait("the game", lambda: _state(base).get("game"), lambda game: game == "stars")
            state = _state(base)
            assert [(o["name"], o["kind"], o["vp"]) for o in state["extras"]["objectives"]] == [
                (o["name"], o["kind"], o["vp"]) for o in header["objectives"]
            ]
            assert state["extras"]["types"] == header["types"]
            for event in events[:77]:  # to the end of year 4
                client.post("/api/event", event)
            phone.open()
            # Cleo's Casino: its delayed ability counted by hand, chosen from a list
            form = driver.find_element("css selector", "form.stars-count[data-player='Cleo']")
            phone.pick_in(form.find_element("name", "vp"), "2")
            phone.send(78, "form.stars-count[data-player='Cleo'] button[type=submit]")
            form = driver.find_element("css selector", "form.stars-objective")
            for player, count in (("Ana", 1), ("Ben", 4), ("Cleo", 2)):
                select = form.find_element("css selector", f"select[data-player='{player}']")
                phone.pick_in(select, str(count))
            phone.send(79, "form.stars-objective button[type=submit]")
            phone.tap("#stars-end")
            _wait("the end", lambda: _state(base)["finished"], bool)
            done = _state(base)
            assert (done["scores"], done["winners"]) == ({"Ana": 38, "Ben": 44, "Cleo": 38}, ["Ben"])
            _wait("the scoreboard", lambda: driver.current_url, lambda url: url == f"{base}/")
            shot = phone.shot("end-phone")

            # a new game: a card kept in the library before it is played, a removal at a year's end
            header, events = record_lines("stars/max-removal.jsonl")
            client.post("/api/games", header, status=201)
            for event in events[:13]:
                client.post("/api/event", event)
            phone.open()
            keep = driver.find_element("id", "stars-keep")
            keep.find_element("name", "card-name").send_keys("Casino")
            phone.choose("card-type", "recreational", within="#stars-keep")
            phone.choose("card-timing", "delayed", within="#stars-keep")
            phone.choose("card-kind", "manual", within="#stars-keep")
            phone.tap("#stars-keep button[type=submit]")
            _wait("the card kept", lambda: "Casino" in driver.find_element("id", "message").text, bool)
            with urllib.request.urlopen(f"{base}/api/stars/cards", timeout=10) as response:
                offered = [card["name"] for card in json.load(response)["cards"]]
            assert offered == ["Command Center", "Trade Hub", "Casino"]  # the game's cards first
            phone.open()
            phone.send(14, "button.stars-remove[data-at='[2, 0]']")
            phone.send(15, "button.stars-remove[data-at='[0, -1]']")
            assert "Start year 2" in driver.find_element("id", "stars-year").text
            console = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            assert not console, f"the browser console has errors: {console}"
    kept = json.loads((tmp_path / "state" / "stars-cards.json").read_text())["cards"]
    assert {key: value for key, value in kept[0].items() if key != "ability"} == {
        "name": "Casino",
        "type": "recreational",
        "cost": 1,
        "vp": 1,
    }
    assert kept[0]["ability"] == {"timing": "delayed", "kind": "manual"}
    print(f"\nsetup, counts, the end and a removal entered on the phone; screenshot: {shot}")
