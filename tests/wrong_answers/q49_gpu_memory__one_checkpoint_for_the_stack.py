"""Wrong: one checkpoint around the whole stack, whose backward recomputes every block at
once and holds all their activations again."""

from torch.utils.checkpoint import checkpoint

from solutions.q49_gpu_memory import saved_bytes  # the rest as in the reference


def checkpointed_forward(blocks, x):
    def whole_stack(h):
        for block in blocks:
            h = block(h)
        return h

    return checkpoint(whole_stack, x, use_reentrant=False)
