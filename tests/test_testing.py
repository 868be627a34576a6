"""The helpers kata tests are built from (torch_katas/testing.py), each on its own."""

import ast
import collections
import concurrent.futures
import contextlib
import functools
import importlib
import itertools
import random
import re
import sys
import textwrap
import threading
import time
import types
import warnings
from functools import reduce as fold
from itertools import starmap
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

from torch_katas import testing
from torch_katas.runtime import isolation
from torch_katas.runtime.timelimit import TimeLimit
from torch_katas.testing import (
    assert_all_close,
    assert_close,
    assert_no_python_loops,
    assert_no_torch_internals,
    assert_work_does_not_grow,
    check_array,
    check_tensor,
    deepest_nesting,
    forbidden_calls,
    forbidden_modules,
    forbidden_ops,
    raises,
    same_device,
    seed_for,
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


# NumPy's own subclasses of np.ndarray: a masked array with every element masked passes
# np.testing's comparisons with any array (np.testing skips masked elements).
ARRAY_SUBCLASSES = {
    "masked": lambda: np.ma.array(np.zeros(3), mask=True),
    "masked-all": lambda: np.ma.masked_all((3,)),
    "record": lambda: np.rec.array(np.zeros(3)),
}


@pytest.mark.parametrize("kind", sorted(ARRAY_SUBCLASSES))
def test_check_array_and_assert_close_refuse_numpys_array_subclasses(kind):
    cheat = ARRAY_SUBCLASSES[kind]()
    with pytest.raises(AssertionError, match=r"to_numpy is a numpy\..*, a subclass of numpy"):
        check_array(cheat, name="to_numpy")
    with pytest.raises(AssertionError, match=r"the result is a numpy\..*, a subclass of numpy"):
        assert_close(cheat, np.zeros(cheat.shape))
    check_array(np.zeros(3))  # a plain array is fine
    with pytest.raises(AssertionError, match=r"should be a NumPy array, got list"):
        check_array([0.0])


def test_a_masked_array_is_what_np_testing_cannot_see_through():
    # Why check_array exists: the comparison the tests make says nothing of masked values.
    np.testing.assert_array_equal(np.ma.masked_all((2, 3)), np.arange(6.0).reshape(2, 3))


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


def test_copies_seen_records_each_copy_and_pin(sim):
    x = torch.arange(3.0)
    with testing.copies_seen() as seen:
        pinned = x.pin_memory()
        on_sim = pinned.to(sim, non_blocking=True)
        torch.empty(3).copy_(on_sim)
        x + 1  # no copy
    assert seen.pins == 1
    assert seen.copies == [
        ("to", True, torch.device("cpu"), True, on_sim.device),
        ("copy_", False, on_sim.device, False, torch.device("cpu")),
    ]


def test_assert_downloads_block_refuses_a_non_blocking_copy_to_the_cpu(sim):
    t = torch.arange(3.0, device=sim)
    with testing.copies_seen() as seen:
        t.to("cpu")
        torch.empty(3).copy_(t)
        t.to(sim, non_blocking=True)  # not to the CPU
        torch.zeros(3).to(sim, non_blocking=True)  # an upload
        t.numpy(force=True)  # blocks inside one call
    testing.assert_downloads_block(seen, "f")
    for download in (
        lambda: t.to("cpu", non_blocking=True),
        lambda: t.to("cpu", torch.float64, True),
        lambda: torch.empty(3).copy_(t, non_blocking=True),
    ):
        with testing.copies_seen() as seen:
            download()
        with pytest.raises(AssertionError, match="should block"):
            testing.assert_downloads_block(seen, "f")


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


def test_assert_all_close_passes_close_pairs_and_names_the_first_that_differs():
    same = [(torch.ones(2), torch.ones(2) + 1e-7, f"pair {i}") for i in range(3)]
    assert_all_close(same)
    assert_all_close(same, rtol=0, atol=1e-6)
    differs = [*same, (torch.ones(2), torch.zeros(2), "the fourth"), (*same[0][:2], "last")]
    with pytest.raises(AssertionError) as info:
        assert_all_close(differs)
    assert str(info.value).startswith("the fourth\n")
    with pytest.raises(AssertionError, match=r"^pair 1\n"):
        exact = (torch.ones(2), torch.ones(2), "pair 0")
        assert_all_close([exact, (torch.ones(2), torch.ones(2) + 1e-7, "pair 1")], rtol=0, atol=0)


@pytest.mark.parametrize(
    "actual, expected, checked",
    [
        (torch.ones(2), torch.ones(2, dtype=torch.float64), r"dtype"),
        (torch.ones(2), torch.ones(1, 2), r"[Ss]hape"),
        (torch.zeros(3).as_subclass(_Agreeable), torch.ones(3), r"_Agreeable"),
    ],
    ids=["dtype", "shape", "subclass"],
)
def test_assert_all_close_checks_each_pair_as_assert_close_does(actual, expected, checked):
    with pytest.raises(AssertionError, match=checked):
        assert_all_close([(torch.ones(1), torch.ones(1), "first"), (actual, expected, "second")])


def test_assert_all_close_on_one_accelerator_tells_devices_apart(sim):
    assert_all_close([(torch.ones(2, device=sim), torch.ones(2, device=sim), "on sim")])
    with pytest.raises(AssertionError, match=r"^on two devices\n.*device"):
        assert_all_close([(torch.ones(2, device=sim), torch.ones(2), "on two devices")])


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
    with (
        pytest.raises(AssertionError, match=r"called torch\.logsumexp.*: write it yourself"),
        forbidden_ops(torch.logsumexp, reason="write it yourself"),
    ):
        torch.logsumexp(x, 1)
    with (
        pytest.raises(AssertionError, match=r"logsumexp, which this kata forbids"),
        forbidden_ops(torch.logsumexp, reason="write it yourself"),
    ):
        x.logsumexp(1)
    with forbidden_ops(torch.logsumexp, reason="write it yourself"):
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
        pytest.raises(AssertionError, match=r"aten\._?log_softmax, .*: shift by the max"),
        forbidden_ops(F.log_softmax, F.cross_entropy, reason="shift by the max", aten=LOG_SOFTMAX),
    ):
        escape(x, t)


def test_forbidden_ops_sees_the_operators_with_torch_function_switched_off():
    x = torch.randn(3, 4)
    with (
        pytest.raises(AssertionError, match=r"aten"),
        forbidden_ops(F.log_softmax, reason="shift by the max", aten=LOG_SOFTMAX),
        torch._C.DisableTorchFunction(),
    ):
        F.log_softmax(x, 1)
    with (
        pytest.raises(AssertionError, match=r"aten"),
        forbidden_ops(F.log_softmax, reason="shift by the max", aten=LOG_SOFTMAX),
        torch.overrides._pop_mode_temporarily(),
    ):
        F.log_softmax(x, 1)


def test_forbidden_ops_lets_the_primitives_and_their_gradients_through():
    x = torch.randn(3, 4, requires_grad=True)
    with forbidden_ops(F.log_softmax, reason="shift by the max", aten=LOG_SOFTMAX):
        shifted = x - x.amax(1, keepdim=True).detach()
        log_probs = shifted - shifted.exp().sum(1, keepdim=True).log()
        (grad,) = torch.autograd.grad(log_probs[:, 0].sum(), x)
    assert_close(log_probs, F.log_softmax(x, 1))
    assert grad.shape == x.shape


@pytest.mark.parametrize(
    "escape",
    [
        lambda x: torch.from_numpy(np.logaddexp(x.detach().numpy(), 0)),
        lambda x: torch.from_numpy(np.logaddexp(np.asarray(x.detach()), 0)),
        lambda x: torch.from_numpy(np.logaddexp(np.from_dlpack(x.detach()), 0)),
    ],
    ids=["numpy", "asarray", "dlpack"],
)
def test_forbidden_ops_refuses_taking_the_data_out_of_torch(escape):
    x = torch.randn(3)
    with (
        pytest.raises(AssertionError, match=r"out of torch \(Tensor\.\w+\).*exp and log1p"),
        forbidden_ops(torch.logaddexp, reason="build it from exp and log1p"),
    ):
        escape(x)


