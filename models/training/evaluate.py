"""The held-out suite: art styles, cameras, lighting and games never used in training.

Two levels, both with onnxruntime only (no torch):

* cells: the model alone on held-out crops (build/cells-heldout.npz from models.training.cell_data);
* meeples: the meeple model alone on held-out pairs (build/meeples-heldout.npz);
* games: whole simulated games read by the companion (rectifier, lattice, model, tracker with
  the rules), each settled scene read from the mean of its still frames as the watcher reads
  it, compared event by event with the ground truth. A person answers each prompt by entering
  what really happened, as at a real table; a tile or meeple counts as right only when the
  camera recorded it by itself.

    python -m models.training.evaluate --cells build/cells-heldout.npz --meeples build/meeples-heldout.npz \
        --games 50 --workers 2

``--first-game`` reads other held-out games (the default is seed 9 000 on); ``--box-art`` draws
their tiles in the second family of art, which no model was trained on (issue 5), and
``--enroll`` gives the companion one picture of each tile type in that art first (``--enroll
camera``: one tile of each type laid out under the game's camera and described on the phone, as
the enrolment page does). ``--fix`` has the person also put right on the phone what the camera
recorded wrong, so that one mistake does not end the reading of a game; the camera's mistakes
still count. ``--enrol-tables N`` lays a box out for enrolment on N tables in each art and counts
how often the enrolment page shows it whole. ``--wide-art``
draws them in held-out styles of the third family, which the shipped cell model was not trained
on either: art to develop readers of unseen art on, keeping the box art a test. ``--invented-art``
draws them in held-out styles of the fourth family, which no shipped model was trained on, and
whose emblems no model saw (each style invents its own).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from companion.games.base import Cell
from companion.games.starwars import models as starwars_models
from companion.games.starwars.art.box import BOX_STYLES
from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.reader.enrolment import Enrolment, EnrolmentCamera
from companion.games.starwars.reader.gallery import tile_gallery
from companion.games.starwars.reader.tracker import ACCEPT
from companion.games.starwars.sim.enrol_table import EnrolTable
from companion.games.starwars.spots import PLANET_SPOTS, SPOTS
from companion.games.starwars.tiles import Tile, parse_tile
from companion.vision.gallery import Gallery, enrolled_name
from companion.vision.gallery_match import GalleryMatch
from companion.vision.labels import MEEPLE_CLASSES
from companion.vision.mat import CROP_PX, PX_PER_MM, TILE_PX
from companion.vision.reader import CellModel
from models.training.cell_data import (
    HELD_OUT_CAMERAS,
    HELD_OUT_STYLES,
    INVENTED_HELD_OUT_CAMERAS,
    INVENTED_HELD_OUT_STYLES,
    MARGIN,
    WIDE_HELD_OUT_CAMERAS,
    WIDE_HELD_OUT_STYLES,
)
from models.training.gallery_bars import logged
from models.training.gallery_data import enrolment_pictures
from models.training.real_art import draw_real_art, enrol_box, load_box, real_catalog

FIRST_GAME = 9_000  # game seeds the simulator never gave the training data (which uses no games)


def evaluate_cells(path: str, model_path: Path | None = None) -> dict[str, Any]:
    data = np.load(path)
    model = CellModel(model_path or starwars_models.cells_path())
    windows = data["crops"][:, MARGIN : MARGIN + CROP_PX, MARGIN : MARGIN + CROP_PX]
    tile_probs, meeple_probs, _ = model.run(windows)
    tiles, meeples = data["tiles"], data["meeples"]
    tile_right = tile_probs.argmax(1) == tiles
    spot_right = meeple_probs.argmax(2) == meeples
    present = meeples > 0
    # the tracker scores a reading at ACCEPT and asks below it: what matters on unseen art is
    # how many wrong readings are that sure, and how many right ones
    sure = tile_probs.max(1) >= ACCEPT
    return {
        "crops": len(tiles),
        "tile_error": float(1 - tile_right.mean()),
        "tile_sure_and_wrong": float((sure & ~tile_right).mean()),
        "tile_sure_and_right": float((sure & tile_right).mean()),
        "meeple_spot_error": float(1 - spot_right.mean()),
        "meeple_error_where_present": float(1 - spot_right[present].mean()) if present.any() else 0.0,
        "meeples": int(present.sum()),
    }


# the standing classes, colour/size: the chance of each size is summed over the colours
SMALL = [k for k, name in enumerate(MEEPLE_CLASSES) if name.endswith("/small")]
LARGE = [k for k, name in enumerate(MEEPLE_CLASSES) if name.endswith("/large")]


def pair_probs(path: str) -> tuple[np.ndarray, np.ndarray]:
    """The meeple model's probabilities (pairs, spots, classes) on a file of (now, bare) pairs,
    and the true classes (pairs, spots)."""
    data = np.load(path)
    model = starwars_models.meeple_model()
    window = slice(MARGIN, MARGIN + CROP_PX)
    probs = np.concatenate(
        [
            model.run(data["now"][i : i + 512, window, window], data["bare"][i : i + 512, window, window])
            for i in range(0, len(data["meeples"]), 512)
        ]
    )
    return probs, data["meeples"]


def evaluate_meeples(path: str) -> dict[str, Any]:
    """The meeple model alone on held-out (now, bare) pairs (build/meeples-heldout.npz)."""
    probs, truth = pair_probs(path)
    guess = probs.argmax(2)
    present = truth > 0
    standing = np.isin(truth, SMALL + LARGE)
    large = probs[..., LARGE].sum(axis=-1)
    small = probs[..., SMALL].sum(axis=-1)
    true_large = np.isin(truth, LARGE)
    size_sure = np.maximum(large, small) >= 0.9
    size_wrong = np.where(true_large, small > large, large > small)
    planet = [SPOTS.index(p) for p in PLANET_SPOTS]
    attacks = present[:, planet].all(axis=1)  # two meeples on one planet
    attack_error = float((guess != truth)[attacks][:, planet].mean()) if attacks.any() else 0.0
    return {
        "pairs": len(truth),
        "spots_holding_something": int(present.sum()),
        "spot_error_where_present": float((guess != truth)[present].mean()),
        "false_meeples": float((guess > 0)[~present].mean()),
        "cells_exact": float((guess == truth).all(axis=1).mean()),
        "standing": int(standing.sum()),
        "size_wrong_when_sure": int((size_wrong & size_sure)[standing].sum()),
        "size_unsure": int((~size_sure)[standing].sum()),
        "planet_attacks": int(attacks.sum()),
        "planet_attack_spot_error": attack_error,
    }


def enrolled_gallery(style: int) -> Gallery[Tile]:
    """What ``companion enroll`` makes of one picture per catalog tile type, in art ``style``."""
    gallery = tile_gallery()
    for picture, entry in zip(enrolment_pictures(style), load_catalog().tiles, strict=True):
        # named as `companion enroll` names them: the tracker then knows the box is enrolled
        gallery.add(picture, entry.tile, name=enrolled_name(entry.name))
    return gallery


def laid_out_box(style: int, camera: int, seed: int) -> tuple[EnrolTable, Enrolment, dict[Cell, Tile]]:
    """One tile of each catalog type laid out on the mat in art ``style`` under ``camera``, as the
    enrolment page first sees it; and which of the tiles it shows (by their cells) lie where a
    tile really lies, with that tile as it lies. The rest it shows are bare felt."""
    table = EnrolTable(style, camera_seed=camera, seed=seed)
    enrolment = Enrolment(tile_gallery())
    eyes = EnrolmentCamera(enrolment)
    for _ in range(30):  # the first settled scene
        eyes.step(table.frame())
        if enrolment.views:
            break
    real: dict[Cell, Tile] = {}
    for cell, tile in table.truth.items():
        x_mm, y_mm = table.scene.cell_centre_mm(cell)
        for laid in enrolment.laid.values():
            if (
                max(abs(laid.centre[0] - x_mm * PX_PER_MM), abs(laid.centre[1] - y_mm * PX_PER_MM))
                < TILE_PX / 4
            ):
                real[laid.cell] = tile
                break
    return table, enrolment, real


def camera_enrolled_gallery(style: int, camera: int, seed: int) -> tuple[Gallery[Tile], int]:
    """What the phone's enrolment page makes of a box laid out under the camera: a person
    describes each tile it shows where a tile lies. Returns the gallery and how many types it
    holds."""
    _, enrolment, real = laid_out_box(style, camera, seed)
    for cell, tile in real.items():
        enrolment.enrol(cell, tile)
    return enrolment.gallery, len(real)


def evaluate_enrolment(count: int, first: int = FIRST_GAME) -> dict[str, Any]:
    """How often the enrolment page shows a laid-out box whole (every tile found, nothing on bare
    felt shown as a tile), over ``count`` tables in each art."""
    report: dict[str, Any] = {}
    for art, (styles, cameras) in ARTS.items():
        whole = missed = extra = 0
        for seed in range(first, first + count):
            table, enrolment, real = laid_out_box(
                styles[seed % len(styles)], cameras[seed % len(cameras)], seed
            )
            missed += len(table.truth) - len(real)
            extra += len(enrolment.laid) - len(real)
            whole += len(real) == len(table.truth) == len(enrolment.laid)
        report[art] = {
            "tables": count,
            "whole": whole,
            "tiles_missed": missed,
            "tiles": count * len(load_catalog().tiles),
            "felt_shown_as_tile": extra,
        }
    return report


# the art a suite's games are drawn in: its styles and cameras
ARTS = {
    "trained": (HELD_OUT_STYLES, HELD_OUT_CAMERAS),
    "box": (BOX_STYLES, HELD_OUT_CAMERAS),
    "wide": (WIDE_HELD_OUT_STYLES, WIDE_HELD_OUT_CAMERAS),
    "invented": (INVENTED_HELD_OUT_STYLES, INVENTED_HELD_OUT_CAMERAS),
}


def _game(
    seed: int,
    art: str = "trained",
    enrol: str | None = None,
    model_path: Path | None = None,
    fix: bool = False,
) -> dict[str, Any]:
    from companion.games.starwars.sim.play import read_game, simulated_game

    catalog = real_catalog() if art == "real" else None
    truth = simulated_game(seed, players=2 + seed % 4, catalog=catalog)
    model = CellModel(model_path or starwars_models.cells_path())
    styles, cameras = ARTS[art] if art != "real" else ((draw_real_art(),), HELD_OUT_CAMERAS)
    style = styles[seed % len(styles)]
    camera = cameras[seed % len(cameras)]
    gallery, enrolled = None, 0
    if art == "real" and enrol is not None:
        if enrol != "folder":
            raise SystemExit("evaluate: the real art is enrolled from its scans (--enroll folder)")
        gallery, enrolled = tile_gallery(), len(load_box())
        enrol_box(gallery)
    elif enrol == "folder":
        gallery, enrolled = enrolled_gallery(style), len(load_catalog().tiles)
    elif enrol == "camera":
        gallery, enrolled = camera_enrolled_gallery(style, camera, seed)
    result = read_game(
        truth,
        model,
        style,
        camera,
        seed,
        settled_only=True,
        meeple_model=starwars_models.meeple_model(),
        answer_prompts=True,
        gallery=gallery,
        fix_mistakes=fix,
    )
    truth_events = result.truth_events()
    # what the camera recorded, kept or put right by a person; a person entered the rest
    recorded = result.camera_events() + result.corrected
    truth_tiles = {tuple(e["at"]): e for e in truth_events if e["event"] == "tile"}
    truth_meeples = [e for e in truth_events if e["event"] == "meeple"]
    read_tiles = [e for e in recorded if e["event"] == "tile"]
    read_meeples = [e for e in recorded if e["event"] == "meeple"]
    return {
        "seed": seed,
        "tiles": len(truth_tiles),
        "tiles_right": sum(1 for e in read_tiles if truth_tiles.get(tuple(e["at"])) == e),
        # recorded as another tile, or where none was laid: the worst mistake, scored silently
        "tiles_wrong": sum(1 for e in read_tiles if truth_tiles.get(tuple(e["at"])) != e),
        "tiles_by_gallery": sum(
            1 for e in result.link.events if e.get("meta", {}).get("read_by") == "gallery"
        ),
        "meeples": len(truth_meeples),
        "meeples_right": sum(1 for e in read_meeples if e in truth_meeples),
        "meeples_wrong": sum(1 for e in read_meeples if e not in truth_meeples),
        "types_enrolled": enrolled,
        "corrections": len(result.corrected),  # camera events a person took back
        "answered": result.answered,  # events a person entered after a prompt
        # tiles entered after the camera asked about that tile; of those, offered first or at all
        "tiles_asked": result.tiles_asked,
        "tiles_first_choice": result.tiles_first_choice,
        "tiles_in_choices": result.tiles_in_choices,
        "prompts": [p.code for p in result.prompts],
        "gallery_reads": gallery_reads(
            result.tracker.learning.reads, {at: parse_tile(e["tile"]) for at, e in truth_tiles.items()}
        ),
        "exact": result.exact,  # the whole record and the scores, with the person's answers
        "seconds": round(result.seconds, 1),
    }


def gallery_reads(reads: dict[Cell, GalleryMatch], truth: dict[Cell, Tile]) -> list[dict[str, Any]]:
    """The gallery's last reading of each cell it decided, with whether the tile truly laid
    there is the one it read: what its bars are weighed by (models/training/gallery_bars.py)."""
    return [
        {"at": list(cell), **logged(match, truth.get(cell) == match.tile)} for cell, match in reads.items()
    ]


def evaluate_games(
    count: int,
    workers: int,
    first: int = FIRST_GAME,
    art: str = "trained",
    enrol: str | None = None,
    model_path: Path | None = None,
    fix: bool = False,
) -> dict[str, Any]:
    seeds = list(range(first, first + count))
    games = []
    started = time.monotonic()
    with ProcessPoolExecutor(workers) as pool:
        for done, game in enumerate(
            pool.map(partial(_game, art=art, enrol=enrol, model_path=model_path, fix=fix), seeds), start=1
        ):
            games.append(game)
            print(
                f"  game {done}/{count}: {game['tiles_right']}/{game['tiles']} tiles, "
                f"{game['meeples_right']}/{game['meeples']} meeples, exact={game['exact']}, "
                f"prompts {game['prompts']} ({time.monotonic() - started:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    tiles = sum(g["tiles"] for g in games)
    meeples = sum(g["meeples"] for g in games)
    return {
        "games": count,
        "tiles": tiles,
        # a tile is in error unless the camera recorded it right by itself (asked counts too)
        "tile_error": 1 - sum(g["tiles_right"] for g in games) / tiles,
        "tiles_read_wrong": sum(g["tiles_wrong"] for g in games),
        "tiles_by_gallery": sum(g["tiles_by_gallery"] for g in games),
        "meeples": meeples,
        "meeple_error": 1 - sum(g["meeples_right"] for g in games) / max(1, meeples),
        "meeples_read_wrong": sum(g["meeples_wrong"] for g in games),
        "games_all_tiles_right": sum(g["tiles_right"] == g["tiles"] for g in games) / count,
        "games_exact": sum(g["exact"] for g in games) / count,
        "games_exact_unanswered": sum(g["exact"] and not g["answered"] for g in games) / count,
        "types_enrolled_mean": sum(g["types_enrolled"] for g in games) / count,
        "corrections": sum(g["corrections"] for g in games),
        "prompts": sum(len(g["prompts"]) for g in games),
        "answered": sum(g["answered"] for g in games),
        "tiles_asked": sum(g["tiles_asked"] for g in games),
        # of the tiles asked about, how many the question offered: first, or among its choices
        "tiles_first_choice": sum(g["tiles_first_choice"] for g in games),
        "tiles_in_choices": sum(g["tiles_in_choices"] for g in games),
        "per_game": games,
    }


def art_of(args: argparse.Namespace) -> str:
    flags = {"box": args.box_art, "wide": args.wide_art, "invented": args.invented_art, "real": args.real_art}
    chosen = [art for art, given in flags.items() if given]
    if len(chosen) > 1:
        named = " and ".join(f"--{art}-art" for art in chosen)
        raise SystemExit(
            f"evaluate: one of --box-art, --wide-art, --invented-art and --real-art, not {named}"
        )
    return chosen[0] if chosen else "trained"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cells", help="held-out crops (npz) for the model-level figures")
    parser.add_argument("--model", type=Path, default=None, help="the cell model (default: the shipped one)")
    parser.add_argument("--meeples", help="held-out (now, bare) pairs (npz) for the meeple model")
    parser.add_argument("--games", type=int, default=0, help="whole held-out games to read")
    parser.add_argument(
        "--first-game", type=int, default=FIRST_GAME, help=f"seed of the first game (default {FIRST_GAME})"
    )
    parser.add_argument(
        "--box-art",
        action="store_true",
        help="draw the games' tiles in the second family of art, never trained on (companion/sim/art_box.py)",
    )
    parser.add_argument(
        "--wide-art",
        action="store_true",
        help="draw them in held-out styles of the third family, which the shipped cell model never saw",
    )
    parser.add_argument(
        "--invented-art",
        action="store_true",
        help="draw them in held-out styles of the fourth family, whose emblems, sprites and route marks "
        "no shipped model saw",
    )
    parser.add_argument(
        "--real-art",
        action="store_true",
        help="deal the games from a box of real printed art, drawn from its scans "
        "(../shared/data/tile-art-dev, models/training/real_art.py)",
    )
    parser.add_argument(
        "--enroll",
        "--enrol",
        nargs="?",
        const="folder",
        choices=("folder", "camera"),
        help="enrol one tile of each type in each game's art first: from clean pictures, as "
        "companion enroll FOLDER does (the default), or laid out under the game's camera and "
        "described on the phone (camera)",
    )
    parser.add_argument(
        "--fix",
        action="store_true",
        help="a person puts right on the phone what the camera recorded wrong (else a game gone "
        "astray is read no further); the camera's mistakes still count",
    )
    parser.add_argument(
        "--enrol-tables",
        type=int,
        default=0,
        help="boxes laid out for enrolment, in each art: how often the page shows the box whole",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", help="write the figures as JSON here too")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {}
    if args.cells:
        report["cells"] = evaluate_cells(args.cells, args.model)
        print(json.dumps(report["cells"], indent=1))
    if args.meeples:
        report["meeples"] = evaluate_meeples(args.meeples)
        print(json.dumps(report["meeples"], indent=1))
    if args.enrol_tables:
        report["enrolment"] = evaluate_enrolment(args.enrol_tables, args.first_game)
        print(json.dumps(report["enrolment"], indent=1))
    if args.games:
        report["games"] = evaluate_games(
            args.games, args.workers, args.first_game, art_of(args), args.enroll, args.model, args.fix
        )
        print(json.dumps({k: v for k, v in report["games"].items() if k != "per_game"}, indent=1))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as file:
            json.dump(report, file, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
