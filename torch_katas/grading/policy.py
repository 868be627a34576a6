"""The policy for returned code: what a kata answer may use, checked on its source before it runs.

A kata answer is tensor code: it imports torch and a few standard modules, defines functions
and classes, and computes. Every way to tamper with a grade from inside the test process
(patching the tests' helpers or pytest, reaching the harness through frames, the garbage
collector or `sys.modules`, skipping or interrupting the run, a class that agrees with any
comparison, reading the reference answers) needs code that a kata answer has no use for. So
the policy is an allow-list over names, read on the AST of the returned stub before anything
runs:

- imports: torch's public parts that katas use, a few standard modules and NumPy (ALLOWED,
  ALLOWED_TORCH), and the modules the kata's entry in katas.toml adds (`imports = [...]`);
  of an added module the data does not record, the names the entry's `allow` grants, where it
  grants any (resolve_added);
- one path for every way to name a thing: `m.a`, `from m import a`, `import m.a`,
  `getattr(m, "a")`, `operator.attrgetter("a")` and `case C(a=x)` meet the same rules on the
  name and, where the owner is known, the same resolution below;
- names: every attribute chain that starts at an imported module resolves, part by part, to a
  public name recorded in public_names.json (each module's public attributes, less the modules
  it re-exports: `torch.sys`, `logging.os`); a module is only ever the left side of a `.`,
  never a value (`m = torch`, `f(np)`), but for `nn = torch.nn` at the top level, bound once,
  which is an import by another spelling; a name missing from the data is refused with the
  torch, NumPy or Python version the data came from;
- sinks (SINKS, SINK_APIS): what an allowed API turns from a string built at run time into
  code or an attribute path (torch.fx's code generation and fetch_attr, torch.export's code
  from module names, typing's evaluation of annotations, format templates): refused by name,
  on anything, unless the kata's entry allows it; torch.fx's GraphModule and Node only in
  annotations; annotations, and what types are subscripted with, hold types only (imported,
  builtin, the answer's classes, module-level aliases of them, an alias chosen by a condition
  whose branches both are, literals: each literal string is parsed and checked in its turn); a
  `.format` template is a literal, a choice between
  literals (`(a if c else b)`), a module-level or function-local name bound to such only, or
  an UPPER-case class constant (`self.TEMPLATE`) that every class body binds to a literal and
  nothing else names; torch.compile's `mode=` and `options=` (and the settings of
  torch.compiler.config.patch) are literals, or a module-level name bound to one and passed on
  only there, and no option configures an external program (`cpp.march`, a compiler, flags,
  paths: COMPILER_WORDS) unless the kata's entry allows `options.<key>`: inductor pastes them
  into the C++ compiler's command line;
- attributes of anything: no dunder beyond a short list (DUNDER_ATTRIBUTES; and `__dict__` of
  the answer's own object, which is `vars(self)`), no private
  attribute of what is imported or named after the interpreter (`_sys`, `_getframe`), no
  frame, traceback, generator, coroutine, code or cell attribute (by their real names: a
  NamedTuple field `f_x` is fine), no attribute named after a module that reaches the
  interpreter (`.sys`, `.builtins`, `.gc`), no reader or writer of files, code or pickles
  (REFUSED_ATTRIBUTES), nothing that reads where code is (LOCATIONS: a warning or log
  record's file and line, a format's `%(pathname)s` or `%(module)s`; raising a warning with a
  stacklevel is fine, but not in an answer that also reads warnings or records back (records
  them, redirects stderr, adds a handler or filter: place_read_back): the file that called
  the answer would tell a check's call from a caller's), no
  stream's file or descriptor (`sys.stdout.buffer.raw`, whose class opens any path or
  descriptor: STREAM_FILES) unless the kata imports a file module, nothing that registers
  with a process-wide registry (every
  module-level `register_*` function the data records but those that register on the object
  they are given (PER_OBJECT: a parametrization of one module), the saved-tensor hook contexts, the
  `register*` methods of a library's objects such as torch.distributions.biject_to, the
  handlers and filters of loggers other than `getLogger(__name__)` (a NullHandler goes on any
  logger, as libraries do), NumPy's print formatter
  and error callback: CALLBACK_KEYWORDS), no file API (FILE_APIS) unless the kata's entry
  allows it (`allow = [...]`); a rule on a name is about what it names, so `self.dump` of a
  class that defines `dump` is the answer's own;
- names as strings: `getattr`, `setattr`, `delattr`, `operator.attrgetter` and
  `operator.methodcaller` called where they are named (never a value handed on, to
  `ExitStack.callback` or `functools.partial`: the call that runs them is not seen), with a
  literal name only (or an entry of a module-level table of
  literal strings that nothing changes, or a loop name over a literal dict's keys, a tuple
  of literal strings or pairs led by literal strings, named or written in place, bound by
  that loop alone: each entry checked), checked as if written `x.name` (so `setattr(module,
  "name", v)` is `module.name = v`, under the rules on writes)
  (`getattr(nn, "RMSNorm", None)` asks for a class newer torch may have: no finding where the
  data lacks it); no other string holding a dunder name an answer may not read as an
  attribute, no one-word string holding a frame attribute, no format field that reads one
  (`"{0.__traceback__}"`);
- namespaces: `vars(self)` and `self.__dict__` of the answer's own object (and names bound to
  them) are read freely, but each key written into one or read by name (`ns[k] = v`,
  `update`, `setdefault`, `|=`, `get`) meets the rules of setattr's name: a literal that is no
  dunder, or a name built from a literal public start; a namespace handed on (to a call that
  does not copy it, returned, stored), or updated from a mapping whose keys do not show, is
  refused (a dunder key built at run time, `__annotations__`, is code typing runs), but for the
  state handed to a `load_state_dict` or `__setstate__` that the answer never calls itself;
- classes: dunder methods from a short list only (DEFINABLE: protocols such as `__len__`,
  `__float__`, in-place arithmetic such as `__iadd__`, never `__eq__`, `__bool__`,
  `__getattr__`, `__torch_function__`, `__init_subclass__`, reflected arithmetic); a
  functional Enum with literal members only; no `metaclass=`, no metaclass, no `type` but
  `type(x)`, no subclass of torch.Tensor or np.ndarray; none of torch's dispatch or function
  modes, by name;
- writes: no assignment to an attribute of an imported module or class (torch's documented
  settings aside: SETTINGS), of a class reached through `type(x)`, `__class__`, `mro()` or
  `__mro__`, or
  through a call's result; on objects the answer did not make (its arguments, what calls
  return, `self` of a method taken from its class, an alias of one; decided where the name is
  read, from the bindings that can reach it: Owned), no dunder, no private name and nothing
  that replaces a method or public name of torch or NumPy (`model.forward = ...`) beyond the
  documented mutable attributes (MUTABLE: `grad`, `data`, `requires_grad`, `training`...) and
  a torch.nn layer put in as a submodule (`model.dropout = nn.Identity()`); none of the fields
  torch.fx writes into code (CODE_FIELDS: `node.target`, `gm.graph`); a parameter annotated
  with the answer's own plain class is the answer's object where every call of its
  module-level function in the source passes one the answer made (the annotation alone proves
  nothing: a torch.fx Node could be passed);
- private attributes of objects the answer did not make (a model's or optimizer's hook tables,
  where the tests' probes are registered) are read only, as the tests' own state is: no
  in-place method, item write or delete, alias or helper that changes them, no hand-off but to
  a reading builtin, a helper of the answer's that only reads its parameter, or back to the
  tests from a function the file never calls itself;
- builtins: no `eval`, `exec`, `compile`, `globals`, `locals`, `vars` (but of the answer's
  own object), `__import__`, `open`
  (unless the kata may import `io`), `breakpoint`, `help`, `exit`, `quit`, `input`; no
  exception that is not an Exception, except to name it in an `except` clause;
- an `if __name__ == "__main__":` block at the module's top level is not read: it never runs
  when the tests import the answer.

`check()` lists what the source does that the policy refuses, each with its line and rule;
none for every reference answer and for honest answers written in any common style
(tests/honest_answers holds independently written ones).
"""

from __future__ import annotations

import ast
import builtins
import collections
import functools
import importlib
import importlib.util
import inspect
import re
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from torch_katas.grading import public_names
from torch_katas.source_names import (
    DTYPE_MODULES,
    binding_counts,
    bindings_of,
    bound_names,
    constant_tables,
    dtype_name_start,
    every_binding,
    every_bound_name,
    literal_strings,
    loop_literals,
    methods_selves,
    public_start,
)

__all__ = [
    "ALLOWED",
    "DUNDER_ATTRIBUTES",
    "LOCATIONS",
    "NAMED_ATTRIBUTES",
    "Finding",
    "allowed_import",
    "check",
    "check_file",
    "within",
]

