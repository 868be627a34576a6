"""Kata 17: initialise a model's weights with `model.apply`.

Every PyTorch layer comes with a default initialisation, but papers and recipes often ask
for a specific one: Xavier (Glorot) for layers followed by tanh or nothing, Kaiming (He) for
layers followed by ReLU, zero biases, and normalisation layers that start as the identity
(scale 1, shift 0). `torch.nn.init` has the schemes; `model.apply(fn)` calls `fn` once on
every module of the model, nested ones included, which is the usual way to use them.

Task: write `init_layer`, the function handed to `model.apply`, and `init_weights`, which
applies it to a whole model.
"""

from torch import nn


def init_layer(module: nn.Module) -> None:
    """Initialise the parameters of `module` itself, by its type; children are not visited.
    A frozen layer (a pretrained one, say) is initialised all the same, and stays frozen.

    - nn.Linear: weight with Xavier (Glorot) for gain 1, std = sqrt(2 / (fan_in + fan_out))
      where fan_in = in_features and fan_out = out_features.
    - nn.Conv1d / nn.Conv2d / nn.Conv3d: weight with Kaiming (He) for ReLU in fan-in mode,
      std = sqrt(2 / fan_in), fan_in = (in_channels / groups) × kernel elements.
    - Either distribution, uniform or normal, is accepted for both schemes: only the mean (0)
      and the standard deviation are specified. Draw from torch's default generator, so the
      caller's `torch.manual_seed` decides the values (no generator of your own).
    - Biases of those layers, where present (bias=True), are set to zeros, whatever they
      held (NaN and inf too: a diverged model is re-initialised).
    - nn.BatchNorm1d/2d/3d, nn.LayerNorm and nn.GroupNorm with affine parameters: weight
      set to ones and bias to zeros (whichever of the two exists), whatever they held.
    - Subclasses count as the layer they extend (test with isinstance, not with type(...) ==):
      the out_proj of nn.MultiheadAttention is a subclass of nn.Linear and gets Xavier.
      Lazy layers (nn.LazyLinear, nn.LazyConv2d, ...) have no shape until their first forward,
      which turns them into the plain layer: run the model once before initialising it.
    - Any other module keeps its parameters unchanged (nn.Embedding, your own modules, and
      the layers not listed above even where they share a private base class with them:
      nn.ConvTranspose1d/2d/3d, nn.InstanceNorm1d/2d/3d, nn.SyncBatchNorm, nn.RMSNorm,
      nn.MultiheadAttention's own in_proj_weight, ...). Only the module's own parameters are
      touched, never its children's (a Linear subclass holding an adapter layer keeps the
      adapter's): for an nn.Sequential, nothing happens, because `model.apply` calls
      init_layer on each of its children separately.
    - Only parameters are set: buffers keep their values (a BatchNorm's running_mean,
      running_var and num_batches_tracked are left as they are).
    - Works in place: the parameter objects stay the same (same tensors, dtype and device,
      still leaves, their requires_grad as it was), so an optimizer built before still holds
      them. Every module keeps its train/eval mode.

    >>> layer = nn.Linear(400, 100)
    >>> init_layer(layer)
    >>> round(layer.weight.std().item(), 2), layer.bias.abs().max().item()
    (0.06, 0.0)
    """
    # TODO: branch on the module's type and use torch.nn.init's in-place functions.
    raise NotImplementedError


def init_weights(model: nn.Module) -> nn.Module:
    """Initialise every layer of `model`, however deeply nested, `model` itself included (a
    bare nn.Linear is initialised), and return `model` itself. Each call does the whole job:
    a model initialised before (and trained until it diverged since) is initialised again, so
    keep no record of the modules an earlier call has seen.

    Rules: walk the model with `model.apply(init_layer)`, not with your own loop.

    >>> model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
    >>> init_weights(model) is model
    True
    >>> model[0].bias.abs().max().item(), model[1].weight.min().item()
    (0.0, 1.0)
    """
    # TODO: one line with model.apply.
    raise NotImplementedError
