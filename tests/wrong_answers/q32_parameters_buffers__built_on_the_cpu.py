"""Wrong: builds the parameter and buffers on the CPU whatever torch's default device is,
unlike torch's own layers."""

import torch
from torch import nn

from solutions.q32_parameters_buffers import CenterAndScale as _Reference


class CenterAndScale(_Reference):
    def __init__(self, num_features, momentum=0.1):
        nn.Module.__init__(self)
        self.num_features = num_features
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features, device="cpu"))
        self.register_buffer("running_mean", torch.zeros(num_features, device="cpu"))
        taper = torch.linspace(1.0, 0.5, num_features, device="cpu")
        self.register_buffer("taper", taper, persistent=False)
