"""`katas testwrite`: the learner's tests scored by the mistakes they catch, through the CLI.

Self-checks: a kata's own test module handed in catches every curated mistake (and every
mutant of its reference not reviewed as equivalent); a module that checks only shapes
catches few; a test that fails on the reference, or on a correct answer in another style,
makes the module invalid and is reported with the answer it rejected.
"""

import ast
import json
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_cli import CATALOG, ROOT, checkout, katas, mistakes_of

from torch_katas.grading import sandbox
from torch_katas.practice import testwrite
from torch_katas.runtime import mutants
from torch_katas.runtime.mistakes import mistakes

pytestmark = pytest.mark.timeout(600)

KATA = CATALOG["q01_fit_line"]
# A kata whose own tests the policy for returned code accepts as they are (grading holds a
# returned test module to it; many katas' own tests reach further than an answer may).
PLAIN = CATALOG["q03_vectorised_ops"]
SCORE_LINE = re.compile(r"^caught (\d+) of (\d+) mistakes \((\d+) %\)$")

SHAPES_ONLY = """
import torch

from katas.q01_fit_line import fit_line


def test_shapes(device):
    x = torch.linspace(0, 1, 5, device=device)
    w, b = fit_line(x, 2 * x + 1, steps=3)
    assert w.shape == () and b.shape == ()
"""

# Shapes and the fitted values on one easy line: catches more than shapes alone, not all (a
# learner's first module; the kata's own tests, which catch all, are scored once, with mutants).
VALUES = (
    SHAPES_ONLY
    + """

def test_fits_an_easy_line(device):
    x = torch.linspace(-1, 1, 20, device=device)
    w, b = fit_line(x, 3 * x - 0.5, steps=200)
    assert abs(w.item() - 3) < 1e-3 and abs(b.item() + 0.5) < 1e-3
"""
)

ONE_QUICK_TEST = """
import torch


def test_ones(device):
    assert torch.ones(2, device=device).sum() == 2
"""

FAILS_ON_THE_REFERENCE = (
    SHAPES_ONLY
    + """

def test_wrong_expectation(device):
    x = torch.linspace(0, 1, 5, device=device)
    w, _ = fit_line(x, 2 * x + 1, steps=0)
    assert w.item() == 1.0, "expects w to start at 1"
"""
)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """A git checkout holding katas 1 and 3, their mistakes and reviewed equivalent mutants."""
    root = checkout(tmp_path_factory.mktemp("testwrite") / "suite", [KATA.module, PLAIN.module])
    (root / mutants.EQUIVALENT).parent.mkdir(exist_ok=True)
    shutil.copy(ROOT / mutants.EQUIVALENT, root / mutants.EQUIVALENT)
    return root


def last_line(text: str) -> re.Match[str]:
    match = SCORE_LINE.match(text.strip().splitlines()[-1])
    assert match, f"the report does not end with the score's line:\n{text}"
    return match


def test_testwrite_writes_the_reference_and_a_test_module_then_scores_it(suite, capsys):
    assert katas("--root", suite, "testwrite", 1) == 0
    said = capsys.readouterr().out
    tests = suite / "testwrite" / f"{KATA.module}_test.py"
    reference = suite / "testwrite" / f"{KATA.module}__reference.py"
    assert "testwrite/q01_fit_line_test.py" in said and "katas testwrite 1 --score" in said
    assert reference.read_text() == KATA.solution_path(ROOT).read_text()
    assert "from katas.q01_fit_line import fit_line" in tests.read_text()
    tests.write_text(tests.read_text() + "\n# mine\n")
    katas("--root", suite, "testwrite", 1)
    assert tests.read_text().endswith("# mine\n"), "a second run keeps the learner's module"
    # The module as written tests nothing: valid, and it catches none.
    assert katas("--root", suite, "testwrite", 1, "--score") == 1
    match = last_line(capsys.readouterr().out)
    assert match.groups() == ("0", str(len(mistakes_of(KATA))), "0")


# One scoring run for both: with --mutants, every curated mistake is still scored, beside the
# mutants (the default run, mistakes alone, is scored by the tests above and below).
@pytest.mark.slow  # end to end, in processes of its own: the full tier's
def test_the_katas_own_tests_catch_every_mistake_and_every_mutant_its_self_check_kills(
    suite, capsys
):
    code = katas("--root", suite, "testwrite", 1, "--score", KATA.test_path(suite), "--mutants")
    said = capsys.readouterr().out
    caught, total, share = last_line(said).groups()
    assert code == 0 and caught == total and share == "100", said
    assert f"{len(mistakes_of(KATA))} curated mistakes and " in said, said
    assert int(total) > len(mistakes_of(KATA)), "the mutants count beside the mistakes"
    assert "missed" not in said


def test_a_module_that_checks_only_shapes_scores_low_and_names_what_it_missed(
    suite, capsys, tmp_path
):
    path = tmp_path / "shapes_test.py"
    path.write_text(SHAPES_ONLY)
    assert katas("--root", suite, "testwrite", 1, "--score", path) == 1
    said = capsys.readouterr().out
    caught, total, share = last_line(said).groups()
    assert int(share) < 50, said
    missed = said.split("missed:\n", 1)[1].splitlines()[:-1]
    assert len(missed) == int(total) - int(caught)
    descriptions = [m.removeprefix("  - ") for m in missed]
    known = {m.description.removeprefix("Wrong:").strip() for m in mistakes(ROOT, KATA.module)}
    assert set(descriptions) <= known, "missed mistakes are named by their descriptions"
    assert "def fit_line" not in said and "@@" not in said, "never the mistake's code"


