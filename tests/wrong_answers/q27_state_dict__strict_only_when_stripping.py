"""Wrong: loads strictly only a checkpoint whose prefix it stripped; one without the prefix
is loaded with strict=False, so missing and unexpected keys pass silently."""

from solutions.q27_state_dict import buffer_keys, count_parameters


def load_checkpoint(model, state_dict):
    if state_dict and all(key.startswith("module.") for key in state_dict):
        stripped = {key.removeprefix("module."): value for key, value in state_dict.items()}
        model.load_state_dict(stripped, strict=True)
    else:
        model.load_state_dict(state_dict, strict=False)  # "the keys may not all match"
    return model
