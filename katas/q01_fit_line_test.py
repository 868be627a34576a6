import itertools
import math
import random
import weakref

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_leaves

from katas.q01_fit_line import fit_line, fit_until
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_no_torch_internals,
    check_tensor,
    forbidden_calls,
    forbidden_modules,
    raises,
    same_device,
    skip_unless_supported,
)


def gradient_descent_by_hand(x, y, steps, lr):
    """The same descent with the MSE gradients written out: 2·mean(r·x) and 2·mean(r).

    Run on the CPU (the values are the same on any device), returned on x's device.
    """
    device, x, y = x.device, x.cpu(), y.cpu()
    w = torch.zeros((), dtype=x.dtype)
    b = torch.zeros((), dtype=x.dtype)
    for _ in range(steps):
        residual = w * x + b - y
        w, b = w - lr * 2 * (residual * x).mean(), b - lr * 2 * residual.mean()
    return w.to(device), b.to(device)


def noisy_line(device, dtype=torch.float32, n=32):
    x = torch.linspace(-1, 1, n, dtype=dtype, device=device)
    return x, 3 * x - 2 + 0.1 * torch.randn(n, dtype=dtype, device=device)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_returns_detached_scalars_on_the_inputs_device_and_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    x, y = noisy_line(device, dtype)
    w, b = fit_line(x, y, steps=3, lr=0.1)
    for name, value in (("w", w), ("b", b)):
        check_tensor(value, shape=(), dtype=dtype, device=device, name=name)
        assert value.grad_fn is None and not value.requires_grad, (
            f"{name} is still attached to the autograd graph; return {name}.detach()"
        )


@pytest.mark.parametrize("steps", [0, 1, 2, 25])
def test_follows_gradient_descent_step_by_step(device, steps):
    x, y = noisy_line(device)
    w, b = fit_line(x, y, steps=steps, lr=0.05)
    expected_w, expected_b = gradient_descent_by_hand(x, y, steps, lr=0.05)
    assert_close(
        (w, b),
        (expected_w, expected_b),
        f"after {steps} steps (w, b) differ from gradient descent; is .grad reset "
        "every step, and is the update lr * gradient?",
    )


def test_defaults_are_100_steps_with_learning_rate_0_1(device):
    x, y = noisy_line(device)
    w, b = fit_line(x, y)
    assert_close(
        (w, b),
        gradient_descent_by_hand(x, y, steps=100, lr=0.1),
        "fit_line(x, y) should take steps=100 and lr=0.1 by default",
    )


def test_converges_to_the_least_squares_line(device):
    x, y = noisy_line(device)
    # mean(x) = 0 on this grid, so w and b descend apart: lr=0.5 puts b on its optimum in
    # one step and shrinks w's error (3 at the start) by 1 - 2·lr·mean(x²) ≈ 0.65 a step,
    # below 1e-4 after 24 steps and to float32's rounding (about 3e-7) by 40.
    w, b = fit_line(x, y, steps=40, lr=0.5)
    design = torch.stack([x, torch.ones_like(x)], dim=1).double().cpu()
    best = torch.linalg.lstsq(design, y.double().cpu().unsqueeze(1)).solution.squeeze(1)
    assert_close(
        torch.stack([w, b]).double().cpu(),
        best,
        "after many steps (w, b) should reach the least-squares line",
        atol=1e-4,
        rtol=0,
    )


def test_does_not_modify_its_inputs(device):
    x, y = noisy_line(device)
    x_before, y_before = x.clone(), y.clone()
    fit_line(x, y, steps=5, lr=0.1)
    assert torch.equal(x, x_before) and torch.equal(y, y_before), "x and y must not be modified"
    assert not x.requires_grad and not y.requires_grad, (
        "x and y are data: leave their requires_grad flags as they were"
    )


