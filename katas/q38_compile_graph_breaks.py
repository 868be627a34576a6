"""Kata 38: what torch.compile does, and what makes it fast or slow.

`torch.compile(fn)` returns a function that, on its first call, lets TorchDynamo read fn's
Python bytecode and capture the tensor operations it runs as a graph, together with *guards*:
the facts the graph assumes (dtypes, devices, shapes, Python values it read). A backend turns
the graph into code: inductor (the default) fuses chains of operations into a few kernels
(Triton on GPUs, C++ on the CPU), so intermediate results stay in registers instead of
making a round trip through memory, fewer kernels are launched, and Python runs once per
graph instead of once per operation. Later calls whose inputs pass the guards reuse it.

What costs speed:
- *Graph breaks*: whatever Dynamo cannot put in a graph (`.item()`, `print`, a Python `if`
  on a tensor's value) ends the graph; the code runs in Python and a new graph starts.
  `torch.compile(fn, fullgraph=True)` refuses them outright.
- *Recompiles*: an input that fails the guards (a new shape, dtype or device) compiles again.
  With `dynamic=False` every new shape is a new graph; by default (`dynamic=None`) the first
  graph is specialised to the first shapes and the first new size recompiles with that size
  as a symbol; `dynamic=True` traces sizes as symbols from the start. After 8 recompiles of a
  function (`recompile_limit`) Dynamo gives up and runs it eagerly.
- *Compile time*: seconds on the first call (minutes with autotuning), so a timing that
  includes it measures the compiler: warm up first. And an accelerator runs kernels after the
  call that queues them has returned: synchronise before reading the clock.

Modes (`torch.compile(fn, mode=...)`) trade compile time and memory for speed:
- "default": fused kernels; moderate compile time, no extra memory.
- "reduce-overhead": also CUDA graphs, which record the kernel launches once and replay them
  with one call: for small batches where launching, not computing, takes the time. Costs
  memory (its own buffers and pool), needs the same shapes on every call (a new shape records
  a new graph), CUDA only.
- "max-autotune": also benchmarks many kernel variants for each matrix product and picks the
  fastest (CUDA graphs too, on a GPU): the fastest code, after a compile of minutes.
- "max-autotune-no-cudagraphs": the autotuning without CUDA graphs.

Task: count graphs with a backend of your own (`count_compilations`), compile once for every
batch size (`compile_for_varying_batch`), choose a mode (`choose_mode`), time with warm-up and
synchronisation (`median_time`), and rewrite a function without graph breaks:

    def clipped_residual_eager(x, weight, max_norm=1.0):
        h = x @ weight
        norm = torch.linalg.vector_norm(h)
        print(f"activation norm {norm.item():.3f}")   # .item() and print: graph breaks
        if norm > max_norm:                            # Python `if` on a tensor: a break
            h = h * (max_norm / norm)
        return x + torch.relu(h)

Rule for the whole kata: torch's public API only (`torch.compile`, `torch.compiler`), not
`torch._dynamo` however it is reached: its functions (`mark_dynamic` and the like) are
refused when called, and a tensor the caller passes must not be marked. Nor may an answer
change a process-wide setting (`torch.compiler.config`, Dynamo's or Inductor's config) for
the caller: `torch.compile`'s own arguments say what a compile needs.
"""

import time
from collections.abc import Callable, Sequence

import torch


