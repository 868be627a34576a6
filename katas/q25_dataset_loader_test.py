import multiprocessing
import os

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from torch.utils.data import Dataset, TensorDataset

from katas.q25_dataset_loader import SlidingWindows, make_loader, pad_collate, throughput_loader
from torch_katas import facets
from torch_katas.testing import assert_close, check_tensor, raises, seed_for, skip_unless_supported

CPU = torch.device("cpu")


def windows_by_hand(series, window, stride):
    """Every (window, target) pair, by walking the start position one stride at a time."""
    pairs, start = [], 0
    while start + window <= len(series) - 1:
        pairs.append((series[start : start + window], series[start + window]))
        start += stride
    return pairs


# --- SlidingWindows ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, window, stride",
    [(10, 3, 1), (10, 3, 2), (10, 3, 3), (11, 3, 4), (4, 3, 1), (3, 3, 1), (2, 3, 1), (9, 1, 5)],
)
def test_len_counts_the_windows_that_have_a_target(device, n, window, stride):
    ds = SlidingWindows(torch.arange(n, device=device), window=window, stride=stride)
    expected = len(windows_by_hand(list(range(n)), window, stride))
    assert len(ds) == expected, (
        f"a series of {n} steps with window={window}, stride={stride} has {expected} windows "
        f"whose next value exists, got len {len(ds)}; the last start s needs s + window <= n - 1"
    )


@pytest.mark.parametrize("feature_shape", [(), (2,)], ids=["1-D series", "[N, 2] series"])
@pytest.mark.parametrize("stride", [1, 3])
def test_samples_are_windows_and_the_value_after_them(device, feature_shape, stride):
    series = torch.randn(12, *feature_shape, device=device)
    ds = SlidingWindows(series, window=4, stride=stride)
    expected = windows_by_hand(series, 4, stride)
    assert len(ds) == len(expected)
    for i, (window, target) in enumerate(expected):
        x, y = ds[i]
        check_tensor(x, shape=(4, *feature_shape), dtype=series.dtype, device=device, name="x")
        check_tensor(y, shape=feature_shape, dtype=series.dtype, device=device, name="y")
        assert_close((x, y), (window, target), f"sample {i}: expected series[s : s+4], series[s+4]")


def test_the_last_window_ends_right_before_the_last_value(device):
    series = torch.arange(10.0, device=device)
    ds = SlidingWindows(series, window=3, stride=1)
    x, y = ds[len(ds) - 1]
    assert x.tolist() == [6.0, 7.0, 8.0] and y.item() == 9.0, (
        f"the last sample should be ([6, 7, 8], 9), got ({x.tolist()}, {y.tolist()})"
    )


def test_index_past_the_end_raises_index_error(device):
    ds = SlidingWindows(torch.arange(10, device=device), window=3, stride=2)
    for index in (len(ds), len(ds) + 3):
        with raises(IndexError):
            ds[index]
    # IndexError is also what ends Python's plain `for sample in dataset` loop.
    assert len(list(ds)) == len(ds)


def test_negative_indices_count_from_the_end_or_raise(device):
    series = torch.arange(10, device=device)
    ds = SlidingWindows(series, window=3, stride=2)
    n = len(ds)
    for index in (-1, -n):
        try:
            x, y = ds[index]
        except IndexError:
            continue  # the contract allows refusing negative indices
        x_end, y_end = ds[n + index]
        assert torch.equal(x, x_end) and torch.equal(y, y_end), (
            f"ds[{index}] is ({x.tolist()}, {y.tolist()}); a negative index either counts from "
            f"the end, like ds[{n + index}] = ({x_end.tolist()}, {y_end.tolist()}), or raises "
            "IndexError"
        )
    with raises(IndexError):
        ds[-n - 1]


def test_stride_defaults_to_one(device):
    ds = SlidingWindows(torch.arange(6, device=device), window=2)
    assert len(ds) == 4 and ds[1][0].tolist() == [1, 2], (
        "without a stride every start position counts: stride defaults to 1"
    )


