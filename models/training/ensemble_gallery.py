"""Join several gallery likenesses into one ONNX file whose likeness is the mean of theirs.

    python -m models.training.ensemble_gallery models/starwars/gallery.onnx build/gallery-w15.onnx \
        --out build/pair.onnx

Each member turns a tile's square into a vector of unit length. The joined file gives every
member's vector side by side, divided by the square root of their number: still of unit length,
and the dot product of two such vectors is the mean of the members' likenesses. Two likenesses
trained apart make different mistakes, so their mean is steadier than either (models/starwars/gallery.md,
"Two likenesses' mean"). The joined file has the one input and output of a single likeness,
so companion/vision/likeness.py and the gallery read it unchanged; only the vector is longer.
"""

from __future__ import annotations

import argparse
import sys
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

INPUT = "squares"
OUTPUT = "embedding"


def _check_member(model: onnx.ModelProto, first: onnx.ModelProto, index: int) -> None:
    graph = model.graph
    if [i.name for i in graph.input] != [INPUT] or [o.name for o in graph.output] != [OUTPUT]:
        raise NotJoinable(f"model {index} does not read {INPUT} into {OUTPUT} alone: it is not a likeness")
    output = graph.output[0].type.tensor_type
    if output.elem_type != onnx.TensorProto.FLOAT or len(output.shape.dim) != 2:
        raise NotJoinable(f"model {index}'s {OUTPUT} is not a float vector per square: it is not a likeness")
    refuse_unjoinable(model, index, "likenesses")
    if index > 1 and graph.input[0].SerializeToString() != first.graph.input[0].SerializeToString():
        raise NotJoinable(f"model {index} reads squares of another size or type than model 1")
    if index > 1 and list(model.opset_import) != list(first.opset_import):
        raise NotJoinable(f"model {index}'s ONNX opsets are not model 1's")


def join(models: list[onnx.ModelProto]) -> onnx.ModelProto:
    """One likeness: every member's vector side by side, over the square root of their number."""
    joined = checked_copy(models, _check_member, "likenesses")
    graph = joined.graph
    del graph.node[:]
    del graph.initializer[:]
    del graph.value_info[:]  # the first's inner shapes, under names the join prefixes
    for index, model in enumerate(models):
        copy_prefixed(graph, model.graph.node, model.graph.initializer, f"{MEMBER}{index}/", [INPUT])
    scale = numpy_helper.from_array(np.array(1.0 / np.sqrt(len(models)), np.float32), f"{MEMBER}s/scale")
    graph.initializer.append(scale)
    side_by_side = f"{MEMBER}s/{OUTPUT}"
    members = [f"{MEMBER}{index}/{OUTPUT}" for index in range(len(models))]
    graph.node.append(
        helper.make_node("Concat", members, [side_by_side], name=f"{side_by_side}/concat", axis=1)
    )
    graph.node.append(
        helper.make_node("Mul", [side_by_side, scale.name], [OUTPUT], name=f"{side_by_side}/scale")
    )
    # the vector's length is the members' together: leave the output's second side unnamed
    graph.output[0].type.tensor_type.shape.dim[1].Clear()
    onnx.checker.check_model(joined)
    return joined


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "models", nargs="+", help="gallery likeness ONNX files (models/starwars/gallery.onnx and the like)"
    )
    parser.add_argument("--out", required=True, help="the joined ONNX file")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.models]
    out = Path(args.out)
    if len({p.resolve() for p in paths}) < len(paths):
        parser.error("a likeness is given twice: its mean with itself is itself")
    if out.resolve() in {p.resolve() for p in paths}:
        parser.error(f"--out {out} is one of the models joined: write the joined file elsewhere")
    if not out.parent.is_dir():
        parser.error(f"--out {out}: the folder {out.parent} does not exist")
    try:
        joined = join(load_members(paths))
    except (NotJoinable, onnx.checker.ValidationError) as error:
        print(f"ensemble_gallery: {error}", file=sys.stderr)
        return 2
    onnx.save(joined, str(out))
    print(f"ensemble_gallery: {len(paths)} likenesses joined into {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
