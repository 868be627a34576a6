"""Run the kata tests against other answers: every stub must fail every test by
NotImplementedError, and every wrong answer must be rejected by its kata's tests.

The runs are in-process, so torch is imported once. Each kata's stub check is a test of
its own (`pytest tests -k q13` checks kata 13), and each has a time limit.
"""

import linecache
import shutil
from pathlib import Path

import pytest

from torch_katas import catalog, testing
from torch_katas.runtime import mistakes
from torch_katas.runtime.answer_loop import AnswerLoop
from torch_katas.status import NOT_IMPLEMENTED

# Each test here runs pytest (or the katas command) in a process of its own, or a kata's whole
# test file inside this one: on a busy 2-core machine that can take longer than the suite's
# 60 s limit per test, so these tests have a limit of their own.
pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)
# Correct answers in other styles than the reference's, where a contract leaves a choice
# (a hint that is not a rule, two readings both allowed): the kata's tests must pass them.
CORRECT_ANSWERS = sorted((ROOT / "tests" / "correct_answers").glob("q*__*.py"))
# A stub fails each test at once; a kata's tests on its stub take a second or two, far less
# than this even on a busy machine.
STUB_RUN_LIMIT = 600
# A kata's wrong answers, all in one nested session: a few seconds each, but kata 38's
# compile each (about 5 minutes for all on a busy machine). A guard against a hang, not a
# measure of speed.
WRONG_RUN_LIMIT = 1800
# Each nested test's own limit: a test that hangs on a stub or a wrong answer fails fast.
TEST_LIMIT = "120"
# A wrong answer that counts with a loop up to a count of 2**62 is rejected by its time-out:
# the suite's own limit per test, which a correct answer's slowest test (an ONNX export)
# stays well within even on a busy machine.
WRONG_TEST_LIMIT = "60"


def failed_by_not_implemented(report: pytest.TestReport, answer: Path) -> bool:
    """True when the test failed by a NotImplementedError raised in `answer`."""
    if dict(report.user_properties).get(NOT_IMPLEMENTED):
        return True  # the plugin recognised the kata's own stub
    crash = getattr(report.longrepr, "reprcrash", None)
    return (
        crash is not None
        and Path(crash.path).resolve() == answer.resolve()
        and crash.message.startswith("NotImplementedError")
        # A `raise` in the answer, not a torch op that raised it from that line.
        and linecache.getline(str(answer), crash.lineno).lstrip().startswith("raise")
    )


def reports_by_test(reports):
    """Each test's reports (setup, call, teardown), keyed by node id."""
    by_test: dict[str, list] = {}
    for report in reports:
        by_test.setdefault(report.nodeid, []).append(report)
    return by_test


@pytest.mark.parametrize("kata", KATAS.values(), ids=lambda kata: kata.module)
def test_every_kata_test_fails_on_the_stub_by_not_implemented_error(
    run_pytest_inline, committed_stub, kata, request
):
    stub = committed_stub(kata)
    # A stub fails the same way on every device: on the CPU, unless this run names devices
    # (the GPU tier, benchmarks/gpu.py, runs this with --device cuda).
    device = request.config.getoption("device") or "cpu"
    reports = run_pytest_inline(
        str(kata.test_path(ROOT)),
        "--answer-file",
        str(stub),
        "--device",
        device,
        "--timeout",
        TEST_LIMIT,
        time_limit=STUB_RUN_LIMIT,
    )
    assert not reports.out_of_time, f"the tests of {kata.label} took over {STUB_RUN_LIMIT} s"
    outcomes = reports_by_test(reports)
    assert outcomes, f"no test of {kata.label} ran"
    unearned = []
    for nodeid, test_reports in outcomes.items():
        if any(report.skipped for report in test_reports):
            continue  # needs a device this machine lacks: it does not pass either
        failed = [report for report in test_reports if report.failed]
        if not any(failed_by_not_implemented(report, stub) for report in failed):
            unearned.append(nodeid)
    assert not unearned, (
        "these kata tests do not fail on the stub by NotImplementedError (call the learner's "
        "code before anything else can pass or fail):\n" + "\n".join(unearned)
    )


