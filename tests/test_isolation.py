"""One kata's broken code never spoils another kata's verdict or the learner's status.

The runs here are real pytest processes on a small kata project: the stubs change torch's
global state, hang or exit, and none of that may leak into the process running these checks.
The learner has solved kata 1; every other stub is broken in its own way, all in one run.
"""

import decimal
import json
import logging
import math
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import types
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy
import pytest
import torch

from torch_katas import status
from torch_katas.runtime import isolation
from torch_katas.runtime.timelimit import TimeLimit
from torch_katas.store import FOLDER, STATUS_KEY, Store

# Each test here runs pytest (or the katas command) in a process of its own, or a kata's whole
# test file inside this one: on a busy 2-core machine that can take longer than the suite's
# 60 s limit per test, so these tests have a limit of their own.
pytestmark = pytest.mark.timeout(600)

TIMEOUT = 1.5  # seconds per test, and per stub import: well under kata 9's matrix product, and over
# what an ordinary test takes on a busy machine
ROOT = Path(__file__).resolve().parents[1]
# Subprocesses import the harness of this checkout, not whichever one is installed.
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

KATAS = {
    1: ("q01_total", "Sum with torch"),
    2: ("q02_syntax", "A stub with a syntax error"),
    3: ("q03_exits", "A stub that exits at import"),
    4: ("q04_hangs", "A stub that never finishes importing"),
    5: ("q05_dtype", "A stub that changes torch settings at import"),
    6: ("q06_patches", "A stub that replaces torch functions"),
    7: ("q07_skips", "A stub that skips what it cannot do"),
    8: ("q08_loops", "A function that never returns"),
    9: ("q09_slow_op", "One long operation"),
    10: ("q10_raises", "A stub whose import fails"),
    11: ("q11_threads", "A stub that leaves a thread running at import"),
    12: ("q12_test_thread", "A function that leaves a thread running"),
    13: ("q13_rebinds", "A stub that rebinds library constants"),
    14: ("q14_later", "A kata solved, tested after the others"),
    15: ("q15_segfaults", "A function that crashes the process"),
    16: ("q16_exits", "A stub that ends the process at import"),
}

SOLVED_STUB = """
import torch.nn.functional as F

def total(x):
    return x.sum()

def mse(a, b):
    return F.mse_loss(a, b)
"""

# Each test fails if global state leaks in from another kata's import.
SOLVED_TESTS = """
import torch
from katas.q01_total import mse, total

def test_total_is_float32_with_a_gradient(device):
    x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    result = total(x)
    assert result.item() == 3.0 and result.dtype == torch.float32
    result.backward()
    assert torch.equal(x.grad, torch.ones(2, device=device))

def test_mse_matches_the_formula(device):
    a, b = torch.zeros(3, device=device), torch.tensor([1.0, 2.0, 3.0], device=device)
    assert abs(mse(a, b).item() - 14 / 3) < 1e-6
"""

UNTOUCHED = '''
def answer(x):
    """Return x."""
    # TODO
    raise NotImplementedError
'''

