"""Enrolling a whole box on the phone, as a new user would, in a real browser (issue 5).

The enrolment demo lays one tile of every catalog type, in the second art family (never used
in training), on the simulated mat. A person opens the setup page, follows its link, and
describes each tile the camera shows by tapping. The test taps what a person would tap,
counts every tap, and keeps screenshots; the gallery must end up with every tile as it lies.

How long it takes a person is estimated from the taps with the keystroke-level model's
operators (Card, Moran and Newell, "The Psychology of Human-Computer Interaction", 1983):
pointing (P, 1.1 s) for each tap, a mental act (M, 1.35 s) to look at each tile, and our own
allowance of 2 s to take each tile from the box and lay it. P is the model's figure for a mouse;
a thumb on a large button is quicker, so the estimate errs on the slow side.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

from test_browser import (
    REPO,
    _browser_or_skip,
    _fits_the_phone,
    _phone_browser,
    _server,
    _wait,
    join_the_table,
)

from companion.games.starwars.sim.enrol_table import EnrolTable
from companion.games.starwars.tiles import ASTEROID, PLANET, ROUTE, Tile

SHOTS = REPO / "build" / "screenshots"
TAP_S, LOOK_S, LAY_S = 1.1, 1.35, 2.0
TARGET_S = 5 * 60


def _taps_for(tile: Tile) -> list[str]:
    """The CSS selectors a person taps to describe ``tile`` as it lies, blank form to Save."""
    taps = []
    for side, kind in zip("NESW", tile.side_kinds, strict=True):
        if kind:
            taps.append(f".side-{side} .kind-{'route' if kind == 1 else 'asteroid'}")
    routes = [f for f in tile.features if f.kind == ROUTE]
    fields = [f for f in tile.features if f.kind == ASTEROID]
    if sum(len(f.sides) for f in routes) == 2 and len(routes) == 2:
        taps.append("input[name=routes-join]")  # ticked by default: two routes running into each other
    if sum(len(f.sides) for f in fields) > 1 and len(fields) > 1:
        taps.append("input[name=fields-join]")
    for feature in tile.features:
        value = feature.symbols[0] if feature.symbols else ""
        if feature.kind == PLANET:
            taps.append(f"input[name=planet][value='{value}']")
        elif value and feature in (routes[:1] + fields[:1]):
            name = "route-symbol" if feature.kind == ROUTE else "field-symbol"
            taps.append(f"input[name={name}][value='{value}']")
    return [*taps, "button[type=submit]"]


def _tap(driver: Any, selector: str) -> None:
    element = driver.find_element("css selector", f"#enrol-tile {selector}")
    if element.tag_name == "input":  # the input is hidden in its label: a finger taps the label
        element = element.find_element("xpath", "./ancestor::label")
    element.click()


def test_a_whole_box_is_enrolled_on_the_phone_within_five_minutes(tmp_path: Path) -> None:
    _browser_or_skip()
    truth = EnrolTable().truth  # what the demo lays out: the same box, the same way up
    state_dir = tmp_path / "state"
    SHOTS.mkdir(parents=True, exist_ok=True)
    with (
        _server(state_dir, tmp_path, ("demo", "--enrol")) as base,
        _phone_browser(tmp_path / "profile", tmp_path) as driver,
    ):
        joining = join_the_table(driver, base)  # changes come from a phone that joined
        driver.get(f"{base}/setup")
        driver.find_element("link text", "Teach it your tiles").click()
        heading = _wait(
            "the first tile to describe",
            lambda: driver.find_element("id", "which").get_attribute("textContent"),
            lambda text: text.startswith("The tile at"),
        )
        _fits_the_phone(driver)
        assert driver.save_screenshot(str(SHOTS / "enrol-first-tile.png"))
        started = time.monotonic()
        taps = joining
        described = 0
        while heading.startswith("The tile at"):
            x, y = (int(n) for n in heading.removeprefix("The tile at ").split(", "))
            for selector in _taps_for(truth[(x, y)]):
                _tap(driver, selector)
                taps += 1
            described += 1
            if described == len(truth) // 2:
                assert driver.save_screenshot(str(SHOTS / "enrol-halfway.png"))
            before = heading
            heading = _wait(
                "the next tile after saving",
                lambda: (
                    ""
                    if driver.find_element("id", "enrol-tile").get_attribute("hidden") is not None
                    else driver.find_element("id", "which").get_attribute("textContent")
                ),
                lambda text, before=before: text != before,  # type: ignore[misc]
                # a save works out the picture's vectors (36 runs of the likeness): on a loaded
                # 2-core machine that once took more than 10 s; the time a person takes is
                # estimated from the taps, not from this wait
                timeout=30.0,
            )
        assert driver.save_screenshot(str(SHOTS / "enrol-done.png"))
        message = driver.find_element("id", "message").text
        browser_s = time.monotonic() - started
        with urllib.request.urlopen(f"{base}/api/enrol", timeout=10) as response:
            saved = {(t["at"][0], t["at"][1]): t["tile"] for t in json.load(response)["tiles"]}

    assert message == f"All {len(truth)} tiles on the mat are saved. Lay the next ones, or start the game."
    assert described == len(truth) == 35
    assert saved == {cell: tile.to_json() for cell, tile in truth.items()}
    kept = sorted((state_dir / "gallery").glob("*.json"))
    assert len(kept) == len(truth) and len(list((state_dir / "gallery").glob("*.png"))) == len(truth)
    as_kept = sorted(json.dumps(json.loads(p.read_text())["tile"], sort_keys=True) for p in kept)
    assert as_kept == sorted(json.dumps(t.to_json(), sort_keys=True) for t in truth.values())
    estimate = taps * TAP_S + len(truth) * (LOOK_S + LAY_S)
    print(
        f"\nenrolled {described} tile types with {taps} taps ({taps / described:.1f} a tile, "
        "joining the table included); "
        f"a person: about {estimate / 60:.1f} min by the keystroke-level model; the test's browser took "
        f"{browser_s:.0f} s; screenshots in {SHOTS}"
    )
    assert estimate <= TARGET_S, f"{taps} taps: about {estimate:.0f} s for a person, over {TARGET_S} s"
