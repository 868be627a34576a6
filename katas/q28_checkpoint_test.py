import os
import random
import sys
import tempfile
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from katas.q28_checkpoint import load_checkpoint, save_checkpoint
from torch_katas import facets
from torch_katas.testing import assert_close, raises, same_device, seed_for


class DiskFull(OSError):
    """What the stand-in for torch.save raises after writing part of the file."""


def failing_save_raising(error):
    """A torch.save that writes a few bytes where torch.save would write, then raises."""

    def failing_save(obj, f, *args, **kwargs):
        if isinstance(f, (str, os.PathLike)):
            with open(f, "wb") as file:
                file.write(b"PK\x03\x04 half a checkpoint")
        else:
            f.write(b"PK\x03\x04 half a checkpoint")
        raise error

    return failing_save


# Writing fails by any exception: a full disk, or Ctrl-C (a BaseException, not an Exception).
FAILURES = {
    "disk full": lambda: DiskFull(28, "No space left on device"),
    "KeyboardInterrupt": KeyboardInterrupt,
}


def replace_by_name(patch, original, stand_in, *namespaces):
    """Replace `original` by `stand_in` in `namespaces` and wherever the learner's module holds
    it under a name of its own (`from os import replace`)."""
    for namespace in namespaces:
        for name, value in list(vars(namespace).items()):
            if value is original:
                patch.setattr(namespace, name, stand_in)
    module = sys.modules[save_checkpoint.__module__]
    for name, value in list(vars(module).items()):
        if value is original:
            patch.setattr(module, name, stand_in)


def open_fds():
    """The process's open file descriptors, where the system lists them (Linux, macOS)."""
    for listing in ("/proc/self/fd", "/dev/fd"):
        if os.path.isdir(listing):
            return set(os.listdir(listing))
    return set()


def assert_no_fd_left(before):
    left = len(open_fds() - before)
    assert not left, (
        f"the save left {left} file descriptor(s) open: close what you open (os.fdopen the "
        "descriptor tempfile.mkstemp returns, in a with block, or os.close it)"
    )


RECORDING: list | None = None  # the audit events seen while a save runs


def record_file_events(event, args):
    if RECORDING is not None and event in ("open", "os.remove", "os.rename"):
        RECORDING.append((event, args))


AUDIT_HOOK = []  # an audit hook cannot be removed: add one, the first time it is needed


def as_path(name):
    return (
        os.path.realpath(os.fsdecode(name)) if isinstance(name, (str, bytes, os.PathLike)) else None
    )


class FileOperations:
    """What a save does to files: the audit events of open, remove and rename, with the files
    it created itself (opened with O_CREAT | O_EXCL: a fresh name, nothing overwritten)."""

    def __init__(self):
        self.events = []
        self.created = set()

    def __enter__(self):
        global RECORDING
        if not AUDIT_HOOK:
            sys.addaudithook(record_file_events)
            AUDIT_HOOK.append(True)
        RECORDING = self.events
        return self

    def __exit__(self, *exc):
        global RECORDING
        RECORDING = None

    def problems(self, path):
        """Every operation on a file other than a fresh one of the save's own, except the
        final rename of that file onto `path`."""
        path, created, problems = os.path.realpath(path), set(), []
        folder = os.path.dirname(path)
        for event, args in list(self.events):
            name = as_path(args[0])
            if name is None or os.path.dirname(name) != folder:
                continue  # a descriptor being wrapped, or a file elsewhere
            if event == "open":
                flags = args[2]
                if not flags & (os.O_WRONLY | os.O_RDWR):
                    continue  # read only
                if flags & os.O_CREAT and flags & os.O_EXCL:
                    created.add(name)
                elif name not in created:
                    problems.append(f"opened {name} for writing without creating it (O_EXCL)")
            elif event == "os.remove" and name not in created:
                problems.append(f"removed {name}")
            elif event == "os.rename" and (name not in created or as_path(args[1]) != path):
                problems.append(f"renamed {name} to {as_path(args[1])}")
        self.created |= created
        return problems


def windows_rename(patch):
    """os.rename as on Windows: it refuses to rename onto an existing file (os.replace does
    not), also where pathlib or the learner's module reaches it."""
    real = os.rename

    def rename(source, target, *args, **kwargs):
        if os.path.exists(target):
            raise FileExistsError(183, "Cannot create a file when that file already exists")
        return real(source, target, *args, **kwargs)

    replace_by_name(patch, real, rename, os)


