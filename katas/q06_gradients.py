"""Kata 6: gradients without side effects.

Autograd records the operations applied to tensors that require grad, building a graph
from the inputs to the result. `loss.backward()` walks that graph backwards and *adds*
each gradient into the `.grad` of every leaf it reaches, parameters included.
`torch.autograd.grad(out, inputs)` walks the same graph but *returns* the gradients for
just the inputs you name and leaves every `.grad` alone. With `create_graph=True` the
backward pass is itself recorded, so a gradient can be differentiated again: that is how
second derivatives (Hessian-vector products, gradient penalties) are computed.

That `.backward()` adds rather than overwrites is also a tool: gradient accumulation
runs a batch too large for memory as several micro-batches, one backward pass each, and
steps once (kata 36). And a graph is freed by the backward pass that walks it: to walk it again (two
losses that share one forward pass), the earlier passes ask for `retain_graph=True`, which
keeps every saved tensor in memory until the last.

Task: write `grad_of(f, x)`, the gradient of a scalar function at a point, as a pure
function (no `.grad` anywhere changes), `hessian_vector_product(f, x, v)` with
double backward, and for losses that share one graph `backward_each`, whose gradients
add up in `.grad`, and `grads_per_loss`, each loss's own.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

from collections.abc import Callable, Sequence

import torch


def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """The gradient df/dx of the scalar function `f` at the point `x`.

    - f: takes a tensor shaped like x and returns a 0-dim tensor, built from
      differentiable torch operations; it may use other tensors that require grad
      (for example a model's parameters).
    - x: a floating tensor of any shape (0-dim and empty included, possibly
      non-contiguous), on any device. It may or may not require grad, and may be a leaf
      or the result of earlier operations (a non-leaf); the gradient is taken with
      respect to x itself, not to whatever x was computed from.
    - Returns a tensor with x's shape, dtype and device, detached from any graph
      (no grad_fn, requires_grad False). Where f does not depend on x at all (a constant,
      or a function of other tensors only) the gradient is zeros, not an error.
    - No side effects: the .grad of x, of the tensors x was computed from and of the
      tensors f uses stays exactly what it was (None stays None), a non-leaf x's that
      retains its grad included; x's values and its requires_grad flag do not change, and
      hooks the caller registered on x (`x.register_hook`) do not run.
    - Works when called under `torch.no_grad()` too (for example from an evaluation loop),
      and leaves grad mode as the caller set it (off, there), also when it raises.
    - f is called exactly once: it may have effects of its own (a BatchNorm in it updates
      its running statistics, a dropout draws a mask), which must happen once, and the
      gradient is that of the very value checked.
    - Raises ValueError if f(x) is not a 0-dim tensor (a Python number, or a tensor of
      shape (1,), is not one); x is then left as it was too (its requires_grad flag
      included).

    Rules: no `.backward()`; do not call torch.autograd.functional or torch.func.

    >>> x = torch.tensor([1.0, 2.0, 3.0])
    >>> grad_of(lambda t: (t**2).sum(), x)
    tensor([2., 4., 6.])
    """
    # TODO: compute the gradient with torch.autograd.grad, side-effect free.
    raise NotImplementedError


def hessian_vector_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    """H(x) @ v, where H is the matrix of second derivatives of the scalar `f` at `x`.

    - f and x: as for `grad_of`. v: a tensor with x's shape, dtype and device. Both x
      and v are treated as flattened vectors: the result is
      `sum_j d²f/dx_i dx_j * v_j` for every element i, reshaped like x.
    - Compute it with two backward passes (the first with create_graph=True): the
      gradient of `(grad_of_f(x) * v).sum()` with respect to x. Never build the full
      Hessian.
    - When the gradient of f does not depend on x (f linear in x, or not depending on x
      at all) the result is zeros.
    - Returns a tensor with x's shape, dtype and device, detached from any graph.
    - The same rules on side effects as `grad_of`: no .grad changes, x is unchanged,
      works under `torch.no_grad()` and leaves grad mode as it found it, f is called
      exactly once; ValueError if f(x) is not a 0-dim tensor (x left as it was).

    Rules: no `.backward()`; do not call torch.autograd.functional or torch.func.

    >>> x = torch.tensor([1.0, 2.0])
    >>> hessian_vector_product(lambda t: (t**3).sum(), x, torch.tensor([1.0, 1.0]))
    tensor([ 6., 12.])
    """
    # TODO: differentiate the gradient once more, using create_graph=True.
    raise NotImplementedError


def backward_each(losses: Sequence[torch.Tensor]) -> None:
    """Run `.backward()` on each loss in turn, so that every leaf's `.grad` grows by the sum
    of the losses' gradients.

    - losses: 0-dim tensors that may share one graph (two heads on one trunk), each
      reaching some tensors that require grad.
    - `.grad` adds up, as `.backward()` does: what a leaf held before stays added in (None
      counts as zeros); a leaf reached by one loss only gets that loss's gradient.
    - The passes run in the losses' order, and the shared graph is kept only as long as
      needed: the last pass frees what it walks, the last loss's head and the shared trunk
      (only the earlier passes retain the graph). Afterwards another pass through it raises
      RuntimeError.
    - An empty list changes nothing.

    Rule: one backward pass per loss, in turn. One `.backward()` on the losses' sum (or
    `torch.autograd.backward(losses)`) gives the same `.grad`, but in one pass; calling it
    per loss is what a loop over tasks or micro-batches does, and kata 36 builds on it.

    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> h = w * 3  # a shared trunk
    >>> backward_each([h.sum(), (h**2).sum()])
    >>> w.grad
    tensor([21., 39.])
    """
    # TODO: backward per loss; retain_graph=True on every pass but the last.
    raise NotImplementedError


def grads_per_loss(
    losses: Sequence[torch.Tensor], params: Sequence[torch.Tensor]
) -> list[tuple[torch.Tensor, ...]]:
    """The gradients of each loss with respect to `params`, one tuple per loss, in order.

    - losses: 0-dim tensors that may share one graph (two heads on one trunk, computed by
      one forward pass); one tensor may come more than once in the list. params: tensors
      that require grad, each reached by every loss.
    - Returns a list `[grads of losses[0], grads of losses[1], ...]`, each a tuple (not a
      list) with one tensor per param (its shape, dtype and device), detached from any graph.
    - Each loss's own gradients, never their sum; the forward pass is not run again.
    - No `.grad` changes, of the params or of any other leaf the losses reach (use
      torch.autograd.grad, not `.backward()`).
    - One pass per loss, in the losses' order; the shared graph is kept only as long as
      needed: the last loss's pass frees what it walks, its head and the shared trunk (only
      the earlier passes retain the graph), so the saved tensors' memory is released.
      Afterwards another pass through it raises RuntimeError, as after any backward pass.

    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> h = w * 3  # a shared trunk
    >>> grads_per_loss([h.sum(), (h**2).sum()], [w])
    [(tensor([3., 3.]),), (tensor([18., 36.]),)]
    """
    # TODO: torch.autograd.grad per loss; retain_graph=True on all passes but the last.
    raise NotImplementedError
