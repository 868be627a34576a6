import builtins
import inspect
import statistics
import time

import pytest
import torch
from torch.overrides import TorchFunctionMode

from katas.q38_compile_graph_breaks import (
    choose_mode,
    clipped_residual,
    compile_for_varying_batch,
    count_compilations,
    median_time,
)
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_no_torch_internals,
    built_from,
    check_tensor,
    forbidden_calls,
    raises,
    settings_kept,
    skip_control_flow_on_sim,
    skip_unless_supported,
)


@pytest.fixture
def fresh_dynamo():
    """Dynamo's caches empty before and after the test, so no compiled code (or shape seen)
    carries over from one test to the next."""
    torch.compiler.reset()
    yield
    torch.compiler.reset()


@pytest.fixture(autouse=True)
def torch_cond_off_sim(request):
    """An answer may keep the branch with torch.cond, which the simulated device cannot run:
    its clipped_residual tests run on the CPU and CUDA only (the docstring says so)."""
    name = request.node.name
    if "device" in request.fixturenames and (
        "clipped_residual" in request.function.__code__.co_names or "clipped_residual" in name
    ):
        cpu_args = (torch.ones(2, 3), torch.eye(3), 1.0)
        skip_control_flow_on_sim(request.getfixturevalue("device"), clipped_residual, *cpu_args)


def counted(gm, count):
    """gm.forward, calling count() at each run of the graph."""

    def run(*args):
        count()
        return gm.forward(*args)

    return run


class CountingBackend:
    """A torch.compile backend that runs each graph as captured and counts the graphs, and
    the runs of them (a call run eagerly runs none)."""

    def __init__(self):
        self.graphs = 0
        self.runs = 0

    def __call__(self, gm, example_inputs):
        self.graphs += 1
        return counted(gm, self.ran)

    def ran(self):
        self.runs += 1


# A call that runs fn eagerly compiles nothing and so counts no graph: the returned function
# calling fn itself after the first call, or under torch.compiler.set_stance("eager_on_recompile")
# (no recompile: later sizes run eagerly), or torch.compiler.disable. Each call must run
# compiled code.
EAGER = (
    "of {calls} calls, {runs} ran a compiled graph: every call must run compiled (not fn "
    "itself, not under a stance that runs new sizes eagerly instead of compiling them)"
)


def clipped_residual_eager(x, weight, max_norm=1.0):
    """The eager oracle, as in the kata's docstring, returning the norm instead of printing."""
    h = x @ weight
    norm = torch.linalg.vector_norm(h)
    if norm > max_norm:
        h = h * (max_norm / norm)
    return x + torch.relu(h), norm


def sine_sum(x):
    return (x.sin() * 2).sum(0)


def no_tensor_operation(x):
    return x


def branches_twice(x):
    if x.sum() > 0:  # two Python `if`s on values: two graph breaks, whichever way they go
        x = x * 2
    if x.mean() > 1:
        x = x - 1
    return x + 1


def batches(device, sizes, dtype=torch.float32):
    return [(torch.randn(n, 3, device=device, dtype=dtype),) for n in sizes]


# ---------------------------------------------------------------- count_compilations

# Four batch sizes: one graph per size when specialised; the default compiles a static graph
# first and, at the first new size, one with the size as a symbol, which serves the rest.
RECOMPILES = {False: 4, None: 2, True: 1}


@pytest.mark.parametrize("dynamic", list(RECOMPILES), ids=lambda d: f"dynamic={d}")
def test_count_compilations_counts_a_recompile_per_guard_failure(device, dynamic, fresh_dynamo):
    with settings_kept("count_compilations"):
        got = count_compilations(sine_sum, batches(device, (2, 3, 4, 5)), dynamic=dynamic)
    want = RECOMPILES[dynamic]
    assert got == want and isinstance(got, int), (
        f"4 batch sizes with dynamic={dynamic}: count_compilations returned {got!r}, expected "
        f"{want} (dynamic=False: a graph per size; None: a static graph, then one dynamic at "
        "the first new size; True: one for all). Count the graphs your backend is handed, "
        "and pass `dynamic` on to torch.compile"
    )


def test_count_compilations_counts_graph_breaks_and_guards(device, fresh_dynamo):
    x = torch.randn(5, device=device)
    got = {
        "two graph breaks": count_compilations(branches_twice, [(x,)]),
        "no tensor operation": count_compilations(no_tensor_operation, [(x,)]),
        "the same input twice": count_compilations(sine_sum, [(x,), (x.clone(),)]),
    }
    want = {"two graph breaks": 3, "no tensor operation": 0, "the same input twice": 1}
    assert got == want, (
        f"count_compilations returned {got}, expected {want}: two graph breaks leave three "
        "graphs; a function with no tensor operation makes none; a second call whose input "
        "passes the guards reuses the graph"
    )
    assert_no_torch_internals(
        count_compilations,
        reason="torch.compile with a backend of your own, torch.compiler.reset, dynamic=",
    )


