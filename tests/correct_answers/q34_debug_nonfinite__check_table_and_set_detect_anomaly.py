"""Correct: the batch checks as an ordered table of lazy (test, error) pairs, outputs
flattened by a recursive generator, the hooks kept in a dict, and anomaly detection switched
with set_detect_anomaly as a context manager."""

import torch
import torch.nn.functional as F


def _tensors(output):
    if isinstance(output, torch.Tensor):
        yield output
    elif isinstance(output, dict):
        for value in output.values():
            yield from _tensors(value)
    elif isinstance(output, (list, tuple)):
        for value in output:
            yield from _tensors(value)


def first_nonfinite_module(model, x):
    culprits = []

    def watcher(name):
        def hook(module, args, output):
            if not culprits and any(not bool(t.isfinite().all()) for t in _tensors(output)):
                culprits.append(name)

        return hook

    handles = {name: m.register_forward_hook(watcher(name)) for name, m in model.named_modules()}
    try:
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles.values():
            handle.remove()
    return culprits[0] if culprits else None


def _nonfinite_message(inputs):
    found = [
        word for word, test in (("NaN", torch.isnan), ("inf", torch.isinf)) if test(inputs).any()
    ]
    return "inputs hold " + " and ".join(found) if found else None


def validate_batch(inputs, labels, num_classes, feature_shape):
    feature_shape = tuple(feature_shape)
    checks = [
        (
            lambda: not inputs.is_floating_point(),
            lambda: TypeError(f"inputs must be floating point, got {inputs.dtype}"),
        ),
        (
            lambda: (
                inputs.dim() != 1 + len(feature_shape) or tuple(inputs.shape[1:]) != feature_shape
            ),
            lambda: ValueError(
                f"inputs must have shape (B, *{feature_shape}), got shape {tuple(inputs.shape)}"
            ),
        ),
        (lambda: inputs.shape[0] == 0, lambda: ValueError("inputs: the batch is empty")),
        (
            lambda: labels.dtype != torch.int64,
            lambda: TypeError(f"labels must be int64 class indices, got {labels.dtype}"),
        ),
        (
            lambda: tuple(labels.shape) != (inputs.shape[0],),
            lambda: ValueError(
                f"labels must have shape ({inputs.shape[0]},), got shape {tuple(labels.shape)}"
            ),
        ),
        (
            lambda: _nonfinite_message(inputs) is not None,
            lambda: ValueError(_nonfinite_message(inputs)),
        ),
        (
            lambda: bool(((labels < 0) | (labels >= num_classes)).any()),
            lambda: ValueError(
                f"labels must be class indices in [0, {num_classes}), found "
                f"{labels[(labels < 0) | (labels >= num_classes)][0].item()}"
            ),
        ),
    ]
    for failed, error in checks:
        if failed():
            raise error()


def overfit_one_batch(model, inputs, targets, steps=50, lr=0.5):
    if steps == 0:
        return []
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=False)
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses


def nan_born_in_backward(compute_loss):
    with torch.autograd.set_detect_anomaly(True, check_nan=True):
        loss = compute_loss()
        if not bool(loss.detach().isfinite().all()):
            raise ValueError(f"the loss is already {loss.item()}: the forward pass made it")
        try:
            loss.backward()
        except RuntimeError as error:
            text = str(error)
            if text.startswith("Function '") and "returned nan values" in text:
                return text.split("'")[1]
            raise
    return None
