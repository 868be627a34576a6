"""Cross-entropy as a list of the terms whose factor is not 0, class weights defaulting to ones."""

import torch


def cross_entropy(
    logits, target, *, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="mean"
):
    if logits.ndim != 2:
        raise ValueError("logits must be 2-D")
    n, c = logits.shape
    if tuple(target.shape) != (n,) or target.dtype is not torch.int64:
        raise ValueError("target must be int64 of shape [N]")
    if not isinstance(reduction, str) or reduction not in {"mean", "sum", "none"}:
        raise ValueError("bad reduction")
    if not (0.0 <= label_smoothing <= 1.0):
        raise ValueError("bad label_smoothing")
    if weight is not None and tuple(weight.shape) != (c,):
        raise ValueError("bad weight")
    w = torch.ones(c, dtype=logits.dtype, device=logits.device) if weight is None else weight
    top = logits.max(dim=1, keepdim=True).values.detach()
    z = logits - top
    logp = z - torch.log(torch.exp(z).sum(dim=1, keepdim=True))
    valid = target.ne(ignore_index)
    idx = target.masked_fill(~valid, 0)
    terms = []
    if label_smoothing < 1:
        terms.append(-(1 - label_smoothing) * w[idx] * logp.gather(1, idx[:, None])[:, 0])
    if label_smoothing > 0:
        terms.append(-label_smoothing * (logp * w).sum(dim=1) / c)
    per = terms[0] if len(terms) == 1 else terms[0] + terms[1]
    per = torch.where(valid, per, torch.zeros((), dtype=per.dtype, device=per.device))
    if reduction == "none":
        return per
    if reduction == "sum":
        return per.sum()
    denom = torch.where(valid, w[idx], torch.zeros((), dtype=w.dtype, device=w.device)).sum()
    return per.sum() / denom