@pytest.mark.parametrize(
    "caught",
    [
        lambda x: F.log_softmax(x, 1),
        lambda x: torch.ops.aten.log_softmax(x, 1),
        lambda x: torch.from_numpy(x.numpy()),
    ],
    ids=["python-spelling", "aten", "out-of-torch"],
)
def test_forbidden_ops_fails_at_the_end_when_the_refusal_was_caught(caught):
    # An answer that tries the builtin and, where the rule raises, returns a stand-in: the
    # builtin everywhere the rule is not checked, anything where it is.
    x = torch.randn(3, 4)

    def answer(x):
        try:
            return caught(x)
        except AssertionError:
            return x

    with (
        pytest.raises(AssertionError, match=r"(called|computed|out of torch).*shift by the max"),
        forbidden_ops(F.log_softmax, reason="shift by the max", aten=LOG_SOFTMAX),
    ):
        answer(x)
    # Only what the block refused fails it: a caught error of another kind is the code's own.
    with (
        forbidden_ops(F.log_softmax, reason="shift by the max", aten=LOG_SOFTMAX),
        contextlib.suppress(RuntimeError),
    ):
        x.reshape(5)


def _clipped(h: torch.Tensor) -> torch.Tensor:
    # torch.cond run eagerly still goes through Dynamo
    return torch.cond(h.sum() > 0, lambda h: h * 2, lambda h: h.clone(), (h,))


class _Passing(TorchDispatchMode):
    supports_higher_order_operators = True

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize(
    "watching",
    [
        lambda h: forbidden_ops(F.gelu, reason="r", aten=["gelu"]),
        lambda h: testing.built_from("mul", spelled="*", reason="r"),
        lambda h: testing.computations_reading(h),
        lambda h: testing.largest_result(),
        lambda h: testing.dispatch_mode(_Passing()),
    ],
    ids=["forbidden_ops", "built_from", "computations_reading", "largest_result", "dispatch_mode"],
)
def test_code_compiled_under_a_watching_mode_works_after_it(watching):
    # Dynamo remembers that it skipped torch.cond's frame under the mode, with no guard on
    # the mode: a later torch.cond outside the block broke (a test passed or failed by the
    # order the tests ran in).
    # Modes that count or forbid operators refuse torch.cond, whose branches they cannot see.
    h = torch.ones(3)
    with watching(h), contextlib.suppress(NotImplementedError):
        torch.testing.assert_close(_clipped(h), h * 2)
    torch.testing.assert_close(_clipped(-h), -h)


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


def test_forbidden_calls_does_not_refuse_an_object_that_takes_a_freed_method_address():
    # A builtin method of an object is a new object at each lookup; once the one looked up to
    # declare the rule is freed, another builtin (here a method of another deque) may take
    # its address, and is not the forbidden one.
    class Owner:
        def __init__(self) -> None:
            self.queue: collections.deque[int] = collections.deque()
            self.looked_up: list[int] = []

        def __getattr__(self, name: str) -> object:
            method = getattr(self.queue, name)
            self.looked_up.append(id(method))
            return method

    owner, other = Owner(), collections.deque()
    # The lookup of "append" is freed when the rule looks up "pop".
    with forbidden_calls((owner, "append"), (owner, "pop"), reason="not this queue"):
        alive = [other.append for _ in range(10_000)]
        at_freed_address = [method for method in alive if id(method) == owner.looked_up[0]]
        assert at_freed_address, "no method took the freed address: the check proves nothing"
        at_freed_address[0](1)
    with (
        pytest.raises(AssertionError, match=r"append, which this kata forbids: not this queue"),
        forbidden_calls((owner, "append"), reason="not this queue"),
    ):
        owner.queue.append(1)


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


def test_forbidden_calls_follows_properties_and_enclosing_watchers():
    class Scheduler:
        @property
        def in_cooldown(self):
            return True

    with (
        pytest.raises(AssertionError, match=r"Scheduler\.in_cooldown, which this kata"),
        forbidden_calls((Scheduler, "in_cooldown"), reason="by hand"),
    ):
        Scheduler().in_cooldown  # noqa: B018
    # An inner rule keeps the outer one watching.
    with (
        pytest.raises(AssertionError, match=r"torch\.autograd\.backward"),
        forbidden_calls((torch.autograd, "backward"), reason="outer"),
        forbidden_calls((torch.optim.SGD, "step"), reason="inner"),
    ):
        torch.autograd.backward(torch.ones(1, requires_grad=True).sum())


def test_rules_leave_the_time_limits_watchdog_alone():
    # A limit whose deadline passes inside the rule: the watchdog's thread wakes and works.
    with forbidden_calls((torch.autograd, "backward"), reason="r"), TimeLimit(0.01, lambda: None):
        time.sleep(0.1)


def test_forbidden_calls_refuses_a_switched_off_profiler():
    with (
        pytest.raises(AssertionError, match=r"changed sys\.setprofile"),
        forbidden_calls((torch.autograd, "backward"), reason="r"),
    ):
        sys.setprofile(None)


def test_forbidden_ops_lets_tensors_be_built_from_data_on_any_device(any_device):
    # On the simulated device torch.tensor(data, device=...) fails inside torch's C++ under
    # a TorchDispatchMode; the rule's own modes must not reject correct code for it.
    with forbidden_ops(torch.logsumexp, reason="r", aten=["logsumexp"]):
        made = [
            torch.tensor([1.0, 2.0], device=any_device),
            torch.tensor(3.0, device=any_device, requires_grad=True),
            torch.as_tensor([4.0], device=any_device),
            torch.ones(1, device=any_device).new_tensor([5.0]),
            torch.asarray(0.5, dtype=torch.float64, device=any_device),
            torch.asarray([6.0, 7.0], device=any_device, requires_grad=True),
            torch.asarray(obj=[8], device=any_device),
        ]
    for tensor in made:
        assert tensor.device == torch.ones(1, device=any_device).device
    assert made[1].requires_grad and made[1].is_leaf
    assert made[5].requires_grad and made[5].is_leaf
    assert made[4].dtype == torch.float64
    assert [t.tolist() for t in made] == [[1.0, 2.0], 3.0, [4.0], [5.0], 0.5, [6.0, 7.0], [8]]


def test_every_constructor_from_data_is_let_through_on_any_device(any_device):
    # The class, not the instances: each constructor in the table builds from data under
    # a rule's modes, and the table names every one exercised here.
    from torch_katas.testing import _DATA_CREATIONS

    builders = {
        "tensor": lambda: torch.tensor(data=[1.0], device=any_device),
        "as_tensor": lambda: torch.as_tensor(data=[1.0], device=any_device),
        "asarray": lambda: torch.asarray(obj=[1.0], device=any_device),
        "new_tensor": lambda: torch.ones(1, device=any_device).new_tensor(data=[1.0]),
    }
    assert set(builders) == set(_DATA_CREATIONS)
    for name, build in builders.items():
        with forbidden_ops(torch.logsumexp, reason="r", aten=["logsumexp"]):
            made = build()
        assert made.device == torch.ones(1, device=any_device).device, name
        assert made.tolist() == [1.0], name


def test_asarray_without_a_copy_onto_another_device_gets_torchs_verdict(any_device):
    # copy=False forbids the copy that building on the CPU and moving would make: the
    # harness must not turn torch's refusal into a silent copy.
    from torch_katas.testing import _DataOntoPythonDevice

    mode = _DataOntoPythonDevice()
    calls = []

    def fake(*args, **kwargs):
        calls.append(kwargs.get("device"))
        return torch.zeros(1)

    fake.__name__ = "asarray"
    mode.__torch_function__(fake, (), ([1.0],), {"device": any_device, "copy": False})
    assert calls == [any_device]


