"""The simulated table: a scene on the play mat -> the frame an overhead camera would give.

The scene is drawn top-down on the mat (mat coordinates, millimetres), then seen through a
camera: pose and height (a homography), lens distortion, uneven light and shadows, blur, sensor
noise and JPEG. Everything random comes from seeds, so a seed always gives the same frame.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import cache, lru_cache

import cv2
import numpy as np

from companion.games.base import Cell
from companion.games.starwars.art.box import BoxStyle, draw_box_tile, is_box_style
from companion.games.starwars.art.drawn import PLAYER_BGR, TileStyle, draw_meeple, draw_tile, spot_point
from companion.games.starwars.art.invented import InventedStyle, draw_invented_tile, is_invented_style
from companion.games.starwars.art.wide import WideStyle, draw_wide_tile, is_wide_style
from companion.games.starwars.tiles import Tile
from companion.vision.mat import QUIET_ZONE_MM, STANDARD_MAT, TILE_MM, MatSpec

FRAME_SIZE = (1280, 720)
SCENE_PX_PER_MM = 1.5  # the top-down scene is drawn a little finer than the camera resolves
MEEPLE_HEIGHT_MM = {"small": 11.0, "large": 15.0}
SKIN_BGR = ((140, 170, 225), (105, 140, 200), (80, 110, 165), (55, 80, 120), (150, 185, 235))


@dataclass(frozen=True)
class PlacedTile:
    tile: Tile  # as it lies
    style: int  # art style seed
    variant: int = 0  # which printed copy
    offset_mm: tuple[float, float] = (0.0, 0.0)  # off the lattice
    angle_deg: float = 0.0  # turned a little
    # a printed tile's own picture as it lies (any square size), drawn instead of the style's
    # art: real art drawn through the simulated camera; ``printed_name`` tells pictures apart
    printed: np.ndarray | None = field(default=None, compare=False, hash=False, repr=False)
    printed_name: str = ""


@dataclass(frozen=True)
class PlacedMeeple:
    cell: Cell
    spot: str
    colour: str
    size: str
    fallen: bool = False
    offset_mm: tuple[float, float] = (0.0, 0.0)
    angle_deg: float = 0.0


@dataclass(frozen=True)
class Hand:
    at_mm: tuple[float, float]  # where the fingertips are, mat coordinates
    angle_deg: float  # the direction the arm comes from
    skin: int = 0
    holding: PlacedTile | None = None


@dataclass
class Scene:
    """What lies on the mat. ``origin_mm`` is the centre of cell (0, 0)."""

    origin_mm: tuple[float, float]
    tiles: dict[Cell, PlacedTile] = field(default_factory=dict)
    meeples: list[PlacedMeeple] = field(default_factory=list)
    hand: Hand | None = None
    mat: MatSpec = STANDARD_MAT

    def cell_centre_mm(self, cell: Cell) -> tuple[float, float]:
        return (self.origin_mm[0] + cell[0] * TILE_MM, self.origin_mm[1] + cell[1] * TILE_MM)

    def static_key(self) -> tuple[object, ...]:
        return (self.origin_mm, tuple(sorted(self.tiles.items())), tuple(self.meeples))


@dataclass(frozen=True)
class Camera:
    """One camera set-up and the light on the table: fixed for a game, chosen by a seed."""

    seed: int
    mat_to_image: np.ndarray  # 3x3, mat millimetres -> undistorted image pixels
    k1: float  # radial distortion, normalised by the half-diagonal
    exposure: float
    white_balance: tuple[float, float, float]
    light: tuple[float, ...]  # gradient and blob parameters of the light field
    shadows: tuple[tuple[tuple[float, float], ...], ...]  # soft shadow polygons, image pixels
    shadow_depth: float
    blur: float
    noise: float
    jpeg_quality: int
    table_bgr: tuple[int, int, int]

    @classmethod
    def from_seed(cls, seed: int, mat: MatSpec = STANDARD_MAT, harsh: bool = False) -> Camera:
        rng = random.Random(f"camera-{seed}")
        w, h = FRAME_SIZE
        mat_corners = np.array(
            [[0, 0], [mat.width_mm, 0], [mat.width_mm, mat.height_mm], [0, mat.height_mm]], np.float32
        )
        for _ in range(100):
            scale = rng.uniform(0.97, 1.08)
            yaw = math.radians(rng.uniform(-3, 3))
            cx = w / 2 + rng.uniform(-60, 60)
            cy = h / 2 + rng.uniform(-12, 12)
            rot = np.array([[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]])
            centred = (mat_corners - np.array([mat.width_mm / 2, mat.height_mm / 2])) * scale
            corners = centred @ rot.T + np.array([cx, cy])
            corners += np.array([[rng.uniform(-12, 12), rng.uniform(-8, 8)] for _ in range(4)])
            inside_x = corners[:, 0].min() > 6 and corners[:, 0].max() < w - 6
            if inside_x and corners[:, 1].min() > 4 and corners[:, 1].max() < h - 4:
                break
        homography = cv2.getPerspectiveTransform(mat_corners, corners.astype(np.float32))
        strength = 1.6 if harsh else 1.0
        shadows = []
        for _ in range(rng.randint(0, 2)):
            x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
            points = [(x0 + rng.uniform(-350, 350), y0 + rng.uniform(-250, 250)) for _ in range(4)]
            shadows.append(tuple(points))
        return cls(
            seed=seed,
            mat_to_image=homography,
            k1=rng.uniform(-0.04, 0.04),
            exposure=rng.uniform(0.75, 1.15),
            white_balance=(rng.uniform(0.88, 1.12), rng.uniform(0.95, 1.05), rng.uniform(0.88, 1.12)),
            light=(
                rng.uniform(-0.25, 0.25) * strength,
                rng.uniform(-0.25, 0.25) * strength,
                rng.uniform(0, w),
                rng.uniform(0, h),
                rng.uniform(200, 600),
                rng.uniform(-0.2, 0.3) * strength,
            ),
            shadows=tuple(shadows),
            shadow_depth=rng.uniform(0.55, 0.85),
            blur=rng.uniform(0.0, 1.1 * strength),
            noise=rng.uniform(1.0, 4.0 * strength),
            jpeg_quality=rng.randint(55, 95),
            table_bgr=(rng.randint(40, 90), rng.randint(60, 110), rng.randint(90, 150)),
        )


@cache
def _mat_picture(mat: MatSpec) -> np.ndarray:
    """The printed mat, top-down at the scene's resolution: felt, tray outline, markers."""
    width, height = round(mat.width_mm * SCENE_PX_PER_MM), round(mat.height_mm * SCENE_PX_PER_MM)
    rng = np.random.default_rng(7)
    felt = np.empty((height, width, 3), np.float32)
    felt[:] = mat.colour_bgr
    grain = cv2.GaussianBlur(rng.normal(0, 6, (height, width)).astype(np.float32), (0, 0), 1.2)
    picture = np.clip(felt + grain[..., None], 0, 255).astype(np.uint8)
    t = mat.tray
    s = SCENE_PX_PER_MM
    cv2.rectangle(
        picture,
        (round(t.x_mm * s), round(t.y_mm * s)),
        (round((t.x_mm + t.w_mm) * s), round((t.y_mm + t.h_mm) * s)),
        (110, 125, 118),
        3,
    )
    for marker in mat.markers:
        side = round(marker.size_mm * s)
        image = cv2.aruco.generateImageMarker(mat.dictionary, marker.id, side)
        x, y = round(marker.x_mm * s), round(marker.y_mm * s)
        white = round(QUIET_ZONE_MM * s)
        cv2.rectangle(
            picture, (x - white, y - white), (x + side + white, y + side + white), (250, 250, 250), -1
        )
        picture[y : y + side, x : x + side] = image[..., None]
    result: np.ndarray = picture
    return result


