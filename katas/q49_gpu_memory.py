"""Kata 49: GPU memory: what fills it, and activation checkpointing.

Training a model keeps four things in accelerator memory:

- parameters: every weight, in its dtype (4 bytes an element in float32);
- gradients: one `.grad` per parameter, the same size again;
- optimizer state: SGD with momentum keeps one buffer per parameter, Adam two (kata 19);
- activations: the tensors autograd *saves for backward* during the forward pass (a
  matrix product's input, an activation function's output, ...). They grow with the batch
  size and the depth, and they are usually the biggest part: they stay until the backward
  pass has used them.

The saved tensors can be watched: inside `with torch.autograd.graph.saved_tensors_hooks(pack,
unpack):`, autograd hands every tensor it saves to `pack(tensor)` and stores what `pack`
returns; in the backward pass `unpack` gets that back and returns the tensor. Returning the
tensor unchanged from both just observes. This works on every device, the CPU included.

On CUDA, the allocator also counts: `torch.cuda.memory_allocated()` is what tensors hold now,
`torch.cuda.max_memory_allocated()` the highest it has been since the last
`torch.cuda.reset_peak_memory_stats()`. Reset, run one training step, read the peak: that
is the number that must fit in the GPU. (`nvidia-smi` shows more: the caching allocator keeps
freed blocks for reuse, `torch.cuda.memory_reserved()`.) The CPU has no such counter, so the
functions here measure the saved tensors themselves.

Activation checkpointing trades compute for memory: `torch.utils.checkpoint.checkpoint(block,
h, use_reentrant=False)` runs `block` without saving what it computes inside, keeps only
its input, and in the backward pass runs the block's forward again to get the saved tensors
back. Checkpointing each block of a deep stack keeps one tensor per block instead of every
intermediate, for about one more forward pass of compute; the gradients are the same.
`use_reentrant=False` is the variant to use: the older reentrant one gives parameters no
gradient when the block's input does not require grad (a network's first block), and
supports fewer features.

Task: `saved_bytes`, the memory autograd keeps for backward while a function runs, and
`checkpointed_forward`, a stack of blocks run with one checkpoint each.
"""

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn


def saved_bytes(fn: Callable[..., Any], *args: Any) -> int:
    """The bytes of memory that the tensors autograd saves for backward keep alive, while
    `fn(*args)` runs.

    - Rule: run `fn(*args)` once, inside `torch.autograd.graph.saved_tensors_hooks`, and
      observe every tensor packed (pack and unpack return the tensor unchanged: the very
      tensor, not a copy, so fn computes what it would without the hooks). The result
      of `fn` is not returned; its graph is freed with it, and nothing fn saved is kept
      alive once saved_bytes returns.
    - Rule: the result is the total over every storage saved during the call, not the peak
      held at once: a storage saved and freed before fn returns (fn runs a backward pass
      in a loop) still counts. Hint: a freed storage's `id()` and address are reused by the
      next one, so keep the storage object itself, not its id alone.
    - Rule: count memory, not tensors: each distinct storage once, whole
      (`tensor.untyped_storage().nbytes()`). A tensor that two operations save (x * x saves
      x twice) is held once; a view that is saved (a slice at any offset, a transpose) keeps
      its whole storage alive, and shares it with its base. Every view of one storage gives
      the same `tensor.untyped_storage()` object; tell storages apart by that object (on a
      device with memory its `data_ptr()` does too, but on `meta` every data_ptr() is 0).
    - Nothing is saved where nothing requires grad, or under `torch.no_grad()`: 0.
    - Works on any device, `meta` included; saved parameters (a layer's weight, an
      `nn.Parameter` in a product) count too.
    - The hooks are in place only while fn runs, and removed even when fn raises; fn may
      run a backward pass itself, so the saved tensors must come back from unpack.

    >>> x = torch.ones(10, requires_grad=True)
    >>> saved_bytes(torch.sin, x)  # sin saves its input: 10 float32 elements
    40
    >>> saved_bytes(lambda t: t * t, x)  # x saved twice, held once
    40
    """
    # TODO: pack hook recording each storage once; sum their nbytes().
    raise NotImplementedError


def checkpointed_forward(blocks: Sequence[nn.Module], x: torch.Tensor) -> torch.Tensor:
    """`x` through `blocks` in order, each block under its own activation checkpoint.

    - Rule: call every block through
      `torch.utils.checkpoint.checkpoint(block, h, use_reentrant=False)`, one checkpoint per
      block (not one around the whole stack, which would recompute the whole stack at once
      in the backward pass, holding all its activations again).
    - The output and, after `.backward()`, every gradient (parameters and x, when x
      requires grad) equal those of the plain `for block in blocks: h = block(h)`: blocks
      with dropout included (checkpoint restores the random state for the recomputation by
      default; leave `preserve_rng_state` as it is), each block in the mode the caller left
      it in (no .train() or .eval() for the call, even one put back after).
    - In the backward pass each block runs its forward once more, the last block first.
    - x may or may not require grad (a network's input does not). Gradients can be taken
      with `.backward()` or with `torch.autograd.grad` (the reentrant checkpoint supports
      only the first).
    - The blocks are not modified: their parameters' .grad is only added to, by the
      caller's backward pass (gradient accumulation), never cleared by the call.

    >>> blocks = [nn.Sequential(nn.Linear(4, 4), nn.GELU()) for _ in range(3)]
    >>> checkpointed_forward(blocks, torch.randn(2, 4)).shape
    torch.Size([2, 4])
    """
    # TODO: loop over the blocks, each one called through checkpoint(..., use_reentrant=False).
    raise NotImplementedError
