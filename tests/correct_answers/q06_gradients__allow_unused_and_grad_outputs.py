"""Kata 6, another style: allow_unused and None checks, grad_outputs for the HVP."""

import torch


def _leaf_and_value(f, x):
    leaf = x.detach().clone().requires_grad_(True)
    value = f(leaf)
    if not (torch.is_tensor(value) and value.shape == ()):
        raise ValueError("f must return a 0-dim tensor")
    return leaf, value


def _derivative(value, leaf, **options):
    if not value.requires_grad:
        return None
    (got,) = torch.autograd.grad([value], [leaf], allow_unused=True, **options)
    return got


def grad_of(f, x):
    with torch.set_grad_enabled(True):
        leaf, value = _leaf_and_value(f, x)
        got = _derivative(value, leaf)
    return torch.zeros_like(x) if got is None else got


def hessian_vector_product(f, x, v):
    with torch.set_grad_enabled(True):
        leaf, value = _leaf_and_value(f, x)
        first = _derivative(value, leaf, create_graph=True)
        if first is None or not first.requires_grad:
            return torch.zeros_like(x)
        (second,) = torch.autograd.grad(first, leaf, grad_outputs=v, allow_unused=True)
    return torch.zeros_like(x) if second is None else second.detach()


def backward_each(losses):
    for position, loss in enumerate(losses, start=1):
        torch.autograd.backward(loss, retain_graph=position != len(losses))


def grads_per_loss(losses, params):
    params = list(params)
    found = []
    for position, loss in enumerate(losses, start=1):
        keep = position != len(losses)
        found.append(tuple(torch.autograd.grad(loss, params, retain_graph=keep)))
    return found
