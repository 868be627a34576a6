"""The helpers kata tests are built from (torch_katas/testing.py), each on its own."""

import concurrent.futures
import contextlib
import functools
import sys
import textwrap
import threading
import types
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from torch_katas import testing
from torch_katas.testing import (
    assert_close,
    assert_no_python_loops,
    assert_no_torch_internals,
    check_tensor,
    forbidden_calls,
    forbidden_ops,
    raises,
    same_device,
    skip_unless_supported,
    skip_without_float64,
)

# ---- check_tensor and same_device


def test_check_tensor_accepts_a_matching_tensor():
    check_tensor(torch.zeros(2, 3), shape=(2, 3), dtype=torch.float32, device="cpu")
    check_tensor(torch.zeros(2, 3), shape=torch.Size([2, 3]))


@pytest.mark.parametrize(
    "actual, options, message",
    [
        ([1.0], {}, "the result should be a torch.Tensor, got list"),
        (torch.zeros(2), {"shape": (3,)}, "should have shape (3,), got (2,)"),
        (
            torch.zeros(2),
            {"dtype": torch.int64},
            "should have dtype torch.int64, got torch.float32",
        ),
        (torch.zeros(2), {"device": "meta"}, "should be on meta (where the inputs are), got cpu"),
    ],
    ids=["not-a-tensor", "shape", "dtype", "device"],
)
def test_check_tensor_says_what_differs(actual, options, message):
    with pytest.raises(AssertionError) as info:
        check_tensor(actual, name="the result", **options)
    assert message in str(info.value)


def test_check_tensor_names_the_value():
    with pytest.raises(AssertionError, match=r"^the mean should have shape"):
        check_tensor(torch.zeros(2), shape=(), name="the mean")