def test_tensors_built_from_data_without_device_land_on_the_default_device(any_device):
    # Without device=, torch.tensor(data) builds on torch's default device; with the
    # simulated one set outside the rule's modes (as the DefaultDevice facet sets it), that
    # must not fail inside torch's C++ either.
    with torch.device(any_device), forbidden_ops(torch.logsumexp, reason="r", aten=["logsumexp"]):
        made = [
            torch.tensor([1.0, 2.0]),
            torch.tensor(3.0, requires_grad=True),
            torch.as_tensor([4.0]),
            torch.asarray([5.0]),
        ]
    for tensor in made:
        assert tensor.device == torch.ones(1, device=any_device).device
    assert made[1].requires_grad and made[1].is_leaf
    assert [t.tolist() for t in made] == [[1.0, 2.0], 3.0, [4.0], [5.0]]


@pytest.mark.parametrize("build", [torch.tensor, torch.as_tensor, torch.asarray])
def test_default_device_facet_accepts_tensors_built_from_data(any_device, build):
    # A function that keeps its inputs (Unmodified) is called under a dispatch mode in every
    # facet (writes watched): a correct answer that builds a tensor from data on the default
    # device, with any constructor that reads Python data, gets its verdict, not torch's
    # internal assert.
    from torch_katas import facets

    def lengths(xs, device=None):
        return build([len(x) for x in xs], device=device)

    def make(device):
        return facets.args([torch.ones(2, device=device), torch.ones(3, device=device)])

    declared = facets.declare(
        facets.of(lengths, facets.DefaultDevice(make), facets.Unmodified(make))
    )
    cases = [c for c in declared.cases() if isinstance(c.facet, facets.DefaultDevice)]
    assert cases
    for case in cases:
        facets.run(case, any_device)


# ---- forbidden_modules: nothing of a whole module or package


def test_forbidden_modules_refuses_every_function_of_a_package_however_imported():
    from torch.optim.sgd import sgd  # a reference saved the way a learner's import saves it

    w = torch.zeros(2, requires_grad=True)
    w.grad = torch.ones(2)
    calls = {
        r"torch\.optim\.sgd\.SGD\.__init__": lambda: torch.optim.SGD([w], lr=0.1),
        r"torch\.optim\.sgd\.sgd": lambda: sgd([w], [w.grad], [None], weight_decay=0.0,
                                              momentum=0.0, lr=0.1, dampening=0.0,
                                              nesterov=False, maximize=False),
        r"torch\.optim\.asgd\.ASGD\.__init__": lambda: torch.optim.ASGD([w]),
    }  # fmt: skip
    for called, call in calls.items():
        with (
            pytest.raises(AssertionError, match=rf"called {called}, which this kata .*: by hand"),
            forbidden_modules(torch.optim, reason="by hand"),
        ):
            call()


def test_forbidden_modules_allows_what_it_is_told_to_and_everything_else():
    class ByHand(torch.optim.Optimizer):
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    p.data.add_(p.grad, alpha=-group["lr"])

    w = torch.zeros(2, requires_grad=True)
    allowed = importlib.import_module("torch.optim.optimizer")
    with forbidden_modules(torch.optim, allow=[allowed], reason="by hand"):
        optimizer = ByHand([w], {"lr": 0.5})
        (w * torch.ones(2)).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
    assert torch.equal(w.detach(), torch.full((2,), -0.5))


def test_forbidden_modules_refuses_builtins_by_the_module_that_defines_them():
    with (
        pytest.raises(AssertionError, match=r"called numpy\.zeros, which this kata forbids"),
        forbidden_modules(np, "torch", reason="plain Python"),
    ):
        np.zeros(3)
    with (
        pytest.raises(AssertionError, match=r"called torch\._C\._infer_size"),
        forbidden_modules(np, "torch", reason="plain Python"),
    ):
        torch._C._infer_size((2, 1), (3,))
    with forbidden_modules(np, "torch", reason="plain Python"):
        assert tuple(reversed((1, 2))) == (2, 1) and max(3, 4) == 4  # builtins stay allowed


def test_forbidden_modules_fails_when_the_refusal_was_swallowed_or_the_profiler_changed():
    with (
        pytest.raises(AssertionError, match=r"called numpy\.zeros"),
        forbidden_modules(np, reason="r"),
        contextlib.suppress(AssertionError),  # a learner's code that goes on
    ):
        np.zeros(1)
    outer = sys.getprofile()
    with (
        pytest.raises(AssertionError, match=r"changed sys\.setprofile"),
        forbidden_modules(np, reason="r"),
    ):
        sys.setprofile(None)
    assert sys.getprofile() is outer


def test_rules_inside_each_other_pass_every_event_on_to_another_profiler():
    seen = []

    def python_function():
        return None

    def profiler(frame, event, arg):
        if frame.f_code is python_function.__code__ or arg is divmod:
            seen.append(event)

    sys.setprofile(profiler)
    try:
        with (
            forbidden_calls((torch.autograd, "backward"), reason="outer"),
            forbidden_modules(np, reason="inner"),
        ):
            python_function()
            divmod(7, 2)
    finally:
        sys.setprofile(None)
    # Each event once, calls and returns alike, though two rules watch.
    assert seen == ["call", "return", "c_call", "c_return"]


def test_rules_watch_code_that_runs_on_the_simulated_device(sim):
    w = torch.zeros(2, device=sim, requires_grad=True)
    w.grad = torch.ones(2, device=sim)
    rule = forbidden_modules(torch.optim, reason="by hand")
    with pytest.raises(AssertionError, match=r"called torch\.optim\.sgd\.SGD\.__init__"), rule:
        torch.optim.SGD([w], lr=0.1).step()
    with forbidden_calls((torch.autograd, "backward"), reason="r"):
        watched = sys.getprofile()
        (w + 1).exp()  # ops on the device pause the watcher while they run, then put it back
        assert sys.getprofile() is watched is not None
    with pytest.raises(AssertionError, match=r"torch\.autograd\.backward"), watched_rule(sim):
        torch.autograd.backward((w * 3).sum())


def test_the_simulated_device_pauses_the_rules_watchers_alone(sim):
    seen = []

    def profiler(frame, event, arg):
        if event == "call":
            seen.append(frame.f_code.co_name)

    x = torch.ones(2, device=sim)
    sys.setprofile(profiler)
    try:
        x + 1
    finally:
        sys.setprofile(None)
    assert "_run_op" in seen, "a profiler of the learner's sees the device's own code too"


@contextlib.contextmanager
def watched_rule(device):
    with forbidden_calls((torch.autograd, "backward"), reason="r"):
        torch.ones(2, device=device).add_(1)  # an op on the device first
        yield


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
    "getattribute": (
        "import torch\nf = lambda x: torch.__getattribute__('_C')",
        "torch.__getattribute__",
    ),
    "getattr-as-a-value": (
        "import functools, torch\nf = lambda x: functools.reduce(getattr, ['_C'], torch)",
        "getattr passed on as a value",
    ),
    "getattr-table-of-private-names": (
        "import torch\nNAMES = {'c': '_C'}\nf = lambda x: getattr(torch, NAMES['c'])",
        "getattr",
    ),
    "getattr-name-built-on-torch": (
        "import torch\nf = lambda x: getattr(torch, f'o{x}')",
        "getattr",
    ),
    "getattr-name-built-after-a-dtype-start": (
        "import torch\nf = lambda x: getattr(torch, f'{x}float16')",
        "getattr",
    ),
    "getattr-private-name-joined-from-literals": (
        "import torch\nf = lambda x: getattr(torch, f\"{'_' if x else 'x'}C\")",
        "getattr",
    ),
    "getattr-f-string-with-a-conversion": (
        "import torch\nf = lambda x: getattr(torch, f\"{'_C'!s}\")",
        "getattr",
    ),
    "getattr-choice-with-a-computed-branch": (
        "import torch\nf = lambda x: getattr(torch, 'relu' if x else x)",
        "getattr",
    ),
    # A comprehension's loop name read after it is the module's name, any string.
    "getattr-loop-name-read-outside-its-comprehension": (
        "import torch\nname = '_' + 'C'\ndef f(x):\n    [0 for name in ('float16',)]\n"
        "    return getattr(torch, name)",
        "getattr",
    ),
    "vars-of-a-module": ("import torch\nf = lambda x: vars(torch)['_C']", "vars(...)"),
    "profiler-off": ("import sys\nf = lambda x: sys.setprofile(None)", "sys.setprofile"),
    "tracer-off": ("from sys import settrace\nf = lambda x: settrace(None)", "settrace"),
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


