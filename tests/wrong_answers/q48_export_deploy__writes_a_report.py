"""Wrong: exports with report=True, which writes a markdown report into the working
directory next to whatever is there."""

import torch

from solutions.q48_export_deploy import (
    _batch_dynamic,
    export_for_inference,
    load_program,
    run_onnx,
    save_program,
)


def export_onnx(model, example, path):
    torch.onnx.export(
        model,
        (example,),
        path,
        dynamo=True,
        dynamic_shapes=_batch_dynamic(),
        verbose=False,
        report=True,
    )
