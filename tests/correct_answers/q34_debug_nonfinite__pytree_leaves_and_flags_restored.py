"""Correct: one hook function reading names from a dict, pytree flattening of outputs,
set_detect_anomaly with both flags put back in a finally."""

import re

import torch
import torch.nn.functional as F
from torch.utils._pytree import tree_leaves


def first_nonfinite_module(model, x):
    names = {}
    for name, module in model.named_modules():
        names.setdefault(id(module), name)
    culprit = []

    def hook(module, args, output):
        if culprit:
            return
        for leaf in tree_leaves(output):
            if isinstance(leaf, torch.Tensor) and not torch.isfinite(leaf).all():
                culprit.append(names[id(module)])
                return

    handles = []
    try:
        for module in model.modules():
            handles.append(module.register_forward_hook(hook))
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return culprit[0] if culprit else None


def validate_batch(inputs, labels, num_classes, feature_shape):
    if not torch.is_floating_point(inputs):
        raise TypeError(f"inputs: expected a floating dtype, got {inputs.dtype}")
    shape = tuple(inputs.shape)
    if len(shape) != len(feature_shape) + 1 or shape[1:] != tuple(feature_shape):
        raise ValueError(f"inputs have the wrong shape {shape}")
    if shape[0] == 0:
        raise ValueError("empty batch")
    if labels.dtype is not torch.int64:
        raise TypeError(f"labels: expected torch.int64, got {labels.dtype}")
    if tuple(labels.shape) != shape[:1]:
        raise ValueError(f"labels have the wrong shape {tuple(labels.shape)}")
    found = []
    if torch.isnan(inputs).any():
        found.append("NaN")
    if torch.isinf(inputs).any():
        found.append("inf")
    if found:
        raise ValueError(f"inputs hold {' and '.join(found)}")
    outside = (labels < 0) | (labels >= num_classes)
    if outside.any():
        raise ValueError(f"labels out of range: {labels[outside][0].item()}")


def overfit_one_batch(model, inputs, targets, steps=50, lr=0.5):
    if steps == 0:
        return []
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        history.append(float(loss))
    return history


def nan_born_in_backward(compute_loss):
    before = (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    torch.autograd.set_detect_anomaly(True, check_nan=True)
    try:
        loss = compute_loss()
        if not bool(torch.isfinite(loss).all()):
            raise ValueError("the loss is not finite already: the forward made it")
        try:
            loss.backward()
        except RuntimeError as error:
            match = re.search(r"Function '(\w+)' returned nan", str(error))
            if match:
                return match.group(1)
            raise
        return None
    finally:
        torch.autograd.set_detect_anomaly(*before)