# Bounded to about two games: a long run (the soak, `companion run` on the simulator) meets a new
# art style every game, so older pictures are never asked for again. A game draws about 72
# pictures of 14 KB; 1024 of them (15 games' worth) made the soak's memory climb for an hour.
@lru_cache(maxsize=160)
def _tile_picture(tile: Tile, style: int, variant: int) -> np.ndarray:
    size = round(TILE_MM * SCENE_PX_PER_MM)
    if style in _PRINTED_BOXES:
        return _printed_picture(_PRINTED_BOXES[style], tile, variant, size)
    return tile_picture(tile, style, size, variant)


# Boxes of real printed art, each drawn as an art style: (upright tile, its scan) per type
_PRINTED_BOXES: dict[int, tuple[tuple[Tile, np.ndarray], ...]] = {}


def register_printed_box(style: int, types: list[tuple[Tile, np.ndarray]]) -> None:
    """Draw tiles of art ``style`` from scans of a real box: ``types`` is each type's tile,
    upright as its scan shows it, with the scan (BGR, square)."""
    _PRINTED_BOXES[style] = tuple(types)
    _tile_picture.cache_clear()


def _printed_picture(
    types: tuple[tuple[Tile, np.ndarray], ...], tile: Tile, variant: int, size: int
) -> np.ndarray:
    """The scan of a type that lies as ``tile`` when turned, turned so; ``variant`` picks among
    types that look alike to the rules (four roads meeting, with or without houses)."""
    ways = [(scan, turns) for upright, scan in types for turns in range(4) if upright.rotated(turns) == tile]
    if not ways:
        raise ValueError(f"no type of the printed box lies as {tile.to_json()}")
    kinds = list(dict.fromkeys(id(scan) for scan, _ in ways))
    chosen = kinds[variant % len(kinds)]
    scan, turns = next((scan, turns) for scan, turns in ways if id(scan) == chosen)
    turned = np.ascontiguousarray(np.rot90(scan, -turns))
    return cv2.resize(turned, (size, size), interpolation=cv2.INTER_AREA)


