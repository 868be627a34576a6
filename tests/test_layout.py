"""The suite's shape: katas.toml, stubs, tests, solutions and wrong answers line up one to one."""

import ast
import copy
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

from torch_katas import catalog

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)
WRONG = ROOT / "tests" / "wrong_answers"
TOPIC = re.compile(r"[a-z][a-z_]*")


def load_module(path: Path):
    spec = importlib.util.spec_from_file_location(f"layout_check.{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def public_api(module, reference: str | None = None) -> dict[str, str]:
    """Public functions and classes a module defines (or re-exports via __all__), with
    signatures; for classes, their public methods too.

    With `reference` (a wrong answer's, "solutions.q13_cross_entropy"), the functions and
    classes the module imports from that module count too, and __all__ does not: a wrong
    answer writes out its mistake and takes the rest of the kata's API from the reference.
    """
    homes = {module.__name__} if reference is None else {module.__name__, reference}
    names = (None if reference else getattr(module, "__all__", None)) or [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(value) or inspect.isclass(value))
        and value.__module__ in homes
    ]
    api = {}
    for name in names:
        value = getattr(module, name)
        if inspect.isclass(value):
            api[name] = "class"
            for attr, member in vars(value).items():
                if inspect.isfunction(member) and (attr == "__init__" or not attr.startswith("_")):
                    api[f"{name}.{attr}"] = str(inspect.signature(member))
        else:
            api[name] = str(inspect.signature(value))
    return api


def imported_modules(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""]
    return [alias.name for alias in node.names]


def wrong_answers(module: str) -> list[Path]:
    return sorted(WRONG.glob(f"{module}__*.py"))


def behaviour(node: ast.stmt) -> str:
    """A definition's code, without its docstrings and type annotations."""
    node = copy.deepcopy(node)
    for sub in ast.walk(node):
        documented = isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        if documented and ast.get_docstring(sub, clean=False) is not None:
            sub.body = sub.body[1:] or [ast.Pass()]
        if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
            sub.returns = None
            for arg in ast.walk(sub.args):
                if isinstance(arg, ast.arg):
                    arg.annotation = None
    return ast.dump(node)


