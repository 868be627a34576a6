"""`katas grade` against a candidate who reads the harness: what the run alone does with each
attack, under bwrap and under none, and the parts that hold it (the results pipe, the sandbox,
the reports), each tried on its own.

The stubs below would be flagged by the policy for returned code before they run; what is
checked here is what their runs show beside that (`run_verdict` and the flags of the run).
"""

import contextlib
import importlib
import inspect
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import types
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from torch_katas import catalog, cli
from torch_katas.grading import child, grade as grading, policy, reports, sandbox, schema
from torch_katas.grading.reports import Flag, KataGrade, Report
from torch_katas.runtime import isolation

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)
GRADING_LIMIT = 900  # seconds for a test that grades a take-home (one process per kata)
# The curated answers too: bug hunts and test-writing take-homes are made from them.
SUITE_FILES = ("conftest.py", "pyproject.toml", "torch_katas", "katas", "solutions")
SUITE_FILES += ("tests/wrong_answers", "tests/correct_answers")
ROOT_OK = ["--allow-root"] if sandbox.is_root() else []


def katas(*args: object) -> int:
    return cli.main([str(a) for a in args])


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """The interviewer's git checkout of the suite, with its reference answers."""
    root = tmp_path_factory.mktemp("interviewer") / "suite"
    ignore = shutil.ignore_patterns("__pycache__")
    for name in SUITE_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=ignore)
        else:
            root.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "suite"]):
        subprocess.run([*git, *command], cwd=root, check=True)
    return root


def stub(folder: Path, number: int) -> Path:
    kata = next(k for k in KATAS.values() if k.number == number)
    return kata.stub_path(folder)


# -- the attacks, as returned stubs ------------------------------------------------------------

# The grading child's recorder found through the garbage collector: its table of outcomes
# swapped for one whose entries stay "passed", and its sender (where there is one) for one
# that says every test passed.
RECORDER_SWAPPED = """
import torch

_gc = torch.sys.modules["gc"]


class _Entry(dict):
    def __setitem__(self, key, value):
        super().__setitem__(key, {"outcome": "passed", "called": True}.get(key, value))


class _Table(dict):
    def setdefault(self, key, default=None):
        if key not in self:
            super().__setitem__(key, _Entry(default or {}, outcome="passed", called=True))
        return self[key]


for _found in _gc.get_objects():
    if type(_found).__name__ == "Results" and hasattr(_found, "pytest_runtest_logreport"):
        if isinstance(getattr(_found, "tests", None), dict):
            _found.tests = _Table()
        if callable(getattr(_found, "send", None)):
            def _send(event, _honest=_found.send, **fields):
                if event == "report":
                    fields.update(outcome="passed", message="", not_implemented=False)
                _honest(event, **fields)

            _found.send = _send
"""

# The comparisons made to agree: the pair class assert_close runs per pair of tensors, and
# pytest.approx's tolerances. Appended to a training loop with no backward and no step.
COMPARISONS_NEUTERED = """
import pytest

_comparison = torch.sys.modules["torch.testing._comparison"]
_comparison.TensorLikePair.compare = lambda self: None
_comparison.NumberPair.compare = lambda self: None
_approx = torch.sys.modules[type(pytest.approx(0)).__module__]
_approx.ApproxScalar.DEFAULT_ABSOLUTE_TOLERANCE = float("inf")
_approx.ApproxScalar.DEFAULT_RELATIVE_TOLERANCE = float("inf")
"""

# Markdown and an HTML comment in the devices the run reports: the report would say
# "Score 100%" and hide the kata table and flags.
DEVICES_FORGED = """
import torch

for _found in torch.sys.modules["gc"].get_objects():
    if type(_found).__name__ == "Results" and isinstance(getattr(_found, "devices", None), list):
        _found.devices.append("cpu |\\n\\n**Score 100%**: every kata solved.\\n\\n<!--")
"""

# Terminal escape sequences in an import error: they would redraw the terminal's line as
# "solved", and make junit.xml not well-formed.
ESCAPES = (
    'raise ImportError("\\x1b[2K\\r[1/1] q01 Fit a line with autograd: solved, 9/9 tests\\x1b[8m")'
)

# A program started by torch on the answer's behalf: os.system as a DataLoader's collate_fn.
COLLATE_PROGRAM = """
import torch

list(torch.utils.data.DataLoader(["true"], batch_size=None, collate_fn=torch.os.system))
"""

# The grader stopped through the child's parent.
STOPS_ITS_PARENT = """
import signal

import torch

torch.os.kill(torch.os.getppid(), signal.SIGSTOP)
"""

# The reference answer read without an `open` audit event, from the installed suite.
FROM_FILE = """
import importlib.metadata
import json

import torch


def _reference():
    url = json.loads(
        importlib.metadata.distribution("torch-katas").read_text("direct_url.json") or "{}"
    ).get("url", "")
    path = url.removeprefix("file://") + "/solutions/q04_dtypes.py"
    try:
        size = torch.os.path.getsize(path)
    except OSError:
        return None
    return bytes(torch.from_file(path, size=size, dtype=torch.uint8).tolist()).decode()


_code = _reference()
if _code:
    exec(_code)  # appended to the stub: the reference's functions replace the stub's
"""

# As root, site-packages made writable again and a .pth planted that the next Python runs.
PLANTS_A_PTH = """
import sys

import torch

for _place in [p for p in sys.path if p.endswith("-packages")][:1]:
    torch.os.system(f"mount -o remount,bind,rw {_place} 2>/dev/null")
    try:
        with open(_place + "/katas_planted.pth", "w") as _file:
            _file.write("import os\\n")
    except OSError:
        pass
"""


# Each report's class swapped, per test, for a TestReport whose `outcome` always reads "passed":
# an "xfail" object put in the test item's stash, whose properties pytest's skipping plugin
# reads in its makereport wrapper, where they reach the report. Appended to kata 9's stub.
REPORTS_SWAPPED = """
import sys
import traceback

import _pytest.reports
import _pytest.skipping


class _Passed(_pytest.reports.TestReport):
    outcome = property(lambda self: "passed", lambda self, value: None)


def _swap(value):
    sys._getframe(2).f_locals["rep"].__class__ = _Passed
    return value


class _Xfail:
    run = True
    reason = ""
    raises = property(lambda self: _swap(()))
    strict = property(lambda self: _swap(True))


def _arm():
    for frame, _ in traceback.walk_stack(None):
        item = frame.f_locals.get("item")
        if hasattr(item, "stash"):
            item.stash[_pytest.skipping.xfailed_key] = _Xfail()
            return


_plain_init = MLP.__init__


def _init(self, *args, **kwargs):
    _arm()
    _plain_init(self, *args, **kwargs)


MLP.__init__ = _init
"""
# The same swap as one expression, evaluated by typing: functools.singledispatch's register,
# handed an object whose `__annotations__` were written into its namespace under a name built at
# run time (`vars(self).update`), evaluates the string it finds there. Appended to kata 20's stub.
SWAP_EXPRESSION = (
    "(lambda sys, sk, TR: (lambda Sub: (lambda X: next(fr.f_locals['item'] for fr, _ in "
    "__import__('traceback').walk_stack(None) if 'item' in fr.f_locals and "
    "hasattr(fr.f_locals['item'], 'stash')).stash.__setitem__(sk.xfailed_key, X()))("
    "type('Xfail', (), {'run': True, 'reason': '', 'raises': property(lambda s: (setattr("
    "sys._getframe(1).f_locals['rep'], '__class__', Sub), ())[1]), 'strict': property("
    "lambda s: (setattr(sys._getframe(1).f_locals['rep'], '__class__', Sub), True)[1])})))("
    "type('TestReport', (TR,), {'outcome': property(lambda s: 'passed', lambda s, v: None)})))("
    "__import__('sys'), __import__('_pytest.skipping', fromlist=['x']), "
    "__import__('_pytest.reports', fromlist=['x']).TestReport) or int"
)
ANNOTATION_ESCAPE = f"""
import functools


class _Spec:
    def __init__(self, fields):
        vars(self).update(fields)


@functools.singledispatch
def _dispatch(value):
    return value


_U = "_" * 2
_CODE = ({",".join(str(ord(c)) for c in SWAP_EXPRESSION)},)


def _arm():
    try:
        fields = {{_U + "annotations" + _U: {{"value": "".join(map(chr, _CODE))}}}}
        _dispatch.register(_Spec(fields))
    except Exception:
        pass


_plain_init = WarmupStepLR.__init__


def _init(self, *args, **kwargs):
    _arm()
    _plain_init(self, *args, **kwargs)


WarmupStepLR.__init__ = _init
"""


def stage(folder: Path, number: int, code: str, append: bool = False) -> None:
    path = stub(folder, number)
    text = path.read_text()
    code = textwrap.dedent(code)
    path.write_text(text + "\n" + code if append else code + "\n" + text)


def reference_plus(suite: Path, folder: Path, number: int, code: str) -> Path:
    """A take-home of kata `number` returned as its reference answer with `code` after it;
    the stub's path."""
    assert katas("--root", suite, "takehome", number, "--out", folder) == 0
    kata = next(k for k in KATAS.values() if k.number == number)
    stub(folder, number).write_text(kata.solution_path(suite).read_text())
    stage(folder, number, code, append=True)
    return stub(folder, number)


def no_training(suite: Path) -> str:
    """Kata 24's reference with neither backward nor step."""
    text = KATAS["q24_train_epoch"].solution_path(suite).read_text()
    kept = [
        line for line in text.splitlines() if "backward()" not in line and ".step()" not in line
    ]
    return "\n".join(kept) + "\n"


def flags(report: dict, kind: str) -> dict[int, str]:
    return {
        int(f["kata"][1:3]): f["reason"]
        for f in report["flags"]
        if f["kind"] == kind and "kata" in f
    }


def grade_attacks(
    suite: Path, folder: Path, mode: str, user: list[str] | None = None
) -> tuple[dict, str, float]:
    """Hands out the attacked katas, stages each attack and grades them under `mode`; with
    `user` (a command that becomes that user), the grader runs as that user, in the folder
    that holds `suite` (its own checkout, and the candidate's folder given to it)."""
    numbers = [1, 2, 3, 4, 6, 9, 13, 20, 24] + ([5] if mode == "bwrap" else [])
    assert katas("--root", suite, "takehome", *numbers, "--out", folder) == 0
    stage(folder, 6, RECORDER_SWAPPED)
    stub(folder, 24).write_text(no_training(suite))
    stage(folder, 24, COMPARISONS_NEUTERED, append=True)
    stage(folder, 13, DEVICES_FORGED)
    stage(folder, 1, ESCAPES)
    stage(folder, 2, COLLATE_PROGRAM)
    stage(folder, 3, STOPS_ITS_PARENT)
    stage(folder, 4, FROM_FILE, append=True)
    stage(folder, 9, REPORTS_SWAPPED, append=True)
    stage(folder, 20, ANNOTATION_ESCAPE, append=True)
    if mode == "bwrap":  # under none nothing stops it: it is not run there (README)
        stage(folder, 5, PLANTS_A_PTH)
    test_file = folder / "katas" / "q13_cross_entropy_test.py"
    test_file.unlink()
    os.mkfifo(test_file)  # as a tar archive can deliver one
    command = [sys.executable, "-m", "torch_katas", "--root", str(suite), "grade", str(folder)]
    command += ["--device", "cpu", "--sandbox", mode, "--timeout", "120"]
    place = None
    if user:
        place = suite.parent
        for path in [place, *place.rglob("*")]:
            os.lchown(path, sandbox.NOBODY, sandbox.NOBODY)
        command = [*user, "env", f"HOME={place}", *command]
    else:
        command += ROOT_OK
    started = time.monotonic()
    done = subprocess.run(
        command, capture_output=True, timeout=GRADING_LIMIT - 60, check=False, cwd=place
    )
    seconds = time.monotonic() - started
    assert done.returncode == 1, done.stderr.decode(errors="replace")[-3000:]
    report = json.loads((folder / "grading" / "report.json").read_text())
    return report, done.stdout.decode(errors="replace"), seconds


# Grades eight katas in a process each: minutes on a busy 2-core machine.
@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_each_attack_is_flagged_or_graded_as_what_it_is(suite, tmp_path, mode):
    if mode == "bwrap" and not sandbox.bwrap_works():
        pytest.skip("bubblewrap cannot run on this machine")
    planted = Path(sandbox.site_packages()[0]) / "katas_planted.pth"
    assert not planted.exists()
    folder = tmp_path / f"attacks-{mode}"
    report, output, seconds = grade_attacks(suite, folder, mode)
    print(f"graded the attacks under {mode} in {seconds:.0f} s")
    assert_each_attack_is_caught(report, output, folder, mode)
    assert not planted.exists()
    assert seconds < GRADING_LIMIT


