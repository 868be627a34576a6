"""Correct: GuardedScorer chooses with torch.where between both heads' outputs, a choice
recorded in the graph that runs both heads on every batch (the docstring allows it)."""

import os

import torch
from torch import nn


def _batch_dynamic() -> tuple[dict[int, torch.export.Dim]]:
    # One entry per positional input: only dimension 0 may vary; the rest stay as traced.
    return ({0: torch.export.Dim("batch")},)


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
        model, (example,), path, dynamo=True, dynamic_shapes=_batch_dynamic(), verbose=False
    )


def run_onnx(path: str | os.PathLike, inputs: torch.Tensor) -> torch.Tensor:
    import onnxruntime  # an optional dependency: imported only when this function runs

    session = onnxruntime.InferenceSession(os.fspath(path), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    # numpy(force=True) detaches, moves to the CPU and converts in one call.
    (output,) = session.run(None, {name: inputs.numpy(force=True)})
    # float32 whatever the model's output dtype: the caller gets one dtype from every model.
    return torch.from_numpy(output).to(inputs.device, torch.float32)


class GuardedScorer(nn.Module):
    def __init__(self, fast: nn.Module, robust: nn.Module, limit: float) -> None:
        super().__init__()
        self.fast = fast  # assigned as attributes: registered submodules
        self.robust = robust
        self.limit = limit

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # torch.cond puts the choice in the graph: torch.export keeps both branches and the
        # program picks one per call, where a Python `if` on the value cannot be exported.
        out_of_range = x.abs().amax() > self.limit
        return torch.where(out_of_range, self.robust(x), self.fast(x))
