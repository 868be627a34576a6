"""The GPU tier's script (benchmarks/gpu.py), run with the CPU standing in for CUDA: its steps
run, its summary fits a screen and says what failed, and its exit status follows."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu.py"


def load_script():
    spec = importlib.util.spec_from_file_location("gpu_tier", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_tier"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # the GPU tier's four pytest runs, with the CPU standing in
@pytest.mark.timeout(600)
def test_the_steps_run_with_the_cpu_for_cuda_and_the_summary_fits_a_screen(tmp_path):
    out = tmp_path / "summary.txt"
    command = [sys.executable, str(SCRIPT), "--substitute", "cpu", "--workers", "1"]
    # The two quickest steps; each step is the same call of pytest with other arguments.
    command += ["--slack", "5", "--out", str(out), "--only", "conformance", "cuda tests"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=560)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = out.read_text(encoding="utf-8")
    assert summary == done.stdout
    lines = summary.splitlines()
    assert len(lines) <= 24 and max(map(len, lines)) <= 80
    assert lines[-1] == "verdict: every step ok"
    assert " passed, 0 failed" in next(line for line in lines if "conformance" in line)
    # Without CUDA the cuda tests are skipped, and here that is not a failure.
    assert "0 passed, 0 failed" in next(line for line in lines if "cuda tests" in line)


def test_a_failing_test_fails_its_step_and_is_named(tmp_path):
    gpu = load_script()
    report = tmp_path / "report.xml"
    report.write_text(
        '<testsuites><testsuite tests="3" failures="1" errors="0" skipped="1">'
        '<testcase classname="katas.q13_cross_entropy_test" name="test_shape[cuda]">'
        '<failure message="boom"/></testcase></testsuite></testsuites>'
    )
    step = gpu.Step("references", "every kata's reference answer on cuda", [])
    gpu.read_junit(step, report)
    assert step.counts == {"tests": 3, "failures": 1, "errors": 0, "skipped": 1, "passed": 1}
    step.status = "FAILED (pytest exit 1)"
    text = gpu.summary([step], "cuda", 10.0)
    assert "- katas.q13_cross_entropy_test::test_shape[cuda]" in text
    assert text.splitlines()[-1] == "verdict: FAILED: references"


def test_every_step_skipped_fails_on_cuda_itself(tmp_path, monkeypatch):
    """On a GPU box that does not see its GPU, every cuda test skips: that is a failure."""
    gpu = load_script()
    (step,) = [s for s in gpu.steps("cuda", 1, substitute=False) if s.name == "cuda tests"]
    report = tmp_path / "cuda-tests.xml"

    def fake_run(command, **kwargs):
        report.write_text('<testsuite tests="2" failures="0" errors="0" skipped="2"/>')
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(gpu.subprocess, "run", fake_run)
    gpu.run(step, tmp_path, slack=1.0)
    assert step.status == "FAILED (every test skipped)"
