"""Wrong: the reentrant checkpoint, which gives the parameters no gradient when a block's
input does not require grad."""

from torch.utils.checkpoint import checkpoint

from solutions.q49_gpu_memory import saved_bytes  # the rest as in the reference


def checkpointed_forward(blocks, x):
    h = x
    for block in blocks:
        h = checkpoint(block, h, use_reentrant=True)
    return h
