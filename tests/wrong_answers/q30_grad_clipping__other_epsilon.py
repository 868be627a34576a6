"""Wrong: divides by (total_norm + 1e-8), a smaller constant than the 1e-6 torch uses, so tiny
gradients are clipped by a different factor."""

from collections.abc import Iterable

import torch

from solutions.q30_grad_clipping import layer_grad_norms  # the rest as in the reference


@torch.no_grad()
def clip_grad_norm(
    parameters: torch.Tensor | Iterable[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> torch.Tensor:
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    # Materialise once: a generator like model.parameters() can be iterated only once.
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    device = grads[0].device
    norms = torch.stack([torch.linalg.vector_norm(g, norm_type).to(device) for g in grads])
    total_norm = torch.linalg.vector_norm(norms, norm_type)
    if error_if_nonfinite and not torch.isfinite(total_norm):
        raise RuntimeError(
            f"the total norm of order {norm_type} of the gradients is {total_norm.item()}; "
            "pass error_if_nonfinite=False to scale the gradients anyway"
        )
    # One factor for all gradients keeps the step's direction. Multiplying by the clamped
    # factor even when it is 1 avoids a data-dependent `if`, which on a GPU would wait for
    # the norm to reach the CPU.
    clip_coef = torch.clamp(max_norm / (total_norm + 1e-8), max=1.0)
    for g in grads:
        g.mul_(clip_coef.to(g.device))
    return total_norm
