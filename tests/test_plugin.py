"""The harness plugin's behaviour, on a small kata project made for each test."""

import gc
import json
import random
import textwrap

import numpy
import pytest
import torch

from torch_katas import devices, status
from torch_katas.store import FOLDER, HINTS_KEY, STATUS_KEY, Store

# Each test here runs pytest (or the katas command) in a process of its own, or a kata's whole
# test file inside this one: on a busy 2-core machine that can take longer than the suite's
# 60 s limit per test, so these tests have a limit of their own.
pytestmark = pytest.mark.timeout(600)

CATALOG = """
[[kata]]
number = 1
module = "q01_add"
title = "Add two tensors"
topic = "arithmetic"
difficulty = 1
hints = ["Tensors add with +.", "return a + b"]

[[kata]]
number = 2
module = "q02_double"
title = "Double a tensor"
topic = "scaling"
difficulty = 1
hints = ["Multiply by two.", "return 2 * x"]
"""

STUB_ADD = '''
def add(a, b):
    """Return a + b."""
    # TODO: add them
    raise NotImplementedError
'''

STUB_DOUBLE = '''
def double(x):
    """Return 2 * x."""
    # TODO: double it
    raise NotImplementedError
'''

TEST_ADD = """
import torch
from katas.q01_add import add

def test_adds(device):
    a = torch.ones(2, device=device)
    assert torch.equal(add(a, a), torch.full((2,), 2.0, device=device))

def test_adds_negative(device):
    a = torch.ones(2, device=device)
    assert torch.equal(add(a, -a), torch.zeros(2, device=device))
"""

TEST_DOUBLE = """
import torch
from katas.q02_double import double

def test_doubles(device):
    assert double(torch.ones(1, device=device)).item() == 2.0
"""


@pytest.fixture
def project(kata_harness):
    """A two-kata project laid out as torch-katas is, using the real plugin."""
    pytester = kata_harness
    pytester.mkpydir("solutions")
    (pytester.path / "katas" / "katas.toml").write_text(CATALOG)
    files = {
        "katas/q01_add.py": STUB_ADD,
        "katas/q01_add_test.py": TEST_ADD,
        "katas/q02_double.py": STUB_DOUBLE,
        "katas/q02_double_test.py": TEST_DOUBLE,
        "solutions/q01_add.py": "def add(a, b):\n    return a + b\n",
        "solutions/q02_double.py": "def double(x):\n    return 2 * x\n",
        # Right for positive inputs only: passes one test of two.
        "half_right/q01_add.py": "def add(a, b):\n    return a.abs() + b.abs()\n",
    }
    for name, text in files.items():
        path = pytester.path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return pytester


def test_header_names_the_answers_under_test_and_the_devices(project):
    result = project.runpytest("katas")
    result.stdout.fnmatch_lines(
        [
            "torch-katas: testing your answers (katas/)",
            f"torch-katas: devices {devices.present()[0]}*",
        ]
    )
    if devices.missing():
        result.stdout.fnmatch_lines([f"*; not found: {', '.join(devices.missing())}"])
    result = project.runpytest("katas", "--solutions")
    result.stdout.fnmatch_lines(["torch-katas: testing reference answers (solutions/)"])


def test_an_unimplemented_stub_fails_with_one_short_line(project):
    reports = project.inline_run("katas").getfailures()
    assert len(reports) == 3 * len(devices.present())
    assert {str(report.longrepr) for report in reports if "q01_add" in report.nodeid} == {
        "q01 Add two tensors: add() is not implemented yet; "
        "open katas/q01_add.py and replace its NotImplementedError"
    }


@pytest.mark.parametrize("verbosity", [[], ["-v"], ["-q"], ["--tb=long"]])
def test_each_failure_records_its_one_line_message_as_data_at_any_verbosity(project, verbosity):
    (project.path / "katas" / "q01_add.py").write_text(
        "def add(a, b):\n    assert a.ndim == 7, 'add wants seven dimensions'\n"
    )
    reports = project.inline_run("katas", "--device", "cpu", *verbosity).getfailures()
    messages = {
        report.nodeid.split("::")[1]: dict(report.user_properties)[status.MESSAGE]
        for report in reports
    }
    assert messages == {
        "test_adds[cpu]": "add wants seven dimensions",
        "test_adds_negative[cpu]": "add wants seven dimensions",
        "test_doubles[cpu]": "double() is not implemented yet; "
        "open katas/q02_double.py and replace its NotImplementedError",
    }


