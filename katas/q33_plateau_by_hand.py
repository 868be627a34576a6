"""Kata 33: reduce the learning rate when a metric stops improving, written by hand.

Most schedulers follow a fixed timetable. `ReduceLROnPlateau` instead watches a metric you
pass in after each epoch (say the validation loss) and cuts the lr when the metric has
stopped improving for a while. Its settings decide what "improving" and "a while" mean:
`mode` (is lower or higher better), `threshold`/`threshold_mode` (how much better counts),
`patience` (how many bad epochs to tolerate), `cooldown` (how long to wait after a cut),
`factor`, `min_lr` and `eps` (how far to cut).

Task: write that logic yourself, as a small class that drives an optimizer's learning
rates and matches torch.optim.lr_scheduler.ReduceLROnPlateau step for step.
Rule: do not use torch.optim.lr_scheduler.ReduceLROnPlateau (not even as a base class).

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

import torch


class PlateauLR:
    """Cut every param group's lr by `factor` when `metric` plateaus.

    Creating it does not change any lr. Each `step(metric)` is one epoch:

    1. Improvement. The metric improves when it beats the best value seen so far by more
       than the threshold:
       - mode "min", threshold_mode "rel": `metric < best * (1 - threshold)`
       - mode "min", threshold_mode "abs": `metric < best - threshold`
       - mode "max", threshold_mode "rel": `metric > best * (1 + threshold)`
       - mode "max", threshold_mode "abs": `metric > best + threshold`
       `best` starts at +inf in mode "min" and -inf in mode "max" (so the first metric
       improves) and is never reset. A NaN metric never improves (every comparison with
       NaN is false): it is a bad epoch. An improvement sets `best = metric` and the count of
       bad epochs to 0; any other epoch adds 1 to that count.
    2. Cooldown. The `cooldown` epochs right after a cut count no bad epochs: on each of
       them the count is set back to 0 (the best is still updated as in 1).
    3. Cut. When the count of bad epochs exceeds `patience` (the (patience + 1)-th bad epoch
       in a row), each group's lr becomes `max(lr * factor, min_lr)`, except that a group
       keeps its lr when the change would be no more than `eps` (`lr - new_lr <= eps`, a
       signed difference: a group whose lr is already below min_lr keeps it). "Each group"
       is every group the optimizer holds at the cut, groups added since construction
       included. The count then restarts at 0 and the cooldown begins, whether or not any
       lr changed.

    - optimizer: any torch.optim optimizer; lrs are read from and written to its
      `param_groups[i]["lr"]` (Python floats; min_lr is a float too), the groups it holds
      at each step (`optimizer.load_state_dict` replaces the list and every group in it).
    - metric: a Python float or a 0-dim tensor on any device, read when step is called: a
      caller may reuse one tensor for every epoch (zeroed and refilled), so keep its value
      as a number, never the tensor itself (a Python float or a float64 tensor metric keeps
      its full precision); the tensor is not modified.
    - Raises ValueError if mode is not "min"/"max", threshold_mode is not "rel"/"abs",
      factor is not in [0, 1), threshold < 0, patience < 0 or cooldown < 0 (in every mode).

    Rule: do not use torch.optim.lr_scheduler.ReduceLROnPlateau.

    >>> param = torch.zeros(2, requires_grad=True)
    >>> optimizer = torch.optim.SGD([param], lr=1.0)
    >>> scheduler = PlateauLR(optimizer, factor=0.5, patience=1)
    >>> lrs = []
    >>> for val_loss in [3.0, 2.0, 2.5, 2.5, 2.2, 2.1, 1.0]:
    ...     scheduler.step(val_loss)
    ...     lrs.append(optimizer.param_groups[0]["lr"])
    >>> lrs  # two epochs without a new best, then a cut; again at 2.1
    [1.0, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: float = 0.0,
        eps: float = 1e-8,
    ) -> None:
        # TODO: check and store the settings; set up the best value and the counters.
        raise NotImplementedError

    def step(self, metric: float | torch.Tensor) -> None:
        """Take one epoch's metric and cut the lrs if the plateau has lasted too long."""
        # TODO: improvement check, cooldown, then the cut, in that order.
        raise NotImplementedError
