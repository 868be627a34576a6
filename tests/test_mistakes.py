"""Wrong answers stored as diffs: applied strictly, and stored from either form a contributor
writes (tests/store_mistakes.py)."""

from pathlib import Path

import pytest
import store_mistakes

from torch_katas.runtime import mistakes

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = (ROOT / "solutions" / "q01_fit_line.py").read_text(encoding="utf-8")
CHANGED = "        raise ValueError("
WRONG = "        raise TypeError("


def made(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"q01_fit_line__{name}.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_whole_wrong_module_is_stored_as_its_change_alone(tmp_path):
    assert REFERENCE.count(CHANGED) == 1
    wrong = REFERENCE.replace(CHANGED, WRONG).replace(
        '"""Kata 1: fit a line with autograd (reference answer)."""',
        '"""Wrong: raises TypeError for mismatched shapes."""',
    )
    diff, whole = store_mistakes.stored_form(made(tmp_path, "type_error", wrong))
    assert whole == REFERENCE.replace(CHANGED, WRONG)
    changed = [line for line in diff.splitlines() if line[:1] in "+-"]
    assert changed == ["-" + CHANGED, "+" + WRONG]
    assert diff.startswith("Wrong: raises TypeError for mismatched shapes.\n@@ ")
    assert mistakes.apply(REFERENCE, diff) == whole


def test_an_override_module_is_laid_over_its_reference(tmp_path):
    override = (
        '"""Wrong: returns the bias first."""\n\n'
        "from solutions.q01_fit_line import fit_line as reference\n\n\n"
        "def fit_line(x, y, steps=100, lr=0.1):\n"
        "    w, b = reference(x, y, steps, lr)\n"
        "    return b, w\n"
    )
    diff, whole = store_mistakes.stored_form(made(tmp_path, "bias_first", override))
    assert "from solutions.q01_fit_line import fit_line as reference" in whole
    assert "    return b, w" in whole and whole.count("def fit_line(") == 1
    assert mistakes.apply(REFERENCE, diff) == whole


def test_a_module_that_behaves_as_the_reference_is_not_stored(tmp_path):
    same = REFERENCE.replace("(reference answer)", "").replace('"""Kata', '"""Wrong: kata')
    with pytest.raises(ValueError, match="no mistake"):
        store_mistakes.stored_form(made(tmp_path, "none", same + "# a comment\n"))


def test_a_diff_applies_where_its_lines_moved_and_not_where_they_changed():
    mistake = mistakes.Mistake(
        ROOT / mistakes.WRONG_ANSWERS / f"q01_fit_line__grads_accumulate{mistakes.SUFFIX}"
    )
    applied = mistakes.apply(REFERENCE, mistake.text)
    moved = "# a line above every hunk\n" + REFERENCE
    assert mistakes.apply(moved, mistake.text) == "# a line above every hunk\n" + applied
    line = next(line for line in mistake.text.splitlines() if line.startswith("-"))
    edited = REFERENCE.replace(line[1:], line[1:] + "  # edited")
    with pytest.raises(mistakes.PatchError, match="no longer applies"):
        mistakes.apply(edited, mistake.text)
