"""torch.export with Dim.DYNAMIC in a tuple of per-input specs, os.fspath for every path, the
ONNX file converted from that ExportedProgram, the result rebuilt by torch.as_tensor."""

import os

import onnxruntime
import torch
from torch import nn

_BATCH_DYNAMIC = ({0: torch.export.Dim.DYNAMIC},)


def export_for_inference(model: nn.Module, example: torch.Tensor) -> torch.export.ExportedProgram:
    return torch.export.export(model, (example,), dynamic_shapes=_BATCH_DYNAMIC)


def save_program(program: torch.export.ExportedProgram, path: str | os.PathLike) -> None:
    torch.export.save(program, os.fspath(path))


def load_program(path: str | os.PathLike) -> nn.Module:
    return torch.export.load(os.fspath(path)).module()


def export_onnx(model: nn.Module, example: torch.Tensor, path: str | os.PathLike) -> None:
    # The exporter takes an ExportedProgram as it is: its batch dimension is already dynamic.
    program = export_for_inference(model, example)
    torch.onnx.export(program, (example,), os.fspath(path), dynamo=True, verbose=False)


def run_onnx(path: str | os.PathLike, inputs: torch.Tensor) -> torch.Tensor:
    session = onnxruntime.InferenceSession(os.fspath(path), providers=["CPUExecutionProvider"])
    (first,) = session.get_inputs()
    (result,) = session.run(None, {first.name: inputs.detach().cpu().numpy()})
    return torch.as_tensor(result, dtype=torch.float32, device=inputs.device)


class GuardedScorer(nn.Module):
    """The heads registered with add_module, the branch as torch.cond over two methods."""

    def __init__(self, fast: nn.Module, robust: nn.Module, limit: float) -> None:
        super().__init__()
        self.add_module("fast", fast)
        self.add_module("robust", robust)
        self.limit = float(limit)

    def _robust(self, x: torch.Tensor) -> torch.Tensor:
        return self.robust(x)

    def _fast(self, x: torch.Tensor) -> torch.Tensor:
        return self.fast(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        over = x.abs().max() > self.limit
        return torch.cond(over, self._robust, self._fast, (x,))