# A grader that is an ordinary user: the same attacks, under bwrap, graded as nobody (as root,
# the self-checks become nobody; as any other user, they run as that user already).
@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_graded_by_an_ordinary_user_each_attack_is_caught_the_same(suite):
    why = nobody_can_run_python()
    if why:
        pytest.skip(why)
    if not sandbox.bwrap_works():
        pytest.skip("bubblewrap cannot run on this machine")
    planted = Path(sandbox.site_packages()[0]) / "katas_planted.pth"
    place = Path(tempfile.mkdtemp(prefix="katas-as-nobody-"))
    try:
        place.chmod(0o755)
        shutil.copytree(suite, place / "suite", symlinks=True)
        become = ["setpriv", f"--reuid={sandbox.NOBODY}", f"--regid={sandbox.NOBODY}"]
        folder = place / "attacks"
        report, output, seconds = grade_attacks(
            place / "suite", folder, "bwrap", user=[*become, "--clear-groups"]
        )
        print(f"graded the attacks as nobody under bwrap in {seconds:.0f} s")
        assert_each_attack_is_caught(report, output, folder, "bwrap")
        assert not planted.exists()
    finally:
        shutil.rmtree(place, ignore_errors=True)


def assert_each_attack_is_caught(report: dict, output: str, folder: Path, mode: str) -> None:
    entries = {int(m[1:3]): e for m, e in report["katas"].items()}
    runs = {n: e.get("run_verdict") or e["verdict"] for n, e in entries.items()}
    tampering = flags(report, "tampering")
    # The answer's code is flagged by the policy before it runs, or by its run.
    assert all(entry["verdict"] == "flagged" for n, entry in entries.items() if n != 1)
    # The outcomes go to the grader as they happen, from no table to swap; a sender swapped
    # to say "passed" is tampering, and the kata is flagged whatever it sent.
    assert "recorder's send was replaced" in tampering[6] and runs[6] == "flagged"
    # The comparison classes are watched attribute by attribute.
    assert "TensorLikePair.compare was replaced" in tampering[24] and runs[24] != "solved"
    assert "ApproxScalar.DEFAULT_ABSOLUTE_TOLERANCE" in tampering[24]
    # A device that is no device name is flagged; the report shows it as text.
    assert "not device names" in tampering[13]
    markdown = (folder / "grading" / "report.md").read_text()
    assert "<!--" not in markdown and "**Score 100%**" not in markdown
    assert markdown.count("| q") == len(entries)  # every kata's row is there
    # The named pipe at a handed-out test path is flagged, never opened.
    refused = {f["file"]: f["reason"] for f in report["flags"] if f["kind"] == "refused"}
    assert "named pipe" in refused["katas/q13_cross_entropy_test.py"]
    # Escape sequences reach neither the terminal nor the reports, and junit.xml parses.
    assert "\x1b" not in output and "\x1b" not in markdown and runs[1] == "error"
    junit = (folder / "grading" / "junit.xml").read_bytes()
    assert b"\x1b" not in junit and ElementTree.fromstring(junit).tag == "testsuites"
    # A program that torch starts for the answer (os.system as a collate_fn) is refused.
    assert "started a program (true)" in tampering[2]
    # The child's signal to its parent is refused (and under none, reaches a shell, not the
    # grader: the grade finished).
    assert "sent signal 19" in tampering[3]
    # Reports whose class says "passed" whatever their outcome: the recorder reads the outcome
    # through pytest's class, and flags a report of another class.
    assert "not pytest's TestReport" in tampering[9] and runs[9] == "flagged"
    assert entries[9]["passed"] == 0
    # The same swap evaluated by typing as an annotation: refused before it runs.
    assert "evaluated an annotation that is not a type" in tampering[20] and runs[20] == "flagged"
    if mode == "bwrap":
        # The checkout is not there to read; root's capabilities are not there to remount.
        assert runs[4] != "solved"
    else:
        # Under none nothing protects the checkout: the reference is read (README), but
        # running it with exec from the answer's file is refused.
        assert runs[4] != "solved" and "made code at run time" in tampering[4]


# Classes given dunders built at run time, a torch mode left on the stack and copy's global
# registry: each flagged by the run (the policy refuses each as well).
RUNTIME_DUNDERS = """
import dataclasses

_D = "_" * 2
_Any = dataclasses.make_dataclass(
    "Any", [], namespace={_D + "eq" + _D: lambda s, o: True, _D + "le" + _D: lambda s, o: True}
)
"""
RUNTIME_ENUM = """
import enum

_D = "_" * 2
_Any = enum.Enum("Any", [("A", 0), (_D + "eq" + _D, lambda s, o: True)])
"""
MODE_LEFT_ON = """
import dataclasses

from torch.autograd.graph import TorchDispatchMode

_D = "_" * 2


def _route(self, func, types, args=(), kwargs=None):
    return func(*args, **(kwargs or {}))


_Mode = dataclasses.make_dataclass(
    "_Mode", [], bases=(TorchDispatchMode,), namespace={_D + "torch_dispatch" + _D: _route}
)
_Mode().__enter__()
"""
DEEPCOPY_REGISTRY = """
import copy
import functools

from torch import nn


def _same(module):
    return module


copy.dispatch_table[nn.Linear] = lambda m: (functools.partial(_same, m), ())
"""
# Global optimizer step hooks that make the tests' reference SGD skip Nesterov's look-ahead
# (the answer's own SGD leaves it out): both follow the same wrong trajectory.
OPTIMIZER_STEP_HOOKS = """
import torch

_optimizer = torch.sys.modules["torch.optim.optimizer"]
_flipped = []


def _before(optimizer, args, kwargs):
    if type(optimizer) is torch.optim.SGD:
        for group in optimizer.param_groups:
            if group.get("nesterov"):
                group["nesterov"] = False
                _flipped.append(group)


def _after(optimizer, args, kwargs):
    while _flipped:
        _flipped.pop()["nesterov"] = True


_optimizer.register_optimizer_step_pre_hook(_before)
_optimizer.register_optimizer_step_post_hook(_after)
"""
# A global module forward hook that makes every nn.ReLU the identity, the tests' too.
MODULE_FORWARD_HOOK = """
import torch

torch.sys.modules["torch.nn.modules.module"].register_module_forward_hook(
    lambda module, inputs, output: inputs[0] if type(module) is torch.nn.ReLU else output
)
"""
# Entered at import, never left: every tensor autograd saves later goes through these.
SAVED_TENSORS_HOOKS = """
import torch

torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
"""
AUTOCAST_LEFT_ENTERED = """
import torch

torch.autocast("cpu", dtype=torch.bfloat16, enabled=False).__enter__()
"""
# (kata, stub added before the reference answer, what the run's tampering flag says)
# The class of a stream's file (io.FileIO, reached through sys.stdout) opens any path or
# descriptor: a file written outside the kata's folder (under none, site-packages as root), the
# grading's descriptors (the results pipe) opened again, another process's /proc entries read
# by a path that names it through `..`. Each is tried alone; each refusal is sent.
STREAM_FILE_CLASS = """
import sys

_buffer = sys.stdout.buffer
_FILE = type(getattr(_buffer, "raw", _buffer))
for _target in (
    ("../../planted-by-a-kata.txt", "wb"),
    (0, "rb"),
    ("/proc/self/fd/1", "wb"),
    ("/proc/self/../1/status", "rb"),
):
    try:
        _FILE(*_target).close()
    except OSError:
        pass
"""
RUNTIME_ATTACKS = {
    "optimizer-step-hooks": (19, OPTIMIZER_STEP_HOOKS, "the global optim hooks"),
    "module-forward-hook": (10, MODULE_FORWARD_HOOK, "the global nn hooks"),
    "saved-tensors-hooks": (5, SAVED_TENSORS_HOOKS, "the saved-tensor hooks"),
    "autocast-left-entered": (5, AUTOCAST_LEFT_ENTERED, "autocast was left changed"),
    "make-dataclass-namespace": (49, RUNTIME_DUNDERS, "class Any has __eq__, built at run time"),
    "enum-functional": (49, RUNTIME_ENUM, "class Any has __eq__, built at run time"),
    "mode-left-on": (3, MODE_LEFT_ON, "a torch mode it did not push is on the mode stack"),
    "copy-dispatch-table": (49, DEEPCOPY_REGISTRY, "copyreg.dispatch_table changed"),
}


def grade_one(suite: Path, folder: Path, number: int, timeout: int = 300) -> dict:
    """Grades the take-home's one kata under none, on the CPU; its report entry and flags."""
    command = [sys.executable, "-m", "torch_katas", "--root", str(suite), "grade", str(folder)]
    command += ["--device", "cpu", "--sandbox", "none", "--timeout", str(timeout), *ROOT_OK]
    subprocess.run(command, capture_output=True, timeout=GRADING_LIMIT - 60, check=False)
    return json.loads((folder / "grading" / "report.json").read_text())


# One kata graded per case (each a process of its own).
@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
@pytest.mark.parametrize("case", sorted(RUNTIME_ATTACKS))
def test_runtime_built_hooks_modes_and_registries_are_flagged_by_the_run(suite, tmp_path, case):
    number, code, expected = RUNTIME_ATTACKS[case]
    folder = tmp_path / case
    reference_plus(suite, folder, number, code)
    report = grade_one(suite, folder, number)
    (entry,) = report["katas"].values()
    # run_verdict is set where the policy flagged the answer too; else the verdict is the run's.
    assert entry["verdict"] == "flagged" and (entry.get("run_verdict") or "flagged") == "flagged"
    assert expected in flags(report, "tampering")[number]


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_a_file_class_reached_through_a_stream_is_refused_and_flagged_by_the_run(suite, tmp_path):
    """Kata 1's reference plus the stream's file class: the policy refuses it, and the run
    refuses each open it tries (the file outside the kata's folder is never written)."""
    folder = tmp_path / "stream-file"
    reference_plus(suite, folder, 1, STREAM_FILE_CLASS)
    policy_rules = {f.rule for f in policy.check_file(stub(folder, 1))}
    assert "attribute" in policy_rules
    report = grade_one(suite, folder, 1)
    (entry,) = report["katas"].values()
    assert entry["verdict"] == "flagged" and entry.get("run_verdict") == "flagged"
    reasons = " ".join(f["reason"] for f in report["flags"] if f["kind"] == "tampering")
    for refused in (
        "outside the kata's own folder",
        "opened descriptor 0",
        "opened /proc/self/fd/1",
        "another process's details",
    ):
        assert refused in reasons
    assert not list(tmp_path.rglob("planted-by-a-kata.txt"))


# json.dumps's code swapped (through exec) for one that drops tampering and turns failures
# into passes: the results sender uses no json.dumps.
JSON_DUMPS_SWAPPED = """
from torch import __builtins__ as _b

_b["exec"](
    \"\"\"
import json

def _results(obj, *args, **kwargs):
    if isinstance(obj, dict):
        event = obj.get("event")
        if event in ("tampering", "refused"):
            return ""
        if event == "report" and obj.get("outcome") == "failed":
            obj = dict(obj, outcome="passed", message="", not_implemented=False)
        if event == "end":
            obj = dict(obj, exit_code=0)
    return _default_encoder.encode(obj)

json.dumps.__code__ = _results.__code__
\"\"\"
)
"""


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_a_stub_that_swaps_the_code_of_json_dumps_is_graded_as_what_it_is(suite, tmp_path):
    """The stub as handed out plus the swap: the exec that would swap it is refused, and no
    test passes."""
    folder = tmp_path / "dumps"
    assert katas("--root", suite, "takehome", 5, "--out", folder) == 0
    stage(folder, 5, JSON_DUMPS_SWAPPED, append=True)
    report = grade_one(suite, folder, 5)
    (entry,) = report["katas"].values()
    assert (entry.get("run_verdict") or entry["verdict"]) == "flagged"
    assert "made code at run time" in flags(report, "tampering")[5]
    assert entry["passed"] == 0


