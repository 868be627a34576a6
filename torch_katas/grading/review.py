"""A static look at a returned stub: what a solution has no business doing, for review.

These findings do not change a verdict on their own (a solution may, say, import os for a
good reason); they list what an interviewer should read before trusting the grade.
"""

from __future__ import annotations

import ast

SUSPECT_IMPORTS = {
    "pytest": "the test framework",
    "_pytest": "the test framework's internals",
    "pluggy": "pytest's plugin machinery",
    "torch_katas": "the grading harness",
    "katas": "another kata",
    "solutions": "the reference answers",
    "gc": "the garbage collector (a way to reach the harness's objects)",
    "ctypes": "raw memory and C calls",
    "importlib.metadata": "installed distributions (a way to find the suite's checkout)",
    "subprocess": "starting processes",
    "multiprocessing": "starting processes",
    "socket": "the network",
    "urllib": "the network",
    "http": "the network",
    "requests": "the network",
    "atexit": "exit handlers",
    "signal": "signal handlers (a way to stop time limits)",
    "builtins": "Python's builtins",
    "inspect": "the caller's frames",
    "threading": "threads that outlive a test",
}
SUSPECT_CALLS = {
    "setattr": "setattr",
    "delattr": "delattr",
    "exec": "exec",
    "eval": "eval",
    "compile": "compile",
    "__import__": "__import__",
    "open": "opens a file",
    "globals": "globals()",
}
SUSPECT_ATTRIBUTES = {
    ("sys", "modules"): "sys.modules",
    ("sys", "meta_path"): "sys.meta_path",
    ("sys", "path_hooks"): "sys.path_hooks",
    ("sys", "_getframe"): "sys._getframe",
    ("sys", "settrace"): "sys.settrace",
    ("sys", "setprofile"): "sys.setprofile",
    ("sys", "exit"): "sys.exit",
    ("os", "_exit"): "os._exit",
    ("os", "fork"): "os.fork",
    ("os", "system"): "os.system",
    ("os", "kill"): "os.kill",
    ("os", "listdir"): "os.listdir",
    ("os", "scandir"): "os.scandir",
    ("os", "walk"): "os.walk",
    ("os", "environ"): "os.environ",
}
PATHS = ("/proc", "/home", "/root", "..")
READS = {"read_text", "read_bytes", "open", "iterdir", "glob", "rglob"}


def scan(source: str) -> list[str]:
    """One line per finding, with its line number; [] for a plain solution."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    imported: set[str] = set()
    found: list[str] = []

    def note(node: ast.AST, text: str) -> None:
        line = f"line {getattr(node, 'lineno', '?')}: {text}"
        if line not in found:
            found.append(line)

    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            for alias in node.names:
                imported.add((alias.asname or alias.name).split(".")[0])
            if isinstance(node, ast.ImportFrom) and node.module == "importlib":
                names += [f"importlib.{alias.name}" for alias in node.names]
            for name in names:
                for suspect, why in SUSPECT_IMPORTS.items():
                    if name == suspect or name.startswith(suspect + "."):
                        note(node, f"imports {name} ({why})")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in SUSPECT_CALLS:
                note(node, f"calls {SUSPECT_CALLS[node.func.id]}")
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name):
                key = (node.value.id, node.attr)
                if key in SUSPECT_ATTRIBUTES:
                    note(node, f"uses {SUSPECT_ATTRIBUTES[key]}")
            if node.attr in READS and isinstance(node.ctx, ast.Load):
                note(node, f"reads files (.{node.attr})")
        elif isinstance(node, ast.Name) and node.id in ("__file__", "__builtins__"):
            note(node, f"uses {node.id}")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and (
                node.value.startswith(("/proc", "/home", "/root", ".."))
                or "solutions" in node.value
            )
        ):
            note(node, f"names the path {node.value[:60]!r}")
    # Assigning into an imported module (torch.testing.assert_close = ...) patches it.
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            root = target
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            imported_module = isinstance(root, ast.Name) and root.id in imported
            if isinstance(target, ast.Attribute) and imported_module:
                note(node, f"assigns to {ast.unparse(target)} in an imported module")
    found.sort(key=lambda line: int(line.split(":")[0].split()[1]))
    return found