class _Agreeable(torch.Tensor):
    """A returned tensor that makes every comparison of it agree."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        result = super().__torch_function__(func, types, args, kwargs or {})
        if func in (torch.Tensor.__eq__, torch.isclose, torch.eq):
            return torch.ones_like(result, dtype=torch.bool)
        return result


def test_check_tensor_refuses_a_tensor_subclass_the_contract_does_not_name():
    cheat = torch.zeros(3).as_subclass(_Agreeable)
    with pytest.raises(AssertionError, match=r"the loss is a .*_Agreeable, a subclass of torch"):
        check_tensor(cheat, shape=(3,), name="the loss")
    check_tensor(cheat, shape=(3,), subclasses=(_Agreeable,))  # one the contract names
    check_tensor(torch.nn.Parameter(torch.zeros(3)), shape=(3,))  # parameters are plain


def test_check_tensor_accepts_tensors_on_the_simulated_device(sim):
    check_tensor(torch.zeros(2, device=sim), shape=(2,), device=sim)
    check_tensor(torch.nn.Parameter(torch.zeros(2, device=sim)), device=sim)


def test_same_device_treats_a_missing_index_as_any_index():
    assert same_device("cuda", "cuda:0") and same_device(torch.device("cuda:1"), "cuda")
    assert not same_device("cuda:0", "cuda:1")
    assert not same_device("cpu", "cuda")
    assert same_device("cpu", torch.device("cpu"))


# ---- assert_close


def test_assert_close_passes_close_values_and_forwards_options():
    assert_close(torch.tensor([1.0]), torch.tensor([1.0 + 1e-7]))
    assert_close(torch.tensor([1.0]), torch.tensor([1.1]), "off by 10 %", rtol=0.2, atol=0)
    with pytest.raises(AssertionError, match=r"dtype"):
        assert_close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))
    assert_close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64), check_dtype=False)


def test_assert_close_puts_the_advice_above_torchs_report():
    with pytest.raises(AssertionError) as info:
        assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0]), "scale by the mean")
    message = str(info.value)
    assert message.startswith("scale by the mean\n")
    assert "Mismatched elements: 1 / 2" in message  # the numbers are kept


@pytest.fixture
def sim():
    from torch_katas import devices

    if not devices.available("sim"):
        pytest.skip("this torch has no simulated device")
    devices.set_up(["sim"])
    return torch.device("sim")


def test_assert_close_on_one_accelerator_reports_as_torch_does(sim):
    # Compared on the CPU for speed: the verdict and torch's numbers are the same.
    assert_close(torch.tensor([1.0], device=sim), torch.tensor([1.0 + 1e-7], device=sim))
    with pytest.raises(AssertionError) as info:
        assert_close(torch.tensor([1.0, 2.0], device=sim), torch.tensor([1.0, 3.0], device=sim))
    assert "Mismatched elements: 1 / 2" in str(info.value)
    with pytest.raises(AssertionError, match=r"dtype"):
        assert_close(torch.ones(1, device=sim), torch.ones(1, device=sim, dtype=torch.float64))


def test_assert_close_still_tells_devices_apart(sim):
    with pytest.raises(AssertionError, match=r"device"):
        assert_close(torch.ones(2), torch.ones(2, device=sim))
    with pytest.raises(AssertionError, match=r"device"):
        assert_close(torch.ones(2, device=sim), torch.ones(2))
    assert_close(torch.ones(2, device=sim), torch.ones(2), check_device=False)


def test_assert_close_refuses_tensor_subclasses_where_they_are_compared():
    cheat = torch.zeros(3).as_subclass(_Agreeable)
    assert bool((cheat == torch.ones(3)).all())  # what it would make a comparison say
    with pytest.raises(AssertionError, match=r"the result is a .*_Agreeable"):
        assert_close(cheat, torch.ones(3))
    with pytest.raises(AssertionError, match=r"the result\[1\] is a .*_Agreeable"):
        assert_close((torch.ones(3), cheat), (torch.ones(3), torch.ones(3)))
    with pytest.raises(AssertionError, match=r"the expected value\['b'\] is a"):
        assert_close({"b": torch.ones(3)}, {"b": cheat})


def test_assert_close_without_advice_is_torchs_report():
    with pytest.raises(AssertionError) as info:
        assert_close(torch.tensor([1.0]), torch.tensor([2.0]))
    assert str(info.value).startswith("Tensor-likes are not close!")


# ---- skip_unless_supported and skip_without_float64


def test_skip_unless_supported_skips_a_dtype_the_device_lacks():
    with pytest.raises(pytest.skip.Exception, match=r"mps has no torch\.float64"):
        skip_unless_supported("mps", torch.float64)


@pytest.mark.parametrize(
    "where, dtype",
    [("cpu", torch.float64), ("cuda:0", torch.float64), ("mps", torch.float32)],
)
def test_skip_unless_supported_runs_where_the_dtype_exists(where, dtype):
    skip_unless_supported(where, dtype)


def test_skip_without_float64_runs_where_float64_exists():
    skip_without_float64("cpu")
    skip_without_float64(torch.device("cuda"))


# ---- forbidden_ops: the Python spelling and the aten operators below it

LOG_SOFTMAX = ("_log_softmax", "log_softmax", "nll_loss_forward")


def test_forbidden_ops_refuses_the_builtin_and_its_method_spelling():
    x = torch.randn(2, 3)
    with forbidden_ops(torch.logsumexp, reason="write it yourself"):
        with pytest.raises(AssertionError, match=r"called torch\.logsumexp.*: write it yourself"):
            torch.logsumexp(x, 1)
        with pytest.raises(AssertionError, match=r"logsumexp, which this kata forbids"):
            x.logsumexp(1)
        # Everything else runs, and gives the usual result.
        assert torch.equal((x.exp().sum(1)).log(), x.exp().sum(1).log())
    torch.logsumexp(x, 1)  # allowed again after the block


@pytest.mark.parametrize(
    "escape",
    [
        lambda x, t: torch._C._nn.cross_entropy_loss(x, t),
        lambda x, t: torch._log_softmax(x, 1, False),
        lambda x, t: torch.ops.aten.log_softmax(x, 1),
        lambda x, t: torch._C._VariableFunctions._log_softmax(x, 1, False),
        lambda x, t: torch.ops.aten.cross_entropy_loss(x, t),
    ],
    ids=["c-nn", "private-alias", "ops-aten", "variable-functions", "ops-aten-loss"],
)
def test_forbidden_ops_refuses_the_aten_operator_however_it_is_reached(escape):
    x, t = torch.randn(3, 4), torch.tensor([0, 1, 3])
    with (
        forbidden_ops(F.log_softmax, F.cross_entropy, reason="shift by the max", aten=LOG_SOFTMAX),
        pytest.raises(AssertionError, match=r"aten\._?log_softmax, .*: shift by the max"),
    ):
        escape(x, t)


def test_forbidden_ops_sees_the_operators_with_torch_function_switched_off():
    x = torch.randn(3, 4)
    with forbidden_ops(F.log_softmax, reason="shift by the max", aten=LOG_SOFTMAX):
        with torch._C.DisableTorchFunction(), pytest.raises(AssertionError, match=r"aten"):
            F.log_softmax(x, 1)
        with torch.overrides._pop_mode_temporarily(), pytest.raises(AssertionError, match=r"aten"):
            F.log_softmax(x, 1)


def test_forbidden_ops_lets_the_primitives_and_their_gradients_through():
    x = torch.randn(3, 4, requires_grad=True)
    with forbidden_ops(F.log_softmax, reason="shift by the max", aten=LOG_SOFTMAX):
        shifted = x - x.amax(1, keepdim=True).detach()
        log_probs = shifted - shifted.exp().sum(1, keepdim=True).log()
        (grad,) = torch.autograd.grad(log_probs[:, 0].sum(), x)
    assert_close(log_probs, F.log_softmax(x, 1))
    assert grad.shape == x.shape


@pytest.fixture
def warm_pool():
    """A thread pool whose thread was started before the rule's block, as at an import."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(int).result()
        yield pool