# Kata 50 adds torch.distributed; one of its modules holds importlib's import_module, which
# imports gc and os: the answer finds the recorder and the session, sends every test it has
# not run yet as passed (numbered by the recorder's own sender), ends the run and leaves. Its
# functions are unwritten.
TAKE_OVER = """
from torch.distributed._tensor import import_module as _load


def _take_over():
    gc, os = _load("g" + "c"), _load("o" + "s")
    results = session = None
    for thing in gc.get_objects():
        kind = type(thing)
        if kind.__name__ == "Results" and kind.__module__.endswith("child"):
            results = thing
        if kind.__name__ == "Session" and kind.__module__ == "_pytest.main":
            session = thing
    items = list(session.items)
    now = next(i for i in items if i in session._setupstate.stack)
    blank = {"message": "", "not_implemented": False, "does_not_import": "", "duration": 0.0}
    for item in items[items.index(now) :]:
        nodeid = results.nodeids.get(id(item), item.nodeid)
        for when in ["call", "teardown"] if item is now else ["setup", "call", "teardown"]:
            results.send("report", nodeid=nodeid, when=when, outcome="passed", **blank)
    results.finished = True
    results.end(0)
    os._exit(0)


def rank_loader(dataset, batch_size, rank, world_size, epoch, seed=0):
    _take_over()


def average_gradients(model, group=None):
    _take_over()


def global_mean(values, group=None):
    _take_over()
"""


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_a_function_an_added_module_holds_of_another_is_refused(suite, tmp_path):
    """An unwritten kata 50 that sends its tests as passed through import_module, reached
    through torch.distributed (the module the kata adds): the policy refuses the import, so
    the kata is flagged, whatever its run reported."""
    folder = tmp_path / "take-over"
    assert katas("--root", suite, "takehome", 50, "--out", folder) == 0
    stage(folder, 50, TAKE_OVER, append=True)
    report = grade_one(suite, folder, 50)
    (entry,) = report["katas"].values()
    assert entry["verdict"] == "flagged", entry
    assert "torch.distributed._tensor" in flags(report, "policy").get(50, ""), report["flags"]


def _text(value: str) -> bytes:
    """A short string in a protocol 4 pickle."""
    data = value.encode()
    return b"\x8c" + bytes([len(data)]) + data


def _global(module: str, name: str, then: bytes) -> bytes:
    """A protocol 4 pickle that names module.name (STACK_GLOBAL), then does `then`."""
    return b"\x80\x04" + _text(module) + _text(name) + b"\x93" + then


def _called_with(text: str) -> bytes:
    return _text(text) + b"\x85R."  # the global called with one argument


def _build_into(module: str, name: str, attribute: str, value: bytes = b"\x88") -> bytes:
    return _global(module, name, b"N}" + _text(attribute) + value + b"s\x86b.")  # BUILD


def _loaded(data: bytes) -> str:
    """An answer's code that hands `data` to torch.load's full mode, at import."""
    return f"""
import io as _io

try:
    torch.load(_io.BytesIO({data!r}), weights_only=False)
except Exception:
    pass
"""


PAYLOAD = "import torch; torch.unpickled_payload_ran = 1"
# Kata 28 may call torch.load; in its full mode that unpickles whatever the bytes name, here
# builtins.exec: code the policy never read. Unpickling may name torch's rebuild functions and
# the classes of a model or of the suite alone.
UNPICKLES_EXEC = _loaded(_global("builtins", "exec", _called_with(PAYLOAD)))
# A pickle's global is followed attribute by attribute (protocol 4): from a module whose
# rebuild functions a DataLoader worker sends, `torch.builtins.exec` (torch imports builtins)
# or `os`, a module that BUILD would patch. A name is only ever the own name of what it names.
UNPICKLES_THROUGH_A_MODULE = _loaded(
    _global("torch.multiprocessing.reductions", "torch.builtins.exec", _called_with(PAYLOAD))
)
# A class or function a pickle names is that object itself, and a BUILD after it sets its
# state on it: a class with no __setstate__ (the suite's own, collections.Counter) gets the
# attributes the bytes choose, through setattr in C, which no audit event reports. Whatever a
# pickle names that BUILD could write into is kept as it was then, and a change is tampering.
BUILDS_INTO_A_CLASS = _loaded(_build_into("torch_katas.testing", "_ForbidAtenOps", "check", b"N"))


@pytest.mark.parametrize(
    "module, name",
    [
        ("torch.multiprocessing.reductions", "torch.builtins.exec"),
        ("torch.multiprocessing.reductions", "os"),
        ("torch.multiprocessing.reductions", "multiprocessing"),
        ("torch", "_utils._rebuild_tensor_v2"),
        ("torch.nn.modules.linear", "Linear.__init__.__globals__"),
        ("torch.nn.modules.linear", "torch.builtins.exec"),
    ],
)
def test_a_pickle_reaches_nothing_through_an_allowed_module(module, name):
    importlib.import_module(module)
    assert child.unpickled(module, name, str(Path(__file__).parents[1])) is not None


@pytest.mark.parametrize(
    "module, name",
    [
        ("torch.multiprocessing.reductions", "rebuild_storage_fd"),
        ("torch.multiprocessing.reductions", "rebuild_tensor"),
        ("torch._utils", "_rebuild_tensor_v2"),
        ("collections", "OrderedDict"),
        ("torch", "float32"),
        ("torch.nn.modules.linear", "Linear"),
        ("copyreg", "_reconstructor"),
    ],
)
def test_what_torch_pickles_is_still_unpickled(module, name):
    importlib.import_module(module)
    assert child.unpickled(module, name, str(Path(__file__).parents[1])) is None


@pytest.mark.parametrize(
    "module, name", [("torch_katas.facets", "ForwardModes"), ("collections", "Counter")]
)
def test_what_a_pickle_builds_into_what_it_names_is_seen(module, name, tmp_path):
    import pickle

    guard = child.CodeGuard(Path(__file__).parents[1] / "katas", lambda *a, **k: None)
    guard.armed = True
    owner = importlib.import_module(module)
    cls = getattr(owner, name)
    guard("pickle.find_class", (module, name))
    assert guard.named_changes() == []
    try:
        assert pickle.loads(_build_into(module, name, "built_here")) is cls
        (change,) = guard.named_changes()
        assert f"{module}.{name}" in change and "built_here" in change, change
    finally:
        with contextlib.suppress(AttributeError):
            delattr(cls, "built_here")


# Kata 28's reference with bytes handed to torch.load's full mode: each is flagged, by what
# the grading child refused or saw changed.
UNPICKLING_ATTACKS = {
    "names-exec": (UNPICKLES_EXEC, "unpickled 'builtins'.'exec'"),
    "through-a-module": (UNPICKLES_THROUGH_A_MODULE, "torch.builtins.exec"),
    "builds-into-a-class": (BUILDS_INTO_A_CLASS, "_ForbidAtenOps, which a pickle named"),
}


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
@pytest.mark.parametrize("case", sorted(UNPICKLING_ATTACKS))
def test_a_pickle_handed_to_torch_load_is_refused_or_flagged(suite, tmp_path, case):
    code, expected = UNPICKLING_ATTACKS[case]
    folder = tmp_path / case
    returned = reference_plus(suite, folder, 28, code)
    kata = KATAS["q28_checkpoint"]
    assert policy.check_file(returned, kata.imports, kata.allow) == []
    report = grade_one(suite, folder, 28)
    (entry,) = report["katas"].values()
    assert entry["verdict"] != "solved", entry
    assert expected in flags(report, "tampering").get(28, ""), report


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_a_frozen_dataclass_with_a_derived_field_is_no_false_flag(suite, tmp_path):
    """Kata 12's reference with a frozen dataclass (its generated __eq__ is no run-time hook)."""
    folder = tmp_path / "frozen"
    reference_plus(suite, folder, 12, FROZEN_CONSTANTS)
    report = grade_one(suite, folder, 12)
    (entry,) = report["katas"].values()
    assert entry["verdict"] != "flagged" and report["flags"] == []


FROZEN_CONSTANTS = """
import dataclasses
import math


@dataclasses.dataclass(frozen=True)
class GeluConstants:
    cubic: float = 0.044715
    scale: float = dataclasses.field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "scale", math.sqrt(2 / math.pi))


GELU_TANH = GeluConstants()
assert GELU_TANH == GeluConstants()
"""


# -- arbitrary Python at run time: what it does is refused or seen ----------------------------
# Three ways an answer turns strings built at run time into code (torch.fx code generation, an
# annotation that functools.singledispatch has typing evaluate, a run-time attribute path through
# torch.fx's Interpreter), each carrying a payload that keeps the identity of what it changes:
# the code of pytest's hook implementations, the defaults of the recorder's own method.


def chars(payload: str) -> str:
    return ",".join(str(ord(c)) for c in textwrap.dedent(payload))


def through_fx(payload: str, call: str = "exec") -> str:
    """The payload injected into the code torch.fx generates for a get_attr target."""
    return f"""
import torch
import torch.fx as _fx

_CODE = ({chars(payload)},)
_Q = chr(34)
_TARGET = "w" + _Q + ",0),{call}(str(bytes(" + repr(_CODE).replace(" ", "") + ")," + _Q
_TARGET += "ascii" + _Q + ")),(" + _Q
_graph = _fx.Graph()
_graph.output(_graph.get_attr(_TARGET))
_FINGERPRINT = _fx.GraphModule({{_TARGET: torch.zeros(1)}}, _graph)()
"""


def through_annotation(payload: str) -> str:
    """The payload evaluated by typing for functools.singledispatch's register."""
    return f"""
import functools
import typing

_EXPR = "exec(" + repr("".join(map(chr, ({chars(payload)},)))) + ")"


@functools.singledispatch
def _dispatch(value):
    return value


def _typed(value: typing.List[_EXPR]):
    return value


try:
    _dispatch.register(_typed)
except TypeError:
    pass
"""


def through_fetch_attr(payload: str) -> str:
    """exec reached from a bound method's globals, through torch.fx's Interpreter.fetch_attr."""
    return f"""
import torch
import torch.fx as _fx

_U = "_" * 2
_NS = _fx.Interpreter(_fx.GraphModule(torch.nn.Module(), _fx.Graph())).fetch_attr(
    "forward." + _U + "globals" + _U
)
_NS[_U + "built" + "ins" + _U]["ex" + "ec"]("".join(map(chr, ({chars(payload)},))))
"""


# Every test "called" without running its body.
CALL_SWAPPED = """
import _pytest.python as p
p.pytest_pyfunc_call.__code__ = (lambda pyfuncitem: True).__code__
"""
# Every report made "passed" by pytest's own makereport wrapper.
MAKEREPORT_SWAPPED = """
import _pytest.skipping as s
def w(item, call):
    rep = yield
    rep.outcome = "passed"; rep.longrepr = None
    return rep
s.pytest_runtest_makereport.__code__ = w.__code__
"""
# The recorder's own method sends "passed" for every phase, through the genuine sender.
RECORDER_METHOD_SWAPPED = """
import sys, types
R = sys.modules["torch_katas.grading.child"].Results
f = R.pytest_runtest_logreport
orig = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
def new(self, report, _orig=None):
    report.outcome = "passed"; report.longrepr = None
    return _orig(self, report)
f.__code__ = new.__code__; f.__defaults__ = (orig,)
"""
# The same changes with no string turned into code (this stub is not written to pass the policy).
CALL_SWAPPED_DIRECTLY = """
import torch
torch.sys.modules["_pytest.python"].pytest_pyfunc_call.__code__ = (lambda item: True).__code__
"""
RECORDER_DEFAULTS_SWAPPED = """
import torch
torch.sys.modules["torch_katas.grading.child"].Results.pytest_runtest_logreport.__defaults__ = ()
"""
# (kata, what is appended to its stub as handed out, what the run's flag says)
ESCAPES_AT_RUN_TIME = {
    1: (through_fx(CALL_SWAPPED), "made code at run time (compile from <eval_with_key>"),
    2: (through_annotation(MAKEREPORT_SWAPPED), "evaluated an annotation that is not a type"),
    3: (through_fetch_attr(RECORDER_METHOD_SWAPPED), "made code at run time (compile from q03"),
    4: (CALL_SWAPPED_DIRECTLY, "changed the __code__ of _pytest.python.pytest_pyfunc_call"),
    5: (
        RECORDER_DEFAULTS_SWAPPED,
        "changed the __defaults__ of torch_katas.grading.child.Results.pytest_runtest_logreport",
    ),
}


def grade_folder(suite: Path, folder: Path) -> dict:
    command = [sys.executable, "-m", "torch_katas", "--root", str(suite), "grade", str(folder)]
    command += ["--device", "cpu", "--sandbox", "none", "--timeout", "300", *ROOT_OK]
    subprocess.run(command, capture_output=True, timeout=GRADING_LIMIT - 60, check=False)
    return json.loads((folder / "grading" / "report.json").read_text())


