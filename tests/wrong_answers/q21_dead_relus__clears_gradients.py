"""Wrong: calls model.zero_grad() afterwards to leave no gradients behind, which wipes the
gradients the caller had accumulated."""

from solutions.q21_dead_relus import dead_relu_fraction as reference


def dead_relu_fraction(model, x):
    fractions = reference(model, x)
    model.zero_grad()
    return fractions
