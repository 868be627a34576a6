"""The harness's layers: each package of torch_katas/ imports only the layers below it, and no
module imports itself back through others (CONTRIBUTING.md, "Architecture")."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "torch_katas"

# Lower layers first. A module may import modules of its own package and of lower layers only.
LAYERS = [
    {"catalog", "status", "text"},  # the kata catalogue; the verdict rules; text that fits
    {"store"},  # the learner's state between runs
    {"devices"},  # the device kinds, the simulated accelerator
    {"runtime"},  # answer import, state guard, time limits
    {"testing"},  # kata tests' helpers: checks and rules (which know the time limits' thread)
    {"facets"},  # the facets a kata declares, and one generic check per facet
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