def stand_in_for_torch_save(patch, stand_in):
    """Replace torch.save by `stand_in`, also where the learner's module holds it under a
    name of its own (`from torch import save`)."""
    replace_by_name(patch, torch.save, stand_in, torch, torch.serialization)


def outside_folders(tmp_path, monkeypatch):
    """An empty working directory, HOME and system temp folder, each of which a save must
    leave empty (it writes next to its target only)."""
    folders = {name: tmp_path / name for name in ("cwd", "home", "tmp")}
    for folder in folders.values():
        folder.mkdir()
    monkeypatch.chdir(folders["cwd"])
    monkeypatch.setenv("HOME", str(folders["home"]))
    monkeypatch.setenv("TMPDIR", str(folders["tmp"]))
    monkeypatch.setattr(tempfile, "tempdir", str(folders["tmp"]))
    return folders


def assert_nothing_written_in(folders, keep=()):
    for name, folder in folders.items():
        left = sorted(p.name for p in folder.iterdir() if p.name not in keep)
        assert not left, (
            f"the save left {left} in the {name} folder; write the temporary file next to the "
            "checkpoint (in path's own folder) and nowhere else"
        )


def make_run(device, seed):
    """Model with dropout (so the RNG matters), Adam (state matters), StepLR (schedule matters)."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    return model, optimizer, scheduler


def train_epoch(model, optimizer, scheduler, device):
    """Random data from torch's CPU generator, order and noise from Python's random,
    dropout masks from the device's generator."""
    model.train()
    batches = [torch.randn(8, 6) for _ in range(3)]
    random.shuffle(batches)
    for x in batches:
        x = x.to(device)
        y = x.sum(1, keepdim=True) * random.uniform(0.5, 1.5)
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()


def scramble_global_state():
    """What a new process looks like: other seeds, other random states."""
    torch.manual_seed(seed_for(12345))
    random.seed(seed_for(12345))


def snapshot(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def assert_same_weights(model, expected, message):
    for key, value in model.state_dict().items():
        assert_close(value, expected[key], f"{key}: {message}", rtol=0, atol=0)


def skip_without_saved_rng(device):
    # MPS alone has a generator of its own that the checkpoint does not save.
    if device.type == "mps":
        pytest.skip("the checkpoint saves the CPU and CUDA generators, not MPS's")


def test_resumed_training_equals_uninterrupted_training(device, tmp_path):
    skip_without_saved_rng(device)
    path = tmp_path / "checkpoint.pt"
    torch.manual_seed(seed_for(0))
    random.seed(seed_for(0))
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    # One epoch on each side of the save: by then Adam's moments, the lr and the random
    # states all differ from a fresh start, and each of them changes the epoch after.
    train_epoch(model, optimizer, scheduler, device)
    save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    train_epoch(model, optimizer, scheduler, device)
    uninterrupted, lr = snapshot(model), scheduler.get_last_lr()
    next_draw = torch.rand(4)

    scramble_global_state()
    model, optimizer, scheduler = make_run(device, seed=seed_for(99))  # a fresh process, other init
    epoch = load_checkpoint(path, model, optimizer, scheduler)
    assert epoch == 1, f"load_checkpoint should return the saved epoch 1, got {epoch!r}"
    for _ in range(epoch, 2):
        train_epoch(model, optimizer, scheduler, device)
    assert scheduler.get_last_lr() == lr, (
        f"after resuming, the learning rate is {scheduler.get_last_lr()} instead of {lr}: "
        "save and load the scheduler's state_dict"
    )
    assert_same_weights(
        model,
        uninterrupted,
        "resumed training differs from uninterrupted training; save and restore the "
        "optimizer's state_dict (Adam's moments) and the random states (torch, CUDA, Python)",
    )
    assert torch.equal(torch.rand(4), next_draw), "the random stream did not continue as saved"


def test_load_restores_the_random_states(device, tmp_path):
    skip_without_saved_rng(device)
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler, epoch=0)
    expected = (torch.rand(3), torch.rand(3, device=device), random.random())
    scramble_global_state()
    load_checkpoint(tmp_path / "c.pt", *make_run(device, seed=seed_for(1)))
    torch_draw, device_draw, python_draw = (
        torch.rand(3),
        torch.rand(3, device=device),
        random.random(),
    )
    assert torch.equal(torch_draw, expected[0]), (
        "restore torch's CPU generator (torch.set_rng_state)"
    )
    assert torch.equal(device_draw, expected[1]), "restore the CUDA generators too"
    assert python_draw == expected[2], "restore Python's random state (random.setstate)"


