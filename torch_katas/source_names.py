"""What a Python source binds and which strings it names, read on its AST without running it.

Shared by the policy for returned code (grading/policy.py), which refuses an attribute named by
a string unless the source shows every string it can be, and by the kata tests' check for
torch's internals (testing.py), which accepts the same: a literal, an entry of a module-level
table of literal strings that nothing changes, a loop name over such, a choice between them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

__all__ = [
    "DTYPE_MODULES",
    "JOINED_LIMIT",
    "TABLE_METHODS",
    "TABLE_READERS",
    "binding_counts",
    "bindings_of",
    "bound_names",
    "constant_tables",
    "dtype_name_start",
    "evaluated_in",
    "every_binding",
    "every_bound_name",
    "literal_strings",
    "loop_literals",
    "methods_selves",
    "public_start",
    "table_read",
]


def bound_names(target: ast.AST) -> Iterator[str]:
    """The names an assignment target binds (not those inside `a.b` or `a[i]`)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from bound_names(element)
    elif isinstance(target, ast.Starred):
        yield from bound_names(target.value)


def bindings_of(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(target, value) for each binding in `tree`: assignments, loops, with, defaults."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield target, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            if node.value is not None:
                yield node.target, node.value
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            yield node.target, ast.Call(ast.Name("iter", ast.Load()), [node.iter], [])
            yield node.target, node.iter
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            yield node.optional_vars, ast.Call(ast.Name("enter", ast.Load()), [], [])
            yield node.optional_vars, node.context_expr
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            positional = [*arguments.posonlyargs, *arguments.args]
            first = len(positional) - len(arguments.defaults)
            defaults = zip(positional[first:], arguments.defaults, strict=True)
            kw_defaults = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
            for arg, default in [*defaults, *kw_defaults]:
                if default is not None:
                    yield ast.Name(arg.arg, ast.Store()), default


def every_binding(tree: ast.AST) -> Iterator[str]:
    """The name of each binding in the source, anywhere, once per binding."""
    for target, _ in bindings_of(tree):
        yield from bound_names(target)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, ast.arg):
            yield node.arg
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).split(".")[0]
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            yield node.name
        elif isinstance(node, ast.MatchMapping) and node.rest:
            yield node.rest
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            yield from node.names * 2  # bound elsewhere: never a plain module-level alias


def binding_counts(tree: ast.AST) -> dict[str, int]:
    """How many bindings of each name the source holds, of every kind (every_binding): a name
    bound by its one assignment counts 1, whatever else binds it (a parameter, an import,
    `except ... as`, a match pattern) counts too."""
    counts: dict[str, int] = {}
    for name in every_binding(tree):
        counts[name] = counts.get(name, 0) + 1
    return counts


def every_bound_name(tree: ast.AST) -> set[str]:
    """Every name the source binds anywhere (a builtin's name among them is not the builtin)."""
    return set(every_binding(tree))


def public_start(name: ast.AST) -> bool:
    """A name built at run time from a literal start that no private or dunder name has
    (`f"fc{i}"`, `"layer" + str(i)`)."""
    first = name
    while isinstance(first, ast.BinOp) and isinstance(first.op, ast.Add):
        first = first.left
    if isinstance(first, ast.JoinedStr) and first.values:
        first = first.values[0]
    return (
        first is not name
        and isinstance(first, ast.Constant)
        and isinstance(first.value, str)
        and first.value[:1].isalpha()
    )


# The modules that hold dtypes by name (torch.float16, numpy.int8), and how a dtype's name
# begins: `getattr(torch, f"float{bits}")` names one of these modules' names with that start.
DTYPE_MODULES = ("torch", "numpy")
DTYPE_START = re.compile(r"(bfloat|complex|float|u?int)[0-9a-z_]*")


