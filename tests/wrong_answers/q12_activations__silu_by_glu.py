"""Wrong: takes SiLU from F.glu on two copies of x (a * sigmoid(b) at a = b = x), SiLU under
another name."""

import torch
import torch.nn.functional as F

from solutions.q12_activations import gelu, softplus


def silu(x):
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return F.glu(torch.stack([work, work]), dim=0)[0].to(x.dtype)
