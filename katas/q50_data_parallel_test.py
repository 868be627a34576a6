import contextlib
import copy
import datetime
import math
import multiprocessing
import threading
import traceback

import pytest
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DistributedSampler, TensorDataset

import katas.q50_data_parallel as kata
from katas.q50_data_parallel import average_gradients, global_mean, rank_loader
from torch_katas import facets
from torch_katas.testing import assert_close, check_tensor, raises, seed_for, skip_unless_supported

# ------------------------------------------------------------------ ranks in one process

# Ranks are threads here, each holding its own gloo group over one in-memory store: the same
# collectives as between processes, without starting a process (each would import torch
# again). The timeout ends a rank that waits for a collective another rank never calls.
TIMEOUT = datetime.timedelta(seconds=5)


def skip_unless_gloo(device):
    if device.type not in ("cpu", "cuda"):
        pytest.skip(
            f"gloo reduces CPU and CUDA tensors only; no collective backend takes "
            f"{device.type} tensors (the CPU run checks these values)"
        )


def on_ranks(world_size, fn, tries=3):
    """[fn(rank, group) for each rank], every rank on a thread of its own, in one group."""
    store = dist.HashStore()
    results, errors = [None] * world_size, [None] * world_size
    connected = [False] * world_size
    # Each rank keeps its group until every rank is done: a group closed early (a rank with
    # nothing to reduce) breaks a peer still connecting to it.
    done = threading.Barrier(world_size, timeout=2 * TIMEOUT.total_seconds())

    def run(rank):
        try:
            group = dist.ProcessGroupGloo(store, rank, world_size, TIMEOUT)
            connected[rank] = True
            results[rank] = fn(rank, group)
        except BaseException as error:  # raised in the test's thread, below
            errors[rank] = error
        with contextlib.suppress(threading.BrokenBarrierError):  # a rank still waits: below
            done.wait()

    threads = [threading.Thread(target=run, args=(r,), daemon=True) for r in range(world_size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=3 * TIMEOUT.total_seconds())
    if not any(connected) and tries > 1 and not any(t.is_alive() for t in threads):
        # Gloo could not connect the ranks within the timeout (a busy machine): fn ran on
        # none of them, so start over.
        return on_ranks(world_size, fn, tries - 1)
    for error in errors:
        if error is not None:
            raise error
    assert not any(t.is_alive() for t in threads), (
        "a rank is still waiting in a collective: every rank must call the same collectives "
        "in the same order"
    )
    return results


@pytest.fixture
def default_group():
    """A default process group of one rank, this process: what group=None means."""
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1, timeout=TIMEOUT)
    yield
    dist.destroy_process_group()


# ------------------------------------------------------------------ rank_loader


def indexed(n, device):
    """A dataset whose samples say which index they are: (index, index as a float)."""
    return TensorDataset(torch.arange(n, device=device), torch.arange(n, device=device) * 0.5)


def sampler_batches(dataset, batch_size, rank, world_size, epoch, seed):
    """The oracle: DistributedSampler's indices for the rank, in batches."""
    sampler = DistributedSampler(
        dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=seed
    )
    sampler.set_epoch(epoch)
    indices = list(sampler)
    return [indices[i : i + batch_size] for i in range(0, len(indices), batch_size)]