BROKEN = {
    "q02_syntax": "import torch\n\ndef answer(x)\n    return x\n",
    "q03_exits": "import sys\n\nsys.exit(0)\n\ndef answer(x):\n    return x\n",
    "q04_hangs": "count = 0\nwhile True: count += 1\n",
    "q05_dtype": (
        "import torch\n\n"
        "torch.set_default_dtype(torch.float64)\n"
        "torch.set_grad_enabled(False)\n\n"
        "def answer(x):\n    return x\n"
    ),
    "q06_patches": (
        "import torch\nimport torch.nn.functional as F\n\n"
        "torch.Tensor.sum = lambda self, *args, **kwargs: torch.tensor(0.0)\n"
        "F.mse_loss = lambda *args, **kwargs: torch.tensor(0.0)\n\n"
        "def answer(x):\n    return x\n"
    ),
    "q07_skips": (
        "import unittest\n\nimport pytest\n\n"
        "def answer(x):\n"
        "    if x.numel() == 2:\n"
        "        pytest.skip('too many elements for me')\n"
        "    if x.numel() == 3:\n"
        "        raise unittest.SkipTest('three is too many')\n"
        "    return x\n"
    ),
    "q08_loops": "def answer(x):\n    while True: pass\n",
    # One matrix product of seconds: the time limit's signal waits until it returns.
    "q09_slow_op": (
        "import torch\n\ndef answer(x):\n    big = torch.ones(8000, 8000)\n    return big @ big\n"
    ),
    "q10_raises": "import torch\nimport torchvision_of_another_world\n",
    # Threads that keep changing torch's state, started at import and in a test.
    "q11_threads": (
        "import threading, time\nimport torch\n\n"
        "def meddle():\n"
        "    while True:\n"
        "        torch.set_default_dtype(torch.float64)\n"
        "        time.sleep(0.001)\n\n"
        "threading.Thread(target=meddle, daemon=True).start()\n\n"
        "def answer(x):\n    return x\n"
    ),
    "q12_test_thread": (
        "import threading, time\nimport torch\n\n"
        "def meddle():\n"
        "    while True:\n"
        "        torch.set_default_dtype(torch.float64)\n"
        "        torch.manual_seed(123)\n"
        "        time.sleep(0.001)\n\n"
        "def answer(x):\n"
        "    threading.Thread(target=meddle, daemon=True).start()\n"
        "    return x\n"
    ),
    "q13_rebinds": (
        "import math\nimport torch\n\nmath.pi = 3\ntorch.pi = 3.0\n\ndef answer(x):\n    return x\n"
    ),
    # A bad pointer through ctypes stands in for a crashing extension or a fatal CUDA error.
    "q15_segfaults": (
        "import ctypes\n\ndef answer(x):\n"
        "    if x.numel() == 2:\n"
        "        ctypes.string_at(0)\n"
        "    return x\n"
    ),
    "q16_exits": "import os\n\nos._exit(0)\n",
}

# A kata the learner solved, whose tests run after the broken ones: they fail if the state
# those changed (the default dtype, the random generators, library constants) leaks in.
LATER_STUB = "import math\nimport torch\n\ndef constants():\n    return math.pi, torch.pi\n"
LATER_TESTS = """
import math
import torch
from katas.q14_later import constants

def test_library_constants_are_intact(device):
    assert constants() == (math.acos(-1), math.acos(-1))

def test_torch_state_is_the_harness_one(device):
    constants()
    assert torch.get_default_dtype() == torch.float32
    expected = torch.rand(3, generator=torch.Generator().manual_seed(0))
    assert torch.equal(torch.rand(3), expected), "every test starts from seed 0"
"""


def kata_tests(module: str) -> str:
    return textwrap.dedent(f"""
        import torch
        from katas.{module} import answer
        from torch_katas.testing import assert_no_python_loops

        def test_one(device):
            x = torch.ones(2, device=device)
            assert torch.equal(answer(x), x)
            assert_no_python_loops(answer)

        def test_two(device):
            assert answer(torch.zeros(1, device=device)).shape == (1,)

        def test_three(device):
            assert answer(torch.ones(3, device=device)).shape == (3,)
    """)


