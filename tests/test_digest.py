"""A red run a learner can read: the failures of each kata grouped by cause, short, fast, and
the untouched stubs' run on one screen."""

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from torch_katas import catalog
from torch_katas.grading import takehome

ROOT = Path(__file__).resolve().parents[1]

CATALOG = """
[[kata]]
number = 1
module = "q01_norms"
title = "Row norms without a loop"
topic = "tensors"
difficulty = 1
hints = ["One reduction.", "x.pow(2).sum(1).sqrt()"]
"""

STUB = '''
import torch


def row_norms(x: torch.Tensor) -> torch.Tensor:
    """The L2 norm of each row of x, a [N, D] tensor; do not call torch.norm."""
    # TODO
    raise NotImplementedError
'''

# One rule broken in every test, through a helper of the learner's; and one test that fails
# its own way.
FORBIDDEN = """
import torch


def _squares(x):
    return torch.norm(x, dim=1)


def row_norms(x):
    if x.shape[0] == 3:
        return torch.zeros(3, device=x.device)
    return _squares(x)
"""

TESTS = """
import pytest
import torch
from katas.q01_norms import row_norms
from torch_katas.testing import assert_close, forbidden_ops

def check(x):
    with forbidden_ops(torch.norm, reason="square, sum and take the root yourself"):
        out = row_norms(x)
    assert_close(out, x.pow(2).sum(1).sqrt(), "the norm of each row: sqrt of the sum of squares")

@pytest.mark.parametrize("n", [1, 2, 4, 5, 6, 7, 8, 9])
def test_matches_the_formula(device, n):
    check(torch.randn(n, 4, device=device))

def test_three_rows(device):
    check(torch.ones(3, 4, device=device))
"""


@pytest.fixture
def project(kata_harness):
    pytester = kata_harness
    (pytester.path / "katas" / "katas.toml").write_text(CATALOG)
    (pytester.path / "katas" / "q01_norms.py").write_text(FORBIDDEN)
    (pytester.path / "katas" / "q01_norms_test.py").write_text(TESTS)
    return pytester


def digest_of(result) -> str:
    """The digest's lines, from its section's title to the progress summary's."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "= what to fix =" in line)
    end = next(i for i, line in enumerate(lines) if "= torch-katas progress =" in line)
    return "\n".join(lines[start:end])


def test_failures_are_grouped_by_cause_with_the_learners_lines(project):
    result = project.runpytest("katas", "--device", "cpu")
    digest = digest_of(result)
    # Eight tests, one cause: once, with its count and the promise the tests check.
    assert digest.count("your code called torch.norm") == 1, digest
    assert "8 tests: your code called torch.norm, which this kata forbids" in digest
    assert "checked by: matches the formula" in digest
    # The learner's own lines, innermost last; never torch's internals or the docstring.
    assert "at katas/q01_norms.py:12 in row_norms: return _squares(x)" in digest
    assert "at katas/q01_norms.py:6 in _squares: return torch.norm(x, dim=1)" in digest
    assert "torch/" not in digest and "overrides.py" not in digest
    assert "Traceback" not in result.stdout.str()
    # The other cause, with the test's advice and torch's report of the numbers.
    assert "1 test: the norm of each row: sqrt of the sum of squares" in digest
    assert "    Tensor-likes are not close!" in digest
    assert "checked by: three rows" in digest
    assert len(digest.splitlines()) < 20


def test_verbose_or_a_traceback_style_give_pytests_own_report(project):
    for option in ("-v", "--tb=long", "--tb=short"):
        output = project.runpytest("katas", "--device", "cpu", option).stdout.str()
        assert "= what to fix =" not in output, option
        assert "= FAILURES =" in output, option
        assert output.count("your code called torch.norm") >= 8, option


def test_the_digest_fits_the_height_it_is_given(project):
    full = digest_of(project.runpytest("katas", "--device", "cpu")).splitlines()
    lines = digest_of(project.runpytest("katas", "--device", "cpu", "--digest-height", "5"))
    kept = lines.splitlines()[1:]  # below the section's title
    assert len(kept) == 5
    assert kept[:4] == full[1:5], "first failures first"
    assert kept[-1].startswith("… ") and "more lines" in kept[-1]


def test_a_stub_not_written_gives_no_digest(project):
    (project.path / "katas" / "q01_norms.py").write_text(STUB)
    result = project.runpytest("katas", "--device", "cpu")
    assert "what to fix" not in result.stdout.str()
    result.stdout.fnmatch_lines(["  q01  Row norms without a loop  not started: write row_norms"])


# Runs the whole suite's untouched stubs in a process of its own: slower than the suite's
# 60 s per test on a busy 2-core machine, so it has a limit of its own.
@pytest.mark.slow  # end to end, in processes of its own: the full tier's
@pytest.mark.timeout(600)
def test_the_untouched_stubs_fit_one_screen():
    katas = list(catalog.load(ROOT).values())
    # A short path: pytest's rootdir line shows it, and a clone's path is the learner's own.
    with tempfile.TemporaryDirectory(prefix="katas-") as folder:
        check_one_screen(Path(folder), katas)


def check_one_screen(tmp_path: Path, katas: list) -> None:
    takehome.practice_copy(ROOT, tmp_path, katas)
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=580,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout + done.stderr
    assert len(lines) <= 40, "\n".join(lines)
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    assert f"Solved 0 of {len(katas)} katas (0 partly solved, {len(katas)} not started)" in lines
    assert textwrap.dedent(done.stderr).strip() == ""


def test_a_kata_test_file_that_does_not_import_is_in_the_digest(project):
    # A learner's edit that breaks the test file itself: a collection error, no test report.
    (project.path / "katas" / "q01_norms_test.py").write_text(TESTS + "\ndef broken(:\n")
    result = project.runpytest("katas", "--device", "cpu")
    output = result.stdout.str()
    assert "INTERNALERROR" not in output and "AttributeError" not in output, output
    digest = output.partition("= what to fix =")[2]
    assert "q01_norms_test.py" in digest and "SyntaxError" in digest, output
