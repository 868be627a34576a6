"""torch.max(dim).values shift, gather with a clamped index, an if/elif reduction, and the
distillation's hard term through this kata's own cross_entropy; KL by F.kl_div(log_target)."""

import math

import torch
from torch.nn import functional


def cross_entropy(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    weight: torch.Tensor | None = None,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
    reduction: str = "mean",
) -> torch.Tensor:
    if logits.dim() != 2:
        raise ValueError("logits must be 2-D")
    if tuple(target.shape) != (logits.size(0),):
        raise ValueError("target must have shape [N]")
    if target.dtype is not torch.long:
        raise ValueError("target must be int64")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("reduction must be 'mean', 'sum' or 'none'")
    if not (0.0 <= label_smoothing <= 1.0):  # False for NaN too
        raise ValueError("label_smoothing must lie in [0, 1]")
    if weight is not None and tuple(weight.shape) != (logits.size(1),):
        raise ValueError("weight must have shape [C]")

    row_max = torch.max(logits, dim=1, keepdim=True).values
    shifted = logits - row_max
    log_norm = torch.log(torch.sum(torch.exp(shifted), dim=1, keepdim=True))
    log_p = shifted - log_norm

    valid = target.ne(ignore_index)
    safe = target.masked_fill(~valid, 0)
    if weight is not None:
        log_p = log_p * weight.unsqueeze(0)
        sample_weight = weight.gather(0, safe)
    else:
        sample_weight = torch.ones_like(logits[:, 0])

    per_sample = torch.zeros_like(logits[:, 0])
    if label_smoothing != 1.0:
        nll = -log_p.gather(1, safe.unsqueeze(1)).squeeze(1)
        per_sample = per_sample + (1.0 - label_smoothing) * nll
    if label_smoothing != 0.0:
        per_sample = per_sample - label_smoothing * log_p.mean(dim=1)
    per_sample = per_sample.masked_fill(~valid, 0.0)

    if reduction == "none":
        return per_sample
    if reduction == "sum":
        return per_sample.sum()
    denominator = sample_weight.masked_fill(~valid, 0.0).sum()
    return per_sample.sum() / denominator


def distillation_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    target: torch.Tensor,
    *,
    temperature: float = 2.0,
    alpha: float = 0.5,
) -> torch.Tensor:
    if student_logits.dim() != 2 or teacher_logits.shape != student_logits.shape:
        raise ValueError("student and teacher logits must both be [N, C]")
    if target.shape != (student_logits.shape[0],):
        raise ValueError("target must have shape [N]")
    if isinstance(temperature, bool) or not math.isfinite(temperature) or temperature <= 0:
        raise ValueError("temperature must be finite and > 0")
    if math.isnan(alpha) or alpha < 0 or alpha > 1:
        raise ValueError("alpha must be in [0, 1]")

    with torch.no_grad():
        teacher_log_p = functional.log_softmax(teacher_logits / temperature, dim=-1)
    student_log_q = functional.log_softmax(student_logits / temperature, dim=-1)
    kl = functional.kl_div(student_log_q, teacher_log_p, reduction="batchmean", log_target=True)
    hard = cross_entropy(student_logits, target)
    return alpha * temperature**2 * kl + (1 - alpha) * hard