@pytest.mark.parametrize("window, stride", [(0, 1), (3, 0), (-1, 1), (3, -2)])
def test_rejects_window_or_stride_below_one(device, window, stride):
    with raises(ValueError):
        SlidingWindows(torch.arange(10, device=device), window=window, stride=stride)
        pytest.fail(
            f"window={window}, stride={stride} should raise ValueError: both must be >= 1 "
            "(compare with 1, so that negative values fail too)"
        )


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_keeps_the_callers_series_not_a_copy(device, layout):
    # A copy made at construction (.clone(), or .contiguous() of a strided series) misses a
    # write into the caller's series made after it; samples taken from the series do not.
    base = torch.arange(24.0, device=device).reshape(12, 2)
    series = base if layout == "contiguous" else base.t().contiguous().t()  # column-major
    ds = SlidingWindows(series, window=3, stride=2)
    series.mul_(-1)
    for i in range(len(ds)):
        x, y = ds[i]
        s = 2 * i
        seen = torch.equal(x, series[s : s + 3]) and torch.equal(y, series[s + 3])
        assert seen, (
            f"sample {i} holds the series' values from before a later write into it: keep "
            f"the caller's {layout} series itself, not a copy made at construction (no "
            ".clone() or .contiguous() in __init__), and take each sample from it"
        )


def test_does_not_modify_the_series(device):
    series = torch.arange(10.0, device=device)
    before = series.clone()
    ds = SlidingWindows(series, window=3)
    [ds[i] for i in range(len(ds))]
    assert torch.equal(series, before), "the series must not be modified"


# --- pad_collate -------------------------------------------------------------------------


def variable_length_samples(device, lengths, feature_shape=(), dtype=torch.float32):
    return [
        (
            torch.randn(length, *feature_shape, device=device).to(dtype),
            torch.tensor(i % 3, device=device),
        )
        for i, length in enumerate(lengths)
    ]


def padded_by_hand(samples, padding_value):
    longest = max(len(s) for s, _ in samples)
    rows = []
    for sequence, _ in samples:
        row = torch.full(
            (longest, *sequence.shape[1:]),
            padding_value,
            dtype=sequence.dtype,
            device=sequence.device,
        )
        row[: len(sequence)] = sequence
        rows.append(row)
    return torch.stack(rows)


@pytest.mark.parametrize(
    "lengths, feature_shape",
    [([3, 5, 1], ()), ([2, 4], (3,)), ([0, 2, 0], (2,)), ([4], ()), ([0, 0], ())],
    ids=["1-D", "features", "empty sequences", "one sample", "all empty"],
)
def test_pads_batch_first_and_returns_lengths_and_labels(device, lengths, feature_shape):
    samples = variable_length_samples(device, lengths, feature_shape)
    padded, lengths_out, labels = pad_collate(samples, padding_value=-7.0)
    check_tensor(
        padded,
        shape=(len(lengths), max(lengths), *feature_shape),
        dtype=torch.float32,
        device=device,
        name="padded (batch first: [B, T, *F])",
    )
    check_tensor(lengths_out, shape=(len(lengths),), dtype=torch.int64, device=CPU, name="lengths")
    check_tensor(labels, shape=(len(lengths),), dtype=torch.int64, device=device, name="labels")
    assert_close(
        padded, padded_by_hand(samples, -7.0), "each row is its sequence then padding_value"
    )
    assert lengths_out.tolist() == lengths, (
        f"lengths should be {lengths}, got {lengths_out.tolist()}"
    )
    assert labels.tolist() == [i % 3 for i in range(len(lengths))], "labels are stacked in order"


@pytest.mark.parametrize("padding_value", [0, -1], ids=["0", "-1"])
def test_lengths_count_steps_that_hold_the_padding_value(device, padding_value):
    # A step whose value equals padding_value is still a step: lengths come from the
    # sequences, not from comparing the padded tensor with padding_value.
    p = padding_value
    sequences = [[1, p], [p], [], [p, p, 2], [3, 4, p]]
    samples = [
        (torch.tensor(steps, dtype=torch.int64, device=device), torch.tensor(0, device=device))
        for steps in sequences
    ]
    padded, lengths, _ = pad_collate(samples, padding_value=p)
    assert lengths.tolist() == [len(steps) for steps in sequences], (
        f"lengths should be {[len(steps) for steps in sequences]}, got {lengths.tolist()}: "
        "count each sequence's steps (len), whatever their values"
    )
    assert padded.tolist() == [steps + [p] * (3 - len(steps)) for steps in sequences]


