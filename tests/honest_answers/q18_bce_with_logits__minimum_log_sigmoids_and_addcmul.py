"""Negative log-sigmoids from torch.minimum against a zero, the shared tail built in place."""

import torch


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if target.size() != logits.size():
        raise ValueError("target and logits must have the same shape")
    if pos_weight is not None:
        joint = torch.broadcast_shapes(logits.shape, pos_weight.shape)
        if len(joint) != logits.dim() or any(a != b for a, b in zip(joint, logits.shape)):
            raise ValueError("pos_weight must broadcast to logits' shape")

    zero = logits.new_zeros(())
    # log1p(exp(-|x|)), shared by both terms; neg_ and exp_ act on fresh tensors only.
    tail = torch.log1p(logits.abs().neg_().exp_())
    neg_log_p = tail - torch.minimum(logits, zero)  # -log sigmoid(x)
    neg_log_q = tail - torch.minimum(-logits, zero)  # -log(1 - sigmoid(x))
    if pos_weight is not None:
        neg_log_p = neg_log_p * pos_weight
    loss = torch.addcmul(neg_log_q - target * neg_log_q, target, neg_log_p)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.mean()
