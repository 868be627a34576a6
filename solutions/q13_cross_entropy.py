"""Kata 13: cross-entropy from logits (reference answer)."""

import torch

_REDUCTIONS = ("mean", "sum", "none")


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
        raise ValueError(f"logits must be [N, C], got shape {tuple(logits.shape)}")
    if target.shape != logits.shape[:1]:
        raise ValueError(
            f"target must have shape [N] = {tuple(logits.shape[:1])}, got {tuple(target.shape)}"
        )
    if target.dtype != torch.int64:
        raise ValueError(f"target must hold int64 class indices, got {target.dtype}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")
    if weight is not None and weight.shape != logits.shape[1:]:
        raise ValueError(f"weight must have shape [C] = {tuple(logits.shape[1:])}")

    # Shifting a row by a constant does not change its softmax; shifting by the row max
    # makes every exponent <= 0 (no overflow) and one of them exactly 0 (no log of 0).
    # The shift is a constant for autograd, so detach it.
    shifted = logits - logits.amax(dim=1, keepdim=True).detach()
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()

    keep = target != ignore_index
    # An ignored target (such as -100) is not a valid index: gather class 0 there
    # instead and drop that sample's loss below.
    safe_target = torch.where(keep, target, 0)
    nll = -log_probs.gather(1, safe_target.unsqueeze(1)).squeeze(1)
    # Smoothing mixes in the uniform distribution over all C classes: ε * mean(-log p).
    smooth = -log_probs.mean(dim=1)
    if weight is not None:
        # Class weights scale each class's terms: the target's, and every class's in smooth.
        nll = nll * weight[safe_target]
        smooth = -(log_probs * weight).mean(dim=1)
    # A term of weight 0 is left out: where logits differ by more than the dtype's largest
    # value a log-probability is -inf, and 0 * inf would be nan.
    if label_smoothing == 0:
        loss = nll
    elif label_smoothing == 1:
        loss = smooth
    else:
        loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    # torch.where (not a multiplication by the mask) sets the ignored samples to 0.
    loss = torch.where(keep, loss, 0.0)

    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if weight is not None:  # a weighted mean: divide by the weight of the samples that count
        return loss.sum() / torch.where(keep, weight[safe_target], 0).sum()
    # Divide by the samples that count; with none left this is 0/0 = nan, as in PyTorch.
    return loss.sum() / keep.sum()


def distillation_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    target: torch.Tensor,
    *,
    temperature: float = 2.0,
    alpha: float = 0.5,
) -> torch.Tensor:
    if student_logits.dim() != 2:
        raise ValueError(f"student_logits must be [N, C], got {tuple(student_logits.shape)}")
    if teacher_logits.shape != student_logits.shape:
        raise ValueError(
            f"teacher_logits {tuple(teacher_logits.shape)} must have the student's shape "
            f"{tuple(student_logits.shape)}"
        )
    if target.shape != student_logits.shape[:1]:
        raise ValueError(f"target must be [{student_logits.shape[0]}], got {tuple(target.shape)}")
    if not 0 < temperature < float("inf"):  # NaN fails the comparison too
        raise ValueError(f"temperature must be > 0, got {temperature}")
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    # The teacher is a target, not something to train: no gradient goes back into it.
    teacher_log_p = torch.log_softmax(teacher_logits.detach() / temperature, dim=1)
    student_log_q = torch.log_softmax(student_logits / temperature, dim=1)
    # kl_div(input=log q, target=log p) is KL(p || q); batchmean divides by N alone, and
    # log-space targets keep a teacher probability that underflows to 0 from giving nan.
    soft = torch.nn.functional.kl_div(
        student_log_q, teacher_log_p, reduction="batchmean", log_target=True
    )
    hard = torch.nn.functional.cross_entropy(student_logits, target)
    # T² puts the soft term's gradients (which shrink like 1/T²) on the hard term's scale.
    return alpha * temperature**2 * soft + (1 - alpha) * hard
