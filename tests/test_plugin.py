"""The harness plugin's behaviour, on a small kata project made for each test."""

import textwrap

import pytest

from torch_katas import devices

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
def project(pytester):
    """A two-kata project laid out as torch-katas is, using the real plugin."""
    pytester.makefile(
        ".toml",
        pyproject=textwrap.dedent("""
            [tool.pytest.ini_options]
            python_files = ["*_test.py"]
            pythonpath = ["."]
            addopts = ["--strict-markers"]
            filterwarnings = ["error"]
        """),
    )
    pytester.makeconftest('pytest_plugins = ["torch_katas.plugin"]')
    pytester.mkpydir("katas")
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
        result.stdout.fnmatch_lines([f"*(not found: {', '.join(devices.missing())})"])
    result = project.runpytest("katas", "--solutions")
    result.stdout.fnmatch_lines(["torch-katas: testing reference answers (solutions/)"])


def test_an_unimplemented_stub_fails_with_one_short_line(project):
    result = project.runpytest("katas")
    result.assert_outcomes(failed=3 * len(devices.present()))
    result.stdout.fnmatch_lines(
        [
            "q01 Add two tensors: add() is not implemented yet; "
            "open katas/q01_add.py and replace its NotImplementedError"
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "raise NotImplementedError" not in result.stdout.str()
    assert "Hints for" not in result.stdout.str()


def test_hints_are_shown_on_request(project):
    result = project.runpytest("katas", "--hints")
    result.stdout.fnmatch_lines(["Hints for q01 (Add two tensors):", "  1. Tensors add with +."])
    # An implemented but wrong answer gets the hints too, under its failure.
    result = project.runpytest(
        "katas/q01_add_test.py", "--hints", "--answer-file", "half_right/q01_add.py"
    )
    result.stdout.fnmatch_lines(["*hints for q01*", "*2. return a + b"])


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


def test_progress_summary_counts_solved_partly_solved_and_not_started(project):
    result = project.runpytest("katas", "--device", "cpu", "--answer-file", "half_right/q01_add.py")
    result.stdout.fnmatch_lines(
        [
            "*torch-katas progress*",
            "arithmetic: 0 of 1 solved",
            "  q01  Add two tensors  partly solved  1/2 tests passed",
            "scaling: 0 of 1 solved",
            "  q02  Double a tensor  not started    0/1 tests passed",
            "Solved 0 of 2 katas (1 partly solved, 1 not started)",
        ]
    )
    result = project.runpytest("katas", "--device", "cpu", "--solutions")
    result.stdout.fnmatch_lines(["Solved 2 of 2 katas (0 partly solved, 0 not started)"])


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


def test_a_stub_that_never_returns_fails_alone(project):
    (project.path / "katas" / "q01_add.py").write_text(
        "def add(a, b):\n    while True:\n        pass\n"
    )
    result = project.runpytest("katas", "--device", "cpu", "--timeout", "1")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["*Timeout*"])


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
