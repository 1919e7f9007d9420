"""Joining dice readers (models/training/ensemble_dice.py): the joined file's reader gives the mean of
its members' probabilities and boxes, its finder is the first's, and models that do not share a
finder, or files that cannot be joined, are refused with a reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import onnxruntime as ort
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from models.training import ensemble_dice  # noqa: E402

if TYPE_CHECKING:
    from onnx import ModelProto

CROP = 4  # the tiny models' crop side
CLASSES = 8


def _tiny_dice_model(
    finder_gain: float,
    seed: int,
    *,
    gain_as_constant: bool = False,
    reader_reads_tray: bool = False,
    crop: int = CROP,
    opset: int = 17,
) -> ModelProto:
    """A model with the dice model's inputs and outputs: maps = tray x gain (the gain a weight
    or, as the real exports hold some values, a Constant node); the reader a softmax and a
    sigmoid of the flattened crop times weights drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    flat = crop * crop * 3
    weights = [
        numpy_helper.from_array(rng.normal(size=(flat, CLASSES)).astype(np.float32) / 20, "reader.classes"),
        numpy_helper.from_array(rng.normal(size=(flat, 4)).astype(np.float32) / 20, "reader.box"),
    ]
    gain = numpy_helper.from_array(np.array(finder_gain, np.float32), "finder.gain")
    nodes = [helper.make_node("Constant", [], ["finder.gain"], name="/finder/Constant", value=gain)]
    if not gain_as_constant:
        nodes, weights = [], [gain, *weights]
    nodes += [
        helper.make_node("Mul", ["tray", "finder.gain"], ["maps"], name="/finder/Mul"),
        helper.make_node("Flatten", ["crops"], ["/reader/flat"], name="/reader/Flatten"),
        helper.make_node("MatMul", ["/reader/flat", "reader.classes"], ["/reader/logits"], name="/reader/c"),
        helper.make_node("Softmax", ["/reader/logits"], ["read_probs"], name="/Softmax", axis=1),
        helper.make_node("MatMul", ["/reader/flat", "reader.box"], ["/reader/box"], name="/reader/b"),
    ]
    if reader_reads_tray:
        nodes += [
            helper.make_node("ReduceMean", ["tray"], ["/reader/light"], name="/reader/light", keepdims=0),
            helper.make_node("Add", ["/reader/box", "/reader/light"], ["/reader/lit"], name="/reader/lit"),
            helper.make_node("Sigmoid", ["/reader/lit"], ["read_boxes"], name="/reader/Sigmoid"),
        ]
    else:
        nodes.append(helper.make_node("Sigmoid", ["/reader/box"], ["read_boxes"], name="/reader/Sigmoid"))
    graph = helper.make_graph(
        nodes,
        "dice",
        [
            helper.make_tensor_value_info("tray", TensorProto.FLOAT, ["n", "h", "w", 3]),
            helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["m", crop, crop, 3]),
        ],
        [
            helper.make_tensor_value_info("maps", TensorProto.FLOAT, ["n", "h", "w", 3]),
            helper.make_tensor_value_info("read_probs", TensorProto.FLOAT, ["m", CLASSES]),
            helper.make_tensor_value_info("read_boxes", TensorProto.FLOAT, ["m", 4]),
        ],
        weights,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _run(model: ModelProto, tray: np.ndarray, crops: np.ndarray) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return [
        np.asarray(a)
        for a in session.run(["maps", "read_probs", "read_boxes"], {"tray": tray, "crops": crops})
    ]


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    tray = rng.uniform(0, 255, (1, 8, 8, 3)).astype(np.float32)
    crops = rng.uniform(0, 255, (5, CROP, CROP, 3)).astype(np.float32)
    return tray, crops


