"""One hook function shared by every module, naming it through an id -> name map; a regex over
anomaly detection's message; the loss list built by a comprehension."""

import re
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

_ANOMALY = re.compile(r"Function '([^']+)' returned nan values")


def _has_nonfinite(out: object) -> bool:
    if isinstance(out, torch.Tensor):
        return not bool(torch.isfinite(out).all())
    if isinstance(out, (tuple, list)):
        return any(_has_nonfinite(item) for item in out)
    if isinstance(out, dict):
        return any(_has_nonfinite(item) for item in out.values())
    return False


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    # One hook function shared by every module; it finds the name by the module's identity.
    names = {id(module): name for name, module in model.named_modules()}
    culprit: list[str] = []

    def hook(module: nn.Module, args: object, output: object) -> None:
        if not culprit and _has_nonfinite(output):
            culprit.append(names[id(module)])

    handles = [module.register_forward_hook(hook) for _, module in model.named_modules()]
    try:
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return culprit[0] if culprit else None


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    if not inputs.is_floating_point():
        raise TypeError(f"inputs must be a floating point tensor, got dtype {inputs.dtype}")
    received = tuple(inputs.shape)
    if received[1:] != tuple(feature_shape) or inputs.dim() != len(feature_shape) + 1:
        raise ValueError(
            f"inputs must have shape (B, *{tuple(feature_shape)}), got shape {received}"
        )
    batch = received[0]
    if batch == 0:
        raise ValueError("inputs is an empty batch (B = 0)")
    if labels.dtype != torch.int64:
        raise TypeError(f"labels must be int64 class indices, got dtype {labels.dtype}")
    if tuple(labels.shape) != (batch,):
        raise ValueError(f"labels must have shape ({batch},), got shape {tuple(labels.shape)}")
    found = [
        word
        for word, present in (("NaN", inputs.isnan().any()), ("inf", inputs.isinf().any()))
        if bool(present)
    ]
    if found:
        raise ValueError(f"inputs hold {' and '.join(found)} values")
    outside = labels[(labels < 0) | (labels >= num_classes)]
    if outside.numel():
        raise ValueError(
            f"labels must be class indices in [0, {num_classes}), found {outside[0].item()}"
        )


def overfit_one_batch(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    steps: int = 50,
    lr: float = 0.5,
) -> list[float]:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def one_step() -> float:
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss.item()

    return [one_step() for _ in range(steps)]


def nan_born_in_backward(compute_loss: Callable[[], torch.Tensor]) -> str | None:
    with torch.autograd.detect_anomaly():
        loss = compute_loss()
        if not bool(torch.isfinite(loss).all()):
            raise ValueError(f"the loss is already {loss.item()}: born in the forward pass")
        try:
            loss.backward()
        except RuntimeError as error:
            match = _ANOMALY.search(str(error))
            if match is None:
                raise
            return match.group(1).rsplit("::", 1)[-1]
    return None