def test_padding_keeps_integer_dtype(device):
    samples = [
        (torch.tensor([5, 6, 7], device=device), torch.tensor(1, device=device)),
        (torch.tensor([8], device=device), torch.tensor(0, device=device)),
    ]
    padded, _, _ = pad_collate(samples, padding_value=0)
    check_tensor(padded, shape=(2, 3), dtype=torch.int64, device=device, name="padded")
    assert padded.tolist() == [[5, 6, 7], [8, 0, 0]]


@pytest.mark.parametrize(
    "sequence_dtype, label_dtype",
    [(torch.float64, torch.int32), (torch.float16, torch.float64), (torch.uint8, torch.uint8)],
    ids=str,
)
def test_keeps_the_dtypes_of_sequences_and_labels(device, sequence_dtype, label_dtype):
    skip_unless_supported(device, sequence_dtype)
    skip_unless_supported(device, label_dtype)
    samples = [
        (torch.ones(3, 2, device=device, dtype=sequence_dtype), torch.tensor(1, device=device)),
        (torch.ones(1, 2, device=device, dtype=sequence_dtype), torch.tensor(2, device=device)),
    ]
    samples = [(sequence, label.to(label_dtype)) for sequence, label in samples]
    padded, lengths, labels = pad_collate(samples, padding_value=0)
    check_tensor(padded, shape=(2, 3, 2), dtype=sequence_dtype, device=device, name="padded")
    check_tensor(lengths, shape=(2,), dtype=torch.int64, device=CPU, name="lengths")
    check_tensor(labels, shape=(2,), dtype=label_dtype, device=device, name="labels (stack them)")
    assert labels.tolist() == [1, 2] and padded[1, 1:].tolist() == [[0, 0], [0, 0]]


def test_lengths_feed_pack_padded_sequence(device):
    samples = variable_length_samples(device, [2, 5, 3], (4,))
    padded, lengths, _ = pad_collate(samples)
    packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
    unpacked, unpacked_lengths = pad_packed_sequence(packed, batch_first=True)
    assert_close(unpacked, padded, "pack_padded_sequence with these lengths should round-trip")
    assert unpacked_lengths.tolist() == [2, 5, 3]


def test_does_not_modify_the_samples(device):
    samples = variable_length_samples(device, [3, 1], (2,))
    before = [(s.clone(), label.clone()) for s, label in samples]
    pad_collate(samples, padding_value=1.0)
    for (s, label), (s0, label0) in zip(samples, before, strict=True):
        assert torch.equal(s, s0) and torch.equal(label, label0), "samples must not be modified"


# --- make_loader -------------------------------------------------------------------------


def numbers(device, n=10):
    return TensorDataset(torch.arange(n, device=device))


def epoch_order(loader):
    return [value for (batch,) in loader for value in batch.tolist()]


def test_each_epoch_visits_every_sample_once_in_batches(device):
    loader = make_loader(numbers(device), batch_size=4, seed=seed_for(0))
    batches = [batch for (batch,) in loader]
    assert [len(b) for b in batches] == [4, 4, 2], "10 samples in batches of 4: sizes 4, 4, 2"
    order = [v for b in batches for v in b.tolist()]
    assert sorted(order) == list(range(10)), "each sample appears exactly once per epoch"
    assert order != list(range(10)), "the loader should shuffle (shuffle=True)"