@pytest.mark.parametrize("members", [2, 3])
def test_joined_reader_is_the_mean_of_its_members(members: int) -> None:
    models = [_tiny_dice_model(2.0, seed) for seed in range(members)]
    tray, crops = _inputs()
    alone = [_run(model, tray, crops) for model in models]
    maps, probs, boxes = _run(ensemble_dice.join(models), tray, crops)
    # the members really differ, so a joined file that kept one reader would fail here
    assert np.abs(alone[0][1] - alone[1][1]).max() > 1e-3
    np.testing.assert_allclose(probs, np.mean([a[1] for a in alone], axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(boxes, np.mean([a[2] for a in alone], axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(maps, alone[0][0])


@pytest.mark.parametrize("gain_as_constant", [False, True])
def test_members_with_another_finder_are_refused(gain_as_constant: bool) -> None:
    first = _tiny_dice_model(2.0, 0, gain_as_constant=gain_as_constant)
    # the same finder in both forms joins: only what it computes counts, not its names
    ensemble_dice.join([first, _tiny_dice_model(2.0, 1, gain_as_constant=gain_as_constant)])
    with pytest.raises(ensemble_dice.NotJoinable, match="model 2 has another finder"):
        ensemble_dice.join([first, _tiny_dice_model(3.0, 1, gain_as_constant=gain_as_constant)])


@pytest.mark.parametrize(
    ("second", "reason"),
    [
        (_tiny_dice_model(2.0, 1, crop=6), "model 2's inputs"),
        (_tiny_dice_model(2.0, 1, opset=13), "model 2's ONNX opsets"),
        (_tiny_dice_model(2.0, 1, reader_reads_tray=True), "model 2's reader reads crops, tray"),
    ],
)
def test_members_that_differ_otherwise_are_refused(second: ModelProto, reason: str) -> None:
    with pytest.raises(ensemble_dice.NotJoinable, match=reason):
        ensemble_dice.join([_tiny_dice_model(2.0, 0), second])


def test_a_joined_model_is_not_joined_again() -> None:
    pair = ensemble_dice.join([_tiny_dice_model(2.0, 0), _tiny_dice_model(2.0, 1)])
    for models in ([pair, _tiny_dice_model(2.0, 2)], [_tiny_dice_model(2.0, 2), pair]):
        with pytest.raises(ensemble_dice.NotJoinable, match="itself a joined model"):
            ensemble_dice.join(models)


def test_one_model_alone_is_refused() -> None:
    with pytest.raises(ensemble_dice.NotJoinable, match="two dice models or more"):
        ensemble_dice.join([_tiny_dice_model(2.0, 0)])


def _save(model: ModelProto, path: Path, crop_px: int = CROP) -> Path:
    onnx.save(model, str(path))
    path.with_suffix(".labels.json").write_text(json.dumps({"crop_px": crop_px}), encoding="utf-8")
    return path


def test_command_writes_the_joined_model_and_its_labels(tmp_path: Path) -> None:
    first = _save(_tiny_dice_model(2.0, 0), tmp_path / "a.onnx")
    second = _save(_tiny_dice_model(2.0, 1), tmp_path / "b.onnx")
    out = tmp_path / "pair.onnx"
    assert ensemble_dice.main([str(first), str(second), "--out", str(out)]) == 0
    tray, crops = _inputs()
    expected = (
        _run(onnx.load(str(first)), tray, crops)[1] + _run(onnx.load(str(second)), tray, crops)[1]
    ) / 2
    np.testing.assert_allclose(_run(onnx.load(str(out)), tray, crops)[1], expected, rtol=1e-5, atol=1e-6)
    assert out.with_suffix(".labels.json").read_text() == first.with_suffix(".labels.json").read_text()


def test_command_refuses_labels_that_differ(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = _save(_tiny_dice_model(2.0, 0), tmp_path / "a.onnx")
    second = _save(_tiny_dice_model(2.0, 1), tmp_path / "b.onnx", crop_px=6)
    assert ensemble_dice.main([str(first), str(second), "--out", str(tmp_path / "pair.onnx")]) == 2
    assert "b.onnx's labels (classes, crop size) differ from" in capsys.readouterr().err
    assert not (tmp_path / "pair.onnx").exists()


def test_command_refuses_to_write_over_a_member(tmp_path: Path) -> None:
    first = _save(_tiny_dice_model(2.0, 0), tmp_path / "a.onnx")
    second = _save(_tiny_dice_model(2.0, 1), tmp_path / "b.onnx")
    before = first.read_bytes()
    with pytest.raises(SystemExit):
        ensemble_dice.main([str(first), str(second), "--out", str(first)])
    assert first.read_bytes() == before


def test_command_names_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = _save(_tiny_dice_model(2.0, 0), tmp_path / "a.onnx")
    assert (
        ensemble_dice.main([str(first), str(tmp_path / "nope.onnx"), "--out", str(tmp_path / "p.onnx")]) == 2
    )
    assert "nope.onnx and" in capsys.readouterr().err


def test_command_names_a_missing_labels_file_and_a_file_not_onnx(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _save(_tiny_dice_model(2.0, 0), tmp_path / "a.onnx")
    second = _save(_tiny_dice_model(2.0, 1), tmp_path / "b.onnx")
    out = str(tmp_path / "p.onnx")
    second.with_suffix(".labels.json").unlink()
    assert ensemble_dice.main([str(first), str(second), "--out", out]) == 2
    assert "b.labels.json must both exist" in capsys.readouterr().err
    second = _save(_tiny_dice_model(2.0, 1), tmp_path / "b.onnx")
    second.write_bytes(b"not a model")
    assert ensemble_dice.main([str(first), str(second), "--out", out]) == 2
    assert "b.onnx is not an ONNX file" in capsys.readouterr().err
    assert not (tmp_path / "p.onnx").exists()


def test_command_refuses_an_out_folder_that_does_not_exist(tmp_path: Path) -> None:
    first = _save(_tiny_dice_model(2.0, 0), tmp_path / "a.onnx")
    second = _save(_tiny_dice_model(2.0, 1), tmp_path / "b.onnx")
    with pytest.raises(SystemExit):
        ensemble_dice.main([str(first), str(second), "--out", str(tmp_path / "nowhere" / "p.onnx")])
    assert not (tmp_path / "nowhere").exists()
