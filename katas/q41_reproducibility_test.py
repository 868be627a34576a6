import contextlib
import multiprocessing
import os
import pickle
import random

import numpy as np
import pytest
import torch
from torch.utils.data import Dataset, get_worker_info

from katas.q41_reproducibility import make_deterministic, make_loader, seed_everything, seed_worker
from torch_katas import facets
from torch_katas.testing import (
    compiled_deterministic,
    seed_for,
    settings_put_back,
    settings_switched,
)

# Forking a process that runs threads warns on Python 3.12+; the workers here are short-lived.
FORK_WARNING = "ignore:This process.*is multi-threaded, use of fork:DeprecationWarning"


@pytest.fixture(autouse=True)
def _restore_numpy_random_state():
    """The harness restores torch's and Python's random states; NumPy's is restored here."""
    state = np.random.get_state()
    yield
    np.random.set_state(state)


class NoisyDataset(Dataset):
    """Each item draws one number from torch, Python's random and NumPy, in whatever
    process loads it, and says which worker that was and its torch seed. Six items in
    batches of 3: one batch, three draws of each kind, for each of two workers."""

    def __len__(self):
        return 6

    def __getitem__(self, index):
        info = get_worker_info()
        return {
            "index": index,
            "worker": info.id if info is not None else -1,
            "worker_seed": torch.initial_seed() if info is not None else -1,
            "given_seed": info.seed if info is not None else -1,  # what the DataLoader gave it
            "torch": torch.rand(()),
            "python": random.random(),
            "numpy": np.random.rand(),
        }


