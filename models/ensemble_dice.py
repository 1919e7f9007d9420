"""Join the readers of several dice models into one ONNX file whose reader is their mean.

    python -m models.ensemble_dice models/dice.onnx build/dice-s2.onnx --out build/dice-pair.onnx

Readers trained alike with other seeds make different mistakes on dice they are unsure of; the
mean of their probabilities is steadier than any one of them (models/dice.md). The first file's
finder is kept, and every other file must hold the same finder (readers trained with
``train_dice --part reader --finder-onnx`` of it). The joined file has the inputs and outputs of
one model, so companion/vision/dice_model.py reads it unchanged; its labels file is the first's.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

READER_OUTPUTS = ("read_probs", "read_boxes")
FINDER_OUTPUT = "maps"
SHARED_INPUT = "crops"


class NotJoinable(ValueError):
    pass


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


def _finder_weights(model: onnx.ModelProto) -> list[bytes]:
    _, names = _needed(model.graph, [FINDER_OUTPUT])
    found = [numpy_helper.to_array(i) for i in model.graph.initializer if i.name in names]
    return sorted(np.ascontiguousarray(a).tobytes() for a in found)


def join(models: list[onnx.ModelProto]) -> onnx.ModelProto:
    """One model: the first's finder, and as reader the mean of all the models' readers."""
    if len(models) < 2:
        raise NotJoinable("give two dice models or more to join")
    for model in models:
        outputs = {o.name for o in model.graph.output}
        if not {FINDER_OUTPUT, *READER_OUTPUTS} <= outputs:
            raise NotJoinable(
                f"a model without the dice outputs {FINDER_OUTPUT}, {', '.join(READER_OUTPUTS)}"
            )
        if any(a.type == onnx.AttributeProto.GRAPH for n in model.graph.node for a in n.attribute):
            raise NotJoinable("a model with subgraphs (If, Loop) cannot be joined by this tool")
    finder = _finder_weights(models[0])
    for index, model in enumerate(models[1:], start=2):
        if _finder_weights(model) != finder:
            raise NotJoinable(
                f"model {index} has another finder than the first: join only readers trained with "
                "train_dice --part reader --finder-onnx of the first file"
            )
    joined = onnx.ModelProto()
    joined.CopyFrom(models[0])
    graph = joined.graph
    # the first model's reader outputs become inner values of the joined graph
    first = {name: f"member0/{name}" for name in READER_OUTPUTS}
    for node in graph.node:
        node.output[:] = [first.get(name, name) for name in node.output]
        node.input[:] = [first.get(name, name) for name in node.input]
    for index, model in enumerate(models[1:], start=1):
        nodes, names = _needed(model.graph, READER_OUTPUTS)
        inputs = {i.name for i in model.graph.input}
        if inputs & names != {SHARED_INPUT}:
            raise NotJoinable(f"model {index + 1}'s reader reads {sorted(inputs & names)}, not only crops")

        def renamed(name: str, prefix: str = f"member{index}/") -> str:
            return name if name in ("", SHARED_INPUT) else prefix + name

        for node in nodes:
            copy = onnx.NodeProto()
            copy.CopyFrom(node)
            copy.name = renamed(node.name)
            copy.input[:] = [renamed(name) for name in node.input]
            copy.output[:] = [renamed(name) for name in node.output]
            graph.node.append(copy)
        for initializer in model.graph.initializer:
            if initializer.name in names:
                copy = onnx.TensorProto()
                copy.CopyFrom(initializer)
                copy.name = renamed(initializer.name)
                graph.initializer.append(copy)
    share = numpy_helper.from_array(np.array(1.0 / len(models), np.float32), "members/share")
    graph.initializer.append(share)
    for output in READER_OUTPUTS:
        members = [f"member{index}/{output}" for index in range(len(models))]
        graph.node.append(
            helper.make_node("Sum", members, [f"members/{output}"], name=f"members/{output}/sum")
        )
        graph.node.append(
            helper.make_node(
                "Mul", [f"members/{output}", share.name], [output], name=f"members/{output}/mean"
            )
        )
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
    for path in paths:
        if not path.is_file():
            print(f"ensemble_dice: {path} does not exist", file=sys.stderr)
            return 2
    labels = [p.with_suffix(".labels.json") for p in paths]
    texts = {label.read_text(encoding="utf-8") if label.is_file() else None for label in labels}
    if len(texts) != 1 or None in texts:
        print(
            "ensemble_dice: the models' labels files are missing or differ (crop size, classes)",
            file=sys.stderr,
        )
        return 2
    try:
        joined = join([onnx.load(str(p)) for p in paths])
    except (NotJoinable, onnx.checker.ValidationError) as error:
        print(f"ensemble_dice: {error}", file=sys.stderr)
        return 2
    onnx.save(joined, str(out))
    shutil.copyfile(labels[0], out.with_suffix(".labels.json"))
    print(f"ensemble_dice: {len(paths)} readers joined into {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
