"""One way to open an ONNX model for the table: on the Pi's CPU, for days, beside other work.

- One thread by default and no spinning between runs: the Pi's cores are shared with the camera,
  the web server and the trays (shared/FACTS.md).
- No CPU memory arena. onnxruntime's arena keeps the largest working memory any run has needed
  and never gives it back; with batches of changing size (a board's new cells, a tray's dice)
  it held about 250 MiB more than the runs needed (benchmarks/README.md, "Soak run"). Without
  it each run's buffers are freed when it ends.
"""

from __future__ import annotations

from pathlib import Path

import onnxruntime as ort

from companion.errors import UserError


class BadModelFile(UserError):
    """A model file that is there but cannot be opened: damaged, cut short, or not ONNX."""


def open_session(path: Path, threads: int = 1) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_cpu_mem_arena = False
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime's own types (InvalidProtobuf, Fail, ...) derive from Exception
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise BadModelFile(
            f"{path} is not an ONNX model onnxruntime can open ({reason}): it is damaged, cut short "
            "or another kind of file; copy it again (the shipped ones are in the checkout's models/)"
        ) from None
