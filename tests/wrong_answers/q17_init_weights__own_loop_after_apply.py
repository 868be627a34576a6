"""Wrong: calls model.apply with a function that does nothing, then loops over the modules."""

from solutions.q17_init_weights import init_layer


def init_weights(model):
    model.apply(lambda module: None)
    for module in model.modules():
        init_layer(module)
    return model
