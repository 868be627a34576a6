import copy

import pytest
import torch
from torch import nn

from katas.q49_gpu_memory import checkpointed_forward, saved_bytes
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    check_tensor,
    saved_tensors_hooks_left,
    seed_for,
    storage_freed,
)

# ------------------------------------------------------------------ saved_bytes

# What each function saves for backward, from autograd's formulas (x: [3, 5] float32 that
# requires grad, 60 bytes).
SAVED = {
    "sin saves its input": (torch.sin, 60),
    "exp saves its output": (torch.exp, 60),
    "x * x saves x twice, held once": (lambda x: x * x, 60),
    "sin saves exp's output, which exp saved": (lambda x: x.exp().sin(), 60),
    "a saved slice holds its whole storage": (lambda x: x[:, :2].sin(), 60),
    "a slice at an offset shares its base's storage": (
        lambda x: x[:, 1:].sin().sum() + x.sin().sum(),
        60,
    ),
    "a contiguous row slice at an offset holds its whole storage": (lambda x: x[1:].sin(), 60),
    "a transpose shares its base's storage": (lambda x: x.sin().sum() + x.t().sin().sum(), 60),
    "two outputs saved": (lambda x: x.exp().exp(), 120),
    "nothing saved: addition needs no tensor": (lambda x: x + 1, 0),
    # Integer tensors are saved too, and hold memory like any other: every tensor packed.
    "max over a dim saves its int64 indices only": (lambda x: x.max(dim=1).values, 24),
    "gather saves its input and its int64 index": (
        lambda x: x.gather(1, torch.zeros(3, 1, dtype=torch.int64, device=x.device)),
        60 + 24,
    ),
}


@pytest.mark.parametrize("case", list(SAVED))
def test_saved_bytes_of_elementwise_functions(device, case):
    fn, expected = SAVED[case]
    x = torch.randn(3, 5, device=device, requires_grad=True)
    got = saved_bytes(fn, x)
    assert got == expected, (
        f"{case}: expected {expected} bytes, got {got}; count each storage once "
        "(untyped_storage().data_ptr()), with its whole size (untyped_storage().nbytes())"
    )


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16], ids=str)
def test_saved_bytes_counts_the_dtype(device, dtype):
    x = torch.randn(7, device=device).to(dtype).requires_grad_()
    expected = 7 * x.element_size()
    assert saved_bytes(torch.sin, x) == expected, f"7 {dtype} elements hold {expected} bytes"


def test_saved_bytes_depends_on_what_requires_grad(device):
    a = torch.randn(4, device=device, requires_grad=True)
    b = torch.randn(4, device=device)
    # d(a*b)/da needs b; d(a*b)/db is not wanted, so a is not saved.
    assert saved_bytes(torch.mul, a, b) == 16, "a * b with only a requiring grad saves b"
    assert saved_bytes(torch.mul, a, b.requires_grad_()) == 32, "with both, it saves both"
    assert saved_bytes(torch.sin, b.detach()) == 0, "nothing requires grad: nothing is saved"
    calls = []

    def sin_counted(t):
        calls.append(t)
        return torch.sin(t)

    with torch.no_grad():
        assert saved_bytes(sin_counted, a) == 0, "under torch.no_grad() nothing is saved"
    assert len(calls) == 1, (
        f"under the caller's torch.no_grad() fn ran {len(calls)} times: run it once all the "
        "same (its side effects happen), and count what it saved"
    )


def test_saved_bytes_counts_parameters_too(device):
    layer = nn.Linear(6, 3).to(device)
    inputs = torch.randn(5, 6, device=device)
    # input @ weight.T: the weight's gradient needs the input; the input's would need the
    # weight, wanted only when the input requires grad.
    assert saved_bytes(layer, inputs) == 5 * 6 * 4, "a layer on a plain input saves the input"
    assert saved_bytes(layer, inputs.requires_grad_()) == 5 * 6 * 4 + 3 * 6 * 4, (
        "with the input requiring grad the layer saves its weight (a transposed view of it) too"
    )


