"""Wrong: export_onnx leaves the exporter's progress lines on (verbose=True)."""

import torch

from solutions.q48_export_deploy import export_for_inference, load_program, run_onnx, save_program  # noqa: F401  # the rest as in the reference


def export_onnx(model, example, path):
    dynamic = ({0: torch.export.Dim("batch")},)
    torch.onnx.export(model, (example,), path, dynamo=True, dynamic_shapes=dynamic, verbose=True)
