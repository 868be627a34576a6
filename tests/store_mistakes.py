"""Store wrong answers as the change each makes to its reference (tests/wrong_answers/*.diff).

    python tests/store_mistakes.py ~/q13_cross_entropy__sums_not_means.py   # store this one
    python tests/store_mistakes.py            # store every q*.py left in tests/wrong_answers/
    python tests/store_mistakes.py --shrink   # ... keeping only what the kata's tests need
    python tests/store_mistakes.py --restore  # every stored mistake again, in the current form

Write the wrong module whole (a copy of solutions/q13_cross_entropy.py with the mistake made)
or in the older form (the mistaken definitions written out, the rest imported from
solutions.q13_cross_entropy in one line), named q13_cross_entropy__<mistake>.py, its module
docstring saying what it gets wrong ("Wrong: ..."). The diff leaves out what changes no
behaviour (comments, annotations, docstrings, an exception's message unless it is the
mistake), so it shows the mistake alone. A .py stored from tests/wrong_answers/ is deleted.
With --shrink, the kata's tests run too: each change they do not need to reject the answer
is undone, and a form is stored only when every test that fails on the module as written
fails on it, in the same way (the same exception type).
"""

from __future__ import annotations

import argparse
import ast
import builtins
import copy
import difflib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from answer_loop import failing_each  # noqa: E402

from torch_katas import catalog  # noqa: E402
from torch_katas.runtime import mistakes  # noqa: E402
from torch_katas.runtime.mistakes import SUFFIX, WRONG_ANSWERS, apply, make_diff  # noqa: E402

Statement = ast.stmt


def span(node: Statement) -> tuple[int, int]:
    """The statement's lines, decorators included, as a slice of the source's lines."""
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(decorator.lineno for decorator in decorators)])
    return start - 1, node.end_lineno or node.lineno


def bound(node: Statement) -> set[str]:
    """The top-level names a statement binds."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {
            name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)
        }
    return set()


def imported(node: Statement) -> set[str]:
    """The names an import statement binds."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return set()


def is_docstring(node: Statement) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def whole_module(reference: str, wrong: str, module: str) -> str:
    """The wrong answer as a whole module with the reference's docstring: an override module
    (definitions written out, the rest imported from the reference) is laid over the
    reference, each definition in the place of the reference's own."""
    ref_tree, tree = ast.parse(reference), ast.parse(wrong)
    ref_lines, lines = reference.splitlines(), wrong.splitlines()
    body = [node for node in tree.body if not is_docstring(node)]
    from_reference = [
        node
        for node in body
        if isinstance(node, ast.ImportFrom) and node.module == f"solutions.{module}"
    ]
    ref_doc = [node for node in ref_tree.body[:1] if is_docstring(node)]
    if not from_reference:  # a whole answer: the reference's docstring, then its own code
        start = span(body[0])[0] if body else len(lines)
        return "\n".join([*ref_lines[: span(ref_doc[0])[1]], "", *lines[start:]]) + "\n"
    known_imports = {
        ast.unparse(node) for node in ref_tree.body if isinstance(node, ast.Import | ast.ImportFrom)
    }
    owner = {name: node for node in ref_tree.body for name in bound(node)}
    replaced: dict[int, list[str]] = {}  # a reference statement's id -> the lines in its place
    new_imports: list[str] = []
    pending: list[str] = []  # new definitions, placed before the next one that replaces
    for node in body:
        start, end = span(node)
        text = lines[start:end]
        if node in from_reference:
            # A reference function taken under another name (`fit_line as reference`, to
            # wrap it) has no place in the whole module: it still comes from the reference.
            renamed = [alias for alias in node.names if alias.asname not in (None, alias.name)]
            if renamed:
                new_imports.append(ast.unparse(ast.ImportFrom(node.module, renamed, 0)))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            if ast.unparse(node) not in known_imports:
                new_imports += text
            continue
        targets = [owner[name] for name in sorted(bound(node)) if name in owner]
        if targets:
            replaced.setdefault(id(targets[0]), []).extend([*pending, *text])
            pending = []
        else:
            pending += [*text, "", ""]
    out: list[str] = []
    done = 0
    last_import = max(
        (span(node)[1] for node in ref_tree.body if isinstance(node, ast.Import | ast.ImportFrom)),
        default=span(ref_doc[0])[1] if ref_doc else 0,
    )
    for node in ref_tree.body:
        start, end = span(node)
        out += ref_lines[done:start]
        out += replaced.get(id(node), ref_lines[start:end])
        done = end
        if end == last_import and new_imports:
            out += new_imports
            new_imports = []
    out += ref_lines[done:]
    if new_imports:
        out[:0] = new_imports
    if pending:
        out += ["", "", *pending]
    return "\n".join(out).rstrip("\n") + "\n"