def test_count_compilations_recompiles_for_a_new_dtype_even_when_dynamic(device, fresh_dynamo):
    skip_unless_supported(device, torch.float64)
    calls = batches(device, (2, 3)) + batches(device, (4,), torch.float64)
    got = count_compilations(sine_sum, calls, dynamic=True)
    assert got == 2, (
        f"float32 batches then a float64 one with dynamic=True: {got} graphs, expected 2 "
        "(dynamic shapes make sizes symbols; a dtype is still guarded)"
    )


def test_count_compilations_starts_clean(device, fresh_dynamo):
    calls = batches(device, (2, 3, 4))
    # Compiled before, by the caller: the shapes seen would make a later count smaller.
    torch.compile(sine_sum, backend="eager")(*calls[0])
    torch.compile(sine_sum, backend="eager")(*calls[1])
    first = count_compilations(sine_sum, calls)
    again = count_compilations(sine_sum, calls)
    assert (first, again) == (2, 2), (
        f"after the caller compiled sine_sum, two counts of its compilations returned {first} "
        f"and {again}, expected 2 each time: call torch.compiler.reset() first, as Dynamo keeps "
        "compiled code and the shapes it has seen on the function's code, not on a wrapper"
    )


def test_count_compilations_counts_under_the_callers_recompile_limit(device, fresh_dynamo):
    # A limit of 2 makes the cut after 2 graphs, as the default of 8 does after 8.
    with torch.compiler.config.patch(recompile_limit=2), settings_kept("count_compilations"):
        got = count_compilations(sine_sum, batches(device, (2, 3, 4, 5)), dynamic=False)
    assert got == 2, (
        f"4 batch sizes with dynamic=False under recompile_limit=2 counted {got} graphs, "
        "expected 2: torch.compile gives up recompiling at the limit the caller set; count "
        "what it compiles, without changing its settings"
    )


def test_count_compilations_keeps_fns_side_effects(device, fresh_dynamo):
    def adds_and_backpropagates(buffer, weight):
        buffer.add_(1)  # an in-place change to the caller's tensor
        (weight * 3).sum().backward()  # needs grad mode on, as the caller has it

    buffer = torch.zeros(3, device=device)
    weight = torch.ones(2, device=device, requires_grad=True)
    count_compilations(adds_and_backpropagates, [(buffer, weight), (buffer, weight)])
    assert_close(
        buffer,
        torch.full((3,), 2.0, device=device),
        "fn adds 1 in place to the caller's tensor at each of 2 calls: pass the caller's "
        "tensors to fn themselves (a backend that copies its inputs loses the change)",
    )
    assert_close(
        weight.grad,
        torch.full((2,), 6.0, device=device),
        "fn calls backward() at each of 2 calls: run it as the caller would (grad mode as "
        "the caller set it)",
    )


def test_count_compilations_keeps_the_callers_no_grad(device, fresh_dynamo):
    kept = []

    def scaled(x, weight):
        out = x * weight
        kept.append(out)
        return out

    weight = torch.ones(3, device=device, requires_grad=True)
    with torch.no_grad():
        count_compilations(scaled, [(torch.ones(3, device=device), weight)])
    assert len(kept) == 1 and not kept[0].requires_grad, (
        "the caller runs count_compilations under torch.no_grad(): fn runs in that mode too "
        "(no torch.enable_grad() of your own), so its result records no graph"
    )


def test_count_compilations_runs_fn_once_per_call(device, fresh_dynamo):
    runs = []

    def records_its_runs(x):
        runs.append(1)
        return x.relu() + 1

    count_compilations(records_its_runs, batches(device, (2, 2, 3)))
    assert len(runs) == 3, f"fn ran {len(runs)} times for 3 calls: call it once per call"


# ---------------------------------------------------------------- compile_for_varying_batch


def linear_relu(x, weight):
    return torch.relu(x @ weight)


# torch._dynamo's functions that mark a tensor's sizes (the private way to make them dynamic),
# refused wherever they are called from, however the answer reaches them.
DYNAMO_MARKS = [
    (module, name)
    for module in (torch._dynamo, torch._dynamo.decorators)
    for name in dir(module)
    if name.startswith(("mark_", "maybe_mark_"))
]


def test_compile_for_varying_batch_compiles_once(device, fresh_dynamo):
    weight = torch.randn(3, 4, device=device)
    backend = CountingBackend()
    inputs = batches(device, (2, 3, 5, 8))
    attributes = [set(vars(x)) for x, *_ in inputs]  # a sim tensor keeps its data in one
    with (
        forbidden_calls(*DYNAMO_MARKS, reason="torch.compile's own dynamic= setting"),
        settings_kept("compile_for_varying_batch and the function it returns"),
    ):
        compiled = compile_for_varying_batch(linear_relu, backend=backend)
        assert backend.graphs == 0, "compile lazily: nothing before the first call"
        outs = [compiled(x, weight=weight) for x, *_ in inputs]  # keywords are passed on too
    assert backend.runs == len(inputs), EAGER.format(calls=len(inputs), runs=backend.runs)
    for (x, *_), out, before in zip(inputs, outs, attributes, strict=True):
        assert_close(out, linear_relu(x, weight), "the compiled function computes what fn does")
        added = sorted(set(vars(x)) - before)
        assert not added, (
            f"the caller's tensor came back with new attributes {added}: torch._dynamo "
            "marked it; use torch.compile's public dynamic= setting, which marks nothing"
        )
    default = inspect.signature(compile_for_varying_batch).parameters["backend"].default
    assert default == "inductor", f"backend defaults to {default!r}, not torch's 'inductor'"
    assert backend.graphs == 1, (
        f"batch sizes 2, 3, 5 and 8 compiled {backend.graphs} graphs, expected 1: the default "
        "(dynamic=None) compiles a static graph and recompiles at the first new size, "
        "dynamic=False at every size; mark sizes dynamic from the first call"
    )


