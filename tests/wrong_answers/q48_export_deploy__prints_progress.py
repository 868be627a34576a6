"""Wrong: export_onnx leaves the exporter's progress lines on (verbose=True)."""

import torch

from solutions.q48_export_deploy import (  # the rest as in the reference
    export_for_inference,
    load_program,
    run_onnx,
    save_program,
)


def export_onnx(model, example, path):
    dynamic = ({0: torch.export.Dim("batch")},)
    torch.onnx.export(model, (example,), path, dynamo=True, dynamic_shapes=dynamic, verbose=True)