def test_same_seed_gives_the_same_order_whatever_runs_in_between(device):
    first = make_loader(numbers(device), batch_size=3, seed=seed_for(7))
    second = make_loader(numbers(device), batch_size=3, seed=seed_for(7))
    first_epochs = [epoch_order(first), epoch_order(first)]
    torch.rand(5)  # other code drawing from the global random state
    torch.manual_seed(seed_for(1234))
    second_epochs = [epoch_order(second), epoch_order(second)]
    assert first_epochs == second_epochs, (
        "two loaders with the same seed should shuffle the same way, whatever the global "
        "random state: give the DataLoader its own torch.Generator seeded with `seed`"
    )


# One seed and each seed that differs from it in one of the low 32 bits (the generator keeps
# those): a seed cut short (a byte, 31 bits) or any bit dropped gives two of them one order.
# And its negative, whose low 32 bits differ too: abs(seed) gives the two one order.
BASE_SEED = 0x5A5A5A5A
SEEDS = (BASE_SEED, *(BASE_SEED ^ (1 << bit) for bit in range(32)), -BASE_SEED)


def test_different_seeds_give_different_orders(device):
    orders = {tuple(epoch_order(make_loader(numbers(device, 12), 4, seed))) for seed in SEEDS}
    assert len(orders) == len(SEEDS), (
        f"{len(SEEDS)} seeds, each differing from {BASE_SEED:#x} in one of its low 32 bits "
        f"(its negative among them), should give {len(SEEDS)} different orders, got "
        f"{len(orders)}: seed the generator with the whole seed (no mask, no modulo below "
        "2**32, no abs)"
    )


def test_each_epoch_is_a_new_shuffle(device):
    loader = make_loader(numbers(device), batch_size=4, seed=seed_for(3))
    epochs = [tuple(epoch_order(loader)) for _ in range(3)]
    assert len(set(epochs)) == 3, (
        "every pass over the loader should be a new order; do not reseed at each epoch"
    )


def test_leaves_the_global_random_state_alone(device):
    before = torch.get_rng_state()
    loader = make_loader(numbers(device), batch_size=4, seed=seed_for(5))
    epoch_order(loader)
    assert torch.equal(torch.get_rng_state(), before), (
        "building or iterating the loader changed torch's global random state: a DataLoader "
        "without a generator of its own draws each epoch's shuffle seed from it (and so does "
        "a torch.manual_seed call, which resets it); pass "
        "generator=torch.Generator().manual_seed(seed) to the DataLoader"
    )


def test_loader_with_pad_collate(device):
    lengths = [3, 1, 4, 1, 5, 2, 6]
    samples = variable_length_samples(device, lengths)
    loader = make_loader(samples, batch_size=3, seed=seed_for(0), collate_fn=pad_collate)
    seen = []
    for padded, batch_lengths, _ in loader:
        assert padded.shape[1] == max(batch_lengths.tolist()), "pad to the longest in the batch"
        seen += batch_lengths.tolist()
    assert sorted(seen) == sorted(lengths)


# ------------------------------------------------------------------ throughput_loader

# (workers, target) -> (pin_memory, prefetch_factor, persistent_workers) with prefetch=3:
# the contract's table, written out.
SITUATIONS = {
    "no-workers-cpu": (0, "cpu", (False, None, False)),
    "no-workers-cuda": (0, "cuda", (True, None, False)),
    "no-workers-mps": (0, "mps", (True, None, False)),
    "workers-cpu": (2, "cpu", (False, 3, True)),
    "workers-cuda": (2, "cuda:0", (True, 3, True)),
    "workers-xpu": (1, "xpu", (True, 3, True)),
    "no-workers-hpu": (0, "hpu", (True, None, False)),
    "workers-lazy": (1, "lazy", (True, 3, True)),  # every type but cpu and meta
    "no-workers-cpu:0": (0, "cpu:0", (False, None, False)),
    "workers-cpu:0": (2, "cpu:0", (False, 3, True)),
    "no-workers-meta": (0, "meta", (False, None, False)),  # meta is no accelerator
    # More workers than cores, as asked: the number is the caller's.
    "many-workers-cuda": ((os.cpu_count() or 1) + 2, "cuda", (True, 3, True)),
}
# DataLoader warns when it makes more workers than the machine has cores: a fact about the
# machine, not about the answer.
FEW_CORES = pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")


