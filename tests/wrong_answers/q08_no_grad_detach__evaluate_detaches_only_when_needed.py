"""Wrong: evaluate detaches the output only when it requires grad, so for a plain x a
model that returns its input (nn.Identity) hands back x itself."""

import torch

from solutions.q08_no_grad_detach import ema_update_, round_ste


def evaluate(model, x):
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            out = model(x)
        return out.detach() if out.requires_grad else out
    finally:
        for module, training in modes:
            module.train(training)
