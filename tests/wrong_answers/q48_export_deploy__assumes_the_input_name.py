"""Wrong: run_onnx feeds the input under the name "input" instead of looking up the name the
exporter gave it (the forward argument's name)."""

import torch

from solutions.q48_export_deploy import (  # the rest as in the reference
    export_for_inference,
    export_onnx,
    load_program,
    save_program,
)


def run_onnx(path, inputs):
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (output,) = session.run(None, {"input": inputs.detach().cpu().numpy()})
    return torch.from_numpy(output).to(inputs.device)