def test_assert_no_torch_internals_accepts_names_the_policy_can_read(learner_module):
    # What the policy for returned code resolves (a table of literal names, a loop over one,
    # a choice between literals, a name built from a public start on the answer's own
    # object, its own namespace) is no escape here either.
    module = learner_module("""
        import torch
        import torch.nn.functional as F
        from torch import nn

        NORMALISERS = {False: "softmax", True: "log_softmax"}
        ACTIVATIONS = {"relu": "ReLU", "tanh": "Tanh"}


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                for i in range(2):
                    setattr(self, f"fc{i}", nn.Linear(2, 2))

            def forward(self, x):
                for i in range(2):
                    x = getattr(self, f"fc{i}")(x)
                return x

            def __repr__(self):
                return f"Model({sorted(vars(self))})"


        def f(x, log=False, name="relu"):
            if name not in ACTIVATIONS:
                raise ValueError(name)
            act = getattr(nn, ACTIVATIONS[name])()
            for each in ("sigmoid", "tanh"):
                x = getattr(torch, each)(x)
            dtype = getattr(torch, "float64" if log else "float32")
            # a name joined from literal choices: each combination a public name
            x = getattr(F, f"{'log_' if log else ''}softmax")(x, dim=-1) + x
            x = getattr(torch, "s" + ("igmoid" if log else "in"))(x)
            return getattr(F, NORMALISERS[bool(log)])(act(x), dim=-1).to(dtype)


        def widened(x, bits=32):
            # a dtype's name built at run time: never one of torch's internals
            return x.to(getattr(torch, f"float{max(bits, 32)}")), getattr(torch, "int" + str(bits))
    """)
    assert_no_torch_internals(module.widened, reason="r")
    assert_no_torch_internals(module.f, reason="r")
    assert_no_torch_internals(module.Model, reason="r")


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


# ---- assert_no_python_loops and assert_work_does_not_grow


def vectorised(x):
    return (x * 2).sum()


def looped(x):
    total = 0
    for value in x:
        total += value
    return total


def comprehended(x):
    return sum([value for value in x])


def mapped(x):
    return torch.stack(list(map(torch.sum, x)))


def reduced(x):
    return functools.reduce(torch.add, x.unbind(0))


def recursive(x):
    return x[0] if len(x) == 1 else x[0] + recursive(x[1:])


# Looping calls by the names they are imported or bound as: a fixed number of steps, so the
# work does not grow and only the look at the source sees them.
def starmapped(x):
    return torch.cat(list(starmap(torch.add, zip(x.split(2), x.split(2), strict=True))))


def mapped_by_an_alias(x):
    return torch.cat(list(each(torch.neg, x.split(2))))


def folded(x):
    return fold(torch.add, x.split(2))


each = map


def rows_in_a_helper(x):
    return loop_over_rows(x)


def loop_over_rows(x):
    total = torch.zeros_like(x[0])
    for row in x:
        total = total + row
    return total


def pure_python_in_a_helper(x):
    return torch.tensor(sum_in_python(x.tolist()))


def sum_in_python(rows):
    total = 0.0
    for row in rows:
        total += sum(row)
    return total


def counted_in_c(x):
    # No Python step per row and no torch call per row: the values go out with tolist.
    return torch.tensor(sum(itertools.chain.from_iterable(x.tolist())))


def reduce_in_a_helper(x):
    return add_up(x)


def add_up(x):
    return functools.reduce(lambda total, row: total + row, x.unbind(0))


def checks_named_values(x):
    # A loop over values the source names: two steps for any data.
    doubled = x * 2
    for name, value in (("x", x), ("doubled", doubled)):
        if value.dim() != 2:
            raise ValueError(name)
    return sum([value.sum() for value in (x, doubled)])


def walks_spelled_positions(x):
    # Literal numbers stand for positions in the data: a loop over three columns.
    return torch.stack([x[:, column] for column in (0, 1, 2)]).sum()


def loops_inside_named_values(x):
    total = x.sum()
    for value in (x, x.T):
        for row in value:
            total = total + row.sum()
    return total


def built_from_data(x):
    # torch.tensor(data, device=...) under a dispatch mode, on any device.
    return x.sum(0) + torch.tensor([1.0, 2.0, 3.0, 4.0], device=x.device)


def rows(device):
    return lambda n: torch.randn(n, 4, device=device)


@pytest.fixture(params=["cpu", "sim"])
def any_device(request):
    if request.param == "sim":
        request.getfixturevalue("sim")
    return torch.device(request.param)


def test_assert_no_python_loops_accepts_tensor_code_and_builtins(any_device):
    assert_no_python_loops(vectorised, rows(any_device))
    assert_no_python_loops(built_from_data, rows(any_device))
    assert_no_python_loops(torch.sum, rows(any_device))
    assert_no_python_loops(vectorised)  # the look at the source alone
    # A loop over a literal display of named values takes as many steps for any data.
    assert_no_python_loops(checks_named_values, rows(any_device))


@pytest.mark.parametrize(
    "func, kind, line",
    [
        (looped, "a for loop", 2),
        (comprehended, "a list comprehension", 1),
        (mapped, "map", 1),
        (reduced, "functools.reduce", 1),
        (recursive, r"recursion \(it calls itself\)", 1),
        (starmapped, "itertools.starmap", 1),
        (mapped_by_an_alias, "map", 1),
        (folded, "functools.reduce", 1),
        (walks_spelled_positions, "a list comprehension", 2),
        (loops_inside_named_values, "a for loop", 3),
    ],
)
def test_assert_no_python_loops_names_the_loop_and_its_line(func, kind, line):
    line += func.__code__.co_firstlineno
    with pytest.raises(AssertionError, match=rf"{func.__qualname__} uses {kind} \(line {line}\)"):
        assert_no_python_loops(func)


@pytest.mark.parametrize(
    "func, measure",
    [
        (rows_in_a_helper, "torch operations"),
        (reduce_in_a_helper, "torch operations"),
        (pure_python_in_a_helper, "lines of Python"),
        (counted_in_c, "tensor elements into Python objects"),
    ],
)
def test_assert_work_does_not_grow_sees_loops_however_written(any_device, func, measure):
    with pytest.raises(AssertionError) as info:
        assert_work_does_not_grow(func, rows(any_device), over="rows")
    message = str(info.value)
    assert message.startswith(f"{func.__qualname__} ")
    assert re.search(rf"\d+ .*{measure}.* for 3 rows and \d+ for 10: a Python loop", message)


def test_assert_no_python_loops_tells_an_answers_own_reduce_from_functools(learner_module):
    # A function of the answer's own named like a looping builtin is its own: its body gets
    # the look, not its name.
    module = learner_module("""
        import functools
        import torch


        def reduce(values, how):
            return values.mean() if how == "mean" else values.sum()


        def loss(x):
            return reduce(x.abs(), "mean")


        def map(x):
            return torch.stack([row.sum() for row in x])


        def per_row(x):
            return map(x)


        def folded(x):
            return functools.reduce(torch.add, x.unbind(0))
    """)
    assert_no_python_loops(module.loss, rows("cpu"))
    with pytest.raises(AssertionError, match=r"per_row calls map, which uses a list comprehension"):
        assert_no_python_loops(module.per_row, rows("cpu"))
    with pytest.raises(AssertionError, match=r"folded uses functools\.reduce"):
        assert_no_python_loops(module.folded, rows("cpu"))

    # A value the function binds itself, or a parameter, named like a looping builtin is
    # the answer's own value too; functools.reduce under that name still counts.
    module = learner_module("""
        import functools
        import torch

        REDUCERS = {"max": torch.amax, "sum": torch.sum}


        def picked(x, how="max", map=None):
            reduce = REDUCERS[how]
            return reduce(x, dim=0) if map is None else map(x)


        def folded(x):
            reduce = functools.reduce
            return reduce(torch.add, x.unbind(0))
    """)
    assert_no_python_loops(module.picked, rows("cpu"))
    with pytest.raises(AssertionError, match=r"folded uses functools\.reduce"):
        assert_no_python_loops(module.folded, rows("cpu"))