def make_project(root: Path) -> None:
    (root / "katas").mkdir()
    (root / "katas" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text(
        textwrap.dedent("""
            [tool.pytest.ini_options]
            python_files = ["*_test.py"]
            pythonpath = ["."]
            addopts = ["--strict-markers"]
            filterwarnings = ["error"]
        """)
    )
    (root / "conftest.py").write_text('pytest_plugins = ["torch_katas.plugin"]\n')
    entries = [
        f'[[kata]]\nnumber = {number}\nmodule = "{module}"\ntitle = "{title}"\n'
        f'topic = "isolation"\ndifficulty = 1\nhints = ["one", "two"]\n'
        for number, (module, title) in KATAS.items()
    ]
    (root / "katas" / "katas.toml").write_text("\n".join(entries))
    (root / "katas" / "q01_total.py").write_text(SOLVED_STUB)
    (root / "katas" / "q01_total_test.py").write_text(SOLVED_TESTS)
    (root / "katas" / "q14_later.py").write_text(LATER_STUB)
    (root / "katas" / "q14_later_test.py").write_text(LATER_TESTS)
    for module in BROKEN:
        (root / "katas" / f"{module}.py").write_text(UNTOUCHED)
        (root / "katas" / f"{module}_test.py").write_text(kata_tests(module))


def run_pytest(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env=ENV,
    )


def statuses(root: Path) -> dict[str, str]:
    return json.loads(Store(root / FOLDER).path(STATUS_KEY).read_text())


@dataclass
class BrokenRun:
    before: dict[str, str]  # the statuses the learner had earned
    after: dict[str, str]
    output: str
    returncode: int
    cases: dict[str, tuple[str, str]]  # "q02_syntax_test.py::test_one[cpu]" -> (outcome, message)

    def of(self, module: str) -> dict[str, tuple[str, str]]:
        return {name: case for name, case in self.cases.items() if name.startswith(module)}


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> BrokenRun:
    root = tmp_path_factory.mktemp("broken")
    make_project(root)
    run_pytest(root, "katas", "--device", "cpu")
    before = statuses(root)
    for module, text in BROKEN.items():
        (root / "katas" / f"{module}.py").write_text(text)
    done = run_pytest(
        root, "katas", "--device", "cpu", "--timeout", str(TIMEOUT), "--junitxml", "report.xml"
    )
    cases = {}
    for case in ET.parse(root / "report.xml").iter("testcase"):
        problem = next((child for child in case if child.tag != "properties"), None)
        outcome = "passed" if problem is None else problem.tag
        message = "" if problem is None else problem.get("message", "")
        name = case.get("classname").split(".")[-1] + ".py::" + case.get("name")
        cases[name] = (outcome, message)
    return BrokenRun(before, statuses(root), done.stdout + done.stderr, done.returncode, cases)


def test_the_learner_had_solved_kata_1_before_breaking_the_others(broken):
    assert broken.before["q01_total"] == status.SOLVED
    assert broken.before["q02_syntax"] == status.NOT_STARTED


def test_every_kata_runs_and_the_solved_one_keeps_its_verdict_and_status(broken):
    assert "error during collection" not in broken.output
    assert broken.returncode == pytest.ExitCode.TESTS_FAILED
    for solved in ("q01_total", "q14_later"):
        assert set(broken.of(solved).values()) == {("passed", "")}, solved
        assert broken.after[solved] == status.SOLVED
    assert len(broken.cases) == 2 * 2 + 3 * len(BROKEN), "every test of every kata ran"
    for module in (
        "q02_syntax",
        "q03_exits",
        "q04_hangs",
        "q08_loops",
        "q09_slow_op",
        "q10_raises",
        "q11_threads",
        "q15_segfaults",
        "q16_exits",
    ):
        assert {outcome for outcome, _ in broken.of(module).values()} == {"failure"}, module
        assert broken.after[module] == status.PARTLY
    # Their own functions are right once the state they changed is put back.
    assert broken.after["q12_test_thread"] == status.PARTLY  # its teardowns fail: see below
    for module in ("q05_dtype", "q06_patches", "q13_rebinds"):
        assert {outcome for outcome, _ in broken.of(module).values()} == {"passed"}, module


@pytest.mark.parametrize(
    ("module", "message"),
    [
        (
            "q02_syntax",
            "q02 A stub with a syntax error: katas/q02_syntax.py line 3 does not import: "
            "SyntaxError: expected ':'",
        ),
        (
            "q03_exits",
            "q03 A stub that exits at import: katas/q03_exits.py line 3 called sys.exit(0) "
            "while importing",
        ),
        (
            "q04_hangs",
            "q04 A stub that never finishes importing: katas/q04_hangs.py line 2 was still "
            f"running after {TIMEOUT} s of importing; an import must not loop or wait "
            "(do the work inside your functions)",
        ),
        (
            "q10_raises",
            "q10 A stub whose import fails: katas/q10_raises.py line 2 does not import: "
            "ModuleNotFoundError: No module named 'torchvision_of_another_world'",
        ),
    ],
)
def test_a_stub_that_does_not_import_fails_its_own_tests_with_one_line(broken, module, message):
    assert set(broken.of(module).values()) == {("failure", message)}
    digest = " ".join(broken.output.split("what to fix")[1].split())
    assert digest.count(message.split(": ", 1)[1]) == 1, "shown in full once, in the digest"
    lines = [line for line in broken.output.splitlines() if line.startswith(f"  {module[:3]}  ")]
    assert len(lines) == 1, lines
    assert lines[0].endswith("partly solved 0/3: does not import (see above)")


def test_state_changed_at_import_is_undone_and_the_stub_named(broken):
    output = " ".join(broken.output.split())
    assert "warning: katas/q13_rebinds.py changed torch.pi, math.pi at import" in output
    assert (
        "warning: katas/q05_dtype.py changed the default dtype, grad mode at import; "
        "torch-katas undid that for the other katas" in output
    )
    assert (
        "warning: katas/q06_patches.py changed torch.Tensor.sum, "
        "torch.nn.functional.mse_loss at import" in output
    )


def test_a_thread_left_running_fails_its_kata_and_reaches_no_other(broken):
    for case, (outcome, message) in broken.of("q11_threads").items():
        assert outcome == "failure", case
        assert "katas/q11_threads.py started a thread while importing that was still running" in (
            message
        )
    for case, (outcome, message) in broken.of("q12_test_thread").items():
        assert outcome == "error", case  # at teardown, once the test itself is over
        assert "katas/q12_test_thread.py left a thread running after this test" in message
    assert broken.after["q14_later"] == status.SOLVED


def test_a_crash_or_hard_exit_ends_only_its_kata(broken):
    assert broken.returncode == pytest.ExitCode.TESTS_FAILED, "never exit status 0"
    crashed = broken.cases["q15_segfaults_test.py::test_one[cpu]"]
    assert crashed == (
        "failure",
        "q15 A function that crashes the process: katas/q15_segfaults.py line 5 crashed the "
        "test process (SIGSEGV) during this test; the other katas ran on in a new process",
    )
    for case in ("test_two[cpu]", "test_three[cpu]"):
        outcome, message = broken.cases[f"q15_segfaults_test.py::{case}"]
        assert outcome == "failure", case
        assert message.startswith(
            "q15 A function that crashes the process: not run, because an earlier test of "
            "this kata crashed the test process (SIGSEGV) (katas/q15_segfaults_test.py::"
            "test_one[cpu]); fix that one and run again"
        ), message
    assert set(broken.of("q16_exits").values()) == {
        (
            "failure",
            "q16 A stub that ends the process at import: katas/q16_exits.py ended the test "
            "process (exit status 0, as os._exit does) while importing",
        )
    }
    lines = broken.output.splitlines()
    assert (
        "torch-katas: q15: katas/q15_segfaults.py line 5 crashed the test process (SIGSEGV) in "
        "test_one[cpu]; the other katas go on in a new process"
    ) in lines
    assert "Fatal Python error" not in broken.output, "one line, not faulthandler's dump"


def test_a_skip_raised_by_the_answer_counts_as_a_failure(broken):
    outcome, message = broken.cases["q07_skips_test.py::test_one[cpu]"]
    assert outcome == "failure"
    assert message == (
        "q07 A stub that skips what it cannot do: katas/q07_skips.py line 7 skipped this test "
        "(too many elements for me); only the harness may skip a kata's tests, so this "
        "counts as a failure"
    )
    outcome, message = broken.cases["q07_skips_test.py::test_three[cpu]"]
    assert outcome == "failure", "unittest.SkipTest is a skip too"
    assert "katas/q07_skips.py line 9 skipped this test (three is too many)" in message
    assert broken.cases["q07_skips_test.py::test_two[cpu]"] == ("passed", "")
    assert broken.after["q07_skips"] == status.PARTLY


def test_after_a_timeout_the_katas_other_tests_fail_at_once(broken):
    cases = broken.of("q08_loops")
    assert cases["q08_loops_test.py::test_one[cpu]"] == (
        "failure",
        f"q08 A function that never returns: still running after the {TIMEOUT} s time limit, "
        "at katas/q08_loops.py line 2: while True: pass",
    )
    for name in ("test_two[cpu]", "test_three[cpu]"):
        assert cases[f"q08_loops_test.py::{name}"] == (
            "failure",
            "q08 A function that never returns: not run, because an earlier test of this kata "
            "timed out (katas/q08_loops_test.py::test_one[cpu]); fix that one and run again",
        )
    (line,) = [line for line in broken.output.splitlines() if line.startswith("  q08  ")]
    assert line.endswith("  partly solved 0/3: timed out; 2 more stopped")


def test_a_long_operation_that_ends_after_the_time_limit_points_at_its_own_line(broken):
    outcome, message = broken.cases["q09_slow_op_test.py::test_one[cpu]"]
    assert outcome == "failure"
    # The signal only lands once the product returns, in the harness's loop check; the
    # failure still names the learner's line that was running when the time ran out.
    assert message == (
        f"q09 One long operation: still running after the {TIMEOUT} s time limit, "
        "at katas/q09_slow_op.py line 5: return big @ big"
    )
    assert "assert_no_python_loops" not in message


def interrupted_project(pytester, monkeypatch) -> Path:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    root = pytester.path
    make_project(root)
    (root / "katas" / "q02_syntax.py").write_text("def answer(x):\n    return x\n")
    for module in [m for m in [*BROKEN, "q14_later"] if m != "q02_syntax"]:
        (root / "katas" / f"{module}.py").unlink()
        (root / "katas" / f"{module}_test.py").unlink()
    return root


def test_an_interrupted_run_records_nothing_as_solved_and_spares_unfinished_katas(
    pytester, monkeypatch
):
    root = interrupted_project(pytester, monkeypatch)
    # Kata 1 half right, kata 2 solved.
    (root / "katas" / "q01_total.py").write_text(
        SOLVED_STUB.replace("F.mse_loss(a, b)", "F.l1_loss(a, b)")
    )
    pytester.runpytest_subprocess("katas", "--device", "cpu", "-p", "no:xdist")
    assert statuses(root) == {"q01_total": status.PARTLY, "q02_syntax": status.SOLVED}
    # Now kata 1 is right, and Ctrl-C comes in the middle of kata 2.
    (root / "katas" / "q01_total.py").write_text(SOLVED_STUB)
    (root / "katas" / "q02_syntax.py").write_text(
        "import os, signal\n\n"
        "def answer(x):\n"
        "    if x.numel() == 1:\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "    return x\n"
    )
    result = pytester.runpytest_subprocess("katas", "--device", "cpu", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "  q01  * solved 2/2",
            "Interrupted: no kata was recorded as solved, and katas that did not finish keep "
            "their status",
        ]
    )
    assert statuses(root) == {"q01_total": status.PARTLY, "q02_syntax": status.SOLVED}


