import contextlib
import math

import pytest
import torch

from katas.q06_gradients import (
    backward_each,
    grad_of,
    grads_per_loss,
    hessian_vector_product,
)
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_no_torch_internals,
    assert_work_does_not_grow,
    check_tensor,
    forbidden_calls,
    forbidden_modules,
    largest_result,
    raises,
    skip_unless_supported,
)

# Scalar functions with their gradient and Hessian-vector product worked out by hand.
CASES = {
    "sum of cubes": (
        lambda t: (t**3).sum(),
        lambda t: 3 * t**2,
        lambda t, v: 6 * t * v,
    ),
    "euclidean norm": (
        lambda t: t.pow(2).sum().sqrt(),
        lambda t: t / t.norm(),
        # H = (I - u uᵀ) / |t| with u = t / |t|
        lambda t, v: (v - t * (t * v).sum() / t.pow(2).sum()) / t.norm(),
    ),
    "log-sum-exp": (
        lambda t: t.exp().sum().log(),
        lambda t: t.softmax(dim=0),
        # H = diag(s) - s sᵀ with s = softmax(t)
        lambda t, v: (lambda s: s * v - s * (s * v).sum())(t.exp() / t.exp().sum()),
    ),
}


def refuse_backward():
    """Refuse every gradient API but torch.autograd.grad."""
    others = (
        (torch.autograd.functional, ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]),
        (torch.func, ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian"]),
    )
    reason = (
        "use torch.autograd.grad, which returns gradients; .backward() adds them into "
        ".grad, a side effect"
    )
    assert_no_torch_internals(grad_of, reason=reason)
    return _refused(
        forbidden_calls(
            (torch.Tensor, "backward"),
            (torch.autograd, "backward"),
            *((module, name) for module, names in others for name in names),
            reason=reason,
        ),
        # By behaviour too: nothing of the functional and func APIs runs, whatever its name
        # or import (functorch.grad, torch.func.vjp, ...).
        forbidden_modules(
            torch.autograd.functional, "torch._functorch", "functorch", reason=reason
        ),
    )


