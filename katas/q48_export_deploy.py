"""Kata 48: exporting a model for deployment (torch.export and ONNX).

`torch.compile` speeds a model up inside a Python process. To ship a model to a server,
a phone or another runtime you export it instead: `torch.export.export` traces the model
ahead of time into an `ExportedProgram`, a self-contained graph plus weights that
`torch.export.save` writes to a `.pt2` archive and `torch.export.load` reads back without
the model's Python code. `torch.onnx.export(..., dynamo=True)` builds on the same
tracing to write an ONNX file, which runtimes such as onnxruntime execute without
PyTorch. (TorchScript, the older route, is deprecated.)

Tracing records the shapes it sees. Unless told otherwise, the export is specialised to
the example's batch size and rejects any other; mark the batch dimension dynamic with
`dynamic_shapes` (for example `torch.export.Dim("batch")`) so one artifact serves every
batch size. Sizes 0 and 1 are treated as constants while tracing, so export with an
example batch of at least 2.

torch.compile and torch.export both capture graphs with TorchDynamo, for different jobs.
torch.compile optimises inside a running Python process: where it cannot capture something
(a Python `if` on a tensor's value, `.item()`, a print) it breaks the graph, runs that piece
in Python and carries on, so any model runs, and nothing is written to ship. torch.export
works ahead of time for a runtime with no Python to fall back on: one whole graph, or an
error. So control flow that depends on the data must be written into the graph:
`torch.cond(pred, true_fn, false_fn, operands)` records both branches and picks one when
the program runs. TorchScript's `torch.jit.trace` recorded only the branch its example
took and silently dropped the other, a program that is wrong for the other inputs
(`torch.jit.script` compiled the Python source instead, a subset of the language).

Task: export, save and load a model with torch.export, and export and run it as ONNX,
all with a dynamic batch dimension; and write a model whose data-dependent branch
survives the export (`GuardedScorer`). The ONNX half needs the `onnx` extra
(`pip install "torch-katas[onnx]"`: onnx, onnxscript and onnxruntime).
"""

import os

import torch
from torch import nn


def export_for_inference(model: nn.Module, example: torch.Tensor) -> torch.export.ExportedProgram:
    """Export `model` with `torch.export`, its batch dimension dynamic.

    - model: an nn.Module in eval mode whose forward takes one tensor of shape (B, ...);
      example: such an input with B >= 2, on the model's device.
    - Returns the `torch.export.ExportedProgram`. Dimension 0 of the input is dynamic, so
      `program.module()` accepts any batch size >= 1 (no upper bound) and agrees with
      `model` on it; the other dimensions stay as in `example` (a model that would accept
      other sizes there still refuses them: only dimension 0 is marked). Any way of
      marking dimension 0 dynamic does: `Dim("batch")`, `Dim("batch", min=1)`,
      `Dim.DYNAMIC` or `Dim.AUTO`. What counts is that batches of 1 and more run, not the
      range the program reports: for
      `Dim.DYNAMIC` its `range_constraints` start at 2 (torch traces sizes 0 and 1 as
      special cases), yet batches of 1 run. A batch of 0 is left open: a plain
      `Dim("batch")` accepts it, `Dim("batch", min=1)` refuses it; both are correct here.
    - The model itself is not changed: its weights and buffers, their requires_grad flags
      and its train/eval modes are as they were.

    >>> model = nn.Linear(4, 2).eval()
    >>> program = export_for_inference(model, torch.randn(3, 4))
    >>> program.module()(torch.randn(7, 4)).shape
    torch.Size([7, 2])
    """
    # TODO: call torch.export.export with dynamic_shapes marking dimension 0 as dynamic.
    raise NotImplementedError


def save_program(program: torch.export.ExportedProgram, path: str | os.PathLike) -> None:
    """Write `program` to `path` as a torch.export archive (by convention a `.pt2` file).

    - The file must load with `torch.export.load(path)`: use torch.export's own format,
      not a pickle of the program. It is written at `path` exactly, whatever its suffix
      (none is added), and nothing else is written.

    >>> save_program(program, "model.pt2")
    """
    # TODO: save with torch.export's serialisation.
    raise NotImplementedError


def load_program(path: str | os.PathLike) -> nn.Module:
    """Load the archive at `path` (written by `torch.export.save`) for inference.

    - Returns a runnable nn.Module (an ExportedProgram itself cannot be called), with
      the weights on the device they were saved from; calling it on a batch returns what
      the original model returned. Reads the file as it is at each call: a file written
      again at the same path gives the new program (no cache by path).

    >>> served = load_program("model.pt2")
    >>> served(torch.randn(5, 4)).shape
    torch.Size([5, 2])
    """
    # TODO: load with torch.export and return the program's runnable module.
    raise NotImplementedError


