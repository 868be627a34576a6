"""The policy for returned code: what a kata answer may use, checked on its source before it runs.

A kata answer is tensor code: it imports torch and a few standard modules, defines functions
and classes, and computes. Every way to tamper with a grade from inside the test process
(patching the tests' helpers or pytest, reaching the harness through frames or the garbage
collector, skipping or interrupting the run, computing a forbidden op on another thread,
a tensor subclass that agrees with any comparison, reading the reference answers) needs code
that a kata answer has no use for. So the policy is an allow-list, read on the AST of the
returned stub before anything runs:

- imports: torch and its public modules that katas use, a few standard modules (ALLOWED),
  and the modules the kata's entry in katas.toml adds (`imports = [...]`);
- attributes: no dunder attribute beyond a short list (DUNDER_ATTRIBUTES), no private
  attribute of an imported module or class, no frame, traceback, generator or code attribute
  (`tb_*`, `f_*`, `gi_*`, `cr_*`, `ag_*`, `co_*`), none of torch's refused modules
  (torch.library, torch.overrides, torch.ops...) or global hooks;
- definitions: dunder methods from a short list only (DEFINABLE): no `__torch_function__`,
  `__torch_dispatch__`, `__getattr__`, `__getattribute__`, `__test__`, `__del__`, `__eq__`...;
- no assignment to an attribute of an imported module or class (or of a name bound to one,
  or through `type(...)` or `__class__`), no `getattr`/`setattr`/`delattr` with a computed
  name or on a module, no `eval`, `exec`, `compile`, `globals`, `locals`, `vars`,
  `__import__`, `open` (unless the kata may import `io`: the builtin is `io.open`),
  `breakpoint`, `exit`, `quit`, `input`;
- no exception that is not an Exception (KeyboardInterrupt, SystemExit, GeneratorExit,
  BaseException), except to name it in an `except` clause;
- no threads or processes: the modules that start them are not allowed, and neither are the
  os functions that do where a kata may import os.

`check()` lists what the source does that the policy refuses, each with its line and rule;
none for every reference answer and for honest answers written in any common style
(tests/test_policy.py holds independently written ones).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ALLOWED",
    "Finding",
    "check",
    "check_file",
]

# Modules every kata answer may import (with their submodules).
ALLOWED = (
    "__future__",
    "abc",
    "bisect",
    "collections",
    "copy",
    "dataclasses",
    "enum",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "math",
    "numbers",
    "random",
    "statistics",
    "typing",
    "typing_extensions",
)
# torch and the public parts of it that kata answers use (with their public submodules).
ALLOWED_TORCH = (
    "torch",
    "torch.amp",
    "torch.autograd",
    "torch.backends",
    "torch.compiler",
    "torch.cuda",
    "torch.distributions",
    "torch.export",
    "torch.fft",
    "torch.func",
    "torch.fx",
    "torch.linalg",
    "torch.masked",
    "torch.mps",
    "torch.nested",
    "torch.nn",
    "torch.onnx",
    "torch.optim",
    "torch.random",
    "torch.signal",
    "torch.sparse",
    "torch.special",
    "torch.types",
    "torch.utils.checkpoint",
    "torch.utils.data",
    "torch.utils.hooks",
)
# Parts of torch no answer may reach, imported or spelled out (`torch.library.impl`).
REFUSED_TORCH = (
    "torch.distributed",
    "torch.futures",
    "torch.hub",
    "torch.jit.fork",
    "torch.library",
    "torch.multiprocessing",
    "torch.ops",
    "torch.overrides",
    "torch.package",
    "torch.testing",
    "torch.utils.cpp_extension",
)
# The protocol methods an answer may both define and call.
_PROTOCOL = {
    "__init__",
    "__post_init__",
    "__len__",
    "__getitem__",
    "__iter__",
    "__next__",
    "__call__",
    "__enter__",
    "__exit__",
    "__repr__",
    "__str__",
    "__contains__",
    "__version__",
}
# Dunder attributes an answer may read.
DUNDER_ATTRIBUTES = _PROTOCOL | {"__name__", "__qualname__", "__class__", "__doc__", "__module__"}
# Dunder names an answer may define (as methods or class attributes) or bind at module level.
DEFINABLE = _PROTOCOL | {
    "__setitem__",
    "__reversed__",
    "__getstate__",
    "__setstate__",
    "__all__",
    "__slots__",
}
# Dunder names an answer may read as plain names.
DUNDER_NAMES = {"__name__", "__doc__", "__all__", "__version__"}
REFUSED_BUILTINS = {
    "eval": "runs code from a string",
    "exec": "runs code from a string",
    "compile": "makes code from a string",
    "globals": "reaches a module's namespace",
    "locals": "reaches a frame's namespace",
    "vars": "reaches an object's namespace",
    "__import__": "imports by name",
    "open": "opens files",
    "breakpoint": "starts a debugger",
    "exit": "ends the process",
    "quit": "ends the process",
    "input": "reads the terminal",
}
NAMED_ATTRIBUTES = {"getattr", "setattr", "delattr"}
NOT_EXCEPTIONS = {
    "BaseException",
    "BaseExceptionGroup",
    "GeneratorExit",
    "KeyboardInterrupt",
    "SystemExit",
}
# Attributes no answer needs, on anything: global module hooks, raw memory, readers of files
# that Python's own file checks do not see, lookups that evaluate strings.
REFUSED_ATTRIBUTES = {
    "ctypes": "raw memory",
    "ctypeslib": "raw memory",
    "stride_tricks": "raw memory",
    "from_file": "reads a file",
    "fromfile": "reads a file",
    "loadtxt": "reads a file",
    "genfromtxt": "reads a file",
    "fromregex": "reads a file",
    "memmap": "maps a file",
    "ForwardRef": "evaluates a string",
}
GLOBAL_HOOKS = re.compile(r"register_module_\w+")
# Frame, traceback, generator, coroutine and code attributes: the way to other frames' data.
INTERNALS = re.compile(r"(tb|f|gi|cr|ag|co)_[a-z_]+")
# What starts processes or threads, or ends the process, in modules a kata may add.
REFUSED_MODULE_ATTRIBUTES = {
    "os": {
        "fork",
        "forkpty",
        "register_at_fork",
        "system",
        "popen",
        "posix_spawn",
        "posix_spawnp",
        "spawnl",
        "spawnle",
        "spawnlp",
        "spawnlpe",
        "spawnv",
        "spawnve",
        "spawnvp",
        "spawnvpe",
        "execl",
        "execle",
        "execlp",
        "execlpe",
        "execv",
        "execve",
        "execvp",
        "execvpe",
        "kill",
        "killpg",
        "abort",
        "setsid",
        "chdir",
        "fchdir",
    },
}


@dataclass(frozen=True)
class Finding:
    """One construct the policy refuses: where, which rule, and what it is."""

    line: int
    rule: str
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.text} ({self.rule})"


def allowed_import(name: str, extra: Iterable[str] = ()) -> bool:
    """True when a kata answer (with the kata's `extra` modules) may import `name`."""
    parts = name.split(".")
    if any(within(name, allowed) for allowed in extra):
        return True
    if name.startswith("torch"):
        if any(part.startswith("_") for part in parts) or refused_torch(name):
            return False
        return any(within(name, allowed) for allowed in ALLOWED_TORCH)
    if any(part.startswith("_") for part in parts) and name != "__future__":
        return False
    return any(within(name, allowed) for allowed in (*ALLOWED, *extra))


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def refused_torch(dotted: str) -> bool:
    return any(within(dotted, refused) for refused in REFUSED_TORCH)


def check(
    source: str, extra_imports: Iterable[str] = (), filename: str = "<answer>"
) -> list[Finding]:
    """What `source` does that the policy refuses, in line order; [] for a plain answer.

    `extra_imports` are the modules the kata's entry adds. Source that does not parse gives
    one finding (it is graded as a syntax error anyway).
    """
    try:
        tree = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError) as error:
        return [Finding(getattr(error, "lineno", None) or 1, "syntax", "does not parse")]
    checker = _Checker(tuple(extra_imports))
    checker.run(tree)
    unique = {(f.line, f.rule, f.text): f for f in checker.found}
    return sorted(unique.values(), key=lambda f: (f.line, f.rule, f.text))


