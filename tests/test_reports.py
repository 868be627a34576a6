"""report.json, kept steady: fixed test reports go through the grading child's recorder, the
grader's judgement and the report writer, and each report.json is compared with the one
checked in under tests/golden/CASE/.

After an intended change of the report, write the expected files again and review the diff:

    KATAS_REGENERATE_GOLDEN=1 pytest tests/test_reports.py
"""

import json
import os
from pathlib import Path

import pytest
from _pytest.outcomes import Skipped

from torch_katas import catalog, status
from torch_katas.grading import child, grade, reports, sandbox
from torch_katas.grading.reports import Report

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(path.name for path in GOLDEN.iterdir() if (path / "reports.json").is_file())
KATA = catalog.Kata(1, "q01_add", "Add two tensors", "arithmetic", 1, ("Use +.",))
TOKEN = "0" * 32


def run_child(case: dict, tmp_path: Path) -> bytes:
    """What the grading child sends the grader after pytest gave it the case's reports."""
    lines: list[bytes] = []

    def send(event: str, **fields: object) -> None:
        lines.append((json.dumps({"token": TOKEN, "event": event, **fields}) + "\n").encode())

    guard = child.Guard(tmp_path, [], [], send)
    recorder = child.Results(
        KATA.module, send, guard, child.ProcessGuard(tmp_path / "stub.py", send)
    )
    recorder.stub_imported = case.get("stub_imported", True)
    for nodeid, when, outcome, seconds, properties in case["reports"]:
        report = pytest.TestReport(
            nodeid=nodeid,
            location=(nodeid.split("::")[0], None, nodeid),
            keywords={},
            outcome=outcome,
            longrepr="display text, not read" if outcome != "passed" else None,
            when=when,
            user_properties=[tuple(pair) for pair in properties],
            duration=seconds,
        )
        # As pytest's runner made it: the phase and what it raised (the recorder vouches).
        raised = {"failed": AssertionError, "skipped": Skipped}.get(outcome)
        recorder.phases[id(report)] = child.Phase(report, nodeid, when, raised)
        recorder.pytest_runtest_logreport(report)
    recorder.finished = True  # the checks after the last test belong to a real run
    recorder.end(case["exit_code"])
    return b"".join(lines)


def report_json(case: dict, tmp_path: Path) -> dict:
    messages = run_child(case, tmp_path)
    options = grade.Options(timeout=300, device="cpu", sandbox="none", forbidden=[])
    outcome = sandbox.Outcome(returncode=0, seconds=1.5, messages=messages)
    kata_grade, flags = grade.judge(
        KATA, outcome, TOKEN, tmp_path / "log.txt", options, set(case["expected"])
    )
    kata_grade.seconds = outcome.seconds
    report = Report(
        candidate="golden",
        date="2026-01-01T00:00:00+00:00",
        suite_commit="0" * 40,
        handed_out="0" * 40,
        torch="2.x",
        python="3.x",
        devices=kata_grade.devices,
        sandbox="none",
        timeout=300,
        seconds=2.0,
        katas={KATA.module: kata_grade},
        flags=flags,
        diffs={},
        hints="first",
    )
    reports.write(tmp_path / "out", report, "report")
    return json.loads((tmp_path / "out" / "report.json").read_text())


@pytest.mark.parametrize("case", CASES)
def test_report_json_is_the_golden_one(case, tmp_path):
    folder = GOLDEN / case
    found = report_json(json.loads((folder / "reports.json").read_text()), tmp_path)
    expected = folder / "report.json"
    if os.environ.get("KATAS_REGENERATE_GOLDEN"):
        expected.write_text(json.dumps(found, indent=2) + "\n")
    assert expected.is_file(), "no golden report: run with KATAS_REGENERATE_GOLDEN=1"
    assert found == json.loads(expected.read_text()), f"report.json of {case} changed"


def test_every_golden_report_carries_the_schema_version():
    assert CASES, "tests/golden holds no cases"
    for case in CASES:
        data = json.loads((GOLDEN / case / "report.json").read_text())
        assert data["schema_version"] == reports.SCHEMA_VERSION, case


def test_a_failure_message_comes_from_the_report_property_not_its_text(tmp_path):
    # The display text says one thing, the property another: grading goes by the property,
    # whatever the run's verbosity made of the text.
    case = {
        "expected": ["katas/q01_add_test.py::test_adds[cpu]"],
        "exit_code": 1,
        "reports": [
            ["katas/q01_add_test.py::test_adds[cpu]", "setup", "passed", 0.0, []],
            [
                "katas/q01_add_test.py::test_adds[cpu]",
                "call",
                "failed",
                0.0,
                [[status.MESSAGE, "add returned float64, expected float32"]],
            ],
            ["katas/q01_add_test.py::test_adds[cpu]", "teardown", "passed", 0.0, []],
        ],
    }
    found = report_json(case, tmp_path)["katas"][KATA.module]["failures"]
    assert found == [
        {"message": "add returned float64, expected float32", "tests": ["test_adds[cpu]"]}
    ]
