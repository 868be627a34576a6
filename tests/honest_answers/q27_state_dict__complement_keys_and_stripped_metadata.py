"""buffer_keys as a complement (state_dict keys less every parameter name and every
`_extra_state` key of a module that overrides get_extra_state); load_checkpoint builds an
OrderedDict with removeprefix and carries the version records over, their keys stripped too."""

from collections import OrderedDict
from collections.abc import Mapping

import torch
from torch import nn

_EXTRA = "_extra_state"  # the key state_dict gives a module's get_extra_state()


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    params = model.parameters()
    if trainable_only:
        params = filter(lambda p: p.requires_grad, params)
    return sum(map(torch.Tensor.numel, params), 0)


def buffer_keys(model: nn.Module) -> list[str]:
    parameter_names = {name for name, _ in model.named_parameters(remove_duplicate=False)}
    extra_state = {
        f"{prefix}.{_EXTRA}" if prefix else _EXTRA
        for prefix, module in model.named_modules(remove_duplicate=False)
        if type(module).get_extra_state is not nn.Module.get_extra_state
    }
    not_buffers = parameter_names | extra_state
    return [key for key in model.state_dict() if key not in not_buffers]


def _strip(key: str) -> str | None:
    """A version record's key without the wrapper; None for the wrapper's own record."""
    if key.startswith("module."):
        return key.removeprefix("module.")
    return "" if key == "module" else None


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    if not all(key.startswith("module.") for key in state_dict):
        model.load_state_dict(state_dict, strict=True)
        return model
    stripped: OrderedDict[str, torch.Tensor] = OrderedDict(
        (key.removeprefix("module."), value) for key, value in state_dict.items()
    )
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        records = {_strip(key): value for key, value in metadata.items()}
        records.pop(None, None)
        stripped._metadata = records  # type: ignore[attr-defined]
    model.load_state_dict(stripped, strict=True)
    return model