@pytest.mark.parametrize(
    ("n", "world_size", "batch_size"),
    [(12, 2, 4), (11, 3, 2), (5, 1, 5), (1, 4, 1), (2, 5, 2)],
    ids=["even", "padded", "one-rank", "one-sample-four-ranks", "more-ranks-than-samples"],
)
def test_rank_loader_gives_each_rank_its_shard(device, n, world_size, batch_size):
    dataset, seed, seen = indexed(n, device), seed_for(0), []
    for rank in range(world_size):
        batches = list(rank_loader(dataset, batch_size, rank, world_size, epoch=0, seed=seed))
        expected = sampler_batches(dataset, batch_size, rank, world_size, epoch=0, seed=seed)
        got = [index.tolist() for index, _ in batches]
        assert got == expected, (
            f"rank {rank} of {world_size}: expected the batches of indices {expected} "
            f"(DistributedSampler with num_replicas, rank, shuffle=True and the seed, after "
            f"set_epoch), got {got}"
        )
        index, value = batches[0]
        check_tensor(index, dtype=torch.int64, device=device, name="a batch's first field")
        assert_close(value, index * 0.5, "each batch holds the samples of its indices")
        seen += [i for batch in got for i in batch]
    per_rank = -(-n // world_size)
    assert sorted(set(seen)) == list(range(n)) and len(seen) == per_rank * world_size, (
        f"together the ranks' shards should hold every index, {per_rank} a rank"
    )


def test_rank_loader_shuffles_anew_each_epoch(device):
    dataset = indexed(16, device)
    seed = seed_for(0)
    loader = rank_loader(dataset, 8, 1, 2, epoch=0, seed=seed)
    assert loader.num_workers == 0, (
        "load in this process (num_workers=0): the data is on the device"
    )
    orders = []
    # Three loaders held side by side, each iterated twice: each keeps its own epoch's order
    # (a sampler shared between calls, or set to a later epoch since, shows).
    loaders = [rank_loader(dataset, 8, 1, 2, epoch=epoch, seed=seed) for epoch in range(3)]
    for epoch, loader in enumerate(loaders * 2):
        epoch %= 3
        got = [i.tolist() for i, _ in list(loader)]
        expected = sampler_batches(dataset, 8, 1, 2, epoch=epoch, seed=seed)
        assert got == expected, (
            f"epoch {epoch}: expected {expected}, got {got}; call the sampler's "
            "set_epoch(epoch) so each epoch draws a new permutation (from seed + epoch), on "
            "a sampler of each loader's own"
        )
        orders.append(got)
    orders = orders[:3]
    assert orders[0] != orders[1] != orders[2]


def test_rank_loader_follows_the_seed(device):
    dataset = indexed(16, device)
    for seed in (seed_for(3), seed_for(4)):
        got = [i.tolist() for i, _ in list(rank_loader(dataset, 16, 0, 2, epoch=1, seed=seed))]
        expected = sampler_batches(dataset, 16, 0, 2, epoch=1, seed=seed)
        assert got == expected, (
            f"seed {seed}: expected {expected}, got {got}; pass the seed to the sampler: every "
            "rank must draw the same permutation, so the same seed on every rank"
        )


@pytest.mark.parametrize("rank", [-1, 2], ids=["negative", "world_size"])
def test_rank_loader_refuses_a_rank_outside_the_world(device, rank):
    with raises(ValueError):
        rank_loader(indexed(4, device), 2, rank, 2, epoch=0)  # the call, before any iteration


def test_rank_loader_leaves_the_global_random_state_alone(device, monkeypatch):
    # torch.manual_seed reseeds every CUDA generator through these, even where no GPU is
    # present (then they do nothing): a call seen here would reseed the caller's GPUs.
    reseeded = []
    for name in ("manual_seed", "manual_seed_all"):
        monkeypatch.setattr(torch.cuda, name, lambda seed, name=name: reseeded.append(name))
    state = torch.get_rng_state()
    # torch.manual_seed reseeds every CUDA generator too.
    cuda_states = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []
    rank_loader(indexed(16, device), 4, 1, 2, epoch=3, seed=seed_for(5))
    assert not reseeded, (
        f"the call reseeded the CUDA generators (torch.cuda.{reseeded[0]}, which "
        "torch.manual_seed calls, inside fork_rng or not): draw the permutation from a "
        "torch.Generator of its own"
    )
    cuda_now = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []
    assert all(torch.equal(a, b) for a, b in zip(cuda_now, cuda_states, strict=True)), (
        "the call reseeded a CUDA generator (torch.manual_seed seeds them all): draw the "
        "permutation from a torch.Generator of its own"
    )
    assert torch.equal(torch.get_rng_state(), state), (
        "the call changed the global random state (torch.manual_seed or a draw from the "
        "global generator): draw the permutation from a torch.Generator of its own"
    )


# ------------------------------------------------------------------ average_gradients


def model_on(device, dtype=torch.float32):
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).to(device, dtype)
    model[0].bias.requires_grad_(False)  # a frozen parameter: no gradient on any rank
    return model


