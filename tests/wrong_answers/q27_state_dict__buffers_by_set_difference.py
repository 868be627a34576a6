"""Wrong: treats every state_dict key missing from dict(model.named_parameters()) as a
buffer, but named_parameters() lists a tied weight under one name only."""

from solutions.q27_state_dict import (  # the rest as in the reference
    count_parameters,
    load_checkpoint,
)


def buffer_keys(model):
    parameters = dict(model.named_parameters())
    return [key for key in model.state_dict() if key not in parameters]