@pytest.mark.parametrize("preset", [False, True], ids=["grad-None", "grad-set"])
def test_leaves_the_grad_of_inputs_that_require_grad_alone(device, preset):
    x, y = noisy_line(device)
    x.requires_grad_()
    y.requires_grad_()
    if preset:  # e.g. x is a parameter of another model, between its backward and its step
        x.grad, y.grad = torch.full_like(x, 7.0), torch.full_like(y, -3.0)
    w, b = fit_line(x, y, steps=3, lr=0.1)
    advice = (
        "differentiate the loss with respect to w and b only (torch.autograd.grad(loss, "
        "(w, b)), or backward() on a loss built from x.detach(), y.detach())"
    )
    if preset:
        for name, tensor, value in (("x", x, 7.0), ("y", y, -3.0)):
            assert tensor.grad is not None and torch.equal(
                tensor.grad, torch.full_like(tensor, value)
            ), f"fit_line changed or cleared the {name}.grad the caller had; {advice}"
    else:
        assert x.grad is None and y.grad is None, f"fit_line filled x.grad or y.grad; {advice}"
    assert x.requires_grad and y.requires_grad, (
        "leave the caller's requires_grad flags as they were"
    )
    check_tensor(w, shape=(), device=device, name="w")
    assert w.grad_fn is None and not w.requires_grad and b.grad_fn is None, (
        "w and b must come back detached even when x and y require grad"
    )
    assert_close(
        (w, b),
        gradient_descent_by_hand(x.detach(), y.detach(), steps=3, lr=0.1),
        "x and y requiring grad should not change the fitted line",
    )


# Every way x and y can fail to be two vectors of one length, some of which broadcast.
BAD_SHAPES = pytest.mark.parametrize(
    "x_shape, y_shape",
    [
        ((4, 1), (4, 1)),
        ((4, 1), (4,)),
        ((4,), (4, 1)),
        ((4,), (5,)),
        ((), ()),
        ((4,), ()),
        ((), (4,)),
        ((4,), (1,)),
    ],
    ids=["both 2-D", "x 2-D", "y 2-D", "lengths", "0-D", "y 0-D", "x 0-D", "y of 1"],
)


@BAD_SHAPES
@pytest.mark.parametrize("steps", [1, 0], ids=["1 step", "0 steps"])
@pytest.mark.parametrize("fit", ["fit_line", "fit_until"])
def test_rejects_inputs_that_are_not_two_equal_vectors(device, x_shape, y_shape, steps, fit):
    x, y = torch.zeros(x_shape, device=device), torch.zeros(y_shape, device=device)
    with raises(ValueError):  # checked before any step: 0 steps is no exception
        if fit == "fit_line":
            fit_line(x, y, steps=steps)
        else:
            fit_until(x, y, 0.1, max_steps=steps)


def test_updates_parameters_without_torch_optim(device):
    x, y = noisy_line(device)
    assert_no_torch_internals(fit_line, reason="write the update by hand")
    # Nothing of torch.optim runs: no optimizer, nor its functional form (torch.optim.sgd.sgd).
    with (
        forbidden_calls((torch.optim.Optimizer, "__init__"), reason="write the update by hand"),
        forbidden_modules(torch.optim, reason="write the update by hand"),
    ):
        fit_line(x, y, steps=2, lr=0.1)


# (w, b) after `steps` steps of each function.
FITS = {
    "fit_line": lambda x, y, steps=2: fit_line(x, y, steps=steps, lr=0.1),
    "fit_until": lambda x, y, steps=2: fit_until(x, y, 0.0, max_steps=steps, lr=0.1)[:2],
}


