"""Kata 17: initialise a model's weights with model.apply (reference answer)."""

from torch import nn

_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)


def init_layer(module: nn.Module) -> None:
    # torch.nn.init functions fill the existing tensors under no_grad: the parameters stay
    # the same objects, on the same device, and no autograd history is recorded.
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)  # gain 1: Var = 2 / (fan_in + fan_out)
    elif isinstance(module, _CONVS):
        # He init keeps the activation scale through ReLU, which halves the second moment.
        nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
    elif isinstance(module, _NORMS):
        # affine=False (or bias=False) leaves these as None: there is nothing to set.
        if module.weight is not None:
            nn.init.ones_(module.weight)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
        return
    else:
        return  # containers, activations, embeddings, ...: not ours to change
    if module.bias is not None:
        nn.init.zeros_(module.bias)


def init_weights(model: nn.Module) -> nn.Module:
    # apply visits the children recursively and then the module itself, and returns it.
    return model.apply(init_layer)
