"""Wrong: keeps the heads in a plain dict, so only the trunk is registered and trained."""

from torch import nn

from solutions.q10_containers import ResidualStack, make_mlp  # the rest as in the reference


class MultiHead(nn.Module):
    def __init__(self, in_features, hidden, heads):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = {name: nn.Linear(hidden, n) for name, n in heads.items()}

    def forward(self, x):
        features = self.trunk(x)
        return {name: head(features) for name, head in self.heads.items()}