def test_torch_raising_not_implemented_in_written_code_is_a_real_failure(project):
    # torch has no floor division of complex numbers: its NotImplementedError is a mistake
    # in the learner's code, not an unwritten stub.
    (project.path / "katas" / "q01_add.py").write_text(
        "import torch\n\ndef add(a, b):\n"
        "    return torch.div(a.to(torch.complex64), b, rounding_mode='floor')\n"
    )
    reports = project.inline_run("katas/q01_add_test.py", "--device", "cpu").getfailures()
    assert len(reports) == 2
    for report in reports:
        assert "not implemented yet" not in str(report.longrepr)
        assert "ComplexFloat" in str(report.longrepr)


def test_a_kata_not_started_is_one_line_of_the_functions_to_write(project):
    result = project.runpytest("katas", "--device", "cpu")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*= torch-katas progress =*",
            "arithmetic: 0 of 1 solved",
            "  q01  Add two tensors  not started: write add",
            "scaling: 0 of 1 solved",
            "  q02  Double a tensor  not started: write double",
            "Solved 0 of 2 katas (0 partly solved, 2 not started)",
            "Start here: q01 Add two tensors, in katas/q01_add.py",
            "  run its tests: pytest katas/q01_add_test.py",
        ]
    )
    output = result.stdout.str()
    assert "FAILURES" not in output, "the not-implemented failures are summed up, not listed"
    assert "Traceback" not in output
    assert "raise NotImplementedError" not in output
    assert "hint" not in output.lower()
    # The progress line: one `n` per kata not started, not one letter per test.
    result.stdout.re_match_lines([r"^nn +\[100%\]$"])
    assert result.parseoutcomes()["failed"] == 3, "each test still counts as failed"


def test_failures_of_started_katas_are_shown_first_failing_kata_first(project):
    (project.path / "katas" / "q02_double.py").write_text("def double(x):\n    return 3 * x\n")
    (project.path / "katas" / "q01_add.py").write_text(
        "def add(a, b):\n    return a.abs() + b.abs()\n"
    )
    result = project.runpytest("katas", "--device", "cpu")
    output = result.stdout.str()
    failures = output[output.index("= what to fix =") : output.index("torch-katas progress")]
    assert failures.index("q01 Add two tensors") < failures.index("q02 Double a tensor")
    assert "checked by: adds negative" in failures, "each cause names the promise it broke"
    result.stdout.fnmatch_lines(
        [
            "  q01  Add two tensors  partly solved 1/2: 1 failing",
            "  q02  Double a tensor  partly solved 0/1: 1 failing",
            "Next: q01 Add two tensors, in katas/q01_add.py",
        ]
    )


def test_the_summary_fits_80_columns_and_q_shortens_it(project):
    catalog = project.path / "katas" / "katas.toml"
    catalog.write_text(
        catalog.read_text().replace(
            "Add two tensors", "Add two tensors of any shape, dtype and device, then return the sum"
        )
    )
    (project.path / "katas" / "q02_double.py").write_text("def double(x):\n    return 3 * x\n")
    lines = project.runpytest("katas", "--device", "cpu").stdout.lines
    progress = lines[next(i for i, line in enumerate(lines) if "torch-katas progress" in line) :]
    assert all(len(line) <= 80 for line in progress), "\n".join(progress)
    assert any(
        line == "  q01  Add two tensors of any …  not started: write add" for line in progress
    )
    quiet = project.runpytest("katas", "--device", "cpu", "-q").stdout
    quiet.fnmatch_lines(["  q02  Double a tensor * partly solved 0/1: 1 failing", "Solved 0 of 2*"])
    assert "q01" not in quiet.str().split("torch-katas progress")[1].split("Solved")[0]
    assert "arithmetic:" not in quiet.str()
    solved = project.runpytest("katas", "--device", "cpu", "--solutions", "-q").stdout.str()
    assert solved.split("torch-katas progress =")[1].split("\n")[1].startswith("Solved 2 of 2")


def read_cache(project, key):
    return json.loads(Store(project.path / FOLDER).path(key).read_text())


