"""Wrong: runs the losses last to first, so the last loss's own head keeps its graph."""

from solutions.q06_gradients import grad_of, grads_per_loss, hessian_vector_product


def backward_each(losses):
    ordered = list(reversed(losses))
    last = len(ordered) - 1
    for index, loss in enumerate(ordered):
        loss.backward(retain_graph=index < last)