class CountingInductor(torch._TorchCompileInductorWrapper):
    """What torch.compile makes of backend="inductor", counting the graphs it is handed and
    running each as captured: the default checked without Inductor's seconds of codegen."""

    graphs = 0
    runs = 0

    def __init__(self, mode, options, dynamic, name=None):
        self.config, self.dynamic, self.name = {}, dynamic, name

    def __call__(self, gm, example_inputs, **kwargs):
        CountingInductor.graphs += 1
        return counted(gm, CountingInductor.ran)

    @staticmethod
    def ran():
        CountingInductor.runs += 1

    def get_compiler_config(self):
        return {}

    def reset(self):
        pass


def test_compile_for_varying_batch_compiles_with_inductor_by_default(
    device, fresh_dynamo, monkeypatch
):
    monkeypatch.setattr(torch, "_TorchCompileInductorWrapper", CountingInductor)
    monkeypatch.setattr(CountingInductor, "graphs", 0)
    monkeypatch.setattr(CountingInductor, "runs", 0)
    weight = torch.randn(3, 4, device=device)
    compiled = compile_for_varying_batch(linear_relu)
    for x, *_ in batches(device, (2, 3)):
        assert_close(compiled(x, weight), linear_relu(x, weight), "computes what fn does")
    assert CountingInductor.runs == 2, EAGER.format(calls=2, runs=CountingInductor.runs)
    assert CountingInductor.graphs == 1, (
        f"with the default backend, inductor compiled {CountingInductor.graphs} graphs for "
        "batch sizes 2 and 3, expected 1: pass `backend` on to torch.compile as given, "
        "'inductor' included"
    )


# A backend registered under a name of its own (torch has no public registry): a name passed
# on reaches it, where an answer that swaps names for "eager" never does. Cheaper than
# telling "aot_eager" from "eager", which loads AOTAutograd.
NAMED_GRAPHS = []
NAMED_RUNS = []
# torch keeps a registered name for the process: one name per import of this module.
NAMED_BACKEND = f"q38_counting_backend_{id(NAMED_GRAPHS)}"


def named_backend():
    if NAMED_BACKEND not in torch.compiler.list_backends(exclude_tags=None):

        def counts(gm, example_inputs):
            NAMED_GRAPHS.append(gm)
            return counted(gm, lambda: NAMED_RUNS.append(gm))

        torch._dynamo.register_backend(counts, name=NAMED_BACKEND)
    NAMED_GRAPHS.clear()
    NAMED_RUNS.clear()
    return NAMED_BACKEND


def flips_on_its_sum(x, weight):
    h = x @ weight
    if h.sum() > 0:  # a Python `if` on a value: a graph break, so fn is several graphs
        h = -h
    return torch.relu(h)


def test_compile_for_varying_batch_allows_graph_breaks(device, fresh_dynamo):
    weight = torch.rand(3, 4, device=device)  # positive: the `if` goes the same way each time
    compiled = compile_for_varying_batch(flips_on_its_sum, backend=named_backend())
    graphs = []
    for x in (torch.rand(n, 3, device=device) for n in (2, 3)):
        try:
            out = compiled(x, weight)
        except Exception as error:
            reason = str(error).split("\n")[0]
            pytest.fail(
                f"a function with a graph break failed to run compiled: {reason}. fn may have "
                "graph breaks: compile it as torch.compile does by default (not fullgraph=True)"
            )
        assert_close(out, flips_on_its_sum(x, weight), "the compiled function computes fn")
        graphs.append(len(NAMED_GRAPHS))
    assert graphs[0] > 0, (
        f"backend={NAMED_BACKEND!r}: the backend registered under that name compiled no graph; "
        "pass the backend on to torch.compile as given, a name as well as a callable"
    )
    assert graphs[0] > 1 and len(set(graphs)) == 1, (
        f"graphs compiled after each of batch sizes 2 and 3: {graphs}; a graph break splits "
        "fn into graphs compiled at the first call, and none recompiles at a new size"
    )
    runs = len(NAMED_RUNS) // graphs[0]  # each call runs every graph of fn once
    assert len(NAMED_RUNS) == 2 * graphs[0], EAGER.format(calls=2, runs=runs)


# ---------------------------------------------------------------- choose_mode