def test_a_hard_exit_in_a_test_ends_only_its_kata(pytester, monkeypatch):
    root = interrupted_project(pytester, monkeypatch)
    pytester.runpytest_subprocess("katas", "--device", "cpu", "-p", "no:xdist")
    assert statuses(root) == {"q01_total": status.SOLVED, "q02_syntax": status.SOLVED}
    (root / "katas" / "q02_syntax.py").write_text("import os\n\ndef answer(x):\n    os._exit(0)\n")
    result = pytester.runpytest_subprocess("katas", "--device", "cpu", "-p", "no:xdist")
    assert result.ret == 1, "never exit status 0"
    output = " ".join(result.stdout.str().split())
    assert (
        "torch-katas: q02: katas/q02_syntax.py ended the test process (exit status 0, as "
        "os._exit does) in test_one[cpu]; the other katas go on in a new process" in output
    )
    assert (
        "1 test: katas/q02_syntax.py ended the test process (exit status 0, as os._exit does) "
        "during this test; the other katas ran on in a new process" in output
    )
    assert statuses(root) == {"q01_total": status.SOLVED, "q02_syntax": status.PARTLY}


def test_an_exit_outside_any_kata_is_said_so(pytester, monkeypatch):
    root = interrupted_project(pytester, monkeypatch)
    (root / "conftest.py").write_text(
        (root / "conftest.py").read_text()
        + "\n\ndef pytest_collection_finish(session):\n    import os\n\n    os._exit(0)\n"
    )
    result = pytester.runpytest_subprocess("katas", "--device", "cpu", "-p", "no:xdist")
    assert result.ret != 0, "never exit status 0"
    output = " ".join(result.stdout.str().split())
    assert (
        "torch-katas: code outside any kata ended the test process (exit status 0, as "
        "os._exit does)" in output
    )


