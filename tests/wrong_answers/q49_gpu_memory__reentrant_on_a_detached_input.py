"""Wrong: the reentrant checkpoint on an input made to require grad, which torch.autograd.grad
cannot go through."""

from torch.utils.checkpoint import checkpoint

from solutions.q49_gpu_memory import saved_bytes  # the rest as in the reference


def checkpointed_forward(blocks, x):
    h = x if x.requires_grad else x.detach().requires_grad_()
    for block in blocks:
        h = checkpoint(block, h, use_reentrant=True)
    return h