def test_hints_come_once_per_kata_one_more_each_run_counted_with_katas_hint(project):
    output = project.runpytest("katas", "--device", "cpu", "--hints").stdout.str()
    assert output.count("hint 1/2: Tensors add with +.") == 1
    assert "hint 2/2" not in output
    assert read_cache(project, HINTS_KEY) == {"q01_add": 1, "q02_double": 1}
    # An implemented but wrong answer gets the next hint too, under its kata's line.
    result = project.runpytest(
        "katas/q01_add_test.py", "--hints", "--answer-file", "half_right/q01_add.py"
    )
    result.stdout.fnmatch_lines(
        [
            "  q01  Add two tensors  partly solved *",
            "       hint 1/2: Tensors add with +.",
            "       hint 2/2: return a + b",
        ]
    )
    assert result.stdout.str().count("hint 2/2") == 1
    assert read_cache(project, HINTS_KEY)["q01_add"] == 2


def test_progress_and_hints_survive_pytest_cache_clear(project, capsys):
    from torch_katas import cli

    (project.path / "katas" / "q01_add.py").write_text("def add(a, b):\n    return a + b\n")
    project.runpytest("katas", "--device", "cpu")
    assert cli.main(["--root", str(project.path), "hint", "2"]) == 0
    assert "hint 1/2" in capsys.readouterr().out
    # A run with --cache-clear (pytest's own cache folder emptied) forgets neither.
    result = project.runpytest("katas/q02_double_test.py", "--device", "cpu", "--cache-clear")
    result.stdout.fnmatch_lines(["Solved 1 of 2 katas*"])
    assert read_cache(project, STATUS_KEY)["q01_add"] == status.SOLVED
    assert cli.main(["--root", str(project.path), "hint", "2"]) == 0
    assert "hint 2/2: return 2 * x" in capsys.readouterr().out
    assert not (project.path / ".pytest_cache" / "v" / "torch_katas").exists()


def test_progress_an_earlier_version_kept_in_pytests_cache_is_moved_once(project, capsys):
    from torch_katas import cli

    old = project.path / ".pytest_cache" / "v" / "torch_katas"
    old.mkdir(parents=True)
    (old / "status").write_text(json.dumps({"q01_add": status.SOLVED}))
    (old / "hints").write_text(json.dumps({"q02_double": 1}))
    assert cli.main(["--root", str(project.path), "list"]) == 0
    assert "Solved 1 of 2 katas" in capsys.readouterr().out
    assert read_cache(project, HINTS_KEY) == {"q02_double": 1}
    # Moved once: what is kept now is the store's, whatever the old folder holds later.
    (old / "status").write_text(json.dumps({"q02_double": status.SOLVED}))
    project.runpytest("katas/q02_double_test.py", "--device", "cpu")
    assert read_cache(project, STATUS_KEY) == {
        "q01_add": status.SOLVED,
        "q02_double": status.NOT_STARTED,
    }


def test_solutions_flag_tests_the_reference_answers(project):
    result = project.runpytest("katas", "--solutions")
    result.assert_outcomes(passed=3 * len(devices.present()))


def test_xdist_workers_test_the_reference_answers_with_one_torch_thread_each(project):
    project.makepyfile(
        threads_test="""
        import torch

        def test_one_torch_thread():
            assert torch.get_num_threads() == 1
        """
    )
    result = project.runpytest_subprocess(
        "katas", "threads_test.py", "--solutions", "-n", "2", "--device", "cpu"
    )
    result.assert_outcomes(passed=4)
    assert result.stdout.str().count("torch-katas progress") == 1, "summed up once, not per worker"


def test_xdist_workers_report_progress_to_the_controller(project):
    (project.path / "katas" / "q01_add.py").write_text("def add(a, b):\n    return a + b\n")
    result = project.runpytest_subprocess("katas", "-n", "2", "--device", "cpu")
    result.assert_outcomes(passed=2, failed=1)
    assert result.stdout.str().count("torch-katas progress") == 1
    assert read_cache(project, STATUS_KEY) == {
        "q01_add": status.SOLVED,
        "q02_double": status.NOT_STARTED,
    }


