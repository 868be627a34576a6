"""A named Dim with min=1 in a list spec, pathlib paths, one-element unpacking, a where guard."""

from __future__ import annotations

import os
import pathlib

import onnxruntime as ort
import torch
from torch import nn
from torch.export import Dim


def _batch_spec(model: nn.Module) -> list[dict[int, Dim]]:
    del model  # one positional input: one spec, its dimension 0 dynamic
    return [{0: Dim("batch", min=1)}]


def export_for_inference(model: nn.Module, example: torch.Tensor) -> torch.export.ExportedProgram:
    return torch.export.export(model, (example,), dynamic_shapes=_batch_spec(model))


def save_program(program: torch.export.ExportedProgram, path: str | os.PathLike) -> None:
    torch.export.save(program, pathlib.Path(path))


def load_program(path: str | os.PathLike) -> nn.Module:
    return torch.export.load(pathlib.Path(path)).module()


def export_onnx(model: nn.Module, example: torch.Tensor, path: str | os.PathLike) -> None:
    torch.onnx.export(
        model,
        (example,),
        str(pathlib.Path(path)),
        dynamo=True,
        dynamic_shapes=_batch_spec(model),
        verbose=False,
    )


def run_onnx(path: str | os.PathLike, inputs: torch.Tensor) -> torch.Tensor:
    session = ort.InferenceSession(str(pathlib.Path(path)), providers=["CPUExecutionProvider"])
    (feed,) = session.get_inputs()
    (result,) = session.run(None, {feed.name: inputs.detach().cpu().numpy()})
    return torch.from_numpy(result).to(device=inputs.device, dtype=torch.float32)


class GuardedScorer(nn.Module):
    def __init__(self, fast: nn.Module, robust: nn.Module, limit: float) -> None:
        super().__init__()
        self.fast = fast
        self.robust = robust
        self.limit = float(limit)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Both branches run; where() picks per the single batch-wide flag.
        out_of_range = x.abs().amax() > self.limit
        return torch.where(out_of_range, self.robust(x), self.fast(x))