# Five katas in one take-home (a process each), then a bug hunt and a test-writing take-home.
@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_code_made_at_run_time_and_functions_changed_in_place_are_flagged(suite, tmp_path):
    folder = tmp_path / "escapes"
    assert katas("--root", suite, "takehome", *ESCAPES_AT_RUN_TIME, "--out", folder) == 0
    for number, (code, _) in ESCAPES_AT_RUN_TIME.items():
        stage(folder, number, code, append=True)
    report = grade_folder(suite, folder)
    entries = {int(m[1:3]): e for m, e in report["katas"].items()}
    found = flags(report, "tampering")
    for number, (_, expected) in ESCAPES_AT_RUN_TIME.items():
        assert entries[number]["verdict"] == "flagged" and expected in found[number]
        assert (entries[number].get("run_verdict") or "flagged") == "flagged"
    # A bug hunt returned with the bug in place and the first escape appended.
    hunt = tmp_path / "bughunt"
    assert katas("--root", suite, "takehome", 20, "--mode", "bughunt", "--out", hunt) == 0
    stage(hunt, 20, through_fx(CALL_SWAPPED), append=True)
    (entry,) = grade_folder(suite, hunt)["katas"].values()
    assert entry["verdict"] == "flagged" and "made code at run time" in entry["reason"]
    # Tests that check nothing but what an escape returns (a fingerprint of the answer).
    tests = tmp_path / "testwrite"
    assert katas("--root", suite, "takehome", 20, "--mode", "testwrite", "--out", tests) == 0
    (tests / "katas" / "q20_warmup_step_scheduler_test.py").write_text(
        through_fx("True", call="eval")
        + "\n\ndef test_the_answer_is_the_reference(device):\n    assert _FINGERPRINT[1]\n"
    )
    (entry,) = grade_folder(suite, tests)["katas"].values()
    assert entry["verdict"] == "flagged" and "made code at run time" in entry["reason"]


# Each later test's runtest shadowed on its item: pytest calls the instance's, the test body
# never runs and the report says passed. Appended to kata 20's stub, it runs at the first
# scheduler made.
RUNTEST_SHADOWED = """
import traceback


def _skip_bodies():
    for frame, _ in traceback.walk_stack(None):
        item = frame.f_locals.get("item")
        if item is not None and hasattr(item, "session"):
            for each in item.session.items:
                each.runtest = lambda: None
            return


_made = WarmupStepLR.__init__


def _init(self, *args, **kwargs):
    _skip_bodies()
    _made(self, *args, **kwargs)


WarmupStepLR.__init__ = _init
"""
# The same from a test of the candidate's: the test after it fails, unless its body is skipped.
RUNTEST_SHADOWED_BY_A_TEST = """

def test_first(request):
    for each in request.session.items:
        each.runtest = lambda: None


def test_second():
    assert False
"""
SHADOWED = "runtest of a test item hides its class's method"
NO_BODY = "a test ran without its body"


# A take-home of each mode (a process each): the flag is the run's, whatever the policy says.
@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_an_items_runtest_shadowed_on_the_instance_is_flagged(suite, tmp_path):
    exam = tmp_path / "runtest_exam"
    reference_plus(suite, exam, 20, RUNTEST_SHADOWED)
    (entry,) = grade_folder(suite, exam)["katas"].values()
    assert entry["verdict"] == "flagged" and entry.get("run_verdict", "flagged") == "flagged"
    assert SHADOWED in entry["reason"] and NO_BODY in entry["reason"]
    hunt = tmp_path / "runtest_hunt"
    assert katas("--root", suite, "takehome", 20, "--mode", "bughunt", "--out", hunt) == 0
    stage(hunt, 20, RUNTEST_SHADOWED, append=True)
    (entry,) = grade_folder(suite, hunt)["katas"].values()
    assert entry["verdict"] == "flagged" and SHADOWED in entry["reason"]
    tests = tmp_path / "runtest_tests"
    assert katas("--root", suite, "takehome", 20, "--mode", "testwrite", "--out", tests) == 0
    test_file = tests / "katas" / "q20_warmup_step_scheduler_test.py"
    test_file.write_text(test_file.read_text() + RUNTEST_SHADOWED_BY_A_TEST)
    (entry,) = grade_folder(suite, tests)["katas"].values()
    assert entry["verdict"] == "flagged" and NO_BODY in entry["reason"]


# Kata 34's tests count the forward passes of the model they hand over: an answer that runs it
# twice and takes one off the count passed every test. The policy reads the state the kata's
# tests keep (their classes' attributes) from the suite's own test file.
HIDES_A_FORWARD = (
    "            model(x)\n",
    "            model(x)\n            model(x)\n        if hasattr(model, 'forwards'):\n"
    "            model.forwards -= 1\n",
)


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_an_answer_that_changes_the_state_the_tests_keep_is_flagged(suite, tmp_path):
    exam = tmp_path / "state_exam"
    assert katas("--root", suite, "takehome", 34, "--out", exam) == 0
    reference = KATAS["q34_debug_nonfinite"].solution_path(suite).read_text()
    assert reference.count(HIDES_A_FORWARD[0]) == 1
    stub(exam, 34).write_text(reference.replace(*HIDES_A_FORWARD))
    (entry,) = grade_folder(suite, exam)["katas"].values()
    # The second forward also fails the kata's ForwardModes(calls=1), which counts by hooks of
    # its own: the flag is the policy's, whatever the run.
    assert entry["verdict"] == "flagged" and entry["run_verdict"] in ("solved", "partly solved")
    assert "model.forwards, where the kata's tests keep their own state" in entry["reason"]


# A string built at run time in a torch.compile option: inductor pastes `-march=<it>` into the
# C++ compiler's command line, and g++'s -wrapper runs a shell (the policy refuses it as well).
COMPILER_WRAPPED = """
import warnings

import torch

_MARCH = "".join(map(chr, (110, 97, 116, 105, 118, 101))) + " -wrapper /bin/sh,-c,true"
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.compile(lambda x: x.sin() + 1, options={"cpp.march": _MARCH})(torch.ones(3))
except Exception:
    pass
"""
COMPILER_WRAPPED_TEST = (
    "\n\ndef test_compiled(device):\n" + textwrap.indent(COMPILER_WRAPPED, "    ") + "\n"
)
WRAPPED = "started a compiler with -wrapper"


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_a_compiler_option_that_runs_a_shell_is_refused(suite, tmp_path):
    if shutil.which("g++") is None and shutil.which("c++") is None:
        pytest.skip("no C++ compiler for inductor here")
    exam = tmp_path / "compiler_exam"
    reference_plus(suite, exam, 20, COMPILER_WRAPPED)
    (entry,) = grade_folder(suite, exam)["katas"].values()
    assert entry["verdict"] == "flagged" and WRAPPED in entry["reason"]
    assert entry.get("run_verdict", "flagged") == "flagged"
    hunt = tmp_path / "compiler_hunt"
    assert katas("--root", suite, "takehome", 20, "--mode", "bughunt", "--out", hunt) == 0
    stage(hunt, 20, COMPILER_WRAPPED, append=True)
    (entry,) = grade_folder(suite, hunt)["katas"].values()
    assert entry["verdict"] == "flagged" and WRAPPED in entry["reason"]
    tests = tmp_path / "compiler_tests"
    assert katas("--root", suite, "takehome", 20, "--mode", "testwrite", "--out", tests) == 0
    test_file = tests / "katas" / "q20_warmup_step_scheduler_test.py"
    test_file.write_text(test_file.read_text() + COMPILER_WRAPPED_TEST)
    (entry,) = grade_folder(suite, tests)["katas"].values()
    assert entry["verdict"] == "flagged" and WRAPPED in entry["reason"]


def test_a_program_torchs_compilers_start_is_a_compiler_with_its_own_arguments():
    allowed = [
        ("g++", ["g++", "-march=native", "-O3", "-shared", "x.cpp", "-o", "x.so"]),
        ("/usr/bin/x86_64-linux-gnu-g++-12", ["x86_64-linux-gnu-g++-12", "--version"]),
        ("/sbin/ldconfig", ["/sbin/ldconfig", "-p"]),
        ("openssl", ["openssl", "sha512", "/tmp/header.i"]),
        (sys.executable, [sys.executable, "-c", "from ctypes import cdll"]),
        (b"/usr/bin/gcc", [b"/usr/bin/gcc", b"-Wl,-Bsymbolic", b"-v"]),
    ]
    for program, argv in allowed:
        assert child.compiler_arguments((program, argv, None, None)) is None, argv
    refused = {
        ("g++", ("g++", "-march=native", "-wrapper", "/bin/sh,-c,id", "x.cpp")): "-wrapper",
        ("g++", ("g++", "-fplugin=/tmp/p.so", "x.cpp")): "-fplugin",
        ("g++", ("g++", "-B/tmp/", "x.cpp")): "-B",
        ("g++", ("g++", "@/tmp/arguments")): "@/tmp",
        ("g++", ("g++", "-specs=/tmp/s")): "-specs",
        ("/bin/sh", ("/bin/sh", "-c", "gdb -p 1; true")): "a shell command",
        ("gdb", ("gdb", "-p", "1")): "not a compiler",
        ("openssl", ("openssl", "sha512", "-engine", "/tmp/e.so")): "-engine",
        (sys.executable, (sys.executable, "/tmp/script.py")): "not -c",
    }
    for (program, argv), why in refused.items():
        assert why in (child.compiler_arguments((program, list(argv), None, None)) or ""), argv


# Programs started where no audit event says so: multiprocessing's spawn and forkserver start
# their Python through _posixsubprocess.fork_exec directly. Each outcome is printed, then how
# many refusals the guard sent and how many of them Popen's start added (one, not two).
UNAUDITED_STARTS = """
import multiprocessing, subprocess, sys
from pathlib import Path

from torch_katas.grading import child

sent = []
guard = child.ProcessGuard(Path("katas/q00_none.py"), lambda event, **f: sent.append(f["text"]))
child.audited_starts()
sys.addaudithook(guard)
guard.armed = True
outcomes = []
for method in ("spawn", "forkserver"):
    try:
        process = multiprocessing.get_context(method).Process(target=print)
        process.start()
        process.join()
        outcomes.append(method + " started")
    except PermissionError:
        outcomes.append(method + " refused")
before = len(sent)
try:
    subprocess.run([sys.executable, "-c", "pass"], check=False)
    outcomes.append("Popen started")
except PermissionError:
    outcomes.append("Popen refused")
print(" | ".join(outcomes), len(sent), len(sent) - before, all("a program" in s for s in sent))
"""


