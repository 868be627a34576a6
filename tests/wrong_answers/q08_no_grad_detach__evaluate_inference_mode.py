"""Wrong: evaluate uses torch.inference_mode(), whose output cannot be used in training."""

import torch

from solutions.q08_no_grad_detach import ema_update_, round_ste  # the rest as in the reference


def evaluate(model, x):
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    with torch.inference_mode():
        out = model(x)
    for module, training in modes:
        module.train(training)
    return out
