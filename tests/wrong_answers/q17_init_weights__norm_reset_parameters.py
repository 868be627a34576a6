"""Wrong: resets norm layers with reset_parameters(), which also clears a BatchNorm's running
statistics."""

from torch import nn

from solutions.q17_init_weights import init_weights  # the rest as in the reference

_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)


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