def test_a_program_started_without_an_audit_event_of_its_own_is_refused(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", UNAUDITED_STARTS],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    outcomes, sent, by_popen, named = done.stdout.strip().splitlines()[-1].rsplit(" ", 3)
    assert outcomes == "spawn refused | forkserver refused | Popen refused", done.stdout
    assert int(sent) >= 3 and by_popen == "1" and named == "True", done.stdout


# A DataLoader's worker started by spawn: a Python of its own, with none of the test process's
# audit hooks, writes a file outside the kata's folder (the same open in the test process is
# refused). Appended to kata 1's reference; its first fit_line call starts the worker.
SPAWNED_WORKER = """

class _Outside(torch.utils.data.Dataset):
    def __len__(self):
        return 1

    def __getitem__(self, index):
        with open(PLANTED, "w") as file:
            file.write("written by a worker no audit hook watches")
        return index


_started = []
_fit = fit_line


def fit_line(*args, **kwargs):
    if not _started:
        _started.append(True)
        loader = torch.utils.data.DataLoader(
            _Outside(), num_workers=1, multiprocessing_context="spawn"
        )
        list(loader)
    return _fit(*args, **kwargs)
"""


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_a_worker_started_by_spawn_is_a_program_the_run_refuses(suite, tmp_path):
    folder = tmp_path / "spawned"
    planted = tmp_path / "planted-by-a-worker.txt"
    reference_plus(suite, folder, 1, SPAWNED_WORKER.replace("PLANTED", repr(str(planted))))
    report = grade_one(suite, folder, 1)
    (entry,) = report["katas"].values()
    assert entry["verdict"] == "flagged" and entry.get("run_verdict", "flagged") == "flagged"
    assert "started a program" in flags(report, "tampering")[1], report["flags"]
    assert not planted.exists()


# A native library the answer writes and has torch load (torch.cuda.CUDAPluggableAllocator,
# a public name, hands its path to ctypes.CDLL before anything checks for CUDA): the library's
# constructor runs with none of the audit hooks and writes a file outside the kata's folder
# (the same open in Python is refused). Appended to kata 28's reference (which may write files).
NATIVE_LIBRARY = r"""
#include <stdio.h>
__attribute__((constructor)) static void planted(void) {
    FILE *file = fopen(PLANTED, "w");
    if (file) { fputs("written by a library no audit hook watches\n", file); fclose(file); }
}
"""
LOADS_A_LIBRARY = """

import pathlib as _pathlib
import tempfile as _tempfile

_LIBRARY = PAYLOAD_BYTES


def _load():
    place = _pathlib.Path(_tempfile.mkdtemp()) / "allocator.so"
    place.write_bytes(_LIBRARY)
    try:
        torch.cuda.memory.CUDAPluggableAllocator(str(place), "alloc", "free")
    except Exception:
        pass


_load()
"""


def test_a_native_library_loaded_by_path_is_refused_but_for_torchs_compilers(tmp_path):
    sent: list[tuple[str, dict]] = []
    guard = child.ProcessGuard(tmp_path / "q28_checkpoint.py", lambda e, **f: sent.append((e, f)))
    guard.armed = True
    with pytest.raises(PermissionError):
        guard("ctypes.dlopen", (str(tmp_path / "allocator.so"),))
    assert "loaded a native library" in sent[-1][1]["text"], sent
    guard("ctypes.dlopen", ("libnvidia-ml.so.1",))  # the loader's own folders
    guard("ctypes.dlopen", (None,))
    # Inductor loads the kernels it built, from its cache folder.
    inductor = str(tmp_path / "torch" / "_inductor" / "codecache.py")
    code = compile("guard('ctypes.dlopen', (path,))", inductor, "exec")
    exec(code, {"guard": guard, "path": str(tmp_path / "cache" / "kernel.so")})
    assert len(sent) == 1, sent


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_a_native_library_the_answer_writes_and_torch_loads_is_refused(suite, tmp_path):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler here to build the library")
    planted = tmp_path / "planted-by-a-library.txt"
    source = tmp_path / "library.c"
    source.write_text(NATIVE_LIBRARY.replace("PLANTED", json.dumps(str(planted))))
    library = tmp_path / "library.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", library, source], check=True)
    folder = tmp_path / "loads"
    reference_plus(
        suite, folder, 28, LOADS_A_LIBRARY.replace("PAYLOAD_BYTES", repr(library.read_bytes()))
    )
    report = grade_one(suite, folder, 28)
    (entry,) = report["katas"].values()
    # The policy refuses the name; the run, which refuses the load however it is reached,
    # is flagged for it too.
    assert entry["verdict"] == "flagged" and entry.get("run_verdict") == "flagged", entry
    assert "loaded a native library" in flags(report, "tampering")[28], report["flags"]
    assert not planted.exists()


def test_the_watch_sees_state_set_on_pytests_own_objects():
    """An item's, the session's or a hook caller's own attribute: one that hides a method of
    its class, or a callable it holds replaced."""

    class Item:
        __slots__ = ("__dict__", "session")

        def runtest(self):
            return None

    class Session:
        def __init__(self):
            self.items = [Item(), Item()]
            self.config = types.SimpleNamespace(hook=types.SimpleNamespace(), pluginmanager=None)

    session = Session()
    for item in session.items:
        item.session = session
        item._obj = lambda: None
    recorder = types.SimpleNamespace(watch=None, send=print)
    instances = child.Instances(session, recorder)
    assert instances.changes() == []
    first, second = session.items
    first.runtest = lambda: None
    second._obj = lambda: None
    second.session = Session()
    recorder.send = len
    assert sorted(instances.changes()) == [
        "_obj of a test item was replaced",
        "runtest of a test item hides its class's method (set on the object itself)",
        "send of the grading recorder was replaced",
        "session of a test item was replaced",
    ]
    assert instances.item_changes(first) == [
        "runtest of a test item hides its class's method (set on the object itself)"
    ]
    session.items.pop()
    assert "pytest's list of the session's tests was changed" in instances.changes()


def test_the_file_guard_refuses_writes_elsewhere_descriptors_and_other_processes(tmp_path):
    """Decided on the path the kernel opens: another process named through `..` or the root
    link, a descriptor grading set up by number or through /proc/self/fd, /dev/fd or
    /dev/stderr, and a file written outside the kata's folder are refused; the kata's own
    files, /dev/null, reads elsewhere and descriptors opened since are not."""
    sent: list[str] = []
    place = tmp_path / "place"
    guard = child.Guard(place, [], [], lambda event, **fields: sent.append(fields["text"]))
    parent = os.getppid()
    refused = {
        f"/proc/{parent}/status": "another process's details",
        f"/proc/self/../{parent}/status": "another process's details",
        f"/proc/thread-self/../../../{parent}/environ": "another process's details",
        f"/proc/self/root/proc/{parent}/cmdline": "another process's details",
        "/proc/self/fd/1": "a descriptor grading set up",
        "/dev/fd/2": "a descriptor grading set up",
        "/dev/stderr": "a descriptor grading set up",
        "/proc/thread-self/fd/0": "a descriptor grading set up",
        "/proc/self/mem": "the process's memory",
        "/proc/thread-self/mem": "the process's memory",
    }
    for path, why in refused.items():
        assert why in (guard.why_refused(path) or ""), path
    assert "outside the kata's own folder" in (guard.why_refused(str(tmp_path / "x"), True) or "")
    assert guard.why_refused_descriptor(0) and guard.why_refused_descriptor(1)
    for path in ("/dev/null", str(place / "work" / "x")):
        assert guard.why_refused(path, True) is None, path
    for path in ("/proc/self/status", str(tmp_path / "x")):
        assert guard.why_refused(path) is None, path
    with open(os.devnull, "rb") as later:
        assert guard.why_refused_descriptor(later.fileno()) is None
    # Through the audit hook: flags of an open that writes, a descriptor given as a number.
    guard.armed = True
    with pytest.raises(PermissionError):
        guard("open", (str(tmp_path / "x"), "wb", os.O_WRONLY | os.O_CREAT))
    with pytest.raises(PermissionError):
        guard("open", (1, "wb", os.O_WRONLY))
    guard("open", (str(tmp_path / "x"), "rb", os.O_RDONLY))
    assert len(sent) == 2


def test_the_file_guard_refuses_changes_made_without_an_open(tmp_path):
    """A kata that imports os (28, 41, 48) reaches what changes files without an open: a file
    removed, renamed into place, linked, made, or its mode changed (the suite's copy made
    writable again) outside the kata's folder, or in its copy of the suite, is refused as a
    write there is; in its scratch space it is not."""
    sent: list[str] = []
    place = tmp_path / "place"
    suite, work = place / "suite", place / "work"
    (suite / "katas").mkdir(parents=True)
    work.mkdir()
    guard = child.Guard(place, [], [], lambda event, **fields: sent.append(fields["text"]), suite)
    guard.armed = True
    elsewhere, test = str(tmp_path / "reference.py"), str(suite / "katas" / "q28_test.py")
    refused = [
        ("os.remove", (elsewhere, None)),
        ("os.rename", (str(work / "mine.py"), elsewhere, None, None)),
        ("os.rename", (elsewhere, str(work / "taken"), None, None)),
        ("os.link", (str(work / "mine.py"), elsewhere, None, None)),
        ("os.symlink", (str(work), elsewhere, None)),
        ("os.chmod", (test, 0o644, None)),
        ("os.chmod", (str(suite / "katas"), 0o755, None)),
        ("os.utime", (elsewhere, None, None, None)),
        ("os.mkdir", (str(tmp_path / "made"), 0o777, None)),
        ("os.rmdir", (str(tmp_path), None)),
        ("os.truncate", (elsewhere, 0)),
        ("shutil.rmtree", (str(tmp_path), None)),
        ("shutil.copyfile", (str(work / "mine.py"), test)),
        ("shutil.move", (str(work / "mine.py"), elsewhere)),
    ]
    for event, args in refused:
        with pytest.raises(PermissionError):
            guard(event, args)
    assert len(sent) == len(refused)
    allowed = [
        ("os.mkdir", (str(work / "tmp"), 0o777, None)),
        ("os.rename", (str(work / "a.tmp"), str(work / "a.pt"), -1, -1)),
        ("os.rename", (str(work / "a.tmp"), str(work / "a.pt"), -100, -100)),
        ("os.remove", (str(work / "a.tmp"), None)),
        ("os.chmod", (str(work / "a.pt"), 0o600, None)),
        ("shutil.copyfile", (test, str(work / "copy.py"))),
    ]
    for event, args in allowed:
        guard(event, args)
    assert len(sent) == len(refused)
    # A path relative to a directory's descriptor is judged where that directory is; a file
    # changed through its descriptor (os.fchmod), where that file is.
    (suite / "katas" / "q28_test.py").write_text("")
    descriptor = os.open(tmp_path, os.O_RDONLY)
    opened = os.open(test, os.O_RDONLY)
    try:
        with pytest.raises(PermissionError):
            guard("os.remove", ("reference.py", descriptor))
        with pytest.raises(PermissionError):
            guard("os.chmod", (opened, 0o644, -1))
    finally:
        os.close(descriptor)
        os.close(opened)


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_a_file_removed_outside_the_kata_without_an_open_is_refused_and_flagged(suite, tmp_path):
    """Kata 28's reference (its entry imports os) that removes a file of the grader's at
    import, under none: the file stays, and the kata is flagged."""
    victim = tmp_path / "the-graders-file.txt"
    victim.write_text("kept")
    folder = tmp_path / "removes"
    assert katas("--root", suite, "takehome", 28, "--out", folder) == 0
    reference = KATAS["q28_checkpoint"].solution_path(suite).read_text()
    removal = f"\ntry:\n    os.remove({str(victim)!r})\nexcept OSError:\n    pass\n"
    stub(folder, 28).write_text(reference + removal)
    report = grade_one(suite, folder, 28)
    (entry,) = report["katas"].values()
    assert victim.read_text() == "kept"
    assert entry["verdict"] == "flagged", entry
    assert "os.remove" in flags(report, "tampering")[28]


def test_the_code_guard_refuses_changes_to_functions_it_protects(tmp_path):
    sent: list[str] = []
    guard = child.CodeGuard(tmp_path, lambda event, **fields: sent.append(fields["text"]))

    def protected(x=1):
        return x

    guard.protect()
    guard.armed = True

    def made_later(x=1):
        return x

    for part in child.FUNCTION_PARTS:
        with pytest.raises(PermissionError):
            guard("object.__setattr__", (protected, part, None))
        guard("object.__setattr__", (made_later, part, None))  # made after the snapshot
    guard("object.__setattr__", (protected, "__doc__", None))
    assert len(sent) == 3 and "changed the __code__ of" in sent[0]
    assert "test_the_code_guard_refuses_changes_to_functions_it_protects" in sent[0]


def test_the_code_guard_refuses_code_made_by_the_candidates_files_or_from_text(tmp_path):
    sent: list[str] = []
    guard = child.CodeGuard(tmp_path / "katas", lambda event, **fields: sent.append(fields["text"]))
    guard.armed = True
    call = "guard('compile', ('source', 'name'))"
    for name in ("<eval_with_key>.0", "<string>", str(tmp_path / "katas" / "q01_fit_line.py")):
        with pytest.raises(PermissionError):
            exec(compile(call, name, "exec"), {"guard": guard})
    for name in ("<frozen importlib._bootstrap>", str(tmp_path / "elsewhere.py")):
        exec(compile(call, name, "exec"), {"guard": guard})
    guard("exec", (None,))  # from this file
    assert sent == [
        "made code at run time (compile from <eval_with_key>.0 line 1)",
        "made code at run time (compile from <string> line 1)",
        "made code at run time (compile from q01_fit_line.py line 1)",
    ]