def test_saved_bytes_counts_a_saved_parameter(device):
    x = torch.randn(3, 5, device=device, requires_grad=True)
    weight = nn.Parameter(torch.randn(3, 5, device=device))
    assert saved_bytes(torch.mul, x, weight) == 120, (
        "x * weight saves both (each one's gradient needs the other): a Parameter counts too"
    )


def test_saved_bytes_on_the_meta_device(device):
    # meta tensors have shapes but no memory: every data_ptr() is 0, yet each storage is
    # still one storage of its own size.
    layer = nn.Linear(6, 3, device="meta")
    inputs = torch.randn(5, 6, device="meta", requires_grad=True)
    assert saved_bytes(layer, inputs) == 5 * 6 * 4 + 3 * 6 * 4, (
        "on meta every data_ptr() is 0: tell storages apart by the storage object itself"
    )


def test_saved_bytes_tells_equal_sized_meta_storages_apart(device):
    a = torch.randn(4, device="meta", requires_grad=True)
    b = torch.randn(4, device="meta", requires_grad=True)
    assert saved_bytes(torch.mul, a, b) == 32, (
        "a * b saves two storages of 16 bytes each: on meta both data_ptr()s are 0 and their "
        "sizes are equal; tell storages apart by the storage object itself"
    )


def test_saved_bytes_counts_storages_freed_before_fn_returns(device):
    x = torch.randn(1000, device=device, requires_grad=True)

    def steps(t):
        for _ in range(20):  # each exp saves a new 4000-byte output, freed by its backward
            t.exp().sum().backward()

    got = saved_bytes(steps, x)
    assert got == 20 * 4000, (
        f"20 storages of 4000 bytes were saved one after another, got {got}: the total counts "
        "each (not the peak); a freed storage's id is reused, so keep the storage object"
    )


def test_saved_bytes_leaves_the_saved_tensors_as_they_are(device):
    seen = []

    def fn(t):
        y = t.exp()  # exp saves its output: the same memory must come back, not a copy
        saved = y.grad_fn._saved_result.untyped_storage().data_ptr()  # through unpack
        seen.append((y.untyped_storage().data_ptr(), saved))

    saved_bytes(fn, torch.randn(10, device=device, requires_grad=True))
    address, saved = seen[0]
    assert saved == address, (
        "the tensor autograd saved comes back as a copy: pack and unpack return the tensor "
        "itself (a copy doubles the memory measured and hides in-place changes from backward)"
    )


def test_saved_bytes_keeps_no_saved_tensor_alive(device):
    # A tool that measures memory must not hold it: once saved_bytes returns, what fn saved
    # is freed with fn's graph (no storage kept at module level, in a default argument or
    # on the function). sin saves its input, an intermediate here; an output saved through
    # hooks that return it unchanged stays in a reference cycle inside autograd, so the
    # check watches an input.
    watched = []

    def fn(t):
        h = t * 2
        watched.append(storage_freed(h))
        return h.sin().sum()

    assert saved_bytes(fn, torch.randn(100, device=device, requires_grad=True)) == 400
    assert watched[0](), (
        "the storage fn saved is still alive after saved_bytes returned: keep the storages "
        "you count in a local of the call (nothing at module level), so they go with it"
    )


def test_saved_tensors_come_back_in_backward(device):
    x = torch.randn(3, 5, device=device, requires_grad=True)
    saved_bytes(lambda t: t.sin().sum().backward(), x)  # fn may run backward itself
    assert_close(x.grad, x.detach().cos(), "x.grad from a backward run inside fn")


def test_saved_bytes_removes_its_hooks_when_fn_raises(device):
    x = torch.randn(3, device=device, requires_grad=True)

    def fails(t):
        t.sin()
        raise ValueError("fn failed")

    with pytest.raises(ValueError, match="fn failed"):
        saved_bytes(fails, x)
    left = saved_tensors_hooks_left()  # and removed: the next tests need none
    assert not left, "the hooks stayed installed after fn raised: use them as a `with` block"


