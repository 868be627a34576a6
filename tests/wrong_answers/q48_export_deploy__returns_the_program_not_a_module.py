"""Wrong: load_program returns the loaded ExportedProgram itself, which cannot be called;
its .module() is the runnable model."""

import torch

from solutions.q48_export_deploy import (  # the rest as in the reference
    export_for_inference,
    export_onnx,
    run_onnx,
    save_program,
)


def load_program(path):
    return torch.export.load(path)