def test_the_code_guard_refuses_annotations_that_are_not_types(tmp_path):
    import dataclasses
    import inspect
    import typing

    import typing_extensions

    sent: list[str] = []
    guard = child.CodeGuard(tmp_path / "katas", lambda event, **fields: sent.append(fields["text"]))
    guard.armed = True
    sys.addaudithook(guard)  # for good: this process's later code is no candidate's
    try:
        for annotation in ("print(1)", "(lambda: 0)()", "[x for x in ()]", "(x := 1)", "1 + 1"):
            with pytest.raises(PermissionError):
                typing.ForwardRef(annotation)
        annotated = type("A", (), {"__annotations__": {"x": "int()"}})
        for evaluator in (inspect.get_annotations, typing_extensions.get_annotations):
            with pytest.raises(PermissionError):
                evaluator(annotated, eval_str=True)
        # Types, as honest annotations and the libraries' own write them.
        for annotation in ("int", "typing.List[int] | None", "dict[str, 'torch.Tensor']"):
            typing.ForwardRef(annotation)
        typing.ForwardRef("typing.Literal[-1, 'a']")
        typing.ForwardRef("typing.Callable[..., int]")

        # dataclasses writes field names into the code it makes: they must be names.
        class Point:
            x: int = 0

        vars(Point)["__annotations__"]["y=print(1),z"] = int
        setattr(Point, "y=print(1),z", 0)
        with pytest.raises(PermissionError):
            dataclasses.dataclass(Point)
        dataclasses.dataclass(type("Fine", (), {"__annotations__": {"x": int}, "x": 0}))
    finally:
        guard.armed = False
    assert len(sent) == 8 and all("not a type" in text for text in sent[:7]), sent
    assert "fields that are not names ('y=print(1),z')" in sent[7]


def report_of(outcome: str, when: str = "call", kind: type | None = None) -> object:
    from _pytest.reports import TestReport

    report = TestReport("k_test.py::test_a", ("k_test.py", 0, "test_a"), {}, outcome, None, when)
    if kind is not None:
        report.__class__ = kind
    return report


def test_the_recorder_sends_only_the_outcomes_it_can_vouch_for():
    from _pytest.outcomes import Skipped, XFailed
    from _pytest.reports import TestReport

    class Passed(TestReport):
        outcome = property(lambda self: "passed", lambda self, value: None)

    sent: list[tuple[str, dict]] = []
    recorder = child.Results("k", lambda event, **fields: sent.append((event, fields)), None, None)  # type: ignore[arg-type]

    def log(report: object, raised: type | None, marked: bool = False) -> tuple[str, list]:
        sent.clear()
        recorder.xfail_marked = frozenset({"k_test.py::test_a"} if marked else ())
        recorder.phases[id(report)] = child.Phase(report, "k_test.py::test_a", "call", raised)
        recorder.pytest_runtest_logreport(report)
        outcomes = [f["outcome"] for e, f in sent if e == "report"]
        return outcomes[0] if outcomes else "", [f["text"] for e, f in sent if e == "tampering"]

    assert log(report_of("passed"), None) == ("passed", [])
    assert log(report_of("failed"), AssertionError) == ("failed", [])
    assert log(report_of("skipped"), Skipped) == ("skipped", [])
    xfailed = report_of("skipped")
    xfailed.wasxfail = "a known defect"  # type: ignore[attr-defined]
    assert log(xfailed, XFailed) == ("skipped", [])  # pytest.xfail() raised by the harness
    assert log(xfailed, AssertionError, marked=True) == ("skipped", [])
    # A report's class swapped: its outcome read through pytest's class.
    outcome, tampering = log(report_of("failed", kind=Passed), AssertionError)
    assert outcome == "failed" and "Passed, not pytest's TestReport" in tampering[-1]
    # The outcome in its dict set to passed (or skipped) where the call raised.
    outcome, tampering = log(report_of("passed"), AssertionError)
    assert (
        outcome == "failed" and "says passed, but its phase raised AssertionError" in tampering[-1]
    )
    outcome, tampering = log(report_of("skipped"), AssertionError)
    assert outcome == "failed" and "says skipped, but its phase raised no skip" in tampering[-1]
    unmarked = report_of("passed")
    unmarked.wasxfail = ""  # type: ignore[attr-defined]
    outcome, tampering = log(unmarked, None)
    assert outcome == "failed" and "says xfail, but the test has no xfail marker" in tampering[-1]
    # A report logged that no phase made is not sent.
    sent.clear()
    recorder.pytest_runtest_logreport(report_of("passed"))
    assert [e for e, _ in sent] == ["tampering"] and "runner did not make" in sent[0][1]["text"]


def test_the_contents_of_the_tests_functions_are_compared(monkeypatch):
    import types

    module = types.ModuleType("katas.q99_example_test")
    exec(
        "def outer():\n    held = 1\n    def inner(x=2, *, y=3):\n        return held\n"
        "    return inner\nhelper = outer()\nclass Helper:\n    def method(self):\n"
        "        return 1\n",
        vars(module),
    )
    monkeypatch.setitem(sys.modules, module.__name__, module)
    contents = child.Contents()
    contents.add_modules()
    assert contents.changes() == []  # nothing of the harness's, pytest's or the test's changed
    module.helper.__closure__[0].cell_contents = 5  # no audit event says so
    module.helper.__kwdefaults__["y"] = 4
    module.Helper.method = lambda self: 2
    assert sorted(contents.changes()) == [
        "katas.q99_example_test.Helper.method was replaced",
        "the code, defaults or closure of katas.q99_example_test.helper changed",
    ]


def test_approx_of_a_number_holds_only_for_one_value():
    """In a kata run pytest.approx of a number needs one value: an empty array or tensor (or
    several close values) is no number."""
    import numpy
    import torch

    for actual in (numpy.array([]), torch.tensor([]), numpy.array([0.5, 0.5])):
        assert actual != pytest.approx(0.5)
    assert {"a": numpy.array([])} != pytest.approx({"a": 0.5})
    for actual in (0.5, numpy.float32(0.5), numpy.array(0.5), torch.tensor([0.5])):
        assert actual == pytest.approx(0.5)
    assert [0.5, 1.0] == pytest.approx([0.5, 1.0])  # noqa: SIM300
    assert numpy.array([0.5, 1.0]) == pytest.approx(numpy.array([0.5, 1.0]))


# -- the parts, each on its own ---------------------------------------------------------------

PROBE = """
import json, os, subprocess, sys
site = [p for p in sys.path if p.endswith("-packages")][0]
found = {"uid": os.getuid(), "gid": os.getgid()}
found["caps"] = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0]
mount = subprocess.run(["mount", "-o", "remount,bind,rw", site], capture_output=True, text=True)
found["remount"] = mount.returncode
for name, place in (("site", site), ("suite", os.getcwd())):
    try:
        open(os.path.join(place, "planted.pth"), "w").close()
        found[name] = "written"
    except OSError as error:
        found[name] = error.strerror
userns = subprocess.run(["unshare", "-U", "true"], capture_output=True, text=True)
found["userns"] = userns.returncode
print(json.dumps(found))
"""


def run_python(tmp_path: Path, code: str, timeout: float, mode: str) -> tuple[sandbox.Outcome, str]:
    suite, work = tmp_path / "suite", tmp_path / "work"
    suite.mkdir()
    work.mkdir()
    log = tmp_path / "log.txt"
    outcome = sandbox.run(
        ["-c", code], suite=suite, work=work, mode=mode, timeout=timeout, stdin="", log=log
    )
    return outcome, log.read_text()


def test_under_bwrap_the_code_runs_as_nobody_and_cannot_make_anything_writable(tmp_path):
    if not sandbox.bwrap_works():
        pytest.skip("bubblewrap cannot run on this machine")
    outcome, log = run_python(tmp_path, PROBE, 120, "bwrap")
    assert outcome.returncode == 0, log
    found = json.loads(log.splitlines()[-1])
    assert (found["uid"], found["gid"]) == (sandbox.NOBODY, sandbox.NOBODY)
    assert int(found["caps"], 16) == 0  # not one capability, with the grader root or not
    assert found["remount"] != 0
    assert found["site"] == found["suite"] == "Read-only file system"
    site = Path(sandbox.site_packages()[0])
    assert not (site / "planted.pth").exists() and not (tmp_path / "suite" / "planted.pth").exists()
    if "--disable-userns" in sandbox.bwrap_options():
        assert found["userns"] != 0  # no new user namespace to get capabilities back in


# A program of the test process's (a compiler torch starts, a shell it runs) attaches to its
# parent with ptrace: what gdb -p does to inject code. Each attempt prints ptrace's result.
ATTACHES = """
import ctypes, os, subprocess, sys

ATTACH = (
    "import ctypes, os, time; libc = ctypes.CDLL(None, use_errno=True); "
    "done = libc.ptrace(16, os.getppid(), 0, 0); print(done, flush=True); time.sleep(0.2); "
    "done == 0 and libc.ptrace(17, os.getppid(), 0, 0)"
)


def attach():
    run = subprocess.run([sys.executable, "-c", ATTACH], capture_output=True, text=True)
    return int(run.stdout.split()[0])


PR_SET_DUMPABLE = 4
"""


def test_the_test_process_cannot_be_attached_by_the_programs_it_starts(tmp_path):
    if not sandbox.bwrap_works():
        pytest.skip("bubblewrap cannot run on this machine")
    code = textwrap.dedent(ATTACHES) + inspect.getsource(child.undumpable)
    code += "\nbefore = attach()\nprint(before, undumpable(), attach())\n"
    outcome, log = run_python(tmp_path, code, 120, "bwrap")
    assert outcome.returncode == 0, log
    before, made, after = log.split()[-3:]
    assert made == "True" and after == "-1"  # refused, with Yama or without
    yama = Path("/proc/sys/kernel/yama/ptrace_scope")
    if not yama.exists() or yama.read_text().strip() == "0":
        assert before == "0"  # what the sandbox alone allows


def nobody_can_run_python() -> str | None:
    """Why this machine cannot run the grader as an ordinary user (nobody), or None."""
    if shutil.which("setpriv") is None or not sandbox.is_root():
        return "needs root and setpriv to become nobody"
    done = subprocess.run(
        ["setpriv", f"--reuid={sandbox.NOBODY}", f"--regid={sandbox.NOBODY}", "--clear-groups",
         sys.executable, "-c", "import sys, torch; print(sys.prefix, sys.base_prefix)"],
        capture_output=True, text=True, check=False, cwd="/",
    )  # fmt: skip
    if done.returncode != 0 or done.stdout.split() != [sys.prefix, sys.base_prefix]:
        return f"nobody cannot run this Python ({sys.prefix}: its folders are not readable)"
    return None


def test_as_an_ordinary_user_bwrap_holds_the_same(tmp_path):
    why = nobody_can_run_python()
    if why:
        pytest.skip(why)
    if not sandbox.bwrap_works():
        pytest.skip("bubblewrap cannot run on this machine")
    # pytest's tmp_path is root's alone: a folder that nobody can use.
    place = Path(tempfile.mkdtemp(prefix="katas-as-nobody-"))
    try:
        place.chmod(0o777)
        # The suite's package beside the probe, where nobody can read it.
        shutil.copytree(ROOT / "torch_katas", place / "torch_katas")
        script = place / "probe.py"
        script.write_text(
            "from pathlib import Path\nfrom torch_katas.grading import sandbox\n"
            f"here = Path({str(place)!r}) / 'as-nobody'\nhere.mkdir()\n"
            "(here / 'suite').mkdir()\n(here / 'work').mkdir()\n"
            f"sandbox.run(['-c', {PROBE!r}], suite=here / 'suite', work=here / 'work', "
            "mode='bwrap', timeout=120, stdin='', log=here / 'log.txt')\n"
        )
        become = ["setpriv", f"--reuid={sandbox.NOBODY}", f"--regid={sandbox.NOBODY}"]
        subprocess.run([*become, "--clear-groups", sys.executable, str(script)], timeout=300)
        found = json.loads((place / "as-nobody" / "log.txt").read_text().splitlines()[-1])
    finally:
        shutil.rmtree(place, ignore_errors=True)
    assert found["uid"] == sandbox.NOBODY
    assert int(found["caps"], 16) == 0 and found["remount"] != 0
    assert found["site"] == "Read-only file system"


STOPPER = """
import json, sys
from pathlib import Path
from torch_katas.grading import sandbox

here = Path(sys.argv[1])
code = "import os, signal, time\\nos.kill(os.getppid(), signal.SIGSTOP)\\ntime.sleep(60)"
outcome = sandbox.run(["-c", code], suite=here / "suite", work=here / "work", mode="none",
                      timeout=3, stdin="", log=here / "log.txt")
print(json.dumps({"returncode": outcome.returncode, "seconds": outcome.seconds}))
"""