def test_saved_bytes_runs_fn_once_and_starts_afresh(device):
    calls = []
    x = torch.randn(3, 5, device=device, requires_grad=True)

    def fn(t):
        calls.append(1)
        return t.sin()

    assert saved_bytes(fn, x) == 60 and len(calls) == 1, "run fn(*args) once"
    assert saved_bytes(fn, x) == 60, "a second call counts afresh (60 bytes), not on top"
    loss = x.exp().sum()
    loss.backward()  # nothing of saved_bytes's hooks is left in place
    assert_close(x.grad, x.detach().exp(), "x.grad after saved_bytes")


# ------------------------------------------------------------------ checkpointed_forward

# The first checkpoint in a process imports torch._dynamo (torch reads one of its settings
# there), about as long as `import torch` itself; a full run pays it once, as it does for
# the first optimizer built.


def stack(device, blocks=3, width=6):
    return [
        nn.Sequential(
            nn.Linear(width, width), nn.GELU(), nn.Dropout(0.3), nn.Linear(width, width), nn.Tanh()
        ).to(device)
        for _ in range(blocks)
    ]


def plain_forward(blocks, x):
    for block in blocks:
        x = block(x)
    return x


def storages_saved(fn):
    """Bytes of the distinct storages autograd saves while fn() runs: the test's own watch."""
    storages = {}

    def pack(tensor):
        storages[tensor.untyped_storage().data_ptr()] = tensor.untyped_storage().nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn()
    return sum(storages.values())


@pytest.mark.parametrize(
    "input_requires_grad, mixed",
    [(False, False), (True, False), (False, True)],
    ids=["input", "input-with-grad", "dropout-training-in-an-eval-block"],
)
def test_checkpointed_forward_matches_the_plain_stack(device, input_requires_grad, mixed):
    blocks = stack(device)
    if mixed:
        # A block in eval mode may still hold a module in training mode that draws random
        # numbers (its dropout here): the random state is restored for every block's
        # recomputation, whatever the block's own flag says.
        for block in blocks:
            block.eval()
            block[2].train()
    x = torch.randn(4, 6, device=device, requires_grad=input_requires_grad)
    torch.manual_seed(seed_for(1))  # the same dropout masks in both runs
    expected = plain_forward(blocks, x)
    expected.square().sum().backward()
    expected_grads = [p.grad.clone() for block in blocks for p in block.parameters()]
    expected_x_grad = x.grad.clone() if input_requires_grad else None
    for block in blocks:
        block.zero_grad(set_to_none=True)
    x.grad = None
    torch.manual_seed(seed_for(1))
    out = checkpointed_forward(blocks, x)
    check_tensor(out, shape=(4, 6), dtype=torch.float32, device=device, name="the output")
    assert_close(out, expected, "the output, against the plain stack")
    out.square().sum().backward()
    got = [p.grad for block in blocks for p in block.parameters()]
    assert all(g is not None for g in got), (
        "some parameters got no gradient: the reentrant checkpoint (use_reentrant=True) gives "
        "none when the block's input does not require grad; use use_reentrant=False"
    )
    for i, (g, e) in enumerate(zip(got, expected_grads, strict=True)):
        assert_close(g, e, f"parameter {i}'s gradient (dropout's masks must be the same again)")
    if input_requires_grad:
        assert_close(x.grad, expected_x_grad, "x.grad")
    # torch.autograd.grad works through the non-reentrant checkpoint, not the reentrant one.
    params = [p for block in blocks for p in block.parameters()]
    torch.manual_seed(seed_for(1))
    grads = torch.autograd.grad(checkpointed_forward(blocks, x).square().sum(), params)
    for i, (g, e) in enumerate(zip(grads, expected_grads, strict=True)):
        assert_close(g, e, f"parameter {i}'s gradient from torch.autograd.grad")


