"""Kata 44: freeze a pretrained backbone and fine-tune a new head (reference answer)."""

import torch
from torch import nn


class FineTuner(nn.Module):
    def __init__(
        self,
        backbone: nn.Sequential,
        num_features: int,
        num_classes: int,
        train_last_block: bool = False,
    ) -> None:
        super().__init__()
        self.backbone = backbone
        self.train_last_block = train_last_block
        # Build the head where the backbone lives, so that nothing needs moving afterwards.
        reference = next(backbone.parameters())
        self.head = nn.Linear(
            num_features, num_classes, device=reference.device, dtype=reference.dtype
        )
        self._frozen().requires_grad_(False)
        if train_last_block:  # the block may arrive frozen along with the rest
            backbone[-1].requires_grad_(True)
        self.train()  # applies the mode rule right away: the frozen part goes to eval

    def _frozen(self) -> nn.Module:
        # Slicing an nn.Sequential gives a new container holding the same block objects.
        return self.backbone[:-1] if self.train_last_block else self.backbone

    def train(self, mode: bool = True) -> "FineTuner":
        super().train(mode)  # every submodule follows mode (eval() calls train(False))...
        self._frozen().eval()  # ...except the frozen part: its BatchNorm statistics stay put
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


def make_optimizer(
    model: "FineTuner", lr: float, last_block_lr: float | None = None
) -> torch.optim.Optimizer:
    last_block = {id(p) for p in model.backbone[-1].parameters()}
    trainable = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in trainable if id(p) not in last_block], "lr": lr}]
    last = [p for p in trainable if id(p) in last_block]
    if last:  # an unfrozen pretrained block moves more gently than the new head
        groups.append({"params": last, "lr": lr / 10 if last_block_lr is None else last_block_lr})
    return torch.optim.SGD(groups, lr=lr, momentum=0.9)
