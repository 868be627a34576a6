"""Wrong: records the lr after scheduler.step(), i.e. the next step's lr, not the one used."""

from solutions.q15_warmup_cosine import (  # the rest as in the reference
    warmup_cosine_factor,
    warmup_cosine_scheduler,
)


def train_with_schedule(model, batches, loss_fn, optimizer, scheduler):
    lrs = []
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss_fn(model(inputs), targets).backward()
        optimizer.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
    return lrs
