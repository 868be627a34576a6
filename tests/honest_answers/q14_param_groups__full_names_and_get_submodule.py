"""Every full dotted name (no dedup), the owner found by get_submodule."""

import torch
from torch import nn

SPARED_LAYERS = (
    nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm,
    nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d,
    nn.LayerNorm, nn.GroupNorm, nn.RMSNorm, nn.Embedding, nn.EmbeddingBag,
)  # fmt: skip


def _spared(model: nn.Module, full_name: str) -> bool:
    owner_path, _, own_name = full_name.rpartition(".")
    owner = model.get_submodule(owner_path)
    return own_name.endswith("bias") or isinstance(owner, SPARED_LAYERS)


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    verdict: dict[nn.Parameter, bool] = {}
    for full_name, param in model.named_parameters(remove_duplicate=False):
        verdict[param] = verdict.get(param, False) or _spared(model, full_name)
    trainable = [p for p in model.parameters() if p.requires_grad]
    return (
        [p for p in trainable if not verdict[p]],
        [p for p in trainable if verdict[p]],
    )


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    decay, no_decay = decay_groups(model)
    return torch.optim.AdamW(
        [dict(params=decay), dict(params=no_decay, weight_decay=0.0)],
        lr=lr,
        weight_decay=weight_decay,
    )
