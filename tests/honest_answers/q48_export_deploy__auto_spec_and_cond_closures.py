"""Dim.AUTO in a tuple spec, fspath everywhere, torch.cond with closures over the submodules."""

import os

import numpy as np
import onnxruntime
import torch
from torch import nn

_SPEC = ({0: torch.export.Dim.AUTO},)


def export_for_inference(model: nn.Module, example: torch.Tensor) -> torch.export.ExportedProgram:
    if example.dim() == 0 or example.shape[0] < 2:
        raise ValueError("export needs an example batch of at least 2")
    return torch.export.export(model, args=(example,), dynamic_shapes=_SPEC)


def save_program(program: torch.export.ExportedProgram, path: str | os.PathLike) -> None:
    torch.export.save(program, os.fspath(path))


def load_program(path: str | os.PathLike) -> nn.Module:
    program = torch.export.load(os.fspath(path))
    return program.module()


def export_onnx(model: nn.Module, example: torch.Tensor, path: str | os.PathLike) -> None:
    torch.onnx.export(
        model, (example,), os.fspath(path), dynamo=True, dynamic_shapes=_SPEC, verbose=False
    )


def run_onnx(path: str | os.PathLike, inputs: torch.Tensor) -> torch.Tensor:
    sess = onnxruntime.InferenceSession(os.fspath(path), providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    array = np.ascontiguousarray(inputs.numpy(force=True))
    outputs = sess.run([sess.get_outputs()[0].name], {name: array})
    return torch.tensor(outputs[0], dtype=torch.float32, device=inputs.device)


class GuardedScorer(nn.Module):
    def __init__(self, fast: nn.Module, robust: nn.Module, limit: float) -> None:
        super().__init__()
        self.add_module("fast", fast)
        self.add_module("robust", robust)
        self.limit = limit

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def use_robust(t: torch.Tensor) -> torch.Tensor:
            return self.robust(t)

        def use_fast(t: torch.Tensor) -> torch.Tensor:
            return self.fast(t)

        return torch.cond(torch.amax(torch.abs(x)) > self.limit, use_robust, use_fast, (x,))
