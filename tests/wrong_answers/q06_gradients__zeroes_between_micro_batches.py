"""Wrong: zeroes the gradients before each micro-batch, so only the last one's remains."""

from solutions.q06_gradients import grad_of, grads_per_loss, hessian_vector_product


def accumulate_gradients(model, loss_fn, inputs, targets, micro_batch_size):
    if micro_batch_size < 1:
        raise ValueError(f"micro_batch_size must be >= 1, got {micro_batch_size}")
    total = len(inputs)
    pieces = zip(inputs.split(micro_batch_size), targets.split(micro_batch_size), strict=True)
    for x, t in pieces:
        model.zero_grad()
        (loss_fn(model(x), t) * (len(x) / total)).backward()