def count_compilations(
    fn: Callable[..., object], calls: Sequence[tuple[object, ...]], *, dynamic: bool | None = None
) -> int:
    """How many graphs `torch.compile(fn, dynamic=dynamic)` compiles over a series of calls.

    - Compiles fn with a backend of your own that counts the graphs Dynamo hands it: a
      backend is any callable `(gm, example_inputs) -> callable` (hint: return `gm.forward`,
      which runs the graph as it is, with no code generation). Passes `dynamic` on.
    - Calls the compiled function once with each argument tuple of `calls`, in order (fn runs
      once per call, on the caller's own arguments and in the caller's grad mode: its side
      effects happen, an in-place change to an argument and a backward() included), and
      returns the number of graphs compiled: a graph break adds one, and so does each
      recompile.
    - Counts what torch.compile does under the caller's settings: after `recompile_limit`
      recompiles (as the caller set it) Dynamo stops compiling, and the count stops there.
    - Starts clean: graphs compiled, and shapes seen, before the call do not count. Rule: call
      `torch.compiler.reset()` first (Dynamo keeps them on fn's code, not on one wrapper).

    >>> def double(x):
    ...     return x * 2
    >>> calls = [(torch.ones(2),), (torch.ones(3),), (torch.ones(4),)]
    >>> [count_compilations(double, calls, dynamic=d) for d in (False, None, True)]
    [3, 2, 1]
    """
    # TODO: a counting backend, torch.compiler.reset(), torch.compile(..., backend=, dynamic=).
    raise NotImplementedError


def compile_for_varying_batch(
    fn: Callable[..., object], *, backend: str | Callable = "inductor"
) -> Callable[..., object]:
    """fn compiled (with `backend`) so that a new batch size does not recompile it.

    - Returns a callable that computes what fn computes, taking what fn takes (positional
      and keyword arguments). Called with tensors whose first
      dimension (the batch) changes from call to call, every size from 2 up, the other
      dimensions fixed, it compiles one graph in all, from its first call on; never one per
      batch size, nor a second one at the first new size.
    - Sizes 0 and 1 are specialised whatever you ask (a size-1 dimension broadcasts), so a
      batch of 1 may compile once more: not part of the contract.
    - Compiles lazily, as torch.compile does: nothing before the first call. Leaves the
      caller's other compiled functions as they are: no `torch.compiler.reset()`, which
      throws away every function's compiled code in the process.
    - fn may have graph breaks: they split it into several graphs, as torch.compile does by
      default (no fullgraph=True), and none of those recompiles at a new batch size.
    - `backend` is passed on to torch.compile as given, a name ("eager", "aot_eager", ...)
      or a callable.

    >>> compiled = compile_for_varying_batch(torch.sin, backend="eager")
    >>> [tuple(compiled(torch.zeros(n, 3)).shape) for n in (2, 5)]
    [(2, 3), (5, 3)]
    """
    # TODO: torch.compile with the dynamic-shape setting that needs no second compile.
    raise NotImplementedError


def choose_mode(*, launch_bound: bool, static_shapes: bool, long_running: bool) -> str:
    """The `torch.compile` mode for a job, from the trade-offs in the module docstring.

    - launch_bound: small kernels, where launching them takes longer than running them (a
      batch of a few samples, one token at a time).
    - static_shapes: every call has the same input shapes.
    - long_running: the job runs for hours or serves for days, so minutes of compile time pay
      for themselves; otherwise it does not.
    - Returns one of "default", "reduce-overhead", "max-autotune",
      "max-autotune-no-cudagraphs":
      - a long-running job autotunes; with CUDA graphs only when its shapes are static;
      - otherwise, CUDA graphs alone ("reduce-overhead") for a launch-bound job with static
        shapes; every other job compiles in the "default" mode.

    >>> choose_mode(launch_bound=False, static_shapes=False, long_running=False)
    'default'
    """
    # TODO: which modes use CUDA graphs, which autotune, and what each needs.
    raise NotImplementedError


