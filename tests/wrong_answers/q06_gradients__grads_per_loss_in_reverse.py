"""Wrong: differentiates the losses last to first, so the last loss's own head keeps its graph."""

import torch

from solutions.q06_gradients import backward_each, grad_of, hessian_vector_product


def grads_per_loss(losses, params):
    last = len(losses) - 1
    grads = [
        torch.autograd.grad(loss, params, retain_graph=index < last)
        for index, loss in enumerate(reversed(losses))
    ]
    return grads[::-1]