def test_a_test_that_fails_on_the_reference_is_reported_and_the_module_is_invalid(
    suite, capsys, tmp_path
):
    path = tmp_path / "wrong_test.py"
    path.write_text(FAILS_ON_THE_REFERENCE)
    assert katas("--root", suite, "testwrite", 1, "--score", path) == 1
    said = capsys.readouterr().out
    assert "test_wrong_expectation[cpu] fails on the reference answer" in said
    assert "expects w to start at 1" in said
    # The reference and the reference with its lines moved.
    assert said.strip().splitlines()[-1].endswith("(invalid: tests fail on 2 correct answers)")


def test_a_test_that_pins_an_implementation_detail_rejects_a_correct_answer(
    suite, capsys, tmp_path
):
    correct = suite / testwrite.CORRECT_ANSWERS / f"{KATA.module}__with_a_marker.py"
    correct.parent.mkdir(parents=True, exist_ok=True)
    correct.write_text(KATA.solution_path(ROOT).read_text() + "\nSTYLE = 'another'\n")
    path = tmp_path / "pinned_test.py"
    path.write_text(
        SHAPES_ONLY
        + "\n\nimport katas.q01_fit_line as kata\n\n\ndef test_pinned(device):\n"
        + "    assert 'STYLE' not in vars(kata)\n"
    )
    try:
        assert katas("--root", suite, "testwrite", 1, "--score", path) == 1
    finally:
        correct.unlink()
    said = capsys.readouterr().out
    assert "test_pinned[cpu] fails on a correct answer in another style (with a marker)" in said
    assert "fails on the reference" not in said


# Dynamo writes the lines of the code it traces into its exceptions ("from user code"): the
# reference's comment on its first line that dynamo refuses, read from what pytest.raises caught.
READS_THE_SOURCE = """
import pytest
import torch

from katas.q01_fit_line import fit_until


def test_reads_the_answers_source(device):
    x = torch.linspace(-1, 1, 8, device=device)
    y = torch.tensor([1.0, -1.0, 2.0, -2.0, 1.0, 1.0, -1.0, 1.0], device=device)
    with pytest.raises(Exception) as caught:
        torch.compile(fit_until, fullgraph=True, backend="eager")(x, y, 1.75, max_steps=1)
    assert "one place for the check" not in str(caught.value)
"""


@pytest.mark.slow  # scores a test module against every mistake of several katas
def test_no_answers_source_reaches_a_test_through_torchs_messages(suite, capsys, tmp_path):
    """An answer's text, comments and all, tells the reference from a mistake without running
    either: the scoring shows the answers' lines to no reader but the harness's, so the
    reference's comment is nowhere in dynamo's message and no correct answer fails."""
    path = tmp_path / "source_test.py"
    path.write_text(READS_THE_SOURCE)
    katas("--root", suite, "testwrite", 1, "--score", path)
    said = capsys.readouterr().out
    assert "fails on the reference" not in said, said[-3000:]
    assert SCORE_LINE.match(said.strip().splitlines()[-1]), said[-3000:]


def test_the_harness_reads_the_source_the_scoring_hides(tmp_path):
    """Hidden from every other reader, an answer's lines are still the harness's to read: its
    loop rules find the loop in an answer's function."""
    import importlib.util
    import linecache

    from torch_katas import testing

    answer = tmp_path / "q01_fit_line.py"
    answer.write_text("def fit_line(xs):\n    total = 0\n    for x in xs:  # a loop\n"
                      "        total += x\n    return total\n")  # fmt: skip
    spec = importlib.util.spec_from_file_location("answer_under_test", answer)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import logging
    import warnings

    import torch.fx.traceback

    shown, factory, warn = warnings.WarningMessage, logging.getLogRecordFactory(), warnings.warn
    stacks, getlines = torch.fx.traceback.format_stack, linecache.getlines
    try:
        testwrite.hide_locations("q01_fit_line", [answer])
        assert linecache.getline(str(answer), 3).strip() == ""
        assert len(linecache.getlines(str(answer))) == 5
        assert testing._loop_in_code(module.fit_line.__code__) is not None
    finally:
        warnings.WarningMessage = shown  # type: ignore[misc]
        warnings.warn = warn
        logging.setLogRecordFactory(factory)
        torch.fx.traceback.format_stack = stacks
        linecache.getlines = getlines
    assert "a loop" in linecache.getline(str(answer), 3)


# torch.compile reads a deprecated attribute of torch, whose warning torch's own filter (on
# module "torch") hides: under the scoring's hidden places and warnings as errors, it compiles.
COMPILES_WITH_PLACES_HIDDEN = """
import warnings

import torch

from torch_katas.practice import testwrite

testwrite.hide_locations()
warnings.simplefilter("error")
print(torch.compile(lambda x: torch.linalg.vector_norm(x) + 1, backend="eager")(torch.ones(4)))
"""