def test_progress_summary_counts_solved_partly_solved_and_not_started(project):
    result = project.runpytest("katas", "--device", "cpu", "--answer-file", "half_right/q01_add.py")
    result.stdout.fnmatch_lines(
        [
            "*torch-katas progress*",
            "arithmetic: 0 of 1 solved",
            "  q01  Add two tensors  partly solved 1/2: 1 failing",
            "scaling: 0 of 1 solved",
            "  q02  Double a tensor  not started: write double",
            "Solved 0 of 2 katas (1 partly solved, 1 not started)",
        ]
    )
    result = project.runpytest("katas", "--device", "cpu", "--solutions")
    result.stdout.fnmatch_lines(
        [
            "  q01  Add two tensors  solved 2/2",
            "Solved 2 of 2 katas (0 partly solved, 0 not started)",
        ]
    )


def test_progress_is_remembered_between_runs_of_the_learners_answers(project):
    (project.path / "katas" / "q01_add.py").write_text("def add(a, b):\n    return a + b\n")
    project.runpytest("katas/q01_add_test.py")
    result = project.runpytest("katas/q02_double_test.py")
    result.stdout.fnmatch_lines(["Solved 1 of 2 katas (0 partly solved, 1 not started)"])
    # A --solutions run is not the learner's progress and changes nothing.
    project.runpytest("katas", "--solutions")
    result = project.runpytest("katas/q02_double_test.py")
    result.stdout.fnmatch_lines(["Solved 1 of 2 katas*"])


def test_an_unknown_device_is_a_usage_error(project):
    result = project.runpytest("katas", "--device", "tpu")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--device tpu: unknown device*"])


def test_an_absent_accelerator_is_a_usage_error_that_names_it(project):
    if not devices.missing():
        pytest.skip("every known accelerator is present here")
    absent = devices.missing()[0]
    result = project.runpytest("katas", "--device", f"cpu,{absent}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--device {absent}: {absent} is not available*"])


def test_naming_a_stub_instead_of_its_tests_is_a_usage_error(project):
    result = project.runpytest("katas/q01_add.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*katas/q01_add.py is the stub of kata 1, not its tests*"])


def test_explicit_device_list(project):
    result = project.runpytest("katas/q02_double_test.py", "--device", "cpu", "--solutions", "-v")
    result.stdout.fnmatch_lines(["*test_doubles?cpu? PASSED*"])
    result.assert_outcomes(passed=1)


def test_topic_markers_select_katas_and_cuda_tests_need_cuda(project):
    project.makepyfile(
        **{
            "katas/q02_double_test": TEST_DOUBLE
            + """
import pytest

@pytest.mark.cuda
@pytest.mark.slow
def test_doubles_on_cuda(device):
    assert device.type == "cuda"
    assert double(torch.ones(1, device=device)).item() == 2.0
"""
        }
    )
    result = project.runpytest("katas", "--solutions", "-m", "scaling", "-rs")
    if devices.available("cuda"):
        result.assert_outcomes(passed=len(devices.present()) + 1)
    else:
        result.assert_outcomes(passed=len(devices.present()), skipped=1)
        result.stdout.fnmatch_lines(["*needs CUDA: none found*"])


def test_each_test_starts_from_the_same_torch_state(project):
    project.makepyfile(
        katas_state_test="""
        import torch

        def test_changes_global_state():
            torch.set_default_dtype(torch.float64)
            torch.set_grad_enabled(False)
            torch.use_deterministic_algorithms(True)
            torch.manual_seed(123)

        def test_sees_the_defaults():
            assert torch.get_default_dtype() == torch.float32
            assert torch.is_grad_enabled()
            assert not torch.are_deterministic_algorithms_enabled()
            first = torch.rand(1)
            torch.manual_seed(0)
            assert torch.equal(first, torch.rand(1))
        """
    )
    # In a subprocess: use_deterministic_algorithms imports torch modules that must not be
    # imported twice, and in-process pytester runs forget the modules they imported.
    project.runpytest_subprocess("katas_state_test.py").assert_outcomes(passed=2)


def test_a_run_leaves_the_random_generators_and_the_collector_as_it_found_them(project):
    project.makepyfile(
        katas_draws_test="""
        import random
        import numpy, torch

        def test_draws():
            random.random(), numpy.random.rand(), torch.rand(1)
        """
    )
    random.random(), numpy.random.rand(), torch.rand(1)  # away from the seeded state
    before = random.getstate(), numpy.random.get_state(), torch.get_rng_state()
    threshold = gc.get_threshold()
    project.runpytest("katas_draws_test.py").assert_outcomes(passed=1)
    assert random.getstate() == before[0]
    after = numpy.random.get_state()
    assert all(numpy.array_equal(a, b) for a, b in zip(after, before[1], strict=True))
    assert torch.equal(torch.get_rng_state(), before[2])
    assert gc.get_threshold() == threshold


