"""Wrong: freezes the model's parameters (requires_grad_(False)) before exporting, which
changes the caller's model."""

import torch

from solutions.q48_export_deploy import (
    _batch_dynamic,
    export_onnx,
    load_program,
    run_onnx,
    save_program,
)


def export_for_inference(model, example):
    model.requires_grad_(False)
    return torch.export.export(model, (example,), dynamic_shapes=_batch_dynamic())
