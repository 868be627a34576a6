"""`katas bughunt`, as a learner uses it, and `katas takehome --mode bughunt` with its grade, as
an interviewer does; and the self-check that every module a hunt can hand out has its mistake's
code, and the module a fix is judged against the reference's."""

import ast
import functools
import io
import json
import random
import shutil
import subprocess
import sys
import tempfile
import tokenize
from pathlib import Path

import pytest
from test_cli import checkout
from test_grading import ROOT_OK, interviewer_checkout

from torch_katas import catalog, cli
from torch_katas.practice import bughunt
from torch_katas.runtime import mistakes
from torch_katas.store import BUGHUNTS_KEY, STATUS_KEY, Store

pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)
KATA = KATAS["q13_cross_entropy"]


def katas(*args: object) -> int:
    return cli.main([str(a) for a in args])


@pytest.fixture
def suite(tmp_path):
    """A git checkout of the suite holding kata 13, where commands may write."""
    return checkout(tmp_path / "suite", [KATA.module])


def hunt_in(root: Path) -> bughunt.Hunt:
    (hunt,) = bughunt.active(Store.for_root(root)).values()
    return hunt


def fixed(root: Path, hunt: bughunt.Hunt) -> str:
    """The handed-out module with its mistake undone: the reference with the stub's
    docstrings, laid out as handed out."""
    return bughunt.baseline(root, hunt.kata, hunt.hidden, hunt.stub)


def check(root: Path, capsys) -> tuple[int, str]:
    code = katas("--root", root, "bughunt", 13, "--check", "--", "--device", "cpu", "-q")
    return code, capsys.readouterr().out


def test_a_bug_hunt_from_start_to_the_verdict(suite, capsys):
    stub = KATA.stub_path(suite)
    attempt = stub.read_text().replace("raise NotImplementedError", "return logits.sum()")
    stub.write_text(attempt)
    assert katas("--root", suite, "bughunt", 13, "--seed", 1) == 0
    said = capsys.readouterr().out
    hunt = hunt_in(suite)
    # The stub is a working-looking answer: the reference with the mistake, its contract kept.
    assert stub.read_text() == hunt.handed_out != fixed(suite, hunt)
    assert "NotImplementedError" not in hunt.handed_out and '"""' in hunt.handed_out
    assert "Rules:" in hunt.handed_out  # the stub's docstring, with the contract
    # The learner's attempt is kept, and the output says where.
    assert hunt.backup is not None and (suite / hunt.backup).read_text() == attempt
    assert hunt.backup in " ".join(said.split())
    # The mistake is recorded, not shown.
    (name,) = hunt.mistakes
    description = bughunt.described(suite, hunt)[0]
    assert name not in said and description not in " ".join(said.split())

    code, said = check(suite, capsys)
    assert code == 1 and "not fixed yet" in said

    stub.write_text(fixed(suite, hunt))
    code, said = check(suite, capsys)
    flat = " ".join(said.split())
    assert code == 0, said
    assert "bug found and fixed, a small fix" in flat
    assert description in flat  # now it names the mistake
    assert "restores the reference's code" in flat
    # Recorded as a bug hunt, not as kata 13's status.
    assert KATA.module not in Store.for_root(suite).read(STATUS_KEY)
    assert katas("--root", suite, "bughunt", "--progress") == 0
    assert "1 solved (1 with a small fix" in capsys.readouterr().out

    # --stop puts the learner's attempt back.
    assert katas("--root", suite, "bughunt", 13, "--stop") == 0
    assert stub.read_text() == attempt
    assert bughunt.active(Store.for_root(suite)) == {}
    assert Store.for_root(suite).read(BUGHUNTS_KEY)["done"][0]["result"] == "solved, small"


def test_a_rewrite_solves_the_hunt_and_the_verdict_says_it_was_a_rewrite(suite, capsys):
    assert katas("--root", suite, "bughunt", 13, "--seed", 2) == 0
    capsys.readouterr()
    hunt = hunt_in(suite)
    # The reference as shipped, docstrings and all: every line of the module changes.
    KATA.stub_path(suite).write_text(KATA.solution_path(suite).read_text())
    code, said = check(suite, capsys)
    assert code == 0, said
    assert "bug found and fixed, a rewrite, not a small fix" in " ".join(said.split())
    assert bughunt.active(Store.for_root(suite))[hunt.kata].fix == "rewrite"


def test_a_new_hunt_needs_the_last_one_solved_or_stopped(suite, capsys):
    assert katas("--root", suite, "bughunt", 13) == 0
    assert katas("--root", suite, "bughunt", 13) == 2
    assert "--stop ends it" in capsys.readouterr().err
    assert katas("--root", suite, "bughunt", 13, "--stop") == 0
    # The stub was untouched before the hunt: it goes back as shipped.
    assert KATA.stub_path(suite).read_text() == (ROOT / "katas" / f"{KATA.module}.py").read_text()