def test_save_draws_nothing_from_the_random_generators(device, tmp_path):
    # A save in the middle of training must not move the streams the training draws from,
    # or a run that checkpoints differs from one that does not.
    skip_without_saved_rng(device)
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    cpu_state, python_state = torch.get_rng_state(), random.getstate()
    cuda_states = torch.cuda.get_rng_state_all() if device.type == "cuda" else None
    expected = (torch.rand(3), torch.rand(3, device=device), random.random())
    torch.set_rng_state(cpu_state)
    random.setstate(python_state)
    if cuda_states is not None:
        torch.cuda.set_rng_state_all(cuda_states)
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler, epoch=0)
    drawn = (torch.rand(3), torch.rand(3, device=device), random.random())
    names = ("torch's CPU", "the device's", "Python's")
    for name, got, want in zip(names, drawn, expected, strict=True):
        same = got == want if isinstance(got, float) else torch.equal(got, want)
        assert same, (
            f"save_checkpoint moved {name} random stream: draw nothing from the global "
            "generators (tempfile.mkstemp, secrets or uuid4 name a temporary file without them)"
        )


class TwoFakeGPUs:
    """torch.cuda's random-state functions for two devices that do not exist: what a machine
    with several GPUs shows a checkpoint, simulated wherever the tests run."""

    def __init__(self):
        self.states = [torch.full((16,), 10 + i, dtype=torch.uint8) for i in range(2)]

    def index(self, device="cuda"):
        device = torch.device("cuda", device) if isinstance(device, int) else torch.device(device)
        return 0 if device.index is None else device.index  # device 0 is the current one

    def get_rng_state(self, device="cuda"):
        return self.states[self.index(device)].clone()

    def set_rng_state(self, new_state, device="cuda"):
        self.states[self.index(device)] = new_state.clone()

    def get_rng_state_all(self):
        return [state.clone() for state in self.states]

    def set_rng_state_all(self, new_states):
        for i, state in enumerate(new_states):
            self.set_rng_state(state, i)

    def install(self, patch):
        functions = {
            torch.cuda.is_available: lambda: True,
            torch.cuda.device_count: lambda: len(self.states),
            torch.cuda.current_device: lambda: 0,
            torch.cuda.get_rng_state: self.get_rng_state,
            torch.cuda.set_rng_state: self.set_rng_state,
            torch.cuda.get_rng_state_all: self.get_rng_state_all,
            torch.cuda.set_rng_state_all: self.set_rng_state_all,
        }
        for real, fake in functions.items():
            replace_by_name(patch, real, fake, torch.cuda, torch.cuda.random)


def test_saves_and_restores_every_cuda_generator(device, tmp_path, monkeypatch):
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    gpus = TwoFakeGPUs()
    gpus.install(monkeypatch)
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler, epoch=0)
    saved = gpus.get_rng_state_all()
    gpus.states = [torch.zeros(16, dtype=torch.uint8) for _ in saved]  # a new process
    load_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler)
    for i, (state, expected) in enumerate(zip(gpus.states, saved, strict=True)):
        assert torch.equal(state, expected), (
            f"CUDA device {i}'s generator was not restored: save and restore every device's "
            "(torch.cuda.get_rng_state_all / set_rng_state_all), not only the current one's"
        )