def full_batch_gradients(model, inputs, targets):
    """The oracle: one process, the whole batch, plain autograd."""
    model = copy.deepcopy(model)
    nn.functional.mse_loss(model(inputs), targets).backward()
    return [p.grad for p in model.parameters()]


def data_parallel_gradients(model, inputs, targets, world_size):
    """Each rank: its own copy of the model, its own equal shard of the batch, backward,
    then average_gradients. Returns every rank's gradients."""
    copies = [copy.deepcopy(model) for _ in range(world_size)]

    def rank_step(rank, group):
        replica = copies[rank]
        loss = nn.functional.mse_loss(replica(inputs[rank::world_size]), targets[rank::world_size])
        loss.backward()
        assert average_gradients(replica, group) is None, "average_gradients returns None"
        return [p.grad for p in replica.parameters()]

    return on_ranks(world_size, rank_step), copies


@pytest.mark.parametrize("world_size", [2, 3])
def test_average_gradients_gives_the_full_batch_gradient(device, world_size):
    skip_unless_gloo(device)
    model = model_on(device)
    inputs = torch.randn(4 * world_size, 3, device=device)
    targets = torch.randn(4 * world_size, 2, device=device)
    ranks, copies = data_parallel_gradients(model, inputs, targets, world_size)
    expected = full_batch_gradients(model, inputs, targets)
    for rank, grads in enumerate(ranks):
        assert grads[1] is None, "a frozen parameter (no .grad) should be left without one"
        for i, (got, want) in enumerate(zip(grads, expected, strict=True)):
            if want is None:
                continue
            check_tensor(got, dtype=torch.float32, device=device, name=f"parameter {i}'s grad")
            assert_close(
                got,
                want,
                f"rank {rank}, parameter {i}: the mean over the ranks of their gradients (the "
                f"all-reduce sum divided by the world size, {world_size}) is the gradient of "
                "the whole batch",
            )
    # The same gradients on every rank: the same step, so the replicas stay identical.
    for replica in copies:
        with torch.no_grad():
            for p in replica.parameters():
                if p.grad is not None:
                    p -= 0.1 * p.grad
    for rank, replica in enumerate(copies[1:], 1):
        for p, q in zip(replica.parameters(), copies[0].parameters(), strict=True):
            assert torch.equal(p, q), (
                f"after one SGD step rank {rank}'s model differs from rank 0's"
            )


def test_average_gradients_keeps_float64(device):
    skip_unless_gloo(device)
    model = model_on(device, torch.float64)
    inputs = torch.randn(6, 3, device=device, dtype=torch.float64)
    targets = torch.randn(6, 2, device=device, dtype=torch.float64)
    ranks, _ = data_parallel_gradients(model, inputs, targets, 2)
    expected = full_batch_gradients(model, inputs, targets)
    for got, want in zip(ranks[0], expected, strict=True):
        if want is not None:
            check_tensor(got, dtype=torch.float64, device=device, name="a float64 gradient")
            assert_close(got, want, "float64 gradients, averaged in float64")


