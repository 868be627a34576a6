"""The suite's shape: katas.toml, stubs, tests, solutions and wrong answers line up one to one."""

import ast
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

from torch_katas import catalog
from torch_katas.runtime import mistakes

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
    signatures; for classes, their public methods too. With `reference` (a wrong answer's,
    "solutions.q13_cross_entropy"), those it takes from that module count too (a wrong
    answer may wrap the reference's own)."""
    homes = {module.__name__, reference}
    names = getattr(module, "__all__", None) or [
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


def wrong_answers(module: str) -> list[mistakes.Mistake]:
    return mistakes.mistakes(ROOT, module)


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
    for path in (path for path in WRONG.iterdir() if path.is_file()):
        assert path.suffix != ".py", (
            f"{path.name}: store the wrong module as a diff: python tests/store_mistakes.py"
        )
        assert path.suffix == mistakes.SUFFIX and "__" in path.stem, f"stray file {path}"
        assert catalog.module_of(path) in expected, f"{path.name} names no kata"
    for module in expected:
        assert len(wrong_answers(module)) >= 2, f"{module}: needs at least two wrong answers"


@pytest.mark.parametrize("module", KATAS)
def test_stub_reference_and_wrong_answers_share_one_api(module, committed_stub, tmp_path):
    stub = public_api(load_module(committed_stub(KATAS[module])))
    assert stub, f"{module}: the stub defines nothing public"
    reference = ROOT / "solutions" / f"{module}.py"
    solution = public_api(load_module(reference))
    assert solution == stub, f"{module}: the reference answer's API differs from the stub's"
    code = ast.dump(ast.parse(reference.read_text(encoding="utf-8")))
    for mistake in wrong_answers(module):
        assert mistake.description.startswith("Wrong:"), (
            f"{mistake.path.name}: start with a line that names the mistake (Wrong: ...)"
        )
        # Raises when a hunk no longer applies: the reference changed under the mistake.
        path = mistake.write(tmp_path, ROOT)
        stored = mistakes.make_diff(
            reference.read_text(encoding="utf-8"),
            path.read_text(encoding="utf-8"),
            mistake.text.partition("\n@@ ")[0],
        )
        assert mistake.text == stored, (
            f"{mistake.path.name}: not in the stored form (store it: python "
            "tests/store_mistakes.py --restore)"
        )
        assert ast.dump(ast.parse(path.read_text(encoding="utf-8"))) != code, (
            f"{mistake.path.name}: changes no code of the reference"
        )
        wrong = public_api(load_module(path), f"solutions.{module}")
        assert wrong.keys() >= {k for k in stub if "." not in k}, (
            f"{mistake.path.name} lacks part of the kata's API"
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
def test_a_kata_whose_tests_refuse_torch_internals_says_so(module, committed_stub):
    # assert_no_torch_internals refuses private torch names anywhere in the module: a rule
    # of the whole kata, so its stub states it where a learner reads the contract.
    tests = (ROOT / "katas" / f"{module}_test.py").read_text(encoding="utf-8")
    if "assert_no_torch_internals(" not in tests:
        return
    path = committed_stub(KATAS[module])
    assert "public API only" in path.read_text(encoding="utf-8"), (
        f"{path.name}: its tests refuse torch's private names: say in the module docstring "
        '"Rule for the whole kata: torch\'s public API only" and what it refuses'
    )


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


# ---- seeds: what a test draws from a generator it seeds itself is held out too

# Calls that seed a generator; any call's keyword argument named *seed counts as well (a seed
# handed to the code under test, which a tuned answer could recognise).
SEEDING = {"manual_seed", "manual_seed_all", "seed", "seed_all", "seed_everything"}
SEEDING |= {"Random", "RandomState", "default_rng"}
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def constant_only(node: ast.AST) -> bool:
    """An int written with constants alone: 7, -3, 2**32 - 1, (3, 4), range(3)."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(map(constant_only, node.elts))
    if isinstance(node, ast.BinOp):
        return constant_only(node.left) and constant_only(node.right)
    if isinstance(node, ast.UnaryOp):
        return constant_only(node.operand)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        return all(map(constant_only, node.args))
    return False


def in_scope(scope: ast.AST) -> list[ast.AST]:
    """The nodes of `scope`, not those of the functions defined in it."""
    found, stack = [], list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    return found


def literal_names(scope: ast.AST, outer: set[str]) -> set[str]:
    """The names bound to constants inside `scope` (a default, an assignment, a loop over
    constants), given those of the scopes around it, which its own bindings shadow."""
    bound: list[tuple[ast.AST, ast.AST | None]] = []
    if isinstance(scope, SCOPES):
        args = scope.args
        positional = args.posonlyargs + args.args
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        bound += zip(positional, defaults, strict=True)
        bound += zip(args.kwonlyargs, args.kw_defaults, strict=True)
        bound += [(arg, None) for arg in (args.vararg, args.kwarg) if arg]
    for node in in_scope(scope):
        if isinstance(node, ast.Assign):
            bound += [(target, node.value) for target in node.targets]
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            bound.append((node.target, node.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            bound.append((node.target, node.iter))
    names = set(outer)
    for target, value in bound:
        for name in [target] if isinstance(target, ast.arg) else ast.walk(target):
            if isinstance(name, (ast.arg, ast.Name)):
                spelled = getattr(name, "arg", None) or getattr(name, "id", "")
                if value is not None and constant_only(value):
                    names.add(spelled)
                else:
                    names.discard(spelled)
    return names


def literal_seeds(tree: ast.AST) -> list[str]:
    """Each seed written as a constant (or a name bound to one) and not passed through
    seed_for, as `line: call`."""
    found = []

    def visit(scope: ast.AST, outer: set[str]) -> None:
        names = literal_names(scope, outer)
        for node in in_scope(scope):
            if isinstance(node, SCOPES):
                visit(node, names)
            if not isinstance(node, ast.Call):
                continue
            called = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            if called == "seed_for":
                continue
            seeds = list(node.args) if called in SEEDING else []
            seeds += [
                keyword.value
                for keyword in node.keywords
                if called in SEEDING or (keyword.arg or "").endswith("seed")
            ]
            if any(
                constant_only(seed) or (isinstance(seed, ast.Name) and seed.id in names)
                for seed in seeds
            ):
                found.append(f"{node.lineno}: {ast.unparse(node)}")

    visit(tree, set())
    return sorted(found, key=lambda line: int(line.split(":")[0]))


def test_a_constant_seed_is_found_however_it_is_written():
    written = """
torch.manual_seed(0)
g = torch.Generator().manual_seed(2**31 - 1)
split(data, seed=7)
def helper(n, seed=5):
    return random.Random(seed)
for seed in (3, 4):
    loader(seed=seed)
rng = np.random.default_rng(seed_for(1))
torch.manual_seed(seed_for(2))
def test(seed):
    torch.manual_seed(seed)
"""
    assert [line.split(":")[0] for line in literal_seeds(ast.parse(written))] == [
        "2", "3", "4", "6", "8"
    ]  # fmt: skip


@pytest.mark.parametrize(
    "path",
    [
        *sorted((ROOT / "katas").glob("q*_test.py")),
        ROOT / "torch_katas" / "facets.py",
        ROOT / "torch_katas" / "testing.py",
    ],
    ids=lambda path: path.name,
)
def test_seeds_the_tests_write_are_held_out_under_grading(path):
    found = literal_seeds(ast.parse(path.read_text(encoding="utf-8")))
    assert not found, (
        f"{path.name} seeds with constants, which stay the same on grading's held-out run, so "
        "an answer tuned to what they draw passes it; write seed_for(k) for the seed k "
        "(k itself on a plain run):\n" + "\n".join(found)
    )
