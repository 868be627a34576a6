"""Every stub's `>>>` examples, run against the reference answer, so that the docstrings a
learner reads and the answers cannot drift apart.

The examples are read from the stub as committed (never imported: it raises
NotImplementedError) and run in the namespace of the kata's reference answer, one kata per
test.
"""

import ast
import doctest
import importlib.util
import io
from pathlib import Path

import pytest

from torch_katas import catalog

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def docstrings(path: Path):
    """(qualified name, docstring, line) of the module and of every class and function."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def visit(node, prefix):
        body = getattr(node, "body", [])
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            yield prefix, body[0].value.value, body[0].lineno
        for child in body:
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield from visit(child, f"{prefix}.{child.name}")

    yield from visit(tree, path.stem)


def solution_namespace(kata: catalog.Kata) -> dict:
    """The reference answer's module namespace, loaded under a private name."""
    path = kata.solution_path(ROOT)
    spec = importlib.util.spec_from_file_location(f"_docs_{kata.module}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(vars(module))


@pytest.mark.parametrize("kata", KATAS.values(), ids=lambda kata: kata.module)
def test_stub_examples_hold_for_the_reference_answer(kata, committed_stub, tmp_path, monkeypatch):
    stub = committed_stub(kata)
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    namespace = solution_namespace(kata)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    report = io.StringIO()
    ran = 0
    # One namespace for the whole stub: later examples may use names set by earlier ones.
    for name, text, line in docstrings(stub):
        test = parser.get_doctest(text, namespace, name, str(stub), line - 1)
        test.globs = namespace  # get_doctest made a copy
        if test.examples:
            ran += len(test.examples)
            runner.run(test, out=report.write, clear_globs=False)
    assert ran, f"{stub.name} has no >>> example"
    assert runner.failures == 0, (
        f"{runner.failures} example(s) in katas/{stub.name} do not hold for "
        f"solutions/{stub.name}:\n{report.getvalue()}"
    )