def test_average_gradients_uses_the_default_group(device, default_group):
    skip_unless_gloo(device)
    model = model_on(device)
    inputs, targets = torch.randn(4, 3, device=device), torch.randn(4, 2, device=device)
    nn.functional.mse_loss(model(inputs), targets).backward()
    expected = [None if p.grad is None else p.grad.clone() for p in model.parameters()]
    average_gradients(model)  # group=None: the default group, of one rank here
    for i, (p, want) in enumerate(zip(model.parameters(), expected, strict=True)):
        if want is None:
            assert p.grad is None, "a frozen parameter should be left without a gradient"
        else:
            assert_close(p.grad, want, f"parameter {i}: one rank's mean is its own gradient")


@pytest.mark.parametrize("kind", facets.EDGE_MODELS)
def test_average_gradients_of_the_edge_models(device, kind):
    # Nothing, no parameters, buffers only, or frozen parameters that still hold a .grad:
    # nothing to reduce, or those alone (no torch.cat or _foreach op over no tensors).
    skip_unless_gloo(device)
    models = [facets.EDGE_MODELS[kind]().to(device) for _ in range(2)]
    for rank, model in enumerate(models):
        for parameter in model.parameters():
            parameter.grad = torch.full_like(parameter, float(rank + 1))
    buffers = [[buffer.clone() for buffer in model.buffers()] for model in models]

    def rank_step(rank, group):
        assert average_gradients(models[rank], group) is None, "return None"
        return [p.grad for p in models[rank].parameters()]

    for rank, grads in enumerate(on_ranks(2, rank_step)):
        for i, (grad, parameter) in enumerate(zip(grads, models[rank].parameters(), strict=True)):
            expected = torch.full_like(parameter, 1.5)  # the mean of 1 and 2
            assert_close(grad, expected, f"a model with {kind}, rank {rank}: parameter {i}")
        for buffer, kept in zip(models[rank].buffers(), buffers[rank], strict=True):
            assert torch.equal(buffer, kept), f"a model with {kind}: a buffer changed"


def test_average_gradients_which_gradients_and_the_same_tensors(device):
    skip_unless_gloo(device)
    model = model_on(device)
    inputs, targets = torch.randn(8, 3, device=device), torch.randn(8, 2, device=device)
    expected = full_batch_gradients(model, inputs, targets)
    copies = [copy.deepcopy(model) for _ in range(2)]

    def rank_step(rank, group):
        replica = copies[rank]
        loss = nn.functional.mse_loss(replica(inputs[rank::2]), targets[rank::2])
        loss.backward()
        replica[2].bias.requires_grad_(False)  # frozen after its backward: holds a .grad
        replica[2].weight.grad = None  # trainable, without a gradient this step
        held = [p.grad for p in replica.parameters()]
        # Views of the gradients' memory, as DDP's buckets are: written in place, they see
        # the mean; memory swapped in through `.data =` leaves them with the sum.
        views = [None if grad is None else grad.view(-1) for grad in held]
        average_gradients(replica, group)
        for i, (p, grad, view) in enumerate(zip(replica.parameters(), held, views, strict=True)):
            assert p.grad is grad, (
                f"parameter {i}: its .grad was replaced by another tensor (or None by "
                "zeros); average each gradient in place, in the tensor the parameter holds"
            )
            if view is not None:
                assert torch.equal(view, p.grad.view(-1)), (
                    f"parameter {i}: a view of its .grad taken before the call does not see "
                    "the mean: write it into the gradient's memory (in place: /=, div_, "
                    "copy_), not into new memory set through .data"
                )
        return [p.grad for p in replica.parameters()]

    for rank, grads in enumerate(on_ranks(2, rank_step)):
        assert grads[1] is None and grads[2] is None, (
            "a parameter whose .grad is None keeps None (frozen, or unused this step)"
        )
        assert_close(
            grads[3],
            expected[3],
            f"rank {rank}: a parameter with requires_grad=False that holds a .grad is averaged "
            "like any other (every parameter whose .grad is not None)",
        )
        assert_close(grads[0], expected[0], f"rank {rank}: parameter 0")