def with_forked_workers(loader):
    """Workers started by fork run the answer under test, whatever the platform's default
    start method (spawn and forkserver re-import the kata module from katas/)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("this check needs the fork start method for DataLoader workers")
    loader.multiprocessing_context = "fork"
    return loader


def run(loader):
    """Every field of every batch, as lists of Python numbers, in loading order."""
    rows = []
    for batch in loader:
        keys = sorted(batch)
        rows += [
            dict(zip(keys, values, strict=True))
            for values in zip(*(batch[k].tolist() for k in keys), strict=True)
        ]
    return rows


def disturb_global_random_states():
    torch.manual_seed(seed_for(2024))
    random.seed(seed_for(2024))
    np.random.seed(seed_for(2024))
    torch.rand(7), random.random(), np.random.rand()


# --- seed_everything ---------------------------------------------------------------------


def draws(device):
    return (
        random.random(),
        float(np.random.rand()),
        torch.rand(3).tolist(),
        torch.rand(3, device=device).tolist(),
    )


@pytest.mark.parametrize("seed", [0, 11, 2**32 - 1])  # both ends of the allowed range
def test_seed_everything_repeats_every_generator(device, seed):
    seed_everything(seed)
    first = draws(device)
    disturb_global_random_states()
    seed_everything(seed)
    again = draws(device)
    names = ["Python's random", "NumPy", "torch (CPU)", f"torch on {device}"]
    for name, a, b in zip(names, first, again, strict=True):
        assert a == b, f"{name} gave other numbers after seed_everything({seed}) a second time"


@pytest.mark.parametrize("seed", [0, 11, 2**31 + 5, 2**32 - 1])
def test_seed_everything_seeds_each_generator_with_the_seed_itself(device, seed):
    # Other code seeds with random.seed(s), np.random.seed(s) or torch.manual_seed(s): after
    # seed_everything(s) every generator is where that call leaves it (no offset, no other
    # modulus, nothing drawn after seeding).
    torch.manual_seed(seed)
    torch.rand(3)  # as draws() does, before it draws on the device
    on_device = torch.rand(3, device=device).tolist()
    disturb_global_random_states()
    seed_everything(seed)
    got = draws(device)
    expected = (
        random.Random(seed).random(),
        float(np.random.RandomState(seed).rand()),
        torch.rand(3, generator=torch.Generator().manual_seed(seed)).tolist(),
        on_device,
    )
    names = ["Python's random", "NumPy", "torch (CPU)", f"torch on {device}"]
    for name, a, b in zip(names, got, expected, strict=True):
        assert a == b, (
            f"after seed_everything({seed}), {name} is not where seeding it with {seed} "
            "itself leaves it"
        )


def test_seed_everything_with_another_seed_gives_other_numbers(device):
    seed_everything(seed_for(11))
    first = draws(device)
    seed_everything(seed_for(12))
    other = draws(device)
    names = ["Python's random", "NumPy", "torch (CPU)", f"torch on {device}"]
    for name, a, b in zip(names, first, other, strict=True):
        assert a != b, f"{name} gave the same numbers for seeds 11 and 12: is it seeded?"


TORCH_SETS_ON_FIRST_USE = {"CUDA_MODULE_LOADING"}


@contextlib.contextmanager
def environment_changes():
    """{name: (before, after)} for every environment variable the block sets, changes or
    removes; the environment is put back as it was afterwards."""
    before = dict(os.environ)
    changes = {}
    try:
        yield changes
    finally:
        after = dict(os.environ)
        for name in before.keys() | after.keys():
            # CUDA's first use sets this in torch itself (torch.cuda's lazy init), not the answer.
            if name in TORCH_SETS_ON_FIRST_USE and name not in before:
                continue
            if before.get(name) != after.get(name):
                changes[name] = (before.get(name), after.get(name))
        os.environ.clear()
        os.environ.update(before)


@pytest.mark.parametrize("before", [None, "junk", ":16:8"], ids=["unset", "junk", ":16:8"])
def test_seed_everything_leaves_the_environment_alone(device, monkeypatch, before):
    if before is None:
        monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    else:
        monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", before)
    with environment_changes() as changes:
        seed_everything(seed_for(3))
    assert not changes, (
        f"seed_everything changed the environment ({changes}): seeding only, no variable "
        "set (CUBLAS_WORKSPACE_CONFIG is make_deterministic's choice)"
    )


def test_seed_everything_changes_no_setting(device):
    # From non-default settings: a recipe's cudnn.benchmark = False (or determinism off)
    # inside the seeding writes the value the defaults already hold, unseen from them.
    with settings_switched(OTHERS), settings_put_back(DETERMINISM):
        put(True, True, True, True)  # every determinism setting away from its default too
        try:
            with settings_put_back(()):
                seed_everything(seed_for(3))
        except AssertionError as error:
            raise AssertionError(
                f"seed_everything: seeding only; the cuDNN flags, deterministic algorithms and "
                f"the like are make_deterministic's choice, or the caller's\n{error}"
            ) from None


# --- seed_worker -------------------------------------------------------------------------


@pytest.mark.parametrize("torch_seed", [2**40 + 123, 7, 2**63 - 1])
@pytest.mark.parametrize("drawn", [0, 5], ids=["fresh", "after draws"])
def test_seed_worker_seeds_python_and_numpy_from_the_torch_seed(device, torch_seed, drawn):
    torch.manual_seed(torch_seed)  # what the DataLoader does in each worker
    torch.rand(drawn)  # a dataset may draw before a worker_init_fn runs: its stream goes on
    torch_state = torch.get_rng_state()
    seed_worker(3)
    expected = torch_seed % 2**32
    assert random.random() == random.Random(expected).random(), (
        "Python's random should be seeded with torch.initial_seed() % 2**32"
    )
    assert np.random.rand() == np.random.RandomState(expected).rand(), (
        "NumPy's global generator should be seeded with torch.initial_seed() % 2**32"
    )
    assert torch.initial_seed() == torch_seed and torch.equal(torch.get_rng_state(), torch_state), (
        "seed_worker should leave torch's random state alone: the DataLoader seeded it (a "
        "manual_seed with the same seed restarts the stream already drawn from)"
    )


# --- make_loader -------------------------------------------------------------------------


def test_shuffle_order_depends_only_on_the_seed(device):
    data = torch.arange(20, device=device)
    first = [batch.tolist() for batch in make_loader(data, batch_size=6, seed=seed_for(5))]
    disturb_global_random_states()
    before = torch.get_rng_state()
    again = [batch.tolist() for batch in make_loader(data, batch_size=6, seed=seed_for(5))]
    assert torch.equal(torch.get_rng_state(), before), (
        "the loader used torch's global random state; give it generator=torch.Generator()"
        ".manual_seed(seed)"
    )
    other = [batch.tolist() for batch in make_loader(data, batch_size=6, seed=seed_for(6))]
    assert first == again, "the same seed should give the same order, whatever the global state"
    assert sorted(v for b in first for v in b) == list(range(20)), "every item once per epoch"
    assert first != other, "seeds 5 and 6 gave the same order"
    assert [v for b in first for v in b] != list(range(20)), "the loader should shuffle"


def test_each_epoch_has_its_own_order_and_the_epochs_repeat(device):
    # shuffle=True draws a new order at every epoch, from the loader's generator.
    data = torch.arange(20, device=device)
    loader = make_loader(data, batch_size=6, seed=seed_for(5))
    epochs = [[v for batch in loader for v in batch.tolist()] for _ in range(3)]
    again = make_loader(data, batch_size=6, seed=seed_for(5))
    assert epochs == [[v for batch in again for v in batch.tolist()] for _ in range(3)], (
        "two loaders built with seed 5 gave different orders over three epochs"
    )
    assert epochs[0] != epochs[1] and epochs[1] != epochs[2], (
        "every epoch has the same order: shuffle=True reshuffles at each epoch (a fixed "
        "permutation passed as the sampler does not)"
    )


def test_two_loaders_with_one_seed_agree_when_interleaved(device):
    data = torch.arange(20, device=device)
    first, second = make_loader(data, 6, seed=seed_for(5)), make_loader(data, 6, seed=seed_for(5))
    pairs = [(a.tolist(), b.tolist()) for a, b in zip(first, second, strict=True)]
    assert all(a == b for a, b in pairs), (
        f"two loaders built with seed 5 and read side by side gave {pairs}: give each loader "
        "a torch.Generator of its own, not one generator shared by every loader"
    )


def test_loaders_built_side_by_side_each_follow_their_seed(device):
    # Each loader has a generator of its own: built one after the other and then used in
    # turn, two loaders with seed 5 still give the order one loader alone gives.
    data = torch.arange(20, device=device)
    alone = [batch.tolist() for batch in make_loader(data, batch_size=6, seed=seed_for(5))]
    first, second = make_loader(data, 6, seed=seed_for(5)), make_loader(data, 6, seed=seed_for(5))
    orders = [[batch.tolist() for batch in loader] for loader in (first, second)]
    assert orders == [alone, alone], (
        "two loaders built with the same seed gave different orders: they share one "
        "generator; give each loader its own torch.Generator().manual_seed(seed)"
    )


@pytest.mark.filterwarnings(FORK_WARNING)
def test_loads_in_the_main_process_by_default(device):
    loader = make_loader(torch.arange(10, device=device), batch_size=4, seed=seed_for(1))
    assert loader.num_workers == 0, (
        f"got num_workers={loader.num_workers}; expected 0 (the default: no worker processes)"
    )
    # The batch size as the batches show it: a BatchSampler of the answer's own makes batches
    # of batch_size too, with loader.batch_size None, and the contract allows it.
    assert [len(batch) for batch in loader] == [4, 4, 2], "batches of batch_size, last shorter"
    try:  # spawn and forkserver workers get the worker_init_fn pickled
        pickle.dumps(loader.worker_init_fn)
    except (pickle.PicklingError, AttributeError) as error:
        pytest.fail(f"the worker_init_fn does not pickle ({error}): pass seed_worker itself")


@pytest.mark.filterwarnings(FORK_WARNING)
def test_workers_run_seed_worker_and_follow_the_seed(device):
    rows = run(with_forked_workers(make_loader(NoisyDataset(), 3, seed=seed_for(7), num_workers=2)))
    reseeded = {r["worker"] for r in rows if r["worker_seed"] != r["given_seed"]}
    assert not reseeded, (
        f"inside worker(s) {sorted(reseeded)} torch's seed is not the one the DataLoader gave "
        "the worker (get_worker_info().seed, drawn from the loader's generator): the "
        "worker_init_fn must leave torch's random state alone and seed only Python and NumPy, "
        "from torch.initial_seed() % 2**32, as seed_worker does"
    )
    for worker in (0, 1):
        mine = [r for r in rows if r["worker"] == worker]
        seed = int(mine[0]["worker_seed"]) % 2**32
        python, numpy = random.Random(seed), np.random.RandomState(seed)
        assert [r["python"] for r in mine] == [python.random() for _ in mine], (
            f"worker {worker}'s Python random was not seeded by seed_worker: pass "
            "worker_init_fn=seed_worker to the DataLoader"
        )
        assert [r["numpy"] for r in mine] == [numpy.rand() for _ in mine], (
            f"worker {worker}'s NumPy was not seeded by seed_worker"
        )
    other = run(
        with_forked_workers(make_loader(NoisyDataset(), 3, seed=seed_for(8), num_workers=2))
    )
    for field in ("index", "torch", "python", "numpy"):
        assert [r[field] for r in rows] != [r[field] for r in other], (
            f"seeds 7 and 8 gave the same {field!r} values: the seed should change them"
        )


def test_two_runs_with_workers_are_bit_identical(device):
    first = run(
        with_forked_workers(make_loader(NoisyDataset(), 3, seed=seed_for(7), num_workers=2))
    )
    disturb_global_random_states()
    again = run(
        with_forked_workers(make_loader(NoisyDataset(), 3, seed=seed_for(7), num_workers=2))
    )
    assert {row["worker"] for row in first} == {0, 1}, "both workers should load batches"
    for field in ("index", "torch", "python", "numpy"):
        assert [r[field] for r in first] == [r[field] for r in again], (
            f"two runs with seed 7 differ in {field!r}: the loader needs its own seeded "
            "generator (it also decides the workers' seeds) and seed_worker as worker_init_fn"
        )
    for field in ("torch", "python", "numpy"):
        by_worker = [[r[field] for r in first if r["worker"] == w] for w in (0, 1)]
        assert not set(by_worker[0]) & set(by_worker[1]), (
            f"the two workers drew the same {field!r} numbers: each worker needs its own seed"
        )


# The settings make_deterministic asks for (as the suite's state guard names them); any other
# global setting it changes (TF32, cudnn.enabled, the matmul precision...) fails the test.
DETERMINISM = ("deterministic algorithms", "cuDNN flags")


# torch.use_deterministic_algorithms switches torch.compile's kernels too (inductor's
# `deterministic` setting), where this torch has that setting; torch.set_deterministic_debug_mode
# switches eager kernels only, and would leave compiled code as it was.
COMPILED = "torch.compile's deterministic kernels"


def settings():
    now = {
        "deterministic algorithms": torch.are_deterministic_algorithms_enabled(),
        "warn only": torch.is_deterministic_algorithms_warn_only_enabled(),
        "cudnn.deterministic": torch.backends.cudnn.deterministic,
        "cudnn.benchmark": torch.backends.cudnn.benchmark,
    }
    # Inductor is imported by torch.use_deterministic_algorithms, which the tests call first.
    compiled = compiled_deterministic()
    if compiled is not None:
        now[COMPILED] = compiled
    return now


def put(deterministic, warn_only, cudnn_deterministic, benchmark):
    torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
    torch.backends.cudnn.deterministic = cudnn_deterministic
    torch.backends.cudnn.benchmark = benchmark


ON = {
    "deterministic algorithms": True,
    "warn only": False,
    "cudnn.deterministic": True,
    "cudnn.benchmark": False,
    COMPILED: True,
}
OFF = {
    "deterministic algorithms": False,
    "warn only": False,
    "cudnn.deterministic": False,
    "cudnn.benchmark": True,
    COMPILED: False,
}


# The other settings near determinism, each flipped from its default by the tests that say
# so: an answer that also sets one "to be safe" (cuDNN on, TF32 off, the highest float32
# matmul precision, which switches TF32 off, memory filling on) writes the value the
# defaults hold, unseen from them.
OTHERS = (
    "TF32 and reduced-precision flags",
    "backends switched on or off",
    "oneDNN's deterministic flag",
    "the filling of uninitialized memory",
)


# From every other state: the switch sets each flag, whatever it was before, and leaves
# every other setting as it was, at its default or not.
@pytest.mark.parametrize("others", ["others at their defaults", "others switched"])
@pytest.mark.parametrize("before", [(False, False, False, True), (True, True, True, False)])
@pytest.mark.parametrize("enabled", [True, False])
def test_make_deterministic_sets_every_flag(device, monkeypatch, enabled, before, others):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    monkeypatch.setattr(torch.backends.cudnn, "enabled", True)  # put back after the test
    disturb_global_random_states()  # not the states a seed of 0 gives
    random_states = torch.get_rng_state(), random.getstate(), np.random.get_state()[1]
    with settings_switched(OTHERS if others == "others switched" else ()):
        cudnn_before = torch.backends.cudnn.enabled
        # The test's own switch to `before` sets torch.compile's deterministic setting too
        # (inductor's config, as torch.use_deterministic_algorithms does): its doing, not the
        # answer's, and put back with the rest. The answer's value of that setting is checked
        # below with the flags; the other tests of make_deterministic still refuse a change to
        # any other compiler setting.
        with settings_put_back((*DETERMINISM, "torch.compiler's configuration")):
            # The first switch imports torch's inductor, which may set a cache folder
            # variable: the test's doing, not the answer's.
            put(*before)
            with environment_changes() as changes:
                make_deterministic(enabled)
            now = settings()
            cudnn_after = torch.backends.cudnn.enabled  # read before the block puts it back
    changes.pop("CUBLAS_WORKSPACE_CONFIG", None)  # its own test checks it
    assert not changes, (
        f"make_deterministic({enabled}) changed the environment ({changes}): of it, only "
        "CUBLAS_WORKSPACE_CONFIG is its to set"
    )
    assert cudnn_after == cudnn_before, (
        f"make_deterministic({enabled}) switched cuDNN {'on' if cudnn_after else 'off'}; it asks "
        "cuDNN for deterministic kernels (cudnn.deterministic), and leaves cudnn.enabled as "
        "it is"
    )
    after = torch.get_rng_state(), random.getstate(), np.random.get_state()[1]
    assert torch.equal(after[0], random_states[0]) and after[1] == random_states[1], (
        f"make_deterministic({enabled}) changed the random states: seeding is seed_everything's job"
    )
    assert (after[2] == random_states[2]).all(), f"make_deterministic({enabled}) reseeded NumPy"
    expected = {name: (ON if enabled else OFF)[name] for name in now}
    wrong = {name: value for name, value in now.items() if value != expected[name]}
    assert not wrong, (
        f"make_deterministic({enabled}) left {wrong}; expected {expected}: "
        "torch.use_deterministic_algorithms (which switches torch.compile's kernels too, where "
        "torch.set_deterministic_debug_mode does not), and both cuDNN flags (benchmark is the "
        "opposite)"
    )


def test_make_deterministic_is_the_default_switch(device, monkeypatch):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    with settings_put_back(DETERMINISM):
        put(False, False, False, True)
        make_deterministic()
        now = settings()
    assert now == {name: ON[name] for name in now}, (
        f"make_deterministic() should switch determinism on; left {now}"
    )


@pytest.mark.parametrize(
    "before, after",
    [(None, ":4096:8"), (":16:8", ":16:8"), (":4096:8", ":4096:8"), ("junk", ":4096:8")],
)
def test_make_deterministic_sets_the_cublas_workspace(device, monkeypatch, before, after):
    if before is None:
        monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    else:
        monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", before)
    with settings_put_back(DETERMINISM):
        make_deterministic(True)
    value = os.environ.get("CUBLAS_WORKSPACE_CONFIG")
    assert value == after, (
        f"CUBLAS_WORKSPACE_CONFIG was {before!r} and became {value!r}; expected {after!r} "
        "(cuBLAS is deterministic only with ':4096:8' or ':16:8'; keep either if set)"
    )


# Even a value that switching on would have set stays: the variable may be the user's.
@pytest.mark.parametrize("value", ["junk", ":4096:8", ":16:8"])
def test_switching_off_leaves_the_environment_alone(device, monkeypatch, value):
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", value)
    with settings_put_back(DETERMINISM):
        make_deterministic(False)
    assert os.environ.get("CUBLAS_WORKSPACE_CONFIG") == value, (
        "make_deterministic(False) should leave CUBLAS_WORKSPACE_CONFIG as it was"
    )


# ---------------------------------------------------------------- facets

FACETS = facets.declare(
    facets.none(seed_everything, "global random states: the kata's own tests cover them"),
    facets.none(seed_worker, "a worker's random states: the kata's own tests cover them"),
    facets.of(
        make_loader,
        # Building the loader, and two epochs of it (in this process: no worker).
        facets.OwnGenerator(
            lambda device: facets.args(list(range(6)), 3, seed=seed_for(1)),
            then=lambda arguments, loader: [list(loader), list(loader)],
        ),
        facets.Defaults(
            lambda device: facets.args(list(range(6)), 3, 1),
            values={"num_workers": 0},
            key=lambda arguments, loader: (loader.num_workers, list(loader)),
        ),
    ),
    facets.none(
        make_deterministic,
        "returns nothing and sets process-wide flags: the kata's own tests check each and put "
        "them back",
    ),
)
test_facets = FACETS.test