def test_forbidden_ops_fails_an_op_run_on_another_thread():
    x, t = torch.randn(3, 4), torch.tensor([0, 1, 3])
    message = r"ran on another thread \(.*\) while this kata's rule was checked.*shift by the max"
    with (
        pytest.raises(AssertionError, match=message),
        forbidden_ops(F.cross_entropy, reason="shift by the max", aten=LOG_SOFTMAX),
        concurrent.futures.ThreadPoolExecutor(1) as pool,
    ):
        pool.submit(F.cross_entropy, x, t).result()  # on a thread started in the block
    # The checks on the calling thread are no weaker for it.
    with (
        pytest.raises(AssertionError, match=r"called torch\.nn\.functional\.cross_entropy"),
        forbidden_ops(F.cross_entropy, reason="shift by the max", aten=LOG_SOFTMAX),
    ):
        F.cross_entropy(x, t)


def test_forbidden_ops_fails_an_op_run_on_a_thread_started_before(warm_pool):
    x, t = torch.randn(3, 4), torch.tensor([0, 1, 3])
    with (
        pytest.raises(AssertionError, match=r"ran on another thread \(ThreadPoolExecutor"),
        forbidden_ops(F.cross_entropy, reason="shift by the max", aten=LOG_SOFTMAX),
    ):
        warm_pool.submit(F.cross_entropy, x, t).result()


def test_forbidden_ops_lets_idle_threads_be(warm_pool):
    x = torch.randn(3, 4)
    with forbidden_ops(F.log_softmax, reason="shift by the max", aten=LOG_SOFTMAX):
        (x - x.amax(1, keepdim=True)).exp()  # the pool's thread exists, and does nothing
    # An error of the block's own is not hidden by the thread check.
    with (
        pytest.raises(NotImplementedError),
        forbidden_ops(F.log_softmax, reason="shift by the max"),
        concurrent.futures.ThreadPoolExecutor(1) as pool,
    ):
        pool.submit(int).result()
        raise NotImplementedError


# ---- forbidden_calls: Python-level APIs, however they are referenced


def test_forbidden_calls_refuses_the_attribute_and_a_reference_saved_before():
    from torch.autograd.functional import hvp  # saved the way a learner's import saves it

    saved_backward = torch.autograd.backward
    x = torch.ones(2, requires_grad=True)
    targets = ((torch.autograd.functional, "hvp"), (torch.autograd, "backward"))
    calls = {
        "torch.autograd.backward": lambda: torch.autograd.backward((x * x).sum()),
        "torch.autograd.backward ": lambda: saved_backward((x * x).sum()),
        "torch.autograd.functional.hvp": lambda: hvp(lambda t: (t**3).sum(), x.detach(), x),
    }
    for called, call in calls.items():
        with (
            pytest.raises(
                AssertionError, match=rf"called {called.strip()}, .*: use autograd\.grad"
            ),
            forbidden_calls(*targets, reason="use autograd.grad"),
        ):
            call()
        assert x.grad is None
    with forbidden_calls(*targets, reason="use autograd.grad"):
        (grad,) = torch.autograd.grad((x * x).sum(), x)  # what is allowed still works
    assert torch.equal(grad, 2 * x.detach())
    saved_backward((x * x).sum())  # the refusal ends with the block
    assert x.grad is not None


