"""The harness's layers: each package of torch_katas/ imports only the layers below it, and no
module imports itself back through others (CONTRIBUTING.md, "Architecture")."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "torch_katas"

# Lower layers first. A module may import modules of its own package and of lower layers only.
LAYERS = [
    # the kata catalogue; the verdict rules; text that fits; the names a source binds
    {"catalog", "status", "text", "source_names"},
    {"store"},  # the learner's state between runs
    {"devices"},  # the device kinds, the simulated accelerator
    {"runtime"},  # answer import, state guard, time limits
    {"testing", "op_families"},  # kata tests' helpers: checks, rules, the op families they name
    {"facets"},  # the facets a kata declares, and one generic check per facet
    {"practice"},  # practice modes built from the curated mistakes
    {"plugin", "grading"},  # the pytest plugin; take-homes and grading
    {"cli"},  # the learner's command line, which also starts grading
    {"notebook"},  # the IPython extension: the CLI's commands and backups in a kernel
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every torch_katas module `path` imports, at the top or inside functions."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            # `from package import module` needs the module; `from module import name`, the module.
            submodules = {f"{base}.{alias.name}" for alias in node.names} & set(MODULE_NAMES)
            found |= submodules if len(submodules) == len(node.names) else {base, *submodules}
    return {module for module in found if module.split(".")[0] == "torch_katas"}


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}
MODULE_NAMES = tuple(MODULES)
GRAPH = {
    name: {imported for imported in imports_of(path) if imported in MODULES and imported != name}
    for name, path in MODULES.items()
}


def part(module: str) -> str | None:
    """The layer entry a module belongs to: `torch_katas.plugin.summary` -> `plugin`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_package_has_a_layer():
    parts = {part(module) for module in MODULES} - {None, "__main__"}
    assert parts <= set(RANK), f"give these a layer in LAYERS: {sorted(parts - set(RANK))}"


def test_imports_point_only_downward():
    upward = []
    for module, imported in GRAPH.items():
        here = part(module)
        if here in (None, "__main__"):
            continue
        for target in imported:
            there = part(target)
            if there is None or there == here:
                continue
            if RANK[there] >= RANK[here]:
                upward.append(f"{module} imports {target} (layer {there} is not below {here})")
    assert not upward, "\n".join(sorted(upward))


def test_no_import_cycles():
    state: dict[str, int] = {}
    cycles = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, path)
        path.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [])
    assert not cycles, "\n".join(cycles)


def test_the_checks_see_the_imports():
    assert "torch_katas.store" in GRAPH["torch_katas.plugin.summary"]
    assert "torch_katas.grading.grade" in GRAPH["torch_katas.cli.commands"]
    assert "torch_katas.cli.commands" in GRAPH["torch_katas.notebook.stub"]
    assert "torch_katas.notebook" in GRAPH["torch_katas"]


def test_the_package_itself_imports_nothing_when_imported():
    """torch_katas/__init__.py, outside the layers, imports the notebook package only when
    IPython loads the extension: importing any module of torch_katas imports nothing more."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    eager = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert not eager, f"torch_katas/__init__.py imports at its top: line {eager[0].lineno}"


# -- the declared public names (__all__) ---------------------------------------------------

ROOT = PACKAGE.parent


def declared(module: str) -> list[str] | None:
    """The module's `__all__` as written (a list of strings), or None where it has none."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = ast.literal_eval(node.value) if node.value is not None else None
            return list(value) if isinstance(value, list) else None
    return None


def defined(module: str) -> set[str]:
    """The names a module binds at its top level (in `if` and `try` blocks too)."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
    return found


def names_used(path: Path) -> list[tuple[str, str, int]]:
    """(module, name, line) for each name `path` takes from a torch_katas module: imported
    from it, or looked up on it (`devices.parse` after `from torch_katas import devices`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases: dict[str, str] = {}
    used = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module in MODULES:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if submodule in MODULES:
                    aliases[alias.asname or alias.name] = submodule
                else:
                    used.append((node.module, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    aliases[alias.asname] = alias.name
    # A name the file also binds otherwise (an argument, a variable) may not be the module.
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) or (
            isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
        ):
            aliases.pop(node.arg if isinstance(node, ast.arg) else node.id, None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = aliases.get(node.value.id)
            if module is not None and f"{module}.{node.attr}" not in MODULES:
                used.append((module, node.attr, node.lineno))
    return used


def test_every_module_declares_its_public_names_and_defines_them():
    problems = []
    for module in sorted(MODULES):
        names = declared(module)
        if names is None:
            problems.append(f"{module} has no __all__ list")
            continue
        undefined = sorted(set(names) - defined(module))
        if undefined:
            problems.append(f"{module}.__all__ names what it does not define: {undefined}")
    assert not problems, "\n".join(problems)


def test_the_harness_uses_only_the_declared_names_of_its_other_modules():
    outside = []
    for module, path in sorted(MODULES.items()):
        for target, name, line in names_used(path):
            if target != module and name not in (declared(target) or []):
                outside.append(f"{path.relative_to(ROOT)}:{line} uses {target}.{name}")
    assert not outside, "add these to their module's __all__, or keep them inside:\n" + "\n".join(
        outside
    )


# What kata tests may use of the harness: the checks and rules, the facets they declare, and
# the op families their rules name.
KATA_API = ("torch_katas.testing", "torch_katas.facets", "torch_katas.op_families")


def test_kata_tests_import_only_the_declared_helpers_of_testing():
    allowed = {(module, name) for module in KATA_API for name in declared(module) or []}
    outside = []
    for path in sorted((ROOT / "katas").glob("q*_test.py")):
        for target, name, line in names_used(path):
            if (target, name) not in allowed:
                outside.append(f"{path.relative_to(ROOT)}:{line} uses {target}.{name}")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = [node.module] if isinstance(node, ast.ImportFrom) else []
            modules += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if modules == ["torch_katas"]:  # from torch_katas import facets
                modules = [f"torch_katas.{a.name}" for a in node.names]  # type: ignore[union-attr]
            wrong = [m for m in modules if m and m.startswith("torch_katas") and m not in KATA_API]
            outside += [f"{path.relative_to(ROOT)}:{node.lineno} imports {m}" for m in wrong]
    assert not outside, (
        "kata tests use the __all__ of " + ", ".join(KATA_API) + " only:\n" + ("\n".join(outside))
    )


def test_the_declared_names_checks_see_uses():
    used = {(target, name) for target, name, _ in names_used(PACKAGE / "plugin" / "summary.py")}
    assert ("torch_katas.store", "Store") in used  # imported by name
    assert ("torch_katas.plugin.digest", "write") in used  # looked up on the module
