"""Take-homes in the testwrite mode: the candidate writes each kata's tests.

`katas takehome --mode testwrite` ships each kata's reference answer in place of its stub
(`katas/<module>.py`, so a plain `pytest` runs the candidate's tests against it) and a test
module to fill in (`katas/<module>_test.py`). Grading treats the returned test module as any
returned answer: it is read against the policy for returned code first (the imports a test
module needs added: the kata's module, the suite's testing helpers, and of pytest,
torch.testing and numpy.testing only what TESTING lists), then runs in the
same sandbox, under the same limits, with the same guards on what it reads and starts, in a
fresh copy of the suite holding the reference, the correct answers in other styles and the
curated mistakes (practice/testwrite.py runs them, one session, each answer in a process
forked from it, in an order of chance and under paths that say nothing: layout()).
The kata's verdict is the share of mistakes caught; a module that rejects a correct answer
is graded as an error, with the answer it rejected.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import random
import re
import secrets
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from torch_katas import catalog, status
from torch_katas.grading import policy, sandbox, schema, takehome
from torch_katas.grading.reports import FailureGroup, Flag, KataGrade
from torch_katas.practice import testwrite

__all__ = [
    "check",
    "grade_kata",
    "layout",
    "main",
]

ANSWERS = "answers"  # in the kata's copy of the suite: the folder of every answer's folder
# What a test module may import beyond what the kata's answers may: the suite's helpers, and of
# each only what its __all__ declares (none reaches the answer loop, the results, files or the
# process; the rest of their modules does: `facets.catalog` reads files).
HELPERS = {"testing", "op_families", "facets"}
# What a test module may use of pytest, torch.testing and numpy.testing: the assertions and
# the test's own markers. The rest reaches the run itself (importorskip imports any module,
# MonkeyPatch().setattr("a.dotted.path") patches anything, main, hookimpl, register_assert_rewrite).
# And of the standard modules the suite's own tests use beyond an answer's, the harmless parts:
# buffers, JSON and pickles written (not read: unpickling runs code), weak references, a
# function's signature (not its source).
TESTING = {
    "pytest": {
        "approx",
        "deprecated_call",
        "fail",
        "fixture",
        "importorskip",  # with a module's name the test module could import (IMPORTORSKIP)
        "mark",  # any marker: parametrize, skipif, xfail, slow...
        "param",
        "raises",
        "skip",
        "warns",
        "xfail",
    },
    "torch.testing": {"assert_close", "make_tensor"},
    "numpy.testing": {
        "assert_allclose",
        "assert_almost_equal",
        "assert_approx_equal",
        "assert_array_almost_equal",
        "assert_array_almost_equal_nulp",
        "assert_array_equal",
        "assert_array_less",
        "assert_array_max_ulp",
        "assert_equal",
        "assert_raises",
        "assert_string_equal",
        "assert_warns",
    },
    "io": {"BytesIO", "StringIO"},
    "json": {"dumps", "loads", "JSONDecodeError"},
    "datetime": {"timedelta"},
    "pickle": {"dumps", "PicklingError", "UnpicklingError", "HIGHEST_PROTOCOL"},
    "weakref": {"ref", "WeakSet", "WeakKeyDictionary", "WeakValueDictionary"},
    "inspect": {"signature", "Parameter", "isclass", "isfunction", "getattr_static"},
    "multiprocessing": {"get_all_start_methods"},
    "os": {"cpu_count", "getpid"},  # all the kata's entry allows where it adds os
    "torch.overrides": {"TorchFunctionMode", "resolve_name"},  # a mode that sees the answer's ops
}
# What the answer policy refuses that a test module may do: it checks the answer, and none of
# these reaches the answer loop, the results, the file system or the process.
HARMLESS = {
    "module": re.compile(r"uses the module [\w.]+ as a value"),  # its attributes stay checked
    "definition": re.compile(r"defines __torch_function__"),  # a mode's hook, as above
    "class": re.compile(
        r"subclasses torch\.overrides\.TorchFunctionMode |uses TorchFunctionMode \(a mode sees"
    ),
    # Hooks a test installs to watch the answer (saved tensors, optimizer steps, module calls):
    # each answer's tests run in a process of their own, so none outlives that answer.
    "attribute": re.compile(
        r"uses (saved_tensors_hooks|register_\w+_hook) \(registers with a process-wide registry\)$"
    ),
    "dunder": re.compile(r"uses the attribute __get__$"),  # a descriptor's read
    # A name of torch set on the test's own object (`loader.multiprocessing_context = "fork"`);
    # on a module or class (state that outlives the test) it stays refused.
    "patch": re.compile(
        r"assigns to [\w.]+: \w+ is a method or public name of torch or NumPy, "
        r"on an object the answer did not make"
    ),
    # Checkpoints in memory: torch.save anywhere the file guard lets it write, torch.load only
    # as CALLED says.
    "file": re.compile(r"uses torch\.(save|load) \("),
    # Protocol dunders, which a test names to forbid calls (`(torch.optim.Optimizer, "__init__")`)
    "string": re.compile(rf"names ({'|'.join(sorted(policy.DUNDER_ATTRIBUTES))}) in a string$"),
}
# What a test may use only where it calls it directly, with arguments that keep it harmless:
# the name of a module it may import; an attribute named by a literal, neither dunder nor private
# (as if written `x.name`); a checkpoint read without unpickling code.
CALLED = {
    "pytest.importorskip": "with the name of a module the test module may import",
    "inspect.getattr_static": "with an attribute's name, neither dunder nor private",
    "torch.load": "with weights_only=True (unpickling runs code)",
}
# Of the monkeypatch fixture, what reaches beyond the test's own objects: a dotted path patches
# any module (the harness's too), sys.path makes any folder importable, chdir moves the paths
# the answers are loaded from.
# (chdir: the policy refuses it on anything).
MONKEYPATCH_REFUSED = {"syspath_prepend": "makes any folder importable"}
# What a test may read of what `with pytest.raises(...) as caught` binds: the exception, not
# its traceback (frames, locals, the answer's file).
CAUGHT_ATTRIBUTES = {"value", "type", "typename", "match", "errisinstance", "exconly", "list"}
CATCHING = {"pytest.raises", "pytest.warns", "pytest.deprecated_call", "torch_katas.testing.raises"}
# Fixtures and attributes that reach pytest's session and its plugins, the grader's answer loop
# among them: a test module that holds them could rewrite which answers its tests failed on.
# Warning filters that name a place (a module, a line) or a warning raised from a caller's
# frame: a filter acts on where a warning was raised before any record is made, so a filter
# for one line, an `error` or `default` action and a stacklevel that walks up to the answer
# tell which of its lines call what. Each call's positional places of those arguments (the
# keywords are in policy.LOCATIONS); pytest's marker takes them in its string,
# "action:message:category:module:lineno".
PLACED = {"filterwarnings": 3, "simplefilter": 2, "warn": 2}
FILTER_CHANGES = {"insert", "append", "extend", "remove", "pop", "clear", "reverse", "sort"}
SESSION_FIXTURES = {"request", "pytestconfig", "pytester", "testdir", "cache"}
SESSION_ATTRIBUTES = {"config", "pluginmanager", "session", "ihook", "hook"}
CHILD = (
    "import os, sys; sys.path += sys.argv.pop(1).split(os.pathsep); "
    "from torch_katas.grading.testwrite import main; main()"
)


def check(source: str, kata: catalog.Kata, filename: str) -> list[policy.Finding]:
    """What the policy for returned code refuses in a returned test module."""
    extra = (*kata.imports, "pytest", "torch_katas", f"katas.{kata.module}", *TESTING)
    try:
        tree = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError):
        return policy.check(source, extra, filename, kata.allow)
    # What importorskip returns is the module: checked as if imported under that name.
    source += "".join(f"\nimport {module} as {name}" for name, module in skipped(tree))
    tree = ast.parse(source, filename=filename)
    found = [
        finding
        for finding in policy.check(source, extra, filename, kata.allow)
        if not (finding.rule in HARMLESS and HARMLESS[finding.rule].match(finding.text))
    ]
    found += _Testing(tree, extra, kata.imports).found
    if not any(policy.within("io", module) for module in kata.imports):
        # The policy reads the builtin open as io.open, which TESTING's io lets a test use.
        found += [
            policy.Finding(node.lineno, "builtin", "uses open (opens files)")
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and node.id == "open" and isinstance(node.ctx, ast.Load)
        ]
    allowed = {f"torch_katas.{name}" for name in HELPERS}
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 1)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for arg in ast.walk(node.args):
                if isinstance(arg, ast.arg) and arg.arg in SESSION_FIXTURES:
                    text = f"takes the fixture {arg.arg}, which reaches pytest's session"
                    found.append(policy.Finding(line, "session", text))
        names: Iterable[str] = ()
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module == "torch_katas":
            names = [f"torch_katas.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            inside = name == "torch_katas" or name.startswith("torch_katas.")
            if inside and not any(policy.within(name, helper) for helper in allowed):
                text = f"imports {name} (of the harness, a test may import only {sorted(allowed)})"
                found.append(policy.Finding(line, "import", text))
    unique = {(f.line, f.rule, f.text): f for f in found}
    return sorted(unique.values(), key=lambda f: (f.line, f.rule, f.text))


def skipped(tree: ast.Module) -> list[tuple[str, str]]:
    """`name = pytest.importorskip("module", ...)`: each (name, module)."""
    return [
        (node.targets[0].id, str(getattr(call.args[0], "value", "")))
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and (call := skip_call(node.value, tree)) is not None
    ]


def skip_call(node: ast.expr, tree: ast.Module) -> ast.Call | None:
    """`node` when it is `pytest.importorskip("module", ...)` (pytest under any name)."""
    pytest_names = {
        alias.asname or alias.name
        for imported in ast.walk(tree)
        if isinstance(imported, ast.Import)
        for alias in imported.names
        if alias.name == "pytest"
    }
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "importorskip"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in pytest_names
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and all(part.isidentifier() for part in node.args[0].value.split("."))
    ):
        return node
    return None


@functools.cache
def helpers() -> dict[str, set[str]]:
    """What a test may use of each of the suite's helper modules: the names its __all__
    declares (read on its source: grading imports no torch)."""
    declared: dict[str, set[str]] = {}
    for name in HELPERS:
        tree = ast.parse(Path(__file__).parent.parent.joinpath(f"{name}.py").read_text("utf-8"))
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                and isinstance(node.value, ast.List | ast.Tuple)
            ):
                listed = {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
                declared[f"torch_katas.{name}"] = {str(n) for n in listed}
    return declared


class _Testing:
    """The names a test module uses of pytest, torch.testing and numpy.testing (TESTING), and
    the attributes it reads of what pytest hands over (fixtures, what pytest.raises caught)."""

    def __init__(self, tree: ast.Module, extra: tuple[str, ...] = (), own: Iterable[str] = ()):
        self.found: list[policy.Finding] = []
        self.extra = extra
        # The modules the kata's answers may import: the policy reads them as for answers.
        self.limited = {
            package: allowed
            for package, allowed in {**TESTING, **helpers()}.items()
            if not any(policy.within(package, module) for module in own)
        }
        self.called: set[int] = set()  # ids of CALLED's names, called as it says
        self.imported: dict[str, str] = {}  # local name -> the dotted name it was imported as
        self.handed: set[str] = set()  # names bound to fixtures or to what pytest.raises caught
        self.caught: set[str] = set()  # names bound by `with pytest.raises(...) as name`
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.partition(".")[0]
                    self.imported[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    dotted = f"{node.module}.{alias.name}"
                    self.imported[alias.asname or alias.name] = dotted
                    self.use(dotted, node)
        # importorskip's module, where a name holds it, is checked as imported (check()).
        self.skips = {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr | ast.Assign)
            and skip_call(node.value, tree) is not None
            and (
                isinstance(node, ast.Expr)
                or (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name))
            )
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                self.call(node)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.fixtures(node)
            elif isinstance(node, ast.With | ast.AsyncWith):
                for item in node.items:
                    called = item.context_expr
                    target = item.optional_vars
                    if isinstance(called, ast.Call) and isinstance(target, ast.Name):
                        name = self.dotted(called.func)
                        if name in CATCHING:
                            self.caught.add(target.id)
        parents = {
            id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)
        }
        for node in ast.walk(tree):
            parent = parents.get(id(node))
            if isinstance(node, ast.Name | ast.Attribute) and not (
                isinstance(parent, ast.Attribute) and parent.value is node
            ):
                chain = self.dotted(node)
                if chain is not None:
                    self.use(chain, node)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                self.handed_attribute(node.value.id, node.attr, node)
            self.location(node, parent)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in policy.NAMED_ATTRIBUTES
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                base = self.dotted(node.args[0])
                if base is not None:
                    self.use(f"{base}.{node.args[1].value}", node)
                if isinstance(node.args[0], ast.Name):
                    self.handed_attribute(node.args[0].id, node.args[1].value, node)

    def location(self, node: ast.AST, parent: ast.AST | None) -> None:
        """What says where the answer's code is (policy.LOCATIONS)."""
        line = getattr(node, "lineno", getattr(parent, "lineno", 1))
        if (
            isinstance(node, ast.Subscript)
            and not isinstance(node.ctx, ast.Load)
            and self.dotted(node.value) == "warnings.filters"
        ):
            text = "changes warnings.filters in place, which says where code is (its lines)"
            self.found.append(policy.Finding(line, "location", text))
        named = None
        if isinstance(node, ast.Attribute):
            named = node.attr
        elif isinstance(node, ast.keyword):
            named = node.arg
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = node.value
        if named in policy.LOCATIONS:
            text = f"uses {named}, which says where code is (the answer's lines, its calls)"
            self.found.append(policy.Finding(line, "location", text))

    def dotted(self, node: ast.expr) -> str | None:
        """The dotted name an attribute chain stands for, where it starts at an import."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.imported:
            return None
        return ".".join([self.imported[node.id], *reversed(parts)])

    def call(self, node: ast.Call) -> None:
        """The calls CALLED names, where harmless; no monkeypatch of a dotted path or of
        sys.path."""
        line = node.lineno
        literals: list[object] = [
            a.value if isinstance(a, ast.Constant) else None for a in node.args
        ]
        name = self.dotted(node.func)
        if name in CALLED and self.harmless(name, node, literals):
            self.called.add(id(node.func))
        self.placed(node, name)
        if not isinstance(node.func, ast.Attribute):
            return
        if node.func.attr in ("setattr", "delattr") and literals and isinstance(literals[0], str):
            text = f"calls {node.func.attr} with a dotted path, which patches any module"
            self.found.append(policy.Finding(line, "session", text))
        elif (
            node.func.attr in ("setattr", "delattr")
            and len(node.args) >= 2
            and not isinstance(literals[1], str)  # as getattr's: the name may be any, unread
        ):
            text = f"calls {node.func.attr} with a name computed at run time"
            self.found.append(policy.Finding(line, "session", text))
        if node.func.attr in MONKEYPATCH_REFUSED:
            why = MONKEYPATCH_REFUSED[node.func.attr]
            self.found.append(policy.Finding(line, "session", f"calls {node.func.attr} ({why})"))

    def placed(self, node: ast.Call, name: str | None) -> None:
        """A warning filter that names a module or a line, a warning raised from a caller's
        frame (PLACED), or the list of filters changed in place."""
        called = node.func.attr if isinstance(node.func, ast.Attribute) else None
        called = called or (node.func.id if isinstance(node.func, ast.Name) else None)
        why = None
        if called in PLACED and (called != "warn" or name == "warnings.warn"):
            unpacked = any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None or k.arg == "module" for k in node.keywords
            )
            if unpacked or len(node.args) > PLACED[called]:
                why = f"calls {called} with a module, a line or a stacklevel"
        if called == "filterwarnings":
            specs = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if any(isinstance(v, str) and any(v.split(":")[3:5]) for v in specs):
                why = f"calls {called} with a module or a line in its specification"
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in FILTER_CHANGES
            and self.dotted(node.func.value) == "warnings.filters"
        ):
            why = "changes warnings.filters in place"
        if why:
            text = f"{why}, which says where code is (the answer's lines, its calls)"
            self.found.append(policy.Finding(node.lineno, "location", text))

    def harmless(self, name: str, node: ast.Call, literals: list[object]) -> bool:
        if name == "pytest.importorskip":
            module = literals[0] if literals else None
            return (
                id(node) in self.skips
                and isinstance(module, str)
                and policy.allowed_import(module, self.extra)
            )
        if name == "inspect.getattr_static":
            attribute = literals[1] if len(literals) > 1 else None
            return isinstance(attribute, str) and not attribute.startswith("_")
        keywords = {k.arg: k.value for k in node.keywords}
        only = keywords.get("weights_only")
        return isinstance(only, ast.Constant) and only.value is True

    def use(self, dotted: str, node: ast.AST) -> None:
        for name, how in CALLED.items():
            if policy.within(dotted, name) and id(node) not in self.called:
                text = f"uses {name} other than called {how}"
                self.found.append(policy.Finding(getattr(node, "lineno", 1), "testing", text))
                return
        for package, allowed in self.limited.items():
            if policy.within(dotted, package):
                part = dotted[len(package) + 1 :].partition(".")[0]
                if not part and package in helpers():  # `from torch_katas import testing`
                    continue
                if part not in allowed:
                    shown = f"{package}.{part}" if part else package
                    listed = ", ".join(sorted(allowed))
                    text = f"uses {shown} (of {package} a test may use only {listed})"
                    self.found.append(policy.Finding(getattr(node, "lineno", 1), "testing", text))

    def fixtures(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """The fixtures a test or fixture takes: its arguments, less those parametrized."""
        decorators = [
            self.dotted(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list
        ]
        if not node.name.startswith("test") and not any(
            d is not None and policy.within(d, "pytest.fixture") for d in decorators
        ):
            return
        parametrized: set[str] = set()
        for decorator in node.decorator_list:
            if (
                isinstance(decorator, ast.Call)
                and self.dotted(decorator.func) == "pytest.mark.parametrize"
                and decorator.args
                and isinstance(decorator.args[0], ast.Constant)
                and isinstance(decorator.args[0].value, str)
            ):
                parametrized |= {n.strip() for n in decorator.args[0].value.split(",")}
        arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        self.handed |= {a.arg for a in arguments if a.arg not in parametrized | {"self", "cls"}}

    def handed_attribute(self, name: str, attribute: str, node: ast.AST) -> None:
        line = getattr(node, "lineno", 1)
        if name in self.caught and attribute not in CAUGHT_ATTRIBUTES:
            text = (
                f"reads .{attribute} of what pytest.raises caught (a test may read only "
                f"{', '.join(sorted(CAUGHT_ATTRIBUTES))})"
            )
            self.found.append(policy.Finding(line, "session", text))
        elif name in self.handed and attribute in SESSION_ATTRIBUTES:
            text = f"reads .{attribute} of the fixture {name}, a part of pytest's session"
            self.found.append(policy.Finding(line, "session", text))


# -- grading one kata ------------------------------------------------------------------------


def grade_kata(
    kata: catalog.Kata,
    source: bytes,
    root: Path,
    scratch: Path,
    *,
    timeout: float,
    mode: str,
    forbidden: list[str],
    pytest_args: list[str],
) -> tuple[KataGrade, list[Flag]]:
    """Run the returned test module against every answer in the sandbox: the kata's grade."""
    place = scratch / kata.module
    suite, work = place / "suite", place / "work"
    files = takehome.suite_files(root, [kata], stubs=False)
    files[f"katas/{kata.module}.py"] = kata.solution_path(root).read_bytes()
    files[testwrite.returned_file(kata)] = source
    with tempfile.TemporaryDirectory(prefix="katas-answers-") as folder:
        answers = testwrite.answers_for(root, kata, Path(folder), mutants=False)
        answers, inside = layout(kata, answers)
        for answer, name in zip(answers, inside, strict=True):
            files[name] = answer.path.read_bytes()
    takehome.write_files(suite, files)
    plan = {
        "module": kata.module,
        "tests": testwrite.returned_file(kata),
        "answers": inside,
        "complete": 0,  # the plan is readable: it may not say which answers are correct
        "pytest_args": pytest_args,
    }
    (suite / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    for path in suite.rglob("*"):  # read-only: the candidate's code may not rewrite answers
        path.chmod(0o555 if path.is_dir() else 0o444)
    suite.chmod(0o555)
    work.mkdir()
    token = secrets.token_hex(16)
    paths = os.pathsep.join([str(suite), *sandbox.site_packages()])
    command = ["-I", "-S", "-B", "-c", CHILD, paths, sandbox.RESULTS_FD, "plan.json"]
    outcome = sandbox.run(
        command,
        suite=suite,
        work=work,
        mode=mode,
        timeout=timeout,
        stdin=f"{token}\n{json.dumps(forbidden)}",
        log=place / "log.txt",
    )
    grade = KataGrade(kata.title, status.ERROR, seconds=round(outcome.seconds, 2))
    stub = testwrite.returned_file(kata)
    if outcome.exceeded or outcome.returncode is None:
        grade.reason = f"its tests {outcome.exceeded or f'ran past the {timeout:g} s limit'}"
        return grade, []
    result, problems = read_results(outcome.messages, token)
    if outcome.overflow:
        problems.append(f"it wrote more than {sandbox.RESULTS_LIMIT // 2**20} MiB of results")
    flags = [Flag(text, "tampering", stub, kata.module) for text in problems]
    if problems:
        grade.verdict, grade.reason = status.FLAGGED, "; ".join(problems[:3])
        return grade, flags
    if result is None:
        grade.reason = "its tests' run reported nothing"
        return grade, []
    for answer, name in zip(answers, inside, strict=True):  # the child's names for them
        answer.path = Path(name)
    score = testwrite.judge(kata, answers, result)
    grade.passed, grade.total = len(score.caught), score.total
    grade.tests_run = [f"catches: {a.description}" for a in score.caught]
    if score.valid:
        grade.verdict = (
            status.SOLVED
            if not score.missed
            else status.PARTLY
            if score.caught
            else status.NOT_STARTED
        )
        grade.reason = score.last_line()
        if score.missed:
            grade.failures = [FailureGroup("missed", [a.description for a in score.missed])]
    else:
        grade.passed = 0
        grade.reason = score.last_line()
        grade.failures = [
            FailureGroup(f"fails on {answer.description}: {why}", [test.split("::")[-1]])
            for answer, test, why in score.rejected
        ]
    return grade, flags


def layout(
    kata: catalog.Kata, answers: list[testwrite.Answer]
) -> tuple[list[testwrite.Answer], list[str]]:
    """The answers in the order they run and the path of each in the suite's copy: an order
    of chance, each under the kata's module name in a folder named by chance, so that neither
    the order, nor a path, nor a count of imports tells the reference or a correct answer from
    a mistake."""
    shuffled = list(answers)
    random.SystemRandom().shuffle(shuffled)
    return shuffled, [f"{ANSWERS}/{secrets.token_hex(8)}/{kata.module}.py" for _ in shuffled]


def read_results(data: bytes, token: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The child's result, and what its guards refused or its messages got wrong (each a
    problem to flag). Nothing the child wrote makes this raise: a line that is not a grader's
    message (malformed, nested past the parser, without the token) or a second result is
    tampering."""
    result: dict[str, Any] | None = None
    problems: list[str] = []
    results = 0
    numbering = schema.Numbering()
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
            genuine = isinstance(event, dict) and event.get("token") == token
        except Exception:  # RecursionError, MemoryError...: whatever a crafted line raises
            genuine = False
        if not genuine:
            problems.append("its results were not all written by the grader")
            continue
        missing = numbering.missing(event)
        if missing:
            problems.append(missing)
        elif event.get("event") == "result":
            results += 1
            result = event.get("result") if isinstance(event.get("result"), dict) else None
        elif event.get("event") == "refused":
            problems.append(str(event.get("text"))[:300])
    if results > 1:  # the grader sends one: a first one sent by the tests would be kept
        problems.append(f"its results held {results} results where the grader sends one")
        result = None
    return result, list(dict.fromkeys(problems))


class Arm:
    """Arms the guards once the harness is loaded, before the first answer is imported: as
    the collection starts, in the process forked for each answer. The code guard protects
    the functions there are then."""

    def __init__(self, *guards: Any, code: Any = None):
        self.guards = guards
        self.code = code

    def pytest_collectstart(self, collector: object) -> None:
        for guard in self.guards:
            guard.armed = True
        if self.code is not None and not self.code.armed:
            self.code.protect()
            self.code.armed = True


def main() -> None:
    """The sandboxed process: run the plan's tests against its answers, report on the pipe."""
    from torch_katas.grading.child import BodiesRun, CodeGuard, Guard, ProcessGuard, sender

    exit_now = os._exit
    results, plan_file = sys.argv[1:3]
    token = sys.stdin.readline().strip()
    send = sender(int(results), token)
    forbidden = json.loads(sys.stdin.readline())
    allowed = [Path(p).resolve() for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}]
    allowed += [Path(p).resolve() for p in sys.path if p and "site-packages" in p]
    place = Path.cwd().resolve().parent
    plan = json.loads(Path(plan_file).read_text(encoding="utf-8"))
    guard = Guard(place, [Path(p) for p in forbidden], allowed, send)
    processes = ProcessGuard(Path.cwd() / plan["tests"], send)
    code = CodeGuard(Path.cwd() / "katas", send)
    sys.addaudithook(guard)
    sys.addaudithook(processes)
    sys.addaudithook(code)
    result = testwrite.run_answers(
        plan["module"],
        Path(plan["tests"]),
        [Path(p) for p in plan["answers"]],
        plan["complete"],
        plan["pytest_args"],
        plugins=[
            Arm(guard, processes, code=code),
            BodiesRun(lambda text: send("refused", text=text)),
        ],
    )
    send("result", result=result)
    exit_now(0)
