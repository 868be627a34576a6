"""Wrong: exports without dynamic_shapes, so the program and the ONNX file only accept the
example's batch size."""

import torch

from solutions.q48_export_deploy import load_program, run_onnx, save_program  # noqa: F401  # the rest as in the reference


def export_for_inference(model, example):
    return torch.export.export(model, (example,))


def export_onnx(model, example, path):
    torch.onnx.export(model, (example,), path, dynamo=True)