@FEW_CORES
@pytest.mark.parametrize("situation", list(SITUATIONS))
def test_throughput_loader_fits_the_situation(device, situation):
    # Building a loader starts no process and touches no device: any target will do here.
    workers, target, (pin, prefetch, persistent) = SITUATIONS[situation]
    loader = throughput_loader(list(range(7)), 3, torch.device(target), workers, prefetch=3)
    # Its batch sampler, which DataLoader makes from batch_size or is given as batch_sampler:
    # either way of asking for batches of 3 will do.
    batches = loader.batch_sampler
    size, drop_last = getattr(batches, "batch_size", None), getattr(batches, "drop_last", None)
    assert (size, loader.num_workers) == (3, workers), (
        f"the loader should make batches of 3 with {workers} workers, got batches of {size} "
        f"and {loader.num_workers} workers"
    )
    assert drop_last is False, "the last, smaller batch should be kept (drop_last=False)"
    assert loader.multiprocessing_context is None, (
        f"the start method should be the platform's default (multiprocessing_context None), "
        f"got {loader.multiprocessing_context!r}: the caller chooses it"
    )
    assert loader.pin_memory is pin, (
        f"for batches bound to {target}, pin_memory should be {pin}: pinned memory is what "
        "makes a copy to an accelerator overlap, and only that"
    )
    assert loader.prefetch_factor == prefetch, (
        f"with {workers} workers prefetch_factor should be {prefetch}, got "
        f"{loader.prefetch_factor}"
        + ("" if workers else " (without workers DataLoader takes None only)")
    )
    assert loader.persistent_workers is persistent, (
        f"with {workers} workers persistent_workers should be {persistent}"
        + (
            ": workers kept between epochs are not started again"
            if workers
            else " (DataLoader refuses True without workers)"
        )
    )


def test_throughput_loader_takes_the_device_as_a_string(device):
    loader = throughput_loader(list(range(4)), 2, str(device), 0)
    assert loader.pin_memory is (device.type != "cpu"), (
        f"device={str(device)!r} is {'the CPU' if device.type == 'cpu' else 'an accelerator'}"
    )
    for cpu in ("cpu:0", torch.device("cpu", 0)):
        assert throughput_loader(list(range(4)), 2, cpu, 0).pin_memory is False, (
            f"device={cpu!r} is the CPU (with an index): compare torch.device(device).type"
        )


def test_throughput_loader_without_workers_yields_the_batches(device):
    data = torch.arange(10.0)
    loader = throughput_loader(TensorDataset(data, data.long()), 4, device, 0)
    batches = [x for x, _ in loader]
    assert [b.tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]], (
        "the loader should yield the dataset in order, in batches of batch_size"
    )
    if device.type != "cpu":
        assert all(b.is_pinned() for b in batches), (
            f"batches bound to {device} should come out pinned"
        )


class WhoLoads(Dataset):
    """Item i is (i, the id of the process that loaded it)."""

    def __len__(self):
        return 7  # the last batch is smaller

    def __getitem__(self, index):
        return torch.tensor(float(index)), os.getpid()


@pytest.mark.filterwarnings(
    "ignore:This process.*is multi-threaded, use of fork:DeprecationWarning"
)
def test_throughput_loader_with_workers_keeps_them_between_epochs(device):
    loader = throughput_loader(WhoLoads(), 2, device, 2, prefetch=2)
    assert loader.multiprocessing_context is None, "leave the start method to the caller"
    # Forked workers run the answer under test whatever the platform's default start
    # method (spawn and forkserver re-import the kata module from katas/).
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("this check needs the fork start method for DataLoader workers")
    loader.multiprocessing_context = "fork"
    epochs = []
    for _ in range(2):
        batches = list(loader)
        assert [x.tolist() for x, _ in batches] == [[0, 1], [2, 3], [4, 5], [6]], (
            "with workers the loader should still yield the dataset in order, the last "
            "smaller batch included"
        )
        if device.type != "cpu":
            assert all(x.is_pinned() for x, _ in batches), "batches should come out pinned"
        epochs.append({pid for _, pids in batches for pid in pids.tolist()})
    del loader  # ends the persistent workers
    assert os.getpid() not in epochs[0], "the batches should be loaded by worker processes"
    assert epochs[0] == epochs[1], (
        "the second epoch was loaded by new processes: persistent_workers=True keeps the "
        "workers of the first"
    )