def test_average_gradients_is_done_when_it_returns_and_reduces_zeros_too(device):
    # Gradients given by hand. Rank 0's weight gradient is all zeros (zero_grad with
    # set_to_none=False, a layer its batch did not use), rank 1's is not: a zero .grad is a
    # gradient like any other, reduced with the other ranks' (a rank that skips it calls other
    # collectives than its peers). Rank 0 reads its gradients the moment average_gradients
    # returns, before rank 1 has called it: an all_reduce started with async_op=True and not
    # waited for has not reduced them yet.
    skip_unless_gloo(device)
    grads = [
        [torch.zeros(2, 1), torch.full((2,), 1.0)],
        [torch.full((2, 1), 4.0), torch.full((2,), 3.0)],
    ]
    rank_0_returned = threading.Event()

    def rank_step(rank, group):
        # Weight and bias of one size: a rank that skips one pairs the other with it (a
        # collective of another size would abort the process), then waits in vain.
        model = nn.Linear(1, 2).to(device)
        for parameter, grad in zip(model.parameters(), grads[rank], strict=True):
            parameter.grad = grad.to(device)
        if rank == 1:  # rank 0 returns first, if it can return before rank 1 takes part
            rank_0_returned.wait(timeout=1.0)
        average_gradients(model, group)
        returned = [p.grad.clone() for p in model.parameters()]
        if rank == 0:
            rank_0_returned.set()
        return returned

    expected = [torch.full((2, 1), 2.0), torch.full((2,), 2.0)]
    for rank, got in enumerate(on_ranks(2, rank_step)):
        for i, (grad, want) in enumerate(zip(got, expected, strict=True)):
            assert_close(
                grad.cpu(),
                want,
                f"rank {rank}, parameter {i}: when average_gradients returns, every .grad holds "
                "the mean over the ranks, a gradient of zeros included (wait for an "
                "asynchronous all_reduce before returning)",
            )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_average_gradients_to_the_precision_of_their_dtype(device, dtype):
    skip_unless_gloo(device)
    skip_unless_supported(device, dtype)
    eps = torch.finfo(dtype).eps

    def rank_step(rank, group):
        model = nn.Linear(2, 1, bias=False).to(device, dtype)
        model.weight.grad = torch.full_like(model.weight, 1 + (1 + 2 * rank) * eps)
        average_gradients(model, group)
        return model.weight.grad

    # (1 + ε) and (1 + 3ε): their mean 1 + 2ε is exact in the dtype, lost in any narrower one.
    expected = torch.full((1, 2), 1 + 2 * eps, dtype=dtype)
    for rank, got in enumerate(on_ranks(2, rank_step)):
        check_tensor(got, dtype=dtype, device=device, name=f"rank {rank}'s {dtype} gradient")
        assert torch.equal(got.cpu(), expected), (
            f"rank {rank}: got {got.cpu().tolist()}, expected {expected.tolist()}; reduce "
            f"{dtype} gradients in {dtype} (a buffer of another dtype rounds them)"
        )


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32], ids=str)
def test_average_gradients_divides_before_or_after_the_sum(device, dtype):
    # Three ranks: dividing by 3 rounds, so the two orders (sum then divide, or divide then
    # sum, as DDP does) differ by a rounding; the docstring allows both.
    skip_unless_gloo(device)
    skip_unless_supported(device, dtype)
    values = [1.0, 1.0 + 8 * torch.finfo(dtype).eps, 2.0]

    def rank_step(rank, group):
        model = nn.Linear(2, 1, bias=False).to(device, dtype)
        model.weight.grad = torch.full_like(model.weight, values[rank])
        average_gradients(model, group)
        return model.weight.grad

    exact = torch.tensor(values, dtype=torch.float64).mean()
    for rank, got in enumerate(on_ranks(3, rank_step)):
        assert_close(
            got.double().cpu(),
            exact.expand(1, 2),
            f"rank {rank}: the mean of {values} in {dtype}, to a rounding or two",
            rtol=2 * torch.finfo(dtype).eps,
            atol=0,
        )