def test_a_damaged_progress_cache_keeps_what_can_be_read_and_says_so(pytester, monkeypatch):
    root = interrupted_project(pytester, monkeypatch)
    pytester.runpytest_subprocess("katas/q01_total_test.py", "--device", "cpu", "-p", "no:xdist")
    path = Store(root / FOLDER).path(STATUS_KEY)
    path.write_text('{\n  "q01_total": "solved",\n  "q02_syntax": "partly so')
    result = pytester.runpytest_subprocess(
        "katas/q02_syntax_test.py", "--device", "cpu", "-p", "no:xdist"
    )
    result.stdout.fnmatch_lines(
        ["warning: .katas-progress/status.json was damaged; kept what was readable"]
    )
    assert statuses(root) == {"q01_total": status.SOLVED, "q02_syntax": status.SOLVED}


# ---- TimeLimit: one watchdog thread, woken only for a deadline sooner than its own


class Expired(Exception):
    pass


def expire():
    raise Expired


def runs_until_expired(seconds: float) -> float:
    """Sleep under a time limit of `seconds`; how long it took the limit to stop it."""
    start = time.monotonic()
    with pytest.raises(Expired), TimeLimit(seconds, expire):
        time.sleep(10)
    return time.monotonic() - start


def test_a_sooner_limit_inside_a_later_one_fires_on_time():
    with TimeLimit(30, expire):
        assert runs_until_expired(0.2) < 2