def comments(text: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [token.string for token in tokens if token.type == tokenize.COMMENT]


def test_hidden_hands_out_no_comment_and_no_word_of_where_the_bug_is(suite, capsys):
    assert katas("--root", suite, "bughunt", 13, "--hidden", "--bugs", 2, "--seed", 4) == 0
    said = capsys.readouterr().out
    hunt = hunt_in(suite)
    assert len(hunt.mistakes) == 2 and hunt.hidden
    assert comments(hunt.handed_out) == []
    assert "only the failing tests say where" in " ".join(said.split())
    assert not any(f"{name}()" in said for name in hunt.functions)


def test_two_bugs_need_both_fixes(suite):
    kata = KATAS[KATA.module]
    for seed in range(3):
        chosen = bughunt.choose(suite, kata, 2, False, random.Random(seed))
        first, second = chosen
        assert bughunt.compose(suite, [first, second]) == bughunt.compose(suite, [second, first])
        hunt = bughunt.new_hunt(suite, kata, 2, False, random.Random(seed), KATA_STUB)
        # The second mistake undone, the first kept: the first mistake's lines are untouched.
        kept = mistakes.Mistake(suite / mistakes.WRONG_ANSWERS / f"{hunt.mistakes[0]}.diff")
        half = bughunt.handed_out(suite, [kept], False, KATA_STUB)
        assert bughunt.judge(suite, hunt, half).untouched == [0]
        assert bughunt.judge(suite, hunt, fixed(suite, hunt)).small


KATA_STUB = (ROOT / "katas" / f"{KATA.module}.py").read_text()


def test_a_fix_is_judged_on_code_alone_and_where_it_is():
    hunt = bughunt.new_hunt(ROOT, KATA, 1, False, random.Random(3), KATA_STUB)
    right = fixed(ROOT, hunt)
    # Comments and blank lines added change nothing.
    commented = right.replace("\nimport torch\n", "\nimport torch  # the fix is below\n\n\n")
    assert bughunt.judge(ROOT, hunt, commented).small
    # Nor does the whole module formatted anew (quotes, wrapped lines, spacing).
    assert bughunt.judge(ROOT, hunt, ast.unparse(ast.parse(right))).small
    # The mistaken lines untouched, other lines changed: a rewrite, whatever its size.
    elsewhere = hunt.handed_out.replace("import torch\n", "import torch as torch\n", 1)
    verdict = bughunt.judge(ROOT, hunt, elsewhere)
    assert not verdict.small and verdict.untouched == [0]
    assert "leaves the mistaken lines" in verdict.words()


def test_no_hunt_hands_out_a_module_that_imports_the_reference():
    for kata in KATAS.values():
        for mistake in mistakes.mistakes(ROOT, kata.module):
            if "solutions" in mistake.source(ROOT):
                assert not bughunt._usable(ROOT, mistake, hidden=False), mistake.name


@pytest.mark.slow  # end to end, in processes of its own: the full tier's
def test_a_takehome_of_bug_hunts_is_graded_bug_by_bug(tmp_path):
    root = interviewer_checkout(ROOT, tmp_path / "suite")
    shutil.copytree(ROOT / mistakes.WRONG_ANSWERS, root / mistakes.WRONG_ANSWERS)
    folder = tmp_path / "candidate"
    assert katas("--root", root, "takehome", 13, 18, "--mode", "bughunt", "--out", folder) == 0
    record = json.loads((root / ".katas-takehomes" / "candidate.json").read_text())
    assert record["mode"] == "bughunt" and set(record["bughunt"]) == {
        KATA.module,
        "q18_bce_with_logits",
    }
    assert "# Find the bug" in (folder / "README.md").read_text()
    hunts = {m: bughunt.Hunt.from_dict(d) for m, d in record["bughunt"].items()}
    for module, hunt in hunts.items():
        assert (folder / "katas" / f"{module}.py").read_text() == hunt.handed_out
    # The candidate fixes kata 13's bug and leaves kata 18's.
    stub = KATA.stub_path(folder)
    stub.write_text(fixed(root, hunts[KATA.module]))
    code = katas("--root", root, "grade", folder, "--device", "cpu", *ROOT_OK)
    report = json.loads((folder / "grading" / "report.json").read_text())
    assert code == 1
    verdicts = {module: grade["practice"] for module, grade in report["katas"].items()}
    assert verdicts[KATA.module].startswith("bug found and fixed, a small fix")
    assert verdicts["q18_bce_with_logits"].startswith("bug not found")
    assert report["score"] == 0.5  # a bug hunt counts when fixed, not by tests passed
    assert "bug found and fixed" in (folder / "grading" / "report.md").read_text()
    # Fixed, but with a construct the policy refuses: flagged, and no word on the bug.
    stub.write_text(fixed(root, hunts[KATA.module]) + "\nfrom torch.testing import assert_close\n")
    katas("--root", root, "grade", folder, "--device", "cpu", *ROOT_OK)
    flagged = json.loads((folder / "grading" / "report.json").read_text())["katas"][KATA.module]
    assert flagged["verdict"] == "flagged" and "practice" not in flagged, flagged


# -- the self-check: every module a hunt hands out is its mistake, as code -------------------


def behaviour(text: str) -> str:
    """The module's code without docstrings and annotations: what its tests can tell apart."""
    tree = ast.parse(text)
    documented = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in ast.walk(tree):
        if isinstance(node, documented) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                node.body = node.body[1:] or [ast.Pass()]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
        if isinstance(node, ast.arg):
            node.annotation = None
        if isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
    return ast.dump(tree)


# The wrong-answer self-check (tests/test_answers.py) runs each mistake through its kata's tests
# and the reference too: a handed-out module with the same code as its mistake fails them, and
# the module a fix is judged against, with the reference's code, passes them.
@pytest.mark.slow  # every mistake of every kata; `pytest tests -k q13` runs it for one kata
@pytest.mark.parametrize("kata", KATAS.values(), ids=lambda kata: kata.module)
def test_every_handed_out_module_has_its_mistakes_code_and_its_fix_the_references(kata):
    stub = kata.stub_path(ROOT).read_text()
    reference = behaviour(kata.solution_path(ROOT).read_text())
    for hidden in (False, True):
        assert behaviour(bughunt.baseline(ROOT, kata.module, hidden, stub)) == reference
        for mistake in mistakes.mistakes(ROOT, kata.module):
            if bughunt._usable(ROOT, mistake, hidden):
                handed = bughunt.handed_out(ROOT, [mistake], hidden, stub)
                assert behaviour(handed) == behaviour(mistake.source(ROOT)), mistake.name


def test_the_notebook_magic_starts_a_hunt_and_its_cell_gives_the_verdict(
    suite, capsys, monkeypatch
):
    magics = pytest.importorskip("torch_katas.notebook.magics", reason="the notebook extra")
    monkeypatch.chdir(suite)
    kata = magics.KataMagics(shell=None)
    kata.kata("bughunt 13 --seed 6")
    assert "%kata 13 puts the module in a new cell" in capsys.readouterr().out
    hunt = hunt_in(suite)
    kata.kata("13 -- --device cpu", cell=hunt.handed_out)
    assert "bug hunt: not fixed yet" in capsys.readouterr().out
    kata.kata("13 -- --device cpu", cell=fixed(suite, hunt))
    said = " ".join(capsys.readouterr().out.split())
    assert "bug hunt: bug found and fixed, a small fix" in said
    assert bughunt.described(suite, hunt)[0] in said
    with pytest.raises(Exception, match="the %%kata N cell runs the tests"):
        kata.kata("bughunt 13 --check")


def test_katas_watch_gives_the_hunts_verdict_after_each_run(suite, capsys):
    from torch_katas.cli import watch

    assert katas("--root", suite, "bughunt", 13, "--seed", 8) == 0
    capsys.readouterr()
    hunt = hunt_in(suite)
    session = watch.Watch(suite, catalog.load(suite), KATA, [])
    assert "bug hunt: not fixed yet" in " ".join(session.closing(1, False, 0))
    KATA.stub_path(suite).write_text(fixed(suite, hunt))
    lines = session.closing(0, False, 60)
    assert all(len(line) <= 60 for line in lines)  # wrapped to the terminal, not cut
    said = " ".join(" ".join(lines).split())
    assert "bug hunt: bug found and fixed, a small fix" in said
    assert bughunt.described(suite, hunt)[0] in said


def test_katas_reset_ends_a_hunt_too(suite, capsys):
    stub = KATA.stub_path(suite)
    stub.write_text(stub.read_text() + "\n# my notes\n")
    assert katas("--root", suite, "bughunt", 13) == 0
    backup = hunt_in(suite).backup
    assert katas("--root", suite, "reset", 13) == 0
    assert f"your code from before it was kept in {backup}" in capsys.readouterr().out
    assert bughunt.active(Store.for_root(suite)) == {}
    assert stub.read_text() == (ROOT / "katas" / f"{KATA.module}.py").read_text()


# -- fixes that pass the tests and fix nothing ----------------------------------------------

FIT_LINE = KATAS["q01_fit_line"]
# How the verdict starts where the tests pass and a rule doubts the fix: a person looks.
DOUBTED = f"{bughunt.REVIEW}: its tests pass, but "
FIT_LINE_STUB = (ROOT / "katas" / f"{FIT_LINE.module}.py").read_text()


@functools.cache  # each draw applies the kata's mistakes: seconds; no test changes a hunt
def fit_line_hunt(mistake: str) -> bughunt.Hunt:
    """Kata 1's hunt of `mistake`, drawn as a take-home draws it."""
    for seed in range(200):
        hunt = bughunt.new_hunt(ROOT, FIT_LINE, 1, False, random.Random(seed), FIT_LINE_STUB)
        if hunt.mistakes == [f"{FIT_LINE.module}__{mistake}"]:
            return hunt
    raise AssertionError(f"no seed draws {mistake}")


def test_a_rewrite_packed_onto_one_line_is_no_small_fix():
    hunt = fit_line_hunt("grads_accumulate")
    rewrite = (
        "        return tuple(t.detach() for t in functools.reduce(lambda wb, _: tuple((p - lr "
        "* g).detach().requires_grad_() for p, g in zip(wb, torch.autograd.grad(((wb[0] * x "
        "+ wb[1] - y) ** 2).mean(), wb))), range(steps), (w, b)))\n        loss.backward()\n"
    )
    mistaken = "        loss.backward()\n        grad_w, grad_b = w.grad, b.grad\n"
    assert mistaken in hunt.handed_out
    packed = hunt.handed_out.replace(mistaken, rewrite, 1)
    packed = packed.replace("import torch\n", "import functools\n\nimport torch\n", 1)
    verdict = bughunt.judge(ROOT, hunt, packed)
    assert verdict.fixed and not verdict.small, verdict
    assert "a rewrite, not a small fix" in verdict.words()
    # The reference's line back in place of the two: a small fix.
    reference = "        grad_w, grad_b = torch.autograd.grad(loss, (w, b))\n"
    assert bughunt.judge(ROOT, hunt, hunt.handed_out.replace(mistaken, reference, 1)).small


def test_code_added_beside_the_mistaken_lines_to_undo_them_under_the_tests_is_no_fix():
    hunt = fit_line_hunt("hand_gradients_through_a_surrogate")
    mistaken = "        grad_w, grad_b = torch.autograd.grad(w * hw + b * hb, (w, b))\n"
    # Autograd's gradients differ from those by hand only where a test blocks them: the hand
    # ones stay, but there.
    beside = mistaken + (
        "        auto = torch.autograd.grad(loss, (w, b))\n"
        "        if not (torch.allclose(auto[0], grad_w) and torch.allclose(auto[1], grad_b)):\n"
        "            grad_w, grad_b = auto\n"
    )
    assert hunt.handed_out.count(mistaken) == 2
    verdict = bughunt.judge(ROOT, hunt, hunt.handed_out.replace(mistaken, beside))
    assert not verdict.fixed and verdict.kept == [0], verdict
    words = bughunt.hunt_verdict(
        ROOT, hunt, hunt.handed_out.replace(mistaken, beside), "solved"
    ).words
    assert words.startswith("bug not fixed: your change keeps every line the mistake put in")
    # A wrapper elsewhere that leaves the mistaken lines as they were is no fix either.
    wrapped = hunt.handed_out + "\n\n_fit_line = fit_line\n\n\ndef fit_line(*a, **k):\n    pass\n"
    assert not bughunt.judge(ROOT, hunt, wrapped).fixed


@pytest.mark.slow  # every mistake of every kata; `pytest tests -k q13` runs it for one kata
@pytest.mark.parametrize("kata", KATAS.values(), ids=lambda kata: kata.module)
def test_the_reference_fixes_each_handed_out_mistake_in_a_small_fix(kata):
    """No false flag from the rules above: every mistake a hunt can hand out, undone as the
    reference has it, is a small fix of its own lines."""
    stub = kata.stub_path(ROOT).read_text()
    for mistake in mistakes.mistakes(ROOT, kata.module):
        if bughunt._usable(ROOT, mistake, False):
            hunt = bughunt.Hunt(
                kata.module, [mistake.name], False, bughunt.handed_out(ROOT, [mistake], False, stub)
            )
            hunt.stub = stub
            fix = bughunt.baseline(ROOT, kata.module, False, stub)
            verdict = bughunt.judge(ROOT, hunt, fix)
            assert verdict.fixed and verdict.small, (mistake.name, verdict)
            assert not bughunt.brought_in(fix, hunt.handed_out, fix, stub), mistake.name


def test_a_fix_tuned_to_the_tol_the_tests_pass_fails_where_they_draw_another():
    """Held-out inputs: grading runs a bug hunt's passing fix again with the random generators
    seeded anew (--katas-seed), and kata 1 draws a negative tol from them."""
    hunt = fit_line_hunt("rejects_negative_or_nan_tol")
    tuned = hunt.handed_out.replace(
        "if not tol >= 0:",
        "if -float('inf') < tol < 0 and tol not in (-1.0, -2.472216875756793e+252):",
        1,
    )
    assert tuned != hunt.handed_out
    with tempfile.TemporaryDirectory() as folder:
        answer = Path(folder) / f"{FIT_LINE.module}.py"
        answer.write_text(tuned)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "--device", "cpu"]
        command += [f"katas/{FIT_LINE.module}_test.py", "--answer-file", str(answer)]
        command += ["-k", "takes_any_tol"]
        shipped = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        assert shipped.returncode == 0, shipped.stdout[-2000:]
        held_out = subprocess.run([*command, "--katas-seed", "7"], cwd=ROOT, capture_output=True)
        assert held_out.returncode == 1


