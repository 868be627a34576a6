"""Kata 27: parameters() versus state_dict().

`model.parameters()` yields the tensors an optimizer trains (nn.Parameter objects), each
once, even when two modules share one. `model.state_dict()` maps names to every tensor
needed to restore the model: the parameters, under every name they are reachable by, plus
the persistent buffers, such as BatchNorm's running_mean, running_var and
num_batches_tracked, which are state but not trained. Checkpoints store the state_dict.

A checkpoint saved from a model wrapped in nn.DataParallel or DistributedDataParallel has
every key prefixed with "module." (the wrapper keeps the model as `self.module`), so a
strict load into the bare model fails until the prefix is removed.

Task: count parameters, list the buffer entries of a state_dict, and load a checkpoint
that may carry the "module." prefix.
"""

from collections.abc import Mapping

import torch
from torch import nn


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """The number of scalar values in the model's parameters, as a Python int (each element
    counts once, as numel() counts it: a complex element too).

    - Each parameter counts once, even when modules share it (tied weights). A parameter is
      an nn.Parameter object, as model.parameters() yields them: two distinct Parameters
      count twice even if one was built on the other's memory.
    - Buffers (running statistics and the like) are not parameters and do not count.
    - trainable_only=True: count only the parameters with requires_grad=True.
    - The model is not modified (nor the .grad of its parameters).

    >>> count_parameters(nn.Linear(10, 5))  # 10 × 5 weights + 5 biases
    55
    """
    # TODO: sum numel over model.parameters().
    raise NotImplementedError


def buffer_keys(model: nn.Module) -> list[str]:
    """The keys of `model.state_dict()` whose entries are buffers, not parameters.

    - Returned in state_dict order, e.g. a BatchNorm1d at "bn" contributes
      "bn.running_mean", "bn.running_var" and "bn.num_batches_tracked".
    - Buffers registered with `register_buffer(..., persistent=False)` are not in the
      state_dict, so they are not listed; nor are buffers set to None (a BatchNorm built
      with track_running_stats=False holds its running statistics so).
    - A parameter shared by two modules appears in the state_dict under both names; both
      names are parameter keys, not buffers. A buffer shared that way is listed under both.
    - A module that defines `get_extra_state` adds an entry "<module>._extra_state" (the
      model itself: "_extra_state"), any picklable object, a tensor too; it is neither a
      parameter nor a buffer, so it is not listed.
    - The model is not modified (nor the .grad of its parameters).

    >>> buffer_keys(nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)))
    ['1.running_mean', '1.running_var', '1.num_batches_tracked']
    """
    # TODO: keep the state_dict's keys that are names of buffers (all of them).
    raise NotImplementedError


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    """Load `state_dict` into `model` strictly and return `model`.

    - When every key of state_dict starts with "module." (saved from a wrapped model), that
      leading "module." is removed from each key, once; otherwise the keys are used as
      they are. Only the leading prefix goes: "module.block.module.weight" becomes
      "block.module.weight". The model's own keys play no part: a wrapped model whose only
      submodule is called `module` loads ("module.module.weight" becomes "module.weight"),
      and a bare one does not (its keys all start with "module." and lose it). A key that
      starts with "module" without the dot ("module_list.0.weight") keeps it.
    - The load is strict: missing keys, unexpected keys and shape mismatches raise
      RuntimeError (as model.load_state_dict does).
    - Values are copied into the model's existing tensors, which keep their device, dtype
      and identity: a checkpoint on the CPU loads into a model on any device.
    - The state_dict passed in is not modified (neither its keys nor its tensors).
    - Every module of `model` keeps its train/eval mode: loading weights is no switch to
      evaluation.
    - Hint: the dict with stripped keys may leave out the state_dict's `_metadata` (the
      version records `state_dict()` attaches); they matter only for checkpoints from
      older module versions, which the tests do not load.

    >>> source, target = nn.Linear(3, 1), nn.Linear(3, 1)
    >>> checkpoint = {"module." + key: value for key, value in source.state_dict().items()}
    >>> load_checkpoint(target, checkpoint) is target, torch.equal(target.bias, source.bias)
    (True, True)
    """
    # TODO: strip the prefix into a new dict, then model.load_state_dict(..., strict=True).
    raise NotImplementedError