def test_a_limit_after_one_that_ended_early_fires_on_time():
    # The watchdog waits for the first deadline, then finds the second one still armed.
    with TimeLimit(0.3, expire):
        pass
    assert 0.5 <= runs_until_expired(0.6) < 2


def test_limits_one_after_another_each_fire():
    assert runs_until_expired(0.2) < 2
    assert runs_until_expired(0.2) < 2


def test_a_test_cut_off_by_ctrl_c_is_never_counted_as_passed(pytester, monkeypatch):
    root = interrupted_project(pytester, monkeypatch)
    (root / "katas" / "q02_syntax_test.py").write_text(
        "import torch\nfrom katas.q02_syntax import answer\n\n"
        "def test_only(device):\n    answer(torch.ones(1, device=device))\n"
    )
    (root / "katas" / "q02_syntax.py").write_text(
        "import os, signal\n\ndef answer(x):\n    os.kill(os.getpid(), signal.SIGINT)\n"
    )
    result = pytester.runpytest_subprocess("katas", "--device", "cpu", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    (line,) = [line for line in result.stdout.lines if line.startswith("  q02  ")]
    assert "0/1" in line and "1/1" not in line, line


def test_the_first_temporary_name_is_tempfiles_own_change_and_a_learners_is_not():
    # tempfile makes its name generator on first use, in whichever kata's test comes first.
    made = type(tempfile._get_candidate_names())()
    assert isolation.by_a_library("tempfile", tempfile, "_name_sequence", None, made)
    assert not isolation.by_a_library("tempfile", tempfile, "_name_sequence", None, iter("ab"))
    assert not isolation.by_a_library("tempfile", tempfile, "_name_sequence", made, type(made)())


def test_the_guard_puts_back_names_assigned_on_modules_and_classes():
    guard = isolation.GlobalState()
    tau, mean = math.tau, torch.Tensor.__dict__.get("mean", isolation.MISSING)
    try:
        math.tau = 6  # on a guarded module: counted as it is assigned
        torch.Tensor.mean = lambda self: 0  # on a guarded class: compared after every test
        assert sorted(guard.restore()) == ["math.tau", "torch.Tensor.mean"]
        assert math.tau == tau and torch.Tensor.__dict__.get("mean", isolation.MISSING) is mean
        assert guard.restore() == [], "nothing changed since"
    finally:
        math.tau = tau
        if mean is isolation.MISSING and "mean" in vars(torch.Tensor):
            del torch.Tensor.mean


def test_the_guard_puts_back_the_attention_switches():
    guard = isolation.GlobalState()
    try:
        torch.backends.mha.set_fastpath_enabled(False)
        torch.backends.cuda.enable_math_sdp(False)
        assert sorted(guard.restore()) == ["the attention fast path", "the attention kernels"]
        assert torch.backends.mha.get_fastpath_enabled()
        assert torch.backends.cuda.math_sdp_enabled()
    finally:
        torch.backends.mha.set_fastpath_enabled(True)
        torch.backends.cuda.enable_math_sdp(True)


def test_the_guard_and_settings_kept_put_back_decimals_context():
    # A precision raised by hand changes every later Decimal result of the process; the
    # flags its arithmetic raises are no setting, and a local context changes nothing.
    from torch_katas import testing

    guard = isolation.GlobalState()
    try:
        decimal.getcontext().prec = 100
        decimal.getcontext().traps[decimal.Inexact] = True
        assert guard.restore() == ["Python's decimal context"]
        assert decimal.getcontext().prec == 28 and not decimal.getcontext().traps[decimal.Inexact]
        with pytest.raises(AssertionError, match="decimal context"), testing.settings_kept("f()"):
            decimal.getcontext().rounding = decimal.ROUND_FLOOR
        assert decimal.getcontext().rounding == decimal.ROUND_HALF_EVEN
        with testing.settings_kept("f()"), decimal.localcontext(prec=100):
            decimal.Decimal(1) / decimal.Decimal(3)
        decimal.Decimal(1) / decimal.Decimal(3)  # raises the Inexact and Rounded flags
        assert guard.restore() == []
    finally:
        decimal.setcontext(decimal.Context())


def test_the_guard_finds_a_name_written_into_a_modules_dictionary_at_the_files_end():
    guard = isolation.GlobalState()
    try:
        vars(math)["tau"] = 6  # no assignment to count: found when every name is compared
        assert guard.restore(everything=True) == ["math.tau"]
        assert math.tau == 2 * math.pi
        math.__class__ = types.ModuleType  # the counting class put back: compared again
        vars(math)["tau"] = 6
        assert guard.restore() == ["math.tau"] and math.tau == 2 * math.pi
        assert type(math) is not types.ModuleType, "watched again"
    finally:
        vars(math)["tau"] = 2 * math.pi


def test_each_device_kind_declares_how_its_random_state_is_read_and_put_back():
    from torch_katas import devices

    for name, kind in devices.KINDS.items():
        own = kind.seed is not None  # a kind that seeds a generator of its own
        declared = kind.get_rng_state is not None and kind.set_rng_state is not None
        assert own == declared, f"{name}: seed, get_rng_state and set_rng_state go together"


def test_the_run_puts_back_each_kinds_random_state_through_its_row(monkeypatch):
    from torch_katas import devices

    states = {0: torch.tensor([1]), 1: torch.tensor([2])}
    put_back = {}
    row = devices.Kind(
        "fake",
        available=lambda: True,
        count=lambda: 2,
        rng_devices=lambda: [0, 1],
        seed=lambda seed: states.update({0: torch.tensor([seed]), 1: torch.tensor([seed])}),
        get_rng_state=lambda index: states[index].clone(),
        set_rng_state=lambda state, index: put_back.update({index: state}),
    )
    monkeypatch.setitem(devices.KINDS, "fake", row)
    saved = isolation.RandomState()
    try:
        isolation.seed_everything(7)
        assert states[1].item() == 7
    finally:
        saved.restore()
    assert {index: state.item() for index, state in put_back.items()} == {0: 1, 1: 2}


def test_ctrl_c_in_the_tests_of_an_unwritten_stub_still_says_what_to_write(pytester, monkeypatch):
    root = interrupted_project(pytester, monkeypatch)
    (root / "katas" / "q02_syntax.py").write_text(
        "def answer(x):\n    # TODO\n    raise NotImplementedError\n"
    )
    (root / "katas" / "q02_syntax_test.py").write_text(
        "import os, signal\n\nimport torch\nfrom katas.q02_syntax import answer\n\n"
        "def test_one(device):\n    answer(torch.ones(1, device=device))\n\n"
        "def test_two(device):\n    os.kill(os.getpid(), signal.SIGINT)\n"
        "    answer(torch.ones(1, device=device))\n\n"
        "def test_three(device):\n    answer(torch.ones(1, device=device))\n"
    )
    result = pytester.runpytest_subprocess("katas", "--device", "cpu", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    (line,) = [line for line in result.stdout.lines if line.startswith("  q02  ")]
    assert line.endswith("not started: write answer"), line
    assert "run it again" not in result.stdout.str()


def test_the_guard_puts_back_torch_compilers_configuration():
    import torch._dynamo.config
    import torch._inductor.config

    guard = isolation.GlobalState()
    try:
        torch.compiler.config.assume_static_by_default = False
        torch._dynamo.config.recompile_limit = 1_000_000
        torch._inductor.config.triton.cudagraphs = True  # a nested entry
        assert guard.restore() == ["torch.compiler's configuration"]
        assert torch.compiler.config.assume_static_by_default
        assert torch._dynamo.config.recompile_limit == 8
        assert not torch._inductor.config.triton.cudagraphs
        assert guard.restore() == [], "a value put back is no change"
        with torch.compiler.config.patch(assume_static_by_default=False):
            pass  # a patch puts its values back itself
        assert guard.restore() == []
    finally:
        torch.compiler.config.assume_static_by_default = True
        torch._dynamo.config.recompile_limit = 8
        torch._inductor.config.triton.cudagraphs = False


# -- process-wide registries and stacks: each left changed is put back and named ----------------


def _optimizer_step_hook() -> None:
    optimizer = sys.modules["torch.optim.optimizer"]
    optimizer.register_optimizer_step_pre_hook(lambda opt, args, kwargs: None)


def _module_hooks() -> None:
    module = sys.modules["torch.nn.modules.module"]
    module.register_module_forward_hook(lambda m, inputs, output: output)
    module.register_module_full_backward_hook(lambda m, grad_in, grad_out: None)


def _saved_tensors_hooks() -> None:
    torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()


def _autocast_left_entered() -> None:
    # enabled=False changes no flag, only the nesting autocast keeps.
    torch.autocast("cpu", dtype=torch.bfloat16, enabled=False).__enter__()


def _function_mode() -> None:
    torch.overrides.TorchFunctionMode().__enter__()


_KEPT: list[object] = []


def _inference_mode() -> None:
    _KEPT.append(torch.inference_mode())
    _KEPT[-1].__enter__()  # type: ignore[attr-defined]


def _flush_denormal() -> None:
    torch.set_flush_denormal(True)


def _numpy_formatter() -> None:
    # The function runs whenever NumPy prints an array (a failure message), long after.
    numpy.set_printoptions(formatter={"all": lambda value: "0"})


class _Handler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:  # runs on every record of the process
        pass


def _root_handler() -> None:
    logging.getLogger().addHandler(_Handler())


def _constraint_registry() -> None:
    constraints = torch.distributions.constraints
    torch.distributions.biject_to.register(constraints.positive)(
        lambda constraint: torch.distributions.transforms.ExpTransform()
    )


LEFT_CHANGED = {
    "flushing denormals": _flush_denormal,
    "NumPy's print formatters": _numpy_formatter,
    "the root logger's handlers of other classes": _root_handler,
    "torch.distributions' constraint registries": _constraint_registry,
    "the global optim hooks (torch.optim.optimizer)": _optimizer_step_hook,
    "the global nn hooks (torch.nn.modules.module)": _module_hooks,
    "the saved-tensor hooks": _saved_tensors_hooks,
    "autocast": _autocast_left_entered,
    "torch's mode stacks": _function_mode,
    "inference mode": _inference_mode,
}


def test_print_options_and_logging_setup_of_the_library_alone_are_no_concern():
    # An honest answer's logging.basicConfig or print precision: nothing of its own runs later.
    before = isolation.record()
    handler = logging.StreamHandler()  # what basicConfig adds
    try:
        logging.getLogger().addHandler(handler)
        numpy.set_printoptions(precision=3)
        torch.set_printoptions(precision=2)
        assert isolation.put_back(before) == []
    finally:
        numpy.set_printoptions(precision=8)
        torch.set_printoptions(profile="default")
        for handler in [
            h for h in logging.getLogger().handlers if type(h) is logging.StreamHandler
        ]:
            logging.getLogger().removeHandler(handler)


@pytest.mark.parametrize("name", sorted(LEFT_CHANGED))
def test_a_registry_left_changed_is_put_back_and_named(name):
    before = isolation.record()
    LEFT_CHANGED[name]()
    # Inference mode carries autograd's multithreading flag with it: named as well.
    assert isolation.put_back(before)[0] == name
    assert isolation.put_back(before) == []
    x = torch.ones(3, requires_grad=True)
    (x * x).sum().backward()  # no hook of the block's is left to run
    assert x.grad is not None and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_the_state_guard_and_settings_kept_name_a_registry_left_changed():
    from torch_katas import testing

    guard = isolation.GlobalState()
    _optimizer_step_hook()
    assert "the global optim hooks (torch.optim.optimizer)" in guard.restore()
    with pytest.raises(AssertionError, match="global nn hooks"), testing.settings_kept("f()"):
        _module_hooks()
    assert not sys.modules["torch.nn.modules.module"]._global_forward_hooks