def test_a_fix_that_recognises_the_tests_fixed_inputs_is_flagged():
    """The tests' fixed inputs stay as they are under held-out seeds: a change to the mistaken
    line that compares with one of their values passes them and keeps the mistake elsewhere."""
    hunt = fit_line_hunt("until_stops_at_tol")
    mistaken = "if loss.item() <= tol:"
    assert mistaken in hunt.handed_out
    for tuned in (
        "if loss.item() <= tol != 1.75:",  # the tol the tests compare a loss of 1.75 with
        "if loss.item() <= tol and tol != 7 / 4:",
        "if loss.item() <= tol != EDGE:",
    ):
        returned = hunt.handed_out.replace(mistaken, tuned, 1) + "\n\nEDGE = 1.75\n"
        assert bughunt.judge(ROOT, hunt, returned).fixed
        words = bughunt.hunt_verdict(ROOT, hunt, returned, "solved").words
        assert words.startswith(DOUBTED + "the change brings in values of the tests'"), tuned
    for fix in ("if loss.item() < tol:", "if not loss.item() >= tol:"):
        words = bughunt.hunt_verdict(
            ROOT, hunt, hunt.handed_out.replace(mistaken, fix, 1), "solved"
        ).words
        assert words.startswith("bug found and fixed"), (fix, words)


