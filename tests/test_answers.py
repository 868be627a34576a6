"""Run the kata tests against other answers: every stub must fail every test by
NotImplementedError, and every wrong answer must be rejected by its kata's tests.

The runs are in-process, so torch is imported once.
"""

from pathlib import Path

import pytest

from torch_katas import catalog
from torch_katas.plugin import NOT_IMPLEMENTED

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)
WRONG_ANSWERS = sorted((ROOT / "tests" / "wrong_answers").glob("q*__*.py"))


def reports_by_test(reports):
    """Each test's reports (setup, call, teardown), keyed by node id."""
    by_test: dict[str, list] = {}
    for report in reports:
        by_test.setdefault(report.nodeid, []).append(report)
    return by_test


@pytest.mark.timeout(600)
def test_every_kata_test_fails_on_the_stubs_by_not_implemented_error(run_pytest_inline):
    outcomes = reports_by_test(run_pytest_inline(str(ROOT / "katas")))
    assert outcomes, "no kata test ran"
    modules_seen = {catalog.module_of(Path(nodeid.split("::")[0])) for nodeid in outcomes}
    assert modules_seen == set(KATAS), "some katas have no tests that ran"
    unearned = []
    for nodeid, reports in outcomes.items():
        if any(report.skipped for report in reports):
            continue  # needs a device this machine lacks: it does not pass either
        failed = [report for report in reports if report.failed]
        by_stub = any(dict(report.user_properties).get(NOT_IMPLEMENTED) for report in failed)
        if not by_stub:
            unearned.append(nodeid)
    assert not unearned, (
        "these kata tests do not fail on the stub by NotImplementedError (call the learner's "
        "code before anything else can pass or fail):\n" + "\n".join(unearned)
    )


@pytest.mark.parametrize("answer", WRONG_ANSWERS, ids=lambda path: path.stem)
def test_every_wrong_answer_is_rejected(run_pytest_inline, answer):
    kata = KATAS[catalog.module_of(answer)]
    # On the default devices, so that on a machine without a GPU the simulated one rejects
    # tensors made on the CPU; the first failure is enough.
    run = (str(kata.test_path(ROOT)), "--answer-file", str(answer), "-x")
    # Most wrong answers fail a fast test; the slow ones (inductor, ONNX) run only when needed.
    failures = [report for report in run_pytest_inline(*run, "-m", "not slow") if report.failed]
    if not failures:
        failures = [report for report in run_pytest_inline(*run) if report.failed]
    assert failures, f"{answer.name} ({(answer.read_text().split(chr(10))[0])}) passes every test"
    not_implemented = [
        r for r in failures if dict(r.user_properties).get(NOT_IMPLEMENTED) is not None
    ]
    assert len(not_implemented) < len(failures), f"{answer.name} fails only by NotImplementedError"
