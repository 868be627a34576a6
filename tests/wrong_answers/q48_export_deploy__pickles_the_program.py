"""Wrong: saves the ExportedProgram with torch.save and loads it with torch.load, a pickle
that torch.export.load cannot read (and that runs code when it is loaded)."""

import torch

from solutions.q48_export_deploy import (  # the rest as in the reference
    export_for_inference,
    export_onnx,
    run_onnx,
)


def save_program(program, path):
    torch.save(program, path)


def load_program(path):
    return torch.load(path, weights_only=False).module()