def test_forbidden_calls_refuses_methods_reached_through_subclasses():
    params = [torch.zeros(1, requires_grad=True)]
    with (
        pytest.raises(AssertionError, match=r"torch\.optim\.optimizer\.Optimizer\.__init__"),
        forbidden_calls((torch.optim.Optimizer, "__init__"), reason="write the update by hand"),
    ):
        torch.optim.SGD(params, lr=0.1)


def test_forbidden_calls_refuses_builtins_and_skips_names_the_owner_lacks():
    owner = types.ModuleType("factories")
    owner.ones = torch.ones  # a builtin: no code object to match
    with forbidden_calls((owner, "ones"), (torch, "no_such_function"), reason="not this one"):
        torch.zeros(1)
    with (
        pytest.raises(AssertionError, match=r"factories\.ones, which this kata forbids: not this"),
        forbidden_calls((owner, "ones"), (torch, "no_such_function"), reason="not this one"),
    ):
        torch.ones(1)


def test_forbidden_calls_fails_at_the_end_when_the_refusal_was_swallowed():
    with (
        pytest.raises(AssertionError, match=r"called torch\.autograd\.backward"),
        forbidden_calls((torch.autograd, "backward"), reason="use torch.autograd.grad"),
    ):
        x = torch.ones(1, requires_grad=True)
        # A learner's code that catches the refusal and goes on.
        with contextlib.suppress(AssertionError):
            torch.autograd.backward(x.sum())


def test_forbidden_calls_fails_a_call_made_on_another_thread(warm_pool):
    x = torch.ones(1, requires_grad=True)
    with (
        pytest.raises(AssertionError, match=r"ran on another thread .*use torch\.autograd\.grad"),
        forbidden_calls((torch.autograd, "backward"), reason="use torch.autograd.grad"),
    ):
        warm_pool.submit(torch.autograd.backward, x.sum()).result()
    assert threading.getprofile() is None  # the hook for new threads is taken down


def test_forbidden_calls_restores_the_profiler_it_found():
    def outer(frame, event, arg):
        return None

    sys.setprofile(outer)
    try:
        with forbidden_calls((torch.autograd, "backward"), reason="r"):
            pass
        assert sys.getprofile() is outer
    finally:
        sys.setprofile(None)


# ---- assert_no_torch_internals: a static check of the learner's module


