"""Wrong: a plain .backward() per loss frees the shared graph at the first one, so the next
loss through it fails."""

from solutions.q06_gradients import grad_of, grads_per_loss, hessian_vector_product


def backward_each(losses):
    for loss in losses:
        loss.backward()