def check_file(path: Path, extra_imports: Iterable[str] = ()) -> list[Finding]:
    return check(path.read_text(encoding="utf-8", errors="replace"), extra_imports, str(path))


class _Checker:
    def __init__(self, extra: tuple[str, ...]):
        self.extra = extra
        # Private parts of torch a kata names (torch._dynamo for kata 38) may be used.
        self.private_extra = [e for e in extra if any(p.startswith("_") for p in e.split("."))]
        self.raised: set[int] = set()  # ids of the names raised directly (one finding each)
        self.found: list[Finding] = []
        self.imported: dict[str, str] = {}  # local name -> what it was imported as (dotted)
        self.bound: set[str] = set()  # names bound to an imported module or class
        self.handler_types: set[int] = set()  # ids of nodes naming an except clause's types
        self.shadowed: set[int] = set()  # ids of names that are the answer's own, not builtins
        self.called: set[int] = set()  # ids of the names that calls are made through

    def note(self, node: ast.AST, rule: str, text: str) -> None:
        self.found.append(Finding(getattr(node, "lineno", 1), rule, text))

    def run(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imports(node)
            elif isinstance(node, ast.ExceptHandler) and node.type is not None:
                self.handler_types.update(id(n) for n in ast.walk(node.type))
        self.bound = set(self.imported)
        self.shadowed = shadowed(tree)
        self.called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        self.find_aliases(tree)
        for node in ast.walk(tree):
            self.visit(node)
        for annotation in self.string_annotations(tree):
            try:
                parsed = ast.parse(str(annotation.value), mode="eval")
            except SyntaxError:
                continue
            for node in ast.walk(parsed):
                ast.copy_location(node, annotation)
                self.visit(node)

    # -- imports and names bound to imported things --------------------------------------

    def imports(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names = [f"{module}.{alias.name}" for alias in node.names]
            if node.level or not allowed_import(module, self.extra):
                self.note(node, "import", f"imports {module or '.'} ({self.why_import(module)})")
            else:
                for alias, dotted in zip(node.names, names, strict=True):
                    if alias.name == "*":
                        self.note(node, "import", f"imports * from {module}")
                    elif alias.name.startswith("_") and module != "__future__":
                        self.note(node, "import", f"imports the private name {dotted}")
                    elif refused_torch(dotted) or (
                        module.startswith("torch") and alias.name in ("ops",)
                    ):
                        self.note(node, "import", f"imports {dotted} (refused for answers)")
                    self.imported[alias.asname or alias.name] = dotted
            return
        for alias in node.names:
            if not allowed_import(alias.name, self.extra):
                why = self.why_import(alias.name)
                self.note(node, "import", f"imports {alias.name} ({why})")
            local = alias.asname or alias.name.split(".")[0]
            self.imported[local] = alias.name if alias.asname else alias.name.split(".")[0]

    def why_import(self, module: str) -> str:
        if module.startswith("."):
            return "a relative import"
        if module.startswith("torch"):
            return "not a part of torch a kata answer may use"
        return "not among the modules this kata's answers may import"

    def find_aliases(self, tree: ast.Module) -> None:
        """Names bound to an imported module or class (`t = torch`, `for m in (F, torch)`)."""
        bindings: list[tuple[ast.AST, ast.AST]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                bindings += [(target, node.value) for target in node.targets]
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                if node.value is not None:
                    bindings.append((node.target, node.value))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                bindings.append((node.target, node.iter))
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                bindings.append((node.optional_vars, node.context_expr))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                arguments = node.args
                positional = [*arguments.posonlyargs, *arguments.args]
                first = len(positional) - len(arguments.defaults)
                defaults = zip(positional[first:], arguments.defaults, strict=True)
                kw_defaults = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
                for arg, default in [*defaults, *kw_defaults]:
                    if default is not None:
                        bindings.append((ast.Name(arg.arg, ast.Store()), default))
        changed = True
        while changed:
            changed = False
            for target, value in bindings:
                if self.refers_to_imported(value):
                    for name in bound_names(target):
                        if name not in self.bound:
                            self.bound.add(name)
                            changed = True

    def refers_to_imported(self, node: ast.AST) -> bool:
        """Could `node` evaluate to an imported module or class (not a call's result)?"""
        if isinstance(node, ast.Name):
            return node.id in self.bound
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            return self.refers_to_imported(node.value)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(self.refers_to_imported(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return any(self.refers_to_imported(v) for v in node.values if v is not None)
        if isinstance(node, ast.IfExp):
            return self.refers_to_imported(node.body) or self.refers_to_imported(node.orelse)
        if isinstance(node, ast.BoolOp):
            return any(self.refers_to_imported(v) for v in node.values)
        if isinstance(node, ast.NamedExpr):
            return self.refers_to_imported(node.value)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.refers_to_imported(node.elt)
        if isinstance(node, ast.Lambda):
            return self.refers_to_imported(node.body)
        return False

    def dotted(self, node: ast.AST) -> str | None:
        """`torch.nn.functional.relu` for a chain rooted at an imported name, else None."""
        chain = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.imported:
            return ".".join([self.imported[node.id], *reversed(chain)])
        return None

    # -- each node -------------------------------------------------------------------------

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Attribute):
            self.attribute(node)
        elif isinstance(node, ast.Name):
            self.name(node)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if is_dunder(node.name) and node.name not in DEFINABLE:
                self.note(node, "definition", f"defines {node.name}")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                for each in ast.walk(target):
                    if isinstance(each, ast.Attribute) and isinstance(
                        each.ctx, (ast.Store, ast.Del)
                    ):
                        self.patch(node, each)
        elif isinstance(node, ast.Raise) and node.exc is not None:
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(raised, ast.Name) and raised.id in NOT_EXCEPTIONS:
                self.note(node, "raise", f"raises {raised.id}, which is not an Exception")
                self.raised.add(id(raised))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                if is_dunder(name):
                    self.note(node, "name", f"declares {name}")

    def attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        dotted = self.dotted(node)
        if is_dunder(attr):
            if attr not in DUNDER_ATTRIBUTES:
                self.note(node, "dunder", f"uses the attribute {attr}")
        elif INTERNALS.fullmatch(attr):
            self.note(node, "frame", f"uses {attr}, an attribute of frames, tracebacks or code")
        elif attr in REFUSED_ATTRIBUTES:
            self.note(node, "attribute", f"uses {attr} ({REFUSED_ATTRIBUTES[attr]})")
        elif GLOBAL_HOOKS.fullmatch(attr):
            self.note(node, "attribute", f"uses {attr} (a hook on every module)")
        elif (
            attr.startswith("_")
            and self.refers_to_imported(node.value)
            and not (dotted and any(within(dotted, extra) for extra in self.private_extra))
        ):
            self.note(node, "private", f"uses the private {attr} of an imported module or class")
        if dotted is not None and refused_torch(dotted):
            self.note(node, "attribute", f"uses {dotted} (refused for answers)")
        root = dotted.split(".")[0] if dotted else None
        if root in REFUSED_MODULE_ATTRIBUTES and attr in REFUSED_MODULE_ATTRIBUTES[root]:
            self.note(node, "process", f"uses {root}.{attr} (starts or ends processes)")

    def name(self, node: ast.Name) -> None:
        name = node.id
        exempt = self.handler_types | self.raised
        if name in NOT_EXCEPTIONS and id(node) not in exempt:
            self.note(node, "raise", f"uses {name}, which is not an Exception")
        if not isinstance(node.ctx, ast.Load):
            if is_dunder(name) and name not in DEFINABLE:
                self.note(node, "name", f"binds {name}")
            return
        if name == "open" and "io" in self.extra:
            return  # the builtin open is io.open
        if id(node) in self.shadowed:
            return  # the answer's own binding (a parameter called `input`), not the builtin
        if name in REFUSED_BUILTINS:
            self.note(node, "builtin", f"uses {name} ({REFUSED_BUILTINS[name]})")
        elif name in NAMED_ATTRIBUTES and id(node) not in self.called:
            self.note(node, "builtin", f"uses {name} other than in a call of its own")
        elif is_dunder(name) and name not in DUNDER_NAMES and name not in REFUSED_BUILTINS:
            self.note(node, "name", f"uses {name}")

    def call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "type" and len(node.args) == 3:
            self.note(node, "builtin", "makes a class with type(name, bases, namespace)")
        if not (isinstance(func, ast.Name) and func.id in NAMED_ATTRIBUTES):
            return
        if len(node.args) < 2 or node.keywords:
            self.note(node, "attribute-by-name", f"calls {func.id} with a computed name")
            return
        owner, name = node.args[0], node.args[1]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            self.note(node, "attribute-by-name", f"calls {func.id} with a computed name")
            return
        if self.refers_to_imported(owner) or self.through_class(owner):
            self.note(node, "attribute-by-name", f"calls {func.id} on a module or class")
        # The literal name obeys the same rules as `owner.name`.
        spelled = ast.Attribute(owner, name.value, ast.Load())
        ast.copy_location(spelled, node)
        self.attribute(spelled)

    def patch(self, statement: ast.AST, target: ast.Attribute) -> None:
        """`owner.name = ...` where owner is an imported module or class, or a class."""
        if self.refers_to_imported(target.value) or self.through_class(target.value):
            self.note(
                statement,
                "patch",
                f"assigns to {ast.unparse(target)}, an attribute of a module or class",
            )

    def through_class(self, node: ast.AST) -> bool:
        """A chain reaching a class through `type(x)`, `__class__` or a call's result."""
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            if isinstance(node, ast.Attribute) and node.attr == "__class__":
                return True
            node = node.value
        return isinstance(node, ast.Call)

    def string_annotations(self, tree: ast.Module) -> Iterator[ast.Constant]:
        """Annotations written as strings: typing can evaluate them."""
        annotations: list[ast.AST | None] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.arg):
                annotations.append(node.annotation)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                annotations.append(node.returns)
            elif isinstance(node, ast.AnnAssign):
                annotations.append(node.annotation)
        for annotation in annotations:
            for node in ast.walk(annotation) if annotation is not None else ():
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    yield node


def bound_names(target: ast.AST) -> Iterator[str]:
    """The names an assignment target binds (not those inside `a.b` or `a[i]`)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from bound_names(element)
    elif isinstance(target, ast.Starred):
        yield from bound_names(target.value)


def local_names(scope: ast.AST) -> set[str]:
    """The names a function, class or module binds in its own scope."""
    names: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = scope.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        names.update(arg.arg for arg in every)
        body: list[ast.AST] = [scope.body] if isinstance(scope, ast.Lambda) else list(scope.body)
    else:
        body = list(getattr(scope, "body", []))
    pending = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue  # a scope of its own
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        pending.extend(ast.iter_child_nodes(node))
    return names


def shadowed(tree: ast.Module) -> set[int]:
    """Ids of the names loaded where a binding of the answer's own hides the builtin
    (a parameter called `input`)."""
    found: set[int] = set()
    scopes_kind = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

    def walk(node: ast.AST, scopes: list[tuple[bool, set[str]]]) -> None:
        if isinstance(node, scopes_kind):
            if isinstance(node, ast.ClassDef):
                outer: list[ast.AST | None] = [*node.decorator_list, *node.bases, *node.keywords]
                inner = [*scopes, (True, local_names(node))]
            else:
                outer = [node.args]
                if not isinstance(node, ast.Lambda):
                    outer += [*node.decorator_list, node.returns]
                # Names bound in a class body are not seen from its methods.
                inner = [s for s in scopes if not s[0]] + [(False, local_names(node))]
            for part in outer:
                if part is not None:
                    walk(part, scopes)
            for statement in [node.body] if isinstance(node, ast.Lambda) else node.body:
                walk(statement, inner)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            visible = [names for is_class, names in scopes[:-1] if not is_class]
            if any(node.id in names for names in [*visible, scopes[-1][1]]):
                found.add(id(node))
        for child in ast.iter_child_nodes(node):
            walk(child, scopes)

    walk(tree, [(False, local_names(tree))])
    return found


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")
