"""Wrong: resets a norm layer only when it has both weight and bias, so LayerNorm(bias=False)
keeps its trained scale."""

from torch import nn

from solutions.q17_init_weights import _CONVS, _NORMS


def init_layer(module):
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
    elif isinstance(module, _CONVS):
        nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
    elif isinstance(module, _NORMS):
        if module.weight is not None and module.bias is not None:
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)
        return
    else:
        return
    if module.bias is not None:
        nn.init.zeros_(module.bias)


def init_weights(model):
    return model.apply(init_layer)
