"""cross_entropy runs an online (streaming) log-sum-exp over the class columns, a
running max and a rescaled running sum as flash attention keeps them; distillation_loss is
F.kl_div with log_target=True plus F.cross_entropy."""

import math

import torch
import torch.nn.functional as F


def _online_logsumexp_parts(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row: the max m and s = sum(exp(x - m)), streamed column by column."""
    n, c = logits.shape
    m = torch.full((n,), -math.inf, dtype=logits.dtype, device=logits.device)
    s = torch.zeros((n,), dtype=logits.dtype, device=logits.device)
    for j in range(c):
        column = logits[:, j]
        new_m = torch.maximum(m, column)
        # The old sum is rescaled to the new max; every exponent stays <= 0.
        s = s * torch.exp(m - new_m) + torch.exp(column - new_m)
        m = new_m
    return m, s


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
    n, c = logits.shape
    if tuple(target.shape) != (n,):
        raise ValueError("target must have shape [N]")
    if target.dtype != torch.int64:
        raise ValueError("target must be int64")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction {reduction!r}")
    if math.isnan(label_smoothing) or not 0 <= label_smoothing <= 1:
        raise ValueError("label_smoothing must lie in [0, 1]")
    if weight is not None and tuple(weight.shape) != (c,):
        raise ValueError("weight must have shape [C]")

    m, s = _online_logsumexp_parts(logits)
    log_p = (logits - m.unsqueeze(1)) - s.log().unsqueeze(1)

    keep = target != ignore_index
    index = torch.where(keep, target, torch.zeros_like(target))
    w_y = logits.new_ones(n) if weight is None else weight.index_select(0, index)
    eps = label_smoothing
    loss = logits.new_zeros(n)
    if eps < 1:
        loss = loss - (1 - eps) * w_y * log_p.gather(1, index.unsqueeze(1)).squeeze(1)
    if eps > 0:
        weighted = log_p if weight is None else log_p * weight
        loss = loss - eps * weighted.mean(dim=1)
    loss = torch.where(keep, loss, logits.new_zeros(()))

    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / torch.where(keep, w_y, logits.new_zeros(())).sum()


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
        raise ValueError("teacher_logits and student_logits differ in shape")
    if target.shape != (student_logits.shape[0],):
        raise ValueError("target must have shape [N]")
    if not math.isfinite(temperature) or temperature <= 0:
        raise ValueError("temperature must be a finite number > 0")
    if not (alpha >= 0 and alpha <= 1):
        raise ValueError("alpha must be in [0, 1]")
    log_q = F.log_softmax(student_logits / temperature, dim=-1)
    with torch.no_grad():  # the teacher is a fixed target
        log_p = F.log_softmax(teacher_logits / temperature, dim=-1)
    soft = F.kl_div(log_q, log_p, reduction="batchmean", log_target=True)
    hard = F.cross_entropy(student_logits, target)
    return alpha * temperature**2 * soft + (1 - alpha) * hard