SLOW_TEST_ADD = """

@pytest.mark.slow
def test_adds_many(device):
    a = torch.ones(100, device=device)
    assert torch.equal(add(a, a), torch.full((100,), 2.0, device=device))
"""


def statuses(project) -> dict[str, str]:
    return read_cache(project, STATUS_KEY)


@pytest.fixture
def three_tests(project):
    """Kata 1 with a third test, marked slow, for runs of a subset."""
    test_file = project.path / "katas" / "q01_add_test.py"
    test_file.write_text("import pytest\n" + test_file.read_text() + SLOW_TEST_ADD)
    return project


def write_stub(project, text: str) -> None:
    (project.path / "katas" / "q01_add.py").write_text(text)


def test_a_run_of_some_tests_never_makes_a_kata_solved(three_tests):
    project = three_tests
    write_stub(project, "def add(a, b):\n    return a.abs() + b.abs()\n")  # fails one test
    for subset in (
        ["-k", "not negative"],
        ["-m", "slow"],
        ["katas/q01_add_test.py::test_adds[cpu]"],
    ):
        args = subset if subset[0].startswith("katas/") else ["katas/q01_add_test.py", *subset]
        result = project.runpytest(*args, "--device", "cpu")
        assert result.ret == pytest.ExitCode.OK, subset
        assert statuses(project)["q01_add"] == status.PARTLY, subset
        result.stdout.fnmatch_lines(["  q01  Add two tensors  partly solved 2/3: 1 not run yet"])
    assert "q02_double" not in statuses(project), "a kata that did not run has no status"


def test_rerunning_the_last_failures_of_a_fixed_stub_does_not_solve_it(three_tests):
    project = three_tests
    write_stub(project, "def add(a, b):\n    return a.abs() + b.abs()\n")
    project.runpytest("katas/q01_add_test.py", "--device", "cpu")
    write_stub(project, "def add(a, b):\n    return a + b\n")
    # Given a folder, --lf drops the tests that passed while collecting, without a word.
    project.runpytest("katas", "--device", "cpu", "--lf").assert_outcomes(passed=1)
    assert statuses(project)["q01_add"] == status.PARTLY, "the other tests ran on the old stub"
    project.runpytest("katas/q01_add_test.py", "--device", "cpu")
    assert statuses(project)["q01_add"] == status.SOLVED


def test_a_kata_is_solved_once_every_test_passed_for_the_same_stub(three_tests):
    project = three_tests
    write_stub(project, "def add(a, b):\n    return a + b\n")
    project.runpytest("katas/q01_add_test.py", "--device", "cpu", "-k", "negative")
    assert statuses(project)["q01_add"] == status.PARTLY
    project.runpytest("katas/q01_add_test.py", "--device", "cpu", "-k", "not negative")
    assert statuses(project)["q01_add"] == status.SOLVED, "every test has now passed"
    # A changed stub starts again: the tests that passed before proved nothing about it.
    write_stub(project, "def add(a, b):\n    return b + a\n")
    project.runpytest("katas/q01_add_test.py", "--device", "cpu", "-k", "negative")
    assert statuses(project)["q01_add"] == status.PARTLY
    project.runpytest("katas/q01_add_test.py", "--device", "cpu")
    assert statuses(project)["q01_add"] == status.SOLVED, "all of them in one run"


def test_a_run_of_some_tests_can_lower_a_status(three_tests):
    project = three_tests
    write_stub(project, "def add(a, b):\n    return a + b\n")
    project.runpytest("katas", "--device", "cpu")
    assert statuses(project) == {"q01_add": status.SOLVED, "q02_double": status.NOT_STARTED}
    write_stub(project, "def add(a, b):\n    return a.abs() + b.abs()\n")
    project.runpytest("katas/q01_add_test.py::test_adds_negative[cpu]", "--device", "cpu")
    assert statuses(project) == {"q01_add": status.PARTLY, "q02_double": status.NOT_STARTED}