# ---------------------------------------------------------------- facets

ANY_DTYPE = (*facets.FLOATING, torch.int64, torch.uint8, torch.bool)


def series(dtype, device, window=3, stride=2):
    values = facets.past_float32((torch.arange(20).reshape(10, 2) % 7).to(dtype=dtype)).to(device)
    return facets.args(values, window=window, stride=stride)


def sample_one(values, window, stride):
    """Sample 1 as the contract defines it."""
    return values[stride : stride + window], values[stride + window]


def sequences(dtype, device):
    samples = [
        (facets.past_float32((torch.arange(6).reshape(3, 2) % 5).to(dtype=dtype)), torch.tensor(0)),
        (torch.zeros(0, 2, dtype=dtype), torch.tensor(1)),
        (torch.ones(1, 2, dtype=dtype), torch.tensor(2)),
    ]
    return facets.args([(s.to(device), label.to(device)) for s, label in samples])


FACETS = facets.declare(
    facets.of(
        SlidingWindows,
        facets.Setting(lambda device: series(torch.float32, device), "window", low=1, integer=True),
        facets.Setting(lambda device: series(torch.float32, device), "stride", low=1, integer=True),
        facets.Unmodified(lambda device: series(torch.float32, device)),
        facets.Defaults(
            lambda device: facets.args(torch.arange(9.0, device=device), window=3),
            values={"stride": 1},
            key=lambda arguments, windows: [windows[i] for i in range(len(windows))],
        ),
    ),
    facets.of(
        SlidingWindows,
        # A sample is two views of the series (window and target), by contract.
        facets.Dtypes(series, oracle=sample_one, dtypes=ANY_DTYPE, once=True, views=True),
        name="SlidingWindows[1]",
        call=lambda values, window, stride: SlidingWindows(values, window, stride)[1],
    ),
    facets.of(
        pad_collate,
        facets.DefaultDevice(
            lambda device: sequences(torch.float32, "cpu"),
            where="cpu",
        ),
        facets.Unmodified(lambda device: sequences(torch.float32, device)),
        facets.Defaults(
            lambda device: sequences(torch.float32, device), values={"padding_value": 0.0}
        ),
    ),
    facets.of(
        pad_collate,
        facets.Dtypes(
            sequences,
            oracle=lambda batch: torch.nn.utils.rnn.pad_sequence(
                [s for s, _ in batch], batch_first=True
            ),
            dtypes=ANY_DTYPE,
            once=True,
        ),
        facets.Edges(
            {
                "one sample of one step of one feature (size 1)": lambda device: facets.args(
                    [(torch.full((1, 1), 2.5, device=device), torch.tensor(0, device=device))]
                ),
            },
            oracle=lambda batch: batch[0][0][None],
        ),
        name="pad_collate(padded)",
        call=lambda batch: pad_collate(batch)[0],
    ),
    facets.of(
        make_loader,
        # Building the loader, and two epochs of it.
        facets.OwnGenerator(
            lambda device: facets.args(numbers(device), 4, 3),
            then=lambda arguments, loader: [epoch_order(loader), epoch_order(loader)],
        ),
        facets.Defaults(
            lambda device: facets.args(numbers(device), 4, 3),
            values={"collate_fn": None},
            key=lambda arguments, loader: [epoch_order(loader), epoch_order(loader)],
        ),
    ),
    facets.of(
        throughput_loader,
        facets.Defaults(
            lambda device: facets.args(list(range(7)), 3, "cuda", 1),
            values={"prefetch": 2},
            key=lambda arguments, loader: (
                loader.pin_memory,
                loader.prefetch_factor,
                loader.persistent_workers,
                loader.num_workers,
            ),
        ),
    ),
)
test_facets = FACETS.test
