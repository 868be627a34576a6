"""Wrong: export_onnx exports into the system temp folder and copies only the .onnx file to
`path`, so its weights (the side file model.onnx.data) are left behind."""

import os
import shutil
import tempfile

import torch

from solutions.q48_export_deploy import (  # the rest as in the reference
    export_for_inference,
    load_program,
    run_onnx,
    save_program,
)


def export_onnx(model, example, path):
    scratch = tempfile.mkdtemp()  # left behind in the temp folder, with the weights
    staged = os.path.join(scratch, os.path.basename(os.fspath(path)))
    dynamic = ({0: torch.export.Dim("batch")},)
    torch.onnx.export(model, (example,), staged, dynamo=True, dynamic_shapes=dynamic, verbose=False)
    shutil.copyfile(staged, path)
