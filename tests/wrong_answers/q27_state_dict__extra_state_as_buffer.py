"""Wrong: lists every state_dict key that is not a parameter, so the `_extra_state` entry of a
module with get_extra_state is taken for a buffer."""

from torch import nn

from solutions.q27_state_dict import (  # the rest as in the reference
    WRAPPER_PREFIX,
    count_parameters,
    load_checkpoint,
)


def buffer_keys(model: nn.Module) -> list[str]:
    # remove_duplicate=False lists a tied parameter under every name, as state_dict does.
    parameter_names = {name for name, _ in model.named_parameters(remove_duplicate=False)}
    return [key for key in model.state_dict() if key not in parameter_names]