def test_average_gradients_changes_nothing_but_gradients(device):
    skip_unless_gloo(device)

    def rank_step(rank, group):
        # Replicas that differ (as they would if ranks drifted): only .grad may change.
        model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)).to(device)
        with torch.no_grad():
            for p in model.parameters():
                p.add_(rank)
                p.grad = torch.ones_like(p)
            for b in model.buffers():
                if b.is_floating_point():
                    b.add_(rank)
        before = {k: v.clone() for k, v in model.state_dict().items()}
        average_gradients(model, group)
        changed = [k for k, v in model.state_dict().items() if not torch.equal(v, before[k])]
        assert not changed, (
            f"rank {rank}: average_gradients changed {changed}; it averages gradients "
            "only, never the parameters or buffers themselves"
        )

    on_ranks(2, rank_step)


# ------------------------------------------------------------------ global_mean


def means_on_ranks(shards):
    def rank_mean(rank, group):
        values = shards[rank]
        before = values.clone()
        result = global_mean(values, group)
        same = torch.allclose(values, before, rtol=0, atol=0, equal_nan=True)
        assert same, "global_mean should leave `values` unchanged"
        return result

    return on_ranks(len(shards), rank_mean)


@pytest.mark.parametrize(
    "sizes", [(3, 1), (2, 0, 5), (4, 4)], ids=["unequal", "an-empty-rank", "equal"]
)
def test_global_mean_is_the_mean_of_all_values(device, sizes):
    skip_unless_gloo(device)
    shards = [torch.randn(n, device=device) + i for i, n in enumerate(sizes)]
    results = means_on_ranks(shards)
    expected = torch.cat(shards).mean()
    for rank, got in enumerate(results):
        check_tensor(got, shape=(), dtype=torch.float32, device=device, name="the mean")
        assert_close(
            got,
            expected,
            f"rank {rank}: the mean of the ranks' values together (ranks holding {sizes} "
            "values): sum of the sums over sum of the counts, not a mean of the ranks' means",
        )


@pytest.fixture
def one_rank_on_any_device():
    """A default process group of one rank over torch's fake backend, whose collectives move
    no data: it takes tensors of every device, the simulated one included, where gloo takes
    none. Only what does not depend on the data moved is checked with it (the values are
    checked over gloo)."""
    from torch.testing._internal.distributed.fake_pg import FakeStore

    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=1)
    yield
    dist.destroy_process_group()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
def test_global_mean_returns_on_the_values_device(device, one_rank_on_any_device, dtype):
    skip_unless_supported(device, dtype)
    got = global_mean(torch.tensor([1.0, 2.0, 4.0], device=device, dtype=dtype))
    check_tensor(got, shape=(), dtype=dtype, device=device, name="the mean")


def test_global_mean_of_no_values_is_nan(device):
    skip_unless_gloo(device)
    results = means_on_ranks([torch.empty(0, device=device)] * 2)
    assert all(r.isnan() for r in results), f"no rank holds a value: nan, got {results}"


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16], ids=str)
def test_global_mean_keeps_the_dtype(device, dtype):
    skip_unless_gloo(device)
    # float64: a sum that float32 rounds away (1e8 + 1 is 1e8 in float32, so the mean would
    # be 0, not 1/3); float16: its dtype kept.
    big, small = (1e8, 1.0) if dtype == torch.float64 else (1.0, 0.125)
    shards = [
        torch.tensor([big, small], device=device, dtype=dtype),
        torch.tensor([-big], device=device, dtype=dtype),
    ]
    results = means_on_ranks(shards)
    expected = torch.cat(shards).mean()
    for got in results:
        check_tensor(got, shape=(), dtype=dtype, device=device, name="the mean")
        assert_close(got, expected, f"the mean of {dtype} values, computed in {dtype}")