# Modules every kata answer may import (with their recorded submodules).
ALLOWED = (
    "__future__",
    "abc",
    "bisect",
    "collections",
    "contextlib",
    "copy",
    "dataclasses",
    "enum",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "logging",
    "math",
    "numbers",
    "numpy",
    "operator",
    "random",
    "re",
    "secrets",
    "statistics",
    "string",
    "sys",
    "time",
    "typing",
    "typing_extensions",
    "uuid",
    "warnings",
    *public_names.PRIVATE,
)
# torch and the public parts of it that kata answers use (with their recorded submodules).
ALLOWED_TORCH = public_names.TORCH
# Parts of torch no answer may reach, imported or spelled out (`torch.library.impl`).
REFUSED_TORCH = tuple(m for m in public_names.NOT_RECORDED if m.startswith("torch"))
# File and process APIs an answer may use only where its kata's entry in katas.toml allows
# them (`allow = ["torch.save"]`): they read or write files behind the grader's back.
FILE_APIS = {
    "logging.FileHandler",
    "numpy.fromfile",
    "numpy.genfromtxt",
    "numpy.load",
    "numpy.loadtxt",
    "numpy.memmap",
    "numpy.save",
    "numpy.savetxt",
    "numpy.savez",
    "numpy.savez_compressed",
    "torch.export.load",
    "torch.export.save",
    "torch.load",
    "torch.onnx.export",
    "torch.save",
}
# Attributes no answer needs, on anything: raw memory, files read or written where Python's
# own file checks do not see them, libraries loaded, strings evaluated, the directory changed.
REFUSED_ATTRIBUTES = {
    "ctypes": "raw memory",
    "ctypeslib": "raw memory",
    "from_file": "reads a file",
    "fromfile": "reads a file",
    "tofile": "writes a file",
    "to_folder": "writes files",
    "export_chrome_trace": "writes a file",
    "loadtxt": "reads a file",
    "genfromtxt": "reads a file",
    "fromregex": "reads a file",
    "memmap": "maps a file",
    "load_library": "loads native code",
    "register_custom_ops_library": "loads native code",
    "enable_profiling": "writes a file",
    "optimized_model_filepath": "writes a file",
    # ONNX Runtime's settings by key: some keys name a file it writes natively
    # (session.collect_node_memory_stats_to_file, session.node_partition_config_file).
    "add_session_config_entry": "writes files (settings by key)",
    "add_run_config_entry": "writes files (settings by key)",
    # Hands its path to ctypes.CDLL: the library's code runs as it loads (the grading child
    # refuses a library loaded by path at run time too, however it is reached).
    "CUDAPluggableAllocator": "loads native code",
    "ForwardRef": "evaluates a string",
    "get_type_hints": "evaluates strings",
    "evaluate_forward_ref": "evaluates a string",
    "chdir": "changes the process's directory",
    "currentframe": "reaches the caller's frame",
    "dump": "writes a file",
    "PyTorchFileReader": "reads a file",
    "PyTorchFileWriter": "writes a file",
    "import_ir_module": "loads code",
    "import_ir_module_from_buffer": "loads code",
    "load_cache_artifacts": "loads compiled code",
    "load_compiled_function": "loads compiled code",
    "save_cache_artifacts": "writes files",
    "load_config": "unpickles a configuration",
    "save_config": "pickles a configuration",
    "compile_shader": "compiles native code",
    "load_metallib": "loads native code",
    "load_nvprof": "reads a file",
    "sys_importer": "imports modules",
    "PackageImporter": "imports modules",
    "Importer": "imports modules",
    # Global callbacks: the answer's code would run whenever anything in the process logs or
    # meets a floating-point error, after its tests too.
    "setLogRecordFactory": "runs the answer's code on every log record",
    "setLoggerClass": "runs the answer's code on every new logger",
    "seterrcall": "runs the answer's code on floating-point errors",
    # Classes made from a mapping built at run time: its keys can be dunders the policy
    # refuses in a class body (`__eq__`, `__torch_dispatch__`). A class statement says it all.
    "make_dataclass": "makes a class from names built at run time (write a class statement)",
    "new_class": "makes a class from a namespace built at run time (write a class statement)",
    # Global registries: what the answer adds there changes how the tests' own objects are
    # copied, pickled, loaded or flattened (`copy.deepcopy(model)` returning the model).
    "dispatch_table": "a global registry of how objects are copied and pickled",
    "add_safe_globals": "a global registry of what torch.load may unpickle",
    "register_package": "a global registry of how torch loads files",
    "register_pytree_node": "a global registry of how torch flattens objects",
    "register_constant": "a global registry of how torch flattens objects",
    "register_dataclass": "a global registry of how torch flattens objects",
    "register_kl": "a global registry of torch.distributions' KL divergences",
}
# A stream's file and descriptor (`sys.stdout.buffer.raw`, a logging handler's stream's): the
# class of that file (`type(f)`, `f.__class__`) opens any path or descriptor, the results
# pipe too. Refused on anything but the answer's own, unless the kata's entry imports a
# module that opens files anyway (FILE_MODULES: a checkpoint's `os.fsync(f.fileno())`).
STREAM_FILES = {
    "buffer": "reaches a stream's file (its class opens any file or descriptor)",
    "raw": "reaches a stream's file (its class opens any file or descriptor)",
    "fileno": "reaches a stream's file descriptor",
}
FILE_MODULES = ("io", "os", "pathlib", "tempfile", "shutil")
# Sinks: what an allowed API does with a string the answer builds at run time, where the string
# becomes code or an attribute path. A string built at run time never shows in the AST, so the
# policy refuses the sink itself (by its name, on anything: the objects a test hands over have
# these methods too) or, where the sink is a name honest answers write, its non-literal string
# (format templates, annotations: see `template` and `type_expression`).
#
# How a new sink is found (redo it when ALLOWED, ALLOWED_TORCH or the pinned versions move):
#   1. for every module public_names.json records, grep its package's sources for `eval(`,
#      `exec(`, `compile(`, `__import__`, `import_module`, `get_type_hints`, `_eval_type`,
#      `ForwardRef(`, `getattr(`/`setattr(` with a name that is a parameter, `split(".")`
#      followed by getattr (a dotted path), `pickle`/`marshal` loads, `pydoc.locate`;
#   2. follow each hit up to the public function or method an answer can call, and ask what
#      string of the caller's reaches it (a target, a name, a template, an annotation);
#   3. where one does and no kata needs it: add its name here (or to SINK_APIS where it is a
#      name torch's data records and a kata's `allow` may grant it); tests/test_policy.py
#      then proves it refused in every naming form (SINK_NAMES over FORMS);
#   4. the same for registries: import each recorded module and list its module-level objects
#      that are not modules, classes or functions but have a `register*` method (refused as a
#      class: resolve()) or are a torch.library.Library (SINK_APIS).
# Examined and left open, as they only follow names to objects of a checked type: nn.Module's
# get_submodule/get_parameter/get_buffer (each step must be a Module, a Parameter, a buffer),
# functional_call (sets tensors only), collections.namedtuple (identifiers only),
# typing.NamedTuple/TypedDict (evaluate nothing), numpy.info (reads docs). Left to the grading
# child's CodeGuard, which checks what they compile: dataclasses (writes field names, from a
# class's `__annotations__`, into code unchecked) and the annotations typing or inspect
# evaluate from an object's run-time `__annotations__` (singledispatch's register).
SINKS = {
    # torch.fx writes each node's target, name and placeholder into the Python source of the
    # module's forward, unescaped, and runs it (GraphModule, recompile, deepcopy of one).
    "get_attr": "puts a string into code torch.fx generates",
    "call_method": "puts a string into code torch.fx generates",
    "call_module": "puts a string into code torch.fx generates",
    "call_function": "builds a graph that torch.fx turns into code",
    "create_node": "puts a string into code torch.fx generates",
    "placeholder": "puts a string into code torch.fx generates",
    "graph_copy": "copies nodes into a graph torch.fx turns into code",
    "node_copy": "copies nodes into a graph torch.fx turns into code",
    "recompile": "turns a graph into code and runs it",
    "python_code": "turns a graph into code",
    # torch.fx.Interpreter.fetch_attr follows any dotted path (`forward.__globals__`).
    "fetch_attr": "follows an attribute path given as a string",
    # Annotations evaluated as code (eval_str=True).
    "get_annotations": "evaluates strings",
}
# Names of torch's data that are sinks: refused but where a kata's `allow` grants them
# (torch.export writes submodule and buffer names into the code of `.module()` and runs it,
# unescaped: where a kata allows it, a module named at run time is a way in that the names in
# the source cannot show, and only a check on the exported program's names closes).
SINK_APIS = {
    "torch.fx.Graph": "builds a graph that torch.fx turns into code",
    "torch.fx.Interpreter": "follows attribute paths given as strings (fetch_attr)",
    "torch.export.export": "turns module names into code it runs",
    "torch.export.draft_export": "turns module names into code it runs",
    # A torch.library.Library: implementations of operators, for the whole process.
    "torch.export.custom_ops.lib": "registers operator implementations for the whole process",
}
# Types of torch.fx an answer may name in an annotation only (a compile backend's
# `gm: torch.fx.GraphModule`): called, they turn a graph into code and run it.
ANNOTATION_ONLY = {"torch.fx.GraphModule", "torch.fx.Node"}
# Fields torch.fx writes into generated code: no answer sets them on what it did not make.
CODE_FIELDS = {"graph", "target", "name", "op", "args", "kwargs", "type"}
# What a kata's tests keep in the objects they hand over (tests_state): a count of forward
# passes, a record of calls, which the test reads afterwards (`model.forwards -= 1` would hide
# a second pass).
TESTS_STATE = (
    "where the kata's tests keep their own state (a count, a record of calls), on an object "
    "the answer did not make: read it, never change it"
)
# A private attribute of an object the answer did not make (a model's or optimizer's hook
# tables, where the tests' probes are registered): read only, as the tests' own state is.
PRIVATE_STATE = (
    "a private attribute of an object the answer did not make (where the tests' hooks and "
    "probes live): read it, never change it"
)
# Where a value is only read: compared, computed with, formatted, tested.
READ_ONLY_PARENTS = (
    ast.Compare,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.FormattedValue,
    ast.If,
    ast.IfExp,
    ast.While,
    ast.Assert,
    ast.Expr,
)
# Builtins that only read what they are given.
READ_ONLY_BUILTINS = {
    "abs",
    "all",
    "any",
    "bool",
    "dict",
    "frozenset",
    "set",
    "float",
    "int",
    "isinstance",
    "len",
    "list",
    "max",
    "min",
    "repr",
    "round",
    "sorted",
    "str",
    "sum",
    "tuple",
}
# Methods that change a list, dict, set or deque in place.
IN_PLACE = {
    "add",
    "append",
    "appendleft",
    "clear",
    "difference_update",
    "discard",
    "extend",
    "extendleft",
    "insert",
    "intersection_update",
    "pop",
    "popitem",
    "popleft",
    "remove",
    "reverse",
    "rotate",
    "setdefault",
    "sort",
    "symmetric_difference_update",
    "update",
    "__setitem__",
    "__delitem__",
}
# Attributes an answer may set on objects it did not make (a model or tensor a test hands
# over), though torch or NumPy also name them.
MUTABLE = {
    "bias",
    "data",
    "grad",
    "momentum",
    "requires_grad",
    "training",
    "weight",
}
# Module-level settings of torch that answers set by design (reproducibility, precision).
SETTINGS = {
    "torch.backends.cudnn.allow_tf32",
    "torch.backends.cudnn.benchmark",
    "torch.backends.cudnn.deterministic",
    "torch.backends.cudnn.enabled",
    "torch.backends.cuda.matmul.allow_tf32",
    "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
}
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
    "__float__",
    "__int__",
    "__index__",
    "__complex__",
    "__hash__",
    "__format__",
    "__version__",
}
# Statements and clauses that assign to their targets.
WRITES = (
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Delete,
    ast.For,
    ast.AsyncFor,
    ast.comprehension,
    ast.withitem,
)
# Dunder attributes an answer may read.
DUNDER_ATTRIBUTES = _PROTOCOL | {
    "__name__",
    "__qualname__",
    "__class__",
    "__doc__",
    "__module__",
    # A class's method resolution order, as its public `mro()` gives it (a tuple, not a list):
    # classes reached through it are refused as owners of writes, as through mro().
    "__mro__",
    # An exception's chain: other exceptions (their __traceback__ stays refused).
    "__cause__",
    "__context__",
    "__suppress_context__",
    "__notes__",
    # A container's own methods, handed on as callables (`outs.__setitem__`).
    "__setitem__",
    "__delitem__",
}
# Attributes that reach a class from an object or a class (through_class).
CLASS_REACHING = frozenset({"__class__", "mro", "__mro__"})
# Dunder names an answer may define (as methods or class attributes) or bind at module level.
DEFINABLE = _PROTOCOL | {
    "__setitem__",
    "__delitem__",
    "__missing__",
    "__reversed__",
    "__getstate__",
    "__setstate__",
    "__copy__",
    "__deepcopy__",
    "__all__",
    "__slots__",
    # In-place arithmetic acts only where the answer's own object is on the left of `+=`: it
    # cannot change a comparison the tests make (reflected and plain arithmetic can:
    # `abs(expected - actual)`).
    "__iadd__",
    "__isub__",
    "__imul__",
    "__imatmul__",
    "__itruediv__",
    "__ifloordiv__",
    "__imod__",
    "__ipow__",
    "__iand__",
    "__ior__",
    "__ixor__",
    "__ilshift__",
    "__irshift__",
}
# Methods of the answer's own classes that Python hands an operand (`x in box`, `box[x]`,
# `box += x`, a Mapping's `in` through `__getitem__`): where the answer defines one, the tests'
# state in such a place is handed on to its code.
OPERAND_DUNDERS = {
    "__contains__",
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__missing__",
} | {name for name in DEFINABLE if name.startswith("__i")} - {
    "__init__",
    "__index__",
    "__int__",
    "__iter__",
}
# Methods that put a value into a module or container (planted).
STORES = {
    "add_module",
    "register_module",
    "insert",
    "append",
    "extend",
    "update",
    "setdefault",
    "__setitem__",
}
# Dunder names an answer may read as plain names.
DUNDER_NAMES = {"__name__", "__doc__", "__all__", "__version__"}
# Dunder names an answer may write as strings (the module name of a `__main__` check); others
# only as what `hasattr` asks for, which reads nothing.
DUNDER_STRINGS = {"__main__"}
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
    "help": "imports modules by name",
    "exit": "ends the process",
    "quit": "ends the process",
    "input": "reads the terminal",
}
# Classes whose subclasses change what tests see of the objects an answer returns: a Tensor or
# array subclass can answer any method call (`.allclose`, `.item`) as it likes.
UNSUBCLASSABLE = {
    "torch.Tensor": "a tensor whose methods answer as the answer likes",
    "torch.nn.Parameter": "a tensor whose methods answer as the answer likes",
    "torch.nn.parameter.Parameter": "a tensor whose methods answer as the answer likes",
    "numpy.ndarray": "an array whose methods answer as the answer likes",
}
# torch's modes (TorchDispatchMode, TorchFunctionMode and theirs, wherever re-exported): a
# subclass sees, and can answer, every operation run while it is on the stack, the tests' too.
TORCH_MODE = re.compile(r"torch(\.\w+)*\.\w*Mode")
# The same modes by name, however they are reached (`M = c.TorchDispatchMode; class S(M)`, or
# one of torch's own entered and left on): no answer uses one.
MODE_NAMES = re.compile(r"\w*(Dispatch|Function|Tensor)Mode")
# The classes whose functional form (`Enum("Name", [(name, value), ...])`) takes members
# built at run time, dunders among them.
ENUM_CLASSES = re.compile(r"enum\.\w+")
# What reads or writes an attribute named by a string.
NAMED_ATTRIBUTES = {"getattr", "setattr", "delattr"}
NAMED_BY_OPERATOR = {"operator.attrgetter", "operator.methodcaller"}
NOT_EXCEPTIONS = {
    "BaseException",
    "BaseExceptionGroup",
    "GeneratorExit",
    "KeyboardInterrupt",
    "SystemExit",
}
# Process-wide registries, found as a class in the data: every module-level `register_*`
# function (a hook on every module or every optimizer step, a KL pair, an op's implementation;
# methods of that name register on one object only), and the context managers that set
# autograd's saved-tensor hooks for the whole process. What the answer adds there runs for the
# tests' own objects too. A kata whose contract asks for one names it in `allow`.
GLOBAL_REGISTRY = re.compile(r"register_\w+")
GLOBAL_CONTEXTS = {"saved_tensors_hooks", "disable_saved_tensors_hooks", "save_on_cpu"}
# Module-level functions that register on the objects they are given, as the methods of that
# name do (`module.register_forward_hook`): a parametrization of one module, a hook on the
# given tensors' gradients.
PER_OBJECT = {"register_parametrization", "register_multi_grad_hook"}
# Frame, traceback, generator, coroutine, code and cell attributes, by the names this Python
# gives them and those others do: the way to other frames' data.
_INTERNAL_TYPES = (
    types.FrameType,
    types.TracebackType,
    types.GeneratorType,
    types.CoroutineType,
    types.AsyncGeneratorType,
    types.CodeType,
    types.CellType,
)
INTERNALS = {
    name
    for kind in _INTERNAL_TYPES
    for name in dir(kind)
    if re.fullmatch(r"(tb|f|gi|cr|ag|co)_\w+|cell_contents", name)
} | {"f_generator", "gi_frame", "cr_frame", "ag_frame", "f_locals", "f_globals", "f_back"}
# Where code is: the fields of warning and log records that say where they were raised, the
# arguments that raise them from a caller's frame (`warnings.warn(..., stacklevel=3)`) or put a
# stack or traceback in them, and the functions that print one. An answer may not read them
# (on anything, or named in a string: `getattr(w, "lineno")`, a log format's `%(pathname)s`):
# the file that called it tells the checks' calls from a caller's. A returned test module may
# not pass the arguments either (testwrite.py): they tell the answers' lines apart. Frames and
# tracebacks are INTERNALS.
LOCATIONS = {
    *("lineno", "end_lineno", "filename", "pathname", "funcName", "module_globals"),
    *("stacklevel", "skip_file_prefixes", "stack_info", "exc_info", "exc_text", "findCaller"),
    *("formatwarning", "showwarning", "formatException", "formatStack", "print_stack"),
    *("format_stack", "extract_stack", "tblen", "exception"),
    "WarningMessage",  # the class the scoring makes every warning's record of
    # Stacks torch keeps: the profiler's (with_stack), anomaly mode's of each autograd node
    # (the scoring hides those too), a traced graph's nodes'.
    *("with_stack", "traceback_", "stack_trace"),
}
# Modules that reach the interpreter, the process or the test run: an attribute named after one
# (`x.sys`) is refused on anything, as a re-export is how they are reached. (Not `types` or
# `signal`, which honest data classes name fields after.)
INTERPRETER_MODULES = {
    *(public_names.FOREIGN - {"types", "signal"}),
    "atexit",
    "copyreg",
    "dis",
    "faulthandler",
    "linecache",
    "pytest",
    "_pytest",
    "pluggy",
    "sysconfig",
    "traceback",
    "tracemalloc",
    "unittest",
    "weakref",
}
# Module names refused as whole strings, for the APIs that turn strings into attribute reads
# (torch.fx's get_attr): the ones no honest string equals (not "os" or "nt", which name
# platforms).
STRING_MODULES = {
    "_pytest",
    "builtins",
    "ctypes",
    "gc",
    "importlib",
    "inspect",
    "marshal",
    "multiprocessing",
    "pickle",
    "pluggy",
    "pytest",
    "runpy",
    "subprocess",
    "sys",
    "threading",
}
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
        "environ",
        "environb",  # environ in bytes: PATH and LD_PRELOAD of the compiler torch starts
        "putenv",
        "unsetenv",
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


@dataclass(frozen=True)
class Names:
    """public_names.json, read once: each recorded module's public names and their kinds."""

    versions: str
    modules: dict[str, dict[str, str]]  # module -> name -> kind
    aliases: frozenset[str]  # names under which recorded modules hold other modules
    protected: frozenset[str]  # names an answer may not set on objects it did not make
    module_members: frozenset[str]  # torch.nn.Module's methods and properties
    registries: frozenset[str]  # names of what registers with a process-wide registry


@functools.cache
def names() -> Names:
    data = public_names.load()
    modules = {
        module: {name: kind for kind, listed in kinds.items() for name in listed}
        for module, kinds in data["modules"].items()
    }
    every = {name for listed in modules.values() for name in listed}
    pythons = ", ".join(data["python"])
    versions = f"torch {data['torch']}, NumPy {data['numpy']}, Python {pythons}"
    aliases = frozenset(data["module_aliases"])
    members = {name for listed in data["members"].values() for name in listed}
    registries = {
        name
        for kinds in modules.values()
        for name, kind in kinds.items()
        if kind == "other" and GLOBAL_REGISTRY.fullmatch(name)
    }
    return Names(
        versions,
        modules,
        aliases,
        frozenset((every | members) - MUTABLE),
        frozenset(data["members"]["torch.nn.Module"]),
        frozenset((registries - members - PER_OBJECT) | GLOBAL_CONTEXTS),
    )


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def refused_torch(dotted: str) -> bool:
    return any(within(dotted, refused) for refused in REFUSED_TORCH)


def allowed_import(name: str, extra: Iterable[str] = ()) -> bool:
    """True when a kata answer (with the kata's `extra` modules) may import `name`."""
    return why_not_import(name, tuple(extra)) is None


def why_not_import(name: str, extra: tuple[str, ...]) -> str | None:
    """Why a kata answer may not import the module `name`, or None when it may."""
    if name.startswith("."):
        return "a relative import"
    if any(within(name, e) for e in unrecorded(extra)):
        return None  # a module the kata adds that the data does not record: onnx, torch._dynamo
    if any(within(name, e) for e in extra):
        pass
    elif name.startswith("torch"):
        if refused_torch(name) or not any(within(name, m) for m in (*ALLOWED_TORCH, *ALLOWED)):
            return "not a part of torch a kata answer may use"
    elif not any(within(name, m) for m in ALLOWED):
        return "not among the modules this kata's answers may import"
    if name not in names().modules and not package(name):
        return f"not a module recorded in public_names.json ({names().versions})"
    return None


def unrecorded(extra: Iterable[str]) -> list[str]:
    """The modules a kata adds that public_names.json does not record: read leniently."""
    return [e for e in extra if e not in names().modules and not package(e)]


def added_module(dotted: str) -> types.ModuleType | None:
    """A module a kata adds that the data does not record, imported (None where it is not
    installed here)."""
    try:
        return importlib.import_module(dotted)
    except Exception:  # a library that fails to import names nothing
        return None


def added_attribute(module: types.ModuleType, dotted: str, part: str) -> object | None:
    """`module.part` as its namespace holds it (no property or module __getattr__ runs), or
    its submodule `part`; None where it has neither."""
    try:
        return inspect.getattr_static(module, part)
    except AttributeError:
        pass
    try:
        found = importlib.util.find_spec(f"{dotted}.{part}") is not None
    except (ImportError, ValueError):
        found = False
    return added_module(f"{dotted}.{part}") if found else None


PLAIN_DATA = (bool, int, float, complex, str, bytes, type(None))


def torch_types() -> tuple[type, ...]:
    """torch's dtype and device: data, wherever a table of them lies."""
    torch = sys.modules.get("torch")
    return (torch.dtype, torch.device) if torch is not None else ()


def made_in(value: object) -> str:
    """The module that made `value`: a function's or class's own, an object's class's."""
    home = getattr(value, "__module__", None) if callable(value) else None
    if not isinstance(home, str):
        home = getattr(type(value), "__module__", None)
    return home if isinstance(home, str) else "?"


def package(dotted: str) -> bool:
    """A package the data records only submodules of (torch.utils for torch.utils.data)."""
    return any(m.startswith(dotted + ".") for m in names().modules) and not refused_torch(dotted)


def check(
    source: str,
    extra_imports: Iterable[str] = (),
    filename: str = "<answer>",
    allow: Iterable[str] = (),
    tests: str | bytes | None = None,
) -> list[Finding]:
    """What `source` does that the policy refuses, in line order; [] for a plain answer.

    `extra_imports` are the modules the kata's entry adds, `allow` the file APIs it allows,
    `tests` the source of the kata's test module (the state it keeps: tests_state).
    Source that does not parse gives one finding (it is graded as a syntax error anyway).
    """
    try:
        tree = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError) as error:
        return [Finding(getattr(error, "lineno", None) or 1, "syntax", "does not parse")]
    checker = _Checker(
        tuple(extra_imports), frozenset(allow), tests_state(tests), tests_data(tests)
    )
    checker.run(tree)
    unique = {(f.line, f.rule, f.text): f for f in checker.found}
    return sorted(unique.values(), key=lambda f: (f.line, f.rule, f.text))


def check_file(
    path: Path,
    extra_imports: Iterable[str] = (),
    allow: Iterable[str] = (),
    tests: Path | None = None,
) -> list[Finding]:
    text = path.read_text(encoding="utf-8", errors="replace")
    tests_source = tests.read_bytes() if tests is not None and tests.is_file() else None
    return check(text, extra_imports, str(path), allow, tests_source)


@functools.lru_cache(maxsize=64)
def tests_state(tests: str | bytes | None) -> frozenset[str]:
    """The attributes in which a kata's test module keeps state of its own: what its classes
    set on `self` (`self.forwards += 1`, `self.seen = []`) or declare in their bodies (a
    dataclass's fields), less the attributes torch documents as mutable (MUTABLE) and private
    ones (refused anyway). The tests hand these objects to the answer and read them after."""
    if tests is None:
        return frozenset()
    try:
        tree = ast.parse(tests)
    except (SyntaxError, ValueError):
        return frozenset()
    found = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for statement in cls.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                found.add(statement.target.id)
            elif isinstance(statement, ast.Assign):
                found.update(t.id for t in statement.targets if isinstance(t, ast.Name))
        for node in ast.walk(cls):
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                for each in ast.walk(target):
                    if (
                        isinstance(each, ast.Attribute)
                        and isinstance(each.value, ast.Name)
                        and each.value.id == "self"
                    ):
                        found.add(each.attr)
    return frozenset(n for n in found if not n.startswith("_") and not is_dunder(n)) - MUTABLE


@functools.lru_cache(maxsize=64)
def tests_data(tests: str | bytes | None) -> frozenset[str]:
    """The tests' state (tests_state) that may be data, not a submodule: attributes their
    classes set to a literal, a display, a comprehension, a builtin container (`set()`) or a
    name handed in, or change with `+=`. No layer of torch.nn goes there in place of a
    submodule (`probe.seen = nn.ModuleList()` hands the tests a record of the answer's)."""
    if tests is None:
        return frozenset()
    try:
        tree = ast.parse(tests)
    except (SyntaxError, ValueError):
        return frozenset()
    found: set[str] = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            if isinstance(node, ast.AugAssign):
                targets = [node.target]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
            for target in targets:
                pairs: list[tuple[ast.expr, ast.expr | None]] = [(target, value)]
                if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
                    pairs = list(zip(target.elts, value.elts, strict=False))
                found.update(
                    name.attr
                    for name, each in pairs
                    if isinstance(name, ast.Attribute)
                    and isinstance(name.value, ast.Name)
                    and name.value.id == "self"
                    and data_value(each)
                )
    return frozenset(found) & tests_state(tests)


