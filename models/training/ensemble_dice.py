"""Join the readers of several dice models into one ONNX file whose reader is their mean.

    python -m models.training.ensemble_dice models/dice/dice.onnx build/dice-s2.onnx \
        --out build/dice-pair.onnx

Readers trained alike with other seeds differ by a few dice; the mean of their probabilities is
the usual way to steady that (docs/research.md,
"Dice": tried, not shipped, since on the folds it read no more than its members). The first file's
finder is kept, and every other file must hold the same finder (readers trained with
``train_dice --part reader --finder-onnx`` of it). The joined file has the inputs and outputs of
one model, so companion/vision/dice_model.py reads it unchanged; its labels file is the first's.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

from models.training.onnx_join import (
    MEMBER,
    NotJoinable,
    checked_copy,
    copy_prefixed,
    load_members,
    refuse_unjoinable,
)

READER_OUTPUTS = ("read_probs", "read_boxes")
FINDER_OUTPUT = "maps"
SHARED_INPUT = "crops"


def _producers(graph: onnx.GraphProto) -> dict[str, onnx.NodeProto]:
    return {name: node for node in graph.node for name in node.output}


def _needed(graph: onnx.GraphProto, outputs: Iterable[str]) -> tuple[list[onnx.NodeProto], set[str]]:
    """The nodes (in the graph's order) and the names (values and initializers) that the outputs
    are computed from."""
    producers = _producers(graph)
    names: set[str] = set()
    todo = list(outputs)
    while todo:
        name = todo.pop()
        if name in names or not name:
            continue
        names.add(name)
        node = producers.get(name)
        if node is not None:
            todo.extend(node.input)
    nodes = [node for node in graph.node if any(name in names for name in node.output)]
    return nodes, names


def _signature(model: onnx.ModelProto, output: str) -> list[tuple[object, ...]]:
    """What computes ``output``, names aside: each node's type, domain and attributes (the
    values of Constant nodes among them), and each of its inputs as the index of the node that
    makes it, a graph input's name, or an initializer's type, shape and bytes."""
    nodes, _ = _needed(model.graph, [output])
    made_by = {name: index for index, node in enumerate(nodes) for name in node.output}
    weights = {i.name: i for i in model.graph.initializer}
    graph_inputs = {i.name for i in model.graph.input}

    def source(name: str) -> object:
        if name in made_by:
            return ("node", made_by[name])
        if name in weights:
            array = numpy_helper.to_array(weights[name])
            return ("weight", str(array.dtype), array.shape, np.ascontiguousarray(array).tobytes())
        return ("input", name) if name in graph_inputs else ("none", name)

    return [
        (
            node.op_type,
            node.domain,
            sorted(a.SerializeToString() for a in node.attribute),
            [source(name) for name in node.input],
        )
        for node in nodes
    ]


def _check_member(model: onnx.ModelProto, first: onnx.ModelProto, index: int) -> None:
    graph = model.graph
    outputs = {o.name for o in graph.output}
    if not {FINDER_OUTPUT, *READER_OUTPUTS} <= outputs:
        raise NotJoinable(
            f"model {index} lacks the dice outputs {FINDER_OUTPUT}, {', '.join(READER_OUTPUTS)}"
        )
    refuse_unjoinable(model, index, "readers")
    _, needed = _needed(graph, READER_OUTPUTS)
    read = ", ".join(sorted({i.name for i in graph.input} & needed)) or "no input"
    if read != SHARED_INPUT:
        raise NotJoinable(f"model {index}'s reader reads {read}, not only {SHARED_INPUT}")
    if index == 1:
        return
    for mine, firsts, what in (
        (graph.input, first.graph.input, "inputs (tray and crop sizes)"),
        (graph.output, first.graph.output, "outputs"),
        (model.opset_import, first.opset_import, "ONNX opsets"),
    ):
        if [m.SerializeToString() for m in mine] != [f.SerializeToString() for f in firsts]:
            raise NotJoinable(f"model {index}'s {what} are not the first model's")
    if _signature(model, FINDER_OUTPUT) != _signature(first, FINDER_OUTPUT):
        raise NotJoinable(
            f"model {index} has another finder than the first: join only readers trained with "
            "train_dice --part reader --finder-onnx of the first file"
        )


def join(models: list[onnx.ModelProto]) -> onnx.ModelProto:
    """One model: the first's finder, and as reader the mean of all the models' readers."""
    joined = checked_copy(models, _check_member, "dice models")
    graph = joined.graph
    # the first model's reader outputs become inner values of the joined graph
    first = {name: f"{MEMBER}0/{name}" for name in READER_OUTPUTS}
    for node in graph.node:
        node.output[:] = [first.get(name, name) for name in node.output]
        node.input[:] = [first.get(name, name) for name in node.input]
    for index, model in enumerate(models[1:], start=1):
        nodes, names = _needed(model.graph, READER_OUTPUTS)
        weights = [i for i in model.graph.initializer if i.name in names]
        copy_prefixed(graph, nodes, weights, f"{MEMBER}{index}/", [SHARED_INPUT])
    share = numpy_helper.from_array(np.array(1.0 / len(models), np.float32), f"{MEMBER}s/share")
    graph.initializer.append(share)
    for output in READER_OUTPUTS:
        total = f"{MEMBER}s/{output}"
        members = [f"{MEMBER}{index}/{output}" for index in range(len(models))]
        graph.node.append(helper.make_node("Sum", members, [total], name=f"{total}/sum"))
        graph.node.append(helper.make_node("Mul", [total, share.name], [output], name=f"{total}/mean"))
    onnx.checker.check_model(joined)
    return joined


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("models", nargs="+", help="dice ONNX files; the first's finder and labels are kept")
    parser.add_argument(
        "--out", required=True, help="the joined ONNX file (its labels file is written beside it)"
    )
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.models]
    out = Path(args.out)
    if out.resolve() in {p.resolve() for p in paths}:
        parser.error(f"--out {out} is one of the models joined: write the joined file elsewhere")
    if not out.parent.is_dir():
        parser.error(f"--out {out}: the folder {out.parent} does not exist")
    labels = []
    for path in paths:
        label = path.with_suffix(".labels.json")
        if not path.is_file() or not label.is_file():
            print(f"ensemble_dice: {path} and {label} must both exist", file=sys.stderr)
            return 2
        try:
            labels.append(json.loads(label.read_text(encoding="utf-8")))
        except (ValueError, OSError) as error:
            print(f"ensemble_dice: {label} is not a dice model's labels: {error}", file=sys.stderr)
            return 2
    for path, label in zip(paths[1:], labels[1:], strict=True):
        if label != labels[0]:
            print(
                f"ensemble_dice: {path}'s labels (classes, crop size) differ from {paths[0]}'s",
                file=sys.stderr,
            )
            return 2
    try:
        joined = join(load_members(paths))
    except (NotJoinable, onnx.checker.ValidationError) as error:
        print(f"ensemble_dice: {error}", file=sys.stderr)
        return 2
    onnx.save(joined, str(out))
    shutil.copyfile(paths[0].with_suffix(".labels.json"), out.with_suffix(".labels.json"))
    print(f"ensemble_dice: {len(paths)} readers joined into {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
