import math
import random
import warnings

import pytest
import torch
from torch.utils.data import Subset, TensorDataset, random_split

from katas.q45_split_dataset import split_dataset, split_sizes, stratified_split
from torch_katas import facets
from torch_katas.testing import seed_for

# The sums just off 1 are outside math.isclose's default tolerance (1e-9), inside 1e-6 and
# 1e-8 (tolerances an answer might pick instead of isclose's).
BAD_FRACTIONS = [
    [0.5, 0.4],
    [0.7, 0.4],
    [1.2, -0.2],
    [-0.5, 0.75, 0.75],
    [],
    [0.5, 0.5, 0.5],
    [0.5, 0.5000005],
    [0.5, 0.4999995],
    [0.5, 0.500000003],
    [0.5, 0.499999997],
    [1 + 5e-10, 0.0],  # sums to 1 within isclose: the bound on each fraction is a check too
]
BAD_IDS = [
    "sum below 1",
    "sum above 1",
    "above 1",
    "negative only",
    "empty",
    "sum 1.5",
    "sum 1 + 5e-7",
    "sum 1 - 5e-7",
    "sum 1 + 3e-9",
    "sum 1 - 3e-9",
    "one just above 1, none negative",
]


def sizes_of_random_split(n, fractions):
    """The lengths torch's random_split gives (it warns about empty splits: not a problem here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [len(subset) for subset in random_split(range(n), fractions)]


def sizes_by_hand(n, fractions):
    sizes = [math.floor(n * f) for f in fractions]
    for i in range(n - sum(sizes)):
        sizes[i % len(sizes)] += 1
    return sizes


def numbered_dataset(device, n):
    return TensorDataset(torch.arange(n, device=device))


def assert_partition(subsets, n, dataset):
    for subset in subsets:
        assert isinstance(subset, Subset), f"return Subsets, got {type(subset).__name__}"
        assert subset.dataset is dataset, "each Subset should wrap the original dataset (lazy)"
    everything = [index for subset in subsets for index in subset.indices]
    assert len(everything) == len(set(everything)), "an index appears in more than one split"
    assert sorted(everything) == list(range(n)), "together the splits must hold every index once"


# --- split_sizes -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, fractions",
    [
        (10, [0.45, 0.45, 0.1]),
        (10, [0.8, 0.2]),
        (7, [0.5, 0.5]),
        (101, [0.7, 0.2, 0.1]),
        (5, [1 / 3, 1 / 3, 1 / 3]),
        (2, [0.4, 0.3, 0.3]),
        (0, [0.5, 0.5]),
        (9, [1.0]),
        (4, [0.0, 1.0]),
        (13, [0.1] * 10),
        (3, [0.0, 0.5, 0.5]),  # the leftover goes to split 0, whose fraction is 0
        (5, [0.25, 0.0, 0.75]),
    ],
)
def test_split_sizes_round_like_random_split(device, n, fractions):
    sizes = split_sizes(n, fractions)
    expected = sizes_of_random_split(n, fractions)
    assert sizes == expected, (
        f"{n} items split by {fractions} should get {expected}, got {sizes}: floor each "
        "share, then give the leftover items one each to the first splits"
    )


@pytest.mark.parametrize(
    "n, fractions",
    [(10**10, [0.5, 0.5 - 5e-10]), (10**12, [0.25, 0.25, 0.5 - 9e-10])],
    ids=["5 left over for 2 splits", "900 left over for 3 splits"],
)
def test_split_sizes_hand_out_more_leftovers_than_splits_in_turn(device, n, fractions):
    # A sum just under 1 (within isclose) leaves more items over than there are splits
    # when n is large: random_split deals them round and round from split 0.
    sizes = split_sizes(n, fractions)
    expected = sizes_by_hand(n, fractions)
    assert n - sum(math.floor(n * f) for f in fractions) > len(fractions)
    assert sizes == expected, (
        f"{n} items split by {fractions}: expected {expected}, got {sizes}; when more items "
        "are left over than there are splits, go round again from split 0"
    )


def test_split_sizes_on_random_fractions(device):
    cases = random.Random(seed_for(0))
    for _ in range(40):
        weights = [cases.randint(0, 9) for _ in range(cases.randint(1, 5))]  # 0: an empty split
        if not any(weights):
            continue
        fractions = [w / sum(weights) for w in weights]
        if not (math.isclose(sum(fractions), 1) and sum(fractions) <= 1):
            continue  # random_split itself would read these as lengths, not fractions
        n = cases.randint(0, 60)
        sizes = split_sizes(n, fractions)
        expected = sizes_of_random_split(n, fractions)
        assert sizes == expected, (
            f"{n} items split by {fractions}: expected {expected}, got {sizes}"
        )
        assert all(isinstance(size, int) for size in sizes), "sizes should be Python ints"


# Also with nothing to split (0 items), where a shortcut could return before the checks.
EVERY_SIZE = pytest.mark.parametrize("n", [10, 0], ids=["10 items", "no items"])


@EVERY_SIZE
@pytest.mark.parametrize("fractions", BAD_FRACTIONS, ids=BAD_IDS)
def test_split_sizes_rejects_bad_fractions(device, n, fractions):
    with pytest.raises(ValueError):
        split_sizes(n, fractions)


# --- split_dataset -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, fractions", [(50, [0.8, 0.2]), (23, [0.7, 0.2, 0.1]), (10, [0.45, 0.45, 0.1])]
)
def test_random_split_with_a_seeded_generator(device, n, fractions):
    dataset = numbered_dataset(device, n)
    splits = split_dataset(dataset, fractions, seed=seed_for(42))
    assert len(splits) == len(fractions), f"expected {len(fractions)} splits, got {len(splits)}"
    assert_partition(splits, n, dataset)
    assert [len(s) for s in splits] == sizes_by_hand(n, fractions), "sizes as split_sizes says"
    expected = random_split(
        dataset, fractions, generator=torch.Generator().manual_seed(seed_for(42))
    )
    assert [s.indices for s in splits] == [s.indices for s in expected], (
        "use random_split(dataset, fractions, generator=torch.Generator().manual_seed(seed))"
    )


@pytest.mark.parametrize("seed", [-3, 5, -5])
def test_any_seed_a_generator_takes_gives_its_own_split(device, seed):
    # Negative seeds are seeds too: the generator takes them as they are.
    dataset = numbered_dataset(device, 30)
    splits = split_dataset(dataset, [0.5, 0.5], seed=seed)
    expected = random_split(dataset, [0.5, 0.5], generator=torch.Generator().manual_seed(seed))
    assert [s.indices for s in splits] == [s.indices for s in expected], (
        f"seed {seed}: seed the generator with the seed as it is, "
        "torch.Generator().manual_seed(seed), not a value made from it"
    )


@pytest.mark.parametrize(
    "n, fractions",
    [(20, [0.2, 0.4, 0.3, 0.1]), (10, [0.95, 0.05])],
    ids=["float sum just above 1", "an empty split"],
)
def test_split_takes_every_fraction_split_sizes_accepts(device, n, fractions):
    dataset = numbered_dataset(device, n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # random_split warns about an empty split
        splits = split_dataset(dataset, fractions, seed=seed_for(7))
    sizes = sizes_by_hand(n, fractions)
    expected = random_split(dataset, sizes, generator=torch.Generator().manual_seed(seed_for(7)))
    assert [s.indices for s in splits] == [s.indices for s in expected], (
        f"fractions {fractions} give sizes {sizes}; random_split rejects these fractions "
        "(a float sum just above 1) or warns (an empty split): pass it the sizes from "
        "split_sizes instead"
    )


def test_subsets_load_items_from_the_dataset(device):
    dataset = numbered_dataset(device, 20)
    train, val = split_dataset(dataset, [0.75, 0.25], seed=seed_for(0))
    for subset in (train, val):
        for position, index in enumerate(subset.indices):
            (value,) = subset[position]
            assert value.item() == index and value.device == dataset.tensors[0].device


def test_same_seed_same_split_other_seed_other_split(device):
    dataset = numbered_dataset(device, 30)
    first = split_dataset(dataset, [0.6, 0.4], seed=seed_for(3))
    torch.manual_seed(seed_for(99))  # whatever else happens to the global random state in between
    torch.rand(10)
    again = split_dataset(dataset, [0.6, 0.4], seed=seed_for(3))
    other = split_dataset(dataset, [0.6, 0.4], seed=seed_for(4))
    assert [s.indices for s in first] == [s.indices for s in again], (
        "the same seed must give the same split: seed a torch.Generator and pass it"
    )
    assert [s.indices for s in first] != [s.indices for s in other], (
        "seeds 3 and 4 gave the same split: is the seed used?"
    )


class WatchedDataset(torch.utils.data.Dataset):
    """Notes torch's global seed and random state whenever the answer reads it: during the
    call too, the global state is the caller's (a split run under fork_rng, reseeded, and
    put back afterwards uses it, and is not safe beside another thread)."""

    def __init__(self, n):
        self.n, self.seen = n, []

    def _note(self):
        self.seen.append((torch.initial_seed(), torch.get_rng_state()))

    def __len__(self):
        self._note()
        return self.n

    def __getitem__(self, index):
        self._note()
        return index


def assert_global_state_unused_during(call):
    torch.manual_seed(seed_for(20250101))  # a seed no split below uses
    torch.rand(3)
    seed, state = torch.initial_seed(), torch.get_rng_state()
    dataset = WatchedDataset(30)
    call(dataset)
    changed = [
        seen_seed
        for seen_seed, seen_state in dataset.seen
        if seen_seed != seed or not torch.equal(seen_state, state)
    ]
    assert not changed, (
        f"while the split ran, torch's global generator was reseeded (to {changed[0]}) or "
        "drawn from: seed a torch.Generator of your own and pass it; do not reseed the global "
        "one, not even inside torch.random.fork_rng"
    )


def test_split_does_not_use_the_global_state_while_it_runs(device):
    assert_global_state_unused_during(
        lambda dataset: split_dataset(dataset, [0.5, 0.5], seed=seed_for(1))
    )


def test_stratified_split_does_not_use_the_global_state_while_it_runs(device):
    labels = torch.arange(30, device=device) % 3
    assert_global_state_unused_during(
        lambda dataset: stratified_split(dataset, labels, [0.5, 0.5], seed=seed_for(1))
    )


def test_split_leaves_the_global_random_state_alone(device):
    before = torch.get_rng_state()
    split_dataset(numbered_dataset(device, 30), [0.5, 0.5], seed=seed_for(1))
    assert torch.equal(torch.get_rng_state(), before), (
        "split_dataset changed the global random state; use a generator of its own "
        "instead of torch.manual_seed"
    )


@EVERY_SIZE
@pytest.mark.parametrize("fractions", BAD_FRACTIONS, ids=BAD_IDS)
def test_split_rejects_bad_fractions(device, n, fractions):
    with pytest.raises(ValueError):
        split_dataset(numbered_dataset(device, n), fractions, seed=seed_for(0))


@pytest.mark.parametrize("fractions", [[1.0], [0.5, 0.5], [0.7, 0.2, 0.1]], ids=len)
def test_an_empty_dataset_gives_a_subset_per_fraction(device, fractions):
    # Nothing to deal still gives len(fractions) (empty) splits: a split built per class and
    # zipped together, or a shortcut for no items, gives no split at all there.
    dataset = numbered_dataset(device, 0)
    labels = torch.zeros(0, dtype=torch.int64, device=device)
    for name, splits in [
        ("split_dataset", split_dataset(dataset, fractions, seed=seed_for(0))),
        ("stratified_split", stratified_split(dataset, labels, fractions, seed=seed_for(0))),
    ]:
        assert len(splits) == len(fractions), (
            f"{name} of an empty dataset: expected {len(fractions)} empty splits, one per "
            f"fraction, got {len(splits)}"
        )
        assert_partition(splits, 0, dataset)
        assert all(list(split.indices) == [] for split in splits)


# --- stratified_split --------------------------------------------------------------------


def shuffled_labels(device, counts):
    labels = torch.cat([torch.full((count,), c) for c, count in enumerate(counts)])
    return labels[torch.randperm(len(labels))].to(device)


def class_counts(labels, indices, num_classes):
    return torch.bincount(labels.cpu()[indices], minlength=num_classes).tolist()


@pytest.mark.parametrize(
    "counts, fractions",
    [
        ([50, 30, 20], [0.7, 0.2, 0.1]),
        ([9, 1, 5], [0.6, 0.4]),
        ([12, 12], [0.5, 0.25, 0.25]),
        ([3, 7, 0, 11], [0.8, 0.2]),
    ],
    ids=["three classes", "a single-item class", "balanced", "a missing class"],
)
def test_stratified_split_keeps_the_class_ratios(device, counts, fractions):
    labels = shuffled_labels(device, counts)
    dataset = numbered_dataset(device, len(labels))
    splits = stratified_split(dataset, labels, fractions, seed=seed_for(0))
    assert len(splits) == len(fractions), f"expected {len(fractions)} splits, got {len(splits)}"
    assert_partition(splits, len(labels), dataset)
    for k, split in enumerate(splits):
        assert all(isinstance(i, int) for i in split.indices), "indices should be Python ints"
        expected = [sizes_by_hand(count, fractions)[k] for count in counts]
        got = class_counts(labels, split.indices, len(counts))
        assert got == expected, (
            f"split {k} should hold {expected} items of each class (class counts {counts}, "
            f"fractions {fractions}), got {got}: split every class on its own"
        )


def test_stratified_split_is_random_and_reproducible(device):
    labels = shuffled_labels(device, [20, 10])
    dataset = numbered_dataset(device, 30)
    first = stratified_split(dataset, labels, [0.5, 0.5], seed=seed_for(5))
    torch.rand(10)
    again = stratified_split(dataset, labels, [0.5, 0.5], seed=seed_for(5))
    others = [
        stratified_split(dataset, labels, [0.5, 0.5], seed=s) for s in (seed_for(6), seed_for(7))
    ]
    same = [sorted(s.indices) for s in first]
    assert same == [sorted(s.indices) for s in again], "the same seed must give the same split"
    for other in others:
        assert same != [sorted(s.indices) for s in other], (
            "different seeds gave the same split: choose the items of each class at random, "
            "with a generator seeded by `seed`"
        )


def test_stratified_split_shuffles_the_classes_independently(device):
    # Two classes of one size, stored one after the other. Re-seeding a generator with
    # `seed` for each class would pick the same positions in both, for every seed.
    labels = torch.tensor([0] * 10 + [1] * 10, device=device)
    dataset = numbered_dataset(device, 20)
    splits = [stratified_split(dataset, labels, [0.5, 0.5], seed) for seed in range(3)]
    lockstep = []
    for first, _ in splits:
        picked = sorted(first.indices)
        lockstep.append([i for i in picked if i < 10] == [i - 10 for i in picked if i >= 10])
    assert not all(lockstep), (
        "with seeds 0, 1 and 2, split 0 took the same positions of class 0 and of class 1 "
        "every time: draw every class's shuffle from one generator, seeded once with `seed`, "
        "instead of a generator seeded anew with `seed` for each class"
    )


def test_stratified_split_seeds_one_generator_once(device):
    # Six classes of one size and five seeds: one generator gives each (seed, class) its own
    # draw. A generator per class seeded from the seed and the class (seed + class) repeats
    # the positions of class c at seed s in class c + 1 at seed s - 1.
    labels = torch.arange(6, device=device).repeat_interleave(30)
    dataset = numbered_dataset(device, len(labels))
    picked = {}
    for seed in range(5):
        first, _ = stratified_split(dataset, labels, [0.5, 0.5], seed)
        for c in range(6):
            picked[seed, c] = frozenset(i - 30 * c for i in first.indices if i // 30 == c)
    repeated = [
        key for key, positions in picked.items() if list(picked.values()).count(positions) > 1
    ]
    assert not repeated, (
        f"(seed, class) pairs {repeated} took the same positions of their class: draw every "
        "class from one torch.Generator seeded once with `seed`, not one generator per class "
        "seeded from the seed and the class"
    )


@pytest.mark.parametrize("seeds", [(5, -5), (3, -3)])
def test_stratified_split_seeds_of_either_sign_give_other_splits(device, seeds):
    # Any int seeds a generator as it is: a seed made non-negative first gives two seeds one
    # split.
    labels = torch.arange(3, device=device).repeat_interleave(20)
    dataset = numbered_dataset(device, len(labels))
    first, second = (stratified_split(dataset, labels, [0.5, 0.5], seed)[0] for seed in seeds)
    assert first.indices != second.indices, (
        f"seeds {seeds} gave the same split: seed the generator with the seed as it is, "
        "torch.Generator().manual_seed(seed)"
    )


def test_stratified_split_takes_any_integer_class_ids(device):
    # Ids past 2**31 and 2**24 too: an int32 copy of the labels wraps 2**32 + 5 onto 5, a
    # float32 one rounds 2**40 + 1 onto 2**40. The counts of those pairs are odd, so a
    # merged class splits into other counts than its two classes split one by one.
    counts = {-1: 6, 5: 5, 100: 8, 2**32 + 5: 3, 2**40: 3, 2**40 + 1: 7}
    labels = torch.tensor([c for c, n in counts.items() for _ in range(n)], device=device)
    labels = labels[torch.randperm(len(labels), device=device)]
    dataset = numbered_dataset(device, len(labels))
    splits = stratified_split(dataset, labels, [0.5, 0.5], seed=seed_for(0))
    assert_partition(splits, len(labels), dataset)
    for k, split in enumerate(splits):
        got = {c: int((labels[split.indices] == c).sum()) for c in counts}
        expected = {c: sizes_by_hand(n, [0.5, 0.5])[k] for c, n in counts.items()}
        assert got == expected, (
            f"split {k} holds {got} items per class, expected {expected}: class ids are any "
            "integers (here -1, 5, 100 and ids past 2**32); group the items by the values "
            "that occur, in the labels' own int64 (no .int() or .float() copy)"
        )


def test_stratified_split_leaves_the_global_random_state_alone(device):
    labels = shuffled_labels(device, [6, 6])
    before = torch.get_rng_state()
    stratified_split(numbered_dataset(device, 12), labels, [0.5, 0.5], seed=seed_for(1))
    assert torch.equal(torch.get_rng_state(), before), (
        "stratified_split changed the global random state; draw from a generator of its own"
    )


@pytest.mark.parametrize(
    "labels_shape, n",
    [((11,), 12), ((13,), 12), ((12, 1), 12), ((), 12), ((), 1), ((1, 1), 1)],
    ids=["too short", "too long", "2-D", "0-D", "0-D of one item", "2-D of one item"],
)
def test_stratified_split_rejects_labels_that_do_not_fit(device, labels_shape, n):
    labels = torch.zeros(labels_shape, dtype=torch.int64, device=device)
    with pytest.raises(ValueError):  # a 0-dim tensor is not 1-D, even with one element
        stratified_split(numbered_dataset(device, n), labels, [0.5, 0.5], seed=seed_for(0))


@EVERY_SIZE
@pytest.mark.parametrize("fractions", BAD_FRACTIONS, ids=BAD_IDS)
def test_stratified_split_rejects_bad_fractions(device, n, fractions):
    labels = torch.zeros(n, dtype=torch.int64, device=device)
    with pytest.raises(ValueError):
        stratified_split(numbered_dataset(device, n), labels, fractions, seed=seed_for(0))


# ---------------------------------------------------------------- facets

FACETS = facets.declare(
    facets.of(split_sizes, facets.Number(lambda device: facets.args(10, [0.45, 0.45, 0.1]), list)),
    facets.of(
        split_dataset,
        facets.OwnGenerator(
            lambda device: facets.args(numbered_dataset(device, 30), [0.5, 0.5], seed=seed_for(1))
        ),
        facets.Returns(
            lambda device: facets.args(numbered_dataset(device, 30), [0.5, 0.5], seed=seed_for(1))
        ),
    ),
    facets.of(
        stratified_split,
        # labels: one per item of the dataset, 1-D (a seeded random split: the kata's own
        # tests cover the rest).
        facets.BadShapes(
            lambda device: facets.args(
                list(range(6)), torch.tensor([0, 1, 0, 1, 2, 2], device=device), [0.5, 0.5], 0
            ),
            names=(1,),
        ),
        facets.OwnGenerator(
            lambda device: facets.args(
                numbered_dataset(device, 12), torch.arange(12, device=device) % 3, [0.5, 0.5], 1
            )
        ),
        facets.Returns(
            lambda device: facets.args(
                numbered_dataset(device, 12), torch.arange(12, device=device) % 3, [0.5, 0.5], 1
            )
        ),
        # Class ids that need not run from 0: labels is read, never shifted in place.
        facets.Unmodified(
            lambda device: facets.args(
                numbered_dataset(device, 12), torch.arange(12, device=device) % 3 - 1, [0.5, 0.5], 1
            )
        ),
    ),
)
test_facets = FACETS.test