def data_value(value: ast.AST | None) -> bool:
    """`+=` (None), a literal, a display, a comprehension, a name, a builtin container."""
    if isinstance(value, ast.Call):
        return isinstance(value.func, ast.Name) and value.func.id in BUILTIN_CLASSES
    return not isinstance(value, (ast.Attribute, ast.Subscript, ast.Lambda))


def main_block(node: ast.stmt) -> bool:
    """`if __name__ == "__main__":` (either way round), with no `else`."""
    if not isinstance(node, ast.If) or node.orelse:
        return False
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    main = {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}
    return isinstance(test.ops[0], ast.Eq) and sides == main


class _Checker:
    def __init__(
        self,
        extra: tuple[str, ...],
        allow: frozenset[str],
        state: frozenset[str],
        data: frozenset[str] = frozenset(),
    ):
        self.tests_data = data  # the state that is data, never a submodule (tests_data)
        self.extra = extra
        self.allow = allow
        self.tests_state = state
        self.names = names()
        self.raised: set[int] = set()  # ids of the names raised directly (one finding each)
        self.found: list[Finding] = []
        self.imported: dict[str, str] = {}  # local name -> what it was imported as (dotted)
        self.bound: set[str] = set()  # names bound to an imported module or class
        self.classes: set[str] = set()  # names bound to a class through type(x) or __class__
        self.own: set[int] = set()  # ids of loaded names that hold an object the answer made
        self.variables: set[str] = set()  # names bound by assignments, loops or parameters
        self.made: set[str] = set()  # attribute names the answer defines or assigns
        self.handler_types: set[int] = set()  # ids of nodes naming an except clause's types
        self.shadowed: set[int] = set()  # ids of names that are the answer's own, not builtins
        self.parents: dict[int, ast.AST] = {}
        self.docstrings: set[int] = set()
        self.annotations: set[int] = set()  # ids of nodes inside annotations
        self.local_classes: set[str] = set()
        self.own_classes: set[str] = set()
        self.enums: set[str] = set()  # the answer's classes that subclass an enum class
        self.frozen_setattr: set[int] = set()  # ids of `object.__setattr__` in __post_init__
        self.tables: dict[str, list[str]] = {}  # module-level constant tables of names
        self.file_names: set[str] = set()  # every name the source binds, anywhere
        self.aliases: dict[str, list[ast.AST]] = {}  # module-level names -> their values
        self.alias_calls: set[int] = set()  # ids of the calls that make module-level aliases
        self.tree: ast.Module = ast.Module(body=[], type_ignores=[])
        self.type_strings: list[ast.Constant] = []  # literal strings typing may evaluate
        self.module_alias_values: set[int] = set()  # ids of `torch.nn` in `nn = torch.nn`
        self.loop_names: dict[int, list[str]] = {}  # ids of loop names -> the literals they hold
        self.counts: dict[str, int] = {}  # how many bindings of each name (binding_counts)
        self.state_aliases: set[str] = set()  # names bound to the tests' state (`s = probe.seen`)
        self.private_aliases: set[str] = set()  # of them, those bound to a private attribute
        self.receives_operands = False  # defines a method handed an operand (OPERAND_DUNDERS)

    def place_read_back(self, tree: ast.Module) -> None:
        """A warning or log record raised from a caller's frame (a stacklevel, or warn's
        third argument) is fine alone; read back in the answer it says which file called
        it: a recorded warning's text (`str(w)`), the default showwarning's line on a
        redirected stderr, a handler's or filter's record (`record.module`). So the answer
        may raise one up the stack or read them back, not both."""
        raised: list[ast.Call] = []
        read: list[ast.stmt | ast.expr] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(
                (self.dotted(b) or "").startswith("logging.") for b in node.bases
            ):
                read.append(node)
            # A logger's lists of handlers and filters take one without addHandler (a filter
            # may be any function of the record).
            if isinstance(node, ast.Attribute) and node.attr in ("handlers", "filters"):
                read.append(node)
            if not isinstance(node, ast.Call):
                continue
            dotted = self.dotted(node.func) or ""
            method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            spread = any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords
            )
            if (
                any(k.arg in ("stacklevel", "skip_file_prefixes") for k in node.keywords)
                or (dotted == "warnings.warn" and (len(node.args) > 2 or spread))
                or (spread and method in LOG_METHODS | {"warn"})
            ):
                raised.append(node)
            recorded = dotted == "warnings.catch_warnings" and any(
                k.arg in ("record", None)
                and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                for k in node.keywords
            )
            if (
                recorded
                or dotted in ("contextlib.redirect_stderr", "logging.captureWarnings")
                or method in ("addHandler", "addFilter", "setFormatter")
            ):
                read.append(node)
        if raised and read:
            for node in raised:
                self.note(
                    node,
                    "location",
                    f"raises a warning or log record from a caller's frame and reads them back "
                    f"(line {read[0].lineno}): its text says which file called the answer",
                )

    def note(self, node: ast.AST, rule: str, text: str) -> None:
        self.found.append(Finding(getattr(node, "lineno", 1), rule, text))

    def run(self, tree: ast.Module) -> None:
        # What runs only as a script is never run by the tests.
        tree.body = [node for node in tree.body if not main_block(node)]
        self.tree = tree
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imports(node)
            elif isinstance(node, ast.ExceptHandler) and node.type is not None:
                self.handler_types.update(id(n) for n in ast.walk(node.type))
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body
                if (
                    body
                    and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                ):
                    self.docstrings.add(id(body[0].value))
        self.module_aliases(tree)
        self.bound = set(self.imported)
        self.local_classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
        # The answer's classes, where their names are bound to nothing else: no assignment,
        # parameter (of a def or a lambda), match capture or import (binding_counts counts
        # every kind), so `def f(Fake): Fake.seen.clear()` is not a class of its own.
        defined = collections.Counter(n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef))
        counts = binding_counts(tree)
        self.own_classes = {
            name for name, times in defined.items() if counts.get(name, 0) == times
        } - set(self.imported)
        self.enums = {
            n.name
            for n in ast.walk(tree)
            if isinstance(n, ast.ClassDef)
            and any(ENUM_CLASSES.fullmatch(self.dotted(b) or "") for b in n.bases)
        }
        self.frozen_setattr = frozen_setattrs(tree)
        self.counts = binding_counts(tree)
        self.tables = constant_tables(tree)
        self.loop_names = loop_literals(tree, self.tables)
        self.shadowed = shadowed(tree)
        self.annotations = {id(n) for a in annotation_nodes(tree) for n in ast.walk(a)}
        self.find_aliases(tree)
        self.find_own(tree)
        self.tree = tree
        self.file_names = every_bound_name(tree)
        self.aliases = module_bindings(tree)
        self.alias_calls = {
            id(v) for values in self.aliases.values() for v in values if isinstance(v, ast.Call)
        }
        self.namespaces(tree)
        self.receives_operands = any(
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name in OPERAND_DUNDERS
            for node in ast.walk(tree)
        )
        for node in ast.walk(tree):
            self.visit(node)
        self.place_read_back(tree)
        self.state_alias_uses(tree)
        self.planted(tree)
        # Annotations and what types are subscripted with: typing evaluates the strings in
        # them (get_type_hints, singledispatch's register), so they hold types only.
        # Each literal string found there (or in an alias they name) is parsed and checked as
        # an annotation in its turn.
        for annotation in annotation_nodes(tree):
            self.type_expression(annotation)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Subscript)
                and id(node) not in self.annotations
                and self.names_type(node.value)
            ):
                self.type_expression(node.slice)
        done: set[int] = set()
        while self.type_strings:
            annotation = self.type_strings.pop()
            if id(annotation) in done:
                continue
            done.add(id(annotation))
            try:
                parsed = ast.parse(str(annotation.value), mode="eval")
            except SyntaxError:
                continue
            for node in ast.walk(parsed):
                ast.copy_location(node, annotation)
                self.annotations.add(id(node))
                for child in ast.iter_child_nodes(node):
                    self.parents[id(child)] = node
            for node in ast.walk(parsed):
                self.visit(node)
            self.type_expression(parsed.body)

    # -- types: what typing may evaluate ---------------------------------------------------

    def type_expression(self, node: ast.AST) -> None:
        """An annotation, or what a type is subscripted with: made of types only (imported,
        builtin, the answer's classes, module-level aliases of those), literals and `|`. A
        value built at run time there (`List[source]`) is a string typing evaluates."""
        if not self.static_type(node, frozenset()):
            self.note(
                node,
                "annotation",
                f"annotates with {ast.unparse(node)}, not a type written out (typing "
                "evaluates the strings it finds in annotations)",
            )

    def static_type(self, node: ast.AST, seen: frozenset[str]) -> bool:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                self.type_strings.append(node)  # parsed and checked as an annotation
            return True
        if isinstance(node, ast.Name):
            if node.id in self.imported or node.id in self.own_classes:
                return True
            if node.id not in self.file_names:
                return hasattr(builtins, node.id)
            values = self.aliases.get(node.id)
            return (
                values is not None
                and node.id not in seen
                and all(self.static_type(v, seen | {node.id}) for v in values)
            )
        if isinstance(node, ast.Starred):
            return self.static_type(node.value, seen)
        if isinstance(node, ast.Attribute):
            # A class or typing name of a library: not an attribute anything can set at run
            # time (`logging.root.x`, an attribute of the answer's own class).
            return self.type_name(node)
        if isinstance(node, ast.Subscript) and self.literal_type(node.value, seen):
            # Literal["mean", "sum"] holds values, which typing never evaluates.
            return literal_values(node.slice)
        if isinstance(node, ast.Subscript):
            # A generic (`List[...]`), not an item of a library's container (a list an answer
            # can put strings in).
            return (
                self.names_type(node.value, seen)
                and self.static_type(node.value, seen)
                and self.static_type(node.slice, seen)
            )
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self.static_type(e, seen) for e in node.elts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.static_type(node.left, seen) and self.static_type(node.right, seen)
        if isinstance(node, ast.IfExp) and id(node) not in self.annotations:
            # An alias chosen when the module runs (`list[float] if sys.version_info >= (3, 9)
            # else List[float]`): its test is code the policy reads as any; each branch a type.
            return self.static_type(node.body, seen) and self.static_type(node.orelse, seen)
        if isinstance(node, ast.Call) and id(node) in self.alias_calls:
            # A module-level alias made by typing: TypeVar("T", bound=...), NewType(...).
            dotted = self.dotted(node.func) or ""
            parts = [*node.args, *(k.value for k in node.keywords)]
            typing = any(within(dotted, m) for m in TYPING_MODULES)
            return typing and all(self.static_type(p, seen) for p in parts)
        return False

    def literal_type(self, node: ast.AST, seen: frozenset[str]) -> bool:
        """typing's Literal (or typing_extensions'), however it is imported or aliased."""
        if self.dotted(node) in ("typing.Literal", "typing_extensions.Literal"):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            # Bound by its imports alone: after `Literal = List` the strings are types again.
            return isinstance(root, ast.Name) and self.only_imported(root.id)
        values = self.aliases.get(node.id) if isinstance(node, ast.Name) else None
        return (
            isinstance(node, ast.Name)
            and values is not None
            and node.id not in seen
            and all(self.literal_type(v, seen | {node.id}) for v in values)
        )

    def only_imported(self, name: str) -> bool:
        """Is every binding of `name` in the source an import?"""
        imports = sum(
            (a.asname or a.name).split(".")[0] == name
            for a in ast.walk(self.tree)
            if isinstance(a, ast.alias)
        )
        return self.counts.get(name, 0) == imports

    def type_name(self, node: ast.AST) -> bool:
        """A recorded class, or a name of a typing module (`List`, `npt.NDArray`)."""
        dotted = self.dotted(node)
        if dotted is None:
            return False
        module = dotted.rpartition(".")[0]
        typing = any(within(module, m) for m in TYPING_MODULES)
        # A name of a module the kata adds that the data does not record is read leniently
        # (`dist.ProcessGroup`); a deeper chain may reach an object's settable attribute.
        lenient = any(
            within(dotted, e) and "." not in dotted[len(e) + 1 :] for e in unrecorded(self.extra)
        )
        kind = "class" if lenient else self.kind_of(dotted)
        return typing or kind in ("class", "metaclass")

    def names_type(self, node: ast.AST, seen: frozenset[str] = frozenset()) -> bool:
        """Is `node` a type that subscripting makes a generic of (`List`, `dict`,
        `np.ndarray`, the answer's Generic class, an alias of one), not a container (`np.r_`,
        a dict, a list of a library's)?"""
        if self.literal_type(node, seen):
            return False  # Literal[...] holds values, not types: static_type reads them
        if self.dotted(node) is not None:
            return self.type_name(node)
        if not isinstance(node, ast.Name):
            return False
        if node.id not in self.file_names:
            return node.id in GENERIC_BUILTINS
        if node.id in self.enums:
            return False  # `Reduction[name]` looks a member up by its name
        # An alias of a type or of a generic (`Floats = npt.NDArray[np.float64]`), not of a
        # table of strings (`NAMES = ("a",)`, `NAMES[0]`).
        values, inner = self.aliases.get(node.id), seen | {node.id}
        alias = (
            values is not None
            and node.id not in seen
            and all(
                self.names_type(v, inner)
                or (isinstance(v, ast.Subscript) and self.static_type(v, inner))
                for v in values
            )
        )
        return alias or node.id in self.own_classes

    # -- imports and names bound to imported things --------------------------------------

    def imports(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            why = why_not_import(module, self.extra)
            if why is not None:
                self.note(node, "import", f"imports {module or '.'} ({why})")
                return
            for alias in node.names:
                dotted = f"{module}.{alias.name}"
                if alias.name == "*":
                    self.note(node, "import", f"imports * from {module}")
                    continue
                if module != "__future__":
                    self.resolve(node, dotted, "import")
                    self.imported_name(node, dotted)
                self.binds(node, alias.asname)
                self.imported[alias.asname or alias.name] = dotted
            return
        for alias in node.names:
            why = why_not_import(alias.name, self.extra)
            if why is not None:
                self.note(node, "import", f"imports {alias.name} ({why})")
            parts = alias.name.split(".")
            for index in range(2, len(parts) + 1):
                self.imported_name(node, ".".join(parts[:index]))
            self.binds(node, alias.asname)
            local = alias.asname or alias.name.split(".")[0]
            self.imported[local] = alias.name if alias.asname else alias.name.split(".")[0]

    def recorded_module(self, dotted: str) -> bool:
        return dotted in self.names.modules or package(dotted)

    def imported_name(self, node: ast.AST, dotted: str) -> None:
        """`from m import a` and `import m.a` name m.a: the rules on a name apply as to `m.a`
        (a private module the kata adds, torch._dynamo, is named by its import)."""
        name = dotted.rpartition(".")[2]
        if not (name.startswith("_") and dotted in self.extra):
            self.attribute_name(node, name, self.recorded_module(dotted))

    def binds(self, node: ast.AST, name: str | None) -> None:
        """A name bound by an assignment or an import's `as`: no dunder beyond DEFINABLE."""
        if name and is_dunder(name) and name not in DEFINABLE:
            self.note(node, "name", f"binds {name}")

    def lenient(self, dotted: str) -> bool:
        """Within a module the kata adds that the data does not record (torch._dynamo, onnx)."""
        return any(within(dotted, e) for e in unrecorded(self.extra))

    def resolve(self, node: ast.AST, dotted: str, rule: str = "") -> str | None:
        """The kind of what `dotted` (rooted at an imported module) names: 'module', 'class',
        'metaclass', 'other'; None (with a finding) where it is not a recorded public name."""
        if self.lenient(dotted):
            return self.resolve_added(node, dotted, rule or "name")
        if rule:  # one rule for what an import names
            before = len(self.found)
            kind = self.resolve(node, dotted)
            self.found[before:] = [Finding(f.line, rule, f.text) for f in self.found[before:]]
            return kind
        parts = dotted.split(".")
        module = parts[0]
        if module not in self.names.modules and not package(module):
            self.note(node, "name", f"uses {dotted} (not a recorded module)")
            return None
        for index, part in enumerate(parts[1:], 1):
            here = f"{module}.{part}"
            kinds = self.names.modules.get(module, {})
            recorded = here in self.names.modules or package(here)
            if kinds.get(part) == "submodules" or (part not in kinds and recorded):
                module = here
                continue
            if is_dunder(part):
                return "other"  # __version__, __name__: the rules on dunders apply
            if part not in kinds:
                self.refuse_name(node, module, part, dotted)
                return None
            named = ".".join(parts[: index + 1])
            if part in REFUSED_MODULE_ATTRIBUTES.get(module, ()) and named not in self.allow:
                self.note(node, "process", f"uses {named} (processes or their state)")
            if named in FILE_APIS and named not in self.allow:
                self.note(node, "file", f"uses {named} (files: not allowed for this kata)")
            if named in SINK_APIS and named not in self.allow:
                self.note(node, "sink", f"uses {named} ({SINK_APIS[named]})")
            kind = kinds[part]
            rest = parts[index + 1 :]
            if kind == "classes" and rest and rest[0] == "register":
                self.note(node, "patch", f"uses {dotted}: registers with a class it did not make")
            if kind == "other" and rest and rest[0].startswith("register"):
                # A registry object of a library (torch.distributions.biject_to.register).
                self.note(node, "callback", f"uses {dotted}: registers with a global registry")
            if kind == "metaclasses":
                self.note(node, "class", f"uses {named}, a metaclass (it makes classes)")
            return {"classes": "class", "metaclasses": "metaclass"}.get(kind, "other")
        if refused_torch(module):
            self.note(node, "name", f"uses {module} (refused for answers)")
            return None
        return "module"

    def resolve_added(self, node: ast.AST, dotted: str, rule: str) -> str | None:
        """`resolve` within a module the kata adds that the data does not record
        (torch.distributed, onnx): the name is looked up on the module itself, imported here as
        the answer's run imports it, part by part while it names a module. Each part is public,
        each module on the way is one of the added modules', and what the name holds was made
        there (or in torch's compiled part, whose classes torch.distributed re-exports): a
        module those hold of another (`signal`, `mp`, `sys`), or a function, class or object
        made elsewhere (`import_module`, `Path`, `environ`), is refused. They are reached from
        their own module, under that module's rules, or not at all."""
        base = next(e for e in unrecorded(self.extra) if within(dotted, e))
        granted = [a for a in self.allow if within(a, base)]
        # A kata that grants names of the module (katas.toml `allow`) gives those alone: the
        # rest of a large package (launchers, stores that unpickle, plugin loaders) is refused.
        if granted and not any(within(dotted, a) or within(a, dotted) for a in granted):
            text = f"uses {dotted}: not among the names of {base} this kata's entry allows"
            self.note(node, rule, text)
            return None
        value: object = added_module(base)
        if value is None:
            return "other"  # not installed here: the answer's run fails to import it too
        here = base
        for part in dotted[len(base) + 1 :].split(".") if dotted != base else []:
            if not isinstance(value, types.ModuleType) or is_dunder(part):
                break  # an attribute of what the module holds: the rules on attributes apply
            if part.startswith("_"):
                self.note(node, "private", f"uses the private {here}.{part}")
                return None
            value = added_attribute(value, here, part)
            # `.sys` is refused by the rules on attributes already, on anything.
            named = part in INTERPRETER_MODULES
            if value is None:
                if not named:
                    self.note(node, rule, f"uses {dotted}: {part} is not a name of {here}")
                return None
            here = f"{here}.{part}"
            if isinstance(value, types.ModuleType) and not self.lenient(str(value.__name__)):
                shown = str(value.__name__)[:60]
                if not named:
                    self.note(
                        node, "module", f"uses {here}: the module {shown}, reached as an attribute"
                    )
                return None
            home = self.made_elsewhere(value)
            if not isinstance(value, types.ModuleType) and home is not None:
                self.note(
                    node, rule, f"uses {here}: made in {home[:60]}, not in the modules it adds"
                )
                return None
        if isinstance(value, types.ModuleType):
            return "module"
        return "class" if isinstance(value, type) else "other"

    def made_elsewhere(self, value: object, depth: int = 0) -> str | None:
        """Where what `value` holds was made, outside the modules the kata adds; None where it
        was made in them, in torch's compiled part, or in a module's own implementation
        (`_pytest` for pytest, `_pickle` for pickle), or in torch's public modules. Numbers,
        text and dtypes are data, and a container (a table of dtypes, of functions) is judged
        by what it holds."""
        if isinstance(value, PLAIN_DATA) or type(value) in torch_types():
            return None
        if isinstance(value, (tuple, list, set, frozenset, dict)):
            if depth >= 3:
                return "builtins"
            items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            return next(
                (home for item in items if (home := self.made_elsewhere(item, depth + 1))), None
            )
        home = made_in(value)
        top = home.split(".")[0]
        twins = {"_" + e.split(".")[0] for e in unrecorded(self.extra)}
        if self.lenient(home) or within(home, "torch._C") or top in twins:
            return None
        # Made in torch's public modules (a table of its layers), which answers use anyway.
        public = not any(part.startswith("_") for part in home.split("."))
        if top == "torch" and public and not refused_torch(home):
            return None
        return home

    def refuse_name(self, node: ast.AST, module: str, part: str, dotted: str) -> None:
        if refused_torch(f"{module}.{part}"):
            self.note(node, "name", f"uses {module}.{part} (refused for answers)")
        elif part.startswith("_"):
            self.note(node, "private", f"uses the private {module}.{part}")
        elif part in self.names.aliases:
            self.note(
                node,
                "module",
                f"uses {dotted}: {module}.{part} is a module reached as an attribute",
            )
        else:
            self.note(
                node,
                "name",
                f"uses {dotted}: {part} is not among the public names of {module} in "
                f"public_names.json (recorded from {self.names.versions})",
            )

    def find_aliases(self, tree: ast.Module) -> None:
        """Names bound to an imported module or class (`t = torch`, `for m in (F, torch)`),
        and to a class reached through `type(x)` or `__class__`."""
        bindings = list(bindings_of(tree))
        changed = True
        while changed:
            changed = False
            for target, value in bindings:
                for name in bound_names(target):
                    if self.refers_to_imported(value) and name not in self.bound:
                        self.bound.add(name)
                        changed = True
                    if self.through_class(value) and name not in self.classes:
                        self.classes.add(name)
                        changed = True

    def find_own(self, tree: ast.Module) -> None:
        """The names that hold an object the answer made where they are read (Owned), and the
        attribute names it defines or assigns itself."""
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.made.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                self.made.add(node.attr)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for statement in node.body:
                    targets: list[ast.AST] = []
                    if isinstance(statement, ast.Assign):
                        targets = list(statement.targets)
                    elif isinstance(statement, ast.AnnAssign):
                        targets = [statement.target]
                    for target in targets:
                        self.made.update(bound_names(target))
        self.variables = variables(tree)
        self.own = Owned(tree, self.makes_object, methods_selves(tree)).found

    def makes_object(self, value: ast.AST) -> bool:
        """Does `value` make a new object of the answer's own (not a module, class or what
        some function returns)?"""
        if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.Tuple, ast.Constant)):
            return True
        if isinstance(value, (ast.ListComp, ast.DictComp, ast.SetComp, ast.JoinedStr)):
            return True
        if isinstance(value, ast.Call):
            func = value.func
            if isinstance(func, ast.Name) and func.id in self.variables:
                return False  # a parameter or variable named like a class may hold anything
            if isinstance(func, ast.Name) and func.id in self.imported:
                return self.kind_of(self.imported[func.id]) == "class"
            if isinstance(func, ast.Name):
                return func.id in self.local_classes or func.id in BUILTIN_CLASSES
            dotted = self.dotted(func)
            return dotted is not None and self.kind_of(dotted) == "class"
        return False

    def kind_of(self, dotted: str) -> str | None:
        module, _, name = dotted.rpartition(".")
        kind = self.names.modules.get(module, {}).get(name)
        return {"classes": "class", "metaclasses": "metaclass"}.get(kind or "", kind)

    def refers_to_imported(self, node: ast.AST) -> bool:
        """Could `node` evaluate to an imported module or class (not a call's result)?"""
        if isinstance(node, ast.Name):
            return node.id in self.bound
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            return self.refers_to_imported(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            # getattr(torch.distributions, "biject_to"): what it names, as `m.name` would.
            named = node.func.id == "getattr" and id(node.func) not in self.shadowed
            return named and bool(node.args) and self.refers_to_imported(node.args[0])
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

    def through_class(self, node: ast.AST) -> bool:
        """A chain reaching a class through `type(x)`, `__class__`, `mro()` or `__mro__`,
        anywhere in it (`type(x).mro()[1]`, `A.__mro__[0]`)."""
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            if isinstance(node, ast.Attribute) and node.attr in CLASS_REACHING:
                return True
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name) and node.func.id == "type":
                    return True
                if self.named_attribute(node) & CLASS_REACHING:
                    return True
                node = node.func
            else:
                node = node.value
        return isinstance(node, ast.Name) and node.id in self.classes

    def named_attribute(self, node: ast.Call) -> set[str]:
        """The names `getattr(x, name)` can read, as far as they are literal."""
        func = node.func
        if isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) >= 2:
            return set(self.literal_names(node.args[1]) or ())
        return set()

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
        if isinstance(node, (ast.Attribute, ast.Name)):
            self.compile_called(node)
        if isinstance(node, ast.Attribute):
            self.attribute(node)
        elif isinstance(node, ast.Name):
            self.name(node)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            self.string(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if is_dunder(node.name) and node.name not in DEFINABLE:
                self.note(node, "definition", f"defines {node.name}")
            if isinstance(node, ast.ClassDef):
                for base in node.bases:
                    dotted = self.dotted(base)
                    if dotted in UNSUBCLASSABLE:
                        self.note(node, "class", f"subclasses {dotted} ({UNSUBCLASSABLE[dotted]})")
                    elif dotted and TORCH_MODE.fullmatch(dotted):
                        self.note(node, "class", f"subclasses {dotted} (a mode sees every op)")
                # Other keywords go to a base's __init_subclass__ (TypedDict's total=), which
                # only imported classes can define.
                for keyword in node.keywords:
                    if keyword.arg in (None, "metaclass"):
                        what = keyword.arg or "**"
                        self.note(node, "class", f"passes {what}= to a class (a metaclass)")
        elif isinstance(node, WRITES):
            # Every statement that binds a target: `for model.x in ...` and `with ... as
            # model.x` assign as `model.x = ...` does.
            if isinstance(node, (ast.Assign, ast.Delete)):
                targets = node.targets
            elif isinstance(node, ast.withitem):
                targets = [node.optional_vars] if node.optional_vars is not None else []
            else:
                targets = [node.target]
            for target in targets:
                for each in ast.walk(target):
                    if isinstance(each, ast.Attribute) and isinstance(
                        each.ctx, (ast.Store, ast.Del)
                    ):
                        where = node if hasattr(node, "lineno") else each
                        self.write(where, each.value, each.attr, ast.unparse(each))
        elif isinstance(node, ast.Raise) and node.exc is not None:
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(raised, ast.Name) and raised.id in NOT_EXCEPTIONS:
                self.note(node, "raise", f"raises {raised.id}, which is not an Exception")
                self.raised.add(id(raised))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                if is_dunder(name):
                    self.note(node, "name", f"declares {name}")
        elif isinstance(node, ast.MatchClass):
            # `case C(name=x)` reads the subject's attribute `name`, and binds it to x: on an
            # instance of the answer's own class only, unless it compares.
            own = isinstance(node.cls, ast.Name) and node.cls.id in self.own_classes
            for attr, pattern in zip(node.kwd_attrs, node.kwd_patterns, strict=True):
                self.attribute_name(node, attr)
                if attr in self.tests_state and not own and not compares_only(pattern):
                    self.note(node, "patch", f"binds .{attr} in a match pattern, {TESTS_STATE}")
            # `case T(x)` binds the attributes T's __match_args__ names (a dataclass's fields)
            # where T may be a class of the tests (`T = type(probe)`).
            known = (
                isinstance(node.cls, ast.Name)
                and (node.cls.id in self.own_classes or hasattr(builtins, node.cls.id))
                and node.cls.id not in self.file_names - self.own_classes
            ) or self.dotted(node.cls) is not None
            if self.tests_state and not known and not all(map(compares_only, node.patterns)):
                self.note(
                    node,
                    "patch",
                    f"binds the fields of {ast.unparse(node.cls)} in a match pattern, a class "
                    "the answer did not write (the tests' state may be among them)",
                )

    def attribute(self, node: ast.Attribute, spelled: bool = False) -> None:
        dotted = self.dotted(node)
        # A recorded submodule (torch.types) is not a module reached as an attribute.
        submodule = dotted is not None and self.recorded_module(dotted)
        # A rule on a name is about what it names: the answer's own method called `dump` is
        # not numpy's.
        own = self.own_definition(node) and not is_dunder(node.attr)
        if id(node) not in self.frozen_setattr and not own:
            self.attribute_name(node, node.attr, submodule)
        self.tests_state_read(node, spelled)
        parent = self.parents.get(id(node))
        self.constructor_rerun(node, parent)
        self.wrapper_value(node, dotted)
        self.named_by_operator(node, dotted, parent)
        self.global_registration(node, dotted)
        outermost = not (isinstance(parent, ast.Attribute) and parent.value is node)
        if dotted is not None and (outermost or spelled):
            self.annotation_only(node, dotted)
            kind = self.resolve(node, dotted)
            if kind == "module" and spelled:  # getattr(torch, "utils") returns the module
                self.note(node, "module", f"uses the module {dotted} as a value")
            elif kind == "module":
                self.module_value(node, dotted)

    def constructor_rerun(self, node: ast.Attribute, parent: ast.AST | None) -> None:
        """`x.__init__` runs a constructor again on x, which resets all it holds (a test's
        count of forward passes): only on the answer's own object (`super().__init__()`,
        `self.__init__()`, `Base.__init__(self)` in a method, an object it made)."""
        if node.attr not in ("__init__", "__post_init__"):
            return
        owner = node.value
        selves = methods_selves(self.tree)
        if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name):
            if owner.func.id == "super" and owner.func.id not in self.file_names:
                return
        elif isinstance(owner, ast.Name) and (owner.id in selves or id(owner) in self.own):
            return
        call = parent if isinstance(parent, ast.Call) and parent.func is node else None
        first = call.args[0] if call is not None and call.args else None
        # A class the source names: its own, or one it imports (`nn.Module`).
        is_class = (isinstance(owner, ast.Name) and owner.id in self.own_classes) or (
            self.dotted(owner) is not None
        )
        if is_class and isinstance(first, ast.Name) and first.id in selves:
            return  # Base.__init__(self, ...) from a method
        self.note(
            node,
            "patch",
            f"runs {ast.unparse(node)} on an object the answer did not make (a constructor run "
            "again resets what it holds)",
        )

    def global_registration(self, node: ast.Attribute, dotted: str | None) -> None:
        """What registers with an object shared by the whole process: a library's registry
        reached through an alias or getattr (`b = biject_to; b.register(...)`), and the
        handlers and filters of loggers other than the answer's own module's."""
        registers = dotted is None and node.attr.startswith("register")
        if registers and self.refers_to_imported(node.value):
            self.note(node, "callback", f"uses .{node.attr} of a library's object")
        # warnings.filters holds plain tuples, not a logger's objects that run code.
        logger = dotted != "warnings.filters"
        if (
            node.attr in LOGGER_HOOKS
            and logger
            and not self.own_logger(node.value)
            and not self.adds_null_handler(node)
        ):
            self.note(
                node,
                "callback",
                f"uses .{node.attr} of a logger the answer did not make (its records are "
                "everyone's)",
            )

    def adds_null_handler(self, node: ast.Attribute) -> bool:
        """`logger.addHandler(logging.NullHandler())`: a library's convention, on any logger; a
        NullHandler does nothing with the records it gets (they still propagate)."""
        call = self.parents.get(id(node))
        return (
            node.attr == "addHandler"
            and isinstance(call, ast.Call)
            and call.func is node
            and len(call.args) == 1
            and not call.keywords
            and isinstance(call.args[0], ast.Call)
            and self.dotted(call.args[0].func) == "logging.NullHandler"
            and not call.args[0].args
            and not call.args[0].keywords
        )

    def own_logger(self, node: ast.AST) -> bool:
        """`logging.getLogger(__name__)`, directly or through names bound only to it, or an
        object the answer made (a handler of its own)."""
        if isinstance(node, ast.Name):
            values = self.aliases.get(node.id)
            own = values is not None and all(self.own_logger(v) for v in values)
            return own or id(node) in self.own
        return (
            isinstance(node, ast.Call)
            and self.dotted(node.func) == "logging.getLogger"
            and [ast.dump(a) for a in node.args] == [ast.dump(ast.Name("__name__", ast.Load()))]
        )

    def annotation_only(self, node: ast.AST, dotted: str) -> None:
        """torch.fx's GraphModule and Node: named in annotations, never called or passed."""
        if dotted in ANNOTATION_ONLY and id(node) not in self.annotations:
            self.note(node, "sink", f"uses {dotted} other than in an annotation (it makes code)")

    def own_definition(self, node: ast.Attribute) -> bool:
        """`self.dump` in a method of a class whose body defines `dump`: the answer's own."""
        if not (isinstance(node.value, ast.Name) and id(node.value) in self.own):
            return False
        scope: ast.AST | None = node
        while scope is not None:
            parent = self.parents.get(id(scope))
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(
                parent, ast.ClassDef
            ):
                first = [*scope.args.posonlyargs, *scope.args.args][:1]
                return [a.arg for a in first] == [node.value.id] and node.attr in defined(parent)
            scope = parent
        return False

    def attribute_name(self, node: ast.AST, attr: str, submodule: bool = False) -> None:
        """The rules on an attribute's name, whatever it is an attribute of, however it is
        named (`x.a`, `from x import a`, `getattr(x, "a")`, `operator.attrgetter("a")`)."""
        allowed = {a.rpartition(".")[2] for a in self.allow}
        if is_dunder(attr):
            # `self.__dict__` of the answer's own object is vars(self) (as torch's schedulers
            # write state_dict); of anything else it is a namespace it did not make.
            own = (
                attr == "__dict__"
                and isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and id(node.value) in self.own
            )
            if attr not in DUNDER_ATTRIBUTES and not own:
                self.note(node, "dunder", f"uses the attribute {attr}")
        elif attr in INTERNALS:
            self.note(node, "frame", f"uses {attr}, an attribute of frames, tracebacks or code")
        elif attr in LOCATIONS:
            self.note(node, "location", f"uses {attr}, which says where code is (its caller)")
        elif attr in REFUSED_ATTRIBUTES and attr not in allowed:
            self.note(node, "attribute", f"uses {attr} ({REFUSED_ATTRIBUTES[attr]})")
        elif attr in STREAM_FILES and not (
            any(within(e, m) for e in self.extra for m in FILE_MODULES)
            or (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and id(node.value) in self.own
            )
        ):
            self.note(node, "attribute", f"uses {attr} ({STREAM_FILES[attr]})")
        elif attr in SINKS and attr not in allowed:
            self.note(node, "sink", f"uses {attr} ({SINKS[attr]})")
        elif MODE_NAMES.fullmatch(attr):
            self.note(node, "class", f"uses {attr} (a mode sees every operation, the tests' too)")
        elif attr in self.names.registries and attr not in allowed:
            self.note(node, "attribute", f"uses {attr} (registers with a process-wide registry)")
        elif attr in INTERPRETER_MODULES and not submodule:
            self.note(node, "module", f"uses .{attr}, a module reached as an attribute")
        elif attr.startswith("_") and attr not in self.made | NAMEDTUPLE and not submodule:
            # Private attributes of what the tests hand over (`tensor._version`) are read by
            # honest code; not those of what is imported, nor ones named after the interpreter.
            dotted = self.dotted(node) if isinstance(node, ast.Attribute) else None
            imported = isinstance(node, ast.Attribute) and self.refers_to_imported(node.value)
            inward = attr.strip("_") in INTERPRETER_MODULES or any(
                word in attr for word in ("frame", "globals", "builtins", "import", "code")
            )
            if (imported or inward or not isinstance(node, ast.Attribute)) and not (
                dotted and self.lenient(dotted)
            ):
                self.note(
                    node, "private", f"uses the private {attr}, which the answer did not define"
                )

    def named_by_operator(self, node: ast.AST, dotted: str | None, parent: ast.AST | None) -> None:
        """operator.attrgetter other than called where it is named: like getattr; and what
        takes a callback by keyword (np.set_printoptions), whose keywords are read at the call."""
        if (dotted in NAMED_BY_OPERATOR or dotted in CALLBACK_KEYWORDS) and not (
            isinstance(parent, ast.Call) and parent.func is node
        ):
            self.note(node, "builtin", f"uses {dotted} other than in a call of its own")

    def module_aliases(self, tree: ast.Module) -> None:
        """`nn = torch.nn` at the module's top level, its only binding: an import by another
        spelling (`from torch import nn`), under the same rules."""
        counts: dict[str, int] = {}
        for name in every_binding(tree):
            counts[name] = counts.get(name, 0) + 1
        for statement in tree.body:
            if not (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
            ):
                continue
            name, dotted = statement.targets[0].id, self.dotted(statement.value)
            if dotted is None or counts.get(name) != 1 or not self.recorded_module(dotted):
                continue
            why = why_not_import(dotted, self.extra)
            if why is not None:
                self.note(statement, "import", f"binds {dotted} ({why})")
            self.imported[name] = dotted
            self.module_alias_values.add(id(statement.value))

    def module_value(self, node: ast.AST, dotted: str) -> None:
        """A module anywhere but left of a `.`: bound, passed or returned."""
        if id(node) in self.module_alias_values:
            return
        parent = self.parents.get(id(node))
        if (isinstance(parent, ast.Attribute) and parent.value is node) or self.named_owner(node):
            return
        self.note(node, "module", f"uses the module {dotted} as a value (import what it needs)")

    def name(self, node: ast.Name) -> None:
        name = node.id
        exempt = self.handler_types | self.raised
        if name in NOT_EXCEPTIONS and id(node) not in exempt:
            self.note(node, "raise", f"uses {name}, which is not an Exception")
        if not isinstance(node.ctx, ast.Load):
            self.binds(node, name)
            return
        if name in self.imported:
            self.wrapper_value(node, self.imported[name])
            self.named_by_operator(node, self.imported[name], self.parents.get(id(node)))
            self.annotation_only(node, self.imported[name])
            kind = self.kind_of(self.imported[name])
            if kind == "metaclass":
                self.note(node, "class", f"uses {self.imported[name]}, a metaclass")
            elif self.is_module(self.imported[name]) and not self.named_owner(node):
                self.module_value(node, self.imported[name])
            return
        if name == "open" and "io" in self.extra:
            return  # the builtin open is io.open
        if id(node) in self.shadowed:
            return  # the answer's own binding (a parameter called `input`), not the builtin
        parent = self.parents.get(id(node))
        called = isinstance(parent, ast.Call) and parent.func is node
        own_namespace = (  # vars(self) in a __repr__: the answer's own object's attributes
            name == "vars"
            and called
            and isinstance(parent, ast.Call)
            and len(parent.args) == 1
            and not parent.keywords
            and isinstance(parent.args[0], ast.Name)
            and id(parent.args[0]) in self.own
        )
        if name in REFUSED_BUILTINS and not own_namespace:
            self.note(node, "builtin", f"uses {name} ({REFUSED_BUILTINS[name]})")
        elif name in NAMED_ATTRIBUTES and not called:
            self.note(node, "builtin", f"uses {name} other than in a call of its own")
        elif name == "type" and not self.plain_type(node, parent):
            self.note(node, "builtin", "uses type other than as type(x)")
        elif is_dunder(name) and name not in DUNDER_NAMES and name not in REFUSED_BUILTINS:
            self.note(node, "name", f"uses {name}")

    def is_module(self, dotted: str) -> bool:
        return dotted in self.names.modules or "." not in dotted

    def named_owner(self, node: ast.AST) -> bool:
        """The module in getattr(module, "name", ...), hasattr or setattr: an attribute spelled
        out (setattr's write then meets the rules of `module.name = value`)."""
        parent = self.parents.get(id(node))
        return (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Name)
            and parent.func.id in ("getattr", "hasattr", "setattr")
            and parent.func.id not in self.file_names  # `def getattr(m, n)` would be handed m
            and parent.args[:1] == [node]
            and len(parent.args) >= 2
            and (
                self.literal_names(parent.args[1]) is not None
                or self.dtype_names(node, parent.args[1]) is not None
            )
        )

    def wraps_own(self, node: ast.Call, dotted: str) -> bool:
        """`@functools.wraps(fn)` on a def, `functools.wraps(fn)(inner)` and
        `functools.update_wrapper(inner, fn)` where `inner` is a lambda or a def of the
        source: they write the wrapped object's attributes and namespace into `inner`."""
        parent = self.parents.get(id(node))
        if dotted == "functools.update_wrapper":
            target = node.args[0] if node.args else None
        elif isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node in parent.decorator_list
        elif isinstance(parent, ast.Call) and parent.func is node and len(parent.args) == 1:
            target = parent.args[0]
        else:
            return False
        if isinstance(target, ast.Lambda):
            return True
        if not isinstance(target, ast.Name):
            return False
        if id(target) in self.own or target.id in methods_selves(self.tree):
            return True  # update_wrapper(self, fn) in a decorator class's __init__
        # Bound by defs alone in the function (or module) that makes the call.
        scope: ast.AST | None = node
        while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope = self.parents.get(id(scope))
        scope = scope or self.tree
        defs = sum(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == target.id
            for n in ast.walk(scope)
        )
        return defs > 0 and binding_counts(scope).get(target.id) == defs + (
            getattr(scope, "name", None) == target.id
        )

    def wrapper_value(self, node: ast.AST, dotted: str | None) -> None:
        """functools.wraps and update_wrapper only called where they are named (wraps_own)."""
        if dotted not in ("functools.update_wrapper", "functools.wraps"):
            return
        parent = self.parents.get(id(node))
        if not (isinstance(parent, ast.Call) and parent.func is node):
            self.note(node, "patch", f"uses {dotted} other than in a call of its own")

    def plain_type(self, node: ast.Name, parent: ast.AST | None) -> bool:
        """`type(x)`, `type[...]` and `type` in an annotation or isinstance: not a class maker."""
        if id(node) in self.annotations:
            return True
        if isinstance(parent, ast.Call) and parent.func is node:
            return len(parent.args) == 1 and not parent.keywords
        if isinstance(parent, ast.Subscript) and parent.value is node:
            return True
        grand = self.parents.get(id(parent)) if isinstance(parent, ast.Tuple) else parent
        return (
            isinstance(grand, ast.Call)
            and isinstance(grand.func, ast.Name)
            and grand.func.id in ("isinstance", "issubclass")
            and grand.func.id not in self.file_names  # the answer's own would be handed type
        )

    def call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "type" and len(node.args) == 3:
            self.note(node, "builtin", "makes a class with type(name, bases, namespace)")
        dotted = self.dotted(func)
        self.functional_enum(node, dotted)
        self.callback_keywords(node, dotted)
        self.compile_settings(node, dotted)
        self.group_setup(node, dotted)
        self.template(node)
        wrapper = dotted in ("functools.update_wrapper", "functools.wraps")
        limit = 2 if dotted == "functools.update_wrapper" else 1
        if wrapper and (
            len(node.args) > limit or any(k.arg in ("assigned", "updated") for k in node.keywords)
        ):
            # assigned= names the attributes it sets: setattr by name.
            self.note(node, "attribute-by-name", f"calls {dotted} with the attributes to set")
        elif wrapper and not self.wraps_own(node, dotted or ""):
            self.note(
                node,
                "patch",
                f"calls {dotted} on what is not the answer's own function: it copies the "
                "wrapped object's namespace into the object it wraps",
            )
        if dotted == "logging.basicConfig" and any(k.arg == "filename" for k in node.keywords):
            self.note(node, "file", "calls logging.basicConfig with a file name")
        if dotted in NAMED_BY_OPERATOR:
            # methodcaller's other arguments are the method's.
            named = node.args if dotted == "operator.attrgetter" else node.args[:1]
            for arg in named:
                literals = self.literal_names(arg)
                if literals is None:
                    self.note(node, "attribute-by-name", f"calls {dotted} with a computed name")
                    continue
                for literal in literals:
                    parts = literal.split(".") if dotted == "operator.attrgetter" else [literal]
                    for part in parts:
                        self.attribute_name(arg, part)
                    state = set(parts) & self.tests_state - self.names.protected
                    if dotted == "operator.attrgetter" and state:
                        # attrgetter("seen")(probe) is probe.seen; a getter handed on is not
                        # seen where it is used.
                        getter = self.parents.get(id(node))
                        if isinstance(getter, ast.Call) and getter.func is node:
                            self.tests_state_use(getter)
                        else:
                            self.note(
                                node, "patch", f"hands on a getter of {literal}, {TESTS_STATE}"
                            )
            return
        if not (isinstance(func, ast.Name) and func.id in NAMED_ATTRIBUTES):
            return
        if id(func) in self.shadowed:
            return
        if len(node.args) < 2 or node.keywords:
            self.note(node, "attribute-by-name", f"calls {func.id} with a computed name")
            return
        owner, name = node.args[0], node.args[1]
        if self.public_name_on_own(owner, name):
            return
        literals = self.literal_names(name)
        if literals is None and func.id == "getattr":
            literals = self.dtype_names(owner, name)
        if literals is None:
            self.note(node, "attribute-by-name", f"calls {func.id} with a computed name")
            return
        for literal in literals:
            # Each name it can be obeys the same rules as `owner.name`.
            spelled = ast.Attribute(owner, literal, ast.Load())
            ast.copy_location(spelled, node)
            self.parents[id(spelled)] = node
            newer = literal[:1].isupper() and literal not in self.names.aliases
            if func.id == "getattr" and len(node.args) == 3 and self.dotted(spelled) and newer:
                # getattr(nn, "RMSNorm", None): a class that newer torch has, asked for with a
                # default (a missing name is no finding; modules are never asked for this way).
                self.attribute_name(spelled, literal)
                self.resolve_quietly(spelled)
            else:
                self.attribute(spelled, spelled=True)
            self.compile_called(spelled)  # its parent is getattr's call, never a call of it
            if func.id != "getattr":
                self.write(node, owner, literal, f"{ast.unparse(owner)}.{literal}")

    def callback_keywords(self, node: ast.Call, dotted: str | None) -> None:
        """Settings that hand the answer's function or object to a process-wide hook: NumPy's
        print formatter, its error callback, the root logger's handlers or stream."""
        refused = CALLBACK_KEYWORDS.get(dotted or "")
        if refused is None:
            return
        names, positional = refused
        for keyword in node.keywords:
            value = self.dotted(keyword.value)
            if keyword.arg is None or (keyword.arg in names and value not in STREAMS):
                what = keyword.arg or "**"
                self.note(node, "callback", f"calls {dotted} with {what}= (a global callback)")
        if len(node.args) > positional or any(isinstance(a, ast.Starred) for a in node.args):
            self.note(node, "callback", f"calls {dotted} with a callback among its arguments")

    def template(self, node: ast.Call) -> None:
        """`template.format(x)`: a template built at run time reads any attribute chain of x
        (`"{0.__class__}"`); a literal one is checked field by field (string())."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("format", "format_map"):
            template = func.value
            if isinstance(template, ast.Name) and template.id == "str" and node.args:
                template = node.args[0]  # str.format(template, ...)
        elif self.dotted(func) == "logging.Formatter":
            keyword = [k.value for k in node.keywords if k.arg == "fmt"]
            template = (node.args[:1] or keyword or [ast.Constant("")])[0]
        else:
            return
        constant = isinstance(template, ast.Constant) and isinstance(template.value, str)
        named = isinstance(template, ast.Name) and all(
            isinstance(v, ast.Constant) and isinstance(v.value, str)
            for v in self.aliases.get(template.id, [ast.Name("x")])
        )
        if not (constant or named or self.literal_template(template)):
            self.note(node, "string", "formats with a template built at run time")

    def literal_template(self, node: ast.AST) -> bool:
        """A template that is a literal whichever way it is chosen: `(a if c else b)` of
        literals; a function's local name bound only to such; `self.TEMPLATE` (an UPPER-case
        name) where every class body that binds it binds a literal and nothing else in the
        source names it (no write, no keyword, no string, no vars())."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str)
        if isinstance(node, ast.IfExp):
            return self.literal_template(node.body) and self.literal_template(node.orelse)
        if isinstance(node, ast.Name):
            return self.local_literal(node)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return node.value.id in methods_selves(self.tree) and self.class_constant(node.attr)
        return False

    def local_literal(self, node: ast.Name) -> bool:
        """A name of the enclosing function bound there only by `name = <literal template>`."""
        scope: ast.AST | None = self.parents.get(id(node))
        while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope = self.parents.get(id(scope))
        if scope is None or node.id in {a.arg for a in ast.walk(scope) if isinstance(a, ast.arg)}:
            return False
        values = []
        for each in ast.walk(scope):
            if isinstance(each, (ast.Global, ast.Nonlocal)) and node.id in each.names:
                return False
            if (
                isinstance(each, ast.Name)
                and each.id == node.id
                and not isinstance(each.ctx, ast.Load)
            ):
                parent = self.parents.get(id(each))
                if not (isinstance(parent, ast.Assign) and parent.targets == [each]):
                    return False
                values.append(parent.value)
        # Bound by those assignments alone: not by a match pattern, an import, `except as`.
        if binding_counts(scope).get(node.id) != len(values):
            return False
        return bool(values) and all(
            not isinstance(v, ast.Name) and self.literal_template(v) for v in values
        )

    def class_constant(self, name: str) -> bool:
        if not name.isupper() or "vars" in self.file_names:
            return False
        bound = False
        for node in ast.walk(self.tree):
            for statement in node.body if isinstance(node, ast.ClassDef) else []:
                targets = statement.targets if isinstance(statement, ast.Assign) else []
                if isinstance(statement, ast.AnnAssign):
                    targets = [statement.target]
                value = getattr(statement, "value", None)
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    if len(targets) != 1 or value is None or not self.literal_template(value):
                        return False
                    bound = True
                elif name in names_bound_in([statement]):
                    return False  # bound another way in the class body (a loop, a match)
            names_it = (
                (
                    isinstance(node, ast.Attribute)
                    and node.attr == name
                    and not isinstance(node.ctx, ast.Load)
                )
                or (isinstance(node, ast.keyword) and node.arg == name)
                or (isinstance(node, ast.Constant) and node.value == name)
                or (isinstance(node, ast.Attribute) and node.attr == "__dict__")
            )
            if names_it:
                return False
        return bound

    def own_parameter(self, node: ast.Name) -> bool:
        """A parameter annotated with the answer's own plain class, of a module-level function
        that every use in the source calls directly with an object the answer made there (a
        call of its own class, a name bound only to what it makes). The annotation alone is
        no guarantee: a torch.fx Node or a test's optimizer could be passed instead."""
        function: ast.AST | None = self.parents.get(id(node))
        while function is not None and not isinstance(
            function, (ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            function = self.parents.get(id(function))
        if function is None or not isinstance(self.parents.get(id(function)), ast.Module):
            return False
        assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        positional = [*function.args.posonlyargs, *function.args.args]
        every = [*positional, *function.args.kwonlyargs]
        arg = next((a for a in every if a.arg == node.id), None)
        annotation = arg.annotation if arg is not None else None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            annotation = ast.Name(annotation.value)
        if not (isinstance(annotation, ast.Name) and self.plain_class(annotation.id)):
            return False
        rebound = [
            n
            for n in ast.walk(function)
            if isinstance(n, ast.Name) and n.id == node.id and not isinstance(n.ctx, ast.Load)
        ]
        if rebound or list(every_binding(self.tree)).count(function.name) != 1:
            return False
        index = positional.index(arg) if arg in positional else None
        calls = 0
        for each in ast.walk(self.tree):
            if not (isinstance(each, ast.Name) and each.id == function.name):
                continue
            call = self.parents.get(id(each))
            if not (isinstance(call, ast.Call) and call.func is each):
                return False
            given = [k.value for k in call.keywords if k.arg == node.id]
            if index is not None and index < len(call.args):
                given.append(call.args[index])
            starred = any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords
            )
            if starred or len(given) != 1 or not self.own_value(given[0]):
                return False
            calls += 1
        return calls > 0

    def own_value(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return id(node) in self.own
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and self.plain_class(node.func.id)
        )

    def plain_class(self, name: str) -> bool:
        """The answer's own class, of no base but its own plain classes (and object)."""
        if name not in self.own_classes:
            return False
        classes = [n for n in ast.walk(self.tree) if isinstance(n, ast.ClassDef) and n.name == name]
        return (
            len(classes) == 1
            and not classes[0].keywords
            and all(
                isinstance(b, ast.Name)
                and (b.id == "object" or (b.id != name and self.plain_class(b.id)))
                for b in classes[0].bases
            )
        )

    def compile_called(self, node: ast.Attribute | ast.Name) -> None:
        """torch.compile is called where it is named: taken as a value (an alias, a partial,
        getattr), its settings would be passed where compile_settings does not look."""
        dotted = self.dotted(node)
        call = self.parents.get(id(node))
        direct = isinstance(call, ast.Call) and call.func is node
        decorates = isinstance(call, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            d is node for d in call.decorator_list
        )  # `@torch.compile`: its defaults
        direct = direct or decorates
        if dotted in COMPILE_CALLS and not direct and isinstance(node.ctx, ast.Load):
            self.note(node, "sink", f"uses {dotted} other than in a call of it")
        if dotted in GROUP_SETUP and not direct and isinstance(node.ctx, ast.Load):
            self.note(node, "file", f"uses {dotted} other than in a call of it")

    def group_setup(self, node: ast.Call, dotted: str | None) -> None:
        """init_process_group is handed its store (`store=dist.HashStore()`): without one,
        its init_method (a keyword, its second argument or the env:// default) makes a
        FileStore at any path (a file created, written and deleted natively, where no check
        sees it) or a TCPStore (a socket, and the address from the environment)."""
        if dotted not in GROUP_SETUP:
            return
        keywords = {k.arg for k in node.keywords}
        if None in keywords or any(isinstance(a, ast.Starred) for a in node.args):
            self.note(node, "file", f"calls {dotted} with arguments unpacked at run time")
        if "init_method" in keywords or len(node.args) > 1:
            self.note(node, "file", f"calls {dotted} with an init_method (a file or a socket)")
        if "store" not in keywords:
            self.note(node, "file", f"calls {dotted} without store= (its default opens a socket)")
        for keyword in node.keywords:
            if keyword.arg == "store" and not self.hash_store(keyword.value):
                self.note(
                    node,
                    "file",
                    f"calls {dotted} with a store= that is not a {GROUP_STORE} made for it "
                    "(None, or anything else, falls back to its init_method's env:// default)",
                )

    def hash_store(self, value: ast.AST) -> bool:
        """`value` is a call of GROUP_STORE, or a name that every binding in the file binds
        to one (`store = dist.HashStore()`): nothing else, None included, is a store."""
        if isinstance(value, ast.Call):
            return self.dotted(value.func) == GROUP_STORE
        if not isinstance(value, ast.Name):
            return False
        name, bindings = value.id, 0
        definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        for each in ast.walk(self.tree):
            if isinstance(each, ast.Name) and each.id == name and isinstance(each.ctx, ast.Store):
                assigned = self.parents.get(id(each))
                if not (
                    isinstance(assigned, ast.Assign)
                    and assigned.targets == [each]
                    and isinstance(assigned.value, ast.Call)
                    and self.dotted(assigned.value.func) == GROUP_STORE
                ):
                    return False
                bindings += 1
            # Any other binding: a deletion, a parameter, an import's name, a definition.
            elif (
                (isinstance(each, ast.Name) and each.id == name and isinstance(each.ctx, ast.Del))
                or (isinstance(each, ast.arg) and each.arg == name)
                or (isinstance(each, ast.alias) and (each.asname or each.name) == name)
                or (isinstance(each, definitions) and each.name == name)
            ):
                return False
        return bindings > 0

    def compile_settings(self, node: ast.Call, dotted: str | None) -> None:
        """torch.compile's mode= and options= are literals (or a module-level name bound to
        one and passed on only there): inductor pastes option values into the C++ compiler's
        command line. Options that configure an external program (the compiler, its flags,
        paths) are refused unless the kata's entry allows `options.<key>`."""
        if dotted not in COMPILE_CALLS:
            return
        for keyword in node.keywords:
            if keyword.arg is None:
                self.note(node, "sink", f"calls {dotted} with ** (its settings must be literals)")
            elif keyword.arg in ("mode", "options") or dotted != "torch.compile":
                settings = self.literal_settings(keyword.value, keyword.arg)
                if settings is None:
                    self.note(node, "sink", f"calls {dotted} with {keyword.arg}= built at run time")
                for key in settings or []:
                    self.compiler_key(node, dotted, key)
                if dotted != "torch.compile":
                    self.compiler_key(node, dotted, keyword.arg)
        if dotted != "torch.compile" and node.args:
            self.note(node, "sink", f"calls {dotted} with settings by position")

    def compiler_key(self, node: ast.AST, dotted: str, key: str) -> None:
        words = set(re.split(r"[._]", key.lower()))
        if (words & COMPILER_WORDS) and f"options.{key}" not in self.allow:
            self.note(
                node, "sink", f"calls {dotted} with {key} (it configures an external program)"
            )

    def literal_settings(self, node: ast.AST, keyword: str) -> list[str] | None:
        """The keys of a literal dict of literal values (none for another literal); None
        where anything in it is built at run time."""
        if isinstance(node, ast.Name) and node.id in self.aliases:
            uses = [
                n
                for n in ast.walk(self.tree)
                if isinstance(n, ast.Name) and n.id == node.id and isinstance(n.ctx, ast.Load)
            ]
            passed = all(
                isinstance(self.parents.get(id(n)), ast.keyword)
                and getattr(self.parents.get(id(n)), "arg", None) == keyword
                for n in uses
            )
            values = [self.literal_settings(v, keyword) for v in self.aliases[node.id]]
            if not passed or any(v is None for v in values):
                return None
            return [k for v in values for k in v or []]
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            literal = all(isinstance(k, str) for k in keys) and len(keys) == len(node.keys)
            plain = all(self.literal_settings(v, keyword) == [] for v in node.values)
            return [str(k) for k in keys] if literal and plain else None
        if isinstance(node, (ast.Tuple, ast.List)):
            literal = all(self.literal_settings(v, keyword) == [] for v in node.elts)
            return [] if literal else None
        if isinstance(node, ast.Constant):
            return []
        if isinstance(node, ast.IfExp):  # `"max-autotune" if long_run else "default"`
            chosen = [self.literal_settings(n, keyword) for n in (node.body, node.orelse)]
            return None if None in chosen else [k for keys in chosen for k in keys or []]
        boolean = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
        return [] if boolean else None  # `not dynamic`: a bool, whatever dynamic is

    def literal_names(self, node: ast.AST) -> list[str] | None:
        """The names an attribute-name argument can hold (literal_strings); None where it is
        computed."""
        return literal_strings(node, self.tables, self.loop_names)

    def dtype_names(self, owner: ast.AST, name: ast.AST) -> list[str] | None:
        """`getattr(torch, f"float{bits}")`: a dtype's name built at run time, on torch or
        NumPy, can be any of the module's recorded names with that start (dtype_name_start);
        None for any other computed name."""
        dotted = self.dotted(owner)
        start = dtype_name_start(name)
        if dotted not in DTYPE_MODULES or start is None:
            return None
        return sorted(n for n in self.names.modules.get(dotted, {}) if n.startswith(start))

    def public_name_on_own(self, owner: ast.AST, name: ast.AST) -> bool:
        """`setattr(self, f"fc{i}", layer)`: a name built at run time, on an object the answer
        made itself, from a literal start that no private or dunder name has."""
        return isinstance(owner, ast.Name) and id(owner) in self.own and public_start(name)

    # -- namespaces: vars(x) and x.__dict__ of the answer's own object -----------------------

    def namespaces(self, tree: ast.Module) -> None:
        """An object's namespace (`vars(self)`, `self.__dict__`, a name bound to one) is read
        freely, but a key written into it, or read by a name built at run time, meets the rules
        of `setattr(self, name, ...)` and `getattr`: a literal name that is no dunder, or one
        built from a literal public start. Where the keys cannot be seen (the namespace handed
        on, updated from a mapping built at run time) the write is refused; but for a state
        torch or copy hands over (`load_state_dict`, `__setstate__`: see state_loaded)."""
        self.namespace_names: set[str] = set()
        changed = True
        while changed:
            changed = False
            for node in ast.walk(tree):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if node.value is None or not self.namespace(node.value):
                        continue
                    for target in targets:
                        if isinstance(target, ast.Name) and target.id not in self.namespace_names:
                            self.namespace_names.add(target.id)
                            changed = True
        for node in ast.walk(tree):
            if self.namespace(node, aliases=False) or (
                isinstance(node, ast.Name) and node.id in self.namespace_names
            ):
                self.namespace_use(node)

    def namespace(self, node: ast.AST, aliases: bool = True) -> bool:
        """Is `node` the namespace of the answer's own object (or, with `aliases`, a name bound
        to one, or an expression that may be one)?"""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if id(node.func) in self.shadowed or not node.args:
                return False
            owner = node.args[0]
            own = isinstance(owner, ast.Name) and id(owner) in self.own
            if node.func.id == "vars":
                return own
            if node.func.id == "getattr" and len(node.args) >= 2:
                return own and "__dict__" in (self.literal_names(node.args[1]) or ())
            return False
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return isinstance(node.value, ast.Name) and id(node.value) in self.own
        if not aliases:
            return False
        if isinstance(node, ast.Name):
            return node.id in self.namespace_names
        if isinstance(node, ast.IfExp):
            return self.namespace(node.body) or self.namespace(node.orelse)
        if isinstance(node, ast.BoolOp):
            return any(self.namespace(v) for v in node.values)
        if isinstance(node, ast.NamedExpr):
            return self.namespace(node.value)
        return False

    def namespace_use(self, node: ast.AST) -> None:
        """What is done with a namespace: read, written with keys the rules allow, or refused."""
        child, parent = node, self.parents.get(id(node))
        while isinstance(parent, (ast.IfExp, ast.BoolOp, ast.NamedExpr)) and child is not getattr(
            parent, "test", None
        ):
            child, parent = parent, self.parents.get(id(parent))
        if isinstance(parent, ast.Attribute) and parent.value is child:
            call = self.parents.get(id(parent))
            called = isinstance(call, ast.Call) and call.func is parent
            if called and isinstance(call, ast.Call) and parent.attr in NAMESPACE_METHODS:
                self.namespace_call(call, parent.attr)
                return
            if parent.attr in NAMESPACE_READERS - {"get"}:
                return
        elif isinstance(parent, ast.Subscript) and parent.value is child:
            self.namespace_key(parent, parent.slice)
            return
        elif isinstance(parent, ast.AugAssign) and parent.target is child:
            if isinstance(parent.op, ast.BitOr):  # `ns |= mapping`
                self.namespace_mapping(parent, parent.value)
                return
        elif isinstance(parent, ast.Call) and child in parent.args:
            func = parent.func
            copies = (
                self.dotted(func) in NAMESPACE_COPIES
                or (
                    isinstance(func, ast.Name)
                    and func.id in NAMESPACE_COPIES
                    and func.id not in self.file_names
                )
                or (
                    isinstance(func, ast.Attribute)
                    and func.attr in LOG_METHODS
                    and self.own_logger(func.value)
                )
            )
            if copies:
                return
        elif isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is child:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if all(isinstance(t, ast.Name) for t in targets):
                return  # an alias: its uses are judged the same way
        elif isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
            return  # the alias bound
        elif isinstance(parent, (ast.Dict, ast.keyword)) or (
            isinstance(parent, ast.Starred) and parent.value is child
        ):
            # `{**ns}`, `f(**ns)`, `[*ns]` copy it; a value in a dict display is handed on.
            unpacked = isinstance(parent, ast.keyword) and parent.arg is None
            if unpacked or isinstance(parent, ast.Starred):
                return
            if isinstance(parent, ast.Dict) and None in [
                k for k, v in zip(parent.keys, parent.values, strict=True) if v is child
            ]:
                return
        elif isinstance(
            parent,
            (
                ast.Compare,
                ast.Expr,
                ast.FormattedValue,
                ast.BinOp,
                ast.For,
                ast.AsyncFor,
                ast.comprehension,
            ),
        ):
            return  # compared, iterated, shown, merged into a new dict (`ns | other`)
        self.note(
            node,
            "namespace",
            f"hands on {ast.unparse(node)}, an object's namespace (what gets it may write any "
            "name into it: pass a copy, dict(vars(self)))",
        )

    def namespace_call(self, call: ast.Call, method: str) -> None:
        """`ns.update(...)`, `ns.setdefault(key, ...)`, `ns.get(key)`...: the keys it names."""
        if method in ("update", "__ior__"):
            for arg in call.args:
                self.namespace_mapping(call, arg)
            for keyword in call.keywords:
                if keyword.arg is None:
                    self.namespace_mapping(call, keyword.value)
                else:
                    self.namespace_key(call, ast.Constant(keyword.arg))
        elif method in ("popitem", "clear"):
            return
        elif call.args:
            self.namespace_key(call, call.args[0])
        else:
            self.namespace_key(call, ast.Name("?", ast.Load()))

    def namespace_mapping(self, where: ast.AST, mapping: ast.AST) -> None:
        """The keys of a mapping written into a namespace."""
        if isinstance(mapping, ast.Dict):
            for key, value in zip(mapping.keys, mapping.values, strict=True):
                if key is None:
                    self.namespace_mapping(where, value)
                else:
                    self.namespace_key(where, key)
        elif isinstance(mapping, ast.DictComp):
            self.namespace_key(where, mapping.key)
        elif (
            isinstance(mapping, ast.Call)
            and isinstance(mapping.func, ast.Name)
            and mapping.func.id == "dict"
            and mapping.func.id not in self.file_names
        ):
            for arg in mapping.args:
                self.namespace_mapping(where, arg)
            for keyword in mapping.keywords:
                if keyword.arg is None:
                    self.namespace_mapping(where, keyword.value)
                else:
                    self.namespace_key(where, ast.Constant(keyword.arg))
        elif not self.state_loaded(mapping):
            self.note(
                where,
                "namespace",
                f"writes the keys of {ast.unparse(mapping)} into an object's namespace (names "
                "built at run time: set each attribute by a name written out)",
            )

    def namespace_key(self, where: ast.AST, key: ast.AST) -> None:
        """A key written into, or read from, a namespace: the rules of setattr's name."""
        literals = self.literal_names(key)
        if literals is not None:
            for literal in literals:
                if is_dunder(literal) or literal in INTERNALS:
                    self.note(where, "namespace", f"names {literal} in an object's namespace")
            return
        if not public_start(key):
            self.note(
                where,
                "namespace",
                f"names {ast.unparse(key)} in an object's namespace, a name built at run time "
                "(as setattr or getattr with a computed name)",
            )

    def state_loaded(self, mapping: ast.AST) -> bool:
        """The state a method that torch or copy calls hands over (`def load_state_dict(self,
        state)`, `__setstate__`): a parameter of such a method that the method only reads,
        where the answer never calls the method itself (its keys are the tests' or torch's)."""
        if not isinstance(mapping, ast.Name):
            return False
        method: ast.AST | None = mapping
        while method is not None and not isinstance(method, (ast.FunctionDef, ast.Lambda)):
            method = self.parents.get(id(method))
        if not (
            isinstance(method, ast.FunctionDef)
            and method.name in STATE_LOADERS
            and isinstance(self.parents.get(id(method)), ast.ClassDef)
        ):
            return False
        parameters = [a.arg for a in [*method.args.posonlyargs, *method.args.args][1:]]
        if mapping.id not in parameters:
            return False
        for node in ast.walk(method):
            if isinstance(node, ast.Name) and node.id == mapping.id and node is not mapping:
                parent = self.parents.get(id(node))
                reads = isinstance(node.ctx, ast.Load) and (
                    (isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load))
                    or (isinstance(parent, ast.Attribute) and parent.attr in NAMESPACE_READERS)
                    or isinstance(parent, ast.Compare)
                )
                if not reads:
                    return False
        # The answer calls it itself (or names it: getattr, methodcaller): then it picks the keys.
        for node in ast.walk(self.tree):
            named = (
                (isinstance(node, ast.Name) and node.id == method.name)
                or (isinstance(node, ast.Attribute) and node.attr == method.name)
                or (isinstance(node, ast.Constant) and node.value == method.name)
            )
            if named:
                return False
        return True

    def functional_enum(self, node: ast.Call, dotted: str | None) -> None:
        """`Enum("Name", members)`: members from a mapping or list built at run time."""
        func = node.func
        local = isinstance(func, ast.Name) and func.id in self.enums
        if not (
            local or (dotted and self.kind_of(dotted) == "class" and ENUM_CLASSES.fullmatch(dotted))
        ):
            return
        members = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "names")]
        others = {k.arg for k in node.keywords} - {"names", "start", "module", "qualname"}
        literal = [enum_members(m) for m in members]
        if len(node.args) > 2 or others or None in literal:
            self.note(node, "class", "makes an enum from members built at run time (write a class)")
            return
        for name in (n for names in literal for n in names or ()):
            if name.startswith("_"):
                self.note(node, "class", f"makes an enum member {name} (write a class)")

    def resolve_quietly(self, node: ast.Attribute) -> None:
        """A name missing from the data is no finding when its absence is handled; what the
        data refuses otherwise (a module re-export, a file API) still is."""
        dotted = self.dotted(node)
        assert dotted is not None
        before = len(self.found)
        self.resolve(node, dotted)
        missing = [f for f in self.found[before:] if "is not among the public names" in f.text]
        self.found = [f for f in self.found if f not in missing]

    def write(self, statement: ast.AST, owner: ast.AST, attr: str, text: str) -> None:
        """`owner.attr = ...`: on a module or class never (but torch's documented settings);
        on an object the answer did not make, not over a name torch or NumPy gives a method
        or function."""
        if self.dotted(owner) and f"{self.dotted(owner)}.{attr}" in SETTINGS:
            return
        if self.refers_to_imported(owner) or self.through_class(owner):
            self.note(statement, "patch", f"assigns to {text}, an attribute of a module or class")
            return
        root = owner
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Call):
            if not self.makes_object(root):
                self.note(statement, "patch", f"assigns to {text}, an attribute of a call's result")
            return
        own = (
            isinstance(root, ast.Name)
            and root is owner
            and (id(root) in self.own or root.id in self.own_classes)
        ) or (isinstance(owner, ast.Name) and self.own_parameter(owner))
        if is_dunder(attr) and attr not in ("__doc__", "__name__", "__qualname__"):
            self.note(statement, "patch", f"assigns to {text}, a dunder attribute")
        elif own:
            return
        elif attr.startswith("_"):
            self.note(
                statement,
                "patch",
                f"assigns to {text}, private, on an object the answer did not make",
            )
        elif attr in CODE_FIELDS:
            self.note(
                statement,
                "sink",
                f"assigns to {text} on an object the answer did not make (torch.fx writes "
                "it into code)",
            )
        elif attr in self.tests_state and (
            attr in self.tests_data or not self.submodule_set(statement, attr)
        ):
            self.note(statement, "patch", f"assigns to {text}, {TESTS_STATE}")
        elif (
            attr in self.names.protected
            and attr not in MUTABLE
            and not self.submodule_set(statement, attr)
        ):
            self.note(
                statement,
                "patch",
                f"assigns to {text}: {attr} is a method or public name of torch or NumPy, "
                "on an object the answer did not make",
            )

    def tests_state_read(self, node: ast.Attribute, spelled: bool) -> None:
        """`probe.seen` read where the tests keep state (see write): only in ways that cannot
        change it, else `probe.seen.clear()`, `probe.seen[:] = []`, `s = probe.seen` (then
        `s.clear()`) or `heapq.heappush(probe.seen, x)` change it in place."""
        # A private attribute of what the answer did not make is read only too: the hooks the
        # tests register on a model or optimizer (`model._forward_pre_hooks.clear()`) are
        # where their probes live.
        private = (
            node.attr.startswith("_") and not is_dunder(node.attr) and node.attr not in NAMEDTUPLE
        )
        if (node.attr not in self.tests_state and not private) or not isinstance(
            node.ctx, ast.Load
        ):
            return
        if node.attr in self.names.protected and not private:
            return  # torch's own (`optimizer.state[p][...] = v`): its API says what changes
        owner = node.value
        if isinstance(owner, ast.Name) and (
            id(owner) in self.own or owner.id in self.own_classes or self.own_parameter(owner)
        ):
            return
        use: ast.AST = node
        if spelled:
            # getattr(probe, "seen") is the value, as probe.seen is; setattr and delattr:
            # write judges them.
            call = self.parents.get(id(node))
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == "getattr"
            ):
                return
            use = call
        self.tests_state_use(use, private and node.attr not in self.tests_state)

    def helper_parameter(self, use: ast.AST, call: ast.Call) -> str | None:
        """The parameter of the answer's own module-level function that `use` is handed to
        (`_strip(metadata)`), where the function is bound once and takes it by name."""
        if not isinstance(call.func, ast.Name) or self.counts.get(call.func.id) != 1:
            return None
        function = next(
            (
                n
                for n in self.tree.body
                if isinstance(n, ast.FunctionDef) and n.name == call.func.id
            ),
            None,
        )
        if function is None or function.args.vararg or function.args.kwarg:
            return None
        positional = [*function.args.posonlyargs, *function.args.args]
        if use in call.args:
            index = call.args.index(use)
            return positional[index].arg if index < len(positional) else None
        names = {a.arg for a in [*function.args.args, *function.args.kwonlyargs]}
        keyword = next((k.arg for k in call.keywords if k.value is use), None)
        return keyword if keyword in names else None

    def returned_to_the_tests(self, use: ast.AST, parent: ast.AST | None) -> bool:
        """`return x._version, ...` from a module-level function the file never calls itself:
        the value goes back to the tests, not to code of the answer's that changes it."""
        while isinstance(parent, (ast.Tuple, ast.List)):
            use, parent = parent, self.parents.get(id(parent))
        if not (isinstance(parent, ast.Return) and parent.value is use):
            return False
        scope = self.parents.get(id(parent))
        while scope is not None and not isinstance(scope, SCOPES):
            scope = self.parents.get(id(scope))
        if not isinstance(scope, ast.FunctionDef) or scope not in self.tree.body:
            return False
        return not any(
            isinstance(n, ast.Name) and n.id == scope.name and isinstance(n.ctx, ast.Load)
            for n in ast.walk(self.tree)
        )

    def tests_state_use(self, use: ast.AST, private: bool = False) -> None:
        """What is done with the tests' state (`probe.seen`, `getattr(probe, "seen")`), or a
        private attribute of what the answer did not make: read only, or refused. A private
        one handed to the answer's own function is judged there, through its parameter."""
        before = set(self.state_aliases)
        self.judge_state_use(use, private)
        if private:
            self.private_aliases |= self.state_aliases - before

    def judge_state_use(self, use: ast.AST, private: bool) -> None:
        parent = self.parents.get(id(use))
        while self.passes_on(use, parent):  # probe.seen[0], probe.seen or [], max(probe.seen)
            assert parent is not None
            use, parent = parent, self.parents.get(id(parent))
        if private and isinstance(parent, ast.Call) and parent.func is not use:
            parameter = self.helper_parameter(use, parent)
            if parameter is not None:
                self.state_aliases.add(parameter)
                return
        if private and self.returned_to_the_tests(use, parent):
            return
        if self.state_alias(use, parent):
            return  # `head = model.head`: a read; state_alias_uses judges what `head` does
        if isinstance(parent, (ast.comprehension, ast.For)) and parent.iter is use:
            # each element is the state too, as probe.seen[0] is: the loop's names join it
            self.state_aliases.update(bound_names(parent.target))
            return
        if isinstance(parent, ast.Attribute) and parent.value is use:
            # another attribute: its own rules (write) judge what is done with it; a method
            # named with a trailing underscore is torch's in-place spelling (`zero_`)
            attr = parent.attr
            read_only = attr not in IN_PLACE and not (attr.endswith("_") and not is_dunder(attr))
        elif isinstance(parent, ast.Call):
            # called (a test's model is there to be run), or handed to a builtin that reads:
            # one the file does not rebind (`def len(x)` is the answer's own), with no key
            # function that each element is handed to (`sorted(s, key=f)`)
            func = parent.func
            reads = (
                isinstance(func, ast.Name)
                and func.id in READ_ONLY_BUILTINS
                and func.id not in self.file_names
                and all(keyword.arg != "key" for keyword in parent.keywords)
            )
            read_only = func is use or reads
        elif isinstance(parent, ast.Subscript):
            read_only = parent.slice is use and not self.receives_operands
        elif isinstance(parent, ast.AugAssign):
            read_only = parent.value is use and not self.receives_operands  # `n += x` reads x
        elif isinstance(parent, ast.Compare) and self.receives_operands:
            read_only = not any(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
        else:
            read_only = isinstance(parent, READ_ONLY_PARENTS)
        if not read_only:
            why = PRIVATE_STATE if private else TESTS_STATE
            text = f"hands on or changes {ast.unparse(use)}, {why}"
            self.note(parent or use, "patch", text)

    def passes_on(self, use: ast.AST, parent: ast.AST | None) -> bool:
        """Does `parent` evaluate to `use` itself, or to an element of it (`s[0]`, `s or []`,
        `s if c else t`, `max(s)`)? Then what is done with `parent` is done with the state."""
        if isinstance(parent, ast.Subscript):
            return parent.value is use and isinstance(parent.ctx, ast.Load)
        if isinstance(parent, ast.BoolOp):
            return True
        if isinstance(parent, ast.IfExp):
            return parent.test is not use
        return (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Name)
            and parent.func.id in ("max", "min")
            and use in parent.args
        )

    def state_alias(self, use: ast.AST, parent: ast.AST | None) -> bool:
        """`head = model.head` (or `s: list = ...`, `(s := ...)`): the tests' state bound to
        plain names, each of them then judged wherever it is used, as the state itself is."""
        statement = self.parents.get(id(parent))
        if isinstance(parent, ast.Assign) and parent.value is use:
            targets = parent.targets
        elif isinstance(parent, (ast.AnnAssign, ast.NamedExpr)) and parent.value is use:
            targets = [parent.target]
        elif (  # `a, b = probe.a, probe.b`: each name takes its own value
            isinstance(parent, ast.Tuple)
            and isinstance(statement, ast.Assign)
            and statement.value is parent
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Tuple)
            and len(statement.targets[0].elts) == len(parent.elts)
            and not any(isinstance(e, ast.Starred) for e in parent.elts)
        ):
            target_tuple = statement.targets[0]
            assert isinstance(target_tuple, ast.Tuple)
            place = next(i for i, e in enumerate(parent.elts) if e is use)
            targets = [target_tuple.elts[place]]
        else:
            return False
        if not all(isinstance(target, ast.Name) for target in targets):
            return False
        self.state_aliases.update(target.id for target in targets if isinstance(target, ast.Name))
        if isinstance(parent, ast.NamedExpr):
            self.tests_state_use(parent)  # `(s := probe.seen).clear()`: the value goes on
        return True

    def state_alias_uses(self, tree: ast.Module) -> None:
        """Every use of a name bound to the tests' state, anywhere in the file (a closure sees
        it too), judged as a use of the state; `s += [x]` changes a list in place. Names bound
        to such a name in turn join them."""
        done: set[str] = set()
        while pending := self.state_aliases - done:
            done |= pending
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Name) and node.id in pending):
                    continue
                parent = self.parents.get(id(node))
                if isinstance(node.ctx, ast.Load):
                    self.tests_state_use(node, node.id in self.private_aliases)
                elif isinstance(parent, ast.AugAssign) and parent.target is node:
                    self.note(parent, "patch", f"changes {node.id} in place, {TESTS_STATE}")

    def planted(self, tree: ast.Module) -> None:
        """An object of a class the answer defines put into an object it did not make
        (`model[0] = Mine()`, `model.head = m`, `setattr(model, "0", m)`, `add_module`,
        `insert`, `model._modules[k] = m`): it stands where the kata's tests look for theirs
        and keep their state (a probe that records the mode of every forward), so a test
        reads what the answer wrote. torch.nn's own layers may go in (fine-tuning does)."""
        if not self.tests_state:
            return
        made = self.own_class_names(tree)
        selves = methods_selves(tree)
        found: list[tuple[ast.AST, ast.AST, ast.AST]] = []  # (where, owner, value)
        for target, value in bindings_of(tree):  # `x[0] = v`, `for x[0] in vs`, `with v as x.a`
            found += [
                (each, each.value, value)
                for each in ast.walk(target)
                if isinstance(each, (ast.Attribute, ast.Subscript))
                and isinstance(each.ctx, ast.Store)
            ]
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name) and node.func.id == "setattr":
                found += [(node, node.args[0], node.args[2])] if len(node.args) == 3 else []
            elif isinstance(node.func, ast.Attribute) and node.func.attr in STORES:
                values = [*node.args, *(k.value for k in node.keywords)]
                found += [(node, node.func.value, value) for value in values]
        for node, owner, value in found:
            root = owner
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            own = isinstance(root, ast.Name) and (
                id(root) in self.own
                or root.id in selves
                or root.id in self.own_classes
                or self.own_parameter(root)
            )
            if not own and self.of_own_class(value, made):
                text = f"puts an object of its own making into {ast.unparse(owner)}"
                self.note(node, "patch", f"{text}, {TESTS_STATE}")

    def own_class_names(self, tree: ast.Module) -> set[str]:
        """The answer's classes, the names it sets the tests' state on (`fake.seen = []`),
        and the names that can hold or make an object of one: a function whose body makes
        one, a name bound to such a value (`fake = Fake()`, `make = lambda: Fake()`)..."""
        names = set(self.local_classes)
        for node in ast.walk(tree):  # `stand_in.seen = [...]`: dressed as a tests' object
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                owner, attrs = node.value, {node.attr}
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
                and len(node.args) >= 2
            ):
                owner, attrs = node.args[0], set(self.literal_names(node.args[1]) or ())
            else:
                continue
            if isinstance(owner, ast.Name) and attrs & self.tests_state:
                names.add(owner.id)
        functions = [
            n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        bindings = list(bindings_of(tree))
        while True:
            found = {f.name for f in functions if self.of_own_class(f, names)}
            for target, value in bindings:
                if self.of_own_class(value, names):
                    found.update(bound_names(target))
            if found <= names:
                return names
            names |= found

    def of_own_class(self, value: ast.AST, names: set[str]) -> bool:
        """Does `value` name or call one of `names` anywhere in it (`Fake()`, `fake`,
        `[make()][0]`, `nn.Sequential(Fake())`), but for reading an attribute of it?"""
        for node in ast.walk(value):
            if isinstance(node, ast.Call):
                made_by = node.func  # `Fake()`, and `Fake.fresh()`, `fake.spawn()`: its methods'
                while isinstance(made_by, ast.Attribute):
                    made_by = made_by.value
                if isinstance(made_by, ast.Name) and made_by.id in names:
                    return True
            elif isinstance(node, ast.Name) and node.id in names:
                parent = self.parents.get(id(node))
                if not (isinstance(parent, ast.Attribute) and parent.value is node):
                    return True  # `fake`, `[fake][0]`, not `fake.width`
        return False

    def submodule_set(self, statement: ast.AST, attr: str) -> bool:
        """`model.dropout = nn.Identity()`: a layer of torch.nn put in as a submodule (what
        fine-tuning does), under any name but one of nn.Module's own methods."""
        if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
            return False
        dotted = self.dotted(statement.value.func)
        made = dotted is not None and within(dotted, "torch.nn") and self.kind_of(dotted) == "class"
        return made and attr not in self.names.module_members

    def string(self, node: ast.Constant) -> None:
        """Names in strings: dunders, frame attributes, format fields that read attributes."""
        parent = self.parents.get(id(node))
        if id(node) in self.docstrings or self.attribute_argument(node, parent):
            return
        text = str(node.value)
        # A dunder in a string is judged as the attribute it could name, whatever else the
        # string holds (`"{0.__class__.__name__}(...)"` reads what `x.__class__` reads).
        for dunder in re.findall(r"__\w+?__", text):
            if dunder not in DUNDER_STRINGS | DUNDER_ATTRIBUTES:
                self.note(node, "string", f"names {dunder} in a string")
        # Frame attributes are plain words in a sentence (`f_back` in an error message); a
        # name handed to what reads attributes by name is one word (or a dotted path).
        if not re.search(r"\s", text):
            for name in re.findall(r"\w+", text):
                if name in INTERNALS:
                    self.note(node, "string", f"names {name} in a string")
        # A log format's fields (`%(pathname)s`, `{lineno}` with style="{"): the record's place;
        # `%(module)s` is its file's name (the attribute `.module` is a wrapper's too).
        for name in re.findall(r"%\((\w+)\)|\{(\w+)[^{}]*\}", text):
            if (name[0] or name[1]) in LOCATIONS | {"module"}:
                self.note(node, "location", f"names {name[0] or name[1]} in a format string")
        for field in re.findall(r"\{([^{}]*)\}", text):
            for attr in re.findall(r"\.(\w+)", field.split("!")[0].split(":")[0]):
                self.attribute_name(node, attr)
        if text in STRING_MODULES:
            self.note(node, "string", f"names the module {text} in a string")

    def attribute_argument(self, node: ast.Constant, parent: ast.AST | None) -> bool:
        """The literal name in `getattr(x, "a")`, `attrgetter("a")` and the like: judged as the
        attribute it names (call()), by the same rules as `x.a`; `hasattr` reads nothing."""
        if not isinstance(parent, ast.Call):
            return False
        func = parent.func
        by_builtin = (
            isinstance(func, ast.Name)
            and func.id in NAMED_ATTRIBUTES | {"hasattr"}
            and id(func) not in self.shadowed
            and parent.args[1:2] == [node]
        )
        return by_builtin or (self.dotted(func) in NAMED_BY_OPERATOR and node in parent.args)


# torch.compile and the config patch of torch.compiler: settings that reach inductor's C++
# compiler command line or Dynamo's; each a literal, none that configures an external program
# (words of a key: `cpp.march`, `cuda.cutlass_dir`, `cpp.cxx`).
COMPILE_CALLS = {"torch.compile", "torch.compiler.config.patch"}
# Called where it is named, with the store it uses (group_setup): its init_method is a path or
# an address.
GROUP_SETUP = {"torch.distributed.init_process_group"}
# The store a group is set up over: in memory, made for the call.
GROUP_STORE = "torch.distributed.HashStore"
COMPILER_WORDS = {
    "cpp",
    "cuda",
    "rocm",
    "cutlass",
    "halide",
    "xpu",
    "aot",
    "compiler",
    "cxx",
    "cc",
    "march",
    "flags",
    "flag",
    "include",
    "path",
    "paths",
    "dir",
    "dirs",
    "ld",
    "link",
    "linker",
    "wrapper",
    "cmd",
    "command",
    "env",
    "bin",
    "exe",
    "executable",
    "prefix",
}
# Keywords (and how many positional arguments are safe) that install a process-wide callback
# or stream: NumPy calls the formatter whenever it prints an array (a failing test's message),
# the error callback on floating-point errors; the root logger's handlers see every record.
CALLBACK_KEYWORDS = {
    "numpy.set_printoptions": ({"formatter", "override_repr"}, 7),
    "numpy.printoptions": ({"formatter", "override_repr"}, 7),
    "numpy.errstate": ({"call"}, 0),
    "logging.basicConfig": ({"handlers", "stream", "force"}, 0),
}
STREAMS = {"sys.stderr", "sys.stdout"}
# A logger's handlers and filters: on a logger the answer did not make they run its code for
# every record anyone logs.
LOGGER_HOOKS = {"addHandler", "addFilter", "removeHandler", "removeFilter", "handlers", "filters"}
# Modules whose names make generics when subscripted; builtin classes that do too.
TYPING_MODULES = ("typing", "typing_extensions", "collections", "numpy.typing", "torch.types")
GENERIC_BUILTINS = {"list", "dict", "tuple", "set", "frozenset", "type"}


# An object's namespace: the methods that only read it, those that name keys (NAMESPACE_METHODS:
# their keys meet setattr's rules), what copies one handed to it, and the methods that restore
# a state torch or copy hands over (`self.__dict__.update(state)`, as torch's schedulers do).
NAMESPACE_READERS = {"items", "keys", "values", "copy", "get"}
NAMESPACE_METHODS = {
    "update",
    "setdefault",
    "get",
    "pop",
    "popitem",
    "clear",
    "__setitem__",
    "__delitem__",
    "__getitem__",
    "__ior__",
}
NAMESPACE_COPIES = {
    "dict",
    "list",
    "tuple",
    "set",
    "frozenset",
    "sorted",
    "len",
    "repr",
    "str",
    "print",
    "iter",
    "enumerate",
    "reversed",
    "any",
    "all",
    "min",
    "max",
    "sum",
    "zip",
    "map",
    "filter",
    "hash",
    "bool",
    "isinstance",
    "copy.copy",
    "copy.deepcopy",
    "collections.OrderedDict",
    *(f"logging.{level}" for level in ("debug", "info", "warning", "error", "critical", "log")),
}
# A logger's methods that show their arguments (on the answer's own module's logger).
LOG_METHODS = {"debug", "info", "warning", "error", "exception", "critical", "log"}
STATE_LOADERS = {"load_state_dict", "__setstate__"}


def enum_members(node: ast.AST) -> list[str] | None:
    """The member names of a functional Enum's literal `names` ("A B", ["A", "B"],
    [("A", 1)], {"A": 1}); None where they are built at run time."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace(",", " ").split()
    if isinstance(node, ast.Dict):
        keys = node.keys
    elif isinstance(node, (ast.List, ast.Tuple)):
        keys = [
            e.elts[0] if isinstance(e, ast.Tuple) and len(e.elts) == 2 else e for e in node.elts
        ]
    else:
        return None
    if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys):
        return [str(getattr(k, "value", "")) for k in keys]
    return None


def module_bindings(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Names bound only by plain assignments at the module's top level, with their values
    (type aliases: `Batch = dict[str, Tensor]`, `T = TypeVar("T")`)."""
    top: dict[str, list[ast.AST]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if isinstance(target, ast.Name):
            top.setdefault(target.id, []).append(value)
    counts: dict[str, int] = {}
    for name in every_binding(tree):
        counts[name] = counts.get(name, 0) + 1
    return {name: values for name, values in top.items() if counts.get(name) == len(values)}


# The public methods of namedtuples, which start with an underscore to stay out of the way.
NAMEDTUPLE = {"_fields", "_field_defaults", "_asdict", "_replace", "_make"}
# Builtin classes whose instances are the answer's own.
BUILTIN_CLASSES = {"dict", "list", "set", "object", "bytearray", "frozenset", "tuple", "str"}


def frozen_setattrs(tree: ast.AST) -> set[int]:
    """`object.__setattr__(self, "field", value)` in `__post_init__` of a frozen dataclass, with
    one of the class's own annotated fields by its literal name: the documented way to set a
    derived field (ids of the `object.__setattr__` nodes)."""
    found: set[int] = set()
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef) or not any(frozen(d) for d in cls.decorator_list):
            continue
        fields = {
            s.target.id
            for s in cls.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        }
        for method in cls.body:
            if not (isinstance(method, ast.FunctionDef) and method.name == "__post_init__"):
                continue
            self_name = method.args.args[0].arg if method.args.args else None
            for call in ast.walk(method):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                    continue
                func, args = call.func, call.args
                if (
                    func.attr == "__setattr__"
                    and isinstance(func.value, ast.Name)
                    and func.value.id == "object"
                    and len(args) == 3
                    and not call.keywords
                    and isinstance(args[0], ast.Name)
                    and args[0].id == self_name
                    and isinstance(args[1], ast.Constant)
                    and args[1].value in fields
                ):
                    found.add(id(func))
    return found


def defined(cls: ast.ClassDef) -> set[str]:
    """The names a class body defines: its methods and class attributes."""
    names = set()
    for statement in cls.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign):
            names.update(n for t in statement.targets for n in bound_names(t))
        elif isinstance(statement, ast.AnnAssign):
            names.update(bound_names(statement.target))
    return names


