"""Wrong: divides each micro-batch's loss by the number of micro-batches, which is the
whole batch's mean only when every micro-batch has the same size."""

import math

from solutions.q06_gradients import grad_of, grads_per_loss, hessian_vector_product


def accumulate_gradients(model, loss_fn, inputs, targets, micro_batch_size):
    if micro_batch_size < 1:
        raise ValueError(f"micro_batch_size must be >= 1, got {micro_batch_size}")
    steps = math.ceil(len(inputs) / micro_batch_size)
    pieces = zip(inputs.split(micro_batch_size), targets.split(micro_batch_size), strict=True)
    for x, t in pieces:
        (loss_fn(model(x), t) / steps).backward()