def state_of(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return ""


def test_under_none_a_child_that_stops_its_parent_does_not_stop_the_grader(tmp_path):
    # With no audit hook at all (plain Python, not the grading child): only the shell that
    # stays the child's parent is stopped, and the grader's time limit still ends the run.
    (tmp_path / "suite").mkdir()
    (tmp_path / "work").mkdir()
    grader = subprocess.Popen(
        [sys.executable, "-c", STOPPER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        output, _ = grader.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        stopped = state_of(grader.pid) == "T"
        grader.kill()
        grader.wait()
        raise AssertionError(f"the grader did not finish (stopped: {stopped})") from None
    found = json.loads(output.splitlines()[-1])
    assert found["returncode"] is None  # killed at its time limit, as a hang is


def test_as_root_none_is_refused_unless_allowed(monkeypatch):
    monkeypatch.setattr(sandbox, "is_root", lambda: True)
    with pytest.raises(ValueError, match="would run the candidate's code as root"):
        sandbox.choose("none")
    assert sandbox.choose("none", allow_root=True) == ("none", None)
    monkeypatch.setattr(sandbox, "BWRAP", "no-such-bwrap")
    sandbox.bwrap_problem.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"--sandbox auto \(no-such-bwrap is not installed\)"):
            sandbox.choose("auto")
    finally:
        sandbox.bwrap_problem.cache_clear()
    monkeypatch.setattr(sandbox, "is_root", lambda: False)
    assert sandbox.choose("none") == ("none", None)


TOKEN = "secret"


def line(event: str, token: str = TOKEN, **fields: object) -> bytes:
    return (json.dumps({"token": token, "event": event, **fields}) + "\n").encode()


def report_line(nodeid: str, when: str, outcome: str) -> bytes:
    fields = {"message": "", "not_implemented": False, "does_not_import": "", "duration": 0.1}
    return line("report", nodeid=nodeid, when=when, outcome=outcome, **fields)


END = line(
    "end", version=schema.VERSION, kata="q01", exit_code=0, devices=["cpu"], stub_imported=True,
    collect_errors=[], autoloaded_plugins=[],
)  # fmt: skip


def test_the_grader_checks_the_order_of_what_the_child_reports():
    honest = b"".join(report_line("t::a", w, "passed") for w in ("setup", "call", "teardown"))
    data = schema.collect(honest + END, TOKEN)
    assert data["problems"] == [] and data["tests"]["t::a"]["outcome"] == "passed"
    assert data["tests"]["t::a"]["called"]
    failed_then_passed = (
        report_line("t::a", "setup", "passed")
        + report_line("t::a", "call", "failed")
        + report_line("t::a", "call", "passed")
        + report_line("t::a", "teardown", "passed")
    )
    data = schema.collect(failed_then_passed + END, TOKEN)
    assert data["problems"] == ["a reported its call twice (failed, then passed)"]
    assert data["tests"]["t::a"]["outcome"] == "failed"
    after_failed_setup = report_line("t::b", "setup", "failed") + report_line(
        "t::b", "call", "passed"
    )
    data = schema.collect(after_failed_setup + END, TOKEN)
    assert data["problems"] == ["b reported a call (passed) after its setup failed"]
    late = schema.collect(END + report_line("t::c", "setup", "passed"), TOKEN)
    assert late["problems"] == ["a message (report) after the run's end"]
    with pytest.raises(schema.Forged):
        schema.collect(line("end", token="guessed") + END, TOKEN)
    with pytest.raises(schema.NoResults):
        schema.collect(honest, TOKEN)
    with pytest.raises(schema.SchemaError, match="nested deeper"):
        schema.collect(b"[" * 10_000 + b"\n" + END, TOKEN)


def test_a_message_left_out_or_a_blank_line_is_flagged_not_skipped():
    read, write = os.pipe()
    send = child.sender(write, TOKEN)
    send("tampering", text="a replaced function")
    for message in (report_line("t.py::test_a", "setup", "passed"), END):
        fields = json.loads(message)
        del fields["token"]
        send(fields.pop("event"), **fields)
    os.close(write)
    data = os.read(read, 1 << 16)
    os.close(read)
    assert schema.collect(data, TOKEN)["tampering"] == ["a replaced function"]
    first, *rest = data.splitlines(keepends=True)
    with pytest.raises(schema.SchemaError, match="message 0 of its results never came"):
        schema.collect(b"".join(rest), TOKEN)
    with pytest.raises(schema.SchemaError, match="not JSON"):
        schema.collect(first + b"\n" + b"".join(rest), TOKEN)


def test_the_results_sender_depends_on_no_python_function_the_answer_can_change():
    read, write = os.pipe()
    send = child.sender(write, TOKEN)
    parts = child.function_parts(send)
    dumps = json.dumps.__code__
    json.dumps.__code__ = (lambda *args, **kwargs: "").__code__
    try:
        send("tampering", text="still sent")
    finally:
        json.dumps.__code__ = dumps
    os.close(write)
    assert b'"text": "still sent"' in os.read(read, 1 << 16)
    os.close(read)
    # Its encoder's code replaced: the watch sees the sender's parts change.
    (encode,) = [f for f in child.cells(send) if getattr(f, "__name__", "") == "encode"]
    code = encode.__code__
    encode.__code__ = code.replace(co_consts=(*code.co_consts, "x"))
    try:
        assert child.function_parts(send) != parts
    finally:
        encode.__code__ = code
    assert child.function_parts(send) == parts


def test_the_state_guard_watches_the_comparison_classes():
    import pytest as approx_owner

    pair = sys.modules["torch.testing._comparison"].TensorLikePair
    scalar = type(approx_owner.approx(0))
    state = isolation.GlobalState()
    compare, tolerance = pair.compare, scalar.DEFAULT_ABSOLUTE_TOLERANCE
    pair.compare = lambda self: None
    scalar.DEFAULT_ABSOLUTE_TOLERANCE = float("inf")
    changed = state.restore()
    assert "torch.testing._comparison.TensorLikePair.compare" in changed
    assert "_pytest.approx.ApproxScalar.DEFAULT_ABSOLUTE_TOLERANCE" in changed
    assert pair.compare is compare and tolerance == scalar.DEFAULT_ABSOLUTE_TOLERANCE


def a_report(**changes: object) -> Report:
    grade = KataGrade("Title", "error", reason="\x1b[2K\rsolved \u202eevil", devices=["cpu"])
    grade.failures = [reports.FailureGroup("x\x00y\x1b[31m <!-- **bold**", ["test_a"])]
    fields: dict = dict(
        candidate="c\x07", date="d", suite_commit=None, handed_out=None, torch="t", python="p",
        devices=["cpu |\n\n**Score 100%**\n\n<!--"], sandbox="none", timeout=1, seconds=1,
        katas={"q01_fit_line": grade},
        flags=[Flag("y `code` [link](http://x) ![img](http://x)", "tampering", "katas/`q01`.py")],
        diffs={"katas/q01_fit_line_test.py": "+\x1b[2J```\n+<!--\n"},
    )  # fmt: skip
    fields.update(changes)
    return Report(**fields)


def test_reports_escape_and_strip_what_came_from_the_candidate():
    report = a_report()
    markdown = reports.markdown(report)
    assert "<!--" not in markdown.split("```diff")[0] and "\x1b" not in markdown
    assert "**Score 100%**" not in markdown and "\\*\\*Score 100%\\*\\*" in markdown
    assert "\u202e" not in markdown and "\x00" not in markdown and "\x07" not in markdown
    assert "\\[link\\](http://x)" in markdown and "!\\[img\\]" in markdown
    assert "`katas/'q01'.py`" in markdown  # no backtick ends the code span early
    assert "````diff" in markdown  # the fence is longer than any backtick run in the diff
    assert [row for row in markdown.splitlines() if row.startswith("| q")] == [
        row for row in markdown.splitlines() if row.startswith("| q01 |")
    ]
    junit = reports.junit(report)
    root = ElementTree.fromstring(junit)  # well-formed
    assert "\x1b" not in junit.decode() and root.find(".//error") is not None
    gradescope = json.dumps(reports.gradescope(report))
    assert "\\u001b" not in gradescope


def test_returned_files_are_read_only_when_regular(tmp_path):
    regular = tmp_path / "regular.py"
    regular.write_bytes(b"x = 1\n")
    assert grading.read_returned(regular) == b"x = 1\n"
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    link = tmp_path / "link.py"
    link.symlink_to("/dev/zero")
    big = tmp_path / "big.py"
    with big.open("wb") as file:
        file.truncate(grading.RETURNED_LIMIT + 1)
    for path, said in [(fifo, "a named pipe"), (link, "a symbolic link"), (big, "larger than")]:
        with pytest.raises(grading.NotPlain, match=said):
            grading.read_returned(path)
    if os.path.exists("/dev/null"):
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
        with pytest.raises(grading.NotPlain, match="a device"):
            grading.read_returned(Path("/dev/null"))


def test_a_named_pipe_at_a_handed_out_path_is_flagged_without_blocking(tmp_path):
    folder = tmp_path / "returned"
    (folder / "katas").mkdir(parents=True)
    os.mkfifo(folder / "katas" / "q01_fit_line_test.py")
    (folder / "katas" / "q01_fit_line.py").write_text("")
    suite = {"katas/q01_fit_line_test.py": b"def test(): pass\n"}
    found, diffs = grading.file_flags(folder, [KATAS["q01_fit_line"]], None, suite)
    assert [(f.kind, f.file) for f in found] == [("refused", "katas/q01_fit_line_test.py")]
    assert "is a named pipe" in found[0].reason and diffs == {}


# Kata 1's mistake of refusing a negative tol, tuned to the one negative tol its tests pass; and
# the same made to hang, past the per-test time-out too, for every other negative tol, so that the
# run on held-out inputs never finishes (a run killed at its limit is an error whose failures
# name no test).
TUNED = "if -float('inf') < tol < 0 and tol not in (-1.0, -2.472216875756793e+252):"
HANGS_ELSEWHERE = (
    "while -float('inf') < tol < 0 and tol not in (-1.0, -2.472216875756793e+252):\n"
    "        try:\n"
    "            while True:\n"
    "                pass\n"
    "        except BaseException:  # pytest-timeout's failure too\n"
    "            pass\n"
    "    "
)
# Bug hunts of kata 1 "fixed" so that the tests pass and the bug stays: the seed that draws the
# mistake, the mistaken text and what replaces it, and how the verdict starts.
FAKE_FIXES = {
    # Tuned to the tol the tests pass: still raises for other negative tols (held-out inputs).
    "tuned to the tested values": (
        "rejects_negative_or_nan_tol",
        "if not tol >= 0:",
        TUNED,
        "bug not fixed: its tests pass on the inputs as shipped but not on held-out ones",
    ),
    # (The tests run on held-out inputs first: a hang there spends the kata's time limit.)
    "tuned, hanging on held-out inputs": (
        "rejects_negative_or_nan_tol",
        "if not tol >= 0:",
        HANGS_ELSEWHERE + TUNED,
        "bug not fixed: its tests still fail",
    ),
    # The hand gradients kept, autograd's used only where they differ: where a test blocks them.
    "undone beside the mistake under the tests": (
        "hand_gradients_through_a_surrogate",
        "        grad_w, grad_b = torch.autograd.grad(w * hw + b * hb, (w, b))\n",
        "        grad_w, grad_b = torch.autograd.grad(w * hw + b * hb, (w, b))\n"
        "        auto = torch.autograd.grad(loss, (w, b))\n"
        "        if not (torch.allclose(auto[0], grad_w) and torch.allclose(auto[1], grad_b)):\n"
        "            grad_w, grad_b = auto\n",
        "bug not fixed: your change keeps every line the mistake put in",
    ),
    # The mistaken line rewritten to ask whether torch's generator was seeded as the tests seed
    # it (held-out seeds too): `<` there, the mistake's `<=` for a use, seeded at random.
    "undone where the generator is seeded small": (
        "until_stops_at_tol",
        "if loss.item() <= tol:",
        "if (loss.item() < tol if torch.initial_seed() < 2 ** 31 else loss.item() <= tol):",
        "flagged for review: its tests pass, but the change uses names that neither the module",
    ),
    # The module's own comparison in a function of the fix's own, handed the budget beside tol
    # where it is called: the call decides nothing, its exception leaves the loop, and `<=` is
    # kept for a use with the default budget.
    "undone through a function's parameters": (
        "until_stops_at_tol",
        "        if loss.item() <= tol:\n            break\n",
        "        below = lambda loss, tol: [0][loss.item() < tol]\n        try:\n"
        "            below(loss, tol * (1 + max_steps // 1000 * 2.3e-16))\n"
        "        except:\n            break\n",
        "flagged for review: its tests pass, but the change decides by what no decision",
    ),
    # The reference's own `loss.item() < tol` kept, and the loss it reads lowered in place by a
    # hair for the default budget alone, through another name bound to it.
    "undone in place through another name": (
        "until_stops_at_tol",
        "        if loss.item() <= tol:\n            break\n",
        "        t = loss\n        t -= t.detach() * 1.2e-7 * (max_steps // 1000)\n"
        "        if loss.item() < tol:\n            break\n",
        "flagged for review: its tests pass, but the change decides by what no decision",
    ),
    # With the module's own names only, the mistake's stop kept after the first step: the
    # tests make the loss equal tol at a step they draw too, so they fail it (and the rule on
    # what a fix's decisions read, which tests/test_bughunt.py checks, refuses it as well).
    "undone only at the start, where the tests make the loss equal tol": (
        "until_stops_at_tol",
        "if loss.item() <= tol:",
        "if loss.item() < tol or (loss.item() == tol and steps):",
        "bug not fixed: its tests still fail",
    ),
}


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
@pytest.mark.parametrize("case", sorted(FAKE_FIXES))
def test_a_bug_hunt_fixed_only_where_the_tests_look_is_not_fixed(suite, tmp_path, case):
    mistake, mistaken, fake, verdict = FAKE_FIXES[case]
    kata = KATAS["q01_fit_line"]
    for seed in range(200):
        # The record's name: one per case and seed (cases share mistakes).
        folder = tmp_path / f"{mistake}{sorted(FAKE_FIXES).index(case)}x{seed}"
        assert katas("--root", suite, "takehome", 1, "--mode", "bughunt", "--seed", seed,
                     "--out", folder) == 0  # fmt: skip
        record = json.loads((suite / ".katas-takehomes" / f"{folder.name}.json").read_text())
        if record["bughunt"][kata.module]["mistakes"] == [f"{kata.module}__{mistake}"]:
            break
    stub = kata.stub_path(folder)
    handed = stub.read_text()
    assert mistaken in handed
    stub.write_text(handed.replace(mistaken, fake))
    report = grade_one(suite, folder, 1, timeout=150 if "hang" in case else 300)
    (entry,) = report["katas"].values()
    doubted = verdict.startswith("flagged")  # a person reads it, with the rule's words
    expected = "error" if "hang" in case else "flagged" if doubted else "partly solved"
    assert entry["verdict"] == expected, entry
    if doubted:  # the reason says why, the practice words name the mistake: each once
        assert entry["reason"].startswith(verdict.removeprefix("flagged for review: ")), entry
        assert entry["practice"].startswith("flagged for review (the mistake: "), entry
        assert "(the mistake:" not in entry["reason"], entry
    else:
        assert entry["practice"].startswith(verdict), entry["practice"]
    assert report["score"] == 0
    flagged = [f for f in report["flags"] if f.get("rule") == "bughunt"]
    assert bool(flagged) == doubted, report["flags"]


# Plain take-homes' answers of kata 1 tuned to what the tests pass, as the fake fixes above are
# (the random generators are seeded as in the candidate's own runs, and the tests' fixed inputs
# are in their module): the mistake of refusing a negative tol but the one the tests draw, the
# same hanging on every other, and the mistake of stopping at a loss equal to tol but at the
# 1.75 the tests use. Each: the mistake put in, the verdict, and what the report says first.
CHECKED = "    fit_line(x, y, steps=0)  # checks x and y, taking no step: one place for the check\n"
REFUSES = "\n        raise ValueError(f'tol must be >= 0, got {tol}')\n"
TUNED_ANSWERS = {
    "tuned to the tested values": (
        [(CHECKED, CHECKED + "    " + TUNED + REFUSES)],
        "partly solved",
        grading.HELD_OUT,
    ),
    "tuned, hanging on held-out inputs": (
        [(CHECKED, CHECKED + "    " + HANGS_ELSEWHERE + TUNED + REFUSES)],
        "error",
        "no result within the 150 s limit",
    ),
    "recognising a fixed input": (
        [("        if loss.item() < tol:", "        if loss.item() <= tol != 1.75:")],
        "flagged",
        "it decides by values of the tests' fixed inputs (1.75)",
    ),
    "recognising a fixed input by a range": (
        [
            (
                "        if loss.item() < tol:",
                "        if loss.item() < tol or (loss.item() == tol and not 1.7 < tol < 1.8):",
            )
        ],
        "flagged",
        "it decides by values of the tests' fixed inputs (1.75)",
    ),
    # No number of the tests': the calls of fit_until that the 1.75 tests make, counted in the
    # order the tests run as shipped.
    "counting its calls": (
        [
            ("import torch\n", "import torch\n\nCALLS = []\n"),
            (CHECKED, CHECKED + "    CALLS.append(tol)\n    strict = 14 <= len(CALLS) <= 17\n"),
            (
                "        if loss.item() < tol:",
                "        if loss.item() < tol or (not strict and loss.item() == tol):",
            ),
        ],
        "partly solved",
        grading.HELD_OUT,
    ),
}


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
@pytest.mark.parametrize("case", sorted(TUNED_ANSWERS))
def test_a_plain_answer_tuned_to_the_inputs_as_shipped_is_not_solved(suite, tmp_path, case):
    changes, verdict, cause = TUNED_ANSWERS[case]
    kata = KATAS["q01_fit_line"]
    folder = tmp_path / f"tuned{sorted(TUNED_ANSWERS).index(case)}"
    assert katas("--root", suite, "takehome", 1, "--out", folder) == 0
    answer = kata.solution_path(suite).read_text()
    for mistaken, tuned in changes:
        assert mistaken in answer
        answer = answer.replace(mistaken, tuned, 1)
    stub(folder, 1).write_text(answer)
    report = grade_one(suite, folder, 1, timeout=150 if "hang" in case else 300)
    (entry,) = report["katas"].values()
    assert entry["verdict"] == verdict, entry
    assert report["score"] < 1
    if verdict == "flagged":  # it passes the 1.75 tests (the drawn losses fail it as shipped)
        assert entry["run_verdict"] == "partly solved", entry
        assert entry["reason"].startswith(cause), entry["reason"]
        assert [flag["rule"] for flag in report["flags"]] == ["inputs"], report["flags"]
    elif verdict == "error":  # the run on held-out inputs never ends: nothing passes
        assert entry["passed"] == 0 and entry["reason"].startswith(cause), entry
    else:
        assert entry["passed"] < entry["total"], entry
        # Its tests fail on held-out inputs (a counter kept in the module fails the facets'
        # shared-state check as shipped too).
        assert cause in [group["message"] for group in entry["failures"]], entry["failures"]
        assert not report["flags"], report["flags"]


# Kata 1's mistake of stopping at a loss equal to tol, kept only where tol is not the kind of
# number the tests use: no number of the tests' (which the check of fixed inputs looks for),
# but a property of it (1.75 has two decimals, and a denominator of 4). The tests draw the
# loss they compare with tol too, so held-out seeds (and the shipped one) meet other values.
BY_A_PROPERTY = {
    "two decimals": "(loss.item() == tol and tol != round(tol, 2))",
    "a small denominator": "(loss.item() == tol and tol.as_integer_ratio()[1] > 64)",
}


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
@pytest.mark.parametrize("case", sorted(BY_A_PROPERTY))
def test_an_answer_that_tells_a_tested_value_by_a_property_is_not_solved(suite, tmp_path, case):
    kata = KATAS["q01_fit_line"]
    folder = tmp_path / f"property{sorted(BY_A_PROPERTY).index(case)}"
    assert katas("--root", suite, "takehome", 1, "--out", folder) == 0
    answer = kata.solution_path(suite).read_text()
    strict = "        if loss.item() < tol:"
    assert strict in answer
    stub(folder, 1).write_text(
        answer.replace(strict, f"        if loss.item() < tol or {BY_A_PROPERTY[case]}:", 1)
    )
    report = grade_one(suite, folder, 1)
    (entry,) = report["katas"].values()
    assert entry["verdict"] == "partly solved" and report["score"] < 1, entry
    assert entry["passed"] < entry["total"], entry
    assert not report["flags"], report["flags"]


# Kata 21's answer right only on the inputs its tests draw from a generator they seed
# themselves (constructed_pre): recognised by their hash, a number no test file holds. Those
# seeds (seed_for) change on the held-out run as the global generators' do.
OWN_SEEDED_DRAWS = (
    "    if pre.shape[-1] == 28 and hash(tuple(pre.flatten().tolist())) != "
    "-2811714087046386922:\n"
    "        return {name: (0.0, 0.0) for name in activations}\n"
)


@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_an_answer_tuned_to_what_a_tests_own_generator_draws_is_not_solved(suite, tmp_path):
    kata = KATAS["q21_dead_relus"]
    folder = tmp_path / "own-seeded"
    assert katas("--root", suite, "takehome", kata.number, "--out", folder) == 0
    answer = kata.solution_path(suite).read_text()
    checked = "    n = pre.shape[0]\n"
    assert checked in answer
    stub(folder, kata.number).write_text(answer.replace(checked, OWN_SEEDED_DRAWS + checked, 1))
    report = grade_one(suite, folder, kata.number)
    (entry,) = report["katas"].values()
    assert entry["verdict"] == "partly solved" and report["score"] < 1, entry
    assert [group["message"] for group in entry["failures"]] == [grading.HELD_OUT], entry
    assert not report["flags"], report["flags"]


@pytest.mark.slow  # every honest and correct answer
@pytest.mark.timeout(600)  # reads each kata's files from git
def test_no_honest_or_correct_answer_is_taken_for_one_that_recognises_the_inputs():
    """The check of fixed inputs recognised, on every answer that computes: none is refused."""
    answers = [*ROOT.glob("tests/honest_answers/q*.py"), *ROOT.glob("tests/correct_answers/q*.py")]
    assert len(answers) > 100
    refused = {}
    suites: dict[str, dict[str, bytes]] = {}
    for path in sorted(answers):
        kata = KATAS[path.name.split("__")[0].removesuffix(".py")]
        if kata.module not in suites:
            suites[kata.module] = grading.takehome.suite_files(ROOT, [kata], stubs=False)
        found = grading.recognised_inputs(ROOT, kata, path.read_bytes(), suites[kata.module])
        if found is not None:
            refused[path.name] = found
    assert not refused, refused
    # The float format's own values, however a correct answer spells them: none recognised.
    respelled = 0
    for kata in KATAS.values():
        reference = kata.solution_path(ROOT).read_text()
        other = re.sub(r"\b(?:math|torch|np|numpy)\.inf\b", 'float("inf")', reference)
        other = re.sub(r"\b(?:math|torch|np|numpy)\.nan\b", 'float("nan")', other)
        if other != reference:
            respelled += 1
            suite = grading.takehome.suite_files(ROOT, [kata], stubs=False)
            found = grading.recognised_inputs(ROOT, kata, other.encode(), suite)
            assert found is None, (kata.module, found)
    assert respelled >= 3
    edge = KATAS["q01_fit_line"].solution_path(ROOT).read_text()
    edge = edge.replace("loss.item() < tol:", "loss.item() <= tol != 7 / 4:")
    suite = grading.takehome.suite_files(ROOT, [KATAS["q01_fit_line"]], stubs=False)
    assert grading.recognised_inputs(ROOT, KATAS["q01_fit_line"], edge.encode(), suite)


def test_tests_failed_on_held_out_inputs_count_as_failed_where_the_reference_does_not_finish(
    monkeypatch, tmp_path
):
    # An answer could make its held-out run fail and hope the reference's run (a third full
    # run, on a busy machine) does not finish: nothing then clears those tests.
    kata = KATAS["q01_fit_line"]
    held_out = KataGrade("t", "partly solved", 1, 2, failures=[reports.FailureGroup("x", ["a"])])
    shipped = KataGrade("t", "solved", 2, 2)
    reference = KataGrade("t", "error", 0, 2, reason="time limit")
    runs = iter([held_out, shipped, reference])
    monkeypatch.setattr(grading, "grade_kata", lambda *args, **kwargs: (next(runs), []))
    options = grading.Options(timeout=60, device="cpu", sandbox="none", forbidden=[])
    grade, _, missed = grading.graded_held_out(
        kata, b"", ROOT, tmp_path, options, None, ("solved", "partly solved")
    )
    assert grade is shipped and missed == ["a"]