def dtype_name_start(name: ast.AST) -> str | None:
    """The literal start of a dtype's name built at run time (`f"float{bits}"`,
    `"int" + str(n)`), else None. The names it can be are those of DTYPE_MODULES with that
    start: public ones, which tests/test_policy.py checks the name data records."""
    first = name
    while isinstance(first, ast.BinOp) and isinstance(first.op, ast.Add):
        first = first.left
    if isinstance(first, ast.JoinedStr) and first.values:
        first = first.values[0]
    if first is name or not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    return first.value if DTYPE_START.fullmatch(first.value) else None


# The most strings an f-string or a `+` of literal choices may stand for; more is computed.
JOINED_LIMIT = 64


def literal_strings(
    node: ast.AST, tables: dict[str, list[str]], loop_names: dict[int, list[str]]
) -> list[str] | None:
    """The strings an expression can hold, where they show in the source: a literal string,
    any entry of a module-level table of literal strings that nothing changes
    (`getattr(nn, NAMES[k])`: constant_tables), a loop name over literal strings
    (loop_literals), a choice between such (`"a" if c else NAMES[k]`, `NAMES.get(k, "a")`),
    and an f-string or a `+` joining such (`f"{'log_' if log else ''}softmax"`: every
    combination, up to JOINED_LIMIT of them); None where it is computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
    ):
        parts = node.values if isinstance(node, ast.JoinedStr) else [node.left, node.right]
        joined = [""]
        for part in parts:
            if isinstance(part, ast.FormattedValue):
                # `{x!r}` or `{x:>8}` formats a string into another one: not x's value.
                if part.conversion != -1 or part.format_spec is not None:
                    return None
                part = part.value
            each = literal_strings(part, tables, loop_names)
            if each is None or len(joined) * len(each) > JOINED_LIMIT:
                return None
            joined = [a + b for a in joined for b in each]
        return joined
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return tables.get(node.value.id)
    if isinstance(node, ast.Name):
        return loop_names.get(id(node))
    if isinstance(node, ast.IfExp):
        body, orelse = (literal_strings(n, tables, loop_names) for n in (node.body, node.orelse))
        return None if body is None or orelse is None else body + orelse
    func = node.func if isinstance(node, ast.Call) else None
    if (
        isinstance(node, ast.Call)
        and isinstance(func, ast.Attribute)
        and func.attr == "get"
        and isinstance(func.value, ast.Name)
        and func.value.id in tables
        and 1 <= len(node.args) <= 2
        and not node.keywords
    ):
        # NAMES.get(key, "default"): an entry, or the default.
        default = literal_strings(node.args[1], tables, loop_names) if node.args[1:] else []
        return None if default is None else tables[func.value.id] + default
    return None


# Builtins that read a table without changing it or handing it on (`sorted(NAMES)`).
TABLE_READERS = {"len", "sorted", "list", "tuple", "set", "frozenset", "repr", "str"}


# Methods that read a dict, list or tuple without changing it.
TABLE_METHODS = {"keys", "values", "items", "get", "count", "index", "copy"}


def table_read(
    node: ast.Name, parent: ast.AST | None, grandparent: ast.AST | None, bound: set[str]
) -> bool:
    """Does `parent` only read the table `node` names? A subscript, a membership test, a loop
    over it, a builtin of TABLE_READERS that the file does not rebind, a method of
    TABLE_METHODS called."""
    if isinstance(parent, ast.Subscript):
        return parent.value is node and isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Compare):
        operators = dict(zip(map(id, parent.comparators), parent.ops, strict=True))
        return isinstance(operators.get(id(node)), (ast.In, ast.NotIn))
    if isinstance(parent, (ast.For, ast.comprehension)):
        return parent.iter is node
    if isinstance(parent, ast.Call):
        func = parent.func
        return (
            isinstance(func, ast.Name)
            and func.id in TABLE_READERS
            and func.id not in bound
            and parent.args == [node]
            and not parent.keywords
        )
    return (
        isinstance(parent, ast.Attribute)
        and parent.attr in TABLE_METHODS
        and isinstance(grandparent, ast.Call)
        and grandparent.func is parent
    )


def constant_tables(tree: ast.Module) -> dict[str, list[str]]:
    """Module-level names bound once to a tuple, list or dict of literal strings and only ever
    read (`NAMES[key]`, `key in NAMES`, `for key in NAMES`, `sorted(NAMES)`, `NAMES.items()`):
    whatever key is used, the value is one of those strings. Any other use (rebinding,
    `NAMES.update`, `NAMES[k] = ...`, passing it on) drops it."""
    tables: dict[str, list[str]] = {}
    binding: dict[str, int] = {}  # name -> id of the one target that binds it
    for statement in tree.body:
        for bound, _ in bindings_of(statement):
            for each in bound_names(bound):
                binding[each] = -1 if each in binding else id(bound)
        value = getattr(statement, "value", None)
        items = value.values if isinstance(value, ast.Dict) else getattr(value, "elts", None)
        if (
            isinstance(statement, ast.Assign)
            and isinstance(value, (ast.Dict, ast.Tuple, ast.List))
            and items
            and all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items)
        ):
            for each in bound_names(statement.targets[0]):
                tables[each] = [str(getattr(i, "value", "")) for i in items]
    # Bound by its one assignment alone: a parameter, an import, `except ... as` or a match
    # pattern of the same name anywhere (`case NAMES:`) may hold any strings.
    counts = binding_counts(tree)
    tables = {name: entries for name, entries in tables.items() if counts.get(name) == 1}
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    bound_anywhere = every_bound_name(tree)
    for node in ast.walk(tree):
        name: str | None = None
        if isinstance(node, ast.Name) and node.id in tables:
            parent = parents.get(id(node))
            read = isinstance(node.ctx, ast.Load) and table_read(
                node, parent, parents.get(id(parent)), bound_anywhere
            )
            name = None if read or binding.get(node.id) == id(node) else node.id
        elif isinstance(node, ast.arg):
            name = node.arg
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name
        elif isinstance(node, ast.alias):
            name = (node.asname or node.name).split(".")[0]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for each in node.names:
                tables.pop(each, None)
        if name is not None:
            tables.pop(name, None)
    return tables


def _literal_string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def literal_display_keys(
    loop_iter: ast.AST, target: ast.AST
) -> tuple[list[str], ast.AST | None] | None:
    """A loop written over a display in place, and the name that takes its literal strings:
    `for n in ("a", "b")`; `for k in {"a": 1}`, `{...}.keys()` and `for k, v in {...}.items()`
    over a dict with literal string keys; `for k, v in (("a", 1), ("b", 2))` over pairs whose
    first item is a literal string. None for any other iterable."""
    pair = target.elts[0] if isinstance(target, ast.Tuple) and len(target.elts) == 2 else None
    if isinstance(loop_iter, (ast.Tuple, ast.List)):
        keys = [_literal_string(e) for e in loop_iter.elts]
        if all(k is not None for k in keys):
            return [str(k) for k in keys], target
        firsts = [
            _literal_string(e.elts[0]) if isinstance(e, ast.Tuple) and len(e.elts) == 2 else None
            for e in loop_iter.elts
        ]
        if firsts and all(k is not None for k in firsts):
            return [str(k) for k in firsts], pair
        return None
    method = None
    if (
        isinstance(loop_iter, ast.Call)
        and isinstance(loop_iter.func, ast.Attribute)
        and loop_iter.func.attr in ("items", "keys")
        and not loop_iter.args
        and not loop_iter.keywords
    ):
        method, loop_iter = loop_iter.func.attr, loop_iter.func.value
    if not isinstance(loop_iter, ast.Dict):
        return None
    dict_keys = [_literal_string(k) for k in loop_iter.keys]
    if not all(k is not None for k in dict_keys):
        return None  # a computed key, or a ** spread (its key is None)
    return [str(k) for k in dict_keys], pair if method == "items" else target


_BODIES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def evaluated_in(node: ast.AST, parents: dict[int, ast.AST]) -> ast.AST | None:
    """The scope whose names `node` reads or binds: the function, lambda, class or
    comprehension whose body holds it, else the root of `parents`. A default, decorator,
    annotation or base, and a comprehension's first iterable, belong to the scope around."""
    before, child, parent = None, node, parents.get(id(node))
    while parent is not None:
        inside = (
            (isinstance(parent, _BODIES) and child in parent.body)
            or (isinstance(parent, ast.Lambda) and child is parent.body)
            or (
                isinstance(parent, _COMPREHENSIONS)
                and not (child is parent.generators[0] and before is parent.generators[0].iter)
            )
        )
        if inside:
            return parent
        before, child, parent = child, parent, parents.get(id(parent))
    return child if isinstance(child, ast.Module) else None