def behaviour(source: str, messages: bool) -> str | None:
    """The module's code without docstrings and annotations (and, unless `messages`, the
    arguments of the exceptions it raises); None when it does not parse, or when an
    annotation names what the module does not import (annotations run at import)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    known = set(dir(builtins)) | {
        name for node in tree.body for name in bound(node) | imported(node)
    }
    annotations = [
        node.annotation for node in ast.walk(tree) if isinstance(node, ast.arg | ast.AnnAssign)
    ] + [node.returns for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    used = {
        name.id
        for annotation in annotations
        if annotation is not None
        for name in ast.walk(annotation)
        if isinstance(name, ast.Name)
    }
    if not used <= known:
        return None
    tree = copy.deepcopy(tree)
    for node in ast.walk(tree):
        documented = isinstance(
            node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        )
        if documented and node.body and is_docstring(node.body[0]):
            node.body = node.body[1:] or [ast.Pass()]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
        if isinstance(node, ast.arg):
            node.annotation = None
        if isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
        if not messages and isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            node.exc.args, node.exc.keywords = [], []
    return ast.dump(tree)


def code_of(line: str) -> str:
    """A line's code without its comment (as ruff formats it: two spaces, then #)."""
    return "#" if line.lstrip().startswith("#") else line.split("  # ")[0].rstrip()


def minimal(reference: str, wrong: str, messages: bool = False) -> str:
    """`wrong` with each of its differences from `reference` that changes no behaviour undone:
    first lines aligned by their code alone (comments dropped or changed), then as written."""
    target = behaviour(wrong, messages)
    ref, current = reference.splitlines(), wrong.splitlines()
    for key in (code_of, lambda line: line):
        changed = True
        while changed:
            changed = False
            matcher = difflib.SequenceMatcher(
                None, [key(line) for line in ref], [key(line) for line in current], autojunk=False
            )
            for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):
                if tag == "equal" and ref[i1:i2] == current[j1:j2]:
                    continue
                tries = [(j1, j2, ref[i1:i2])]
                if tag in ("replace", "equal") and i2 - i1 == j2 - j1:  # line by line
                    tries += [(j1 + k, j1 + k + 1, [ref[i1 + k]]) for k in range(i2 - i1)]
                for start, end, lines in tries:
                    candidate = current[:start] + lines + current[end:]
                    same = behaviour("\n".join(candidate), messages) == target
                    if candidate != current and same:
                        current, changed = candidate, True
                        break
                if changed:
                    break
    return with_comments(ref, current)


def with_comments(ref: list[str], current: list[str]) -> str:
    """`current` with the reference's comment lines put back where the changed lines around
    them dropped them: the ones before a change above it, the rest below."""
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, ref, current, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed = ref[i1:i2]
            lead = 0
            while lead < len(removed) and code_of(removed[lead]) == "#":
                lead += 1
            rest = [line for line in removed[lead:] if code_of(line) == "#"]
            out += removed[:lead] + current[j1:j2] + rest
        else:
            out += current[j1:j2]
    return "\n".join(out) + "\n"


def stored_form(path: Path, messages: bool = False) -> tuple[str, str]:
    """The mistake in `path` as (its diff's text, the whole module that diff applies to)."""
    module = catalog.module_of(path)
    if module is None or "__" not in path.stem:
        raise ValueError(f"{path}: name it <kata module>__<mistake>.py")
    wrong = path.read_text(encoding="utf-8")
    description = ast.get_docstring(ast.parse(wrong))
    if not description:
        raise ValueError(f"{path}: its module docstring says what it gets wrong (Wrong: ...)")
    reference = (ROOT / "solutions" / f"{module}.py").read_text(encoding="utf-8")
    whole = minimal(reference, whole_module(reference, wrong, module), messages)
    if behaviour(whole, True) == behaviour(reference, True):
        if not messages:  # the exception's message is the mistake
            return stored_form(path, messages=True)
        raise ValueError(f"{path}: behaves as the reference does: no mistake to store")
    diff = make_diff(reference, whole, description)
    assert apply(reference, diff) == whole, f"{path}: its diff does not give it back"
    return diff, whole


