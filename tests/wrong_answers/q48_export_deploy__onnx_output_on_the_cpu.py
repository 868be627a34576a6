"""Wrong: returns onnxruntime's output as a CPU tensor, not on the inputs' device."""

import os

import torch

from solutions.q48_export_deploy import (  # the rest as in the reference
    export_for_inference,
    export_onnx,
    load_program,
    save_program,
)


def run_onnx(path, inputs):
    import onnxruntime

    session = onnxruntime.InferenceSession(os.fspath(path), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    (output,) = session.run(None, {name: inputs.numpy(force=True)})
    return torch.from_numpy(output)