def sees(binding: ast.AST | None, use: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Does a name read at `use` find a binding made in the scope `binding`? Its own scope,
    or one around it that is not a class (a class body's names are not seen from inside its
    methods or comprehensions)."""
    scope = evaluated_in(use, parents)
    if scope is binding:
        return binding is not None
    while scope is not None and not isinstance(scope, ast.Module):
        scope = evaluated_in(scope, parents)
        if scope is binding:
            return not isinstance(binding, ast.ClassDef)
    return False


def loop_literals(
    tree: ast.AST, module_tables: dict[str, list[str]] | None = None
) -> dict[int, list[str]]:
    """`for name, value in settings.items()` in a function where `settings` is bound once, to a
    dict with literal string keys, and only read (iterated, `.items()`, `.keys()`, `[k]`), and
    `name` is bound by that loop alone: each use of `name` holds one of those keys (ids of the
    uses, with the keys). A display looped over in place counts too (literal_display_keys: a
    tuple of literal strings, a literal dict, pairs led by literal strings), and so does an
    entry of a module-level constant table (constant_tables: `for name in NAMES`,
    `for key, name in NAMES.items()`, `NAMES.values()`); at the module's top level as well
    (`{n: getattr(torch, n) for n in ("float16", "bfloat16")}`)."""
    found: dict[int, list[str]] = {}
    constants = module_tables or {}
    body = tree.body if isinstance(tree, ast.Module) else []
    dicts = {
        name
        for statement in body
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Dict)
        for target in statement.targets
        for name in bound_names(target)
    }
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            continue
        parents = {
            id(child): node for node in ast.walk(function) for child in ast.iter_child_nodes(node)
        }
        counts = binding_counts(function)
        stores: dict[str, int] = {}
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                stores[node.id] = stores.get(node.id, 0) + 1
        tables: dict[str, list[str]] = {}
        table_scopes: dict[str, ast.AST | None] = {}
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Dict)
                and all(
                    isinstance(k, ast.Constant) and isinstance(k.value, str)
                    for k in node.value.keys
                )
            ):
                tables[node.targets[0].id] = [str(getattr(k, "value", "")) for k in node.value.keys]
                table_scopes[node.targets[0].id] = evaluated_in(node.targets[0], parents)
        for name in list(tables):
            for node in ast.walk(function):
                if not (isinstance(node, ast.Name) and node.id == name):
                    continue
                parent = parents.get(id(node))
                read = isinstance(node.ctx, ast.Load) and (
                    (isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node)
                    or (isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load))
                    or (
                        isinstance(parent, ast.Attribute)
                        and parent.attr in ("items", "keys")
                        and isinstance(parents.get(id(parent)), ast.Call)
                    )
                )
                # Bound once, by that assignment alone: a parameter or match pattern of the
                # same name (here or in another function) holds anything.
                if not (read or isinstance(node.ctx, ast.Store)) or counts.get(name) != 1:
                    tables.pop(name, None)
                    break
        for loop in ast.walk(function):
            if not isinstance(loop, (ast.For, ast.comprehension)):
                continue
            keys: list[str] | None = None
            loop_iter, target = loop.iter, loop.target
            named: ast.AST | None = target
            display = literal_display_keys(loop_iter, target)
            if display is not None:
                keys, named = display
            elif isinstance(loop_iter, ast.Name):
                keys = tables.get(loop_iter.id)
                if keys is not None and not sees(table_scopes[loop_iter.id], loop_iter, parents):
                    keys = None  # another scope's table of that name: not the one read here
                if loop_iter.id not in tables and loop_iter.id not in dicts:
                    keys = constants.get(loop_iter.id)  # a module-level tuple or list
            elif (
                isinstance(loop_iter, ast.Call)
                and isinstance(loop_iter.func, ast.Attribute)
                and isinstance(loop_iter.func.value, ast.Name)
                and loop_iter.func.attr in ("items", "keys", "values")
                and not loop_iter.args
            ):
                owner, method = loop_iter.func.value.id, loop_iter.func.attr
                pair = isinstance(target, ast.Tuple) and len(target.elts) == 2
                seen = owner in tables and sees(table_scopes[owner], loop_iter.func.value, parents)
                if seen and method != "values":
                    keys = tables[owner]
                    if method == "items":  # for key, value in d.items()
                        named = target.elts[0] if isinstance(target, ast.Tuple) and pair else None
                elif owner in dicts and owner in constants and method != "keys":
                    keys = constants[owner]  # the values of a module-level table
                    if method == "items":  # for key, name in NAMES.items()
                        named = target.elts[1] if isinstance(target, ast.Tuple) and pair else None
            if keys is None or not isinstance(named, ast.Name):
                continue
            # Bound by this loop alone (a for target counts twice in every_binding), counted in
            # the scope the loop binds it in (a comprehension's names are its own: a `for n, p`
            # elsewhere does not make them computed), and read in that scope or one inside it
            # (a comprehension's name is not the name outside it, nor a nested function's loop
            # name its caller's).
            scope = evaluated_in(named, parents)
            here_stores, here_counts = stores, counts
            if isinstance(loop, ast.comprehension) and scope is not None:
                here_counts = binding_counts(scope)
                here_stores = {}
                for node in ast.walk(scope):
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                        here_stores[node.id] = here_stores.get(node.id, 0) + 1
            if here_stores.get(named.id) != 1 or here_counts.get(named.id, 0) > 2:
                continue
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Name)
                    and node.id == named.id
                    and isinstance(node.ctx, ast.Load)
                    and sees(scope, node, parents)
                ):
                    found[id(node)] = keys
    return found


def methods_selves(tree: ast.AST) -> set[str]:
    """The first parameter of each method (`self`, `cls`), unless that name is also a
    parameter of a function outside a class."""
    # A static method's first parameter is any object its caller passes.
    methods = {
        id(item)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        and not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in item.decorator_list)
    }
    selves, others = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            positional = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
            if id(node) in methods:
                selves.update(positional[:1])
            else:
                others.update(positional)
    selves -= others
    # A method taken from its class (`Helper.patch(model)`, `map(Helper.patch, models)`) runs
    # with any object as its first parameter: then no `self` is the answer's own for sure.
    # `Base.__init__(self)` from a method passes its own self on, which is fine.
    plain = {
        (node.name, item.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        and not any(
            isinstance(d, ast.Name) and d.id in ("classmethod", "staticmethod")
            for d in item.decorator_list
        )
    }
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            continue
        if (node.value.id, node.attr) not in plain:
            continue
        call = parents.get(id(node))
        passes_self = (
            isinstance(call, ast.Call)
            and call.func is node
            and call.args[:1] != []
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id in selves
        )
        if not passes_self:
            return set()
    return selves
