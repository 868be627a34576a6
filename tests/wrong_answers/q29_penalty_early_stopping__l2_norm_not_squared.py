"""Wrong: uses the L2 norm ||w|| for the L2 term instead of the sum of squares."""

from solutions.q29_penalty_early_stopping import EarlyStopping  # the rest as in the reference


def weight_penalty(model, l1=0.0, l2=0.0):
    if l1 < 0 or l2 < 0:
        raise ValueError("penalty strengths must be >= 0")
    weights = [p for p in model.parameters() if p.dim() >= 2]
    penalty = weights[0].new_zeros(())
    for w in weights:
        penalty = penalty + l1 * w.abs().sum() + l2 * w.norm()
    return penalty