def tile_picture(tile: Tile, style: int, size_px: int, variant: int = 0) -> np.ndarray:
    """The tile as it lies, ``size_px`` square, BGR, in art ``style`` of whichever family it is."""
    if is_box_style(style):
        return draw_box_tile(tile, BoxStyle.from_seed(style), size_px, variant)
    if is_wide_style(style):
        return draw_wide_tile(tile, WideStyle.from_seed(style), size_px, variant)
    if is_invented_style(style):
        return draw_invented_tile(tile, InventedStyle.from_seed(style), size_px, variant)
    return draw_tile(tile, TileStyle.from_seed(style), size_px, variant)


def _paste_tile(canvas: np.ndarray, placed: PlacedTile, centre_mm: tuple[float, float]) -> None:
    if placed.printed is None:
        art = _tile_picture(placed.tile, placed.style, placed.variant)
    else:
        side = round(TILE_MM * SCENE_PX_PER_MM)
        art = cv2.resize(placed.printed, (side, side), interpolation=cv2.INTER_AREA)
    size = art.shape[0]
    s = SCENE_PX_PER_MM
    cx = (centre_mm[0] + placed.offset_mm[0]) * s
    cy = (centre_mm[1] + placed.offset_mm[1]) * s
    half = size * 0.75
    x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
    x1, y1 = min(canvas.shape[1], int(cx + half) + 1), min(canvas.shape[0], int(cy + half) + 1)
    if x1 <= x0 or y1 <= y0:
        return
    rot = cv2.getRotationMatrix2D((size / 2, size / 2), -placed.angle_deg, 1.0)
    rot[0, 2] += cx - size / 2 - x0
    rot[1, 2] += cy - size / 2 - y0
    roi = canvas[y0:y1, x0:x1]
    mask = np.full((size, size), 255, np.uint8)
    warped = cv2.warpAffine(art, rot, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(mask, rot, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    # the tile's thickness throws a thin shadow to the south-east
    shadow = cv2.warpAffine(alpha, np.array([[1, 0, 2.5], [0, 1, 2.5]], np.float32), (x1 - x0, y1 - y0))
    shadow = cv2.GaussianBlur(shadow, (0, 0), 1.5).astype(np.float32)[..., None] / 255
    a = alpha.astype(np.float32)[..., None] / 255
    base = roi.astype(np.float32) * (1 - 0.5 * shadow)
    roi[:] = (base * (1 - a) + warped.astype(np.float32) * a).astype(np.uint8)


def _draw_hand(canvas: np.ndarray, hand: Hand) -> None:
    s = SCENE_PX_PER_MM
    rng = random.Random(hash(hand.at_mm) & 0xFFFF)
    skin = SKIN_BGR[hand.skin % len(SKIN_BGR)]
    a = math.radians(hand.angle_deg)
    direction = np.array([math.cos(a), math.sin(a)])  # from fingertips towards the arm
    across = np.array([-direction[1], direction[0]])
    tips = np.array(hand.at_mm)
    palm = tips + direction * 70
    shadow_layer = np.zeros(canvas.shape[:2], np.uint8)
    skin_layer = np.zeros(canvas.shape[:2], np.uint8)

    def capsule(layer: np.ndarray, p: np.ndarray, q: np.ndarray, width: float, offset: float = 0) -> None:
        p1 = tuple(int(v) for v in (p + offset) * s)
        q1 = tuple(int(v) for v in (q + offset) * s)
        cv2.line(layer, p1, q1, 255, max(1, int(width * s)), cv2.LINE_AA)

    for layer, offset in ((shadow_layer, 12.0), (skin_layer, 0.0)):
        cv2.ellipse(
            layer,
            tuple(int(v) for v in (palm + offset) * s),
            (int(48 * s), int(40 * s)),
            math.degrees(a),
            0,
            360,
            255,
            -1,
            cv2.LINE_AA,
        )
        for k in range(4):
            base = palm + across * (k - 1.5) * 18 - direction * 30
            tip = tips + across * (k - 1.5) * 16 + direction * rng.uniform(-6, 10)
            capsule(layer, base, tip, 16, offset)
        thumb_base = palm + across * 40
        capsule(layer, thumb_base, thumb_base - direction * 35 + across * 20, 18, offset)
        capsule(layer, palm, palm + direction * 900, 80, offset)
    if hand.holding is not None:
        _paste_tile(
            canvas, hand.holding, (float(tips[0] + direction[0] * 15), float(tips[1] + direction[1] * 15))
        )
    shade = cv2.GaussianBlur(shadow_layer, (0, 0), 6).astype(np.float32)[..., None] / 255
    canvas[:] = (canvas.astype(np.float32) * (1 - 0.45 * shade)).astype(np.uint8)
    body = skin_layer.astype(np.float32)[..., None] / 255
    lit = np.empty_like(canvas)
    lit[:] = skin
    canvas[:] = (canvas * (1 - body) + lit * body).astype(np.uint8)


class Renderer:
    """Draws frames of a scene through a camera; keeps the static part of the last scene."""

    def __init__(self, camera: Camera, mat: MatSpec = STANDARD_MAT) -> None:
        self.camera = camera
        self.mat = mat
        self._static_key: tuple[object, ...] | None = None
        self._static: np.ndarray | None = None
        self._maps = _distortion_maps(camera.k1)
        self._light = _light_field(camera)
        s = SCENE_PX_PER_MM
        scene_to_mat = np.diag([1 / s, 1 / s, 1.0])
        self._scene_to_image = camera.mat_to_image @ scene_to_mat
        self._background = self._table()

    def _table(self) -> np.ndarray:
        w, h = FRAME_SIZE
        rng = np.random.default_rng(self.camera.seed)
        wood = np.empty((h, w, 3), np.float32)
        wood[:] = self.camera.table_bgr
        streaks = cv2.resize(
            rng.normal(0, 12, (h, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
        )
        table: np.ndarray = np.clip(wood + streaks[..., None], 0, 255).astype(np.uint8)
        return table

    def top_view(self, scene: Scene) -> np.ndarray:
        key = scene.static_key()
        if key != self._static_key or self._static is None:
            canvas = _mat_picture(scene.mat).copy()
            for cell, placed in sorted(scene.tiles.items()):
                _paste_tile(canvas, placed, scene.cell_centre_mm(cell))
            rng = random.Random(0)
            for meeple in scene.meeples:
                x, y = scene.cell_centre_mm(meeple.cell)
                ux, uy = spot_point(meeple.spot)
                px = (x + (ux - 0.5) * TILE_MM + meeple.offset_mm[0]) * SCENE_PX_PER_MM
                py = (y + (uy - 0.5) * TILE_MM + meeple.offset_mm[1]) * SCENE_PX_PER_MM
                height = MEEPLE_HEIGHT_MM[meeple.size] * SCENE_PX_PER_MM
                draw_meeple(
                    canvas, (px, py), PLAYER_BGR[meeple.colour], height, meeple.angle_deg, meeple.fallen, rng
                )
            self._static, self._static_key = canvas, key
        return self._static

    def render(self, scene: Scene, frame_seed: int) -> np.ndarray:
        """One camera frame of ``scene`` (BGR, 1280x720); ``frame_seed`` draws its noise."""
        top = self.top_view(scene)
        if scene.hand is not None:
            top = top.copy()
            _draw_hand(top, scene.hand)
        frame = self._background.copy()
        cv2.warpPerspective(
            top,
            self._scene_to_image,
            FRAME_SIZE,
            dst=frame,
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_TRANSPARENT,
        )
        return self.finish(frame, frame_seed)

    def finish(self, frame: np.ndarray, frame_seed: int) -> np.ndarray:
        """The camera's own effects on a frame: lens, light, blur, noise and JPEG."""
        cam = self.camera
        frame = cv2.remap(
            frame, self._maps[0], self._maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        lit = frame.astype(np.float32) * self._light
        if cam.blur > 0.3:
            lit = cv2.GaussianBlur(lit, (0, 0), cam.blur)
        noise = np.empty(lit.shape, np.float32)
        cv2.setRNGSeed(frame_seed & 0x7FFFFFFF)
        cv2.randn(noise, np.zeros(3), np.full(3, cam.noise))
        out = np.clip(lit + noise, 0, 255).astype(np.uint8)
        ok, encoded = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, cam.jpeg_quality])
        decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
        assert ok and decoded is not None
        return decoded


@lru_cache(maxsize=4)  # two float maps of a whole frame each, 7 MB a camera
def _distortion_maps(k1: float) -> tuple[np.ndarray, np.ndarray]:
    w, h = FRAME_SIZE
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = w / 2, h / 2
    norm = math.hypot(cx, cy)
    dx, dy = (xx - cx) / norm, (yy - cy) / norm
    factor = 1 + k1 * (dx * dx + dy * dy)
    return (cx + dx * factor * norm).astype(np.float32), (cy + dy * factor * norm).astype(np.float32)


def _light_field(camera: Camera) -> np.ndarray:
    w, h = FRAME_SIZE
    gx, gy, bx, by, radius, blob = camera.light
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    field_ = 1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    field_ += blob * np.exp(-((xx - bx) ** 2 + (yy - by) ** 2) / (2 * radius**2))
    # vignetting: corners darker than the centre
    field_ *= 1 - 0.18 * (((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2) * 2
    if camera.shadows:
        mask = np.zeros((h, w), np.uint8)
        for polygon in camera.shadows:
            cv2.fillPoly(mask, [np.array(polygon, np.int32)], 255)
        soft = cv2.GaussianBlur(mask, (0, 0), 25).astype(np.float32) / 255
        field_ *= 1 - (1 - camera.shadow_depth) * soft
    field_ *= camera.exposure
    gains = np.array(camera.white_balance, np.float32)
    light: np.ndarray = (field_[..., None] * gains).astype(np.float32)
    return light
