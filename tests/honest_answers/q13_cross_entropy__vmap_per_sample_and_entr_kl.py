"""torch.func.vmap over a per-sample loss (max shift, gather, where for the ignored sample);
distillation as cross-entropy minus the teacher's entropy (special.entr, einsum), the hard
term by an nn.CrossEntropyLoss module."""

import math

import torch
from torch import nn
from torch.func import vmap


def _check_reduction(reduction: object) -> str:
    match reduction:
        case "mean" | "sum" | "none":
            return reduction
        case _:
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def cross_entropy(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    weight: torch.Tensor | None = None,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
    reduction: str = "mean",
) -> torch.Tensor:
    if logits.ndim != 2:
        raise ValueError("logits must be 2-D [N, C]")
    n, c = logits.shape
    if target.shape != torch.Size([n]):
        raise ValueError("target must have shape [N]")
    if target.dtype is not torch.long:
        raise ValueError("target must be int64")
    reduction = _check_reduction(reduction)
    if math.isnan(label_smoothing) or label_smoothing < 0 or label_smoothing > 1:
        raise ValueError("label_smoothing must be in [0, 1]")
    if weight is not None and weight.shape != torch.Size([c]):
        raise ValueError("weight must have shape [C]")
    eps = label_smoothing
    w = torch.ones(c, dtype=logits.dtype, device=logits.device) if weight is None else weight

    def one(row: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        keep = y != ignore_index
        y = torch.where(keep, y, torch.zeros_like(y))
        shifted = row - row.max().detach()
        logp = shifted - torch.log(torch.exp(shifted).sum())
        loss = torch.zeros((), dtype=row.dtype, device=row.device)
        if eps < 1:
            idx = y.reshape(1)
            loss = loss - (1 - eps) * (logp.gather(0, idx) * w.gather(0, idx)).squeeze(0)
        if eps > 0:
            loss = loss - eps * (w * logp).mean()
        zero = torch.zeros_like(loss)
        y_weight = w.gather(0, y.reshape(1)).squeeze(0)
        return torch.where(keep, loss, zero), torch.where(keep, y_weight, zero)

    if n == 0:
        losses = logits.sum(dim=1)  # [0], still on logits' graph
        weights = losses.detach()
    else:
        losses, weights = vmap(one)(logits, target)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / weights.sum()


def distillation_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    target: torch.Tensor,
    *,
    temperature: float = 2.0,
    alpha: float = 0.5,
) -> torch.Tensor:
    if student_logits.ndim != 2:
        raise ValueError("student_logits must be 2-D")
    if teacher_logits.shape != student_logits.shape:
        raise ValueError("teacher_logits must match student_logits' shape")
    if target.shape != student_logits.shape[:1]:
        raise ValueError("target must have shape [N]")
    if not (
        isinstance(temperature, (int, float)) and math.isfinite(temperature) and temperature > 0
    ):
        raise ValueError("temperature must be a finite number > 0")
    if not (0 <= alpha <= 1):
        raise ValueError("alpha must be in [0, 1]")
    t = temperature
    with torch.no_grad():
        p = torch.softmax(teacher_logits / t, dim=1)
    log_q = torch.log_softmax(student_logits / t, dim=1)
    # KL(p || q) = H(p, q) - H(p); entr(p) = -p log p is 0 at p = 0.
    cross = -torch.einsum("nc,nc->n", p, log_q)
    entropy = torch.special.entr(p).sum(dim=1)
    kl = (cross - entropy).mean()
    hard = nn.CrossEntropyLoss()(student_logits, target)
    return alpha * t**2 * kl + (1 - alpha) * hard