def test_global_mean_of_a_nan_is_nan(device):
    skip_unless_gloo(device)
    results = means_on_ranks(
        [torch.tensor([1.0, math.nan], device=device), torch.ones(2, device=device)]
    )
    assert all(r.isnan() for r in results), (
        f"a NaN value makes the mean NaN, as torch.mean's (skip none), got {results}"
    )


@pytest.mark.parametrize(
    ("dtype", "sizes"),
    [(torch.float16, (40000, 40000)), (torch.bfloat16, (200, 57))],
    ids=["float16-count-past-65504", "bfloat16-count-257"],
)
def test_global_mean_rounds_once(device, dtype, sizes):
    skip_unless_gloo(device)
    skip_unless_supported(device, dtype)
    # float16: 80000 values of 0.001, whose count overflows float16; bfloat16: 257 values, a
    # count bfloat16 rounds to 256, and one 2 among them so that it shows.
    value = 0.001 if dtype == torch.float16 else 1.0
    shards = [torch.full((n,), value, dtype=dtype, device=device) for n in sizes]
    shards[0][0] = 2 * value
    exact = torch.cat(shards).double().mean()  # the oracle: float64, then one rounding
    for rank, got in enumerate(means_on_ranks(shards)):
        check_tensor(got, shape=(), dtype=dtype, device=device, name="the mean")
        assert torch.equal(got.cpu(), exact.to(dtype).cpu()), (
            f"rank {rank}: got {got.item()}, the mean of {sum(sizes)} {dtype} values is "
            f"{exact.item():.6g}, rounded once: {exact.to(dtype).item()}; hold the sum in "
            "float32 and the count as an integer, not in the values' dtype"
        )


def test_global_mean_sum_may_pass_the_dtypes_largest(device):
    skip_unless_gloo(device)
    skip_unless_supported(device, torch.float16)
    # The sum, 160000, is past float16's largest (65504); the mean, 40000, is not.
    shards = [torch.full((2,), 40000.0, dtype=torch.float16, device=device) for _ in range(2)]
    for rank, got in enumerate(means_on_ranks(shards)):
        assert got.item() == 40000.0, (
            f"rank {rank}: got {got.item()} for a mean of 40000: hold the sum of float16 "
            "values in float32 or more, not in float16"
        )


def test_global_mean_uses_the_default_group(device, default_group):
    skip_unless_gloo(device)
    values = torch.tensor([1.0, 2.0, 3.0, 5.0], device=device)
    got = global_mean(values)  # group=None: the default group, of one rank here
    check_tensor(got, shape=(), dtype=torch.float32, device=device, name="the mean")
    assert_close(got, values.mean(), "one rank: the mean of its own values")


# ------------------------------------------------------------------ two processes


# The answer as two real ranks, on the default group, as a training script started by
# torchrun runs: rank 0 is this process, rank 1 a process forked from it that runs the same
# function. Forked, not started anew: a new program would run the answer without the checks
# grading puts on this process, so grading refuses to start one, and a fork keeps them. A
# forked process can neither run autograd's engine (its threads stay in the parent) nor use
# the parent's CUDA context: each rank's gradients are written out (the mean squared error
# of a linear layer), and the two processes run on the CPU (the collectives on CUDA tensors
# are checked over gloo by the tests above).
def one_rank(answer, rank, device, seed):
    """One rank's step: its shard, forward and backward, gradients and loss averaged."""
    torch.manual_seed(seed)  # the same data and model on both ranks
    inputs, targets = torch.randn(8, 3), torch.randn(8, 2)
    model = nn.Linear(3, 2).to(device)
    data = TensorDataset(torch.arange(8), inputs.to(device), targets.to(device))
    ((index, x, y),) = answer.rank_loader(data, 4, rank, 2, epoch=1)
    with torch.no_grad():
        diff = model(x) - y  # the loss: the mean of diff**2 over this rank's shard
        losses = (diff**2).mean(dim=1)
        model.weight.grad = 2 / diff.numel() * diff.T @ x
        model.bias.grad = 2 / diff.numel() * diff.sum(dim=0)
    answer.average_gradients(model)
    metric = answer.global_mean(losses)
    grads = [p.grad.tolist() for p in model.parameters()]
    return {"indices": index.tolist(), "metric": metric.item(), "grads": grads}


