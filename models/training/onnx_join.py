"""What the joins of several ONNX models into one share (models/training/ensemble_dice.py,
models/training/ensemble_gallery.py): refusing what cannot be copied, and copying a member's nodes and
weights into the joined graph under names of its own."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import onnx
from google.protobuf.message import DecodeError

MEMBER = "member"  # the joined graph's names of each member's values begin so


class NotJoinable(ValueError):
    """Why the files given cannot be joined into one model."""


def refuse_unjoinable(model: onnx.ModelProto, index: int, made_of: str) -> None:
    """Refuse a model whose graph a join cannot copy node by node (subgraphs, functions), or
    one that is itself joined (``made_of``: what to join instead)."""
    graph = model.graph
    subgraphs = (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
    if model.functions or any(a.type in subgraphs for n in graph.node for a in n.attribute):
        raise NotJoinable(f"model {index} has subgraphs or functions, which this tool does not join")
    names = [name for node in graph.node for name in node.output] + [i.name for i in graph.initializer]
    if any(name.startswith(MEMBER) for name in names):
        raise NotJoinable(
            f"model {index} is itself a joined model: join the {made_of} it was made of instead"
        )


def copy_prefixed(
    graph: onnx.GraphProto,
    nodes: Iterable[onnx.NodeProto],
    initializers: Iterable[onnx.TensorProto],
    prefix: str,
    shared: Iterable[str],
) -> None:
    """Append copies of ``nodes`` and ``initializers`` to ``graph``, every name they use begun
    with ``prefix`` but the ``shared`` ones (the inputs all members read)."""
    keep = {"", *shared}

    def prefixed(name: str) -> str:
        return name if name in keep else prefix + name

    for node in nodes:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        copy.name = prefixed(node.name)
        copy.input[:] = [prefixed(name) for name in node.input]
        copy.output[:] = [prefixed(name) for name in node.output]
        graph.node.append(copy)
    for initializer in initializers:
        tensor = onnx.TensorProto()
        tensor.CopyFrom(initializer)
        tensor.name = prefixed(initializer.name)
        graph.initializer.append(tensor)


def checked_copy(
    models: list[onnx.ModelProto], check: Callable[[onnx.ModelProto, onnx.ModelProto, int], None], what: str
) -> onnx.ModelProto:
    """A copy of the first model to build the join in, once ``check`` (model, the first, its
    number from 1) has passed every model; ``what``: the models' name, for a refusal."""
    if len(models) < 2:
        raise NotJoinable(f"give two {what} or more to join")
    for index, model in enumerate(models, start=1):
        check(model, models[0], index)
    joined = onnx.ModelProto()
    joined.CopyFrom(models[0])
    return joined


def load_members(paths: list[Path]) -> list[onnx.ModelProto]:
    """Each file read as an ONNX model, whatever its name ends in."""
    models = []
    for path in paths:
        try:
            models.append(onnx.load(str(path), format="protobuf"))
        except (DecodeError, OSError) as error:
            raise NotJoinable(f"{path} is not an ONNX file: {error}") from None
    return models