@pytest.mark.parametrize("as_str", [False, True], ids=["Path", "str"])
def test_load_restores_model_optimizer_scheduler_and_epoch(device, tmp_path, as_str):
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    train_epoch(model, optimizer, scheduler, device)
    path = tmp_path / "c.pt"
    save_checkpoint(str(path) if as_str else path, model, optimizer, scheduler, epoch=7)
    weights, lr = snapshot(model), scheduler.get_last_lr()
    moments = [optimizer.state[p]["exp_avg"].clone() for p in model.parameters()]

    model, optimizer, scheduler = make_run(device, seed=seed_for(1))
    epoch = load_checkpoint(str(path) if as_str else path, model, optimizer, scheduler)
    assert type(epoch) is int and epoch == 7, f"expected the int 7, got {epoch!r}"
    assert_same_weights(model, weights, "load the model's state_dict")
    assert all(same_device(p.device, device) for p in model.parameters()), (
        "the model's parameters should stay on its device"
    )
    assert scheduler.get_last_lr() == lr, "load the scheduler's state_dict"
    for p, expected in zip(model.parameters(), moments, strict=True):
        assert p in optimizer.state and "exp_avg" in optimizer.state[p], (
            "the optimizer has no state after loading: save and load optimizer.state_dict()"
        )
        assert_close(
            optimizer.state[p]["exp_avg"],
            expected,
            "Adam's moments differ after loading: save and load optimizer.state_dict()",
            rtol=0,
            atol=0,
        )


@pytest.mark.parametrize("mode", ["train", "eval", "mixed"])
def test_save_and_load_leave_the_models_mode(device, tmp_path, mode):
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    model.train(mode != "eval")
    if mode == "mixed":
        model[2].eval()  # the dropout off, the rest in training
    flags = [module.training for module in model.modules()]
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler, epoch=1)
    assert [module.training for module in model.modules()] == flags, (
        f"save_checkpoint changed the model's modes ({mode}): a state_dict needs no eval()"
    )
    load_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler)
    assert [module.training for module in model.modules()] == flags, (
        f"load_checkpoint changed the model's modes ({mode}): leave them as the caller set them"
    )


def test_the_file_loads_with_weights_only(device, tmp_path):
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    train_epoch(model, optimizer, scheduler, device)
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler, epoch=1)
    try:
        torch.load(tmp_path / "c.pt", weights_only=True)
    except Exception as error:
        raise AssertionError(
            "torch.load(path, weights_only=True) cannot read the checkpoint: save state "
            "dicts, tensors, numbers and plain containers, not objects"
        ) from error


def test_load_uses_weights_only(device, tmp_path):
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler, epoch=1)
    # torch.load's own code, however the learner's module reaches it (torch.load,
    # `from torch import load`, torch.serialization.load): its arguments as called.
    load_code = torch.serialization.load.__code__
    calls = []

    def watch(frame, event, arg):
        if event == "call" and frame.f_code is load_code:
            calls.append(frame.f_locals.get("weights_only"))

    outer = sys.getprofile()
    sys.setprofile(watch)
    try:
        load_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler)
    finally:
        sys.setprofile(outer)
    assert calls, "read the checkpoint with torch.load"
    assert all(weights_only is True for weights_only in calls), (
        "load with torch.load(path, weights_only=True), the argument written out: never "
        "unpickle arbitrary objects, and do not rely on torch's default, which the "
        "environment can change"
    )


def test_load_reads_the_checkpoint_onto_the_cpu(device, tmp_path, monkeypatch):
    # Saved from a model on the test's device, the file names that device for its tensors;
    # read without map_location it puts them back there, and a machine without that device
    # (a GPU checkpoint on a laptop) cannot read it at all.
    if device.type == "cpu":
        pytest.skip("a checkpoint saved on the CPU is read onto the CPU with any map_location")
    # On the CPU always, also where torch.cuda.is_available() says True (two fake GPUs here):
    # a map_location chosen by it would put the tensors back on the device they came from.
    TwoFakeGPUs().install(monkeypatch)
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    train_epoch(model, optimizer, scheduler, device)  # Adam's state holds device tensors now
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler, epoch=1)
    load_code = torch.serialization.load.__code__
    returned = []

    def watch(frame, event, arg):
        if event == "return" and frame.f_code is load_code:
            returned.append(arg)

    fresh = make_run(device, seed=seed_for(1))
    outer = sys.getprofile()
    sys.setprofile(watch)
    try:
        load_checkpoint(tmp_path / "c.pt", *fresh)
    finally:
        sys.setprofile(outer)
    assert returned, "read the checkpoint with torch.load"
    placed = {
        str(t.device) for checkpoint in returned for t in tensors_in(checkpoint) if t is not None
    }
    assert placed == {"cpu"}, (
        f"torch.load put the checkpoint's tensors on {sorted(placed)}: read it onto the CPU, "
        "torch.load(path, map_location='cpu', weights_only=True), so that a checkpoint "
        "saved on a GPU loads on any machine; load_state_dict then copies each tensor to "
        "where the model's lives"
    )
    loaded_and_saved = zip(fresh[0].state_dict().items(), model.state_dict().values(), strict=True)
    for (name, loaded), saved in loaded_and_saved:
        assert loaded.device == saved.device and torch.equal(loaded, saved), (
            f"{name} did not come back on the model's device with the saved values"
        )