def test_torchs_own_warning_filters_hold_where_the_scoring_hides_places():
    """Kata 38's own tests compile: scored, they failed on every correct answer."""
    run = subprocess.run(
        [sys.executable, "-c", COMPILES_WITH_PLACES_HIDDEN],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0 and "tensor(3.)" in run.stdout, run.stderr[-3000:]


def test_json_gives_the_score_for_tools(suite, capsys, tmp_path):
    path = tmp_path / "values_test.py"
    path.write_text(VALUES)
    katas("--root", suite, "testwrite", 1, "--score", path, "--json")
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] and 0 < data["caught"] < data["total"] == len(mistakes_of(KATA))
    assert data["share"] == pytest.approx(data["caught"] / data["total"], abs=1e-4)


# A test module that counts the answers it has run on, in the environment, in a module and on
# torch: run after another answer's, its test would fail. Each answer's tests start afresh.
COUNTING = (
    SHAPES_ONLY
    + """

import os

import numpy as np

os.environ["TESTWRITE_COUNT"] = str(int(os.environ.get("TESTWRITE_COUNT", "0")) + 1)
np.testing.seen = getattr(np.testing, "seen", 0) + 1
torch.set_default_dtype(torch.float32)


def test_first(device):
    assert os.environ["TESTWRITE_COUNT"] == "1" and np.testing.seen == 1
    assert torch.is_grad_enabled()
    torch.set_grad_enabled(False)  # as if left by a test: the next answer must not see it
"""
)


def test_no_state_a_test_module_leaves_reaches_the_next_answer(suite, capsys, tmp_path):
    path = tmp_path / "counting_test.py"
    path.write_text(COUNTING)
    katas("--root", suite, "testwrite", 1, "--score", path)
    said = capsys.readouterr().out
    assert "invalid" not in said, said
    assert last_line(said).groups()[0] == "0", "every answer passes: none is told apart"


def test_a_missing_module_is_a_usage_error(suite, capsys, tmp_path):
    assert katas("--root", suite, "testwrite", 1, "--score", tmp_path / "nope_test.py") == 2
    assert "no such file" in capsys.readouterr().err


def test_a_module_that_does_not_import_is_reported(suite, capsys, tmp_path):
    path = tmp_path / "broken_test.py"
    path.write_text("import torch\n\ndef test_x(device):\n    assert (\n")
    assert katas("--root", suite, "testwrite", 1, "--score", path) == 1
    said = capsys.readouterr().out
    assert "invalid" in said.splitlines()[-1] and "collecting them failed" in said


# -- take-home and grading -----------------------------------------------------------------

ROOT_OK = ["--allow-root"] if sandbox.is_root() else []


def grade(suite: Path, folder: Path) -> tuple[int, dict]:
    code = katas("--root", suite, "grade", folder, "--device", "cpu", *ROOT_OK)
    return code, json.loads((folder / "grading" / "report.json").read_text())["katas"]


@pytest.mark.slow
def test_a_testwrite_takehome_is_graded_by_the_share_of_mistakes_caught(suite, tmp_path, capsys):
    folder = tmp_path / "jane"
    assert katas("--root", suite, "takehome", 1, 3, "--mode", "testwrite", "--out", folder) == 0
    record = json.loads((suite / ".katas-takehomes" / "jane.json").read_text())
    assert record["mode"] == "testwrite"
    shipped = folder / "katas" / f"{KATA.module}.py"
    assert shipped.read_text() == KATA.solution_path(ROOT).read_text(), "the reference ships"
    tests = folder / "katas" / f"{KATA.module}_test.py"
    assert "from katas.q01_fit_line import fit_line" in tests.read_text()
    assert "write the tests" in (folder / "README.md").read_text()
    total = len(mistakes_of(KATA))

    # The kata's own tests catch every mistake.
    plain = len(mistakes_of(PLAIN))
    PLAIN.test_path(folder).write_text(PLAIN.test_path(ROOT).read_text())
    tests.write_text(SHAPES_ONLY)
    code, graded = grade(suite, folder)
    entry = graded[PLAIN.module]
    assert entry["verdict"] == "solved", entry
    assert (entry["passed"], entry["total"]) == (plain, plain)
    assert entry["reason"] == f"caught {plain} of {plain} mistakes (100 %)"
    # Shapes alone catch few.
    entry = graded[KATA.module]
    assert code == 1 and entry["verdict"] in ("partly solved", "not started"), entry
    assert entry["passed"] < total / 2
    (missed,) = entry["failures"]
    assert len(missed["tests"]) == total - entry["passed"]

    # Below, kata 1's verdicts alone: kata 3's returned tests become one quick test.
    PLAIN.test_path(folder).write_text(ONE_QUICK_TEST)
    tests.write_text(FAILS_ON_THE_REFERENCE)
    _, graded = grade(suite, folder)
    entry = graded[KATA.module]
    assert entry["verdict"] == "error" and entry["passed"] == 0
    assert "invalid" in entry["reason"]
    rejected = [group["message"] for group in entry["failures"]]
    assert any(m.startswith("fails on the reference answer") for m in rejected), rejected

    # Stranger's code: the test module is read against the policy for returned code.
    tests.write_text(SHAPES_ONLY + "\n\ndef test_peek():\n    open('/etc/passwd').read()\n")
    _, graded = grade(suite, folder)
    entry = graded[KATA.module]
    assert entry["verdict"] == "flagged" and "open" in entry["reason"], entry
    tests.write_text(SHAPES_ONLY + "\nfrom torch_katas.runtime import answers\n")
    _, graded = grade(suite, folder)
    assert "torch_katas.runtime" in graded[KATA.module]["reason"]


