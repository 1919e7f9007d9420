"""Joining gallery likenesses (models/training/ensemble_gallery.py): the joined file's vector is its
members' side by side, of unit length, so the likeness of two squares is the mean of the members'
likenesses; the runtime's Likeness reads it unchanged; what cannot be joined is refused with a
reason."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import onnxruntime as ort
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from companion.vision.likeness import Likeness  # noqa: E402
from companion.vision.mat import TILE_PX  # noqa: E402
from models.training import ensemble_gallery  # noqa: E402

if TYPE_CHECKING:
    from onnx import ModelProto

WIDTH = 8  # the tiny likenesses' vector length


def _tiny_likeness(
    seed: int, *, output: str = "embedding", side: int = TILE_PX, opset: int = 17, flat: bool = False
) -> ModelProto:
    """A model with the likeness's input and output: the flattened square times weights drawn
    from ``seed``, made of unit length."""
    rng = np.random.default_rng(seed)
    weights = numpy_helper.from_array(
        rng.normal(size=(side * side * 3, WIDTH)).astype(np.float32), "head.weight"
    )
    nodes = [
        helper.make_node("Flatten", ["squares"], ["/flat"], name="/Flatten"),
        helper.make_node("MatMul", ["/flat", "head.weight"], ["/head"], name="/MatMul"),
        helper.make_node("LpNormalization", ["/head"], [output], name="/Normalize", axis=1, p=2),
    ]
    graph = helper.make_graph(
        nodes,
        "likeness",
        [helper.make_tensor_value_info("squares", TensorProto.FLOAT, ["n", side, side, 3])],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["n * w"] if flat else ["n", WIDTH])],
        [weights],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _vectors(model: ModelProto, squares: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out: np.ndarray = session.run(None, {"squares": squares})[0]
    return out


def _squares(count: int, seed: int = 7) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (count, TILE_PX, TILE_PX, 3)).astype(np.float32)


def test_the_joined_likeness_is_the_mean_of_its_members_likenesses() -> None:
    members = [_tiny_likeness(seed) for seed in (1, 2, 3)]
    squares = _squares(5)
    joined = _vectors(ensemble_gallery.join(members), squares)
    alone = [_vectors(m, squares) for m in members]
    assert joined.shape == (5, 3 * WIDTH)
    np.testing.assert_allclose(np.linalg.norm(joined, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(joined, np.concatenate(alone, axis=1) / np.sqrt(3), atol=1e-6)
    # square 0 against the others: the joined likeness is the members' mean, not their sum
    mean = np.mean([v[1:] @ v[0] for v in alone], axis=0)
    np.testing.assert_allclose(joined[1:] @ joined[0], mean, atol=1e-5)
    # the joined vector is as long as the members' together: its declared length is left open
    side = ensemble_gallery.join(members).graph.output[0].type.tensor_type.shape.dim[1]
    assert not side.HasField("dim_value") and not side.HasField("dim_param")
    assert not np.allclose(alone[0][1:] @ alone[0][0], mean, atol=1e-3)  # the members do differ


def test_the_runtime_reads_a_joined_file_as_it_reads_one_likeness(tmp_path: Path) -> None:
    path = tmp_path / "pair.onnx"
    onnx.save(_tiny_likeness(1), str(tmp_path / "a.onnx"))
    onnx.save(_tiny_likeness(2), str(tmp_path / "b.onnx"))
    assert (
        ensemble_gallery.main([str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx"), "--out", str(path)]) == 0
    )
    vectors = Likeness(path).vectors(_squares(3).astype(np.uint8))
    assert vectors.shape == (3, 2 * WIDTH)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize(
    ("members", "reason"),
    [
        ([_tiny_likeness(1)], "two likenesses or more"),
        ([_tiny_likeness(1), _tiny_likeness(2, output="vector")], "not a likeness"),
        ([_tiny_likeness(1), _tiny_likeness(2, side=TILE_PX + 16)], "another size"),
        ([_tiny_likeness(1), _tiny_likeness(2, opset=18)], "opsets"),
        ([_tiny_likeness(1), _tiny_likeness(2, flat=True)], "not a float vector per square"),
    ],
)
def test_what_cannot_be_joined_is_refused_with_a_reason(members: list[ModelProto], reason: str) -> None:
    with pytest.raises(ensemble_gallery.NotJoinable, match=reason):
        ensemble_gallery.join(members)


def test_a_joined_file_is_not_joined_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pair = ensemble_gallery.join([_tiny_likeness(1), _tiny_likeness(2)])
    with pytest.raises(ensemble_gallery.NotJoinable, match="itself a joined model"):
        ensemble_gallery.join([pair, _tiny_likeness(3)])
    onnx.save(_tiny_likeness(1), str(tmp_path / "a.onnx"))
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    assert (
        ensemble_gallery.main(
            [str(tmp_path / "a.onnx"), str(tmp_path / "junk.onnx"), "--out", str(tmp_path / "o.onnx")]
        )
        == 2
    )
    assert "junk.onnx is not an ONNX file" in capsys.readouterr().err
    assert not (tmp_path / "o.onnx").exists()


def test_the_command_refuses_a_likeness_twice_or_an_out_that_would_overwrite_one(tmp_path: Path) -> None:
    a, b = tmp_path / "a.onnx", tmp_path / "b.json"  # a model file whatever its name
    onnx.save(_tiny_likeness(1), str(a))
    b.write_bytes(_tiny_likeness(2).SerializeToString())
    for argv in (
        [a, a, "--out", tmp_path / "o.onnx"],
        [a, b, "--out", a],
        [a, b, "--out", tmp_path / "no/o.onnx"],
    ):
        with pytest.raises(SystemExit) as refused:
            ensemble_gallery.main([str(x) for x in argv])
        assert refused.value.code == 2
    assert ensemble_gallery.main([str(a), str(b), "--out", str(tmp_path / "o.onnx")]) == 0
    assert (tmp_path / "o.onnx").is_file()