def test_dtype_and_device_parameters_get_readable_ids(project):
    (project.path / "katas" / "q01_add_test.py").write_text(
        textwrap.dedent("""
            import pytest
            import torch

            @pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
            @pytest.mark.parametrize("where", [torch.device("cpu"), torch.device("cuda", 1)])
            def test_ids(device, dtype, where):
                pass
        """)
    )
    result = project.runpytest("katas/q01_add_test.py", "--collect-only", "-q", "--device", "cpu")
    result.stdout.fnmatch_lines(
        [
            "*test_ids[[]cpu-cpu-float32[]]",
            "*test_ids[[]cpu-cpu-bfloat16[]]",
            "*test_ids[[]cpu-cuda:1-float32[]]",
            "*test_ids[[]cpu-cuda:1-bfloat16[]]",
        ]
    )
    assert "dtype0" not in result.stdout.str() and "where0" not in result.stdout.str()


def test_what_the_state_guard_put_back_is_on_the_teardown_report(project):
    (project.path / "katas" / "q02_double.py").write_text(
        "import torch\n\ndef double(x):\n"
        "    torch.set_default_dtype(torch.float64)\n"
        "    return 2 * x\n"
    )
    recorder = project.inline_run("katas/q02_double_test.py", "--device", "cpu")
    (teardown,) = [
        report
        for report in recorder.getreports("pytest_runtest_logreport")
        if report.when == "teardown"
    ]
    assert dict(teardown.user_properties)[status.RESTORED] == ["the default dtype"]
    result = project.runpytest("katas/q02_double_test.py", "--device", "cpu")
    result.stdout.fnmatch_lines(
        ["warning: katas/q02_double.py changed the default dtype in its tests; torch-katas*"]
    )
    clean = project.inline_run("katas/q01_add_test.py", "--device", "cpu", "--solutions")
    assert all(
        status.RESTORED not in dict(report.user_properties)
        for report in clean.getreports("pytest_runtest_logreport")
    )


def test_only_the_harness_skips(project):
    (project.path / "katas" / "q02_double_test.py").write_text(
        textwrap.dedent("""
            import pytest
            import torch
            from katas.q02_double import double

            def test_doubles(device):
                assert double(torch.ones(1, device=device)).item() == 2.0

            def test_skipped_by_the_test_file(device):
                double(torch.ones(1, device=device))
                pytest.skip("this machine lacks what the test needs")
        """)
    )
    (project.path / "katas" / "q02_double.py").write_text(
        "import unittest\n\ndef double(x):\n    raise unittest.SkipTest('not today')\n"
    )
    recorder = project.inline_run("katas/q02_double_test.py", "--device", "cpu")
    passed, skipped, failed = recorder.listoutcomes()
    assert sorted(report.nodeid.split("::")[1] for report in failed) == [
        "test_doubles[cpu]",
        "test_skipped_by_the_test_file[cpu]",
    ], "the answer's unittest.SkipTest is a failure, wherever it stops a test"
    (project.path / "katas" / "q02_double.py").write_text("def double(x):\n    return 2 * x\n")
    passed, skipped, failed = project.inline_run(
        "katas/q02_double_test.py", "--device", "cpu"
    ).listoutcomes()
    assert len(passed) == 1 and len(skipped) == 1 and not failed, "the test file's skip stands"


DTYPE_TEST = """
import pytest
import torch
from katas.q02_double import double

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64])
def test_doubles_each_dtype(device, dtype):
    assert double(torch.ones(1, device=device, dtype=dtype)).item() == 2
"""


def test_the_tests_the_sim_pass_thins_are_counted_and_explained(project):
    if not devices.available("sim"):
        pytest.skip("the simulated device is not available here")
    (project.path / "katas" / "q02_double_test.py").write_text(DTYPE_TEST)
    result = project.runpytest("katas/q02_double_test.py", "--device", "cpu,sim", "--solutions")
    # 4 dtypes on each device; on sim one floating and one integer dtype run.
    result.stdout.fnmatch_lines(
        [
            "collected 8 items / 2 deselected / 6 selected",
            "torch-katas: 2 deselected: sim runs one dtype per kind, the CPU all of them",
        ]
    )
    result.assert_outcomes(passed=6, deselected=2)
    why = next(line for line in result.stdout.lines if " deselected: " in line)
    assert len(why.replace(" 2 ", " 9999 ")) <= 80, "fits 80 columns for any count"
    # Without the CPU every dtype runs on sim, and nothing is deselected.
    alone = project.runpytest("katas/q02_double_test.py", "--device", "sim", "--solutions")
    alone.assert_outcomes(passed=4)
    assert "deselected" not in alone.stdout.str()


