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
from torch_katas.testing import assert_close, raises, same_device


class DiskFull(OSError):
    """What the stand-in for torch.save raises after writing part of the file."""


def failing_save(obj, f, *args, **kwargs):
    """Write a few bytes where torch.save would write, then fail like a full disk."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            file.write(b"PK\x03\x04 half a checkpoint")
    else:
        f.write(b"PK\x03\x04 half a checkpoint")
    raise DiskFull(28, "No space left on device")


def stand_in_for_torch_save(patch, stand_in):
    """Replace torch.save by `stand_in`, also where the learner's module holds it under a
    name of its own (`from torch import save`)."""
    real = torch.save
    patch.setattr(torch, "save", stand_in)
    patch.setattr(torch.serialization, "save", stand_in)
    module = sys.modules[save_checkpoint.__module__]
    for name, value in list(vars(module).items()):
        if value is real:
            patch.setattr(module, name, stand_in)


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


def scramble_global_state(seed=12345):
    """What a new process looks like: other seeds, other random states."""
    torch.manual_seed(seed)
    random.seed(seed)


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
    torch.manual_seed(0)
    random.seed(0)
    model, optimizer, scheduler = make_run(device, seed=0)
    # One epoch on each side of the save: by then Adam's moments, the lr and the random
    # states all differ from a fresh start, and each of them changes the epoch after.
    train_epoch(model, optimizer, scheduler, device)
    save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    train_epoch(model, optimizer, scheduler, device)
    uninterrupted, lr = snapshot(model), scheduler.get_last_lr()
    next_draw = torch.rand(4)

    scramble_global_state()
    model, optimizer, scheduler = make_run(device, seed=99)  # a fresh process, other init
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
    model, optimizer, scheduler = make_run(device, seed=0)
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler, epoch=0)
    expected = (torch.rand(3), torch.rand(3, device=device), random.random())
    scramble_global_state()
    load_checkpoint(tmp_path / "c.pt", *make_run(device, seed=1))
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


@pytest.mark.parametrize("as_str", [False, True], ids=["Path", "str"])
def test_load_restores_model_optimizer_scheduler_and_epoch(device, tmp_path, as_str):
    model, optimizer, scheduler = make_run(device, seed=0)
    train_epoch(model, optimizer, scheduler, device)
    path = tmp_path / "c.pt"
    save_checkpoint(str(path) if as_str else path, model, optimizer, scheduler, epoch=7)
    weights, lr = snapshot(model), scheduler.get_last_lr()
    moments = [optimizer.state[p]["exp_avg"].clone() for p in model.parameters()]

    model, optimizer, scheduler = make_run(device, seed=1)
    epoch = load_checkpoint(str(path) if as_str else path, model, optimizer, scheduler)
    assert epoch == 7, f"expected epoch 7, got {epoch!r}"
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


def test_the_file_loads_with_weights_only(device, tmp_path):
    model, optimizer, scheduler = make_run(device, seed=0)
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
    model, optimizer, scheduler = make_run(device, seed=0)
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
    model, optimizer, scheduler = make_run(device, seed=0)
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


def test_a_failed_save_keeps_the_previous_checkpoint(device, tmp_path, monkeypatch):
    outside = outside_folders(tmp_path, monkeypatch)
    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "checkpoint.pt"
    model, optimizer, scheduler = make_run(device, seed=0)
    save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    saved = snapshot(model)
    train_epoch(model, optimizer, scheduler, device)
    with monkeypatch.context() as patch:
        stand_in_for_torch_save(patch, failing_save)
        with raises(DiskFull):
            save_checkpoint(path, model, optimizer, scheduler, epoch=2)
    left = sorted(p.name for p in folder.iterdir())
    assert left == [path.name], (
        f"after a failed save the folder holds {left}; remove the temporary file on error"
    )
    fresh = make_run(device, seed=1)
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


def test_a_failed_first_save_leaves_nothing_behind(device, tmp_path, monkeypatch):
    model, optimizer, scheduler = make_run(device, seed=0)
    outside = outside_folders(tmp_path, monkeypatch)
    stand_in_for_torch_save(monkeypatch, failing_save)
    with raises(DiskFull):
        save_checkpoint("checkpoint.pt", model, optimizer, scheduler, epoch=1)  # in the cwd
    left = sorted(p.name for p in outside["cwd"].iterdir())
    assert left == [], f"a failed save should leave no file behind, found {left}"
    assert_nothing_written_in(outside)


def test_saving_again_replaces_the_checkpoint(device, tmp_path):
    path = tmp_path / "checkpoint.pt"
    model, optimizer, scheduler = make_run(device, seed=0)
    save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    train_epoch(model, optimizer, scheduler, device)
    save_checkpoint(path, model, optimizer, scheduler, epoch=2)
    weights = snapshot(model)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name], "only the checkpoint stays"
    fresh = make_run(device, seed=1)
    assert load_checkpoint(path, *fresh) == 2
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
    model, optimizer, scheduler = make_run(device, seed=0)
    real_save = torch.save
    written_to = []

    def spy_save(obj, f, *args, **kwargs):
        if isinstance(f, (str, os.PathLike)):
            written_to.append(Path(f).resolve().parent)
        else:  # a file object: the temporary file already exists where it was opened
            others = [p for p in folder.iterdir() if p.name != path.name]
            written_to.append(folder.resolve() if others else None)
        return real_save(obj, f, *args, **kwargs)

    stand_in_for_torch_save(monkeypatch, spy_save)
    save_checkpoint(path, model, optimizer, scheduler, epoch=1)
    assert written_to, "serialise the checkpoint with torch.save"
    assert all(where == folder.resolve() for where in written_to), (
        f"torch.save wrote to {written_to[0]}, not to a temporary file in {folder}: os.replace "
        "is an atomic rename only within one file system, so create the temporary file in "
        "the target's folder (tempfile.mkstemp(dir=path.parent))"
    )
    assert sorted(p.name for p in folder.iterdir()) == [path.name], "only the checkpoint stays"
    assert_nothing_written_in(outside)


# ---------------------------------------------------------------- facets

FACETS = facets.declare(
    facets.none(save_checkpoint, "files and random states: the kata's own tests cover them"),
    facets.none(load_checkpoint, "files and random states: the kata's own tests cover them"),
)
test_facets = FACETS.test
