"""Wrong: retains the graph on the last pass too, so its saved tensors are never freed."""

from solutions.q06_gradients import grad_of, grads_per_loss, hessian_vector_product


def backward_each(losses):
    for loss in losses:
        loss.backward(retain_graph=True)
