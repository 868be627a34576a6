"""Wrong: casts the model to the 16-bit dtype instead of using autocast, so the float32
master weights are lost (updates smaller than 16-bit resolution vanish)."""

from solutions.q37_mixed_precision import (  # the rest as in the reference
    amp_dtype,
    make_grad_scaler,
)


def amp_train_step(model, inputs, targets, loss_fn, optimizer, scaler):
    optimizer.zero_grad(set_to_none=True)
    model.to(amp_dtype(inputs.device))
    loss = loss_fn(model(inputs.to(amp_dtype(inputs.device))), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().float()
