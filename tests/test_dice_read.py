"""Reading dice trays (companion/vision/dice.py) and ``companion dice read``: real held-out
photographs read right, every kind of bad tray given its status and never a value, and the
command's JSON."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.sim.dice_tray import render_tray
from companion.sim.tray_parts import TRAY_KINDS, photographed_mat
from companion.vision.dice import THRESHOLDS, DiceReader, _which, colour_name
from companion.vision.dice_model import CROP_PX, NONE, UNREADABLE, DiceModel
from companion.vision.dice_reading import TRAY_STATUSES, Die, TrayReading
from models.training.dice_data import (
    FOLDS,
    TrayDie,
    fold_of,
    held_out,
    photos,
    real_finder_samples,
    spot_label,
    wooden_tray,
)
from models.training.evaluate_dice import Tally, extra_kind, face_box, match_by_die, match_by_iou

# Seeds of rendered trays used here: from the held-out range (models/training/dice_data.py), never
# trained or tuned on.
SEED = 590_000


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


# Copied from ../shared/data/dice-photos, so that the suite needs nothing beside the checkout
HERE = Path(__file__).resolve().parent / "data" / "dice-photos"


@pytest.fixture(scope="module")
def held_out_photos() -> list:  # type: ignore[type-arg]
    # the first held-out photographs by name, of every face value: not picked by how they read
    chosen, values = [], set()
    for photo in photos("held-out", HERE):
        new = {d.value for d in photo.dice} - values
        if new:
            chosen.append(photo)
            values |= new
        if len(values) == 6:
            break
    return chosen


def test_the_held_out_split_is_fixed_and_about_a_fifth() -> None:
    names = (HERE / "names.txt").read_text().split()
    assert len(names) == 310
    out = [name for name in names if held_out(name)]
    assert 0.18 < len(out) / len(names) < 0.28
    assert {p.path.name for p in photos("held-out", HERE)} <= set(out)  # the copies are held out
    # and one training photograph, for the edge test (its labels are not read as held out)
    assert [p.path.name for p in photos("train", HERE)] == ["dice_41.jpg"]
    assert held_out("dice_1.jpg") == held_out("dice_1.jpg")


def test_the_training_split_is_cut_into_fixed_folds_of_about_a_quarter_never_trained_on(
    tmp_path: Path,
) -> None:
    # the shared folder's 310 names, each a tiny picture with no label: the split is by name alone
    names = (HERE / "names.txt").read_text().split()
    assert len(names) == 310
    for name in names:
        cv2.imwrite(str(tmp_path / name), np.zeros((4, 4, 3), np.uint8))
    train = {p.path.name for p in photos("train", tmp_path)}
    held = {p.path.name for p in photos("held-out", tmp_path)}
    assert len(train) == 232 and not train & held
    folds = [{p.path.name for p in photos("fold", tmp_path, fold)} for fold in range(FOLDS)]
    # fixed: fold 0, on which fair_unread was set (models/dice/dice.md), is these 56 photographs
    assert [len(fold) for fold in folds] == [56, 47, 69, 60]
    assert sorted(folds[0])[:3] == ["dice_13.jpg", "dice_15.jpg", "dice_18.jpg"]
    assert set().union(*folds) == train  # every training photograph in one fold, none held out
    for fold in range(FOLDS):
        fit = {p.path.name for p in photos("fit", tmp_path, fold)}
        assert fit == train - folds[fold]
    # the folds' hash bits are not the held-out split's: each is as fair a sample of the names
    for fold in range(FOLDS):
        assert 0.15 < sum(fold_of(name) == fold for name in held) / len(held) < 0.35
    with pytest.raises(ValueError, match="folds 0 to 3"):
        photos("fold", tmp_path, FOLDS)
    # a reader is trained on the training split or its fit part, never on what it is judged on
    for split in ("fold", "held-out", "all"):
        with pytest.raises(ValueError, match="training split or its fit part"):
            real_finder_samples(split)


def test_a_fold_is_named_wherever_one_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    from models.training.evaluate_dice import main as evaluate

    for argv in (["--split", "fold"], ["--split", "train", "--fold", "0"]):
        with pytest.raises(SystemExit):
            evaluate(argv)
        assert "--split fold or fit and --fold K go together" in capsys.readouterr().err


def test_held_out_photographs_are_read_right(reader: DiceReader, held_out_photos: list) -> None:  # type: ignore[type-arg]
    assert {d.value for p in held_out_photos for d in p.dice} == {1, 2, 3, 4, 5, 6}
    for photo in held_out_photos:
        reading = reader.read(cv2.imread(str(photo.path)))
        assert reading.status == "ok", (photo.path.name, reading.message)
        assert len(reading.dice) == len(photo.dice), photo.path.name
        for label in photo.dice:
            # matched by the label's centre, not by IoU: the photographs' labels draw a 1 now
            # around its pip, now around the whole face (models/dice/dice.md), so the IoU figure is
            # the evaluation's business, and what is asserted here is the reading
            x, y, w, h = label.box
            best = min(
                reading.dice,
                key=lambda d: (
                    abs(d.box[0] + d.box[2] / 2 - x - w / 2) + abs(d.box[1] + d.box[3] / 2 - y - h / 2)
                ),
            )
            assert best.box[0] <= x + w / 2 <= best.box[0] + best.box[2], photo.path.name
            assert best.box[1] <= y + h / 2 <= best.box[1] + best.box[3], photo.path.name
            assert best.value == label.value, photo.path.name
            assert 0.8 <= best.confidence <= 1.0
            assert best.colour == "white"
        assert reading.values is not None and sorted(reading.values) == sorted(d.value for d in photo.dice)


def test_rendered_red_and_green_dice_are_read_with_their_colours(reader: DiceReader) -> None:
    tray = render_tray(SEED, dice=4, colours=("red", "green"), cocked=0.0, blur=0.3)
    reading = reader.read(tray.image)
    assert reading.status == "ok", reading.message
    truth = sorted((d.centre[0], d.value, d.colour) for d in tray.dice)
    assert [(d.value, d.colour) for d in reading.dice] == [(v, c) for _, v, c in truth]


def test_colour_names_by_hue_and_brightness() -> None:
    for bgr, name in (
        ((40, 40, 200), "red"),
        ((60, 150, 30), "green"),
        ((235, 235, 235), "white"),
        ((30, 30, 30), "black"),
    ):
        crop = np.full((CROP_PX, CROP_PX, 3), bgr, np.uint8)
        cv2.circle(crop, (CROP_PX // 2, CROP_PX // 2), 3, (128, 128, 128), -1)  # a pip
        assert colour_name(crop) == name


def _never_guessed(reading: TrayReading, status: str) -> None:
    assert reading.status == status, (reading.status, reading.message)
    assert reading.status in TRAY_STATUSES
    assert reading.values is None
    assert reading.message


def test_a_bare_tray_has_no_dice(reader: DiceReader) -> None:
    reading = reader.read(render_tray(SEED + 1, dice=0).image)
    _never_guessed(reading, "no-dice")
    assert reading.dice == ()


def test_more_dice_than_rolled_are_reported_not_cut_down(reader: DiceReader) -> None:
    picture = render_tray(SEED + 2, dice=4, cocked=0.0).image
    reading = reader.read(picture, expected=3)
    _never_guessed(reading, "too-many-dice")
    assert len(reading.dice) == 4 and "4 dice" in reading.message
    assert reader.read(picture, expected=4).status != "too-many-dice"


def test_fewer_dice_than_rolled_are_reported_never_read_as_a_smaller_roll(
    reader: DiceReader,
    held_out_photos: list,  # type: ignore[type-arg]
) -> None:
    photo = held_out_photos[0]
    picture = cv2.imread(str(photo.path))
    count = len(photo.dice)
    reading = reader.read(picture, expected=count + 5)
    _never_guessed(reading, "too-few-dice")
    assert len(reading.dice) == count and f"but {count + 5} rolled" in reading.message
    assert reader.read(picture, expected=count).status == "ok"


def test_a_die_cut_by_the_edge_is_named(reader: DiceReader) -> None:
    tray = render_tray(SEED + 3, dice=3, cut=True, cocked=0.0)
    reading = reader.read(tray.image)
    _never_guessed(reading, "die-on-edge")
    assert "edge" in reading.message


def test_a_die_whose_top_face_is_whole_is_read_though_its_body_reaches_the_edge(
    reader: DiceReader,
) -> None:
    # a training photograph (not held out): seen at a slant, the top die's body as found runs
    # past the picture's top edge while its face, with its pip, lies well inside
    picture = cv2.imread(str(HERE / "dice_41.jpg"))
    reading = reader.read(picture)
    assert (reading.status, reading.values) == ("ok", (1, 1, 1, 1, 1)), reading.message
    top = min(reading.dice, key=lambda die: die.box[1])
    assert top.box[1] < 40  # the die that reaches the edge is among those read
    # the same die with its top face cut by the edge is named, not read
    cut = np.ascontiguousarray(picture[20:])
    _never_guessed(reader.read(cut), "die-on-edge")


class _ReadsAlike:
    """The shipped finder, and a reader that gives every crop the same probabilities."""

    def __init__(self, finder: DiceModel, probs: list[float]) -> None:
        self.finder, self.probs, self.crop_px = finder, np.array(probs, np.float32), finder.crop_px

    def find(self, picture: np.ndarray) -> tuple[np.ndarray, float]:
        return self.finder.find(picture)

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        boxes = np.tile(np.array([0.3, 0.3, 0.7, 0.7], np.float32), (len(crops), 1))
        return np.tile(self.probs, (len(crops), 1)), boxes


def test_an_unsure_die_whose_body_reaches_the_edge_is_named_as_at_the_edge(reader: DiceReader) -> None:
    # dice_41's top die: its face is whole, but read unsure it is still the die to move in
    probs = [0.6, 0.0, 0.0, 0.0, 0.0, 0.0, 0.4, 0.0]
    picture = cv2.imread(str(HERE / "dice_41.jpg"))
    reading = DiceReader(_ReadsAlike(reader.model, probs)).read(picture)  # type: ignore[arg-type]
    _never_guessed(reading, "die-on-edge")
    assert "the third die from the left" in reading.message


@pytest.mark.parametrize(
    ("four", "unreadable", "value"),
    # 0.06: under the bar set on fold 0 (0.07), over the one set on the training photographs (0.05)
    [(0.95, 0.05, 4), (0.85, 0.03, 4), (0.85, 0.06, 4), (0.85, 0.08, None), (0.75, 0.01, None)],
)
def test_a_fairly_sure_value_is_given_only_to_a_die_the_reader_sees_no_lean_in(
    reader: DiceReader, four: float, unreadable: float, value: int | None
) -> None:
    probs = [0.0] * 8
    probs[3], probs[UNREADABLE] = four, unreadable
    probs[0] = 1.0 - four - unreadable  # the rest on a 1: the die is surely a die
    picture = render_tray(SEED + 8, dice=1, cocked=0.0).image
    # the fair rule alone: a count of pips may vouch for a value below it (tests/test_pips.py)
    rules = dataclasses.replace(THRESHOLDS, pips_fair=2.0)
    reading = DiceReader(_ReadsAlike(reader.model, probs), rules).read(picture)  # type: ignore[arg-type]
    assert [die.value for die in reading.dice] == [value]
    assert reading.status == ("ok" if value else "unreadable-die"), reading.message


@pytest.mark.xfail(
    strict=True, reason="known limit: half a real die at the edge is not found (models/dice/dice.md)"
)
def test_a_real_photograph_cut_through_a_die_is_on_the_edge(
    reader: DiceReader, held_out_photos: list
) -> None:  # type: ignore[type-arg]
    photo = held_out_photos[0]
    picture = cv2.imread(str(photo.path))
    x, _, w, _ = photo.dice[0].box
    cut = picture[:, int(x + w / 2) :]  # the picture's left edge now runs through the die
    _never_guessed(reader.read(np.ascontiguousarray(cut)), "die-on-edge")


@pytest.mark.xfail(
    strict=True,
    reason="known limit: a hand of the floor's own colour (brown on wood) is missed (models/dice/dice.md)",
)
def test_a_hand_in_the_tray(reader: DiceReader) -> None:
    _never_guessed(reader.read(render_tray(SEED + 4, dice=3, hand=True).image), "hand")


def test_a_skin_coloured_blob_over_a_real_photograph_is_a_hand(
    reader: DiceReader, held_out_photos: list
) -> None:  # type: ignore[type-arg]
    picture = cv2.imread(str(held_out_photos[1].path))
    height, width = picture.shape[:2]
    # a palm and four fingers reaching in from the bottom edge, in a skin tone, softly shaded
    mask = np.zeros((height, width), np.uint8)
    cv2.ellipse(mask, (width // 2, height - 40), (110, 90), 0, 0, 360, 255, -1)
    for k in range(4):
        cv2.line(
            mask, (width // 2 - 75 + 50 * k, height - 90), (width // 2 - 90 + 55 * k, height - 230), 255, 34
        )
    soft = cv2.GaussianBlur(mask, (0, 0), 3).astype(np.float32)[..., None] / 255
    skin = np.array((120, 150, 205), np.float32) * (0.8 + 0.3 * soft)
    doctored = (picture * (1 - soft) + skin * soft).astype(np.uint8)
    _never_guessed(reader.read(doctored), "hand")


def test_a_black_or_washed_out_tray_is_said_and_nothing_is_read_from_it(reader: DiceReader) -> None:
    tray = render_tray(SEED + 7, dice=3).image
    dark = (tray * 0.02).astype(np.uint8)  # the light off: a few grey levels of tray left
    reading = reader.read(dark)
    _never_guessed(reading, "dark")
    assert reading.dice == () and "black" in reading.message
    white = np.full_like(tray, 255)
    white[100:110, 100:110] = 200  # a speck is not a picture
    reading = reader.read(white)
    _never_guessed(reading, "overexposed")
    assert reading.dice == ()
    # a pale tray in bright light is not washed out: its dice are read
    assert reader.read(tray).status != "overexposed"


def test_a_blurred_frame(reader: DiceReader, held_out_photos: list) -> None:  # type: ignore[type-arg]
    picture = cv2.imread(str(held_out_photos[2].path))
    _never_guessed(reader.read(cv2.GaussianBlur(picture, (0, 0), 4)), "blurred")
    _never_guessed(reader.read(render_tray(SEED + 5, dice=3, blur=4.0).image), "blurred")


@pytest.mark.xfail(
    strict=True, reason="known limit: these rendered cocked dice are read as flat ones (models/dice/dice.md)"
)
def test_a_cocked_die_is_named_and_not_read(reader: DiceReader) -> None:
    reading = reader.read(render_tray(SEED + 6, dice=2, cocked=1.0).image)
    _never_guessed(reading, "unreadable-die")
    assert "leans: roll it again" in reading.message
    assert all(d.value is None for d in reading.dice)


def test_dice_are_named_by_their_place() -> None:
    assert _which(0, 1) == "the die"
    assert _which(1, 3) == "the second die from the left"
    assert _which(2, 3) == "the last die on the right"
    assert _which(1, 2) == "the die on the right"


def test_dice_read_json_keeps_the_order_and_names_a_bad_file(
    tmp_path: Path,
    held_out_photos: list,
    capsys: pytest.CaptureFixture[str],  # type: ignore[type-arg]
) -> None:
    first, second = (str(p.path) for p in held_out_photos[:2])
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a picture")
    code = main(["dice", "read", second, str(broken), first, "--json"])
    captured = capsys.readouterr()
    assert code == 1
    assert str(broken) in captured.err and "not an image" in captured.err
    results = json.loads(captured.out)
    assert [r["image"] for r in results] == [second, str(broken), first]
    assert results[1]["dice"] == []
    for result, photo in ((results[0], held_out_photos[1]), (results[2], held_out_photos[0])):
        assert len(result["dice"]) == len(photo.dice)
        for die in result["dice"]:
            assert {"value", "box", "confidence"} <= die.keys()
            assert die["value"] in range(1, 7)
            assert len(die["box"]) == 4 and all(isinstance(v, int) for v in die["box"])
            assert isinstance(die["confidence"], float) and 0 <= die["confidence"] <= 1


def test_dice_read_prints_a_line_per_picture(
    held_out_photos: list, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[type-arg]
    path = str(held_out_photos[0].path)
    count = len(held_out_photos[0].dice)
    assert main(["dice", "read", path, "--expected", str(count)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith(f"{path}: {count} {'die' if count == 1 else 'dice'}: ")
    # more dice expected than lie there: said, not read as a smaller roll
    assert main(["dice", "read", path, "--expected", str(count + 5)]) == 0
    assert capsys.readouterr().out.startswith(f"{path}: too-few-dice: {count} ")
    assert main(["dice", "read", "/no/such/picture.png"]) == 1
    assert "/no/such/picture.png: no such file" in capsys.readouterr().err


def test_dice_read_names_a_folder_a_cut_short_jpeg_and_a_tiny_picture(
    tmp_path: Path, held_out_photos: list, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[type-arg]
    whole = Path(held_out_photos[0].path).read_bytes()
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(whole[: len(whole) // 3])
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.full((3, 3, 3), 200, np.uint8))
    good = str(held_out_photos[0].path)
    code = main(["dice", "read", str(tmp_path), str(cut), str(tiny), good, "--json"])
    captured = capsys.readouterr()
    assert code == 1
    results = json.loads(captured.out)
    assert [r["status"] for r in results[:3]] == ["error"] * 3
    assert "a folder, not a picture" in results[0]["message"]
    assert "stops before its end" in results[1]["message"]
    assert "too small for a tray" in results[2]["message"]
    assert results[3]["status"] != "error" and results[3]["dice"]  # the good one is still read
    assert "internal error" not in captured.err


def test_the_fair_matching_judges_the_die_not_the_box_convention() -> None:
    # a 1 labelled around its single pip; the reading boxes the whole face: IoU fails, the die
    # matches. A 3 labelled along its diagonal pips matches a face box holding its centre.
    pip_of_one, face = (100.0, 100.0, 12.0, 12.0), (86.0, 86.0, 40.0, 40.0)
    assert face_box(1, pip_of_one, 480) == (91.0, 91.0, 30.0, 30.0)
    assert face_box(3, pip_of_one, 480) == pip_of_one  # only a 1's pip stands for its face
    assert face_box(1, face, 480) == face  # a 1 already boxed around its face
    assert match_by_iou([face], [pip_of_one]) == {}
    assert match_by_die([face], [face_box(1, pip_of_one, 480)]) == {0: 0}
    diagonal = (200.0, 100.0, 40.0, 12.0)
    assert match_by_die([(195.0, 90.0, 50.0, 50.0)], [diagonal]) == {0: 0}
    # one to one, nearest first; a side face below a die matches nothing and is named so
    side = (88.0, 128.0, 36.0, 20.0)
    assert match_by_die([side, face], [face]) == {1: 0}
    assert extra_kind(side, [face], [(1, face)], (480, 640)) == "side face"
    assert extra_kind((600.0, 10.0, 30.0, 30.0), [face], [(1, face)], (480, 640)) == "stray"
    assert extra_kind((0.0, 10.0, 30.0, 30.0), [face], [(1, face)], (480, 640)) == "at the edge"


def test_both_figures_are_kept_and_a_cocked_die_read_is_a_wrong_value() -> None:
    tally = Tally()
    reading = TrayReading(
        (
            Die("1", (86, 86, 40, 40), 0.99),
            Die("4", (300, 300, 30, 20), 0.95),
            Die("5", (88, 128, 36, 20), 0.9),
        ),
        "ok",
    )
    truth = [(1, (100.0, 100.0, 12.0, 12.0)), (None, (290.0, 290.0, 50.0, 50.0))]
    tally.add("tray", reading, truth, (480, 640))
    assert (tally.by_iou.right, tally.by_iou.wrong, tally.by_iou.extra) == (0, 0, 3)
    assert (tally.by_die.right, tally.by_die.wrong, tally.by_die.extra) == (1, 1, 1)
    assert tally.kinds == {"wrong value": 1, "side face": 1, "tray read wrong": 1}
    assert (tally.trays, tally.trays_ok, tally.trays_ok_wrong, tally.trays_ok_wrong_value) == (1, 1, 1, 1)
    # a picture not given "ok" is never a wrong reading; one "ok" with its labels' values is right
    tally.add("tray", TrayReading(reading.dice[:1], "unreadable-die", "roll it again"), truth[:1], (480, 640))
    assert (tally.trays, tally.trays_ok, tally.trays_ok_wrong) == (2, 1, 1)
    tally.add("tray", TrayReading(reading.dice[:1]), truth[:1], (480, 640))
    assert (tally.trays, tally.trays_ok, tally.trays_ok_wrong) == (3, 2, 1)
    # "ok" with the cocked die left out: dice short, not a value no die shows
    tally.add("tray", TrayReading(reading.dice[:1]), truth, (480, 640))
    assert (tally.trays_ok_wrong, tally.trays_ok_wrong_value, tally.kinds["tray short"]) == (2, 1, 1)


def test_the_reader_is_taught_top_faces_not_side_faces() -> None:
    # a flat die (a 5 whose top face is 40 px), a cocked die, nothing else
    flat = TrayDie(100.0, 100.0, 60.0, (85.0, 85.0, 29.0, 29.0), 4, face=40.0)
    cocked = TrayDie(300.0, 100.0, 60.0, None, UNREADABLE)
    dice = [flat, cocked]
    assert spot_label(dice, 103.0, 98.0) == (4, 0)  # on the top face's middle: its value
    assert spot_label(dice, 100.0, 116.0) == (None, None)  # just off it: not used either way
    assert spot_label(dice, 100.0, 130.0) == (NONE, 0)  # on its side face: not a die to read
    assert spot_label(dice, 310.0, 115.0) == (UNREADABLE, 1)  # anywhere on a cocked die
    assert spot_label(dice, 500.0, 400.0) == (NONE, None)  # the tray


def test_a_missing_photo_folder_is_said_not_read_as_no_photographs(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="COMPANION_DICE_PHOTOS") as caught:
        photos("held-out", tmp_path / "nowhere")
    assert str(tmp_path / "nowhere") in str(caught.value)


def test_the_sweep_tries_the_thresholds_named_and_refuses_a_name_it_does_not_know(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from models.training.tune_dice import _grid
    from models.training.tune_dice import main as tune

    assert _grid(["fair=0.7,0.8", "fair_unread=0"]) == {"fair": (0.7, 0.8), "fair_unread": (0.0,)}
    assert _grid([]) is None
    with pytest.raises(SystemExit):
        tune(["--sweep", "--try", "fiar=0.8"])
    assert "no threshold 'fiar'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tune(["--sweep", "--try", "fair=0.8", "--try", "fair=0.7"])
    assert "given twice" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tune(["--try", "fair=0.8"])
    assert "--try is for --sweep" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tune(["--photos", "fold"])
    assert "--photos is for --sweep" in capsys.readouterr().err
    for argv in (["--sweep", "--fold", "0"], ["--sweep", "--photos", "fold"]):
        with pytest.raises(SystemExit):
            tune(argv)
        assert "--photos fold and --fold K go together" in capsys.readouterr().err


def test_the_tuning_sweep_s_cached_model_reads_as_the_model_does(reader: DiceReader) -> None:
    from models.training.tune_dice import CachedModel

    tray = render_tray(SEED + 7, dice=3)
    cached = DiceReader(CachedModel(reader.model), reader.thresholds)
    first, again = cached.read(tray.image), cached.read(tray.image)
    assert first == again == reader.read(tray.image)
    assert [d.value for d in first.dice]  # it read something, with the model's own crop size


def test_a_labels_file_that_does_not_match_its_model_s_crops_is_refused(tmp_path: Path) -> None:
    from companion.vision.dice_model import DEFAULT_MODEL, DiceModel, DiceModelMissing

    model = tmp_path / "dice.onnx"
    model.write_bytes(DEFAULT_MODEL.read_bytes())
    labels = json.loads(DEFAULT_MODEL.with_suffix(".labels.json").read_text(encoding="utf-8"))
    assert DiceModel(DEFAULT_MODEL).crop_px == labels["crop_px"]
    labels["crop_px"] += 16
    model.with_suffix(".labels.json").write_text(json.dumps(labels), encoding="utf-8")
    with pytest.raises(DiceModelMissing, match="not one export"):
        DiceModel(model)


def test_a_damaged_model_or_the_wrong_labels_are_said_not_an_internal_error(
    tmp_path: Path, held_out_photos: list, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[type-arg]
    from companion.vision.dice_model import DEFAULT_MODEL

    photo = str(held_out_photos[0].path)
    damaged = tmp_path / "dice.onnx"
    damaged.write_bytes(DEFAULT_MODEL.read_bytes()[:5000])  # cut short while copied
    labels = DEFAULT_MODEL.with_suffix(".labels.json")
    damaged.with_suffix(".labels.json").write_bytes(labels.read_bytes())
    assert main(["dice", "read", "--model", str(damaged), photo]) == 1
    said = capsys.readouterr().err
    assert f"{damaged} is not an ONNX model onnxruntime can open" in said and "internal error" not in said
    # the dice model's files given to the board reader: its labels are not a cell model's
    assert main(["board", "read", "--model", str(damaged), photo]) == 1
    said = capsys.readouterr().err
    assert "is not a cell model's labels" in said and "internal error" not in said
    for not_labels in ("[]", '{"read_classes": 7}'):  # JSON, but not a labels file
        damaged.with_suffix(".labels.json").write_text(not_labels, encoding="utf-8")
        for command in ("dice", "board"):
            assert main([command, "read", "--model", str(damaged), photo]) == 1
            assert "internal error" not in capsys.readouterr().err
    # the meeple model's labels: the message asks whether the model is the cell model at all
    meeples = Path(__file__).parents[1] / "models" / "starwars" / "meeples.labels.json"
    damaged.with_suffix(".labels.json").write_bytes(meeples.read_bytes())
    assert main(["board", "read", "--model", str(damaged), photo]) == 1
    assert "(it has no 'tiles'): is dice.onnx a cell model?" in capsys.readouterr().err
    damaged.with_suffix(".labels.json").write_text("{not json", encoding="utf-8")
    assert main(["dice", "read", "--model", str(damaged), photo]) == 1
    assert "is not the dice model's labels" in capsys.readouterr().err


class _TwoSpots:
    """A finder that marks nothing itself (its spots are patched in) and a reader that reads
    the spots' crops as given, in order, the same in every quarter turn: for the rules that
    judge several spots on one die."""

    crop_px = CROP_PX

    def __init__(self, readings: list[list[float]]) -> None:
        self.readings = np.array(readings, np.float32)

    def find(self, picture: np.ndarray) -> tuple[np.ndarray, float]:
        return np.zeros((6, 1, 1), np.float32), 1.0

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        turns = len(crops) // len(self.readings)
        boxes = np.tile(np.array([0.35, 0.35, 0.65, 0.65], np.float32), (len(crops), 1))
        return np.tile(self.readings, (turns, 1)), boxes


def _probs(value: int, likely: float, none: float) -> list[float]:
    """A reading: ``value`` at ``likely``, ``none`` on no die, the rest spread over the values."""
    probs = [0.0] * 8
    probs[value - 1], probs[NONE], probs[UNREADABLE] = likely, none, 0.01
    rest = (1.0 - likely - none - 0.01) / 5
    for k in range(6):
        if k != value - 1:
            probs[k] = rest
    return probs


def _two_spots(
    monkeypatch: pytest.MonkeyPatch, below: float, top_value: int, rival: float, height: int = 400
) -> TrayReading:
    """two_29 as the surer readers see it: a side face ``below`` px under a top face, read as a
    4 at 0.85 (given by the fair rule, were it alone), and the top face read as ``top_value`` at
    0.6 and not surely a die (no die, were it alone)."""
    from companion.vision import dice as dice_module
    from companion.vision.dice_model import Candidate

    top = Candidate(150.0, 100.0, 50.0, 50.0, 0.36)
    side = Candidate(150.0, 100.0 + below, 50.0, 50.0, 0.44)
    monkeypatch.setattr(dice_module, "peaks", lambda maps, scale, threshold: [side, top])
    model = _TwoSpots([_probs(4, 0.85, 0.02), _probs(top_value, 0.6, 0.3)])
    picture = np.full((height, 300, 3), 160, np.uint8)
    picture[80:200:6, 100:200:6] = 40  # texture, so that the tray is not judged blurred
    reader = DiceReader(model, dataclasses.replace(THRESHOLDS, rival=rival))  # type: ignore[arg-type]
    return reader.read(picture)


@pytest.mark.parametrize(
    ("below", "top_value", "rival", "values", "status"),
    [
        (25.0, 2, 0.5, [None], "unreadable-die"),  # asked about, not given the side face's 4
        (25.0, 2, 1.01, [4], "ok"),  # the rule off: the side face's 4, as before it
        (25.0, 2, 0.65, [4], "ok"),  # a rival less likely than the bar does not count
        (25.0, 4, 0.5, [4], "ok"),  # both spots read the same value: no rival
        (200.0, 2, 0.5, [4], "ok"),  # a spot far off is not on the same die: no rival
    ],
)
def test_a_die_whose_two_spots_read_different_values_is_asked_about(
    monkeypatch: pytest.MonkeyPatch,
    below: float,
    top_value: int,
    rival: float,
    values: list[int | None],
    status: str,
) -> None:
    reading = _two_spots(monkeypatch, below, top_value, rival)
    assert [d.value for d in reading.dice] == values
    assert reading.status == status, reading.message
    if values == [None]:
        # the die as found (the side face's body), and how sure it is a die: as for any unread die
        (die,) = reading.dice
        assert die.box == (125, 100, 50, 50)
        assert die.confidence == pytest.approx(0.98)


def test_a_die_asked_about_for_two_readings_is_named_at_the_edge_when_its_body_reaches_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the side face's body ends 1 px inside the picture; its face is whole, so it is read
    reading = _two_spots(monkeypatch, 25.0, 2, 0.5, height=151)
    assert [d.value for d in reading.dice] == [None]
    assert reading.status == "die-on-edge", reading.message


def test_a_photograph_of_the_blank_mat_has_no_die(reader: DiceReader) -> None:
    # its printed markers are black and white squares that the reader alone takes for dice
    for seed in range(SEED + 200, SEED + 206):
        reading = reader.read(photographed_mat(seed))
        _never_guessed(reading, "no-dice")
        assert reading.dice == ()


def test_the_mat_s_own_picture_has_no_die(reader: DiceReader) -> None:
    from companion.vision.matfile import mat_image

    _never_guessed(reader.read(mat_image(dpi=72)), "no-dice")


def test_a_tray_s_wooden_frame_is_not_a_hand(reader: DiceReader) -> None:
    # coloured dice in wooden trays from above, hard light: the frame has the colour of skin
    statuses = [reader.read(wooden_tray(SEED + 100 + k).image).status for k in range(12)]
    assert "hand" not in statuses
    assert statuses.count("ok") >= 4  # and the dice are read


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(
            kind,
            marks=pytest.mark.xfail(
                strict=True, reason="known limit: a box lid's printed art is taken for a die (docs/dice.md)"
            ),
        )
        if kind == "lid"
        else kind
        for kind in TRAY_KINDS
    ],
)
def test_an_empty_tray_of_any_kind_has_no_dice(reader: DiceReader, kind: str) -> None:
    for k in range(2):
        tray = render_tray(SEED + 300 + 10 * k, dice=0, tray=kind, hard=k == 0, top_down=True)
        _never_guessed(reader.read(tray.image), "no-dice")


def test_a_blurred_wooden_tray_gives_no_value(reader: DiceReader) -> None:
    statuses = []
    for k in range(6):
        reading = reader.read(render_tray(SEED + 400 + k, dice=4, tray="wood", hard=True, blur=4.0).image)
        assert reading.values is None and reading.status in ("blurred", "unreadable-die"), reading.status
        statuses.append(reading.status)
    assert statuses.count("blurred") >= 4


def test_a_hand_reaching_over_a_wooden_frame_is_a_hand(reader: DiceReader, held_out_photos: list) -> None:  # type: ignore[type-arg]
    # the doctored photograph's hand, pasted over a rendered wooden tray of blue dice from the left
    tray = render_tray(SEED + 500, dice=4, tray="wood", top_down=True, colours=("blue",), cocked=0.0)
    height, width = tray.image.shape[:2]
    mask = np.zeros((height, width), np.uint8)
    cv2.ellipse(mask, (60, height // 2), (110, 90), 0, 0, 360, 255, -1)
    for k in range(4):
        cv2.line(mask, (110, height // 2 - 75 + 50 * k), (270, height // 2 - 90 + 55 * k), 255, 30)
    soft = cv2.GaussianBlur(mask, (0, 0), 3).astype(np.float32)[..., None] / 255
    skin = np.array((120, 150, 205), np.float32) * (0.8 + 0.3 * soft)
    doctored = (tray.image * (1 - soft) + skin * soft).astype(np.uint8)
    assert reader.read(tray.image).status != "hand"
    _never_guessed(reader.read(doctored), "hand")


def test_a_framed_tray_holds_twelve_small_dice_inside_the_picture() -> None:
    tray = render_tray(
        SEED + 600, dice=12, tray="wood", top_down=True, hard=True, die_px=(18.0, 22.0), cocked=0.0
    )
    assert len(tray.dice) == 12 and all(d.value is not None for d in tray.dice)
    height, width = tray.image.shape[:2]
    for die in tray.dice:
        x, y, w, h = die.body
        assert 0 < x < width - w and 0 < y < height - h and max(w, h) < 50  # a small die, side faces and all
    # left out, the new options draw nothing from the seed: a tray renders as it did before them
    plain = render_tray(SEED + 601, dice=3)
    assert np.array_equal(plain.image, render_tray(SEED + 601, dice=3, tray=None, hard=False).image)
