"""Wrong: tests for convolutions with their private base class, so transposed convolutions
get Kaiming weights and zero biases too."""

from torch import nn

from solutions.q17_init_weights import _NORMS, init_weights  # the rest as in the reference


def init_layer(module):
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
    elif isinstance(module, nn.modules.conv._ConvNd):
        nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
    elif isinstance(module, _NORMS):
        if module.weight is not None:
            nn.init.ones_(module.weight)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
        return
    else:
        return
    if module.bias is not None:
        nn.init.zeros_(module.bias)