class Scratch:
    """Each form of an answer in a folder of its own, under its own name (no stale bytecode)."""

    def __init__(self, folder: Path):
        self.folder, self.count = folder, 0

    def write(self, name: str, text: str) -> Path:
        self.count += 1
        path = self.folder / str(self.count) / name
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
        return path


def changes(reference: list[str], whole: list[str]) -> list[tuple[int, int, int, int]]:
    """The changed blocks of `whole`, as (reference start, end, whole start, end)."""
    matcher = difflib.SequenceMatcher(None, reference, whole, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def undone(reference: list[str], whole: list[str], blocks: list) -> str:
    """`whole` with these changed blocks put back as in the reference."""
    lines = list(whole)
    for i1, i2, j1, j2 in sorted(blocks, key=lambda block: -block[2]):  # from the end
        lines[j1:j2] = reference[i1:i2]
    return "\n".join(lines) + "\n"


def literal_form(reference: str, path: Path) -> str:
    """The wrong module as written, under the reference's docstring: larger than the other
    forms (an override module keeps its import from the reference), but the same code."""
    lines = path.read_text(encoding="utf-8").splitlines()
    tree, ref_tree = ast.parse("\n".join(lines)), ast.parse(reference)
    ref_lines = reference.splitlines()
    head = ref_lines[: span(ref_tree.body[0])[1]] if is_docstring(ref_tree.body[0]) else []
    start = span(tree.body[0])[1] if tree.body and is_docstring(tree.body[0]) else 0
    return "\n".join([*head, *lines[start:]]) + "\n"


def undefined_names(paths: list[Path]) -> set[Path]:
    """The modules among `paths` that use a name they never define (ruff's F821): an undone
    block can leave a use whose definition it took away, in code the tests do not reach."""
    if not paths:
        return set()
    ruff = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache"]
    found = subprocess.run(
        [*ruff, "--select", "F821", "--output-format", "json", *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
    )
    return {Path(problem["filename"]) for problem in json.loads(found.stdout or "[]")}


def store_kata(module: str, files: list[Path], scratch: Scratch, shrink: bool) -> dict:
    """The whole module to store for each wrong module of one kata in `files`, or why not.

    Without `shrink`, each is its form with no behaviour changed but the mistake's. With it,
    the kata's tests run (one session per step, AnswerLoop): on the modules as written, then
    on the stored forms and each with one changed block undone, then on each with every block
    undone that the tests did not need; a form is kept only when every test that fails on the
    module as written fails on it too, in the same way, and it uses no name it does not
    define; where neither the plain form nor the one that keeps the exceptions' messages is,
    the module as written is stored.
    """
    reference = (ROOT / "solutions" / f"{module}.py").read_text(encoding="utf-8")
    ref = reference.splitlines()
    result: dict[Path, str] = {}
    forms: dict[Path, list[str]] = {}
    for path in files:
        try:
            forms[path] = [stored_form(path)[1], stored_form(path, messages=True)[1]]
        except (OSError, SyntaxError, ValueError) as error:
            result[path] = f"not stored: {error}"
    if not shrink:
        return {**result, **{path: form[0] for path, form in forms.items()}}
    before = failing_each(module, list(forms))
    candidates: dict[tuple, Path] = {}
    for path, (plain, with_messages) in forms.items():
        candidates[path, "plain"] = scratch.write(path.name, plain)
        candidates[path, "messages"] = scratch.write(path.name, with_messages)
        for block in changes(ref, plain.splitlines()):
            text = undone(ref, plain.splitlines(), [block])
            if text != reference and behaviour(text, True) is not None:
                candidates[path, block] = scratch.write(path.name, text)
    broken = undefined_names(list(candidates.values()))
    candidates = {key: answer for key, answer in candidates.items() if answer not in broken}
    # A block is tried on the CPU's tests alone; what is kept is checked on them all below.
    on_cpu = {
        path: {test for test in failed if "cpu" in test} or set(failed)
        for path, failed in before.items()
    }
    only = {answer: on_cpu[key[0]] for key, answer in candidates.items()}
    after = failing_each(module, list(candidates.values()), only=only)

    def as_wrong(key: tuple) -> bool:
        # The same tests fail the same way: an undone block that turned the mistake into a
        # NameError, say, fails them all too, but not as the mistake does.
        wanted = {test: how for test, how in before[key[0]].items() if test in on_cpu[key[0]]}
        return bool(wanted) and key in candidates and after[candidates[key]] == wanted

    combined: dict[Path, str] = {}
    for path, (plain, with_messages) in forms.items():
        if not before[path]:
            result[path] = "not stored: the kata's tests pass on it as written"
        elif as_wrong((path, "plain")):
            blocks = [b for b in changes(ref, plain.splitlines()) if as_wrong((path, b))]
            combined[path] = undone(ref, plain.splitlines(), blocks)
        elif as_wrong((path, "messages")):  # its exception's message is (part of) the mistake
            combined[path] = with_messages
        else:
            result[path] = literal_form(reference, path)
    answers = {path: scratch.write(path.name, text) for path, text in combined.items()}
    broken = undefined_names(list(answers.values()))
    everything = {answer: set(before[path]) for path, answer in answers.items()}
    checked = failing_each(module, list(answers.values()), only=everything) if answers else {}
    for path, answer in answers.items():
        if checked[answer] == before[path] and combined[path] != reference and answer not in broken:
            result[path] = combined[path]
        elif combined[path] == forms[path][1]:
            result[path] = literal_form(reference, path)
        else:  # blocks the tests did not need one by one were needed together: none go
            result[path] = forms[path][0] if as_wrong((path, "plain")) else forms[path][1]
    return {
        path: with_comments(ref, text.splitlines()) if not text.startswith("not stored") else text
        for path, text in result.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "files", nargs="*", type=Path, help="wrong modules (default: those in tests/wrong_answers/)"
    )
    parser.add_argument(
        "--shrink",
        action="store_true",
        help="run the kata's tests to keep only the changes they need to reject it (slower)",
    )
    parser.add_argument(
        "--restore",
        action="store_true",
        help="store every stored mistake again in the current form (after a change to it)",
    )
    args = parser.parse_args()
    folder = ROOT / WRONG_ANSWERS
    if args.restore:
        for mistake in mistakes.mistakes(ROOT):
            reference = mistake.reference(ROOT).read_text(encoding="utf-8")
            description = mistake.text.partition("\n@@ ")[0]
            mistake.path.write_text(
                make_diff(reference, mistake.source(ROOT), description), encoding="utf-8"
            )
        return 0
    files = args.files or sorted(folder.glob("q*__*.py"))
    by_kata: dict[str, list[Path]] = {}
    for path in files:
        by_kata.setdefault(catalog.module_of(path) or "", []).append(path)
    problems = 0
    with tempfile.TemporaryDirectory(prefix="katas-mistakes-") as folder_of_forms:
        scratch = Scratch(Path(folder_of_forms))  # one for every kata: no two forms share a folder
        for module, paths in by_kata.items():
            if not module:
                print(f"not stored: {', '.join(map(str, paths))}: named after no kata")
                problems += 1
                continue
            reference = (ROOT / "solutions" / f"{module}.py").read_text(encoding="utf-8")
            for path, whole in store_kata(module, paths, scratch, args.shrink).items():
                if whole.startswith("not stored"):
                    print(f"{path.name}: {whole}", flush=True)
                    problems += 1
                    continue
                description = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
                diff = make_diff(reference, whole, description or "")
                target = folder / f"{path.stem}{SUFFIX}"
                target.write_text(diff, encoding="utf-8")
                if path.resolve().parent == folder.resolve():
                    path.unlink()
                print(
                    f"stored {target.relative_to(ROOT)} ({len(diff.splitlines())} lines)",
                    flush=True,
                )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