def test_checkpointed_forward_recomputes_each_block_in_backward(device):
    blocks = stack(device, blocks=4)
    calls = []
    for i, block in enumerate(blocks):
        block.register_forward_pre_hook(lambda module, args, i=i: calls.append(i))
    out = checkpointed_forward(blocks, torch.randn(2, 6, device=device))
    assert calls == [0, 1, 2, 3], f"the forward pass should run each block once, got {calls}"
    calls.clear()
    out.sum().backward()
    assert calls == [3, 2, 1, 0], (
        f"the backward pass should run each block's forward again, last block first (each "
        f"under its own checkpoint), got the blocks {calls}"
        + ("; nothing was recomputed: call each block through checkpoint()" if not calls else "")
    )


def test_checkpointed_forward_saves_less(device):
    blocks = stack(device, blocks=4)
    x = torch.randn(8, 6, device=device)
    plain = storages_saved(lambda: plain_forward(blocks, x))
    checkpointed = storages_saved(lambda: checkpointed_forward(blocks, x))
    # A checkpoint keeps its block's input, one [8, 6] float32 tensor a block, at most.
    at_most = len(blocks) * x.numel() * 4
    assert checkpointed <= at_most < plain, (
        f"the plain stack saves {plain} bytes for backward; checkpointed, it should keep at "
        f"most one input a block ({at_most} bytes), got {checkpointed}"
    )


# ---------------------------------------------------------------- facets


def sine_of_ones(device):
    return facets.args(torch.sin, torch.ones(10, device=device, requires_grad=True))


def blocks_and_input(device):
    blocks = [nn.Sequential(nn.Linear(4, 4), nn.GELU()).to(device) for _ in range(3)]
    return facets.args(blocks, torch.randn(2, 4, device=device))


def blocks_in(dtype, device):
    blocks = [nn.Sequential(nn.Linear(4, 4), nn.GELU()).to(device, dtype) for _ in range(3)]
    return facets.args(blocks, torch.randn(2, 4, dtype=dtype, device=device))


def forward64(blocks, x):
    """The blocks' float64 copies, one after another."""
    for block in blocks:
        x = copy.deepcopy(block).cpu().double()(x)
    return x.detach()


FACETS = facets.declare(
    facets.of(
        saved_bytes,
        facets.Number(
            lambda device: facets.args(
                torch.sin, torch.ones(10, device=device, requires_grad=True)
            ),
            int,
        ),
        facets.Runs(
            lambda device, wrap: facets.args(
                wrap(lambda x: (x * x).sum()), torch.ones(10, device=device, requires_grad=True)
            ),
            times=lambda arguments: 1,
        ),
        facets.Propagates(
            lambda device, fault: facets.args(
                fault, torch.ones(10, device=device, requires_grad=True)
            )
        ),
    ),
    facets.of(
        checkpointed_forward,
        facets.Trains(
            blocks_and_input,
            forward=lambda module, device: checkpointed_forward(
                list(module), torch.randn(2, 4, device=device)
            ),
            module=lambda arguments, result: nn.ModuleList(arguments.args[0]),
        ),
        facets.Unmodified(blocks_and_input, module_grads=True),
        # Each block runs in the mode the caller left it in, as the plain loop runs it: no
        # block.train() for the call (dropout in a model the caller evaluates). The blocks
        # are run one by one, each through checkpoint (its own tests count their calls).
        facets.ForwardModes(
            blocks_and_input,
            module=lambda arguments: nn.ModuleList(arguments.args[0]),
            grad=None,
            whole=False,
        ),
        # The blocks' dtype kept, under either default dtype.
        facets.Dtypes(blocks_in, oracle=forward64, dtypes=(torch.float32, torch.float64)),
        facets.Returns(blocks_and_input),
        # Called again after the model changed: read anew, nothing kept from the last call.
        facets.Changed(blocks_and_input),
    ),
)
test_facets = FACETS.test