def bindings(tree: ast.Module, module: str, reference: dict | None = None) -> tuple[dict, dict]:
    """What each top-level name is bound to, and the nodes of the module's own definitions.
    With `reference` (the reference's bindings), a name imported from the kata's reference
    is bound to what the reference binds it to."""
    bound: dict[str, object] = {}
    defined: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = ("import", alias.name)
                else:  # `import a.b` binds `a`
                    bound[alias.name.split(".")[0]] = ("import", alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                name = alias.asname or alias.name
                if reference is not None and node.module == f"solutions.{module}":
                    bound[name] = reference.get(alias.name)
                else:
                    bound[name] = ("from", node.module, node.level, alias.name)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound[node.name] = behaviour(node)
            defined[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        bound[name.id] = behaviour(node)
                        defined[name.id] = node
    return bound, defined


def copied_from_reference(path: Path, module: str) -> list[str]:
    """A wrong answer's top-level definitions that are the reference's own, unchanged, and
    use nothing the wrong answer changed: the import from the reference can take them."""
    source = (ROOT / "solutions" / f"{module}.py").read_text(encoding="utf-8")
    reference, _ = bindings(ast.parse(source), module)
    bound, defined = bindings(ast.parse(path.read_text(encoding="utf-8")), module, reference)
    changed = {name for name, value in bound.items() if reference.get(name) != value}
    grew = True
    while grew:  # a copy that calls a changed definition behaves differently: it stays
        grew = False
        for name, node in defined.items():
            if name not in changed and any(
                isinstance(sub, ast.Name) and sub.id in changed for sub in ast.walk(node)
            ):
                changed.add(name)
                grew = True
    return sorted(name for name in defined if name not in changed and name != "__all__")


def test_catalog_entries_are_complete_and_consistent():
    numbers = [kata.number for kata in KATAS.values()]
    assert len(numbers) == len(set(numbers)), "two katas share a number"
    titles = [kata.title for kata in KATAS.values()]
    assert len(titles) == len(set(titles)), "two katas share a title"
    for kata in KATAS.values():
        assert kata.module.startswith(f"q{kata.number:02d}_"), kata
        assert catalog.KATA_MODULE.fullmatch(kata.module), kata
        assert TOPIC.fullmatch(kata.topic), f"{kata.module}: topic must be a marker name"
        assert kata.topic not in ("cuda", "slow"), f"{kata.module}: topic clashes with a marker"
        assert kata.difficulty in (1, 2, 3), kata
        assert len(kata.hints) >= 2 and all(hint.strip() for hint in kata.hints), kata


def test_every_file_belongs_to_a_kata_and_every_kata_has_its_files():
    expected = set(KATAS)
    allowed = {"__init__.py", "katas.toml"}
    kata_dir = {p.name for p in (ROOT / "katas").iterdir() if p.is_file()} - allowed
    assert kata_dir == {f"{m}.py" for m in expected} | {f"{m}_test.py" for m in expected}
    solutions = {p.name for p in (ROOT / "solutions").iterdir() if p.is_file()} - allowed
    assert solutions == {f"{m}.py" for m in expected}
    for path in WRONG.iterdir():
        if path.is_file():
            assert path.suffix == ".py" and "__" in path.stem, f"stray file {path}"
            assert catalog.module_of(path) in expected, f"{path.name} names no kata"
    for module in expected:
        assert len(wrong_answers(module)) >= 2, f"{module}: needs at least two wrong answers"


@pytest.mark.parametrize("module", KATAS)
def test_stub_reference_and_wrong_answers_share_one_api(module, committed_stub):
    stub = public_api(load_module(committed_stub(KATAS[module])))
    assert stub, f"{module}: the stub defines nothing public"
    solution = public_api(load_module(ROOT / "solutions" / f"{module}.py"))
    assert solution == stub, f"{module}: the reference answer's API differs from the stub's"
    for path in wrong_answers(module):
        wrong = load_module(path)
        assert (wrong.__doc__ or "").startswith("Wrong:"), (
            f"{path.name}: docstring names the mistake"
        )
        assert public_api(wrong, f"solutions.{module}").keys() >= {
            k for k in stub if "." not in k
        }, f"{path.name} lacks part of the kata's API"


@pytest.mark.parametrize("module", KATAS)
def test_wrong_answers_take_the_rest_from_their_reference_in_one_import(module):
    # The form that shows a mistake at a glance: the mistaken definitions written out, the
    # rest of the kata's API taken from its own reference answer by one import statement.
    for path in wrong_answers(module):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            and any(name.split(".")[0] == "solutions" for name in imported_modules(node))
        ]
        if not imports:
            continue  # a whole answer: its mistake spans the module
        assert len(imports) == 1, (
            f"{path.name}: take what comes from the reference in one import statement, not "
            f"{len(imports)} (lines {', '.join(str(node.lineno) for node in imports)})"
        )
        (node,) = imports
        assert (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module == f"solutions.{module}"
        ), f"{path.name} line {node.lineno}: import only from solutions.{module}, by name"
        assert node in tree.body, f"{path.name} line {node.lineno}: import at the top level"
        assert all(alias.name != "*" for alias in node.names), (
            f"{path.name} line {node.lineno}: name what comes from the reference, not *"
        )


@pytest.mark.parametrize("module", KATAS)
def test_stub_is_documented_and_left_to_do(module, committed_stub):
    # As committed: a learner's solved kata in the working copy is no fault of the suite.
    path = committed_stub(KATAS[module])
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    assert ast.get_docstring(tree), f"{path.name}: module docstring states the concept and task"
    assert ">>>" in source, f"{path.name}: give at least one >>> example"
    lines = source.splitlines()
    raises = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Raise)
        and "NotImplementedError" in ast.unparse(node.exc if node.exc else node)
    ]
    assert raises, f"{path.name}: stub bodies raise NotImplementedError"
    for node in raises:
        above = node.lineno - 2
        comments = []
        while above >= 0 and lines[above].strip().startswith("#"):
            comments.append(lines[above].strip())
            above -= 1
        assert any(line.startswith("# TODO") for line in comments), (
            f"{path.name}:{node.lineno}: put a '# TODO' comment above the NotImplementedError"
        )
    for node in tree.body:  # a class's docstring may hold its methods' contracts
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
            assert ast.get_docstring(node), f"{path.name}: {node.name} needs a docstring contract"


@pytest.mark.parametrize("module", KATAS)
def test_kata_tests_import_the_stub_and_take_a_device(module):
    path = ROOT / "katas" / f"{module}_test.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    imported |= {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert f"katas.{module}" in imported, f"{path.name} imports its API from katas.{module}"
    assert not any(name.split(".")[0] == "solutions" for name in imported), (
        f"{path.name} must not import the reference answers"
    )
    tests = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test")
    ]
    assert tests, f"{path.name} has no tests"
    for node in tests:
        arguments = [arg.arg for arg in node.args.args]
        assert "device" in arguments, f"{path.name}: {node.name} must take the device fixture"


@pytest.mark.parametrize("module", KATAS)
def test_wrong_answers_write_out_only_what_differs_from_the_reference(module):
    for path in wrong_answers(module):
        copies = copied_from_reference(path, module)
        assert not copies, (
            f"{path.name}: {', '.join(copies)} as in the reference; import "
            f"{'it' if len(copies) == 1 else 'them'} from solutions.{module} with the rest"
        )
