"""Wrong: calls self.trunk.forward(x) again for every head, so the trunk computes once per
head (and its forward hooks never see it)."""

from torch import nn

from solutions.q10_containers import ResidualStack, make_mlp


class MultiHead(nn.Module):
    def __init__(self, in_features, hidden, heads):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({name: nn.Linear(hidden, n) for name, n in heads.items()})

    def forward(self, x):
        return {name: head(self.trunk.forward(x)) for name, head in self.heads.items()}