# (launch_bound, static_shapes, long_running) -> mode, and why.
MODES = {
    (False, False, False): ("default", "nothing to gain from CUDA graphs or autotuning"),
    (False, True, False): ("default", "not launch-bound: CUDA graphs would cost memory for little"),
    (True, False, False): ("default", "CUDA graphs need the same shapes every call"),
    (True, True, False): ("reduce-overhead", "launch-bound with static shapes: CUDA graphs"),
    (False, True, True): ("max-autotune", "a long run pays for autotuning; static shapes"),
    (True, True, True): ("max-autotune", "a long run pays for autotuning; static shapes"),
    (False, False, True): ("max-autotune-no-cudagraphs", "autotune, but shapes change"),
    (True, False, True): ("max-autotune-no-cudagraphs", "autotune, but shapes change"),
}


def situation_id(situation):
    names = ("launch-bound", "static", "long")
    return "-".join(name for name, on in zip(names, situation, strict=True) if on) or "none"


@pytest.mark.parametrize("situation", list(MODES), ids=situation_id)
def test_choose_mode(device, situation):
    launch_bound, static_shapes, long_running = situation
    got = choose_mode(
        launch_bound=launch_bound, static_shapes=static_shapes, long_running=long_running
    )
    want, why = MODES[situation]
    assert got == want, (
        f"launch_bound={launch_bound}, static_shapes={static_shapes}, "
        f"long_running={long_running}: choose_mode returned {got!r}, expected {want!r} ({why})"
    )


# ---------------------------------------------------------------- median_time


class Timeline:
    """A fake clock, a function whose calls advance it, and a synchronize, all recording."""

    def __init__(self, durations, device):
        self.durations = list(durations)
        self.now = 0.0
        self.events = []
        self.x = torch.ones(2, device=device)

    def clock(self):
        self.events.append("clock")
        return self.now

    def synchronize(self, *args):
        self.events.append("sync")

    def fn(self, x):
        assert x is self.x, "call fn with the arguments given"
        self.events.append("call")
        self.now += self.durations.pop(0) if self.durations else 1.0
        return x + 1


def assert_synchronised(events):
    """No clock reading comes after a call of fn without a synchronize in between."""
    pending = False
    for index, event in enumerate(events):
        if event == "call":
            pending = True
        elif event == "sync":
            pending = False
        else:
            assert not pending, (
                f"the clock was read after a call of fn with no synchronize() in between "
                f"(events: {' '.join(events[: index + 1])} ...): on an accelerator the work "
                "queued is not done yet; synchronise after every call of fn (the warm-up's "
                "too) before reading the clock"
            )


# (warmup, repeats, durations of the calls in order, warm-up first)
TIMINGS = {
    "slow-warm-up": (2, 3, [1000.0, 500.0, 1.0, 3.0, 2.0]),
    "even-repeats": (1, 4, [100.0, 4.0, 1.0, 3.0, 10.0]),
    "an-outlier": (0, 5, [2.0, 2.5, 90.0, 1.5, 2.0]),
    "one-timed-call": (3, 1, [9.0, 9.0, 9.0, 0.25]),
    # Times float32 cannot hold: the median is a float64 one, as statistics.median's.
    "fine-times": (1, 4, [5.0, 0.1, 0.3, 0.2, 1e-7]),
}


@pytest.mark.parametrize("case", TIMINGS)
def test_median_time_times_each_call_after_warm_up(device, case):
    warmup, repeats, durations = TIMINGS[case]
    timeline = Timeline(durations, device)
    got = median_time(
        timeline.fn,
        timeline.x,
        warmup=warmup,
        repeats=repeats,
        synchronize=timeline.synchronize,
        clock=timeline.clock,
    )
    calls = timeline.events.count("call")
    assert calls == warmup + repeats, (
        f"fn ran {calls} times with warmup={warmup}, repeats={repeats}: expected {warmup + repeats}"
    )
    want = statistics.median(durations[warmup:])
    assert got == pytest.approx(want, rel=1e-12), (
        f"the timed calls took {durations[warmup:]} (after warm-up calls of "
        f"{durations[:warmup]}): median_time returned {got}, expected their median {want}; "
        "time each call on its own, leave the warm-up calls out, and take the median (the mean "
        "of the two middle times for an even count), not the mean or the lower middle, "
        "in float64 (a float32 tensor's median rounds the times)"
    )


def test_median_time_synchronises_before_reading_the_clock(device):
    timeline = Timeline([5.0] * 5, device)
    median_time(
        timeline.fn,
        timeline.x,
        warmup=2,
        repeats=3,
        synchronize=timeline.synchronize,
        clock=timeline.clock,
    )
    assert_synchronised(timeline.events)


def test_median_time_defaults_to_3_warm_up_and_10_timed_calls(device):
    durations = [50.0, 40.0, 30.0] + [float(n) for n in range(1, 11)]
    timeline = Timeline(durations, device)
    got = median_time(
        timeline.fn, timeline.x, synchronize=timeline.synchronize, clock=timeline.clock
    )
    calls = timeline.events.count("call")
    assert (calls, got) == (13, pytest.approx(5.5)), (
        f"with the default warmup and repeats fn ran {calls} times and median_time returned "
        f"{got}: expected 13 calls (3 warm-up, 10 timed) and the median of the last 10, 5.5"
    )