def test_the_device_ini_setting_chooses_devices_and_the_option_overrides_it(project):
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().rstrip() + '\ndevice = "cpu"\n')
    result = project.runpytest("katas/q02_double_test.py", "--solutions")
    result.stdout.fnmatch_lines(["torch-katas: devices cpu*"])
    result.assert_outcomes(passed=1)
    if devices.available("sim"):
        result = project.runpytest("katas/q02_double_test.py", "--solutions", "--device", "sim")
        result.stdout.fnmatch_lines(["torch-katas: devices sim (simulated)*"])
    pyproject.write_text(pyproject.read_text().replace('device = "cpu"', 'device = "tpu"'))
    result = project.runpytest("katas/q02_double_test.py", "--solutions")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*device = tpu: unknown device*"])


def test_an_answer_file_not_named_after_a_kata_is_a_usage_error_naming_the_right_name(project):
    answers = project.path / "answers"
    answers.mkdir()
    for name in ("q01_addition.py", "my_answer.py"):
        (answers / name).write_text("def add(a, b):\n    return a + b\n")
    # In a process of its own, as a learner runs it (supervised: the run happens in a child).
    result = project.runpytest_subprocess("katas", "--answer-file", "answers/q01_addition.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--answer-file answers/q01_addition.py: not named after a kata; "
            "kata 1's answer is named q01_add.py (or q01_add__any_note.py)"
        ]
    )
    assert "ended the test process" not in result.stdout.str() + result.stderr.str()
    result = project.runpytest("katas", "--answer-file", "answers/my_answer.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*my_answer.py: not named after a kata; * (for example q01_add.py*"]
    )


def test_a_held_out_order_is_not_drawn_from_the_seed(project):
    # The code under test reads the seed back (torch.initial_seed()): an order drawn from it
    # would tell an answer that counts its calls which test calls it.
    cases = "\n".join(f"def test_{n}(device):\n    pass\n" for n in range(30))
    project.makepyfile(katas_order_test=cases)

    def order() -> list[str]:
        done = project.runpytest_subprocess(
            "katas_order_test.py", "--katas-seed", "5", "--device", "cpu", "--collect-only", "-q"
        )
        return [line for line in done.outlines if "::test_" in line]

    first, second = order(), order()
    assert len(first) == 30 and sorted(first) == sorted(second)
    assert first != second  # the same seed, another order: 1 chance in 30! to fail


def test_a_held_out_order_runs_under_xdist(project):
    # Each xdist worker collects on its own and all must collect one order: the controller
    # draws it and hands it to them.
    cases = "\n".join(f"def test_{n}(device):\n    pass\n" for n in range(30))
    project.makepyfile(katas_order_test=cases)
    done = project.runpytest_subprocess(
        "katas_order_test.py", "--katas-seed", "5", "--device", "cpu", "-n", "2", "-p", "xdist"
    )
    done.assert_outcomes(passed=30)


def test_torchs_cache_folder_stays_where_it_was_when_a_test_moves_the_temp_folder(
    project, monkeypatch
):
    # Grading runs without pytest's cache. Torch makes its compile cache folder on first use
    # (building an optimizer, exporting a model), in the temp folder of that moment: a test
    # that watches a temp folder of its own must not find it there, whichever test is first.
    project.makepyfile(
        katas_cache_test="""
        import tempfile
        import torch

        def test_watches_its_temp_folder(tmp_path, monkeypatch):
            monkeypatch.setenv("TMPDIR", str(tmp_path))
            monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
            # What torch calls on first use (importing it is a first use too).
            from torch._inductor.runtime.cache_dir_utils import cache_dir

            cache_dir()
            assert not list(tmp_path.iterdir())
        """
    )
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)  # this run's, not a grader's
    done = project.runpytest_subprocess("katas_cache_test.py", "-p", "no:cacheprovider")
    done.assert_outcomes(passed=1)
