"""Correct: the four losses written out in stable forms (Huber without an unselected branch,
cross-entropy from logsumexp, binary cross-entropy from logsigmoid), the contract checked from
tables, and the padded tokens kept out by torch.where over all tokens, without boolean
indexing."""

import torch

_SAME_AS_OUTPUT = {"regression", "regression_with_outliers", "multilabel"}


def _mse(output, target):
    error = output - target
    return (error * error).mean()


def _huber(output, target, delta=1.0):
    # q = min(|e|, delta): loss = q * (|e| - q / 2) is e**2/2 inside delta and
    # delta*(|e| - delta/2) outside, with no unselected branch to overflow.
    size = (output - target).abs()
    q = size.clamp(max=delta)
    return (q * (size - 0.5 * q)).mean()


def _cross_entropy(output, target):
    log_probs = output - output.logsumexp(dim=1, keepdim=True)
    return -log_probs.gather(1, target.unsqueeze(1)).mean()


def _bce_with_logits(output, target):
    # log sigmoid(x) and log sigmoid(-x) = log(1 - sigmoid(x)), both from the logit.
    return -(
        target * torch.nn.functional.logsigmoid(output)
        + (1 - target) * torch.nn.functional.logsigmoid(-output)
    ).mean()


_LOSSES = {
    "regression": _mse,
    "regression_with_outliers": _huber,
    "multiclass": _cross_entropy,
    "multilabel": _bce_with_logits,
}


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    loss = _LOSSES.get(task) if isinstance(task, str) else None
    if loss is None:
        raise ValueError(f"unknown task {task!r}; expected one of {sorted(_LOSSES)}")
    if not torch.is_floating_point(output):
        raise ValueError(f"output must be floating point, got {output.dtype}")
    if task in _SAME_AS_OUTPUT:
        if (target.dtype, tuple(target.shape)) != (output.dtype, tuple(output.shape)):
            raise ValueError(
                f"{task}: target must match output ({output.dtype}, {tuple(output.shape)}), "
                f"got ({target.dtype}, {tuple(target.shape)})"
            )
    else:
        if output.ndim < 2:
            raise ValueError(f"multiclass: logits need a class dim 1, got {tuple(output.shape)}")
        want = output.shape[:1] + output.shape[2:]
        if target.dtype is not torch.long or target.shape != want:
            raise ValueError(
                f"multiclass: target must be int64 of shape {tuple(want)}, "
                f"got {target.dtype} {tuple(target.shape)}"
            )
    return loss(output, target)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.ndim != 3:
        raise ValueError(f"logits must be 3-D [B, T, C], got {logits.ndim}-D")
    batch, steps, classes = logits.shape
    if target.dtype is not torch.long or tuple(target.shape) != (batch, steps):
        raise ValueError(
            f"target must be int64 [{batch}, {steps}], got {target.dtype} {tuple(target.shape)}"
        )
    if mask.dtype is not torch.bool or tuple(mask.shape) != (batch, steps):
        raise ValueError(
            f"mask must be bool [{batch}, {steps}], got {mask.dtype} {tuple(mask.shape)}"
        )
    wide = torch.promote_types(logits.dtype, torch.float32)
    flat_logits = logits.reshape(batch * steps, classes).to(wide)
    flat_mask = mask.reshape(-1)
    # Padded targets may be anything: point them at class 0 (a copy), then drop them.
    flat_target = torch.where(flat_mask, target.reshape(-1), 0)
    log_probs = flat_logits.log_softmax(dim=-1)
    nll = -log_probs.gather(1, flat_target.unsqueeze(1)).squeeze(1)
    # torch.where, not a product: the padded nll may be inf, and inf * 0 is nan.
    total = torch.where(flat_mask, nll, torch.zeros((), dtype=wide, device=nll.device)).sum()
    count = flat_mask.sum().clamp(min=1)
    return (total / count).to(logits.dtype)
