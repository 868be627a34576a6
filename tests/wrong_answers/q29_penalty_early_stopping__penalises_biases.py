"""Wrong: penalises every parameter, biases and norm scales/shifts included."""

from solutions.q29_penalty_early_stopping import EarlyStopping  # the rest as in the reference


def weight_penalty(model, l1=0.0, l2=0.0):
    if l1 < 0 or l2 < 0:
        raise ValueError("penalty strengths must be >= 0")
    params = list(model.parameters())
    penalty = params[0].new_zeros(())
    for p in params:
        penalty = penalty + l1 * p.abs().sum() + l2 * p.pow(2).sum()
    return penalty
