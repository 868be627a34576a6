"""Wrong: loads with strict=False, so a checkpoint with missing or unexpected keys loads
"successfully" and leaves part of the model untouched."""

from solutions.q27_state_dict import buffer_keys, count_parameters  # the rest as in the reference


def load_checkpoint(model, state_dict):
    if state_dict and all(key.startswith("module.") for key in state_dict):
        state_dict = {key.removeprefix("module."): value for key, value in state_dict.items()}
    model.load_state_dict(state_dict, strict=False)
    return model
