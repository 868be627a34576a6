"""The GPU tier: what only a GPU checks, in one command that fits a few minutes of a lent GPU.

    python benchmarks/gpu.py [--out gpu-summary.txt] [--workers 4] [--substitute cpu] [--slack 1]

Four steps, each a pytest run in a process of its own with a time limit of its own:

1. every kata's reference answer on CUDA alone (`pytest --solutions --device cuda katas`);
2. every kata's stub on CUDA: each of its tests fails by NotImplementedError
   (`tests/test_answers.py`'s stub check, run with `--device cuda`);
3. the simulated device's conformance table on CUDA (`tests/test_sim_conformance.py`'s rows
   with TORCH_KATAS_CONFORMANCE=cuda): CUDA's outcome of each row is the table's;
4. the tests marked `cuda`, in the katas and the self-checks (the table's own cuda test
   left out: step 3 is it).

Then a one-screen summary, to stdout and to --out: per step its counts, seconds and first
failures. Exits 0 when no step failed or ran out of time.

`--substitute cpu` runs the same steps with the CPU standing in for CUDA (the table on
`sim`, as without a GPU; the `cuda` tests are then skipped), to test this script where no
GPU is at hand. On a GPU box (16 cores) every step fits in 8 minutes with 4 workers.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Each step's share of the 8 minutes; a step that runs out of time fails, and the rest run.
# The conformance table's own cuda test is left out of step 4: step 3 is it.
CUDA_TESTS = "not test_the_table_on_cuda"
LIMITS = {"references": 180, "stubs": 150, "conformance": 90, "cuda tests": 60}


@dataclass
class Step:
    name: str
    what: str
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    status: str = "not run"
    # Only where the CPU stands in for CUDA may every test of a step be skipped.
    all_skipped_is_ok: bool = False


def steps(device: str, workers: int, substitute: bool) -> list[Step]:
    parallel = ["-n", str(workers)] if workers > 1 else []
    return [
        Step(
            "references",
            f"every kata's reference answer on {device}",
            ["--solutions", "--device", device, "katas", *parallel],
        ),
        Step(
            "stubs",
            f"every kata's stub on {device} fails by NotImplementedError",
            ["tests/test_answers.py", "-k", "fails_on_the_stub", "--device", device, *parallel],
        ),
        Step(
            "conformance",
            "the sim conformance table "
            + ("on sim (CUDA substituted)" if substitute else "on cuda"),
            ["tests/test_sim_conformance.py", "-k", "test_row"],
            {} if substitute else {"TORCH_KATAS_CONFORMANCE": "cuda"},
        ),
        Step(
            "cuda tests",
            f"the tests marked cuda, on {device}",
            # --device names the device a `cuda` test needs; without CUDA they are skipped.
            ["katas", "tests", "--solutions", "--device", device, "-m", "cuda", "-k", CUDA_TESTS],
            all_skipped_is_ok=substitute,
        ),
    ]


def run(step: Step, scratch: Path, slack: float) -> None:
    report = scratch / f"{step.name.replace(' ', '-')}.xml"
    command = [sys.executable, "-m", "pytest", *step.args, "-q", "-p", "no:cacheprovider"]
    command += [f"--junitxml={report}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), **step.env}
    start = time.monotonic()
    try:
        done = subprocess.run(
            command,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=LIMITS[step.name] * slack,
        )
        returncode: int | None = done.returncode
    except subprocess.TimeoutExpired:
        returncode = None
    step.seconds = time.monotonic() - start
    if report.is_file():
        read_junit(step, report)
    if returncode is None:
        step.status = f"OUT OF TIME ({LIMITS[step.name] * slack:.0f} s)"
    elif returncode == 5 or not step.counts.get("tests"):
        step.status = "FAILED (no test ran)"
    elif not step.counts["passed"] and not step.all_skipped_is_ok:
        step.status = "FAILED (every test skipped)"
    elif returncode == 0:
        step.status = "ok"
    else:
        step.status = f"FAILED (pytest exit {returncode})"
        if not step.failures:
            step.failures = [line for line in done.stdout.splitlines()[-3:] if line.strip()]


def read_junit(step: Step, path: Path) -> None:
    counts = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for suite in ET.parse(path).getroot().iter("testsuite"):
        for key in counts:
            counts[key] += int(suite.get(key, 0))
        for case in suite.iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                step.failures.append(f"{case.get('classname')}::{case.get('name')}")
    counts["passed"] = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    step.counts = counts


def summary(done: list[Step], device: str, seconds: float) -> str:
    lines = [f"GPU tier on {device}: {seconds:.0f} s"]
    for step in done:
        c = step.counts
        counted = (
            f"{c['passed']} passed, {c['failures'] + c['errors']} failed, {c['skipped']} skipped"
            if c
            else "no report"
        )
        lines.append(f"{step.status:<8} {step.name:<12} {step.seconds:5.0f} s  {counted}")
        lines.append(f"{'':<22}{step.what}")
        lines += [f"{'':<22}- {failure}" for failure in step.failures[:5]]
        if len(step.failures) > 5:
            lines.append(f"{'':<22}  and {len(step.failures) - 5} more")
    failed = [step.name for step in done if step.status != "ok"]
    lines.append("verdict: " + (f"FAILED: {', '.join(failed)}" if failed else "every step ok"))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("gpu-summary.txt"))
    parser.add_argument("--workers", type=int, default=4, help="pytest-xdist workers (1: none)")
    parser.add_argument(
        "--substitute",
        choices=["cpu"],
        help="let the CPU stand in for CUDA, to test this script without a GPU",
    )
    parser.add_argument(
        "--slack", type=float, default=1.0, help="multiply each step's time limit (a slow CPU)"
    )
    parser.add_argument("--only", nargs="+", choices=list(LIMITS), help="run only these steps")
    options = parser.parse_args(argv)
    device = options.substitute or "cuda"
    chosen = [
        step
        for step in steps(device, options.workers, options.substitute is not None)
        if not options.only or step.name in options.only
    ]
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        for step in chosen:
            run(step, Path(scratch), options.slack)
    text = summary(chosen, device, time.monotonic() - start)
    options.out.write_text(text, encoding="utf-8")
    print(text, end="")
    return 0 if all(step.status == "ok" for step in chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
