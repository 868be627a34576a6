"""Wrong: sets each model tensor's .data to the checkpoint's tensor (moved to the model's
device), so the model takes the checkpoint's dtype instead of keeping its own."""

import torch

from solutions.q27_state_dict import buffer_keys, count_parameters


def load_checkpoint(model, state_dict):
    if state_dict and all(key.startswith("module.") for key in state_dict):
        state_dict = {key.removeprefix("module."): value for key, value in state_dict.items()}
    own = model.state_dict(keep_vars=True)
    missing, unexpected = own.keys() - state_dict.keys(), state_dict.keys() - own.keys()
    if missing or unexpected:
        raise RuntimeError(f"missing keys {sorted(missing)}, unexpected keys {sorted(unexpected)}")
    with torch.no_grad():
        for key, tensor in own.items():
            value = state_dict[key]
            if value.shape != tensor.shape:
                raise RuntimeError(f"size mismatch for {key}")
            tensor.data = value.to(tensor.device)
    return model
