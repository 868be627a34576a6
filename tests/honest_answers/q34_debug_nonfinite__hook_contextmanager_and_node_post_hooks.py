"""Hooks installed by a contextmanager; a generator over nested outputs; the NaN's node named by
post-hooks on every node of the backward graph, anomaly mode raising, no message parsed."""

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F


def _leaf_tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaf_tensors(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaf_tensors(item)


@contextlib.contextmanager
def _forward_hooks(model: nn.Module, make_hook: Callable[[str], Callable]) -> Iterator[None]:
    handles = []
    try:
        for name, module in model.named_modules():
            handles.append(module.register_forward_hook(make_hook(name)))
        yield
    finally:
        for handle in handles:
            handle.remove()


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    culprits: list[str] = []

    def make_hook(name: str) -> Callable:
        def hook(module: nn.Module, args: Any, output: Any) -> None:
            if not culprits and not all(torch.isfinite(t).all() for t in _leaf_tensors(output)):
                culprits.append(name)

        return hook

    with _forward_hooks(model, make_hook), torch.no_grad():
        model(x)
    return culprits[0] if culprits else None


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    if not inputs.is_floating_point():
        raise TypeError(f"inputs must be floating point, got {inputs.dtype}")
    shape = tuple(inputs.shape)
    if inputs.dim() != 1 + len(feature_shape) or shape[1:] != tuple(feature_shape):
        raise ValueError(f"inputs must have shape (B, *{tuple(feature_shape)}), got shape {shape}")
    if shape[0] == 0:
        raise ValueError("inputs is an empty batch: B = 0")
    if labels.dtype != torch.int64:
        raise TypeError(f"labels must be int64 class indices, got {labels.dtype}")
    if tuple(labels.shape) != shape[:1]:
        raise ValueError(f"labels must have shape {shape[:1]}, got shape {tuple(labels.shape)}")
    found = [
        word for word, test in (("NaN", torch.isnan), ("inf", torch.isinf)) if test(inputs).any()
    ]
    if found:
        raise ValueError(f"inputs hold {' and '.join(found)}")
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

    def losses() -> Iterator[float]:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(inputs), targets)
            loss.backward()
            optimizer.step()
            yield loss.item()

    return list(losses())


def _graph(root: Any) -> Iterator[Any]:
    """Every node reachable from root through next_functions, once."""
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        yield node
        stack.extend(child for child, _ in node.next_functions)


def nan_born_in_backward(compute_loss: Callable[[], torch.Tensor]) -> str | None:
    was_on, was_checking = torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()
    torch.autograd.set_detect_anomaly(True, check_nan=True)
    try:
        loss = compute_loss()
        if not torch.isfinite(loss).all():
            raise ValueError(f"the loss is already {loss.item()}: born in the forward pass")
        born: list[str] = []

        def watch(grad_inputs: Any, grad_outputs: Any, node: Any) -> None:
            if not born and any(g is not None and torch.isnan(g).any() for g in grad_inputs):
                born.append(type(node).__name__)

        handles = [
            node.register_hook(lambda gi, go, node=node: watch(gi, go, node))
            for node in _graph(loss.grad_fn)
        ]
        try:
            loss.backward()
        except RuntimeError:
            if not born:
                raise  # not anomaly mode's NaN: someone else's error
            return born[0]
        finally:
            for handle in handles:
                handle.remove()
        return None
    finally:
        torch.autograd.set_detect_anomaly(was_on, check_nan=was_checking)