def test_assert_no_python_loops_looks_at_a_modules_forward():
    class Looping(torch.nn.Module):
        def forward(self, x):
            return torch.stack([row.sum() for row in x])

    with pytest.raises(AssertionError, match=r"Looping\.forward uses a list comprehension"):
        assert_no_python_loops(Looping(), rows("cpu"))
    assert_no_python_loops(torch.nn.Linear(4, 2), rows("cpu"))
    assert_no_python_loops(functools.partial(vectorised), rows("cpu"))


def test_assert_work_does_not_grow_counts_the_sizes_it_is_given():
    calls = []

    def inputs(n):
        calls.append(n)
        return torch.randn(n, 4)

    assert_work_does_not_grow(vectorised, inputs, sizes=(2, 7))
    assert calls == [2, 7]
    with pytest.raises(AssertionError, match=r"for 2 steps and \d+ for 7: .*\. do it once"):
        assert_work_does_not_grow(
            rows_in_a_helper, inputs, sizes=(2, 7), over="steps", advice="do it once"
        )
    # Plain numbers too: what grows is then the Python that runs.
    assert_work_does_not_grow(lambda a, b: a // b + (a % b > 0), lambda n: (7 * n + 1, 7))
    with pytest.raises(AssertionError, match=r"lines of Python for 3 epochs"):
        assert_work_does_not_grow(
            lambda epochs: sum_in_python([[1.0]] * epochs), lambda n: n, over="epochs"
        )


def test_assert_work_does_not_grow_refuses_a_switched_off_tracer():
    def untraced(x):
        sys.settrace(None)
        return x.sum()

    outer = sys.gettrace()
    with pytest.raises(AssertionError, match=r"changed sys\.settrace"):
        assert_work_does_not_grow(untraced, rows("cpu"))
    assert sys.gettrace() is outer


# ---- built_from

SCATTER = ("scatter_add", "scatter_add_")


def _counts_by_scatter(labels):
    counts = torch.zeros(labels.shape[0], 3, dtype=torch.int64)
    return counts.scatter_add_(1, labels, torch.ones_like(labels)).clone().t()


def _counts_by_comparing(labels):
    torch.zeros(2, 3, dtype=torch.int64).scatter_add_(1, labels, torch.ones_like(labels))
    return (labels[..., None] == torch.arange(3)).sum(1).t()  # the scatter-add is a decoy


@pytest.mark.parametrize("count, made", [(_counts_by_scatter, True), (_counts_by_comparing, False)])
def test_built_from_follows_the_result_back_to_the_named_operators(count, made):
    labels = torch.tensor([[0, 2, 2], [1, 1, 1]])
    with testing.built_from(*SCATTER, spelled="scatter_add_", reason="count") as record:
        counts = count(labels)
    assert counts.tolist() == [[1, 0], [0, 3], [2, 0]]
    if made:  # through a copy and a view
        record.check(counts)
    else:
        with pytest.raises(AssertionError, match="not built from scatter_add_"):
            record.check(counts)


def _counts_by_comparing_then_scatter(labels):
    found = (labels[..., None] == torch.arange(3)).sum(1)  # the counting, done elsewhere
    bins = torch.arange(3).expand_as(found)
    return torch.zeros(2, 3, dtype=torch.int64).scatter_add_(1, bins, found).t()


def _counts_by_comparing_beside_a_decoy(labels):
    torch.zeros(2, 3, dtype=torch.int64).scatter_add_(1, labels, torch.ones_like(labels))
    return _counts_by_comparing_then_scatter(labels)  # what the decoy took in is not its


@pytest.mark.parametrize(
    "count, each",
    [
        (_counts_by_scatter, True),
        (_counts_by_comparing_then_scatter, False),
        (_counts_by_comparing_beside_a_decoy, False),
    ],
)
def test_built_from_each_of_wants_every_input_through_the_named_operators(count, each):
    # Totals counted another way and then scatter-added are built from the scatter-add too:
    # only how many elements it took in (6 labels, or 2 rows of 3 totals) tells them apart.
    labels = torch.tensor([[0, 2, 2, 2], [1, 1, 1, 0]])
    with testing.built_from(*SCATTER, spelled="scatter_add_", reason="count") as record:
        counts = count(labels)
    assert counts.tolist() == [[1, 1], [0, 3], [3, 0]]
    record.check(counts)
    if each:
        record.check(counts, each_of=labels)
    else:
        with pytest.raises(AssertionError, match="took in 6 elements for 8 inputs"):
            record.check(counts, each_of=labels)


PICK = ("gather", "index")


def _last_by_gather(x, last):
    return x.contiguous().gather(1, last.view(-1, 1, 1).expand(-1, 1, x.shape[-1]))[:, 0]


def _last_by_index(x, last):
    return x[torch.arange(x.shape[0]), last]


def _last_by_max_then_every_row(x, last):
    chosen = torch.arange(x.shape[1])[None, :, None] == last[:, None, None]
    reduced = torch.where(chosen, x, -torch.inf).amax(1)  # the pick, done by a reduction
    return reduced[torch.arange(x.shape[0])]  # an integer index that picks every row


def _last_by_max_beside_a_decoy(x, last):
    x[torch.arange(x.shape[0]), last]  # a pick from x whose result is dropped
    return _last_by_max_then_every_row(x, last)


@pytest.mark.parametrize(
    "pick, works_on_x",
    [
        (_last_by_gather, True),
        (_last_by_index, True),
        (_last_by_max_then_every_row, False),
        (_last_by_max_beside_a_decoy, False),
    ],
)
def test_built_from_reading_wants_the_named_operator_to_work_on_the_input(pick, works_on_x):
    # Built from an integer index either way; only what the index works on tells them apart:
    # x itself (a view, or a copy such as .contiguous() makes), or x reduced another way.
    x = torch.arange(24.0).view(4, 3, 2).transpose(0, 1)  # [3, 4, 2], not contiguous
    last = torch.tensor([1, 3, 0])
    with testing.built_from(*PICK, spelled="gather", reason="pick", reading=x) as record:
        out = pick(x, last)
    assert torch.equal(out, torch.stack([x[b, n] for b, n in enumerate(last.tolist())]))
    if works_on_x:
        record.check(out)
    else:
        with pytest.raises(AssertionError, match="did not work on the input itself"):
            record.check(out)


def _last_by_max(x, last):
    chosen = torch.arange(x.shape[1])[None, :, None] == last[:, None, None]
    return torch.where(chosen, x, -torch.inf).amax(1)  # the pick, done by a reduction


def _decoy_never_picked(x, last):
    picked = _last_by_gather(x, last)
    return torch.where(torch.tensor(True), _last_by_max(x, last), picked)


def _decoy_times_zero(x, last):
    return _last_by_max(x, last) + 0 * _last_by_gather(x, last)


def _decoy_lending_its_gradient(x, last):
    picked = _last_by_gather(x, last)
    return _last_by_max(x, last).detach() + (picked - picked.detach())


def _picked_then_computed_in_place(x, last):
    out = torch.zeros(x.shape[0], x.shape[-1])
    out.copy_(_last_by_gather(x, last))
    return out.mul_(2).div_(2)


@pytest.mark.parametrize(
    "pick, depends",
    [
        (_last_by_gather, True),
        (_picked_then_computed_in_place, True),
        (_decoy_never_picked, False),
        (_decoy_times_zero, False),
        (_decoy_lending_its_gradient, False),
    ],
)
def test_built_from_wants_the_result_to_depend_on_the_named_operators(pick, depends):
    # Each is computed from the gather's result, so following memory alone marks them all:
    # only other values from the gather, followed to the result, tell a decoy apart.
    x = torch.arange(24.0).view(3, 4, 2)
    last = torch.tensor([1, 3, 0])
    with testing.built_from(*PICK, spelled="gather", reason="pick", reading=x) as record:
        out = pick(x, last)
    assert torch.equal(out, torch.stack([x[b, n] for b, n in enumerate(last.tolist())]))
    if depends:
        record.check(out)
    else:
        with pytest.raises(AssertionError, match="6 of your result's 6 values stay"):
            record.check(out)


def test_built_from_lets_torch_cond_run():
    # torch.cond traces its branches with Dynamo even eagerly, under the mode: it must run,
    # and what is built outside it is followed as ever.
    x = torch.tensor([1.0, -2.0])
    with testing.built_from("exp", spelled="exp", reason="r") as record:
        e = x.exp()
        out = torch.cond(e.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))
    assert out.tolist() == [2.0, -4.0]
    record.check(e)


