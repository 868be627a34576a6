"""Wrong: counts the values in state_dict(), which adds the buffers (running statistics)
and counts tied weights once per name."""

from solutions.q27_state_dict import buffer_keys, load_checkpoint  # the rest as in the reference


def count_parameters(model, trainable_only=False):
    return sum(
        value.numel()
        for value in model.state_dict(keep_vars=True).values()
        if value.requires_grad or not trainable_only
    )