def tensors_in(value):
    """Every tensor inside nested dicts, lists and tuples."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from tensors_in(item)


SPRUNG = []


def spring_the_trap():
    SPRUNG.append(True)
    return {}


class Trap:
    """An object whose unpickling runs code: what weights_only=True refuses to load."""

    def __reduce__(self):
        return spring_the_trap, ()


# torch's warning that the environment turned a plain torch.load(path) into an unsafe one.
@pytest.mark.filterwarnings("ignore:Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
def test_load_never_runs_code_hidden_in_a_file(device, tmp_path, monkeypatch):
    # By behaviour: a file that runs code when unpickled must be refused, whatever the
    # spelling, and also with no fallback to weights_only=False after the safe load fails.
    # This variable makes torch.load unpickle anything unless the call itself says
    # weights_only=True (monkeypatch restores the environment after the test).
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    path = tmp_path / "c.pt"
    SPRUNG.clear()
    torch.save({"model": Trap(), "optimizer": Trap(), "scheduler": Trap(), "epoch": 1}, path)
    with raises(Exception):
        load_checkpoint(path, model, optimizer, scheduler)
    assert not SPRUNG, (
        "loading ran code hidden in the file: read it with torch.load(path, "
        "weights_only=True) only, and let its error propagate. Say weights_only=True in the "
        "call: torch's default can be changed (TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 in the "
        "environment, as here, or an older torch), an explicit argument cannot"
    )


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_save_keeps_the_previous_checkpoint(device, tmp_path, monkeypatch, failure):
    outside = outside_folders(tmp_path, monkeypatch)
    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "checkpoint.pt"
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    saved = snapshot(model)
    train_epoch(model, optimizer, scheduler, device)
    error = FAILURES[failure]()
    fds = open_fds()
    with monkeypatch.context() as patch:
        stand_in_for_torch_save(patch, failing_save_raising(error))
        with raises(type(error)):
            save_checkpoint(path, model, optimizer, scheduler, epoch=2)
    left = sorted(p.name for p in folder.iterdir())
    assert left == [path.name], (
        f"after a failed save ({failure}) the folder holds {left}; remove the temporary file "
        "whatever the error (except BaseException, or try/finally), then let it propagate"
    )
    assert_no_fd_left(fds)
    fresh = make_run(device, seed=seed_for(1))
    try:
        epoch = load_checkpoint(path, *fresh)
    except Exception as error:
        raise AssertionError(
            "a failed save destroyed the previous checkpoint: write to a temporary file in "
            "the same folder, then os.replace it onto the real path"
        ) from error
    assert epoch == 1, "the previous checkpoint (epoch 1) should still be there"
    assert_same_weights(fresh[0], saved, "the previous checkpoint's weights changed")
    assert_nothing_written_in(outside)


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_first_save_leaves_nothing_behind(device, tmp_path, monkeypatch, failure):
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    outside = outside_folders(tmp_path, monkeypatch)
    error = FAILURES[failure]()
    stand_in_for_torch_save(monkeypatch, failing_save_raising(error))
    with raises(type(error)):
        save_checkpoint("checkpoint.pt", model, optimizer, scheduler, epoch=1)  # in the cwd
    left = sorted(p.name for p in outside["cwd"].iterdir())
    assert left == [], f"a failed save ({failure}) should leave no file behind, found {left}"
    assert_nothing_written_in(outside)


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_fsync_leaves_nothing_behind(device, tmp_path, monkeypatch, failure):
    # A full disk often shows only when the data is flushed to it: os.fsync (where the answer
    # calls it) is a step after the temporary file exists, like torch.save and os.replace.
    path = tmp_path / "checkpoint.pt"
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    error, calls = FAILURES[failure](), []

    def failing_fsync(fd):
        calls.append(fd)
        raise error

    fds = open_fds()
    with monkeypatch.context() as patch:
        replace_by_name(patch, os.fsync, failing_fsync, os)
        try:
            save_checkpoint(path, model, optimizer, scheduler, epoch=2)
        except type(error):
            assert calls, f"the save raised {failure} although nothing failed"
        else:
            assert not calls, f"os.fsync failed ({failure}) and the save swallowed the error"
    assert_no_fd_left(fds)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [path.name], (
        f"after os.fsync failed ({failure}) the folder holds {left}; flush and fsync belong "
        "inside the block that removes the temporary file on error"
    )
    epoch = load_checkpoint(path, *make_run(device, seed=seed_for(1)))
    assert epoch == (1 if calls else 2), "a failed save keeps the previous checkpoint"


def test_a_save_killed_halfway_does_not_block_the_next(device, tmp_path):
    path = tmp_path / "checkpoint.pt"
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    with FileOperations() as operations:
        save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    operations.problems(path)
    temporary = sorted(operations.created - {os.path.realpath(path)})
    assert temporary, "the save should create its temporary file exclusively (O_EXCL)"
    # What a save killed halfway (SIGKILL, a power cut) leaves behind: its temporary file,
    # under the name it had. The next save must not trip over it, nor touch it.
    for name in temporary:
        Path(name).write_bytes(b"half a checkpoint")
    try:
        save_checkpoint(path, model, optimizer, scheduler, epoch=2)
    except FileExistsError as error:
        raise AssertionError(
            "a temporary file left by an earlier save that was killed blocks the next save: "
            "create the temporary file under a fresh name each time (tempfile.mkstemp picks "
            "one that is free), not under a fixed one"
        ) from error
    assert load_checkpoint(path, *make_run(device, seed=seed_for(1))) == 2, (
        "the second save replaces"
    )
    for name in temporary:
        assert Path(name).read_bytes() == b"half a checkpoint", f"{name} is not the save's own"


def test_a_failed_replace_leaves_nothing_behind(device, tmp_path):
    # os.replace fails too: here the path is a folder. Every step after the temporary file
    # exists is part of the write, and its error removes that file as well.
    path = tmp_path / "checkpoint.pt"
    path.mkdir()
    (path / "keep.txt").write_text("kept")
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    with raises(OSError):
        save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [path.name], (
        f"after os.replace failed the folder holds {left}; os.replace belongs inside the "
        "block that removes the temporary file on error"
    )
    assert (path / "keep.txt").read_text() == "kept", "what was at path must stay as it was"


def descriptors_open_on(name):
    """The process's file descriptors open on the file `name` (Linux lists them)."""
    if not os.path.isdir("/proc/self/fd"):
        return []
    name, found = os.path.realpath(name), []
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == name:
                found.append(fd)
        except OSError:
            continue  # closed meanwhile (the listing's own descriptor)
    return found