# ---- computations_reading


def test_computations_reading_counts_each_use_of_a_weight_however_it_is_reached(any_device):
    layer = torch.nn.Linear(6, 4).to(any_device)
    x = torch.randn(3, 2, 6, device=any_device)
    once = [
        lambda: layer(x),
        lambda: torch.relu(torch.nn.functional.linear(x, layer.weight, layer.bias)),
        lambda: x @ layer.weight.T,  # the transpose is a view, the matmul the one computation
        lambda: torch.einsum("...i,oi->...o", x, layer.weight),
    ]
    for run in once:
        with testing.computations_reading(layer.weight) as record:
            run()
        assert record.count == 1
    with testing.computations_reading(layer.weight) as record:
        [layer(x) for _ in range(3)]
        layer.bias + 1  # another tensor: not counted
    assert record.count == 3


# ---- largest_result


def test_largest_result_records_the_biggest_tensor_a_torch_call_returns():
    x = torch.ones(3, 4)  # made before the block: not counted
    with testing.largest_result() as record:
        x.sum(0)  # 4 elements
        torch.split(torch.arange(10), 5)  # 10, then two views of it: nothing new
    assert record.largest == 10
    with testing.largest_result() as record:
        pass
    assert record.largest == 0


def test_largest_result_counts_memory_not_views(any_device):
    x, y = torch.randn(40, 16, device=any_device), torch.randn(30, 16, device=any_device)
    with testing.largest_result() as record:
        x[:, None, :].expand(40, 30, 16)  # a view of x: no new memory
        x @ y.T
    assert record.largest == 40 * 30
    with testing.largest_result() as record:
        x[:, None, :] - y[None, :, :]
    assert record.largest == 40 * 30 * 16


def test_largest_result_lists_every_new_tensor_but_not_in_place_changes(any_device):
    h = torch.randn(6, 7, device=any_device)
    with testing.largest_result() as record:
        h.relu_()  # in place: nothing new
        h.clamp_(min=0)
        h.copy_(torch.relu(h))  # the out-of-place result is a second tensor
        h.mul_(h > 0)
    assert record.allocated == [(42, torch.float32), (42, torch.bool)]


def test_largest_result_counts_memory_made_outside_torchs_allocator():
    x, y = torch.randn(40, 16), torch.randn(30, 16)
    with testing.largest_result() as record:
        # A Python buffer filled through out=: no operator allocates it.
        buffer = torch.frombuffer(bytearray(40 * 30 * 16 * 4), dtype=torch.float32)
        torch.sub(x[:, None, :], y[None, :, :], out=buffer.view(40, 30, 16))
        torch.from_numpy(np.ones((50, 30))).sum()  # read by an operator
    assert record.largest == 40 * 30 * 16
    assert record.allocated == [
        (40 * 30 * 16, torch.float32),
        (50 * 30, torch.float64),
        (1, torch.float64),  # the sum
    ]


def test_largest_result_sees_the_batch_torch_func_vmap_builds(any_device):
    x, y = torch.randn(40, 16, device=any_device), torch.randn(30, 16, device=any_device)
    pair = torch.vmap(lambda a, b: ((a - b) ** 2).sum(), in_dims=(None, 0))
    with testing.largest_result() as record:
        out = torch.vmap(pair, in_dims=(0, None))(x, y)
    assert out.shape == (40, 30)
    assert record.largest == 40 * 30 * 16  # each step sees [16]; the operators see it all