def literal_values(node: ast.AST) -> bool:
    """What Literal[...] may hold: literal strings, bytes, numbers, bools and None (a tuple of
    them), and enum members, which the policy checks where they are named."""
    if isinstance(node, ast.Tuple):
        return all(literal_values(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, (ast.Constant, ast.Attribute))


def frozen(decorator: ast.AST) -> bool:
    """`@dataclass(frozen=True)` or `@dataclasses.dataclass(frozen=True, ...)`."""
    if not isinstance(decorator, ast.Call):
        return False
    func = decorator.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "dataclass" and any(
        k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in decorator.keywords
    )


def annotation_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            yield node.annotation
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
            yield node.returns
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation


TRY = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def names_bound_in(nodes: Iterable[ast.AST | None], deep: bool = True) -> set[str]:
    """Every name the statements or expressions bind in their own scope (a nested function's
    or class's name, not what its body binds); with deep=False, the nodes' own bindings only."""
    names: set[str] = set()
    pending = [node for node in nodes if node is not None]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        if deep:
            pending.extend(ast.iter_child_nodes(node))
    return names


class Owned:
    """Where a name is read, does it hold an object the answer made (`d = {}`,
    `m = nn.Linear(2, 2)`, `self` of a method)? Decided scope by scope, from the bindings that
    can reach the read: in its own scope a name is own where every binding of it that can
    precede the read makes an object or is an alias of an own one (branches joined, a
    `return` ends a way); a function reads a name of the function around it or of the module
    as own where every binding of it there makes an object (a builtin's name aside). A
    parameter (but a method's `self`, as methods_selves allows), a name bound by a loop
    target, `with ... as`, `except ... as`, `match`, import, `def`, `del`, augmented
    assignment of something not made, or anywhere by `:=`, `global` or `nonlocal`, is not
    own; a loop's body starts with the names it binds not own (an earlier turn may have
    bound them to anything), and after a loop, `try` or `with` only the names its body
    leaves alone keep what they were (an exception may stop it anywhere)."""

    def __init__(self, tree: ast.Module, makes: Callable[[ast.AST], bool], selves: set[str]):
        self.makes = makes
        self.selves = selves
        self.found: set[int] = set()  # ids of the loaded names that are own where read
        self.never = {
            name
            for node in ast.walk(tree)
            for name in (
                node.names
                if isinstance(node, (ast.Global, ast.Nonlocal))
                else bound_names(node.target)
                if isinstance(node, ast.NamedExpr)
                else ()
            )
        }
        # A static method's first parameter is any object its caller passes.
        self.methods = {
            id(item)
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            for item in node.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            and not any(
                isinstance(d, ast.Name) and d.id == "staticmethod" for d in item.decorator_list
            )
        }
        self.scope(tree, set(), [])

    def scope(self, node: ast.AST, state: set[str], outer: list[ast.AST]) -> None:
        """One scope, entered with the names own in it from the start."""
        if isinstance(node, ast.Lambda):
            self.expression(node.body, state, [*outer, node])
        else:
            self.block(getattr(node, "body", []), state, [*outer, node])

    def function(self, node: ast.AST, outer: list[ast.AST]) -> None:
        """A function's body, entered with its `self` if a method's and the own names it
        reads from around it."""
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        state: set[str] = set()
        first = [a.arg for a in [*node.args.posonlyargs, *node.args.args]][:1]
        if id(node) in self.methods and set(first) <= self.selves:
            state.update(first)
        state |= self.free_own(outer, local_names(node))
        self.scope(node, state - self.never, outer)

    def free_own(self, outer: list[ast.AST], local: set[str]) -> set[str]:
        """Names a function reads from the functions around it or the module (not from a
        class body) that the scope binding them binds only to objects it made: whenever the
        function runs, they hold one of those (or are unbound)."""
        own: set[str] = set()
        hidden = set(local)
        for scope in reversed(outer):
            if isinstance(scope, ast.ClassDef):
                continue  # a class body's names are not seen from its methods
            names = local_names(scope) - hidden
            if isinstance(scope, ast.Module):
                # A global read before it is bound is the builtin of that name.
                names -= set(dir(builtins))
            own |= {n for n in names if self.always_own(scope, n)}
            hidden |= names
        return own

    def always_own(self, scope: ast.AST, name: str) -> bool:
        """Is every binding of `name` in `scope` (a function or the module) one that makes an
        object?"""
        if name in self.never:
            return False
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = scope.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
            first = [a.arg for a in [*arguments.posonlyargs, *arguments.args]][:1]
            method_self = id(scope) in self.methods and [name] == first and name in self.selves
            if name in {a.arg for a in every} and not method_self:
                return False
        body = [scope.body] if isinstance(scope, ast.Lambda) else getattr(scope, "body", [])
        made: set[int] = set()
        stores: list[ast.Name] = []
        for node in scope_walk(body):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if self.makes(node.value):
                    made.update(id(t) for t in targets if isinstance(t, ast.Name))
            if (
                isinstance(node, ast.Name)
                and node.id == name
                and not isinstance(node.ctx, ast.Load)
            ):
                stores.append(node)
            elif not isinstance(node, ast.Name) and name in names_bound_in([node], deep=False):
                return False  # an import, a nested definition, an except or match name
        return all(id(n) in made for n in stores)

    # -- statements: each takes the own names before it, gives those after (None: no way on)

    def block(
        self, body: list[ast.stmt], state: set[str] | None, outer: list[ast.AST]
    ) -> set[str] | None:
        for statement in body:
            # What follows a return runs never: nothing is own there.
            state = self.statement(statement, set() if state is None else state, outer)
        return state

    def statement(self, node: ast.stmt, state: set[str], outer: list[ast.AST]) -> set[str] | None:
        expression = functools.partial(self.expression, outer=outer)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            heads: list[ast.AST | None] = [*node.decorator_list]
            if isinstance(node, ast.ClassDef):
                heads += [*node.bases, *node.keywords]
                self.scope(node, set(), outer)
            else:
                heads += [*node.args.defaults, *node.args.kw_defaults]
                self.function(node, outer)
            for part in heads:
                if part is not None:
                    expression(part, state)
            return state - {node.name}
        if isinstance(node, (ast.Return, ast.Raise)):
            for part in ast.iter_child_nodes(node):
                expression(part, state)
            return None
        if isinstance(node, (ast.Break, ast.Continue)):
            return None
        if isinstance(node, ast.Assign):
            expression(node.value, state)
            after = state - names_bound_in(node.targets)
            for target in node.targets:
                expression(target, after)
            for target in node.targets:
                after |= self.made_names(target, node.value, state)
            return after
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                return state
            expression(node.value, state)
            after = state - names_bound_in([node.target])
            expression(node.target, after)
            return after | self.made_names(node.target, node.value, state)
        if isinstance(node, ast.AugAssign):
            # In place on an own object (`parts += [x]`), still the answer's.
            expression(node.target, state)
            expression(node.value, state)
            name = node.target.id if isinstance(node.target, ast.Name) else None
            if name is None or (name in state and self.makes(node.value)):
                return state
            return state - {name}
        if isinstance(node, ast.If):
            expression(node.test, state)
            return join(
                self.block(node.body, set(state), outer),
                self.block(node.orelse, set(state), outer),
            )
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            # Each turn begins with the names the loop binds not own (a turn before may have
            # bound them to anything); after it, the same.
            if not isinstance(node, ast.While):
                expression(node.iter, state)
            head = state - names_bound_in([node])
            expression(node.target if not isinstance(node, ast.While) else node.test, head)
            self.block(node.body, set(head), outer)
            return self.block(node.orelse, set(head), outer)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                expression(item.context_expr, state)
            head = state - names_bound_in([i.optional_vars for i in node.items if i.optional_vars])
            for item in node.items:
                if item.optional_vars is not None:
                    expression(item.optional_vars, head)
            self.block(node.body, set(head), outer)
            # A context manager may swallow an exception anywhere in the body.
            return head - names_bound_in(node.body)
        if isinstance(node, TRY):
            node = typing.cast(ast.Try, node)  # ast.TryStar (3.11) has the same fields
            caught = state - names_bound_in(node.body)
            ends = [self.block(node.orelse, self.block(node.body, set(state), outer), outer)]
            for handler in node.handlers:
                if handler.type is not None:
                    expression(handler.type, caught)
                ends.append(self.block(handler.body, caught - {handler.name or ""}, outer))
            if not node.finalbody:
                return functools.reduce(join, ends)
            every = state - names_bound_in([*node.body, *node.handlers, *node.orelse])
            return self.block(node.finalbody, every, outer)
        if isinstance(node, ast.Match):
            expression(node.subject, state)
            ends = [set(state)]
            for case in node.cases:
                inner = state - names_bound_in([case.pattern])
                for part in ast.walk(case.pattern):
                    if isinstance(part, ast.expr):
                        expression(part, inner)
                if case.guard is not None:
                    expression(case.guard, inner)
                ends.append(self.block(case.body, inner, outer))
            return functools.reduce(join, ends)
        for part in ast.iter_child_nodes(node):
            expression(part, state)
        if isinstance(node, ast.Delete):
            return state - names_bound_in(node.targets)
        return state - names_bound_in([node])  # import, type alias, expression

    def made_names(self, target: ast.AST, value: ast.AST, state: set[str]) -> set[str]:
        """The names `target = value` binds to objects the answer made."""
        if isinstance(target, ast.Name):
            return {target.id} - self.never if self.own_value(value, state) else set()
        pairs = (
            isinstance(target, (ast.Tuple, ast.List))
            and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in [*target.elts, *value.elts])
        )
        if not pairs:
            return set()
        assert isinstance(target, (ast.Tuple, ast.List))
        assert isinstance(value, (ast.Tuple, ast.List))
        made: set[str] = set()
        for each, part in zip(target.elts, value.elts, strict=True):
            # `a, a = {}, x`: the last binding wins.
            made = (made - names_bound_in([each])) | self.made_names(each, part, state)
        return made

    def own_value(self, value: ast.AST, state: set[str]) -> bool:
        if isinstance(value, ast.Name):
            return value.id in state
        if isinstance(value, ast.IfExp):
            return self.own_value(value.body, state) and self.own_value(value.orelse, state)
        return self.makes(value)

    # -- expressions

    def expression(self, node: ast.AST, state: set[str], outer: list[ast.AST]) -> None:
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load) and node.id in state:
                self.found.add(id(node))
            return
        if isinstance(node, ast.Lambda):
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    self.expression(default, state, outer)
            self.function(node, outer)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            # The first iterable is read where the comprehension is; the rest in a scope of
            # its own, later for a generator: its own names are not.
            self.expression(node.generators[0].iter, state, outer)
            inner = set() if isinstance(node, ast.GeneratorExp) else set(state)
            inner -= {n for g in node.generators for n in names_bound_in([g.target])}
            rest = [*node.generators[0].ifs]
            for generator in node.generators[1:]:
                rest += [generator.iter, *generator.ifs]
            rest += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for part in rest:
                self.expression(part, inner, outer)
            return
        for child in ast.iter_child_nodes(node):
            self.expression(child, state, outer)


