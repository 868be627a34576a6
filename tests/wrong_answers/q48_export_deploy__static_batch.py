"""Wrong: exports without dynamic_shapes, so the program and the ONNX file only accept the
example's batch size."""

import torch

from solutions.q48_export_deploy import (  # the rest as in the reference
    load_program,
    run_onnx,
    save_program,
)


def export_for_inference(model, example):
    return torch.export.export(model, (example,))


def export_onnx(model, example, path):
    torch.onnx.export(model, (example,), path, dynamo=True)
