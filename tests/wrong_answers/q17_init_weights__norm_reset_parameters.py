"""Wrong: resets norm layers with reset_parameters(), which also clears a BatchNorm's running
statistics."""

from torch import nn

from solutions.q17_init_weights import _CONVS, _NORMS, init_weights  # the rest as in the reference


def init_layer(module):
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
    elif isinstance(module, _CONVS):
        nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
    elif isinstance(module, _NORMS):
        module.reset_parameters()  # ones and zeros, and for BatchNorm fresh running stats
        return
    else:
        return
    if module.bias is not None:
        nn.init.zeros_(module.bias)