def test_median_time_defaults_to_the_wall_clock(device):
    # time.sleep waits without running: a process-time clock would measure almost nothing.
    got = median_time(time.sleep, 0.02, warmup=0, repeats=1, synchronize=lambda: None)
    default = inspect.signature(median_time).parameters["clock"].default
    assert default is time.perf_counter, f"clock defaults to {default!r}, not time.perf_counter"
    assert isinstance(got, float) and got >= 0.015, (
        f"a sleep of 20 ms measured {got!r} s with the default clock: the default is the "
        "wall clock time.perf_counter, which counts the time spent waiting"
    )


@pytest.mark.parametrize("available", [True, False], ids=["accelerator", "cpu-only"])
def test_median_time_synchronises_the_accelerator_by_default(device, monkeypatch, available):
    timeline = Timeline([1.0] * 3, device)
    if available:
        synchronize = timeline.synchronize
    else:

        def synchronize(*args):
            raise AssertionError(
                "torch.accelerator.synchronize was called with no accelerator available; "
                "without one there is nothing to wait for (and it raises)"
            )

    monkeypatch.setattr(torch.accelerator, "is_available", lambda: available)
    monkeypatch.setattr(torch.accelerator, "synchronize", synchronize)
    got = median_time(timeline.fn, timeline.x, warmup=1, repeats=2, clock=timeline.clock)
    assert got == pytest.approx(1.0)
    if available:  # synchronize=None: torch.accelerator.synchronize, as the rule asks
        assert_synchronised(timeline.events)


@pytest.mark.parametrize("repeats", [0, -1])
def test_median_time_refuses_no_repeats(device, repeats):
    timeline = Timeline([], device)
    with raises(ValueError):
        median_time(
            timeline.fn,
            timeline.x,
            repeats=repeats,
            synchronize=timeline.synchronize,
            clock=timeline.clock,
        )
    assert not timeline.events, (
        f"median_time called {' '.join(timeline.events)} before refusing repeats={repeats}: "
        "check the arguments first"
    )


def test_compile_for_varying_batch_keeps_the_callers_compiled_code(device, fresh_dynamo):
    backend = CountingBackend()
    callers = torch.compile(lambda t: t.cos() + 1, backend=backend)  # the caller's own
    x = torch.randn(3, 2, device=device)
    callers(x)
    compiled = compile_for_varying_batch(torch.sin, backend="eager")
    compiled(torch.randn(4, 3, device=device))
    callers(x)  # the same input again: its graph is reused, if it is still there
    assert backend.graphs == 1, (
        "the caller's other compiled function compiled again after compile_for_varying_batch: "
        "torch.compiler.reset() throws away every function's compiled code; do not call it"
    )


# ---------------------------------------------------------------- clipped_residual

# (batch, dim, input scale, max_norm): norms far above and far below max_norm, batch 1,
# a non-contiguous x, and an all-zero input (norm 0, never scaled).
CASES = {
    "clipped": (4, 5, 3.0, 1.0),
    "not-clipped": (4, 5, 0.02, 1.0),
    "not-clipped-below-one": (4, 5, 0.005, 0.5),  # unscaled: the scale is 1, not max_norm
    "batch-1-clipped": (1, 3, 2.0, 0.5),
    "large-max-norm": (6, 2, 1.0, 50.0),
    "non-contiguous": (5, 3, 2.0, 1.0),
    "zeros": (3, 4, 0.0, 1.0),
    "exactly-max-norm": (1, 2, 1.0, 5.0),
    "nan-in-one-row": (3, 4, 2.0, 1.0),
}


def inputs_for(case, device):
    batch, dim, scale, max_norm = CASES[case]
    if case == "exactly-max-norm":  # h = x, and its norm is exactly 5 == max_norm
        return torch.tensor([[3.0, 4.0]], device=device), torch.eye(2, device=device), max_norm
    if case == "nan-in-one-row":  # norm is nan, not > max_norm: the other rows stay finite
        x = scale * torch.randn(batch, dim, device=device)
        x[0, 0] = float("nan")
        return x, torch.randn(dim, dim, device=device), max_norm
    if case == "non-contiguous":
        x = scale * torch.randn(dim, batch, device=device).T
    else:
        x = scale * torch.randn(batch, dim, device=device)
    weight = torch.randn(dim, dim, device=device)
    return x, weight, max_norm


def gradients(fn, x, weight, max_norm):
    x, weight = x.clone().requires_grad_(), weight.clone().requires_grad_()
    out, norm = fn(x, weight, max_norm)
    (out.sin().sum() + norm).backward()  # a loss that weights every output differently
    return x.grad, weight.grad


