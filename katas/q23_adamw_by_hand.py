"""Kata 23: one Adam/AdamW step by hand: moments, bias correction, and where weight decay goes.

SGD moves every parameter by lr times its gradient. Adam gives each parameter element its
own step size: it keeps running averages of the gradient (first moment m) and of its
square (second moment v) and steps along m / sqrt(v), so an element with large, noisy
gradients takes small steps and one with small, steady gradients takes larger ones. Both
averages start at 0, which biases them towards 0 in the first steps; dividing by
1 - beta^step undoes that ("bias correction").

Weight decay is where Adam and AdamW differ:
- Adam with L2 (torch.optim.Adam's weight_decay) adds weight_decay * p to the gradient,
  so the decay is divided by sqrt(v) like the rest: parameters with large gradients are
  barely decayed;
- AdamW decouples it: p <- p * (1 - lr * weight_decay) directly, outside the adaptive
  scaling, so every parameter decays at the same rate. That is the better regulariser,
  and the reason AdamW is the default for training transformers.

One step, for each parameter p with gradient g (t = step, counted from 1):

    if decoupled: p = p * (1 - lr * weight_decay)          (AdamW)
    else:         g = g + weight_decay * p                 (Adam with L2)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    p = p - lr * (m / (1 - beta1**t)) / (sqrt(v / (1 - beta2**t)) + eps)

Task: write that step as a function over lists of tensors whose state (m, v and the step
count) the caller keeps, as torch.optim's functional optimizers do.
"""

from collections.abc import Sequence

import torch


def adamw_step_(
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    exp_avgs: Sequence[torch.Tensor],
    exp_avg_sqs: Sequence[torch.Tensor],
    step: int,
    *,
    lr: float,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    weight_decay: float = 1e-2,
    decoupled: bool = True,
) -> None:
    """Apply one AdamW step (or, with decoupled=False, one Adam-with-L2 step) in place.

    - params: the tensors to update, in place, in their own memory, which a view of them
      sees (`p.data = ...` is no update in place); typically a model's nn.Parameters, which
      require grad; any shapes (0-dim, empty, non-contiguous included), floating dtypes,
      any device. The four lists may be empty (a group with no tensors): nothing to update.
    - grads: their gradients, same shapes, dtypes and devices; not modified.
    - exp_avgs, exp_avg_sqs: the first and second moments m and v, same shapes; all zeros
      before step 1; updated in place.
    - step: the number of this step, 1 for the first, used for bias correction.
    - lr, betas = (beta1, beta2), eps, weight_decay: as in torch.optim.AdamW.
    - decoupled: True gives torch.optim.AdamW's update, False gives torch.optim.Adam's
      (weight decay added to the gradient); with the same state, step by step, each must
      match its torch optimizer (params and both moments), NaN where it gives NaN (a NaN
      or inf gradient; eps = 0 with a zero gradient): no guard of your own. In float16 a
      gradient above 256 squares past the dtype's range while (1 - beta2) g² fits: the
      torch optimizers keep v finite there (their addcmul_ forms g * g in float32).
    - Records no autograd graph (params stay leaves), not even from grads that require
      grad (as from create_graph=True): the moments record none either; returns None.
    - Raises ValueError if the four lists differ in length, step < 1, lr, eps or
      weight_decay is negative, or a beta is outside [0, 1) (NaN included); it does so
      before updating anything, so no tensor changes.

    Rules: do not use torch.optim.Adam or torch.optim.AdamW, their functional forms
    (torch.optim.adam.adam, torch.optim.adamw.adamw) or the fused kernels inside; use
    torch's public API only, anywhere in the module: private torch names (the multi-tensor
    torch._foreach_lerp_ and the like, torch._C, torch.ops) and names looked up from strings
    are refused, since they reach the optimizer's kernels unseen.

    >>> p, g = torch.tensor([1.0, -2.0]), torch.tensor([0.5, 0.0])
    >>> m, v = torch.zeros(2), torch.zeros(2)
    >>> adamw_step_([p], [g], [m], [v], step=1, lr=0.1, weight_decay=0.5)
    >>> p  # decayed by lr * weight_decay = 5%, and the first Adam step is lr * sign(g)
    tensor([ 0.8500, -1.9000])
    """
    # TODO: validate, then for each parameter: weight decay (decoupled or L2), update both
    # moments in place, bias-correct them and step, all without recording a graph.
    raise NotImplementedError