def test_kata_tests_check_the_no_loop_rule_by_behaviour():
    # The look at the source alone misses map, functools.reduce, recursion and helpers.
    katas = Path(__file__).resolve().parents[1] / "katas"
    static_only = []
    for path in sorted(katas.glob("q*_test.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "assert_no_python_loops"
                and len(node.args) + len(node.keywords) < 2
            ):
                static_only.append(f"{path.name} line {node.lineno}")
    assert not static_only, (
        f"pass inputs to assert_no_python_loops, so it checks the behaviour: {static_only}"
    )


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


def test_reading_source_marks_the_harness_reading_until_the_block_ends():
    assert not testing.harness_reads_source()
    with testing.reading_source():
        assert testing.harness_reads_source()
        with testing.reading_source():
            assert testing.harness_reads_source()
        assert testing.harness_reads_source(), "nested: still reading in the outer block"
    assert not testing.harness_reads_source()
    with pytest.raises(ZeroDivisionError), testing.reading_source():
        1 / 0  # noqa: B018
    assert not testing.harness_reads_source(), "also when the block raises"


def test_harness_reads_source_is_false_outside_reading_source():
    assert testing.harness_reads_source() is False


def test_default_dtype_is_put_back_by_the_block_itself(device):
    before = torch.get_default_dtype()
    with testing.default_dtype(torch.float64):
        assert torch.ones(1, device=device).dtype == torch.float64
    assert torch.get_default_dtype() == before
    with pytest.raises(ZeroDivisionError), testing.default_dtype(torch.float64):
        1 / 0  # noqa: B018
    assert torch.get_default_dtype() == before, "also when the block raises"


# ---- the rules see every function the answer runs, wherever it is written


def fixed_loop_in_a_helper(x):
    return halves_added(x)


def halves_added(x):
    # A loop over two halves: the same work for any number of rows, a loop all the same.
    total = torch.zeros_like(x[:, :2])
    for half in (x[:, :2], x[:, 2:]):
        total = total + half
    return total


def loop_in_a_lambda(x):
    return SUM_COLUMNS(x)


SUM_COLUMNS = lambda x: torch.stack([x[:, j] for j in range(2)], 1)  # noqa: E731


class Columns:
    def total(self, x):
        return sum(x[:, j] for j in range(2))


def loop_in_a_method(x):
    return Columns().total(x)


def ping(x, depth=2):
    return x.sum(0) if depth == 0 else pong(x, depth)


def pong(x, depth):
    return ping(x, depth - 1)


SCALERS = [lambda x, k=k: x * k for k in (1, 2)]  # a module-level comprehension, not run


def honest_helpers(x):
    return SCALERS[1](centred(x)).sum(0)


def centred(x):
    return x - x.mean(0, keepdim=True)


@pytest.mark.parametrize(
    "func, helper, kind",
    [
        (fixed_loop_in_a_helper, "halves_added", "a for loop"),
        (loop_in_a_lambda, "<lambda>", "a list comprehension"),
        (loop_in_a_method, "Columns.total", "a generator expression"),
    ],
)
def test_assert_no_python_loops_reads_every_function_the_answer_runs(
    any_device, func, helper, kind
):
    with pytest.raises(AssertionError, match=rf"calls {re.escape(helper)}, which uses {kind}"):
        assert_no_python_loops(func, rows(any_device))


def loop_on_a_branch_not_taken(x, small=False):
    return rows_one_by_one(x) if small else x.sum(0)


def rows_one_by_one(x):
    return torch.stack([row for row in x]).sum(0)


def test_assert_no_python_loops_reads_helpers_on_branches_the_inputs_never_take():
    with pytest.raises(AssertionError, match=r"calls rows_one_by_one, which uses a list"):
        assert_no_python_loops(loop_on_a_branch_not_taken, rows("cpu"))


def test_assert_no_python_loops_refuses_recursion_through_other_functions():
    with pytest.raises(AssertionError, match=r"runs ping inside itself"):
        assert_no_python_loops(ping, rows("cpu"))


def test_assert_no_python_loops_accepts_helpers_and_lambdas_without_loops(any_device):
    assert_no_python_loops(honest_helpers, rows(any_device))


def test_the_rules_read_the_answers_own_modules_it_imports(tmp_path):
    names = ["answer_helpers", "answer_loops", "answer_main"]
    try:
        module_from(
            tmp_path,
            "import torch\ndef total(x):\n    return torch._C._VariableFunctions.sum(x)\n",
            names[0],
        )
        module_from(
            tmp_path,
            "import torch\ndef each(x):\n    return torch.stack([r.sum() for r in x])\n",
            names[1],
        )
        main = module_from(
            tmp_path,
            "from answer_helpers import total\nimport answer_loops as helpers\n"
            "def f(x):\n    return total(x)\n"
            "def looping(x):\n    return helpers.each(x)\n",
            names[2],
        )
        with pytest.raises(AssertionError, match=r"answer_helpers\.py reaches torch's internals"):
            assert_no_torch_internals(main.f, reason="by hand")
        with pytest.raises(AssertionError, match=r"calls each, which uses a list comprehension"):
            assert_no_python_loops(main.looping, rows("cpu"))
    finally:
        for name in names:
            sys.modules.pop(name, None)


def test_deepest_nesting_counts_the_answers_calls_in_every_module(tmp_path):
    try:
        module_from(
            tmp_path, "def down(n):\n    return 0 if n == 0 else 1 + down(n - 1)\n", "answer_walk"
        )
        main = module_from(
            tmp_path,
            "from answer_walk import down\ndef f(n):\n    return down(n)\n"
            "def flat(n):\n    return sum(range(n))\n",
            "answer_nest",
        )
        assert deepest_nesting(main.f, 30) == (30, 32)  # f, then down 31 times
        assert deepest_nesting(main.flat, 30) == (435, 1)
        assert deepest_nesting(torch.ones(3).sum) == (torch.tensor(3.0), 0)
    finally:
        for name in ("answer_walk", "answer_nest"):
            sys.modules.pop(name, None)


def test_settings_put_back_restores_what_the_block_changed():
    before = torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.benchmark
    with testing.settings_put_back():
        torch.use_deterministic_algorithms(not before[0])
        torch.backends.cudnn.benchmark = not before[1]
    assert (torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.benchmark) == before
    with pytest.raises(ZeroDivisionError), testing.settings_put_back():
        torch.set_default_dtype(torch.float64)
        1 / 0  # noqa: B018
    assert torch.get_default_dtype() == torch.float32, "put back also when the block raises"


def test_settings_put_back_fails_a_setting_the_kata_does_not_ask_for():
    tf32 = torch.backends.cudnn.allow_tf32
    with testing.settings_put_back(allowed=["cuDNN flags"]):
        torch.backends.cudnn.benchmark = not torch.backends.cudnn.benchmark  # asked for
    with (
        pytest.raises(AssertionError, match="changed TF32 and reduced-precision flags too"),
        testing.settings_put_back(allowed=["cuDNN flags"]),
    ):
        torch.backends.cudnn.allow_tf32 = not tf32
    assert torch.backends.cudnn.allow_tf32 == tf32, "put back before it fails"
    with pytest.raises(ValueError, match="no such setting"), testing.settings_put_back(["tf32"]):
        pass


def test_settings_switched_flips_each_flag_and_puts_it_back():
    names = ["TF32 and reduced-precision flags", "backends switched on or off"]
    tf32, cudnn = torch.backends.cudnn.allow_tf32, torch.backends.cudnn.enabled
    with testing.settings_switched(names):
        assert torch.backends.cudnn.allow_tf32 == (not tf32)
        assert torch.backends.cudnn.enabled == (not cudnn)
        with (
            pytest.raises(AssertionError, match="changed TF32 and reduced-precision flags too"),
            testing.settings_put_back(allowed=["cuDNN flags"]),
        ):
            torch.backends.cudnn.allow_tf32 = tf32  # the default, set "to be safe"
    assert (torch.backends.cudnn.allow_tf32, torch.backends.cudnn.enabled) == (tf32, cudnn)
    with pytest.raises(ValueError, match="no such setting"), testing.settings_switched(["tf32"]):
        pass
    with (
        pytest.raises(ValueError, match="flags only"),
        testing.settings_switched(["float32 matmul precision"]),
    ):
        pass


def test_compiled_deterministic_follows_use_deterministic_algorithms_alone():
    with testing.settings_put_back():
        torch.use_deterministic_algorithms(True)
        on = testing.compiled_deterministic()
        torch.use_deterministic_algorithms(False)
        off = testing.compiled_deterministic()
        torch.set_deterministic_debug_mode("error")  # eager's switch alone
        debug = testing.compiled_deterministic()
        torch.set_deterministic_debug_mode("default")
    if on is None:  # this torch's switch leaves compiled kernels alone: nothing to ask
        assert off is None and debug is None
    else:
        assert (on, off, debug) == (True, False, False)


def test_settings_kept_fails_on_a_changed_setting_and_puts_it_back():
    with testing.settings_kept("nothing"):
        torch.ones(1).sum()
    changed = r"^f\(\) changed the attention fast path for"
    with pytest.raises(AssertionError, match=changed), testing.settings_kept("f()"):
        torch.backends.mha.set_fastpath_enabled(False)
    assert torch.backends.mha.get_fastpath_enabled(), "put back"


def test_settings_kept_fails_a_call_that_raises_with_a_setting_changed():
    def restores_on_success_only():
        torch.set_grad_enabled(False)
        raise ValueError("the model failed")

    left = r"grad mode for the whole process when it raised ValueError"
    with pytest.raises(AssertionError, match=left), testing.settings_kept("f()"):
        restores_on_success_only()
    assert torch.is_grad_enabled(), "put back"
    # Nothing left changed: the error goes through.
    with pytest.raises(ValueError), testing.settings_kept("f()"), torch.no_grad():
        raise ValueError("the model failed")


def test_settings_kept_lets_a_function_draw_but_not_reseed():
    torch.manual_seed(3)
    expected = torch.rand(4)
    torch.manual_seed(3)
    with testing.settings_kept("f()"):
        drawn = torch.rand(2)
    assert torch.equal(torch.cat([drawn, torch.rand(2)]), expected), "the stream is untouched"
    assert torch.initial_seed() == 3, "the caller's seed is reported again"
    with torch.device("meta"), testing.settings_kept("f()"):  # a default device of any kind
        torch.rand(2)
    state = torch.get_rng_state()
    for reseed in (
        lambda: torch.manual_seed(3),  # the caller's own seed too
        lambda: torch.manual_seed(0),
        lambda: torch.set_rng_state(state),
    ):
        with pytest.raises(AssertionError, match="reseeded"), testing.settings_kept("f()"):
            reseed()


def test_settings_kept_fails_on_pythons_or_numpys_generator_reseeded_or_drawn_from():
    # No kata function draws from them: a reseed (with 0 too, as the harness seeds them
    # before each test) or a draw changes the caller's stream. Both are put back.
    random.seed(5)
    np.random.seed(5)
    python, numpy_state = random.random(), np.random.rand()
    random.seed(5)
    np.random.seed(5)
    with testing.settings_kept("f()"):
        pass
    for move in (
        lambda: random.seed(0),
        lambda: random.random(),
        lambda: np.random.seed(0),
        lambda: np.random.rand(),
        lambda: np.random.standard_normal(),
    ):
        with pytest.raises(AssertionError, match="reseeded or drew"), testing.settings_kept("f()"):
            move()
    assert (random.random(), np.random.rand()) == (python, numpy_state), "put back"


def test_forward_mode_ad_is_no_error_under_the_projects_warning_filters():
    # Correct learner code: torch scripts helpers of its own on the first use of forward-mode
    # AD, and torch.jit.script's deprecation warning there must not fail the learner's test.
    _, tangent = torch.func.jvp(torch.sin, (torch.zeros(3),), (torch.ones(3),))
    assert torch.equal(tangent, torch.ones(3))


def _keeps_the_branch_with_cond(x):
    return torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x.clone(), (x,))