@pytest.mark.parametrize("case", CASES)
def test_values_match_the_eager_version(device, case):
    x, weight, max_norm = inputs_for(case, device)
    x_before = x.clone()
    out, norm = clipped_residual(x, weight, max_norm)
    check_tensor(out, shape=x.shape, dtype=x.dtype, device=device, name="out")
    check_tensor(norm, shape=(), dtype=x.dtype, device=device, name="norm")
    want_out, want_norm = clipped_residual_eager(x_before, weight, max_norm)
    assert_close(
        norm,
        want_norm,
        "norm should be the 2-norm of h over all its elements, before any scaling",
        equal_nan=True,
    )
    assert_close(
        out,
        want_out,
        "out differs from the eager version; scale h by max_norm / norm only when "
        f"norm > max_norm (here {'it is' if want_norm > max_norm else 'it is not'}, "
        "a nan norm included)",
        equal_nan=True,
    )
    assert_close(x, x_before, "x must not be modified", rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize(
    ("dtype", "max_norm"),
    [
        (torch.float32, float("inf")),
        (torch.float16, 1e5),
        (torch.float32, 1e39),
        (torch.float64, float("inf")),
    ],
    ids=str,
)
def test_an_infinite_or_huge_max_norm_never_scales(device, dtype, max_norm):
    # More than the dtype holds: as a tensor of that dtype it is inf, and inf / inf is nan.
    skip_unless_supported(device, dtype)
    x = torch.tensor([[1.0, -2.0, 0.5], [3.0, 1.0, -1.0]], device=device, dtype=dtype)
    weight = torch.eye(3, device=device, dtype=dtype) * 4
    out, norm = clipped_residual(x, weight, max_norm)
    check_tensor(norm, shape=(), dtype=dtype, device=device, name="norm")
    want = x + torch.relu(x @ weight)
    assert_close(
        out, want, f"max_norm={max_norm} in {dtype}: h is never scaled, out is x + relu(h)"
    )
    assert_close(
        gradients(clipped_residual, x, weight, max_norm),
        gradients(clipped_residual_eager, x, weight, max_norm),
        f"max_norm={max_norm} in {dtype}: the gradients equal the eager version's",
    )


def test_norm_has_the_dtype_of_a_half_input(device):
    skip_unless_supported(device, torch.float16)
    x, weight, max_norm = inputs_for("clipped", device)
    x, weight = x.half(), weight.half()
    out, norm = clipped_residual(x, weight, max_norm)
    check_tensor(out, shape=x.shape, dtype=torch.float16, device=device, name="out")
    check_tensor(norm, shape=(), dtype=torch.float16, device=device, name="norm")


def test_max_norm_defaults_to_one(device):
    x, weight, _ = inputs_for("clipped", device)
    out, _ = clipped_residual(x, weight)
    assert_close(out, clipped_residual_eager(x, weight, 1.0)[0], "max_norm defaults to 1.0")


@pytest.mark.parametrize("case", ["clipped", "not-clipped", "exactly-max-norm"])
def test_gradients_match_the_eager_version(device, case):
    x, weight, max_norm = inputs_for(case, device)
    got = gradients(clipped_residual, x, weight, max_norm)
    want = gradients(clipped_residual_eager, x, weight, max_norm)
    for name, grad, expected in zip(("x", "weight"), got, want, strict=True):
        assert_close(
            grad,
            expected,
            f"the gradient for {name} differs from the eager version's; when h is scaled, "
            "gradients flow through norm (do not detach it); when it is not, norm == max_norm "
            "included, none flows through norm (torch.where(norm > max_norm, ...), not a clamp)",
        )


@pytest.mark.parametrize(
    ("dtype", "scale"), [(torch.float16, 1e-4), (torch.float32, 1e-21)], ids=str
)
def test_gradients_are_finite_for_a_small_nonzero_h(device, dtype, scale):
    # max_norm / norm is huge here: even unselected, its gradient (-max_norm / norm**2)
    # overflows, and torch.where sends 0 * inf = nan back through the branch it did not take.
    skip_unless_supported(device, dtype)
    x = (scale * torch.tensor([[1.0, -2.0, 3.0], [2.0, 1.0, -1.0]])).to(device, dtype)
    weight = torch.eye(3, device=device, dtype=dtype)
    got = gradients(clipped_residual, x, weight, 1.0)
    want = gradients(clipped_residual_eager, x, weight, 1.0)
    for name, grad, expected in zip(("x", "weight"), got, want, strict=True):
        assert_close(
            grad,
            expected,
            f"the {dtype} gradient for {name} with a small h (norm about {scale}) differs from "
            "the eager version's: the branch torch.where does not take still backpropagates, "
            "and max_norm / norm's gradient overflows there; divide by a safe value instead "
            "(torch.where(norm > max_norm, norm, max_norm) is max_norm where h is not scaled)",
        )


@pytest.mark.parametrize("case", ["clipped", "not-clipped", "exactly-max-norm"])
def test_float64_values_and_gradients(device, case):
    skip_unless_supported(device, torch.float64)
    x, weight, max_norm = (
        t.double() if torch.is_tensor(t) else t for t in inputs_for(case, device)
    )
    out, norm = clipped_residual(x, weight, max_norm)
    check_tensor(out, shape=x.shape, dtype=torch.float64, device=device, name="out")
    check_tensor(norm, shape=(), dtype=torch.float64, device=device, name="norm")
    want = clipped_residual_eager(x, weight, max_norm)
    assert_close((out, norm), want, "in float64 too, out and norm equal the eager version's")
    assert_close(
        gradients(clipped_residual, x, weight, max_norm),
        gradients(clipped_residual_eager, x, weight, max_norm),
        "in float64 too, the gradients equal the eager version's",
    )


# Half-precision inputs whose norm, rounded to float16, falls on the other side of max_norm
# than the exact one: eager decides in float16 (x: a row of h = x @ eye, max_norm).
ROUNDING = {
    "float16-norm-is-max-norm": ([[0.7461, 0.6660]], 1.0),  # 1.0 in float16, 1.000116 exactly
    "max-norm-rounds-to-the-norm": ([[0.6, 0.8]], 0.99995),  # 1.0 > 1.0 is False in float16
}


@pytest.mark.parametrize("case", ROUNDING)
def test_half_precision_clips_where_eager_does(device, case):
    skip_unless_supported(device, torch.float16)
    row, max_norm = ROUNDING[case]
    x = torch.tensor(row, device=device, dtype=torch.float16)
    weight = torch.eye(2, device=device, dtype=torch.float16)
    want = clipped_residual_eager(x, weight, max_norm)
    assert_close(clipped_residual(x, weight, max_norm), want, f"{case}: out and norm")
    assert_close(
        gradients(clipped_residual, x, weight, max_norm),
        gradients(clipped_residual_eager, x, weight, max_norm),
        f"{case}: the gradients differ from eager's, which compares norm > max_norm in "
        "float16 (norm in x's dtype, max_norm rounded to it): compute and compare as it does",
    )


def test_norm_with_torch_linalg(device):
    x, weight, max_norm = inputs_for("clipped", device)
    with (
        forbidden_calls(
            (torch, "norm"),
            (torch.Tensor, "norm"),
            (torch.linalg, "norm"),
            (torch.linalg, "matrix_norm"),
            reason="torch.norm is deprecated: use torch.linalg.vector_norm",
        ),
        built_from(
            "linalg_vector_norm",
            spelled="torch.linalg.vector_norm",
            reason="the kata asks for the norm from torch.linalg.vector_norm",
        ) as record,
    ):
        _, norm = clipped_residual(x, weight, max_norm)
    record.check(norm)


class NoValuesOut(TorchFunctionMode):
    """Refuses the calls that take a tensor's value into Python: .item(), .tolist(), and the
    bool() or float() of a Python `if` or print. (A mode of torch functions, not forbidden_ops,
    whose dispatch layer cannot run torch.cond, which the kata allows.) Each refusal is
    kept, and fails the block at its end too: code that catches the AssertionError and goes
    on another way where it is refused still called it."""

    def __init__(self):
        super().__init__()
        self.refused = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", None)
        if name in {"item", "tolist", "__bool__", "__float__"}:
            self.refused.append(
                f"clipped_residual called Tensor.{name} when run eagerly: no .item(), "
                ".tolist(), print or Python `if` on a tensor's value, compiled or not"
            )
            raise AssertionError(self.refused[-1])
        return func(*args, **(kwargs or {}))

    def __exit__(self, *exc):
        super().__exit__(*exc)
        if self.refused and exc[0] is None:
            raise AssertionError(self.refused[0])


def test_no_graph_break_when_run_eagerly(device):
    # The rules hold however the function is run: a branch taken only outside compiled code
    # (torch.compiler.is_compiling()) is still an .item(), a print or an `if` on a value.
    x, weight, max_norm = inputs_for("clipped", device)
    reason = "no print or .item() in clipped_residual, compiled or not: return the norm"
    with NoValuesOut(), forbidden_calls((builtins, "print"), reason=reason):
        clipped_residual(x, weight, max_norm)


def test_compiles_into_one_graph_without_breaks(device, fresh_dynamo):
    x, weight, max_norm = inputs_for("clipped", device)
    clipped_residual(x, weight, max_norm)  # runs eagerly first: a stub fails here, clearly
    backend = CountingBackend()
    try:  # fullgraph=True: a graph break is an error, which names its cause
        torch.compile(clipped_residual, backend=backend, fullgraph=True)(x, weight, max_norm)
    except Exception as error:
        reason = str(error).split("\n")[0]
        pytest.fail(
            f"torch.compile(clipped_residual, fullgraph=True) failed: {reason}. Replace .item(), "
            "print and Python `if`s on tensor values with tensor operations"
        )
    assert backend.graphs == 1, f"clipped_residual compiled into {backend.graphs} graphs, not 1"


def test_compiled_agrees_with_eager_values_and_gradients(device, fresh_dynamo):
    clipped_residual(*inputs_for("clipped", device))  # eagerly first: a stub fails here, clearly
    # The counting backend runs Dynamo's captured graph as it is: fullgraph=True still fails
    # on any graph break, and the check costs no code generation (inductor takes seconds).
    compiled = torch.compile(clipped_residual, backend=CountingBackend(), fullgraph=True)
    for case in ("clipped", "not-clipped"):
        x, weight, max_norm = inputs_for(case, device)
        assert_close(
            compiled(x, weight, max_norm),
            clipped_residual_eager(x, weight, max_norm),
            f"compiled output differs from eager ({case})",
        )
        assert_close(
            gradients(compiled, x, weight, max_norm),
            gradients(clipped_residual_eager, x, weight, max_norm),
            f"compiled gradients differ from eager ({case})",
        )


# ---------------------------------------------------------------- facets

# A small non-zero h: below about 0.004 (16-bit) or 5e-20 (float32) its norm's gradient
# in an unselected branch of torch.where is 0 * inf.
TINY = {torch.float16: 1e-3, torch.bfloat16: 1e-3, torch.float32: 1e-21, torch.float64: 1e-160}


def small_inputs(dtype, device):
    x = torch.tensor([[1.0, -2.0, 0.5], [0.25, 1.0, -1.0]], dtype=torch.float64) * TINY[dtype]
    weight = torch.eye(3, dtype=torch.float64) / 2
    return facets.args(
        x.to(dtype=dtype, device=device), weight.to(dtype=dtype, device=device), max_norm=1.0
    )


def clipped_inputs(dtype, device):
    """h = x / 2 of norm 1.4, clipped to a max_norm float32 does not hold."""
    x = torch.tensor([[1.0, -2.0, 0.5], [0.25, 1.0, -1.0]], dtype=dtype, device=device)
    return facets.args(x, torch.eye(3, dtype=dtype, device=device) / 2, max_norm=0.3)


def eager64(x, weight, max_norm):
    h = x @ weight
    norm = torch.linalg.vector_norm(h)
    if norm > max_norm:
        h = h * (max_norm / norm)
    return x + torch.relu(h)


def doubled(x):
    # A function of the caller's to compile: torch.compile of a torch builtin itself (torch.neg)
    # leaves Dynamo in a state that breaks a later torch.cond.
    return x * 2


FACETS = facets.declare(
    facets.of(
        count_compilations,
        # Left out, dynamic is None: a static graph first, then one for every size.
        facets.Defaults(
            lambda device: facets.args(
                doubled, [(torch.ones(n, device=device),) for n in (2, 3, 4)]
            ),
            values={"dynamic": None},
        ),
        facets.Propagates(
            lambda device, fault: facets.args(fault, [(torch.ones(2, device=device),)] * 2)
        ),
    ),
    facets.none(compile_for_varying_batch, "returns a compiled function: its tests call it"),
    facets.none(choose_mode, "a choice between names: no tensor, dtype or device"),
    facets.of(
        median_time,
        # What happens, in order: warm-up calls, then each timed call between clock readings.
        facets.Defaults(
            lambda device: facets.args(
                (timeline := Timeline([], device)).fn,
                timeline.x,
                synchronize=timeline.synchronize,
                clock=timeline.clock,
            ),
            values={"warmup": 3, "repeats": 10},
            key=lambda arguments, result: arguments.args[0].__self__.events,
        ),
        # fn exactly warmup + repeats times.
        facets.Runs(
            lambda device, wrap: facets.args(
                wrap(doubled),
                torch.ones(2, device=device),
                warmup=2,
                repeats=3,
                synchronize=lambda: None,
            ),
            times=lambda arguments: 5,
        ),
        *(
            facets.Propagates(make, label=label)
            for label, make in {
                "fn": lambda device, fault: facets.args(
                    fault, torch.ones(2, device=device), synchronize=lambda: None
                ),
                "synchronize": lambda device, fault: facets.args(
                    doubled, torch.ones(2, device=device), synchronize=fault
                ),
                "clock": lambda device, fault: facets.args(
                    doubled, torch.ones(2, device=device), synchronize=lambda: None, clock=fault
                ),
            }.items()
        ),
    ),
    facets.of(
        clipped_residual,
        facets.Gradients(
            small_inputs,
            oracle=eager64,
        ),
        facets.Unmodified(lambda device: small_inputs(torch.float32, device)),
        # The inputs' dtype kept (the norm too), under either default dtype.
        facets.Dtypes(clipped_inputs, oracle=eager64, dtypes=(torch.float32, torch.float64)),
        call=lambda x, weight, max_norm: clipped_residual(x, weight, max_norm)[0],
    ),
    facets.of(
        clipped_residual,
        # h = x, of norm 2.7: scaled to the default's norm.
        facets.Defaults(
            lambda device: facets.args(
                torch.tensor([[1.0, -2.0, 0.5], [0.25, 1.0, -1.0]], device=device),
                torch.eye(3, device=device),
            ),
            values={"max_norm": 1.0},
        ),
        # Both results, each a tensor of its own.
        facets.Returns(lambda device: small_inputs(torch.float32, device)),
        name="clipped_residual(defaults)",
    ),
)
test_facets = FACETS.test
