"""Wrong: strips the prefix with consume_prefix_in_state_dict_if_present, which renames the
keys of the caller's checkpoint in place."""

from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

from solutions.q27_state_dict import buffer_keys, count_parameters  # the rest as in the reference


def load_checkpoint(model, state_dict):
    consume_prefix_in_state_dict_if_present(state_dict, "module.")
    model.load_state_dict(state_dict)
    return model