def test_the_temporary_file_is_closed_before_the_replace(device, tmp_path, monkeypatch):
    # Windows refuses to rename a file that is still open, as it refuses os.rename onto an
    # existing one: write the temporary file, close it, then replace.
    path = tmp_path / "checkpoint.pt"
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    real, seen = os.replace, []

    def replace(source, target, *args, **kwargs):
        seen.append((source, descriptors_open_on(source)))
        return real(source, target, *args, **kwargs)

    replace_by_name(monkeypatch, real, replace, os)
    save_checkpoint(path, model, optimizer, scheduler, epoch=2)
    assert seen, "os.replace the temporary file onto the checkpoint"
    for source, open_on_it in seen:
        assert not open_on_it, (
            f"os.replace ran while {len(open_on_it)} descriptor(s) were still open on the "
            f"temporary file {source}: close it first (end its with block, then replace), "
            "as Windows refuses to rename an open file"
        )
    assert load_checkpoint(path, *make_run(device, seed=seed_for(1))) == 2


@pytest.mark.parametrize("failure", FAILURES)
def test_a_replace_interrupted_leaves_nothing_behind(device, tmp_path, monkeypatch, failure):
    # os.replace is a step after the temporary file exists like torch.save: a Ctrl-C that
    # lands in it (not only the OSError it raises itself) removes the temporary file too.
    path = tmp_path / "checkpoint.pt"
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    error, calls = FAILURES[failure](), []

    def failing_replace(source, target, *args, **kwargs):
        calls.append(target)
        raise error

    fds = open_fds()
    with monkeypatch.context() as patch:
        replace_by_name(patch, os.replace, failing_replace, os)
        with raises(type(error)):
            save_checkpoint(path, model, optimizer, scheduler, epoch=2)
    assert calls, "os.replace the temporary file onto the checkpoint"
    assert_no_fd_left(fds)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [path.name], (
        f"after os.replace was interrupted ({failure}) the folder holds {left}; remove the "
        "temporary file whatever the error (except BaseException, or try/finally), then let "
        "it propagate"
    )
    epoch = load_checkpoint(path, *make_run(device, seed=seed_for(1)))
    assert epoch == 1, "a failed save keeps the previous checkpoint"