def join(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    """The names own on both ways in (None: a way that does not come here)."""
    if a is None or b is None:
        return b if a is None else a
    return a & b


def scope_walk(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of a scope, not those inside the functions and classes it defines."""
    pending = list(nodes)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, SCOPES):
            pending.extend(ast.iter_child_nodes(node))


def variables(tree: ast.AST) -> set[str]:
    """The names bound anywhere by anything but an import or a class statement: an
    assignment, a loop, a parameter, `def`, `except ... as`, `match`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(
            node,
            (ast.FunctionDef, ast.AsyncFunctionDef, ast.ExceptHandler, ast.MatchAs, ast.MatchStar),
        ):
            names.update([node.name] if node.name else [])
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return names


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
    (a parameter called `input`). A module or class body hides a builtin only after a
    statement of its own that always binds the name has run: a `def getattr` under an `if`,
    or one deleted later, leaves the builtin in place. A name deleted or declared global or
    nonlocal anywhere hides nothing."""
    found: set[int] = set()
    scopes_kind = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    unsure = {
        name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Global, ast.Nonlocal))
        for name in node.names
    } | {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del)
    }

    def bound_from(scope: ast.AST) -> dict[str, int]:
        """name -> the last line before which it is not yet bound (0: a function's local)."""
        if not isinstance(scope, (ast.Module, ast.ClassDef)):
            return dict.fromkeys(local_names(scope) - unsure, 0)
        sure: dict[str, int] = {}
        for statement in getattr(scope, "body", []):
            names: set[str] = set()
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = {statement.name}
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                names = names_bound_in([statement], deep=False)
            elif isinstance(statement, ast.Assign):
                names = {n for target in statement.targets for n in bound_names(target)}
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                names = set(bound_names(statement.target))
            end = getattr(statement, "end_lineno", None) or statement.lineno
            for name in names - unsure:
                sure.setdefault(name, end)
        return sure

    def walk(node: ast.AST, scopes: list[tuple[bool, dict[str, int]]]) -> None:
        if isinstance(node, scopes_kind):
            if isinstance(node, ast.ClassDef):
                outer: list[ast.AST | None] = [*node.decorator_list, *node.bases, *node.keywords]
                inner = [*scopes, (True, bound_from(node))]
            else:
                outer = [node.args]
                if not isinstance(node, ast.Lambda):
                    outer += [*node.decorator_list, node.returns]
                # Names bound in a class body are not seen from its methods.
                inner = [s for s in scopes if not s[0]] + [(False, bound_from(node))]
            for part in outer:
                if part is not None:
                    walk(part, scopes)
            for statement in [node.body] if isinstance(node, ast.Lambda) else node.body:
                walk(statement, inner)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            visible = [names for is_class, names in scopes[:-1] if not is_class]
            line = getattr(node, "lineno", 0)
            if any(names.get(node.id, line) < line for names in [*visible, scopes[-1][1]]):
                found.add(id(node))
        for child in ast.iter_child_nodes(node):
            walk(child, scopes)

    walk(tree, [(False, bound_from(tree))])
    return found


def compares_only(pattern: ast.pattern) -> bool:
    """A match pattern that compares and binds nothing: a value, `None`, `_`, or those."""
    if isinstance(pattern, ast.MatchOr):
        return all(map(compares_only, pattern.patterns))
    if isinstance(pattern, ast.MatchAs):
        return pattern.name is None and pattern.pattern is None
    return isinstance(pattern, (ast.MatchValue, ast.MatchSingleton))


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")
