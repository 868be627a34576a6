"""Starting a kata run: devices and answers from the options, and the process-wide settings the
run changes (each put back when it ends)."""

from __future__ import annotations

import atexit
import gc
import getpass
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from torch_katas import catalog, devices
from torch_katas.plugin.run import KataRun
from torch_katas.runtime import answers, isolation
from torch_katas.runtime.answers import Imports

__all__ = [
    "skip_the_last_collection",
    "start",
]


def start(config: pytest.Config, katas: dict[str, catalog.Kata], time_limit: float) -> KataRun:
    """Choose devices and answers from the options, and install the answers' importer.

    Raises pytest.UsageError for options that name absent devices or files.
    """
    root = config.rootpath
    try:
        chosen = devices.from_config(config)
        files = answers.answer_files(
            root, config.getoption("solutions"), config.getoption("answer_file"), set(katas)
        )
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    if config.getoption("solutions"):
        source = "reference answers (solutions/)"
    elif files:
        source = "answer files: " + ", ".join(str(path) for path in files.values())
    else:
        source = "your answers (katas/)"
    devices.set_up(chosen)
    imports = Imports(root, files, time_limit=time_limit)
    run = KataRun(
        root=root, katas=katas, devices=chosen, answers=source, learner=not files, imports=imports
    )
    _ACTIVE.append(run)
    run.undo.append(_ACTIVE.pop)
    run.undo.append(answers.install(imports, set(katas)))
    run.undo.append(tune_process())
    run.undo.append(compile_cache(config))
    run.undo.append(one_value_approx())
    return run


def one_value_approx() -> Callable[[], object]:
    """pytest.approx of a number holds for an array or tensor when each of its elements is
    close, and so for an empty one always (`np.array([]) == pytest.approx(0.5)`): for the
    run, a number compared with approx must be one value (a float, a 0-d or one-element
    array or tensor). Returns what puts pytest's comparison back."""
    scalar = type(pytest.approx(0))
    as_array = getattr(sys.modules[scalar.__module__], "_as_numpy_array", None)
    equal = scalar.__eq__
    if as_array is None:  # a pytest that converts no arrays here
        return lambda: None

    def one_value_equal(self: Any, actual: object) -> bool:
        array = as_array(actual)
        return (array is None or array.size == 1) and equal(self, actual)

    scalar.__eq__ = one_value_equal  # type: ignore[method-assign]
    return lambda: setattr(scalar, "__eq__", equal)


def compile_cache(config: pytest.Config) -> Callable[[], object]:
    """torch.compile's caches (inductor's FX graphs and kernels) in a folder fixed for the
    run; returns what puts the environment back. Pytest's cache folder, so that compiling the
    same code again in a later run is a cache hit; without it (grading runs with no cache),
    the folder torch would choose, fixed now: torch chooses it on first use (exporting a
    model, building an optimizer), in the temp folder of that moment, so a test that points
    TMPDIR at a folder it watches would find it made there. An INDUCTOR cache folder of the
    learner's own choice is kept."""
    if "TORCHINDUCTOR_CACHE_DIR" in os.environ:
        return lambda: None
    cache = getattr(config, "cache", None)
    if cache is not None:
        folder = cache.mkdir("torch-katas-inductor")
    else:
        folder = Path(tempfile.gettempdir()) / f"torchinductor_{user_name()}"
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(folder)
    return lambda: os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)


def user_name() -> str:
    """The user's name as torch names its own cache folder after it."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):  # a uid with no name (a container's, a sandbox's)
        name = f"uid_{os.getuid()}" if hasattr(os, "getuid") else "unknown_user"
    return re.sub(r'[\\/:*?"<>|]', "_", name)


_EXIT_SKIPS_COLLECTIONS = False
_ACTIVE: list[KataRun] = []  # the runs of this process now going on, outermost first


def skip_the_last_collection(config: pytest.Config) -> None:
    """In a run that is its process's own (not one inside another), skip the full garbage
    collection pytest runs after the session to find exceptions raised in `__del__` of
    objects in reference cycles: it walks every object torch.compile and torch.export made,
    for a second or two, as the process ends. (Exceptions in `__del__` of objects freed the
    usual way are still reported as they happen.) Registered at the session's start, so it
    runs before pytest's own clean-up, which then finds every object frozen.
    """
    if len(_ACTIVE) == 1:
        config.add_cleanup(gc.freeze)


def tune_process() -> Callable[[], None]:
    """Settings that make kata runs faster; returns what puts them back.

    - One torch thread: kata tensors are small, extra threads only add start-up and
      contention, and xdist workers, each a process of its own, would oversubscribe the cores.
    - Rarer full garbage collections: each walks every object torch has made, millions once
      torch.compile and torch.export have been imported, and took a tenth of the run.
    - No DTensor branch in torch.testing.assert_close: its first call imports
      torch.distributed.tensor (and sympy) to handle DTensor inputs, about as long as
      `import torch` itself, and no kata compares DTensors.
    - The random generators' state, seeded before every test, is put back when the run ends.

    One change is not put back, as it acts only once the process exits: the interpreter's last
    garbage collections, which walk every object torch and the run made for a second or two,
    are skipped (objects are still freed; reference cycles are left to the operating system).
    Exit handlers registered later, such as torch's worker pools', run before it.
    """
    global _EXIT_SKIPS_COLLECTIONS
    if not _EXIT_SKIPS_COLLECTIONS:
        atexit.register(gc.freeze)
        _EXIT_SKIPS_COLLECTIONS = True
    from torch.testing import _comparison

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    threshold = gc.get_threshold()
    young, middle, full = threshold
    gc.set_threshold(young, middle, full * 10)
    has_dtensor = getattr(_comparison, "_HAS_DTENSOR", None)
    if has_dtensor is not None:
        _comparison._HAS_DTENSOR = False
    random_state = isolation.RandomState()

    def restore() -> None:
        torch.set_num_threads(threads)
        gc.set_threshold(*threshold)
        if has_dtensor is not None:
            _comparison._HAS_DTENSOR = has_dtensor
        random_state.restore()

    return restore
