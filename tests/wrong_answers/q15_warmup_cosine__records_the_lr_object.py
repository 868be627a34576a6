"""Wrong: records param_groups[0]["lr"] as it is, without float(): with a tensor lr every
entry is the same tensor, which the scheduler then updates in place."""

from solutions.q15_warmup_cosine import warmup_cosine_factor, warmup_cosine_scheduler


def train_with_schedule(model, batches, loss_fn, optimizer, scheduler):
    lrs = []
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss_fn(model(inputs), targets).backward()
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return lrs
