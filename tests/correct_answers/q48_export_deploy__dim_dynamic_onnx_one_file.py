"""Correct: Dim.DYNAMIC for the batch, and the ONNX weights inside the one file
(external_data=False)."""

import os

import torch
from torch import nn


def _batch_dynamic() -> tuple[dict[int, torch.export.Dim]]:
    # One entry per positional input: only dimension 0 may vary; the rest stay as traced.
    return ({0: torch.export.Dim.DYNAMIC},)


def export_for_inference(model: nn.Module, example: torch.Tensor) -> torch.export.ExportedProgram:
    return torch.export.export(model, (example,), dynamic_shapes=_batch_dynamic())


def save_program(program: torch.export.ExportedProgram, path: str | os.PathLike) -> None:
    # torch.export's archive holds the graph and the weights; loading it runs no pickled code.
    torch.export.save(program, path)


def load_program(path: str | os.PathLike) -> nn.Module:
    # An ExportedProgram is a graph plus state; .module() wraps it in a callable nn.Module.
    return torch.export.load(path).module()


def export_onnx(model: nn.Module, example: torch.Tensor, path: str | os.PathLike) -> None:
    # dynamo=True: the exporter built on torch.export (the TorchScript-based one is legacy);
    # verbose=False keeps its progress lines out of the caller's output.
    torch.onnx.export(
        model,
        (example,),
        path,
        dynamo=True,
        dynamic_shapes=_batch_dynamic(),
        verbose=False,
        external_data=False,
    )


def run_onnx(path: str | os.PathLike, inputs: torch.Tensor) -> torch.Tensor:
    import onnxruntime  # an optional dependency: imported only when this function runs

    session = onnxruntime.InferenceSession(os.fspath(path), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    # numpy(force=True) detaches, moves to the CPU and converts in one call.
    (output,) = session.run(None, {name: inputs.numpy(force=True)})
    return torch.from_numpy(output).float().to(inputs.device)


class GuardedScorer(nn.Module):
    def __init__(self, fast: nn.Module, robust: nn.Module, limit: float) -> None:
        super().__init__()
        self.fast, self.robust, self.limit = fast, robust, limit

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        largest = torch.max(torch.abs(x))
        return torch.cond(
            largest > self.limit, lambda t: self.robust(t), lambda t: self.fast(t), [x]
        )
