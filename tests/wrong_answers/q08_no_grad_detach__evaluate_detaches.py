"""Wrong: evaluate runs the model with grad enabled and detaches the output afterwards."""

from solutions.q08_no_grad_detach import ema_update_, round_ste  # the rest as in the reference


def evaluate(model, x):
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    out = model(x).detach()  # the graph (and its saved activations) was built anyway
    for module, training in modes:
        module.train(training)
    return out