def test_saving_again_replaces_the_checkpoint(device, tmp_path, monkeypatch):
    path = tmp_path / "checkpoint.pt"
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    fds = open_fds()
    save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    assert_no_fd_left(fds)
    train_epoch(model, optimizer, scheduler, device)
    # A file the user keeps there, under a name a fixed temporary name could take.
    (tmp_path / "checkpoint.pt.tmp").write_bytes(b"the user's")
    windows_rename(monkeypatch)
    with FileOperations() as operations:
        save_checkpoint(path, model, optimizer, scheduler, epoch=2)
    problems = operations.problems(path)
    assert not problems, (
        f"while saving over a checkpoint: {problems[0]}. Create the temporary file under a "
        "fresh name (tempfile.mkstemp or NamedTemporaryFile(dir=..., delete=False): it never "
        "overwrites a file already there), write only to it, and os.replace it onto the "
        "checkpoint (never remove the old one first: readers would find no checkpoint)"
    )
    assert_no_fd_left(fds)
    weights = snapshot(model)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [path.name, "checkpoint.pt.tmp"], f"only the checkpoint stays, got {names}"
    assert (tmp_path / "checkpoint.pt.tmp").read_bytes() == b"the user's"
    fresh = make_run(device, seed=seed_for(1))
    epoch = load_checkpoint(path, *fresh)
    assert type(epoch) is int and epoch == 2, (
        f"load_checkpoint returns the epoch as the int it was saved as, got {epoch!r}"
    )
    assert_same_weights(fresh[0], weights, "the second save should replace the first")


@pytest.mark.parametrize("bare_name", [False, True], ids=["runs/checkpoint.pt", "checkpoint.pt"])
def test_writes_the_temporary_file_next_to_the_target(device, tmp_path, monkeypatch, bare_name):
    outside = outside_folders(tmp_path, monkeypatch)
    if bare_name:  # a bare file name, from the working directory: its folder is the cwd
        folder, path = outside.pop("cwd"), Path("checkpoint.pt")
    else:
        folder = tmp_path / "runs"
        folder.mkdir()
        path = folder / "checkpoint.pt"
    model, optimizer, scheduler = make_run(device, seed=seed_for(0))
    real_save = torch.save
    written_to = []

    def spy_save(obj, f, *args, **kwargs):
        # The file torch.save writes: a path, or the file a file object is open on.
        if isinstance(f, (str, os.PathLike)):
            written_to.append(os.path.realpath(f))
        else:
            try:
                opened = os.fstat(f.fileno())
            except (AttributeError, OSError, ValueError):
                opened = None  # an in-memory buffer (io.BytesIO), not a file
            files = [p for p in folder.iterdir() if opened and os.path.samestat(opened, p.stat())]
            written_to.append(os.path.realpath(files[0]) if files else repr(f))
        return real_save(obj, f, *args, **kwargs)

    stand_in_for_torch_save(monkeypatch, spy_save)
    with FileOperations() as operations:
        save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    operations.problems(path)
    assert written_to, "serialise the checkpoint with torch.save"
    assert all(where in operations.created for where in written_to), (
        f"torch.save wrote to {written_to[0]}, not to the temporary file the save created in "
        f"{folder}: give torch.save that file's path or a file object open on it (not a "
        "buffer in memory), and create it in the target's folder (os.replace is an atomic "
        "rename only within one file system): tempfile.mkstemp(dir=path.parent)"
    )
    assert sorted(p.name for p in folder.iterdir()) == [path.name], "only the checkpoint stays"
    assert_nothing_written_in(outside)


# ---------------------------------------------------------------- facets

FACETS = facets.declare(
    facets.none(save_checkpoint, "files and random states: the kata's own tests cover them"),
    facets.none(load_checkpoint, "files and random states: the kata's own tests cover them"),
)
test_facets = FACETS.test
