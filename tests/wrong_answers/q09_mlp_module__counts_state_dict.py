"""Wrong: counts the entries of state_dict(), which include buffers (BatchNorm running
stats) and list a tied weight under each name, and ignores trainable_only."""

from torch import nn

from solutions.q09_mlp_module import MLP  # the rest as in the reference


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    return sum(t.numel() for t in model.state_dict().values())
