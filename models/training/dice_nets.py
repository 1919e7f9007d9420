"""The dice model's two networks as torch modules (models/training/train_dice.py trains them): their
layers, the finder taken back out of an exported file, and the export into one ONNX file that
companion/vision/dice_model.py reads with onnxruntime. Training only: needs torch and onnx."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from companion.vision.dice_model import (
    CROP_PX,
    FIND_PX,
    READ_CLASSES,
    STRIDE,
    Candidate,
    finder_input,
    peaks,
)


def conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


def pointwise(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Finder(nn.Module):
    """A small encoder-decoder: stride 16 to see a whole die and its surroundings, back up to
    stride 4 to place the centre; 6 maps (centre, x and y offsets, log body width and height,
    hand). Kept lean: it runs on a whole tray on one core of a Pi."""

    def __init__(self) -> None:
        super().__init__()
        self.s4 = nn.Sequential(conv(3, 16, 2), conv(16, 24, 2), conv(24, 24))
        self.s8 = nn.Sequential(conv(24, 40, 2), conv(40, 40))
        self.s16 = nn.Sequential(conv(40, 64, 2), conv(64, 64), conv(64, 64))
        self.up8 = nn.Sequential(pointwise(64 + 40, 40), conv(40, 40))
        self.up4 = nn.Sequential(pointwise(40 + 24, 24), conv(24, 24))
        self.head = nn.Conv2d(24, 6, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a4 = self.s4(x / 255.0 - 0.5)
        a8 = self.s8(a4)
        a16 = self.s16(a8)
        b8 = self.up8(torch.cat([F.interpolate(a16, scale_factor=2.0, mode="nearest"), a8], 1))
        b4 = self.up4(torch.cat([F.interpolate(b8, scale_factor=2.0, mode="nearest"), a4], 1))
        out: torch.Tensor = self.head(b4)
        return out


class Reader(nn.Module):
    """A small CNN over one die's crop: class logits (READ_CLASSES) and the pip box. ``width``
    scales every layer's channels (1.0: the first reader shipped)."""

    def __init__(self, width: float = 1.0) -> None:
        super().__init__()
        c16, c32, c48, c64, c96 = (max(8, round(c * width / 8) * 8) for c in (16, 32, 48, 64, 96))
        self.features = nn.Sequential(
            conv(3, c16),
            conv(c16, c32, 2),
            conv(c32, c32),
            conv(c32, c48, 2),
            conv(c48, c48),
            conv(c48, c64, 2),
            conv(c64, c96),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.classes = nn.Linear(c96, len(READ_CLASSES))
        self.box = nn.Linear(c96, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.features(x / 255.0 - 0.5)
        return self.classes(f), self.box(f)


class Exported(nn.Module):
    """What ships: NHWC inputs in 0..255 as OpenCV gives them; the finder's centre and hand
    maps and the reader's classes as probabilities, its box as fractions of the crop."""

    def __init__(self, finder: Finder, reader: Reader) -> None:
        super().__init__()
        self.finder, self.reader = finder, reader

    def forward(
        self, tray: torch.Tensor, crops: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        maps = self.finder(tray.permute(0, 3, 1, 2))
        maps = torch.cat([torch.sigmoid(maps[:, :1]), maps[:, 1:5], torch.sigmoid(maps[:, 5:])], 1)
        logits, box = self.reader(crops.permute(0, 3, 1, 2))
        return maps, F.softmax(logits, dim=1), box


def finder_from_onnx(path: Path) -> Finder:
    """The finder of an exported dice file, back as a torch module to export again beside a new
    reader. The export folded each batch norm into its convolution; here each batch norm passes
    the folded convolution through as it is (in eval mode only: to be trained further only with
    its batch norms frozen, `train`'s ``frozen_norms``)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: np.array(numpy_helper.to_array(i)) for i in graph.initializer}
    finder = Finder()
    modules = dict(finder.named_modules())
    convs = 0
    for node in graph.node:
        if node.op_type != "Conv" or not node.name.startswith("/finder/"):
            continue
        # "/finder/s4/s4.0/s4.0.0/Conv" is finder.s4[0][0]; its batch norm is finder.s4[0][1]
        name = node.name.split("/")[-2].replace("finder.", "")
        conv = modules[name]
        assert isinstance(conv, nn.Conv2d), name
        kernel, bias = weights[node.input[1]], weights[node.input[2]]
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(kernel))
            if conv.bias is not None:
                conv.bias.copy_(torch.from_numpy(bias))
            else:
                norm = modules[name[: -len(".0")] + ".1"]
                assert isinstance(norm, nn.BatchNorm2d), name
                norm.running_mean.zero_()
                norm.running_var.fill_(1.0 - norm.eps)
                norm.weight.fill_(1.0)
                norm.bias.copy_(torch.from_numpy(bias))
        convs += 1
    if convs != sum(isinstance(m, nn.Conv2d) for m in finder.modules()):
        raise ValueError(f"{path}: {convs} finder convolutions, not this Finder's")
    return finder.eval()


def reader_from_onnx(path: Path) -> Reader:
    """The reader of an exported dice file, back as a torch module to train further (with its
    batch norms frozen, as ``finder_from_onnx`` leaves the finder's) and export again."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: np.array(numpy_helper.to_array(i)) for i in graph.initializer}
    reader = Reader(weights["reader.classes.weight"].shape[1] / 96)
    modules = dict(reader.named_modules())
    convs = 0
    for node in graph.node:
        if node.op_type != "Conv" or not node.name.startswith("/reader/"):
            continue
        # "/reader/features/features.0/features.0.0/Conv" is reader.features[0][0]
        name = node.name.split("/")[-2].replace("features.", "features.", 1)
        conv, norm = modules[name], modules[name[: -len(".0")] + ".1"]
        assert isinstance(conv, nn.Conv2d) and isinstance(norm, nn.BatchNorm2d), name
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(weights[node.input[1]]))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(weights[node.input[2]]))
        convs += 1
    if convs != sum(isinstance(m, nn.Conv2d) for m in reader.modules()):
        raise ValueError(f"{path}: {convs} reader convolutions, not this Reader's")
    with torch.no_grad():
        for head in ("classes", "box"):
            layer = modules[head]
            assert isinstance(layer, nn.Linear)
            layer.weight.copy_(torch.from_numpy(weights[f"reader.{head}.weight"]))
            layer.bias.copy_(torch.from_numpy(weights[f"reader.{head}.bias"]))
    return reader.eval()


def folded_norms(net: nn.Module) -> bool:
    """Whether every batch norm of ``net`` only passes its convolution through, as
    ``finder_from_onnx`` leaves them (and build/dice-finder.pt after training such a finder):
    their statistics are folded away, so training must keep them frozen."""
    norms = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
    return bool(norms) and all(
        bool(torch.all(m.running_mean == 0))
        and bool(torch.allclose(m.running_var, torch.full_like(m.running_var, 1 - m.eps), rtol=0, atol=1e-7))
        for m in norms
    )


def trained_crop_px(reader_path: Path) -> int:
    """The crop size the reader in ``reader_path`` was trained at: written beside its weights
    (CROP_PX for weights saved before that was kept)."""
    side = reader_path.with_suffix(".json")
    return int(json.loads(side.read_text(encoding="utf-8"))["crop_px"]) if side.is_file() else CROP_PX


def run_finder(net: Finder, picture: np.ndarray, threshold: float = 0.2) -> list[Candidate]:
    tray, scale = finder_input(picture)
    with torch.no_grad():
        maps = net(torch.from_numpy(tray).permute(0, 3, 1, 2))[0]
        maps[0] = torch.sigmoid(maps[0])
    return peaks(maps.numpy(), scale, threshold)


def export(finder: Finder, reader: Reader, out: Path, crop_px: int = CROP_PX) -> None:
    """Both networks into one ONNX file, with the labels file beside it."""
    torch.onnx.export(
        Exported(finder, reader),
        (torch.zeros(1, FIND_PX * 3 // 4, FIND_PX, 3), torch.zeros(2, crop_px, crop_px, 3)),
        str(out),
        input_names=["tray", "crops"],
        output_names=["maps", "read_probs", "read_boxes"],
        dynamic_axes={
            "tray": {0: "n", 1: "h", 2: "w"},
            "crops": {0: "m"},
            "maps": {0: "n", 2: "mh", 3: "mw"},
            "read_probs": {0: "m"},
            "read_boxes": {0: "m"},
        },
        opset_version=17,
        dynamo=False,
    )
    labels = {
        "read_classes": list(READ_CLASSES),
        "finder_px": FIND_PX,
        "stride": STRIDE,
        "crop_px": crop_px,
        "maps": ["centre", "dx", "dy", "log_width", "log_height", "hand"],
    }
    labels_path = out.with_suffix(".labels.json")
    labels_path.write_text(json.dumps(labels, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and {labels_path}", file=sys.stderr)
