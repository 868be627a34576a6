"""Wrong: tests for norm layers with their private base class, so InstanceNorm layers are
reset to ones and zeros too."""

from torch import nn

from solutions.q17_init_weights import _CONVS, init_weights  # the rest as in the reference

_NORMS = (nn.modules.batchnorm._NormBase, nn.LayerNorm, nn.GroupNorm)


def init_layer(module):
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
    elif isinstance(module, _CONVS):
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