def module_from(tmp_path, source, name="q13_learner"):
    """Import `source` as a module from a real file, as a learner's answer is."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    namespace: dict = {"__name__": name, "__file__": str(path)}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    module = types.ModuleType(name)
    module.__dict__.update(namespace)
    sys.modules[name] = module
    return module


@pytest.fixture
def learner_module(tmp_path):
    made = []

    def make(source):
        module = module_from(tmp_path, source, name=f"q13_learner_{len(made)}")
        made.append(module.__name__)
        return module

    yield make
    for name in made:
        del sys.modules[name]


ESCAPES = {
    "c-nn": (
        "import torch\nf = lambda x, t: torch._C._nn.cross_entropy_loss(x, t)",
        "torch._C._nn",
    ),
    "private": (
        "import torch\nf = lambda x: torch._log_softmax(x, 1, False)",
        "torch._log_softmax",
    ),
    "ops": ("import torch\nf = lambda x: torch.ops.aten.log_softmax(x, 1)", "torch.ops.aten"),
    "from-ops": ("from torch.ops import aten\nf = lambda x: aten.log_softmax(x, 1)", "torch.ops"),
    "disable": (
        "import torch as t\ndef f(x):\n    with t._C.DisableTorchFunction():\n        return x",
        "torch._C.DisableTorchFunction",
    ),
    "pop-mode": (
        "from torch.overrides import _pop_mode_temporarily as pop\nf = lambda x: x",
        "from torch.overrides import _pop_mode_temporarily",
    ),
    "import-c": ("import torch._C as C\nf = lambda x: x", "import torch._C"),
    "alias": ("import torch\nc = torch\nf = lambda x: c._softmax(x, 1, False)", "torch._softmax"),
    "getattr": ("import torch\nf = lambda x: getattr(torch, '_' + 'C')", "getattr"),
    "importlib": ("import importlib\nf = lambda x: importlib.import_module('torch')", "importlib"),
    "engine": (
        "import torch.autograd.graph as g\nf = lambda x: g._engine_run_backward",
        "torch.autograd.graph._engine_run_backward",
    ),
}


@pytest.mark.parametrize("source, spelling", ESCAPES.values(), ids=list(ESCAPES))
def test_assert_no_torch_internals_names_the_escape_and_the_rule(learner_module, source, spelling):
    module = learner_module(source)
    with pytest.raises(AssertionError) as info:
        assert_no_torch_internals(module.f, reason="write the log-sum-exp yourself")
    message = str(info.value)
    assert spelling in message and "line " in message
    assert message.endswith("as the kata asks: write the log-sum-exp yourself")


def test_assert_no_torch_internals_accepts_the_public_api(learner_module):
    module = learner_module("""
        import torch
        import torch.nn.functional as F
        from torch import nn


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self._hidden = nn.Linear(2, 2)  # the learner's own private names are fine

            def forward(self, x):
                return F.relu(self._hidden(x)).sum(dim=getattr(x, "ndim") - 1)


        def f(x):
            return torch.special.expit(x) + torch.linalg.norm(x)
    """)
    assert_no_torch_internals(module.f, reason="r")
    assert_no_torch_internals(functools.partial(module.f, torch.ones(1)), reason="r")
    assert_no_torch_internals(module.Model, reason="r")
    assert_no_torch_internals(module, reason="r")
    assert_no_torch_internals(torch.ones, reason="r")  # no source: nothing to check


# ---- raises


def test_raises_catches_the_promised_error():
    with raises(ValueError) as info:
        raise ValueError("bad shape")
    assert "bad shape" in str(info.value)


def test_raises_lets_an_unwritten_stubs_error_through():
    # NotImplementedError is a RuntimeError: the stub must not pass for "raises RuntimeError".
    with pytest.raises(NotImplementedError), raises(RuntimeError):
        raise NotImplementedError
    with pytest.raises(pytest.fail.Exception), raises(ValueError):
        pass


# ---- assert_no_python_loops


def vectorised(x):
    return (x * 2).sum()


def looped(x):
    total = 0
    for value in x:
        total += value
    return total


def comprehended(x):
    return sum([value for value in x])


def test_assert_no_python_loops_accepts_tensor_code_and_builtins():
    assert_no_python_loops(vectorised)
    assert_no_python_loops(torch.sum)


@pytest.mark.parametrize(
    "func, kind, line", [(looped, "a for loop", 2), (comprehended, "a list comprehension", 1)]
)
def test_assert_no_python_loops_names_the_loop_and_its_line(func, kind, line):
    line += func.__code__.co_firstlineno
    with pytest.raises(AssertionError, match=rf"{func.__qualname__} uses {kind} \(line {line}\)"):
        assert_no_python_loops(func)


def test_largest_result_records_the_biggest_tensor_a_torch_call_returns():
    x = torch.ones(3, 4)  # made before the block: not counted
    with testing.largest_result() as record:
        x.sum(0)  # 4 elements
        torch.split(torch.arange(10), 5)  # 10, then a tuple of two 5s
    assert record.largest == 10
    with testing.largest_result() as record:
        pass
    assert record.largest == 0


def test_every_public_helper_is_tested_here():
    public = {
        name
        for name, value in vars(testing).items()
        if not name.startswith("_")
        and callable(value)
        and getattr(value, "__module__", None) == testing.__name__
    }
    source = Path(__file__).read_text(encoding="utf-8")
    untested = sorted(name for name in public if f"def test_{name}" not in source)
    assert not untested, f"helpers in torch_katas/testing.py without a test here: {untested}"