def rank_1(sent, init, device, seed):
    """Rank 1, in the forked process: its result, or the error it raised, sent back."""
    try:
        torch.set_num_threads(1)  # the parent's thread pool is not forked with it
        dist.init_process_group(
            "gloo", init_method="file://" + init, rank=1, world_size=2, timeout=TIMEOUT * 6
        )
        try:
            sent.send(("result", one_rank(kata, 1, device, seed)))
        finally:
            dist.destroy_process_group()
    except BaseException:
        sent.send(("error", traceback.format_exc()))


def test_two_processes_train_as_one(device, tmp_path):
    if device.type != "cpu":
        pytest.skip("a forked process cannot use its parent's accelerator (the CPU run checks)")
    # Here first: an unwritten stub fails at once, before the other process starts.
    rank_loader(indexed(8, device), 4, 0, 2, epoch=1)
    init, seed = str(tmp_path / "rendezvous"), seed_for(0)
    fork = multiprocessing.get_context("fork")
    received, sent = fork.Pipe(duplex=False)
    other = fork.Process(target=rank_1, args=(sent, init, device, seed), daemon=True)
    other.start()
    try:
        dist.init_process_group(
            "gloo", init_method="file://" + init, rank=0, world_size=2, timeout=TIMEOUT * 6
        )
        try:
            outputs = [one_rank(kata, 0, device, seed)]
        finally:
            dist.destroy_process_group()
    except Exception:
        if received.poll(10):  # rank 0 lost its peer: why rank 1 failed says more
            kind, sent_back = received.recv()
            assert kind == "result", f"rank 1 failed:\n{sent_back[-3000:]}"
        raise
    finally:
        if not received.poll(60):
            other.kill()
        other.join(10)
        other.kill()
    assert received.poll(0), "rank 1 sent nothing within 60 s"
    kind, sent_back = received.recv()
    assert kind == "result", f"rank 1 failed:\n{sent_back[-3000:]}"
    outputs.append(sent_back)
    indices = outputs[0]["indices"] + outputs[1]["indices"]
    assert sorted(indices) == list(range(8)), f"the two shards should split 0..7, got {indices}"
    torch.manual_seed(seed)
    inputs, targets = torch.randn(8, 3), torch.randn(8, 2)
    model = nn.Linear(3, 2)
    loss = nn.functional.mse_loss(model(inputs), targets)  # one process, the whole batch
    loss.backward()
    for rank, out in enumerate(outputs):
        for got, p in zip(out["grads"], model.parameters(), strict=True):
            assert_close(torch.tensor(got), p.grad, f"rank {rank}: the full batch's gradient")
        assert_close(torch.tensor(out["metric"]), loss.detach(), f"rank {rank}: the full loss")


# ---------------------------------------------------------------- facets

FACETS = facets.declare(
    facets.of(
        rank_loader,
        # The permutation may be drawn when the sampler is iterated. (The loader itself draws
        # its base seed from the global generator, as a DataLoader without one does.)
        facets.OwnGenerator(
            lambda device: facets.args(indexed(16, device), 4, 1, 2, epoch=3, seed=seed_for(5)),
            then=lambda arguments, loader: list(loader.sampler),
        ),
        facets.Defaults(
            lambda device: facets.args(indexed(16, device), 4, 1, 2, epoch=3),
            values={"seed": 0},
            key=lambda arguments, loader: list(loader),
        ),
    ),
    facets.none(
        average_gradients, "needs a process group: its own tests run it on two and three ranks"
    ),
    facets.none(global_mean, "needs a process group: its own tests run it on two and three ranks"),
)
test_facets = FACETS.test