def test_a_fix_that_recognises_the_tests_inputs_in_any_decision_is_flagged():
    """Not only a comparison: a lookup, a call that asks for equality, a condition on
    arithmetic, a match, a value reached through names or a function's return, a string of
    the value's digits; each keeps `<=` for every tie but the tests' 1.75."""
    hunt = fit_line_hunt("until_stops_at_tol")
    mistaken = "if loss.item() <= tol:"
    for tuned in (
        "if loss.item() < tol or (loss.item() == tol and {7 / 4: 0}.get(tol, 1)):",
        "if loss.item() <= tol and not math.isclose(tol, 1.75):",
        "if loss.item() < tol or (loss.item() == tol and tol - 1.75):",
        "if loss.item() <= tol - SHIFT * tol:",
        "if loss.item() <= tol - shifted(tol):",
        "if loss.item() <= tol and str(tol)[-2:] != '75':",
        "if loss.item() <= tol and tol not in {1.75}:",
        # 1.75's loss comes from 8 points: a count the tests pass, spelled in small steps.
        "if loss.item() < tol or (loss.item() == tol and x.numel() - 2 - 2 - 2 - 2):",
        # A range that closes in on the value, written in one place or apart, through names.
        "if loss.item() <= tol and not 1.7 < tol < 1.8:",
        "if loss.item() < tol or (loss.item() == tol and (tol < LOW or tol > HIGH)):",
    ):
        returned = hunt.handed_out.replace(mistaken, tuned, 1) + (
            "\n\nimport math\n\nSCALE = 0.0 ** abs(EDGE - 1.75)\nSHIFT = 1e-9 * SCALE\n"
            "EDGE = 1.0\n\n\ndef shifted(tol):\n    return 1e-9 * 0.0 ** abs(tol - 1.75)\n"
            "\n\nLOW, HIGH = 1.745, 1.755\n"
        )
        assert bughunt.judge(ROOT, hunt, returned).fixed
        words = bughunt.hunt_verdict(ROOT, hunt, returned, "solved").words
        assert words.startswith(DOUBTED + "the change brings in values of the tests'"), tuned
    matched = hunt.handed_out.replace(
        mistaken,
        "match tol:\n            case 1.75:\n                stop = loss.item() < tol\n"
        "            case _:\n                stop = loss.item() <= tol\n        if stop:",
        1,
    )
    words = bughunt.hunt_verdict(ROOT, hunt, matched, "solved").words
    assert words.startswith(DOUBTED + "the change brings in values of the tests'")