def _keeps_the_branch_with_where(x):
    return torch.where(x.sum() > 0, x * 2, x)


@pytest.mark.parametrize(
    ("func", "skipped_on_sim"),
    [(_keeps_the_branch_with_cond, True), (_keeps_the_branch_with_where, False)],
    ids=["cond", "where"],
)
def test_skip_control_flow_on_sim_skips_torch_cond_there_only(func, skipped_on_sim):
    testing.skip_control_flow_on_sim("cpu", func, torch.ones(2))  # never skips on the CPU
    skipped = False
    try:
        testing.skip_control_flow_on_sim("sim", func, torch.ones(2))
    except pytest.skip.Exception as skip:
        skipped = "torch.cond" in str(skip)
    assert skipped == skipped_on_sim


def test_hooks_left_names_module_and_global_hooks():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2))
    assert testing.hooks_left(model) == []
    handle = model[0].register_forward_hook(lambda module, args, output: None)
    assert testing.hooks_left(model) == ["0._forward_hooks"]
    handle.remove()
    handle = torch.nn.modules.module.register_module_forward_hook(lambda m, a, o: None)
    try:
        assert testing.hooks_left(model) == ["_global_forward_hooks"]
    finally:
        handle.remove()
    assert testing.hooks_left() == []


def test_storage_freed_says_when_the_memory_goes():
    tensor = torch.ones(5)
    view = tensor[1:]
    freed = testing.storage_freed(view)
    del view
    assert not freed(), "the base still holds the storage"
    kept = [tensor]
    del tensor
    assert not freed(), "a list still holds the storage"
    kept.clear()
    assert freed()


def test_saved_tensors_hooks_left_counts_and_removes_them():
    assert testing.saved_tensors_hooks_left() == 0
    hooks = torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)
    hooks.__enter__()  # left installed, as by an answer that never leaves the block
    assert testing.saved_tensors_hooks_left() == 1
    assert testing.saved_tensors_hooks_left() == 0


def test_every_dtype_lists_torchs_dtypes():
    dtypes = testing.every_dtype()
    assert {torch.float32, torch.int64, torch.bool, torch.complex64} <= set(dtypes)
    assert all(isinstance(dtype, torch.dtype) for dtype in dtypes)


def test_own_methods_lists_what_the_class_defines():
    class Base:
        def inherited(self):
            pass

    class Mine(Base):
        limit = 3

        def step(self):
            pass

        @property
        def rate(self):
            return 1

    assert sorted(name for _, name in testing.own_methods(Mine)) == ["rate", "step"]


def test_collect_garbage_frees_a_cycle():
    import weakref

    class Node:
        pass

    node = Node()
    node.me = node
    gone = weakref.ref(node)
    del node
    testing.collect_garbage()
    assert gone() is None


def test_marked_graph_lives_as_long_as_the_graph_node():
    x = torch.ones(3, requires_grad=True)
    y, marker = testing.marked_graph(x * 2)
    assert torch.equal(y, x * 2)
    kept = y.sum()
    kept.backward()
    assert torch.equal(x.grad, torch.full((3,), 2.0)), "the identity passes gradients on"
    assert marker() is not None, "a graph still referenced keeps its marker"
    del y, kept
    testing.collect_garbage()
    assert marker() is None, "a graph no longer referenced frees its marker"


def test_settings_kept_fails_on_the_warnings_filters_changed_and_puts_them_back():
    # A filter added for the whole process hides torch's (and the caller's) warnings from
    # then on; one inside catch_warnings is the function's own business.
    before = list(warnings.filters)
    with testing.settings_kept("f()"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
    for change in (
        lambda: warnings.simplefilter("ignore"),
        lambda: warnings.filterwarnings("ignore", category=UserWarning),
        lambda: warnings.resetwarnings(),
        lambda: warnings.catch_warnings(record=True).__enter__(),
    ):
        with pytest.raises(AssertionError, match="warnings filters"), testing.settings_kept("f()"):
            change()
        assert list(warnings.filters) == before, "put back"
    with pytest.warns(UserWarning, match="shown"):
        warnings.warn("shown", UserWarning, stacklevel=1)


def test_settings_kept_leaves_a_filter_a_library_sets_as_it_is_first_imported(
    tmp_path, monkeypatch
):
    # torch imports some libraries on first use (sympy, on an optimizer's first param group),
    # which ask for their own warning classes once: whichever test comes first, no failure.
    (tmp_path / "fresh_library.py").write_text(
        "import warnings\n\n\nclass FreshWarning(UserWarning):\n    pass\n\n\n"
        "warnings.simplefilter('once', FreshWarning)\n"
    )
    monkeypatch.syspath_prepend(tmp_path)
    monkeypatch.setattr(warnings, "filters", list(warnings.filters))
    with testing.settings_kept("f()"):
        library = importlib.import_module("fresh_library")
    assert warnings.filters[0][2] is library.FreshWarning, "the library's filter stays"
    # The same filter set again once the library is loaded is the call's own change.
    with pytest.raises(AssertionError, match="warnings filters"), testing.settings_kept("f()"):
        warnings.simplefilter("ignore", library.FreshWarning)
    monkeypatch.delitem(sys.modules, "fresh_library")


def test_written_arguments():
    x, y, out = torch.zeros(3), torch.ones(3), torch.empty(3)
    assert testing.written_arguments(torch.ops.aten.add_.Tensor, (x, y), {}) == [x]
    written = testing.written_arguments(torch.ops.aten.add.out, (x, y), {"out": out})
    assert len(written) == 1 and written[0] is out
    assert testing.written_arguments(torch.ops.aten.add.Tensor, (x, y), {}) == []


def test_dispatch_mode():
    from torch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    with testing.dispatch_mode(Record()):
        made = torch.tensor([1.0, 2.0]) * 2  # data made under the mode works too
    assert torch.equal(made, torch.tensor([2.0, 4.0]))
    assert torch.ops.aten.mul.Tensor in seen
    seen.clear()
    _ = torch.ones(2) * 2  # the mode is gone once the block ends
    assert seen == []


def test_seed_for_is_the_seed_written_on_a_plain_run_and_another_on_a_held_out_one():
    assert [seed_for(k) for k in (0, 7, 2**40)] == [0, 7, 2**40]
    previous = isolation.set_run_seed(918273)
    try:
        held_out = [seed_for(k) for k in (0, 7, 7)]
        isolation.set_run_seed(55501)
        other_run = seed_for(7)
    finally:
        isolation.set_run_seed(previous)
    assert held_out[1] == held_out[2], "the same seed each time it is asked for, in one run"
    assert len({0, 7, held_out[0], held_out[1], other_run}) == 5, "another seed for each"
    assert all(0 < seed < 2**31 for seed in (*held_out, other_run)), "a seed every generator takes"


def test_dyadic_draws_exact_binary_fractions_from_the_seeded_generator():
    draws = [testing.dyadic(random.Random(seed)) for seed in range(200)]
    for value in draws:
        numerator, denominator = value.as_integer_ratio()
        assert 0 < value < 1 and numerator % 2 == 1 and 2**3 <= denominator <= 2**10, value
        assert float(torch.tensor(value, dtype=torch.float32)) == value  # exact in float32
    assert len(set(draws)) > 100  # spread, not a few fixed values
    random.seed(5)
    first = testing.dyadic()
    random.seed(5)
    assert testing.dyadic() == first  # the global generator, as the plugin seeds it per test
    assert testing.dyadic(random.Random(1), bits=(20, 20)).as_integer_ratio()[1] == 2**20