class DataBlocksGradients(TorchFunctionMode):
    """Every op that combines the data (x, y, or what is computed from them alone) with
    anything else gives its result unchanged, but lets no gradient through it.

    The loss, however it is spelled, reaches w and b only through such ops (w * x, ... - y),
    so autograd's gradients of it change (to 0 where every path is blocked), while
    gradients written by hand, and a surrogate such as w * (dL/dw computed without a graph),
    stay those of the descent.
    """

    def __init__(self, *data):
        super().__init__()
        self.data = {id(t): t for t in data}  # holding them keeps the ids unique

    @staticmethod
    def inner(tensor):
        # Inside torch.func.grad every tensor is wrapped: the data is the tensor inside.
        while torch._C._functorch.is_functorch_wrapped_tensor(tensor):
            tensor = torch._C._functorch.get_unwrapped(tensor)
        return tensor

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        inputs = [t for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
        data = [id(self.inner(t)) in self.data for t in inputs]
        if not isinstance(result, torch.Tensor) or not any(data):
            return result
        if result.requires_grad:  # made from the data (x.new_zeros) to be trained
            self.data.pop(id(self.inner(result)), None)
        elif all(data):
            self.data[id(self.inner(result))] = self.inner(result)
            return result
        if not result.is_floating_point() or any(result is t for t in inputs):
            return result  # not differentiable, or in place
        # The values of result, the gradient of its detached copy: none.
        return torch.where(torch.zeros_like(result, dtype=torch.bool), result, result.detach())


@pytest.mark.parametrize("fit", list(FITS))
def test_takes_the_gradients_from_autograd(device, fit):
    x, y = noisy_line(device)
    with DataBlocksGradients(x, y):
        w, b = FITS[fit](x, y)
    by_hand = gradient_descent_by_hand(x, y, steps=2, lr=0.1)
    # Each of them: autograd's gradients are blocked here, so by-hand descent shows in either.
    assert not (torch.allclose(w, by_hand[0]) or torch.allclose(b, by_hand[1])), (
        f"{fit}'s updates did not use autograd's gradients of the loss; make w and b require "
        "grad and update them with what loss.backward() or torch.autograd.grad(loss, "
        "(w, b)) gives, not with dL/dw written by hand (nor routed through autograd as a "
        "surrogate such as w * dL/dw, nor as a custom autograd.Function's backward)"
    )


class LargestGraph(TorchFunctionMode):
    """The number of autograd nodes behind the largest graph any op's result carries."""

    def __init__(self):
        super().__init__()
        self.largest = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        for tensor in tree_leaves(result):
            if isinstance(tensor, torch.Tensor) and tensor.grad_fn is not None:
                seen, todo = set(), [tensor.grad_fn]
                while todo:
                    node = todo.pop()
                    if node is not None and node not in seen:
                        seen.add(node)
                        todo.extend(next_node for next_node, _ in node.next_functions)
                self.largest = max(self.largest, len(seen))
        return result


@pytest.mark.parametrize("fit", list(FITS))
def test_graph_does_not_grow_with_the_steps(device, fit):
    x, y = noisy_line(device)
    sizes = []
    for steps in (2, 8):
        with LargestGraph() as watch:
            FITS[fit](x, y, steps=steps)
        sizes.append(watch.largest)
    assert sizes[0] == sizes[1], (
        f"{fit}'s largest graph had {sizes[0]} nodes after 2 steps and {sizes[1]} after 8: "
        "the updates are recorded on the graph (a chain that grows every step, and memory "
        "with it); update w and b under torch.no_grad() (w -= lr * grad_w)"
    )


class GraphsAlive(TorchFunctionMode):
    """The most tensors carrying a graph alive at once in the block (each holds its graph,
    with the tensors saved for its backward, in memory)."""

    def __init__(self):
        super().__init__()
        self.live, self.most = {}, 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        for tensor in tree_leaves(result):
            if isinstance(tensor, torch.Tensor) and tensor.grad_fn is not None:
                key = id(tensor)
                self.live[key] = weakref.ref(tensor, lambda _, key=key: self.live.pop(key, None))
        self.most = max(self.most, len(self.live))
        return result


@pytest.mark.parametrize("fit", list(FITS))
def test_each_steps_graph_is_freed(device, fit):
    x, y = noisy_line(device)
    most = []
    for steps in (2, 8):
        with GraphsAlive() as watch:
            FITS[fit](x, y, steps=steps)
        most.append(watch.most)
    assert most[0] == most[1], (
        f"{fit} kept {most[0]} tensors with a graph alive at once over 2 steps and {most[1]} "
        "over 8: the steps' graphs stay in memory (the losses kept in a list, with "
        "retain_graph=True); keep loss.item() if you need the history"
    )


class Devices(TorchFunctionMode):
    """The devices of the tensors that torch functions return inside the block."""

    def __init__(self):
        super().__init__()
        self.seen = set()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        for tensor in tree_leaves(result):
            if isinstance(tensor, torch.Tensor):
                self.seen.add(tensor.device)
        return result


@pytest.mark.parametrize("fit", list(FITS))
def test_every_step_runs_on_the_inputs_device(device, fit):
    x, y = noisy_line(device)
    with Devices() as made:
        FITS[fit](x, y, steps=2)
    elsewhere = {place for place in made.seen if not same_device(place, device)}
    assert not elsewhere, (
        f"{fit} made tensors on {sorted(map(str, elsewhere))}, not only on x's device {device}: "
        "create w and b where x is (device=x.device), so that each step runs there"
    )


@pytest.mark.parametrize("fit", list(FITS))
def test_fits_a_single_point(device, fit):
    x, y = torch.tensor([2.0], device=device), torch.tensor([5.0], device=device)
    assert_close(
        FITS[fit](x, y, steps=3),
        gradient_descent_by_hand(x, y, steps=3, lr=0.1),
        f"{fit} on one point (N = 1 is valid)",
    )


@pytest.mark.parametrize("fit", list(FITS))
def test_leaves_the_grad_of_the_leaves_behind_non_leaf_inputs_alone(device, fit):
    # x and y made by an op from tensors that require grad (another model's output): a
    # backward pass through them reaches those leaves (one step: a second would also raise,
    # the first backward having freed their graph).
    x_leaf, y_leaf = (t.requires_grad_() for t in noisy_line(device))
    w, b = FITS[fit](x_leaf * 1, y_leaf * 1, steps=1)
    assert x_leaf.grad is None and y_leaf.grad is None, (
        f"{fit} filled the .grad of the tensors x and y were computed from: differentiate "
        "with respect to w and b only (torch.autograd.grad(loss, (w, b)), or a loss built "
        "from x.detach() and y.detach())"
    )
    assert_close(
        (w, b), gradient_descent_by_hand(x_leaf.detach(), y_leaf.detach(), steps=1, lr=0.1)
    )


@pytest.mark.parametrize("fit", list(FITS))
@pytest.mark.parametrize("dtypes", [(torch.float64, torch.float32), (torch.float32, torch.float64)])
def test_parameters_take_xs_dtype_when_y_has_another(device, fit, dtypes):
    skip_unless_supported(device, torch.float64)
    x, y = noisy_line(device, torch.float64)
    w, b = FITS[fit](x.to(dtypes[0]), y.to(dtypes[1]))
    for name, value in (("w", w), ("b", b)):
        check_tensor(value, shape=(), dtype=dtypes[0], device=device, name=name)


# ---------------------------------------------------------------- fit_until


def losses_by_hand(x, y, steps, lr):
    """The loss before each of `steps + 1` steps of the descent written out, in float64."""
    x, y = x.cpu().double(), y.cpu().double()
    w = b = torch.zeros((), dtype=torch.float64)
    found = []
    for _ in range(steps + 1):
        residual = w * x + b - y
        found.append((residual**2).mean().item())
        w, b = w - lr * 2 * (residual * x).mean(), b - lr * 2 * residual.mean()
    return found


def tol_reached_after(x, y, steps, lr):
    """A tolerance the loss first gets below after exactly `steps` steps, midway (on a log
    scale) between the loss before and after the last one: far from either, so rounding in
    any dtype or on any device decides the same way."""
    losses = losses_by_hand(x, y, steps, lr)
    assert all(a > 1.2 * b for a, b in itertools.pairwise(losses)), losses  # clearly decreasing
    return (losses[-2] * losses[-1]) ** 0.5 if steps else 2 * losses[0]


def check_fit(result, x, y, steps, lr, device, dtype=torch.float32):
    assert isinstance(result, tuple) and len(result) == 3, (
        f"fit_until should return (w, b, steps), got {result!r:.80}"
    )
    w, b, taken = result
    assert type(taken) is int, (
        f"steps should be a Python int, got {type(taken).__name__}; count the steps in Python"
    )
    assert taken == steps, (
        f"fit_until took {taken} steps, expected {steps}: check the loss before each step and "
        "stop as soon as it is below tol, counting only the steps taken (at most max_steps)"
    )
    for name, value in (("w", w), ("b", b)):
        check_tensor(value, shape=(), dtype=dtype, device=device, name=name)
        assert value.grad_fn is None and not value.requires_grad, (
            f"{name} is still attached to the autograd graph; return {name}.detach()"
        )
    assert_close(
        (w, b),
        gradient_descent_by_hand(x, y, steps, lr),
        f"(w, b) should be where {steps} steps of gradient descent lead",
    )


@pytest.mark.parametrize("steps", [1, 4, 7])
def test_fit_until_stops_once_the_loss_is_below_tol(device, steps):
    x, y = noisy_line(device)
    tol = tol_reached_after(x, y, steps, lr=0.5)
    check_fit(fit_until(x, y, tol, max_steps=50, lr=0.5), x, y, steps, 0.5, device)


def exact_loss_targets(dtype, drawn):
    """y whose mean square, the loss at w = b = 0, is exact in `dtype` summed in any order,
    and that loss. As shipped, y = ±1, ±2 (loss 1.75); `drawn`: whole numbers from the seeded
    generator scaled by a drawn power of two, so that a held-out seed moves the loss where
    equality is tested (an answer that tells the tested value by a property of it, such as
    `tol == round(tol, 2)`, then meets another).

    float64: whole numbers near 2**12, one of them odd, so that the sum of squares is an odd
    number above 2**24, which float32 cannot hold: an answer that reads the loss rounded to
    float32 (`loss.float().item()`) compares another number with tol."""
    if dtype == torch.float64:
        whole = torch.full((8,), 2**12, dtype=torch.int64)
        if drawn:
            whole = 2 * torch.randint(2**11, 2**12, (8,))
        whole[0] += 1
        whole *= torch.tensor([1, -1, 1, -1, -1, 1, 1, -1])
        scale = 2.0 ** -int(torch.randint(0, 13, ())) if drawn else 1.0
        loss = float((whole**2).sum()) / 8 * scale**2
        return whole.double() * scale, loss
    if not drawn:
        return torch.tensor([1.0, -1.0, 2.0, -2.0, 1.0, 1.0, -1.0, 1.0]), 1.75
    # Every partial sum of squares is a whole number the dtype holds (bfloat16: up to 256).
    top = 6 if dtype == torch.bfloat16 else 2**10
    whole = torch.randint(1, top, (8,)) * (torch.randint(0, 2, (8,)) * 2 - 1)
    scale = 2.0 ** -int(torch.randint(3, 13, ()))
    loss = float((whole**2).sum()) / 8 * scale**2
    return whole.double() * scale, loss


@pytest.mark.parametrize("drawn", [False, True], ids=["loss 1.75", "loss drawn"])
@pytest.mark.parametrize("above", [False, True], ids=["tol = loss", "tol just above"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_fit_until_compares_the_loss_with_tol_exactly(device, dtype, above, drawn):
    # At w = b = 0 the loss is mean(y²): with these y every partial sum is exact, so it is the
    # same in any dtype, summed in any order. "Below tol" is strict: equal is not below; and a
    # tol just above the loss (a quarter of its unit in the last place in the dtype, equal to
    # it once rounded to the dtype; in float64, which tol itself is, the next float) is above
    # it. In float64 the loss is one float32 cannot hold, so one of the two cases fails a
    # loss read in float32, whichever way it rounds.
    skip_unless_supported(device, dtype)
    values, loss = exact_loss_targets(dtype, drawn)
    x = torch.linspace(-1, 1, 8, dtype=dtype, device=device)
    y = values.to(device=device, dtype=dtype)
    ulp = torch.finfo(dtype).eps * 2.0 ** (math.frexp(loss)[1] - 1)
    tol = loss + ulp / 4 if above else loss
    if dtype == torch.float64:
        tol = math.nextafter(loss, math.inf) if above else loss
    *_, taken = fit_until(x, y, tol, max_steps=1, lr=0.1)
    if above:
        assert taken == 0, (
            f"fit_until took a step where the starting loss {loss!r} is below tol = {tol!r}: "
            "compare the loss's value with tol as Python numbers (loss.item() < tol), not "
            "with tol rounded to the loss's dtype (loss < tol on the tensor)"
        )
    else:
        assert taken == 1, (
            f"fit_until took {taken} steps where the starting loss equals tol ({tol!r}): stop "
            "only when the loss is below tol (loss < tol), not when it equals it"
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fit_until_compares_the_loss_with_tol_exactly_at_every_step(device, dtype):
    # x = 0 leaves w at 0 (its gradient is 0) and, with lr = 1/4, halves b's distance to
    # mean(y) at each step: b_k = mean(y)·(1 - 2^-k), and every loss, gradient and update is a
    # small dyadic number, exact in any order. tol is the loss after a number of steps drawn
    # from the seeded generator (a held-out seed draws another): equal is not below there
    # either, so one more step is taken, as at the start.
    k = int(torch.randint(1, 4, ()))
    scale = 2.0 ** -int(torch.randint(0, 7, ()))
    offsets = torch.tensor([1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 1.0, -1.0])
    offsets = offsets[torch.randperm(8)] * scale
    mean = 8.0 * scale
    y = (mean + offsets).to(device=device, dtype=dtype)
    x = torch.zeros(8, dtype=dtype, device=device)
    b = mean * (1 - 2.0**-k)  # the naive loop's b after k steps, in Python floats (exact)
    tol = sum((b - (mean + d)) ** 2 for d in offsets.tolist()) / 8
    *_, taken = fit_until(x, y, tol, max_steps=k + 1, lr=0.25)
    assert taken == k + 1, (
        f"fit_until took {taken} steps where the loss after step {k} equals tol ({tol!r}): "
        "a loss equal to tol is not below it at any step, not only at the start"
    )


@pytest.mark.parametrize(
    "tol, never_below",
    [(-1.0, True), (-math.inf, True), (math.nan, True), (math.inf, False), (None, True)],
    ids=["negative", "-inf", "nan", "inf", "drawn-negative"],
)
def test_fit_until_takes_any_tol(device, tol, never_below):
    if tol is None:  # any negative, from the seeded generator (grading draws others too)
        tol = -(10 ** random.uniform(-6, 300))
    x, y = noisy_line(device)
    steps = 3 if never_below else 0
    check_fit(fit_until(x, y, tol, max_steps=3, lr=0.5), x, y, steps, 0.5, device)


def test_fit_until_goes_on_while_the_loss_is_nan(device):
    # lr=50 diverges: the loss overflows to inf, then NaN, which is never below tol.
    x, y = noisy_line(device)
    w, b = gradient_descent_by_hand(x, y, 60, lr=50.0)
    assert ((w * x + b - y) ** 2).mean().isnan()  # in float32, well before 60 steps
    *_, taken = fit_until(x, y, 0.005, max_steps=60, lr=50.0)
    assert taken == 60, (
        f"fit_until stopped after {taken} of its 60 steps on a diverged (NaN) loss: a NaN "
        "loss is not below tol, so keep stepping until the budget is spent (test "
        "`loss < tol` to stop, not `loss >= tol` to go on)"
    )


def test_fit_until_takes_no_step_when_the_start_is_good_enough(device):
    x, y = noisy_line(device)
    tol = tol_reached_after(x, y, 0, lr=0.5)
    check_fit(fit_until(x, y, tol, max_steps=50, lr=0.5), x, y, 0, 0.5, device)


@pytest.mark.parametrize("max_steps", [0, 3, 30])
def test_fit_until_stops_when_the_budget_is_spent(device, max_steps):
    # The noise keeps the loss above 0.005: the tolerance is never reached.
    x, y = noisy_line(device)
    check_fit(fit_until(x, y, 0.005, max_steps=max_steps, lr=0.5), x, y, max_steps, 0.5, device)


def test_fit_until_learning_rate_defaults_to_0_1(device):
    x, y = noisy_line(device)
    tol = tol_reached_after(x, y, 5, lr=0.1)
    check_fit(fit_until(x, y, tol), x, y, 5, 0.1, device)


def test_fit_until_budget_defaults_to_1000_steps(device):
    # A loss is never below 0: the budget alone stops it. The default does not depend on the
    # device, so this runs on the CPU whatever the device (1000 small steps).
    x, y = noisy_line(torch.device("cpu"))
    *_, taken = fit_until(x, y, 0.0)
    assert taken == 1000, (
        f"fit_until(x, y, tol) should take at most max_steps=1000 steps by default, took {taken}"
    )


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16])
def test_fit_until_works_in_the_inputs_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    x, y = noisy_line(device, dtype)
    w, b, taken = fit_until(x, y, 0.005, max_steps=2, lr=0.5)
    assert taken == 2
    for name, value in (("w", w), ("b", b)):
        check_tensor(value, shape=(), dtype=dtype, device=device, name=name)


def test_fit_until_reads_a_float16_loss_whose_sum_overflows(device):
    # The mean of 30000 squares of 2 is 4 < tol = 8, but their float16 sum is inf.
    x = torch.linspace(-1, 1, 30000, device=device).half()
    y = torch.full_like(x, 2.0)
    *_, taken = fit_until(x, y, 8.0, max_steps=5, lr=0.1)
    assert taken == 0, (
        f"fit_until took {taken} steps where the starting loss 4 is below tol 8: the loss is "
        "the mean, ((w * x + b - y) ** 2).mean(), which torch accumulates in float32; a sum "
        "divided by N overflows float16"
    )


@pytest.mark.parametrize("lr, max_steps, taken", [(0.0, 3, 3), (-0.1, 3, 3), (0.1, 0, 0)], ids=str)
def test_fit_until_takes_any_lr_and_budget(device, lr, max_steps, taken):
    # "Raises ValueError for nothing else": lr = 0 or negative descends by nothing, or
    # climbs; a budget of 0 takes no step.
    x, y = noisy_line(device)
    result = fit_until(x, y, -1.0, max_steps=max_steps, lr=lr)
    check_fit(result, x, y, taken, lr, device)


def test_fit_until_leaves_the_grad_of_inputs_that_require_grad_alone(device):
    x, y = noisy_line(device)
    x.requires_grad_()
    y.requires_grad_()
    fit_until(x, y, 0.005, max_steps=3, lr=0.1)
    assert x.grad is None and y.grad is None, (
        "fit_until filled x.grad or y.grad; differentiate the loss with respect to w and b only"
    )


def test_fit_until_without_torch_optim(device):
    x, y = noisy_line(device)
    assert_no_torch_internals(fit_until, reason="write the update by hand")
    with (
        forbidden_calls((torch.optim.Optimizer, "__init__"), reason="write the update by hand"),
        forbidden_modules(torch.optim, reason="write the update by hand"),
    ):
        fit_until(x, y, 0.005, max_steps=2, lr=0.1)


# ---------------------------------------------------------------- facets

# A few steps computed in the dtype: each rounds.
ROUNDED = {torch.float16: 8 * 2.0**-10, torch.bfloat16: 8 * 2.0**-7}


def line(dtype, device, requires_grad=False):
    x = torch.linspace(-1, 1, 8, dtype=torch.float64)
    y = 3 * x - 2
    x, y = (t.to(dtype=dtype, device=device).requires_grad_(requires_grad) for t in (x, y))
    return facets.args(x, y, steps=3, lr=0.1)


def until(device, requires_grad=False):
    x, y = line(torch.float32, device, requires_grad).args[:2]
    return facets.args(x, y, 0.0, max_steps=3, lr=0.1)


FACETS = facets.declare(
    facets.of(
        fit_line,
        facets.Dtypes(line, oracle=gradient_descent_by_hand, ulps=16, atol=ROUNDED),
        facets.Unmodified(lambda device: line(torch.float32, device, requires_grad=True)),
        facets.NoGraph(
            lambda device: line(torch.float32, device, requires_grad=True),
            state=lambda arguments, result: result,
        ),
        facets.Defaults(values={"steps": 100, "lr": 0.1}),
        facets.BadShapes(lambda device: line(torch.float32, device), names=(0, 1)),
        # New tensors the caller can use: no inference tensor (made under inference_mode,
        # which refuses requires_grad_() and in-place writes outside it), no cached pair.
        facets.Returns(lambda device: line(torch.float32, device)),
    ),
    facets.of(
        fit_until,
        # Each step as for fit_line (the budget spent: a loss is never below tol < 0).
        facets.Dtypes(
            lambda dtype, device: facets.args(*line(dtype, device).args[:2], -1.0, 3, 0.1),
            oracle=lambda x, y, tol, max_steps, lr: gradient_descent_by_hand(x, y, max_steps, lr),
            ulps=16,
            atol=ROUNDED,
        ),
        facets.Unmodified(lambda device: until(device, requires_grad=True)),
        facets.NoGraph(
            lambda device: until(device, requires_grad=True),
            state=lambda arguments, result: result,
        ),
        facets.BadShapes(until, names=(0, 1)),
        facets.Returns(until),
        call=lambda *positional, **keywords: fit_until(*positional, **keywords)[:2],
    ),
    facets.of(
        fit_until,
        # tol < 0: the whole budget spent, the steps taken returned.
        facets.Defaults(
            lambda device: facets.args(*line(torch.float32, device).args[:2], -1.0, lr=0.1),
            values={"max_steps": 1000},
        ),
        facets.Defaults(
            lambda device: facets.args(*line(torch.float32, device).args[:2], -1.0, max_steps=3),
            values={"lr": 0.1},
        ),
        name="fit_until(defaults)",
    ),
)
test_facets = FACETS.test
