"""The target picked with gather, the smoothing term as an einsum, a match on reduction."""

import math

import torch


def _log_probs(logits: torch.Tensor) -> torch.Tensor:
    # The shift cancels in value and gradient; detaching it keeps the graph small.
    shifted = logits - logits.amax(dim=1, keepdim=True).detach()
    return shifted - shifted.exp().sum(dim=1, keepdim=True).log()


def _validate(
    logits: torch.Tensor,
    target: torch.Tensor,
    weight: torch.Tensor | None,
    label_smoothing: float,
    reduction: str,
) -> None:
    if logits.dim() != 2:
        raise ValueError(f"logits must be [N, C], got shape {tuple(logits.shape)}")
    n, c = logits.shape
    if target.shape != (n,):
        raise ValueError(f"target must have shape [{n}], got {tuple(target.shape)}")
    if target.dtype != torch.int64:
        raise ValueError(f"target must be int64 class indices, got {target.dtype}")
    if not isinstance(reduction, str) or reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if not 0.0 <= label_smoothing <= 1.0:  # False for NaN too
        raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")
    if weight is not None and weight.shape != (c,):
        raise ValueError(f"weight must have shape [{c}], got {tuple(weight.shape)}")


def cross_entropy(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    weight: torch.Tensor | None = None,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
    reduction: str = "mean",
) -> torch.Tensor:
    _validate(logits, target, weight, label_smoothing, reduction)
    classes = logits.shape[1]
    if weight is None:
        weight = torch.ones(classes, dtype=logits.dtype, device=logits.device)
    log_p = _log_probs(logits)
    kept = target != ignore_index
    safe = torch.where(kept, target, torch.zeros_like(target))  # ignored rows pick class 0

    sample_weight = weight.gather(0, safe)
    loss = torch.zeros_like(log_p[:, 0])
    if label_smoothing < 1.0:  # a factor of 0 adds nothing, even against -inf
        picked = log_p.gather(1, safe.unsqueeze(1)).squeeze(1)
        loss = loss - (1.0 - label_smoothing) * sample_weight * picked
    if label_smoothing > 0.0:
        loss = loss - label_smoothing * torch.einsum("nc,c->n", log_p, weight) / classes
    # where, not a product: 0 * inf would be nan, and the gradient there must be 0.
    loss = torch.where(kept, loss, torch.zeros_like(loss))

    match reduction:
        case "none":
            return loss
        case "sum":
            return loss.sum()
        case _:
            total = torch.where(kept, sample_weight, torch.zeros_like(sample_weight)).sum()
            return loss.sum() / total


def distillation_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    target: torch.Tensor,
    *,
    temperature: float = 2.0,
    alpha: float = 0.5,
) -> torch.Tensor:
    if student_logits.dim() != 2:
        raise ValueError("student_logits must be 2-D")
    if teacher_logits.shape != student_logits.shape:
        raise ValueError("teacher_logits must have the student's shape")
    if target.shape != student_logits.shape[:1]:
        raise ValueError("target must be [N]")
    if not (0 < temperature < math.inf):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature}")
    if not (0 <= alpha <= 1):
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    log_p = torch.log_softmax(teacher_logits.detach().div(temperature), dim=1)
    log_q = torch.log_softmax(student_logits.div(temperature), dim=1)
    kl = torch.einsum("nc,nc->", log_p.exp(), log_p - log_q) / student_logits.shape[0]
    hard = cross_entropy(student_logits, target)
    # lerp(hard, soft, alpha) = (1 - alpha) * hard + alpha * soft
    return torch.lerp(hard, kl * temperature**2, alpha)
