"""Kata 14: configure AdamW with parameter groups: decay the weights, not the rest.

A torch.optim optimizer takes either an iterable of parameters or a list of parameter
groups: dicts with a "params" list and any options that override the defaults for that
group (lr, weight_decay, betas, ...). `optimizer.param_groups` keeps them, and schedulers
and checkpoints work per group.

The classic use is weight decay. AdamW shrinks every parameter of a group towards 0 at
each step. That regularises weight matrices, but biases and the scale and shift of a
normalisation layer only move an activation's offset or scale, and shrinking an embedding
row each step drags rare tokens towards 0: they are usually left without decay. So the
model's trainable parameters are split in two groups, and each must land in exactly one.

The rule for this kata (say it like this in a code review):
- only trainable parameters (requires_grad=True) go to the optimizer; frozen ones are in
  neither group;
- no decay: every parameter whose own name (the last part of its dotted name) ends with
  "bias" (bias, in_proj_bias, ...; by the letter, case included: bias_proj.weight,
  MultiheadAttention's bias_k, LSTM's bias_ih_l0, Bias and logitBias do not), and every
  parameter a normalisation or embedding layer holds itself (its own parameters,
  `named_parameters(recurse=False)`; a module inside one, such as a Linear that a LayerNorm
  subclass holds, follows the rule by its own class and names): nn.BatchNorm1d/2d/3d,
  nn.SyncBatchNorm, nn.InstanceNorm1d/2d/3d, nn.LayerNorm, nn.GroupNorm, nn.RMSNorm,
  nn.Embedding, nn.EmbeddingBag (checked by isinstance, not by the attribute's or the
  class's name; a lazy layer such as nn.LazyBatchNorm1d is none of these until its first
  forward makes it one);
- decay: every other trainable parameter (Linear and Conv weights, custom parameters of
  any shape);
- a parameter shared by several modules (tied weights), or held by one module under
  several names, is listed once, and gets no decay if any module holding it is one of the
  no-decay layers above (or any of its names ends with "bias").

Task: write `decay_groups` (the split) and `make_optimizer` (AdamW over the two groups).
"""

import torch
from torch import nn


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    """Split the model's trainable parameters into (decay, no_decay) by the rule above.

    - model: any nn.Module, on any device; it is not modified (nor the .grad of its
      parameters).
    - Returns two lists of the model's own Parameter objects (not copies): every
      trainable parameter appears exactly once in exactly one of them, frozen parameters
      in neither. Each list keeps the order of `model.parameters()`. A model with no
      trainable parameters (none at all, or all frozen) gives ([], []).
    - Each call reads the model as it is then (keep nothing between calls): a parameter
      frozen, unfrozen or added since an earlier call counts as it is now.

    >>> model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 2))
    >>> decay, no_decay = decay_groups(model)
    >>> [tuple(p.shape) for p in decay], [tuple(p.shape) for p in no_decay]
    ([(8, 4), (2, 8)], [(8,), (8,), (8,), (2,)])
    """
    # TODO: find the parameters that get no decay (walk the modules: isinstance for the
    # layer types, the parameter's own name for biases), then split the trainable ones.
    raise NotImplementedError


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    """A torch.optim.AdamW over the model's trainable parameters, in two groups.

    - param_groups[0] holds the decay parameters with weight_decay=`weight_decay`;
      param_groups[1] the no-decay parameters with weight_decay=0.0; both use lr=`lr`
      and AdamW's other defaults. There are always exactly two groups (either may be empty,
      both for a model with no trainable parameters), holding the same parameters, in the
      same order, as `decay_groups(model)`.
    - `optimizer.defaults["lr"]` is `lr` too (pass it to AdamW as a keyword), so a group
      added later with add_param_group (layers unfrozen while fine-tuning) gets it, not
      AdamW's own 1e-3. Hint: pass weight_decay as a keyword too: AdamW then checks it.
    - Raises ValueError if lr or weight_decay is negative or NaN (AdamW checks its
      defaults, not each group's settings); 0 is fine for both.
    - The model is not modified (nor the .grad of its parameters).

    >>> model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 2))
    >>> optimizer = make_optimizer(model, lr=1e-3, weight_decay=0.1)
    >>> [(len(g["params"]), g["weight_decay"]) for g in optimizer.param_groups]
    [(2, 0.1), (4, 0.0)]
    """
    # TODO: build AdamW from a list of two parameter-group dicts.
    raise NotImplementedError
