"""Wrong: zeros the gradients before checking accum_steps, so a refused call still wipes
the caller's gradients."""

import torch.nn.functional as F

from solutions.q36_grad_accumulation import train_accumulated as _reference


def train_accumulated(model, batches, optimizer, accum_steps, loss_fn=F.mse_loss):
    optimizer.zero_grad()
    return _reference(model, batches, optimizer, accum_steps, loss_fn)