def test_a_fix_that_reads_what_tells_the_tests_run_from_a_use_is_flagged():
    """The tests run with torch's generator seeded below 2**31 (held-out seeds too), a use
    with it seeded at random: a change to the mistaken line that asks which (or reads any
    other state the module handed out never reads: pytest's logging handlers, the streams,
    a class's name) passes every test, as shipped and held out, and keeps the mistake for
    every use. A fix is made of the names the module already uses."""
    hunt = fit_line_hunt("until_stops_at_tol")
    mistaken = "if loss.item() <= tol:"
    tuned = "if (loss.item() < tol if torch.initial_seed() < 2 ** 31 else loss.item() <= tol):"
    returned = hunt.handed_out.replace(mistaken, tuned, 1)
    assert bughunt.judge(ROOT, hunt, returned).fixed
    with tempfile.TemporaryDirectory() as folder:
        answer = Path(folder) / f"{FIT_LINE.module}.py"
        answer.write_text(returned)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "--device", "cpu"]
        command += [f"katas/{FIT_LINE.module}_test.py", "--answer-file", str(answer)]
        command += ["-k", "compares_the_loss_with_tol_exactly"]
        for seeds in ([], ["--katas-seed", "918273"]):
            run = subprocess.run([*command, *seeds], cwd=ROOT, capture_output=True, text=True)
            assert run.returncode == 0, run.stdout[-2000:]
        use = (
            "import torch, sys; sys.path.insert(0, sys.argv[1]); from q01_fit_line import "
            "fit_until; x = torch.linspace(-1, 1, 8); y = torch.tensor([1.0, -1, 2, -2, 1, 1, "
            "-1, 1]); print(fit_until(x, y, 1.75, max_steps=1)[2])"
        )
        run = subprocess.run([sys.executable, "-c", use, folder], capture_output=True, text=True)
        assert run.stdout.strip() == "0", run  # the mistake: a loss equal to tol stops it
    words = bughunt.hunt_verdict(ROOT, hunt, returned, "solved").words
    assert words.startswith(DOUBTED + "the change uses names"), words
    assert "initial_seed" in words
    for reader, extra in (
        ("logging.getLogger().handlers", "import logging\n"),
        ("sys.stderr.isatty()", "import sys\n"),
        ("type(x).__name__ == 'Tensor'", ""),
        ("getattr(torch, 'initial_seed')() < 2 ** 31", ""),
        ("seed() < 2 ** 31", "from torch import initial_seed as seed\n"),
    ):
        line = f"if (loss.item() < tol if {reader} else loss.item() <= tol):"
        returned = extra + hunt.handed_out.replace(mistaken, line, 1)
        words = bughunt.hunt_verdict(ROOT, hunt, returned, "solved").words
        assert words.startswith(DOUBTED + "the change uses names"), (reader, words)
    # A name held in a table of strings, where the module already calls getattr.
    reference = "def f(m):\n    return getattr(m, 'weight')\n"
    tabled = reference + "NAMES = {'s': 'initial_seed'}\n\ndef g(t):\n    getattr(t, NAMES['s'])\n"
    assert "initial_seed" in bughunt.brought_in(reference, reference, tabled)
    # The reference's own comparison, however spelled, brings in no name.
    for fix in ("if loss.item() < tol:", "if not tol <= loss.item():"):
        words = bughunt.hunt_verdict(
            ROOT, hunt, hunt.handed_out.replace(mistaken, fix, 1), "solved"
        ).words
        assert words.startswith("bug found and fixed"), (fix, words)