def median_time(
    fn: Callable[..., object],
    *args: object,
    warmup: int = 3,
    repeats: int = 10,
    synchronize: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """The median time of `fn(*args)` in seconds, measured after warm-up calls.

    - Calls fn(*args) exactly `warmup + repeats` times: first `warmup` untimed calls (the
      first call of a compiled function compiles it), then `repeats` timed ones, each timed
      on its own with `clock` (seconds). Returns the median of those `repeats` times (for an
      even count, the mean of the two middle ones, as statistics.median).
    - Rule: between a call of fn and the next clock reading, call `synchronize()`, so that
      no clock reading comes before the work queued on the device has finished (the
      warm-up's included). Between two warm-up calls no clock is read: one synchronize()
      after the last warm-up call is enough, and one after each warm-up call is correct
      too. synchronize=None means `torch.accelerator.synchronize` when
      `torch.accelerator.is_available()`, and nothing without an accelerator (CPU
      operations have finished when they return).
    - The defaults are part of the contract: 3 warm-up calls, 10 timed ones, and the wall
      clock `time.perf_counter` (a process-time clock leaves out the time spent waiting).
    - warmup >= 0 is a precondition (a negative count is not tested); repeats < 1 raises
      ValueError before fn is called or the clock read. The result is a float where clock
      returns floats.

    >>> ticks = iter(range(100))  # a clock that advances by 1.0 at each reading
    >>> work = torch.ones(3)
    >>> median_time(work.sum, warmup=1, repeats=3, synchronize=torch.cpu.synchronize,
    ...             clock=lambda: float(next(ticks)))
    1.0
    """
    # TODO: warm up, then time each call between two synchronised clock readings.
    raise NotImplementedError


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """`clipped_residual_eager` (see the module docstring) rewritten without graph breaks.

    - x: (B, D) floating tensor; weight: (D, D), same dtype and device; max_norm > 0, a
      Python float that may be inf or more than x's dtype can hold (then h is never scaled).
    - Let h = x @ weight and norm = its 2-norm over all of h. If norm > max_norm, h is
      scaled by max_norm / norm; otherwise (norm == max_norm included, and a nan norm, which
      is not > max_norm) h is left as it is. Rule: the comparison is eager's `norm > max_norm`,
      with norm in x's dtype and max_norm rounded to it (in float16 a max_norm of 0.99995 is
      1.0): no wider norm (`dtype=float32`) nor a comparison in float64, whose answer differs
      from eager's where the two roundings fall on either side of max_norm.
    - Returns (out, norm): out = x + relu(h), shape (B, D), with x's dtype and device; and
      norm, the 0-dim norm of h before any scaling, with x's dtype (as vector_norm returns
      it, float16 for float16), returned instead of printed so the caller can log it
      outside the compiled code.
    - Values and gradients (for x and weight) equal those of the eager version wherever
      h is not zero: when h is scaled, gradients flow through norm as they do there; when
      it is not (also at norm == max_norm exactly), no gradient flows through norm. That
      holds for a tiny non-zero h too (a norm of 1e-4 in float16), where max_norm / norm
      and its gradient overflow: keep them out of the backward pass wherever h is not scaled.

    Rules: no `.item()` or `.tolist()`, no `print`, no Python `if` or loop on a tensor's
    value, however the function is run (eagerly too, not only while compiling):
    `torch.compile(clipped_residual, fullgraph=True)` compiles it into one graph.
    `torch.cond` is allowed; the simulated device `sim` cannot run it (it traces its
    branches with Dynamo even eagerly), so such an answer is checked on the CPU and CUDA.
    The norm with `torch.linalg.vector_norm` (the returned norm is what it computed, not
    a sum of squares by hand), not the deprecated `torch.norm` (nor `Tensor.norm`, which
    calls it) nor `torch.linalg.norm` / `matrix_norm`. Do not decorate
    the function with torch.compile: the caller compiles it.

    >>> x, weight = torch.ones(2, 3), torch.eye(3)
    >>> out, norm = clipped_residual(x, weight, max_norm=1.0)
    >>> round(norm.item(), 4), out[0]  # h was scaled down to norm 1
    (2.4495, tensor([1.4082, 1.4082, 1.4082]))
    """
    # TODO: compute the scale with tensor operations (no Python branch) and return the norm.
    raise NotImplementedError