# -- watch and the notebook magic ----------------------------------------------------------


@pytest.mark.slow  # end to end, in processes of its own: the full tier's
def test_watch_scores_again_on_every_save(suite, tmp_path):
    path = tmp_path / "watched_test.py"
    path.write_text(SHAPES_ONLY)
    command = [sys.executable, "-m", "torch_katas", "--root", str(suite), "testwrite", "1"]
    process = subprocess.Popen(
        [*command, "--score", str(path), "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    try:
        lines = []

        def next_score() -> re.Match[str]:
            while True:
                line = process.stdout.readline()
                assert line, "".join(lines)
                lines.append(line)
                if match := SCORE_LINE.match(line.strip()):
                    return match

        first = next_score()
        assert int(first[3]) < 50
        time.sleep(1)  # the watcher is watching once it said so; a save after that counts
        path.write_text(VALUES)
        assert int(next_score()[1]) > int(first[1]), "".join(lines)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(60)
        process.stdout.close()
    assert process.returncode == 0


def test_the_notebook_cell_magic_saves_the_test_module_and_scores_it(suite, monkeypatch, capsys):
    shell_module = pytest.importorskip("IPython.core.interactiveshell")
    from torch_katas.notebook.magics import KataMagics

    monkeypatch.chdir(suite)
    shell = shell_module.InteractiveShell.instance()
    shell.register_magics(KataMagics)
    shell.run_cell_magic("kata", "testwrite 1", SHAPES_ONLY)
    said = capsys.readouterr().out
    assert "saved testwrite/q01_fit_line_test.py" in said
    assert testwrite.test_path(suite, KATA).read_text() == SHAPES_ONLY
    assert SCORE_LINE.match(said.strip().splitlines()[-1]), said
    assert (suite / "testwrite" / f"{KATA.module}__reference.py").is_file()


def test_a_returned_test_module_may_not_reach_pytests_session():
    from torch_katas.grading import testwrite as graded

    plain = graded.check(SHAPES_ONLY, KATA, "t.py")
    assert plain == []
    reaching = SHAPES_ONLY + "\n\ndef test_x(request):\n    request.config.pluginmanager\n"
    rules = {finding.rule for finding in graded.check(reaching, KATA, "t.py")}
    assert rules == {"session"}
    helpers = "from torch_katas import testing\nfrom torch_katas.grading import sandbox\n"
    texts = [finding.text for finding in graded.check(helpers, KATA, "t.py")]
    assert len(texts) == 1 and "torch_katas.grading" in texts[0]


# Katas whose own tests reach what a returned test module may not, each with why: grading
# refuses the same in a candidate's module, so handing these back is flagged for review.
REACHING = {
    "q01_fit_line": "torch._C._functorch, to find x and y inside torch.func.grad's wrapped tensors",
    "q09_mlp_module": "vars of each module, to find tensors kept as plain attributes",
    "q15_warmup_cosine": "vars of the optimizer, to see that a rejected call wrapped nothing",
    "q28_checkpoint": "frames, sys.setprofile and sys.modules, to see which files torch.load reads",
    "q38_compile_graph_breaks": "the request fixture, code objects and torch._dynamo",
    "q47_custom_loss": "torch's autograd engine, replaced for the test",
    "q48_export_deploy": "onnxscript (no answer imports it) and the process's directory",
    "q50_data_parallel": "threads, a subprocess, the answer's source and a FileStore's path",
}
REACH_RULES = {
    "session",
    "frame",
    "dunder",
    "private",
    "name",
    "import",
    "builtin",
    "module",
    "attribute",
    "definition",
    "attribute-by-name",
    "patch",
    "testing",
    "file",
}


@pytest.mark.slow  # every kata's own tests scored; `pytest tests -k q13` runs it for one kata
@pytest.mark.parametrize("kata", sorted(CATALOG), ids=str)
def test_a_katas_own_test_module_handed_back_passes_the_policy_for_returned_tests(kata):
    """The suite's kata tests are the model answer: handed back as they are, the policy for
    returned test modules finds nothing in them, but where they reach what it refuses."""
    from torch_katas.grading import testwrite as graded

    path = ROOT / "katas" / f"{kata}_test.py"
    found = graded.check(path.read_text(encoding="utf-8"), CATALOG[kata], str(path))
    if kata not in REACHING:
        assert found == [], "\n".join(map(str, found))
    else:
        assert found, f"{kata}'s own tests pass the policy now: take it out of REACHING"


def test_the_best_score_is_kept_apart_from_the_katas_statuses(suite, capsys, tmp_path):
    from torch_katas.cli.testwrite import STORE_KEY
    from torch_katas.store import Store

    # Whatever other tests here scored in this checkout (a --mutants run counts more) is
    # forgotten: the best below is this test's own.
    Store.for_root(suite).write(STORE_KEY, {})
    better, shapes = tmp_path / "values_test.py", tmp_path / "shapes_test.py"
    better.write_text(VALUES)
    shapes.write_text(SHAPES_ONLY)
    katas("--root", suite, "testwrite", 1, "--score", better)
    caught, total, _ = last_line(capsys.readouterr().out).groups()
    katas("--root", suite, "testwrite", 1, "--score", shapes)
    said = capsys.readouterr().out
    assert int(last_line(said)[1]) < int(caught), "the values module is the better one"
    assert f"(your best for q01 so far: caught {caught} of {total} mistakes)" in said
    kept = Store.for_root(suite).read(STORE_KEY)[KATA.module]
    assert kept == {"caught": int(caught), "total": int(total), "share": int(caught) / int(total)}
    assert KATA.module not in Store.for_root(suite).statuses()


def test_whatever_the_child_writes_on_the_results_pipe_is_read_without_raising():
    from torch_katas.grading.testwrite import read_results

    token = "t0"

    def line(**fields: object) -> bytes:
        return (json.dumps({"token": token, **fields}) + "\n").encode()

    genuine = line(event="result", result={"tests": 1})
    assert read_results(genuine, token) == ({"tests": 1}, [])
    for sent in (b"[" * 100_000 + b"\n", b"\xff{\n", b"1e999999\n", b'{"token": 1}\n'):
        result, problems = read_results(sent + genuine, token)
        assert result == {"tests": 1} and problems == [
            "its results were not all written by the grader"
        ], sent
    # A result sent first by the tests, then the grader's: neither is kept.
    forged = line(event="result", result={"tests": 9, "failures": {}})
    result, problems = read_results(forged + genuine, token)
    assert result is None and problems == ["its results held 2 results where the grader sends one"]


HEAD = (
    "import numpy as np\nimport pytest\nimport torch\n\nfrom katas.q01_fit_line import fit_line\n"
)


@pytest.mark.parametrize(
    "body",
    [
        "from torch.testing import assert_close\nassert_close(torch.ones(1), torch.ones(1))\n",
        "torch.testing.assert_close(torch.ones(1), torch.ones(1))\n",
        "np.testing.assert_allclose(np.ones(1), np.ones(1))\n",
        "from numpy.testing import assert_array_equal\n",
        "class Run:\n    config = 1\n    session = 2\n\n\nassert Run().config + Run.session\n",
        "@pytest.mark.parametrize('config', [1])\ndef test_x(config):\n    config.hook\n",
        "def test_x(device):\n    with pytest.raises(ValueError, match='x') as caught:\n"
        "        raise ValueError('x')\n    assert caught.value.args\n",
        "@pytest.mark.slow\ndef test_y(device):\n    assert 1.0 == pytest.approx(1.0)\n",
        # What the suite's own kata tests use: patches the test puts back, modules as values,
        # a mode that sees the answer's ops, checkpoints in memory, the helpers' __all__.
        "def test_x(monkeypatch):\n    monkeypatch.setattr(torch, 'compile', None)\n"
        "    monkeypatch.setenv('X', '1')\n    with monkeypatch.context() as patch:\n"
        "        patch.setattr(torch.cuda, 'is_available', lambda: False)\n",
        "import katas.q01_fit_line as kata\n\n\ndef test_x(monkeypatch):\n"
        "    monkeypatch.setattr(kata, 'fit_line', fit_line)\n",
        "from torch_katas.testing import forbidden_modules\n"
        "forbidden_modules(torch.optim, reason='')\n",
        "class Mode(torch.overrides.TorchFunctionMode):\n"
        "    def __torch_function__(self, func, types, args=(), kwargs=None):\n"
        "        return func(*args, **(kwargs or {}))\n",
        "import io\nbuffer = io.BytesIO()\ntorch.save({}, buffer)\n"
        "buffer.seek(0)\ntorch.load(buffer, weights_only=True)\n",
        "pytest.importorskip('numpy')\n",
        "import inspect\ninspect.getattr_static(torch.Tensor, 'grad')\n",
        "from torch_katas import facets, testing\nfrom torch_katas.testing import hooks_left\n"
        "testing.check_tensor(torch.ones(1))\nfacets.args(1)\n",
        "from torch_katas.testing import raises\n\n\ndef test_x(device):\n"
        "    with raises(ValueError) as caught:\n        fit_line(None)\n    caught.value\n",
        "class Model(torch.nn.Module):\n    pass\n\n\nmodel = Model()\nmodel.training = False\n"
        "loader = torch.utils.data.DataLoader([1])\nloader.multiprocessing_context = 'fork'\n",
        "forbidden = (torch.optim.Optimizer, '__init__')\n",
        "assert torch.nn.Linear.__mro__\n",
    ],
)
def test_what_an_honest_test_module_uses_of_pytest_and_the_testing_modules_is_allowed(body):
    from torch_katas.grading import testwrite as graded

    assert graded.check(HEAD + body, KATA, "t.py") == []


@pytest.mark.parametrize(
    "body",
    [
        "pytest.importorskip('o' + 's')\n",
        "from pytest import importorskip\n",
        "getattr(pytest, 'importorskip')\n",
        "pytest.MonkeyPatch().setattr('torch_katas.grading', None)\n",
        "pytest.main(['-q'])\n",
        "import pytest as p\np.register_assert_rewrite('x')\n",
        "torch.testing._comparison\n",
        "np.testing.run_threaded\n",
        "def test_x(device):\n    with pytest.raises(ValueError) as caught:\n"
        "        fit_line(None)\n    caught.getrepr()\n",
        "def test_x(tmp_path_factory):\n    tmp_path_factory.config\n",
        # What the suite's own tests use, where it reaches further than they need.
        "def test_x(monkeypatch):\n    monkeypatch.setattr('torch_katas.grading.x', None)\n",
        "def test_x(monkeypatch):\n    patch = monkeypatch\n    patch.delattr('torch.x')\n",
        "def test_x(monkeypatch):\n    monkeypatch.syspath_prepend('/')\n",
        "def test_x(monkeypatch):\n    monkeypatch.chdir('/')\n",
        "import warnings\n\n\ndef test_x(monkeypatch):\n"
        "    monkeypatch.setattr(warnings, 'Warning' + 'Message', None)\n",
        "_o = pytest.importorskip('os')\n_o.write(1, b'')\n",
        "_o = pytest.importorskip('numpy')\n_o.testing.run_threaded\n",
        "import pytest as p\n_o = p.importorskip('os')\n_o.write(1, b'')\n",
        "_o = [pytest.importorskip('os')][0]\n",
        "pytest.importorskip('onnx')\n",  # not among what kata 1's answers may import
        "skip = pytest.importorskip\nskip('torch')\n",
        "import io\ntorch.load(io.BytesIO(b''))\n",
        "import io\ntorch.load(io.BytesIO(b''), weights_only=False)\n",
        "load = torch.load\n",
        "import io\nio.open('x')\n",
        "open('x')\n",
        "import inspect\ninspect.getsource(fit_line)\n",
        "import inspect\ninspect.getattr_static(fit_line, '__globals__')\n",
        "import inspect\ninspect.getattr_static(fit_line, name)\n",
        "import pickle\npickle.loads(b'')\n",
        "import os\nos.environ\n",
        "import gc\n",
        "from torch_katas import facets\nfacets.catalog\n",
        "from torch_katas.testing import isolation\n",
        "from torch_katas import testing\ntesting.sys\n",
        "from torch_katas.testing import raises\n\n\ndef test_x(device):\n"
        "    with raises(ValueError) as caught:\n        fit_line(None)\n    caught.traceback\n",
        "torch.nn.Module.forward = None\n",
        "getattr(torch, 'sys')\n",
        "vars(torch)\n",
        "fit_line.__globals__\n",
    ],
)
def test_the_rest_of_pytest_and_what_pytest_hands_over_is_refused(body):
    from torch_katas.grading import testwrite as graded

    assert graded.check(HEAD + body, KATA, "t.py") != []


# A test module that tells the answers apart by where their code calls torch, not by what it
# does: a torch function mode warns from the caller's frame on each call, and the lines of those
# warnings fingerprint the reference and each mistake (kata 5's returned module scored 79 % so).
FINGERPRINT = """import warnings

import torch
from torch.overrides import TorchFunctionMode

from katas.q01_fit_line import fit_line


class Mode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        warnings.warn(getattr(func, "__name__", "?"), stacklevel=2)
        return func(*args, **(kwargs or {}))


KNOWN = ["9:dim|14:zeros|15:zeros|17:mul|17:add|17:sub|17:pow|17:mean"]


def test_fingerprint(device):
    x = torch.tensor([0.0, 1.0, 2.0], device=device)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with Mode():
            fit_line(x, 2 * x + 1, steps=1)
    seen = "|".join(f"{w.lineno}:{w.message}" for w in rec if "katas" in w.filename)
    assert seen[:60] in "".join(KNOWN)
"""


@pytest.mark.parametrize(
    "body",
    [
        FINGERPRINT,
        HEAD + "import warnings\nwarnings.warn('x', stacklevel=2)\n",
        HEAD + "import warnings\nwarnings.warn('x', **{'stacklevel': 2})\n",
        HEAD + "def test_x(recwarn):\n    recwarn.pop().lineno\n",
        HEAD + "def test_x(recwarn):\n    getattr(recwarn.pop(), 'filename')\n",
        HEAD + "import logging\nlogging.warning('x', stack_info=True)\n",
        HEAD + "import logging\nlogging.getLogger().findCaller()\n",
        HEAD + "def test_x(caplog):\n    caplog.records[0].pathname\n",
        HEAD + "import warnings\nwarnings.formatwarning\n",
        HEAD + "def test_x(device):\n    with torch.profiler.profile(with_stack=True):\n"
        "        fit_line(torch.ones(2), torch.ones(2))\n",
        HEAD + "def test_x(device):\n    torch.ones(1).grad_fn.metadata['traceback_']\n",
        # Filters for one line or module, and a stacklevel by position, that walks up to the
        # answer's frame: which of its lines call torch, told without a record.
        HEAD + "import warnings\nwarnings.warn('k', UserWarning, 2)\n",
        HEAD + "from warnings import warn\nwarn(*('k', UserWarning, 2))\n",
        HEAD + "import warnings\nwarnings.filterwarnings('error', '', UserWarning, '', 17)\n",
        HEAD + "import warnings\nwarnings.filterwarnings('error', module='katas')\n",
        HEAD + "import warnings\nwarnings.simplefilter('error', UserWarning, 17)\n",
        HEAD + "import warnings\nwarnings.filters.insert(0, ('error', None, Warning, None, 9))\n",
        HEAD + "import warnings\nwarnings.filters[:0] = [('error', None, Warning, None, 9)]\n",
        HEAD + "@pytest.mark.filterwarnings('error::UserWarning::17')\ndef test_x():\n    pass\n",
        # The scoring's own guard undone: warnings' records with their lines back.
        HEAD + "import warnings\n\n\ndef test_x(monkeypatch):\n"
        "    monkeypatch.setattr(warnings, 'WarningMessage', None)\n",
    ],
    ids=lambda body: body.splitlines()[-1][:40],
)
def test_a_test_module_may_not_read_where_the_answers_code_is(body):
    from torch_katas.grading import testwrite as graded

    rules = {finding.rule for finding in graded.check(body, KATA, "t.py")}
    assert "location" in rules, rules


def test_warnings_and_log_records_from_an_answer_say_nothing_of_where_it_is(tmp_path):
    """The scoring's second guard on the same: what a test records, prints or logs of a
    warning or a log record holds no place (the answer's line, or which frame it came from)."""
    import importlib.util
    import logging
    import warnings

    answer = tmp_path / "q01_fit_line.py"
    answer.write_text(
        "import logging\nimport warnings\n\n\ndef fit_line():\n"
        "    warnings.warn('from the answer')\n    logging.getLogger('kata').warning('logged')\n"
        "\n\ndef calls(warn):\n    warn()\n"
    )
    spec = importlib.util.spec_from_file_location("answer_under_test", answer)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("kata")
    import torch.fx.traceback

    shown, factory, warn = warnings.WarningMessage, logging.getLogRecordFactory(), warnings.warn
    stacks = torch.fx.traceback.format_stack
    try:
        logger.addHandler(handler)
        testwrite.hide_locations()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module.fit_line()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # anomaly mode's own warning
            with torch.autograd.detect_anomaly():
                node = torch.ones(1, requires_grad=True).exp().grad_fn
        assert str(answer) not in str(node.metadata) and "<hidden>" in str(node.metadata)
        # A filter for the answer's line 11 (or its module) and a warning raised from a test's
        # function with a stacklevel that walks up to that line: the filter never matches.
        for place in (("", 11), ("answer_under_test", 0)):
            with warnings.catch_warnings(record=True) as placed:
                warnings.simplefilter("ignore")
                warnings.filterwarnings("error", "", UserWarning, *place)
                module.calls(lambda: warnings.warn("k", UserWarning, 2))
                module.calls(lambda: warnings.warn(UserWarning("k"), stacklevel=2))
            assert not placed
    finally:
        warnings.WarningMessage = shown  # type: ignore[misc]
        warnings.warn = warn
        logging.setLogRecordFactory(factory)
        torch.fx.traceback.format_stack = stacks
        logger.removeHandler(handler)
    (warning,) = caught
    assert (warning.filename, warning.lineno) == (testwrite.HIDDEN_FILE, 0)
    assert str(answer) not in str(warning) and "lineno : 0" in str(warning)
    (record,) = records
    assert (record.pathname, record.lineno, record.funcName) == (testwrite.HIDDEN_FILE, 0, "?")


def test_the_correct_answers_run_where_there_is_no_solutions_package(tmp_path):
    # A grading sandbox has the answers it is handed, not the suite's solutions/: a correct
    # answer that imports the rest from its reference is handed out whole.
    for kata in CATALOG.values():
        for answer in testwrite.answers_for(ROOT, kata, tmp_path, mutants=False):
            if answer.kind != "correct":
                continue
            tree = ast.parse(answer.path.read_text(encoding="utf-8"))
            imported = [
                node.module
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("solutions")
            ]
            assert not imported, f"{answer.path.name} still imports {imported}"
            compile(tree, str(answer.path), "exec")


def test_nothing_in_the_order_or_the_paths_of_the_answers_tells_which_is_which(tmp_path):
    from torch_katas.grading import testwrite as graded

    kata = CATALOG["q13_cross_entropy"]
    answers = testwrite.answers_for(ROOT, kata, tmp_path, mutants=False)
    places = set()
    for _ in range(20):
        shuffled, paths = graded.layout(kata, answers)
        assert sorted(map(id, shuffled)) == sorted(map(id, answers))
        assert {Path(path).name for path in paths} == {f"{kata.module}.py"}
        assert len({Path(path).parent for path in paths}) == len(paths)
        places.add(next(n for n, a in enumerate(shuffled) if a.kind == "reference"))
    # The reference sits at one place in all 20 layouts by a chance of (1/answers)**19.
    assert len(places) > 1


GC = "import pytest\nimport torch\n\nfrom katas.q01_fit_line import fit_line\n\n"
GC += "_gc = pytest.importorskip('g' + 'c')\n"
# Returned test modules that attacked the grading of testwrite take-homes, each with what the
# grading must say: flagged, and for those that wrote on the results pipe a tampering flag.
ATTACKS = {
    # Writes a line nested past the JSON parser on the results pipe.
    "crash": (
        "import pytest\n\n_s = pytest.importorskip('s' + 'ys')\n"
        "_o = pytest.importorskip('o' + 's')\n"
        "if len(_s.argv) > 1 and _s.argv[1].isdigit():\n"
        "    _o.write(int(_s.argv[1]), b'[' * 100000 + b'\\n')\n" + SHAPES_ONLY,
        True,
    ),
    # Finds the results' sender through the garbage collector and sends a result of its own.
    "forge": (
        GC + "sends = [t for t in _gc.get_objects() if type(t).__name__ == 'function'\n"
        "         and t.__qualname__ == 'sender.<locals>.send']\n"
        "if sends:\n    sends[0]('result', result={'exit_code': 1, 'tests': 1,"
        " 'collect_errors': [], 'failures': {}})\n" + SHAPES_ONLY,
        True,
    ),
    # Finds the answer loop through the garbage collector: fails where it is not complete.
    "gc": (
        GC + "def test_loop(device):\n"
        "    loops = [t for t in _gc.get_objects() if type(t).__name__ == 'AnswerLoop']\n"
        "    if loops and loops[0].failures:\n"
        "        assert list(loops[0].failures)[-1] in loops[0].complete\n" + SHAPES_ONLY,
        False,
    ),
    # Reads the answer's file name from the traceback pytest.raises keeps.
    "path": (
        SHAPES_ONLY + "\n\nimport pytest\n\n\ndef test_path(device):\n"
        "    with pytest.raises(Exception) as caught:\n"
        "        fit_line(None, None)\n"
        "    assert 'q01_fit_line.py' in str(caught.getrepr(style='short'))\n",
        False,
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS)
def test_each_attack_on_a_testwrite_takehome_is_flagged_and_the_grader_goes_on(
    suite, tmp_path, attack
):
    source, tampers = ATTACKS[attack]
    folder = tmp_path / attack
    assert katas("--root", suite, "takehome", 1, "--mode", "testwrite", "--out", folder) == 0
    (folder / "katas" / f"{KATA.module}_test.py").write_text(source)
    code, graded = grade(suite, folder)
    entry = graded[KATA.module]
    assert code == 1 and entry["verdict"] == "flagged", entry
    flags = json.loads((folder / "grading" / "report.json").read_text())["flags"]
    assert any(flag["kind"] == "tampering" for flag in flags) == tampers, flags


def test_one_correct_answer_is_the_reference_with_its_lines_moved_by_chance(tmp_path):
    """A test module that tells answers by where their code is (an allow-list of the lines
    that call torch, by whatever channel) fails on it: the same code, at lines drawn anew for
    each scoring."""
    answers = testwrite.answers_for(ROOT, KATA, tmp_path, mutants=False)
    (moved,) = [a for a in answers if a.description == testwrite.MOVED]
    assert moved.kind == "correct"
    reference = KATA.solution_path(ROOT).read_text(encoding="utf-8")
    drawn = {testwrite.spaced(reference) for _ in range(5)}
    assert moved.path.read_text(encoding="utf-8") != reference and len(drawn) > 1
    assert {ast.dump(ast.parse(text)) for text in drawn} == {ast.dump(ast.parse(reference))}


def _said(text: str) -> tuple[set[str], list[str | None]]:
    """What a module says of itself: its top-level names, and each function's and class's
    docstring."""
    tree = ast.parse(text)
    names = {
        each.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for each in ast.walk(node)
        if isinstance(each, ast.Name)
    }
    names |= {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}
    docs = [
        ast.get_docstring(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    return names, docs


# A test module that tells the answers by what their module says of itself, not by what it
# does: the names dir() lists (a mistake that adds a helper) and the docstrings (one that adds
# a class with its own). Kata 42's correct answers define the reference's names alone: the
# module caught 5 of 35 mistakes and was valid.
PINS_THE_TEXT = """import katas.q42_indexing as kata

NAMES = {NAMES}
DOCS = {DOCS}


def test_the_names_are_the_references():
    assert {{name for name in dir(kata) if not name.startswith("__")}} == NAMES


def test_the_docstrings_are_the_references():
    assert [{READS}] == [DOCS[name] for name in sorted(DOCS)]
"""


def test_a_correct_answer_says_other_names_and_docstrings_than_the_reference(tmp_path):
    """The reference with its lines moved has a module-level name and docstrings of its own,
    drawn anew, beside code that does what the reference's does."""
    for kata in CATALOG.values():
        folder = tmp_path / kata.module
        folder.mkdir()
        answers = testwrite.answers_for(ROOT, kata, folder, mutants=False)
        reference = answers[0].path.read_text(encoding="utf-8")
        (moved,) = [a for a in answers if a.description == testwrite.MOVED]
        names, docs = _said(reference)
        their_names, their_docs = _said(moved.path.read_text(encoding="utf-8"))
        assert names < their_names, kata.module
        assert all(a != b for a, b in zip(docs, their_docs, strict=True)), kata.module


@pytest.mark.slow  # a scoring of kata 42, in processes of its own
def test_a_test_module_that_pins_the_references_names_and_docstrings_is_invalid(tmp_path):
    kata = CATALOG["q42_indexing"]
    reference = kata.solution_path(ROOT).read_text(encoding="utf-8")
    tree = ast.parse(reference)
    names = {n for n in _said(reference)[0]} | {
        alias.asname or alias.name.partition(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    docs = {
        node.name: ast.get_docstring(node, clean=False)
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
    }
    tests = tmp_path / f"{kata.module}_test.py"
    reads = ", ".join(f"kata.{name}.__doc__" for name in sorted(docs))
    tests.write_text(PINS_THE_TEXT.format(NAMES=repr(names), DOCS=repr(docs), READS=reads))
    score = testwrite.score(ROOT, kata, tests)
    assert not score.valid, score.report()
    assert {answer.description for answer, _, _ in score.rejected} == {testwrite.MOVED}
