"""Wrong: evaluate returns the model's output as it is, so a model that returns its input
hands back x itself, still requiring grad."""

import torch

from solutions.q08_no_grad_detach import ema_update_, round_ste  # the rest as in the reference


def evaluate(model, x):
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        for module, training in modes:
            module.train(training)