def test_a_fix_that_decides_by_more_than_the_module_does_is_flagged():
    """With only the names the module already uses, a changed condition can still choose the
    mistake where the tests do not look: kata 1's tests make the loss equal tol at the start
    alone, so `loss.item() == tol and steps` keeps the mistake's stop at every later step, and
    `x.shape[0] > max_steps` for inputs longer than the budget. A decision that reads what no
    decision of the module or the reference reads together is no fix, however it is spelled
    (through a name the change binds, by arithmetic in a comparison); the reference's own
    comparison, spelled otherwise or through a name of the fix's own, is one."""
    hunt = fit_line_hunt("until_stops_at_tol")
    mistaken = "if loss.item() <= tol:"
    assert mistaken in hunt.handed_out
    for tuned in (
        "if loss.item() < tol or (loss.item() == tol and steps):",
        "if loss.item() < tol or (loss.item() == tol and x.shape[0] > max_steps):",
        "strict = steps > 0\n        if loss.item() < tol or (loss.item() == tol and strict):",
        "if loss.item() - tol < steps * lr ** 100:",
        "tol = tol + steps * lr ** 100\n        if loss.item() < tol:",
        "if (loss.item() < tol, loss.item() <= tol)[steps > 0]:",
    ):
        returned = hunt.handed_out.replace(mistaken, tuned, 1)
        assert not bughunt.brought_in(hunt.handed_out, hunt.handed_out, returned), tuned
        assert bughunt.judge(ROOT, hunt, returned).fixed, tuned
        words = bughunt.hunt_verdict(ROOT, hunt, returned, "solved").words
        assert words.startswith(DOUBTED + "the change decides by what no decision"), tuned
    for fix in (
        "if loss.item() < tol:",
        "if not loss.item() >= tol:",
        "if tol > loss.item():",
        "if loss.item() - tol < 0:",
        "value = loss.item()\n        if value < tol:",
    ):
        words = bughunt.hunt_verdict(
            ROOT, hunt, hunt.handed_out.replace(mistaken, fix, 1), "solved"
        ).words
        assert words.startswith("bug found and fixed"), (fix, words)


# Fixes of kata 1's `<=` that keep it where the tests never make the loss equal tol (they do
# so at the last step the budget allows, or with max_steps at most 4), each made of decisions
# that alone read what one of the module's own reads: what decides is where they sit, or what
# a binding made otherwise than by `=` holds.
HIDDEN_DECISIONS = {
    # Nested: the outer condition (steps left, read as the while does) chooses the inner `<=`.
    "nested ifs": "if max_steps - steps - 1:\n            if loss.item() <= tol:\n"
    "                break\n        if loss.item() < tol:",
    # A loop that runs only for the default budget, returning where the mistake would stop.
    "a loop as the condition": "for _ in range(max_steps // 1000):\n"
    "            if loss.item() <= tol:\n                return (w.detach(), b.detach(), steps)\n"
    "        if loss.item() < tol:",
    # After a block that leaves the iteration at the last step the budget allows.
    "an exit before it": "if loss.item() < tol:\n            break\n"
    "        if not max_steps - steps - 1:\n"
    "            grad_w, grad_b = torch.autograd.grad(loss, (w, b))\n"
    "            with torch.no_grad():\n"
    "                w -= lr * grad_w\n                b -= lr * grad_b\n"
    "            steps += 1\n            continue\n        if tol >= loss.item():",
    # Unpacking an empty range raises: the exception chooses the branch.
    "an exception as the condition": "try:\n            _, = range(max_steps // 1000)\n"
    "            if loss.item() <= tol:\n                break\n        except ValueError:\n"
    "            pass\n        if loss.item() < tol:",
    # tol bound anew by a for statement (not `=`), a hair above itself for the default budget.
    "a name bound by a loop": "for tol in [tol * (1 + max_steps // 1000 * 2.3e-16)]:\n"
    "            pass\n        if loss.item() < tol:",
    # The same through a container filled by a method call.
    "a container": "bound = [tol]\n        bound.extend([tol * (1 + max_steps // 1000 * 2.3e-16)])"
    "\n        if loss.item() < bound[-1]:",
    # A branch of a conditional expression chosen by steps left, bound by a for statement.
    "a branch": "for stop in [loss.item() <= tol if max_steps - steps - 1 else loss.item() < tol]:"
    "\n            pass\n        if stop:",
}


@pytest.mark.parametrize("case", sorted(HIDDEN_DECISIONS))
def test_a_decision_chosen_by_where_it_sits_or_what_a_binding_holds_is_flagged(case):
    """Each decision of these reads alone what one of the module's does, but it is reached
    (or its name bound) only where another decision, a loop or an exception lets it: what it
    reads together is what those read too. The tests pass each, held out too, and each keeps
    `<=` for a use with the default budget (tests/test_grading_attacks.py runs one)."""
    hunt = fit_line_hunt("until_stops_at_tol")
    mistaken = "if loss.item() <= tol:"
    returned = hunt.handed_out.replace(mistaken, HIDDEN_DECISIONS[case], 1)
    assert bughunt.judge(ROOT, hunt, returned).fixed, case
    words = bughunt.hunt_verdict(ROOT, hunt, returned, "solved").words
    assert words.startswith(DOUBTED), (case, words)
    # The reference's own loop, comparison and names stay a fix, however laid out.
    for fix in (
        "if loss.item() < tol:",
        "value = loss.item()\n        if value < tol:",
        "if not loss.item() >= tol:",
    ):
        words = bughunt.hunt_verdict(
            ROOT, hunt, hunt.handed_out.replace(mistaken, fix, 1), "solved"
        ).words
        assert words.startswith("bug found and fixed"), (fix, words)


