"""Wrong: steps the scheduler before the optimizer, so the first lr of the schedule is skipped."""

from solutions.q15_warmup_cosine import (  # the rest as in the reference
    warmup_cosine_factor,
    warmup_cosine_scheduler,
)


def train_with_schedule(model, batches, loss_fn, optimizer, scheduler):
    lrs = []
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        scheduler.step()
        lrs.append(float(optimizer.param_groups[0]["lr"]))
        optimizer.step()
    return lrs
