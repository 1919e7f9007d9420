"""Refresh the players' guide pictures (docs/playing.md) from the browser test's screenshots.

Recipe: ``.venv/bin/python -m pytest tests/test_browser_game_night.py`` (needs chromium), then
``.venv/bin/python docs/pictures/refresh.py``; or ``make pictures`` for both. The screenshots are
taken at three device pixels per CSS pixel; half of that keeps the text sharp on a laptop screen
while each picture stays a few tens of kB in git.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "build" / "screenshots"
PICTURES = Path(__file__).resolve().parent
WIDTH = 585
QUALITY = 82


def refresh() -> int:
    shots = sorted(SHOTS.glob("game-night-*.png"))
    if not shots:
        print(f"no screenshots in {SHOTS}: run tests/test_browser_game_night.py first", file=sys.stderr)
        return 1
    for shot in shots:
        image = cv2.imread(str(shot))
        if image is None:
            print(f"{shot}: not a readable picture", file=sys.stderr)
            return 1
        height = round(image.shape[0] * WIDTH / image.shape[1])
        small = cv2.resize(image, (WIDTH, height), interpolation=cv2.INTER_AREA)
        target = PICTURES / (shot.stem + ".jpg")
        cv2.imwrite(str(target), small, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
        print(f"{target.relative_to(REPO)}: {target.stat().st_size // 1024} kB")
    return 0


if __name__ == "__main__":
    sys.exit(refresh())