def export_onnx(model: nn.Module, example: torch.Tensor, path: str | os.PathLike) -> None:
    """Write `model` to `path` as an ONNX file with a dynamic batch dimension.

    - model and example as for `export_for_inference` (any device); the model itself is
      not changed either (its weights, their device and requires_grad flags, its modes).
    - Use `torch.onnx.export(..., dynamo=True)`, the exporter built on torch.export, with
      dimension 0 of the input dynamic: in the ONNX graph the input's first dimension is
      symbolic and onnxruntime accepts any batch size; its other dimensions are fixed to
      `example`'s.
    - Files: `path`, and beside it (by the exporter's default) the weights in a side file
      named `path` + ".data" (model.onnx.data), which onnxruntime reads from the same
      folder: ship the two together. One file with the weights inside (external_data=False)
      is correct too. Nothing else is written, anywhere: not in the
      working directory (where the exporter's report=True, profile=True and
      dump_exported_program=True put their artifacts), not in HOME, not in the temporary
      directory (nor anywhere else an `artifacts_dir` could send them).
    - Prints nothing to stdout (the exporter's progress lines stay off: verbose=False).

    >>> export_onnx(model, torch.randn(3, 4), "model.onnx")  # doctest: +SKIP
    """
    # TODO: export with torch.onnx.export(dynamo=True) and a dynamic batch dimension.
    raise NotImplementedError


def run_onnx(path: str | os.PathLike, inputs: torch.Tensor) -> torch.Tensor:
    """Run the ONNX model at `path` on `inputs` with onnxruntime on the CPU.

    - Rule: ask for the CPU, `providers=["CPUExecutionProvider"]` (left out, a GPU build
      of onnxruntime picks its own providers, and older versions refuse the call).
    - The model has one input and one output; inputs is a float32 tensor on any device
      (it may require grad), left as it is (requires_grad included). Look the input's
      name up in the session rather than assuming it: the exporter names it after the
      forward argument.
    - Returns the output as a float32 torch.Tensor on `inputs`' device, whatever floating
      dtype the model produces (a float64 or float16 output is cast).
    - Opens the file as it is at each call: a file written again at the same path gives
      the new model's result, even with its size and modification time unchanged (no
      session cached by path, nor by path and time).

    >>> run_onnx("model.onnx", torch.randn(5, 4)).shape  # doctest: +SKIP
    torch.Size([5, 2])
    """
    # TODO: open an onnxruntime.InferenceSession, feed inputs as a NumPy array, convert back.
    raise NotImplementedError


class GuardedScorer(nn.Module):
    """Score a batch with `fast`, unless an input lies outside the range `fast` was
    calibrated on: then the whole batch goes to `robust`.

    - __init__(fast, robust, limit): fast and robust are modules that take the same input
      (B, ...) and return outputs of the same shape and dtype, each a new tensor, never its
      input or a view of it (torch.cond refuses a branch whose output aliases its input:
      such a module, nn.Identity say, is not a caller's to pass); both are registered
      submodules (`self.fast`, `self.robust`: both in parameters() and state_dict(), both
      moved by `.to(...)`). limit is a finite Python float.
    - forward(x): x of shape (B, ...) with B >= 1, floating. If the largest absolute value
      in the whole batch is strictly above limit (`x.abs().amax() > limit`), returns
      `robust(x)`, otherwise `fast(x)` (an input exactly at limit is in range). One choice
      for the batch, not one per sample.
    - Exportable: `torch.export.export(model, (example,), dynamic_shapes=...)` with a
      dynamic batch gives one program that keeps both branches: called on batches either
      side of limit (and of other sizes), it returns what the eager model returns, whichever
      branch the example took. A Python `if` on the tensor's value cannot be exported (there
      is no Python to fall back on), and a branch chosen once from the example would be
      right only for inputs on the example's side.

    Hint, not rule: `torch.cond(pred, true_fn, false_fn, (x,))` runs one branch; the
    simulated device `sim` cannot run it (it traces its branches with Dynamo even eagerly),
    so such an answer is checked on the CPU and CUDA. `torch.where` between both outputs
    gives the same values too, at the cost of running both modules on every batch.

    >>> model = GuardedScorer(nn.Linear(4, 2), nn.Linear(4, 2), limit=3.0).eval()
    >>> x = torch.ones(2, 4)
    >>> torch.equal(model(x), model.fast(x)), torch.equal(model(4 * x), model.robust(4 * x))
    (True, True)
    """

    def __init__(self, fast: nn.Module, robust: nn.Module, limit: float) -> None:
        # TODO: call super().__init__(), register fast and robust, keep limit.
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO: choose the branch inside the graph (torch.cond), not with a Python if.
        raise NotImplementedError