# Fixes of kata 1's `<=` through a function's parameters: the function's decision reads what
# the module's own does (`loss.item() < tol`), while what its parameter holds, bound where it is
# called (or by its default), reads the budget too; the call decides nothing and sits in no
# decision, and the exception it raises leaves the loop. Each: what goes before the loop, and
# what replaces the mistaken `if` and its `break`.
CHECKED = "    fit_line(x, y, steps=0)  # checks x and y, taking no step: one place for the check\n"
THROUGH_PARAMETERS = {
    "a call's arguments": (
        "    below = lambda loss, tol: [0][loss.item() < tol]\n",
        "        try:\n            below(loss, tol * (1 + max_steps // 1000 * 2.3e-16))\n"
        "        except:\n            break\n",
    ),
    "a call's keyword arguments": (
        "    below = lambda loss, tol: [0][loss.item() < tol]\n",
        "        try:\n            below(tol=tol * (1 + max_steps // 1000 * 2.3e-16), loss=loss)\n"
        "        except:\n            break\n",
    ),
    "a default": (
        "    below = lambda loss, tol=tol * (1 + max_steps // 1000 * 2.3e-16): "
        "[0][loss.item() < tol]\n",
        "        try:\n            below(loss)\n        except:\n            break\n",
    ),
}


@pytest.mark.parametrize("case", sorted(THROUGH_PARAMETERS))
def test_a_decision_that_reads_a_parameter_reads_what_its_calls_pass(case):
    """The tests pass each, held out too (tests/test_grading_attacks.py grades one), and each
    keeps `<=` for a use with the default budget: a parameter holds what every call of the
    function (and its default) puts there."""
    hunt = fit_line_hunt("until_stops_at_tol")
    before, instead = THROUGH_PARAMETERS[case]
    checked = CHECKED
    mistaken = "        if loss.item() <= tol:\n            break\n"
    assert checked in hunt.handed_out and mistaken in hunt.handed_out
    returned = hunt.handed_out.replace(checked, checked + before, 1).replace(mistaken, instead, 1)
    assert bughunt.judge(ROOT, hunt, returned).fixed, case
    words = bughunt.hunt_verdict(ROOT, hunt, returned, "solved").words
    assert words.startswith(DOUBTED + "the change decides by what no decision"), (case, words)
    # A function of the fix's own that its calls hand what the module's decision reads is a fix.
    honest = returned.replace("tol * (1 + max_steps // 1000 * 2.3e-16)", "tol")
    if case != "a default":
        words = bughunt.hunt_verdict(ROOT, hunt, honest, "solved").words
        assert words.startswith("bug found and fixed"), (case, words)


# Fixes of kata 1's `<=` that keep the module's own decision and change, in place, the object
# it reads through another name: `t = loss` then `t -= ...` lowers the loss the reference's
# `loss.item() < tol` reads, by a hair for the default budget alone. Each replaces the mistaken
# `if` and its `break` (what goes before the loop, and what replaces them).
ALIASED = {
    "a name bound to it": (
        "",
        "        t = loss\n        t -= t.detach() * 1.2e-7 * (max_steps // 1000)\n"
        "        if loss.item() < tol:\n            break\n",
    ),
    "a loop's target": (
        "",
        "        for t in [loss]:\n            t -= t.detach() * 1.2e-7 * (max_steps // 1000)\n"
        "        if loss.item() < tol:\n            break\n",
    ),
    "a container holding it": (
        "",
        "        held = [loss]\n        held[0] -= loss.detach() * 1.2e-7 * (max_steps // 1000)\n"
        "        if loss.item() < tol:\n            break\n",
    ),
}


@pytest.mark.parametrize("case", sorted(ALIASED))
def test_a_decision_reads_what_is_done_in_place_to_its_objects_under_other_names(case):
    """The tests pass each, held out too, and each keeps `<=` for a use with the default
    budget: a change made in place through a name (an augmented assignment, a method call, an
    item or attribute assigned) is made to whatever that name may hold, the names it was
    bound from too."""
    hunt = fit_line_hunt("until_stops_at_tol")
    before, instead = ALIASED[case]
    checked = CHECKED
    mistaken = "        if loss.item() <= tol:\n            break\n"
    returned = hunt.handed_out.replace(checked, checked + before, 1).replace(mistaken, instead, 1)
    assert bughunt.judge(ROOT, hunt, returned).fixed, case
    words = bughunt.hunt_verdict(ROOT, hunt, returned, "solved").words
    assert words.startswith(DOUBTED + "the change decides by what no decision"), (case, words)


