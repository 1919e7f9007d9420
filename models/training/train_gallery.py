"""Train the gallery's matcher (a tile square to a vector) and export it to ONNX.

The matcher is trained to compare, not to name: in each step it sees the camera's tile squares
of one art style and the clean pictures of that style's 35 tile types, each turned the four
ways, and learns to put each square nearest the picture of its own tile as it lies. A box it
never saw is then read against that box's own pictures. Each step's style is repainted as a
whole (hues turned, channels swapped, grey, inverted), squares and pictures alike, so that
every step is a box of its own; with ``--warp`` a share of them is also laid out another way.

    python -m models.training.gallery_data --wide --frames 760 --out build/gallery-wide-train.npz
    python -m models.training.gallery_data --frames 300 --out build/gallery-train.npz
    python -m models.training.gallery_data --wide --held-out --frames 40 --out build/gallery-wide-heldout.npz
    python -m models.training.train_gallery --data build/gallery-wide-train.npz \\
        --test build/gallery-wide-heldout.npz --epochs 4 --warp 0.5 --warp-reach 0.1 --warp-each-tile \\
        --out build/gallery-t-a.onnx
    python -m models.training.train_gallery --data build/gallery-wide-train.npz build/gallery-train.npz \\
        --test build/gallery-wide-heldout.npz --init build/gallery-t-a.pt --epochs 4 --lr 1e-3 --mottle 0.5 \\
        --warp 0.5 --warp-reach 0.1 --warp-each-tile

Writes models/starwars/gallery.onnx. Needs the optional ``train`` extra (torch).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import cv2
import numpy as np

try:
    import torch
except ModuleNotFoundError as missing:  # torch is for training only, never in the runtime
    raise SystemExit(
        "training needs torch and onnx: .venv/bin/pip install -e '.[train]' (models/README.md)"
    ) from missing
from torch import nn
from torch.nn import functional as F

from companion.games.starwars.catalog import load_catalog
from companion.games.starwars.tiles import Tile
from companion.vision.gallery_match import MATCH_MARGIN, MATCH_SURE
from companion.vision.gallery_views import camera_look, mottle
from companion.vision.mat import TILE_PX
from models.training.cell_data import TEST_ONLY, UNSEEN_DEV
from models.training.common import save, training_parser
from models.training.evaluate_gallery import candidates, positive_table, turned_pictures
from models.training.train_cells import GREY, SWAPS, block, hue_turn

HERE = Path(__file__).resolve().parents[1] / "starwars"  # where the model files are kept
EMBEDDING = 256
SCALE = 16.0  # cosine likeness times this is the softmax's logit


class Matcher(nn.Module):
    """(N, TILE_PX, TILE_PX, 3) BGR 0-255 -> (N, EMBEDDING) of unit length."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            block(3, 24),
            nn.MaxPool2d(2),  # 24
            block(24, 48),
            block(48, 48),
            nn.MaxPool2d(2),  # 12
            block(48, 96),
            block(96, 96),
            nn.MaxPool2d(2),  # 6
            block(96, 96),
        )
        # where things lie is the structure, so the maps are flattened, not pooled
        self.head = nn.Linear(96 * (TILE_PX // 8) ** 2, EMBEDDING)

    def forward(self, squares: torch.Tensor) -> torch.Tensor:
        x = squares.permute(0, 3, 1, 2) / 255.0
        # each picture less its own colour and contrast: a camera's light and a scan's differ
        mean = x.mean(dim=(2, 3), keepdim=True)
        std = x.std(dim=(2, 3), keepdim=True)
        x = (x - mean) / (std + 0.05)
        return F.normalize(self.head(self.features(x).flatten(1)), dim=1)


def restyle(arrays: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """The same repaint over every array of one style: another box, the same structure."""
    matrix = np.eye(3, dtype=np.float32)
    pick = rng.random()
    if pick < 0.35:
        matrix = hue_turn(rng.uniform(0.3, 2 * np.pi - 0.3)).T
    elif pick < 0.6:
        matrix = np.eye(3, dtype=np.float32)[:, SWAPS[rng.integers(len(SWAPS))]]
    elif pick < 0.7:
        matrix = np.repeat(GREY[:, None], 3, axis=1)
    invert = rng.random() < 0.2
    out = []
    for array in arrays:
        x = array.astype(np.float32) @ matrix
        if invert:
            x = 255 - np.clip(x, 0, 255)
        out.append(np.clip(x, 0, 255))
    return out


def redraw(arrays: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """One change of how a box is drawn, the same over every array of a style (before the camera
    look): strokes thinner or bolder, another tone curve per channel, a crisper print, or fewer
    inks. Boxes differ in how they draw as much as in their colours; two families of art show
    the network only two ways of drawing."""
    pick = int(rng.integers(4))
    if pick == 0:  # strokes: a light feature on a dark ground grows or thins by a pixel
        kernel = np.ones((2, 2), np.uint8)
        morph = cv2.erode if rng.random() < 0.5 else cv2.dilate
        return [np.stack([morph(np.asarray(a, np.float32), kernel) for a in array]) for array in arrays]
    if pick == 1:  # a tone curve per channel, through random levels (sometimes not rising)
        knots = np.sort(rng.uniform(0, 255, (3, 3)), axis=1)
        if rng.random() < 0.2:
            knots = rng.uniform(0, 255, (3, 3))
        lut = [np.interp(np.arange(256), [0, 85, 170, 255], [0, *k]) for k in knots]
        out = []
        for array in arrays:
            levels = np.clip(array, 0, 255).astype(np.uint8)
            out.append(np.stack([table[levels[..., c]] for c, table in enumerate(lut)], axis=-1))
        return [np.asarray(a, np.float32) for a in out]
    if pick == 2:  # a crisper print
        amount = rng.uniform(0.5, 2.0)
        out = []
        for array in arrays:
            soft = np.stack([cv2.GaussianBlur(a, (0, 0), 1.0) for a in np.asarray(array, np.float32)])
            out.append(np.clip(array + amount * (array - soft), 0, 255))
        return out
    inks = int(rng.integers(3, 6))  # fewer inks: each channel in a few flat levels
    return [np.round(np.asarray(array, np.float32) / 255 * (inks - 1)) / (inks - 1) * 255 for array in arrays]


def warp_field(size: int, rng: np.random.Generator, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """A smooth displacement of an upright tile (cv2.remap's maps), nil on the tile's rim: where
    a box draws its routes' bends, its fields' extent, its planets and badges moves, what meets
    which side does not. Both families of art in training lay their parts out alike."""
    coarse = rng.uniform(-1.0, 1.0, (2, 3, 3)).astype(np.float32)
    fine = np.stack([cv2.resize(c, (size, size), interpolation=cv2.INTER_CUBIC) for c in coarse])
    u = (np.arange(size, dtype=np.float32) + 0.5) / size
    rim = np.outer(np.sin(np.pi * u), np.sin(np.pi * u))  # 0 at the rim, 1 in the middle
    shift = fine * rim * reach * size
    grid_y, grid_x = np.mgrid[0:size, 0:size].astype(np.float32)
    return grid_x + shift[0], grid_y + shift[1]


def warp(
    squares: np.ndarray,
    turns: np.ndarray,
    pictures: np.ndarray,
    rng: np.random.Generator,
    reach: float,
    square_tiles: np.ndarray | None = None,
    picture_tiles: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """A layout change over a style (``warp_field``), laid out on each upright picture and on
    each square as its tile lies (``turns`` quarter turns clockwise), so that a square and its
    picture still show one print. Given each square's and each picture's tile (as indices),
    each tile is laid out its own way, as an artist draws each tile of a box; else one way over
    the whole style."""
    size = pictures.shape[1]
    assert squares.shape[1:3] == pictures.shape[1:3], "the maps are sized for the pictures"
    if square_tiles is None or picture_tiles is None:
        square_tiles, picture_tiles = np.zeros(len(squares), int), np.zeros(len(pictures), int)
    fields = {int(tile): warp_field(size, rng, reach) for tile in np.unique(picture_tiles)}

    def lay_out(upright: np.ndarray, tile: int) -> np.ndarray:
        map_x, map_y = fields[tile]
        image = np.ascontiguousarray(upright, np.float32)
        return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    warped_pictures = np.stack([lay_out(p, int(t)) for p, t in zip(pictures, picture_tiles, strict=True)])
    warped_squares = np.stack(
        [
            np.rot90(lay_out(np.rot90(s, k=int(q)), int(t)), k=-int(q))
            for s, q, t in zip(squares, turns, square_tiles, strict=True)
        ]
    )
    return warped_squares, warped_pictures


def class_layout(positives: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each cell-model class, its quarter turns from upright and its tile; and each catalog
    entry's tile (the catalog lists the start tile twice: one tile). A tile that looks the same
    turned is drawn the same (the renderers seed by the tile as it lies), so its square is its
    picture at its first such way."""
    entries = [entry.tile for entry in load_catalog().tiles]
    tile_of_entry = np.array([entries.index(tile) for tile in entries])
    first_way = np.argmax(positives, axis=1)  # candidates are type-major, 4 turns each
    return first_way % 4, tile_of_entry[first_way // 4], tile_of_entry


class StyleData:
    """The squares of every style, and each style's upright pictures."""

    def __init__(self, paths: list[str], training: bool = True) -> None:
        self.squares: list[np.ndarray] = []
        self.tiles: list[np.ndarray] = []
        self.pictures: list[np.ndarray] = []
        for path in paths:
            data = np.load(path)
            split = str(data["split"])
            if split in TEST_ONLY:
                raise SystemExit(f"{path} is {split} data: a test set, never trained on")
            if training and split in UNSEEN_DEV:
                raise SystemExit(
                    f"{path} is {split} data: the unseen art a likeness is judged on, never trained on"
                )
            # each key of an npz is read from the file anew: read each once
            styles, squares, tiles = data["styles"], data["squares"], data["tiles"]
            pictures = data["enrol_pictures"]
            for s, style in enumerate(data["enrol_styles"]):
                mine = styles == style
                if mine.any():
                    self.squares.append(squares[mine])
                    self.tiles.append(tiles[mine])
                    self.pictures.append(pictures[s])

    def __len__(self) -> int:
        return len(self.squares)


def step_loss(
    net: Matcher,
    squares: np.ndarray,
    tiles: np.ndarray,
    pictures: np.ndarray,
    positives: np.ndarray,
    margin: float = 0.0,
) -> torch.Tensor:
    seen = net(torch.from_numpy(squares))
    kept = net(torch.from_numpy(turned_pictures(pictures).astype(np.float32)))
    mask = torch.from_numpy(positives[tiles])
    # a square's own ways count ``margin`` less alike than they are, so the loss keeps pushing
    # hard until they lead every other way by about that much (an additive cosine margin, as CosFace's)
    logits = SCALE * (seen @ kept.T - margin * mask.float())
    right = torch.logsumexp(logits.masked_fill(~mask, -1e9), dim=1)
    return (torch.logsumexp(logits, dim=1) - right).mean()


def figures(net: Matcher, data: StyleData, positives: np.ndarray) -> dict[str, float]:
    """Top-1 over all 140 ways, and how many squares are read sure (the gallery's bars, with
    a picture of every way) and how many of those wrong."""
    net.eval()
    ways = candidates()
    right = sure = sure_wrong = total = 0
    with torch.no_grad():
        for squares, tiles, pictures in zip(data.squares, data.tiles, data.pictures, strict=True):
            seen = net(torch.from_numpy(squares.astype(np.float32)))
            kept = net(torch.from_numpy(turned_pictures(pictures).astype(np.float32)))
            likeness = (seen @ kept.T).numpy()
            for row, cls in zip(likeness, tiles, strict=True):
                best: dict[Tile, float] = {}
                for way, score in zip(ways, row.tolist(), strict=True):
                    best[way] = max(best.get(way, -1.0), score)
                ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
                ok = bool(positives[cls][ways.index(ranked[0][0])])
                right += ok
                if ranked[0][1] >= MATCH_SURE and ranked[0][1] - ranked[1][1] >= MATCH_MARGIN:
                    sure += 1
                    sure_wrong += not ok
                total += 1
    net.train()
    return {"top1": right / total, "sure": sure / total, "sure_wrong": sure_wrong / total}


def main(argv: list[str] | None = None) -> int:
    parser = training_parser(__doc__, HERE / "gallery.onnx", epochs=6)
    parser.set_defaults(lr=2e-3, batch=96)
    parser.add_argument(
        "--mottle", type=float, default=0.0, help="share of squares given a blotch of colour of their own"
    )
    parser.add_argument(
        "--redraw", type=float, default=0.0, help="share of steps whose style is drawn another way (redraw)"
    )
    parser.add_argument(
        "--warp", type=float, default=0.0, help="share of steps whose style is laid out another way (warp)"
    )
    parser.add_argument(
        "--warp-reach",
        type=float,
        default=0.1,
        help="the scale of a warp's shifts, in tile widths (cubic between its grid, a shift reaches about "
        "1.2 times this along an axis)",
    )
    parser.add_argument(
        "--warp-each-tile", action="store_true", help="lay each tile of a warped style out its own way"
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=0.0,
        help="how much more alike a square must be to its own ways than to any other (cosine; 0: none)",
    )
    args = parser.parse_args(argv)
    if args.warp_each_tile and args.warp <= 0:
        parser.error("--warp-each-tile lays out the styles --warp warps: give --warp a share above 0")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    data = StyleData(args.data)
    test = StyleData([args.test], training=False) if args.test else None
    positives = positive_table()
    turns_of_class, tile_of_class, tile_of_entry = class_layout(positives)
    net = Matcher()
    if args.init:
        net.load_state_dict(torch.load(args.init))
    steps_per_epoch = len(data)
    steps = args.epochs * steps_per_epoch
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=steps, pct_start=0.15)
    print(f"{len(data)} styles, {sum(map(len, data.squares))} squares, {steps} steps", file=sys.stderr)
    started = time.monotonic()
    for epoch in range(1, args.epochs + 1):
        total = 0.0
        for step, s in enumerate(rng.permutation(len(data)), start=1):
            chosen = rng.permutation(len(data.squares[s]))[: args.batch]
            squares, pictures = restyle([data.squares[s][chosen], data.pictures[s]], rng)
            if args.redraw > 0 and rng.random() < args.redraw:
                squares, pictures = redraw([squares, pictures], rng)
            if args.warp > 0 and rng.random() < args.warp:
                classes = data.tiles[s][chosen]
                own = (tile_of_class[classes], tile_of_entry) if args.warp_each_tile else (None, None)
                squares, pictures = warp(
                    squares, turns_of_class[classes], pictures, rng, args.warp_reach, *own
                )
            squares = camera_look(mottle(squares, rng, args.mottle), rng)
            pictures = mottle(pictures, rng, args.mottle / 2)
            loss = step_loss(net, squares, data.tiles[s][chosen], pictures, positives, args.margin)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
            if step % 50 == 0:
                print(f"  epoch {epoch} step {step}: loss {total / step:.4f}", file=sys.stderr, flush=True)
        took = time.monotonic() - started
        line = f"epoch {epoch}/{args.epochs}: loss {total / steps_per_epoch:.4f}, {took:.0f} s"
        if test is not None:
            line += ", held-out " + ", ".join(
                f"{k} {v:.2%}" for k, v in figures(net, test, positives).items()
            )
        print(line, file=sys.stderr, flush=True)
    net.eval()
    example = torch.zeros(2, TILE_PX, TILE_PX, 3)
    save(net, net, (example,), Path(args.out), ["squares"], ["embedding"])
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