@contextlib.contextmanager
def _refused(*rules):
    with contextlib.ExitStack() as stack:
        for rule in rules:
            stack.enter_context(rule)
        yield


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_grad_of_matches_the_derivative_worked_out_by_hand(device, case, dtype):
    skip_unless_supported(device, dtype)
    f, gradient, _ = CASES[case]
    x = torch.randn(5, dtype=dtype, device=device)
    result = grad_of(f, x)
    check_tensor(result, shape=(5,), dtype=dtype, device=device, name="grad_of(f, x)")
    assert_close(result, gradient(x), f"wrong gradient of {case}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_hessian_vector_product_matches_the_one_worked_out_by_hand(device, case, dtype):
    skip_unless_supported(device, dtype)
    f, _, hvp = CASES[case]
    x, v = torch.randn(2, 5, dtype=dtype, device=device)
    result = hessian_vector_product(f, x, v)
    check_tensor(result, shape=(5,), dtype=dtype, device=device, name="the Hessian-vector product")
    assert_close(
        result, hvp(x, v), f"H @ v is wrong for {case}; differentiate (grad * v).sum() again"
    )


def test_hessian_vector_product_on_a_matrix_input_equals_hessian_times_v(device):
    skip_unless_supported(device, torch.float64)
    w = torch.randn(3, 4, dtype=torch.float64, device=device)

    def f(t):
        return (torch.tanh(t) * w).sum() ** 2 + (t**4).sum()

    x, v = torch.randn(2, 3, 4, dtype=torch.float64, device=device)
    result = hessian_vector_product(f, x, v)
    check_tensor(result, shape=(3, 4), dtype=torch.float64, device=device, name="H @ v")
    hessian = torch.autograd.functional.hessian(f, x).reshape(12, 12)
    assert_close(
        result,
        (hessian @ v.reshape(12)).reshape(3, 4),
        "x and v count as flattened vectors: H @ v must equal reshape(H @ v)",
    )


def test_hessian_vector_product_of_a_linear_function_is_zero(device):
    w = torch.randn(4, device=device, requires_grad=True)
    x, v = torch.randn(2, 4, device=device)
    for name, f in (("3·x", lambda t: (3 * t).sum()), ("w·x, w requiring grad", lambda t: t @ w)):
        result = hessian_vector_product(f, x, v)
        check_tensor(result, shape=(4,), dtype=x.dtype, device=device, name=f"H @ v for {name}")
        assert torch.equal(result.cpu(), torch.zeros(4)), (
            f"f = {name} is linear, so H @ v must be zeros; the gradient does not depend on x "
            "(check requires_grad, and pass materialize_grads=True to torch.autograd.grad)"
        )
    assert w.grad is None, "w.grad changed; nothing may write into .grad"


@pytest.mark.parametrize("preset", [False, True], ids=["grad-None", "grad-set"])
@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_no_grad_attribute_changes(device, which, preset):
    w = torch.randn(4, device=device, requires_grad=True)
    x = torch.randn(4, device=device, requires_grad=True)
    if preset:
        x.grad = torch.full_like(x, 7.0)
        w.grad = torch.full_like(w, -3.0)
    x_before = x.detach().clone()

    def f(t):
        return ((t * w).sin() ** 2).sum()

    if which == "grad_of":
        grad_of(f, x)
    else:
        hessian_vector_product(f, x, torch.ones_like(x))
    for name, tensor in (("x", x), ("w (a tensor f uses)", w)):
        if preset:
            assert tensor.grad is not None, f"{name}.grad was reset to None; leave it alone"
            expected = 7.0 if name == "x" else -3.0
            assert torch.equal(tensor.grad.cpu(), torch.full((4,), expected)), (
                f"{name}.grad changed; use torch.autograd.grad, which returns gradients "
                "instead of adding them into .grad"
            )
        else:
            assert tensor.grad is None, (
                f"{name}.grad was written; use torch.autograd.grad with only the point "
                "as input, which returns the gradient and writes no .grad"
            )
    assert torch.equal(x.detach(), x_before), "x's values changed"
    assert x.requires_grad and x.is_leaf, "x's autograd flags changed"


@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_does_not_switch_on_requires_grad_of_the_callers_tensor(device, which):
    x = torch.randn(3, device=device)
    if which == "grad_of":
        grad_of(lambda t: (t**2).sum(), x)
    else:
        hessian_vector_product(lambda t: (t**3).sum(), x, torch.ones_like(x))
    assert not x.requires_grad, (
        "x.requires_grad was switched on; work on x.detach().requires_grad_() instead "
        "of changing the caller's tensor"
    )


@pytest.mark.parametrize("kind", ["a leaf with a hook", "a non-leaf that retains its grad"])
@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_the_callers_hooks_and_retained_grads_stay_out(device, which, kind):
    # x's own autograd state belongs to the caller's backward passes: a hook on x (one that
    # clips or logs gradients) is not run, and a non-leaf x that retains its grad gets none.
    a = torch.randn(4, device=device, requires_grad=True)
    calls = []
    if kind == "a leaf with a hook":
        x = a
        x.register_hook(lambda grad: calls.append(1) or torch.zeros_like(grad))
    else:
        x = 2 * a + 1
        x.retain_grad()
    v = torch.randn(4, device=device)
    if which == "grad_of":
        result = grad_of(lambda t: (t**3).sum(), x)
        expected = 3 * x.detach() ** 2
    else:
        result = hessian_vector_product(lambda t: (t**3).sum(), x, v)
        expected = 6 * x.detach() * v
    assert_close(result, expected, f"{which} of {kind} must be that of f alone")
    assert not calls, (
        f"{which} ran a hook the caller registered on x ({len(calls)} calls): take the "
        "gradient with respect to x.detach().requires_grad_(), a fresh leaf, not x itself"
    )
    assert x.grad is None and a.grad is None, (
        f"{which} wrote x.grad (x retains its grad): nothing may write .grad; take the "
        "gradient with respect to x.detach().requires_grad_(), not x itself"
    )


def test_grad_of_a_non_leaf_input_is_taken_with_respect_to_it(device):
    a = torch.randn(4, device=device, requires_grad=True)
    x = 2 * a + 1  # a non-leaf: its gradient is df/dx, not df/da
    result = grad_of(lambda t: (t**3).sum(), x)
    check_tensor(result, shape=(4,), dtype=x.dtype, device=device, name="grad_of(f, x)")
    assert_close(
        result,
        3 * x.detach() ** 2,
        "for a non-leaf x the gradient is df/dx = 3x², not df/da = 6x²",
    )
    assert a.grad is None, "a.grad changed (x was computed from a); nothing may write .grad"
    assert x.grad_fn is not None and not x.is_leaf, "x's own graph must be left as it was"


def test_hessian_vector_product_of_a_non_leaf_input(device):
    a = torch.randn(4, device=device, requires_grad=True)
    x = a * a
    v = torch.randn(4, device=device)
    result = hessian_vector_product(lambda t: (t**3).sum(), x, v)
    check_tensor(result, shape=(4,), dtype=x.dtype, device=device, name="H @ v")
    assert_close(
        result, 6 * x.detach() * v, "for a non-leaf x, H @ v is taken with respect to x itself"
    )
    assert a.grad is None, "a.grad changed (x was computed from a); nothing may write .grad"


@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_results_are_detached(device, which):
    w = torch.randn(3, device=device, requires_grad=True)
    x = torch.randn(3, device=device, requires_grad=True)

    def f(t):
        return (t * w).pow(3).sum()

    if which == "grad_of":
        result = grad_of(f, x)
    else:
        result = hessian_vector_product(f, x, torch.ones_like(x))
    assert result.grad_fn is None and not result.requires_grad, (
        f"{which} must return a plain tensor, detached from any graph "
        "(do not pass create_graph=True to the last torch.autograd.grad)"
    )


@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_works_inside_no_grad(device, which):
    x = torch.randn(3, device=device)
    advice = "under torch.no_grad() f records nothing; do the work inside torch.enable_grad()"
    try:
        with torch.no_grad():
            if which == "grad_of":
                result = grad_of(lambda t: (t**3).sum(), x)
                expected = 3 * x**2
            else:
                result = hessian_vector_product(lambda t: (t**3).sum(), x, torch.ones_like(x))
                expected = 6 * x
    except NotImplementedError:
        raise
    except RuntimeError as error:  # autograd's "does not require grad"
        raise AssertionError(f"{advice}\n{error}") from error
    assert_close(result, expected, advice)


@pytest.mark.parametrize(
    "shape, layout", [((), "0-dim"), ((0,), "empty"), ((1, 1), "size-1"), ((3, 4), "transposed")]
)
@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_odd_shapes_and_layouts(device, which, shape, layout):
    x = torch.randn(shape, device=device)
    if layout == "transposed":
        x = x.t()  # non-contiguous
    v = torch.randn_like(x)  # with x's layout: non-contiguous too
    if which == "grad_of":
        result = grad_of(lambda t: (t.sin() * t).sum(), x)
        expected = x.sin() + x * x.cos()
    else:
        result = hessian_vector_product(lambda t: (t.sin() * t).sum(), x, v)
        expected = (2 * x.cos() - x * x.sin()) * v
    check_tensor(result, shape=x.shape, dtype=x.dtype, device=device, name=which)
    assert_close(
        result,
        expected,
        f"{which} is wrong for a {layout} x; work elementwise or with reshape, "
        "not .view(-1), which needs a contiguous tensor",
    )


NOT_SCALARS = {
    "a vector": lambda t: t**2,
    "shape (1,)": lambda t: (t**2).sum().reshape(1),
    "a Python float": lambda t: 1.5,
}


@pytest.mark.parametrize("flag", [False, True], ids=["plain", "requires-grad"])
@pytest.mark.parametrize("result", list(NOT_SCALARS))
@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_rejects_functions_that_do_not_return_a_0_dim_tensor(device, which, result, flag):
    x = torch.randn(3, device=device).requires_grad_(flag)
    before = x.detach().clone()
    f = NOT_SCALARS[result]
    with raises(ValueError):
        if which == "grad_of":
            grad_of(f, x)
        else:
            hessian_vector_product(f, x, torch.ones_like(x))
    assert x.requires_grad == flag and x.grad is None, (
        "after the ValueError, x's requires_grad flag (or .grad) is not what the caller set: "
        "an error path leaves the caller's tensor changed; work on x.detach()"
    )
    assert torch.equal(x.detach(), before), "x's values changed"


@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_calls_f_exactly_once(device, which):
    calls = []

    def f(t):
        calls.append(t.shape)
        return (t**3).sum()

    x = torch.randn(3, device=device)
    with torch.no_grad():  # also where a look at f(x) first might seem cheap
        if which == "grad_of":
            grad_of(f, x)
        else:
            hessian_vector_product(f, x, torch.ones_like(x))
    assert len(calls) == 1, (
        f"f was called {len(calls)} times: call it once, check its result, and differentiate "
        "that same result (f may update state or draw random numbers)"
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("f_kind", ["a constant", "other tensors only"])
@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_a_function_that_ignores_x_has_zero_derivatives(device, which, f_kind, dtype):
    skip_unless_supported(device, dtype)
    w = torch.randn(4, device=device, requires_grad=True)
    if f_kind == "a constant":

        def f(t):
            return torch.tensor(2.5, device=t.device)
    else:

        def f(t):
            return (w**2).sum()

    x = torch.randn(2, 2, dtype=dtype, device=device)
    if which == "grad_of":
        result = grad_of(f, x)
    else:
        result = hessian_vector_product(f, x, torch.ones_like(x))
    check_tensor(result, shape=(2, 2), dtype=dtype, device=device, name=which)
    assert torch.equal(result.cpu(), torch.zeros(2, 2, dtype=dtype)), (
        f"f is {f_kind}, so its derivatives with respect to x are zeros; pass "
        "materialize_grads=True to torch.autograd.grad, and return zeros when f(x) does not "
        "require grad"
    )
    assert result.grad_fn is None and not result.requires_grad, (
        f"{which} must return a detached tensor"
    )
    assert w.grad is None, "w.grad changed; nothing may write into .grad"


@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_a_function_that_returns_its_input_itself(device, which):
    # f(t) = t on a 0-dim x: f's result is the point itself, a leaf without a grad_fn, yet it
    # depends on x (slope 1, curvature 0). Only requires_grad tells a constant apart.
    x = torch.tensor(1.5, device=device)
    if which == "grad_of":
        result, expected = grad_of(lambda t: t, x), torch.ones(())
    else:
        result, expected = (
            hessian_vector_product(lambda t: t, x, torch.ones_like(x)),
            torch.zeros(()),
        )
    check_tensor(result, shape=(), dtype=x.dtype, device=device, name=which)
    assert torch.equal(result.cpu(), expected), (
        f"{which} of f(t) = t at 1.5 should be {expected.item()}, got {result.item()}: f's "
        "result may be the point itself, a leaf with no grad_fn; a result that does not depend "
        "on x is one that does not require grad (not one without a grad_fn)"
    )


def test_hessian_vector_product_never_builds_the_hessian(device):
    n = 64
    x, v = torch.randn(2, n, device=device)
    with largest_result() as record:
        result = hessian_vector_product(lambda t: (t**3).sum(), x, v)
    check_tensor(result, shape=(n,), dtype=x.dtype, device=device, name="H @ v")
    assert_close(result, 6 * x * v, "H @ v is wrong for the sum of cubes")
    assert record.largest < n * n, (
        f"a tensor of {record.largest} elements was built for x of {n} elements: that is the "
        "full Hessian; differentiate (grad * v).sum() instead, which never builds it"
    )
    # Nor row by row: one backward pass per element of x computes the whole Hessian too,
    # without keeping it. Two backward passes do as many operations for any size of x.
    assert_work_does_not_grow(
        hessian_vector_product,
        lambda size: (lambda t: (t**3).sum(), *torch.randn(2, size, device=device)),
        over="elements of x",
        advice="Two backward passes, the second of (grad * v).sum(), take as many operations "
        "for any size of x; one pass per element computes the whole Hessian",
    )


@pytest.mark.parametrize("which", ["grad_of", "hessian_vector_product"])
def test_uses_torch_autograd_grad(device, which):
    x = torch.full((2,), math.pi / 4, device=device)
    with refuse_backward():
        if which == "grad_of":
            grad_of(lambda t: t.sin().sum(), x)
        else:
            hessian_vector_product(lambda t: t.sin().sum(), x, torch.ones_like(x))


# --- backward_each -----------------------------------------------------------------------


def shared_setup(device):
    w = torch.randn(3, 4, device=device, requires_grad=True)
    b = torch.randn(4, device=device, requires_grad=True)
    return w, b, torch.randn(5, 3, device=device)


@pytest.mark.parametrize("count", [1, 2, 3])
def test_backward_each_adds_every_losss_gradient_into_grad(device, count):
    w, b, x = shared_setup(device)
    expected = [torch.zeros_like(w), torch.ones_like(b)]
    b.grad = torch.ones_like(b)  # what b held before stays added in; w's None counts as 0
    for i in range(count):
        grads = torch.autograd.grad(two_heads(w, b, x)[i % 2], (w, b))
        for total, grad in zip(expected, grads, strict=True):
            total += grad
    losses = (two_heads(w, b, x) * 2)[:count]
    backward_each(losses)
    for name, param, want in zip("wb", (w, b), expected, strict=True):
        assert param.grad is not None, f"{name}.grad is None: call .backward() on each loss"
        assert_close(param.grad, want, msg=f"{name}.grad: what it held plus every loss's gradient")


def test_backward_each_reaches_each_loss_own_leaves(device):
    w, b, x = shared_setup(device)
    other = torch.randn(4, device=device, requires_grad=True)
    losses = [*two_heads(w, b, x), (other**2).sum()]
    backward_each(losses)
    assert_close(other.grad, 2 * other.detach(), msg="a leaf reached by one loss only")


@pytest.mark.parametrize("count", [1, 2])
def test_backward_each_frees_the_graph_after_the_last_pass(device, count):
    w, b, x = shared_setup(device)
    trunk, losses = trunk_and_heads(w, b, x)
    losses = losses[:count]  # one loss alone: its pass is the last
    backward_each(losses)
    assert_last_pass_freed(losses, [w, b], trunk)


def test_backward_each_runs_one_pass_per_loss_in_order(device):
    w, b, x = shared_setup(device)
    trunk, losses = trunk_and_heads(w, b, x)
    losses.append(trunk.exp().sum())
    with passes_recorded(losses, w) as events:
        backward_each(losses)
    assert events == ["loss 0", "w", "loss 1", "w", "loss 2", "w"], (
        f"autograd ran {events}: run one backward pass per loss, in the losses' order, each "
        "adding into w.grad before the next begins"
    )


def test_backward_each_of_nothing_changes_nothing(device):
    w, _, _ = shared_setup(device)
    backward_each([])
    assert w.grad is None


# --- grads_per_loss ----------------------------------------------------------------------


def trunk_and_heads(w, b, x):
    """Two losses on one trunk; tanh and sin save tensors, so a freed graph shows."""
    trunk = (x @ w + b).tanh()
    return trunk, [trunk.pow(2).mean(), (trunk * x[:, :1]).sum().sin()]


def two_heads(w, b, x):
    return trunk_and_heads(w, b, x)[1]


def assert_last_pass_freed(losses, params, trunk):
    # The last pass walks the last loss's head and the shared trunk: both are freed. Probed
    # down to the trunk only, the last head shows a pass run out of order, or retained.
    with pytest.raises(RuntimeError, match=r"second time|freed"):
        torch.autograd.grad(losses[-1], trunk)
        pytest.fail("the last loss's head kept its graph: its pass, the last, frees it")
    with pytest.raises(RuntimeError, match=r"second time|freed"):
        torch.autograd.grad(losses[0], params)
        pytest.fail("the shared trunk kept its graph: the last pass frees it")


@contextlib.contextmanager
def passes_recorded(losses, leaf):
    """Record, in order, each loss's gradient being computed and each time leaf gets one."""
    events = []
    handles = [
        loss.register_hook(lambda grad, i=i: events.append(f"loss {i}"))
        for i, loss in enumerate(losses)
    ]
    handles.append(leaf.register_hook(lambda grad: events.append("w")))
    try:
        yield events
    finally:
        for handle in handles:
            handle.remove()


@pytest.mark.parametrize("count", [1, 2, 3])
def test_grads_per_loss_gives_each_losss_own_gradients(device, count):
    w = torch.randn(3, 4, device=device, requires_grad=True)
    b = torch.randn(4, device=device, requires_grad=True)
    x = torch.randn(5, 3, device=device)
    expected = [torch.autograd.grad(two_heads(w, b, x)[i % 2], (w, b)) for i in range(count)]
    beside = torch.randn(4, device=device, requires_grad=True)  # reached, but not a param
    # With 3, the first loss comes again last (the same tensor): its second pass is the last.
    losses = ([loss + beside.sum() for loss in two_heads(w, b, x)] * 2)[:count]
    got = grads_per_loss(losses, [w, b])
    assert isinstance(got, list) and len(got) == count, f"one tuple per loss, got {got!r}"
    for index, (grads, want) in enumerate(zip(got, expected, strict=True)):
        assert isinstance(grads, tuple) and len(grads) == 2, (
            f"loss {index}: a tuple with one gradient per param, got {grads!r}"
        )
        for name, grad, oracle in zip("wb", grads, want, strict=True):
            check_tensor(grad, shape=oracle.shape, dtype=oracle.dtype, device=device, name=name)
            assert not grad.requires_grad, f"loss {index}: d/d{name} should be detached"
            assert_close(grad, oracle, msg=f"d(loss {index})/d{name}: its own, not a sum")
    assert w.grad is None and b.grad is None and beside.grad is None, (
        "no .grad changes, of params or of any other leaf the losses reach: use torch.autograd.grad"
    )


@pytest.mark.parametrize("count", [1, 2])
def test_grads_per_loss_frees_the_graph_after_the_last_pass(device, count):
    w = torch.randn(3, 4, device=device, requires_grad=True)
    b = torch.randn(4, device=device, requires_grad=True)
    trunk, losses = trunk_and_heads(w, b, torch.randn(5, 3, device=device))
    losses = losses[:count]  # one loss alone: its pass is the last
    with passes_recorded(losses, w) as events:
        grads_per_loss(losses, [w, b])
    assert events == ["loss 0", "w", "loss 1", "w"][: 2 * count], (
        f"autograd ran {events}: one pass per loss, in the losses' order"
    )
    assert_last_pass_freed(losses, [w, b], trunk)
    # The message above is torch's: the shared trunk's saved tensors are gone, as they
    # should be once the last loss has been differentiated (retain_graph on every pass
    # would keep them in memory for as long as the losses live).


# ---------------------------------------------------------------- facets


def cube(t):
    return (t**3).sum()


def cubic(dtype, device, requires_grad=False):
    # Steps of 2/3: float64 values that float32 does not hold.
    x = torch.linspace(-2, 2, 7, dtype=torch.float64).to(dtype=dtype, device=device)
    return facets.args(cube, x.requires_grad_(requires_grad))


def cubic_hvp(dtype, device, requires_grad=False):
    f, x = cubic(dtype, device, requires_grad).args
    return facets.args(f, x, torch.linspace(1, -1, 7, dtype=dtype, device=device))


def cubic_of_shape(shape, device):
    x = torch.linspace(-2, 2, 12)[: torch.Size(shape).numel()].reshape(shape).to(device)
    return facets.args(cube, x)


def hvp_of_shape(shape, device):
    f, x = cubic_of_shape(shape, device).args
    return facets.args(f, x, x.flip(tuple(range(x.dim()))) if x.dim() else x * 2)


SHAPES = ("0-dim", "1-D", "empty", "size 1", "non-contiguous")


def shared_trunk(dtype, device):
    """Two losses on one trunk; every value exact in each floating dtype."""
    w = torch.tensor([1.0, 2.0, -0.5], dtype=dtype, device=device, requires_grad=True)
    h = w * 3
    return facets.args([h.sum(), (h**2).sum()], [w])


def each_loss(losses, params):
    return tuple(grad for grads in grads_per_loss(losses, params) for grad in grads)


FACETS = facets.declare(
    facets.of(
        grad_of,
        facets.Dtypes(cubic, oracle=lambda f, x: 3 * x**2, ulps=2),
        facets.Shapes(cubic_of_shape, oracle=lambda f, x: 3 * x**2, shapes=SHAPES),
        facets.Unmodified(lambda device: cubic(torch.float32, device, requires_grad=True)),
        facets.NoGraph(
            lambda device: cubic(torch.float32, device, requires_grad=True),
            state=lambda arguments, result: result,
        ),
        facets.Propagates(lambda device, fault: facets.args(fault, torch.ones(3, device=device))),
        # f once, with grad on also under the caller's no_grad (its gradient is wanted).
        facets.Runs(
            lambda device, wrap: cubic(torch.float32, device).through(0, wrap),
            times=lambda arguments: 1,
            grad=True,
        ),
    ),
    facets.of(
        hessian_vector_product,
        facets.Dtypes(cubic_hvp, oracle=lambda f, x, v: 6 * x * v, ulps=2),
        facets.Shapes(hvp_of_shape, oracle=lambda f, x, v: 6 * x * v, shapes=SHAPES),
        facets.Unmodified(lambda device: cubic_hvp(torch.float32, device, requires_grad=True)),
        facets.NoGraph(
            lambda device: cubic_hvp(torch.float32, device, requires_grad=True),
            state=lambda arguments, result: result,
        ),
        facets.Propagates(
            lambda device, fault: cubic_hvp(torch.float32, device, requires_grad=True).at(0, fault)
        ),
        facets.Runs(
            lambda device, wrap: cubic_hvp(torch.float32, device).through(0, wrap),
            times=lambda arguments: 1,
            grad=True,
        ),
    ),
    facets.none(
        backward_each,
        "updates .grad by contract and returns nothing: its own tests check what each leaf's "
        ".grad adds up to and that the last pass frees the graph",
    ),
    facets.of(
        grads_per_loss,
        facets.Dtypes(
            shared_trunk,
            oracle=lambda losses, params: (torch.full_like(params[0], 3.0), 18 * params[0]),
            strided=False,  # the losses are computed from these very params
        ),
        # "No .grad changes": None stays None, and a .grad the caller set stays as it was.
        facets.Unmodified(lambda device: shared_trunk(torch.float32, device)),
        facets.NoGraph(
            lambda device: shared_trunk(torch.float32, device),
            state=lambda arguments, result: result,
        ),
        call=each_loss,
    ),
)
test_facets = FACETS.test