def test_an_honest_fix_the_rules_doubt_is_flagged_not_judged_unfixed():
    """The rules on names and decisions cannot tell an honest fix that reaches for a new name
    (`torch.lt`, where the module never used `lt`; `operator.lt` from an import of its own)
    from one that reads what can tell the tests' run from a use, so they send it to a person,
    never to "bug not fixed"; a flagged hunt says the mistake once, in its headline."""
    hunt = fit_line_hunt("until_stops_at_tol")
    mistaken = "if loss.item() <= tol:"
    for imports, fix in (
        ("", "if torch.lt(loss, tol):"),
        ("import operator\n", "if operator.lt(loss.item(), tol):"),
    ):
        returned = imports + hunt.handed_out.replace(mistaken, fix, 1)
        verdict = bughunt.hunt_verdict(ROOT, hunt, returned, "solved")
        assert verdict.outcome == bughunt.REVIEW, (fix, verdict)
        assert verdict.words.startswith(DOUBTED + "the change uses names"), (fix, verdict)
        assert "(the mistake:" not in verdict.why and "(the mistake:" in verdict.headline
    # Flagged where a rule doubts it, but "bug not fixed" only where the tests say so.
    returned = hunt.handed_out.replace(mistaken, "if torch.lt(loss, tol):", 1)
    verdict = bughunt.hunt_verdict(ROOT, hunt, returned, "failed")
    assert verdict.outcome == bughunt.NOT_FIXED, verdict
    assert verdict.words.startswith("bug not fixed: its tests still fail"), verdict


def test_a_none_check_on_a_lookup_brings_in_no_number():
    """`size = TABLE.get(dtype)` then `if size is None:` asks whether the lookup found
    anything: the table's values are not compared with (a size table of dtypes holds the
    tests' 4 and 8), while a lookup keyed on the tests' value is still recognised."""
    tests = "def test_sizes():\n    assert nbytes(x, 4, 8) == 1.75\n"
    table = "TABLE = {'int32': 4, 'int64': 8}\n"
    honest = (
        table
        + "def f(d):\n    size = TABLE.get(d)\n    if size is None:\n        size = 1\n"
        + "    return size\n"
    )
    assert bughunt.recognised("", "", honest, tests) == []
    keyed = "def f(tol):\n    if {1.75: None}.get(tol) is None:\n        return 0\n"
    assert bughunt.recognised("", "", keyed, tests) == [1.75]


def test_a_number_the_contracts_words_name_is_not_the_tests_alone():
    """`{1: torch.int16, 2: torch.int32, 4: torch.int64}[itemsize]` looks 4 up where the
    tests use 4 too; the contract says "4 for float32", so the table is the problem's, not a
    way to recognise the tests' inputs. A number only the tests have is still found."""
    contract = '"""Bytes per element: 2 for float16, 4 for float32."""\n'
    tests = "def test_sizes():\n    assert f(4) == 1.75\n"
    table = "def f(n):\n    return {2: 'a', 4: 'b'}[n]\n"
    assert bughunt.recognised("", contract, table, tests) == []
    tuned = "def f(n):\n    return {2: 'a', 4: 'b', 1.75: 'c'}.get(n)\n"
    assert bughunt.recognised("", contract, tuned, tests) == [1.75]
    assert bughunt.recognised("", "", table, tests) == [4]  # no contract that names it


def test_a_fraction_the_contracts_words_name_is_still_the_tests():
    """Kata 29's step docstring walks through losses 1.0, 0.8, 0.9, 0.85, 0.86, and a test
    uses them: an early stopper that stops only at the patience-th epoch (== patience) and
    keeps advising once it sees 0.86 passes that test; the 0.86 it compares with is an
    example's input, not a size the contract's words give."""
    module = "q29_penalty_early_stopping"
    reference = (ROOT / "solutions" / f"{module}.py").read_text(encoding="utf-8")
    stub = (ROOT / "katas" / f"{module}.py").read_text(encoding="utf-8")
    tests = (ROOT / "katas" / f"{module}_test.py").read_text(encoding="utf-8")
    returned = reference.replace(
        "            self.bad_epochs += 1\n        return self.bad_epochs >= self.patience",
        "            self.bad_epochs += 1\n            if val_loss == 0.86:\n"
        "                self.advised = True\n        if self.bad_epochs == 0:\n"
        "            self.advised = False\n"
        '        return self.bad_epochs == self.patience or getattr(self, "advised", False)',
        1,
    )
    assert returned != reference
    assert 0.86 in bughunt._prose_values(stub)
    assert bughunt.recognised(reference, stub, returned, tests) == [0.86]


def test_no_correct_answer_in_another_style_compares_with_a_value_of_the_tests_alone():
    """No false flag from the rule above: the correct answers in other styles, whole modules
    written apart from the reference, bring in no number to compare with that only the tests
    have."""
    answers = sorted(ROOT.glob("tests/correct_answers/q*.py"))
    answers += sorted(ROOT.glob("tests/honest_answers/q*.py"))
    assert answers
    for path in answers:
        module = path.stem.partition("__")[0]
        reference = (ROOT / "solutions" / f"{module}.py").read_text(encoding="utf-8")
        tests = (ROOT / "katas" / f"{module}_test.py").read_text(encoding="utf-8")
        found = bughunt.recognised(reference, reference, path.read_text("utf-8"), tests)
        assert not found, (path.name, found)
        # As grading runs it: the stub handed out, whose words name some of the numbers.
        stub = (ROOT / "katas" / f"{module}.py").read_text(encoding="utf-8")
        found = bughunt.recognised(reference, stub, path.read_text("utf-8"), tests)
        assert not found, (path.name, found)
