"""Wrong: removes every "module." in a key with str.replace, which also breaks the keys of
a submodule that is itself called `module`."""

from solutions.q27_state_dict import buffer_keys, count_parameters  # the rest as in the reference


def load_checkpoint(model, state_dict):
    state_dict = {key.replace("module.", ""): value for key, value in state_dict.items()}
    model.load_state_dict(state_dict)
    return model
