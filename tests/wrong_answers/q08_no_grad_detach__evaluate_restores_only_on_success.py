"""Wrong: evaluate restores the modes after the model returns, but not when it raises."""

import torch

from solutions.q08_no_grad_detach import ema_update_, round_ste  # the rest as in the reference


def evaluate(model, x):
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    with torch.no_grad():
        out = model(x).detach()
    for module, training in modes:
        module.train(training)
    return out