# Slow: a nested session per kata over all its wrong answers, most of the self-checks' time.
# The quick tier leaves the sweep out; `pytest tests -k q13` still runs it for one kata.
@pytest.mark.slow
@pytest.mark.parametrize("kata", KATAS.values(), ids=lambda kata: kata.module)
def test_every_wrong_answer_is_rejected(run_pytest_inline, kata, tmp_path):
    # Each mistake applied to its reference, whole (a diff that no longer applies fails here).
    found = {
        mistake.write(tmp_path, ROOT): mistake for mistake in mistakes.mistakes(ROOT, kata.module)
    }
    assert found, f"{kata.label} has no wrong answers"
    # One nested session for all of them, each answer imported afresh (AnswerLoop). On the
    # default devices, so that on a machine without a GPU the simulated one rejects tensors
    # made on the CPU. Each answer's tests stop at its first failure; the slow tests
    # (ONNX export) run only when the fast ones all pass.
    loop = AnswerLoop(kata.module, list(found))
    run = (
        str(kata.test_path(ROOT)),
        "--answer-file",
        str(next(iter(found))),
        "--timeout",
        WRONG_TEST_LIMIT,
    )
    run_pytest_inline(*run, plugins=(loop,), time_limit=WRONG_RUN_LIMIT)
    unchecked = [path.stem for path in found if path not in loop.failures]
    assert not unchecked, f"out of time after {WRONG_RUN_LIMIT} s before checking {unchecked}"
    accepted = [
        f"{path.stem} ({mistake.description}) passes every test"
        for path, mistake in found.items()
        if not loop.failures[path]
    ]
    assert not accepted, "\n".join(accepted)
    partial = [
        f"{path.stem} is rejected only by a NotImplementedError: implement its whole API"
        for path in found
        if failed_by_not_implemented(loop.failures[path][0], path)
    ]
    assert not partial, "\n".join(partial)


def test_one_session_checks_each_answer_afresh(run_pytest_inline, tmp_path):
    # The reference before and after a wrong answer, in one session: nothing of the wrong
    # answer (its module, its test module's state) is left for the answer after it.
    kata = KATAS["q13_cross_entropy"]
    first, last = tmp_path / "first", tmp_path / "last"
    for folder in (first, last):
        folder.mkdir()
        shutil.copy(kata.solution_path(ROOT), folder / f"{kata.module}.py")
    wrong = mistakes.mistakes(ROOT, kata.module)[0].write(tmp_path, ROOT)
    order = [first / f"{kata.module}.py", wrong, last / f"{kata.module}.py"]
    loop = AnswerLoop(kata.module, order)
    run = (str(kata.test_path(ROOT)), "--answer-file", str(order[0]), "--device", "cpu")
    run_pytest_inline(*run, plugins=(loop,))
    assert [bool(loop.failures[path]) for path in order] == [False, True, False]


@pytest.mark.slow  # a kata's whole tests per answer; `pytest tests -k q13` runs it for one kata
@pytest.mark.parametrize("answer", CORRECT_ANSWERS, ids=lambda path: path.stem)
def test_every_correct_answer_in_another_style_passes(run_pytest_inline, answer):
    kata = KATAS[catalog.module_of(answer)]
    reports = run_pytest_inline(
        str(kata.test_path(ROOT)), "--answer-file", str(answer), "--timeout", TEST_LIMIT
    )
    failed = sorted({report.nodeid for report in reports if report.failed})
    style = answer.read_text().split("\n")[0]
    assert not failed, f"{answer.name} ({style}) fails these tests:\n" + "\n".join(failed)


def test_a_nested_run_stops_when_its_time_is_spent(run_pytest_inline):
    kata = KATAS["q13_cross_entropy"]
    run = (str(kata.test_path(ROOT)), "--solutions", "--device", "cpu")
    reports = run_pytest_inline(*run, time_limit=0)
    assert reports.out_of_time
    assert len({report.nodeid for report in reports}) == 1, "no test starts after the limit"


@pytest.mark.slow  # every kata's whole tests again; `pytest tests -k q13` runs it for one kata
@pytest.mark.parametrize("kata", KATAS.values(), ids=lambda kata: kata.module)
def test_every_reference_passes_on_held_out_inputs(run_pytest_inline, kata):
    # Grading's second run: every generator seeded anew, the seeds the tests write too
    # (seed_for), the tests in another order. Its seed is fixed here, so the check is the
    # same on every run; a grade needs both runs, so an honest answer must pass both.
    reports = run_pytest_inline(
        str(kata.test_path(ROOT)), "--solutions", "--katas-seed", "918273", "--timeout", TEST_LIMIT
    )
    failed = sorted({report.nodeid for report in reports if report.failed})
    assert reports and not failed, "fail on held-out inputs:\n" + "\n".join(failed)
    assert testing.seed_for(5) == 5, "the nested run's seed outlived it"
