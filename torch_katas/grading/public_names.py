"""The public names of the modules a kata answer may import, recorded as data for the policy
for returned code (policy.py), with the versions of Python, torch and NumPy they came from.

The policy reads public_names.json and imports none of these modules: an answer's names are
checked against what the recorded versions offer, the same on every machine. Regenerate the
file after moving the pinned torch (the version the project's own checks run on), naming the
other supported Pythons so that the standard modules' names are those any of them has:

    python -m torch_katas.grading.public_names python3.10 python3.12 python3.13

A module's public names are its attributes without a leading underscore, less the modules it
merely re-exports (`torch.sys`, `logging.os`: reached that way they escape the list) and less
what other modules define that an answer has no use for (a function of `os` imported into a
torch module). A name's kind says how the policy follows it: a submodule is resolved further,
a class may be called to make an object of the answer's own, a metaclass makes classes.
"""

from __future__ import annotations

import importlib
import json
import platform
import subprocess
import sys
import types
import warnings
from pathlib import Path
from typing import Any

__all__ = ["FOREIGN", "NOT_RECORDED", "PRIVATE", "TORCH", "generate", "load", "main"]

DATA = Path(__file__).with_name("public_names.json")

# Standard modules recorded (with their genuine submodules): the ones every answer may import
# and the ones a kata may add in katas.toml.
STANDARD = (
    "__future__",
    "abc",
    "bisect",
    "collections",
    "collections.abc",
    "contextlib",
    "copy",
    "dataclasses",
    "enum",
    "fractions",
    "functools",
    "heapq",
    "io",
    "itertools",
    "logging",
    "math",
    "numbers",
    "operator",
    "os",
    "os.path",
    "pathlib",
    "random",
    "re",
    "secrets",
    "statistics",
    "string",
    "sys",
    "tempfile",
    "time",
    "typing",
    "typing_extensions",
    "uuid",
    "warnings",
)
# torch: the public parts kata answers use, each walked through its public submodules.
TORCH = (
    "torch",
    "torch.accelerator",
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
NUMPY = ("numpy",)
# Private modules recorded for the few stable names that honest answers use: the pytree
# helpers (torch.utils.pytree is not public in every torch the project supports).
PRIVATE = {
    "torch.utils._pytree": (
        "PyTree",
        "TreeSpec",
        "keystr",
        "tree_all",
        "tree_any",
        "tree_flatten",
        "tree_flatten_with_path",
        "tree_iter",
        "tree_leaves",
        "tree_leaves_with_path",
        "tree_map",
        "tree_map_only",
        "tree_map_with_path",
        "tree_structure",
        "tree_unflatten",
    )
}
# Modules recorded for a few names only, without their submodules: torch.fx generates Python
# from names an answer can choose (a submodule called `a"); ...`), so an answer may name its
# types (a compile backend's `gm: torch.fx.GraphModule`) but not build or trace graphs.
LIMITED = {
    **PRIVATE,
    "torch.fx": ("Graph", "GraphModule", "Interpreter", "Node"),
    # Views that stay inside the array (not as_strided, which reads any memory).
    "numpy.lib.stride_tricks": ("sliding_window_view",),
    # Facts about the interpreter and its two streams (`print(..., file=sys.stderr)`), never
    # its modules, frames or settings.
    "sys": (
        "byteorder",
        "float_info",
        "hexversion",
        "maxsize",
        "platform",
        "stderr",
        "stdout",
        "version_info",
    ),
    # Fresh random tokens (a temporary file's name), not the module's re-exported helpers.
    "secrets": (
        "choice",
        "compare_digest",
        "randbelow",
        "randbits",
        "token_bytes",
        "token_hex",
        "token_urlsafe",
    ),
    # Not string.Formatter: its templates read attributes (`{0.__globals__}`), built at run time.
    "string": (
        "Template",
        "ascii_letters",
        "ascii_lowercase",
        "ascii_uppercase",
        "capwords",
        "digits",
        "hexdigits",
        "octdigits",
        "printable",
        "punctuation",
        "whitespace",
    ),
    # Fresh names (random or from a namespace and a name), not uuid1 or getnode, which may
    # run a program to read the machine's hardware address.
    "uuid": (
        "NAMESPACE_DNS",
        "NAMESPACE_OID",
        "NAMESPACE_URL",
        "NAMESPACE_X500",
        "SafeUUID",
        "UUID",
        "uuid3",
        "uuid4",
        "uuid5",
    ),
}
# The classes whose methods the policy keeps an answer from replacing on objects it did not
# make (`model.forward = ...` on a model the test hands over).
MEMBERS_OF = (
    "torch.Tensor",
    "torch.nn.Module",
    "torch.optim.Optimizer",
    "torch.optim.lr_scheduler.LRScheduler",
    "torch.utils.data.DataLoader",
    "torch.utils.data.Dataset",
    "numpy.ndarray",
)
# Never walked into or recorded: what reaches raw memory, compilers, other processes, the
# test machinery or files behind Python's back (policy.REFUSED_TORCH holds torch's own).
NOT_RECORDED = (
    "numpy.ctypeslib",
    "numpy.f2py",
    "numpy.distutils",
    "numpy.testing",
    "numpy.lib.format",
    "numpy.lib.npyio",
    "torch.distributed",
    "torch.futures",
    # torch's profilers: a profile's results write their trace natively (no audit event:
    # `prof.kineto_results.save(path)`, any path), and CUDA's and MPS's start native capture.
    "torch.autograd.profiler",
    "torch.autograd.profiler_legacy",
    "torch.autograd.profiler_util",
    "torch.cuda.profiler",
    "torch.mps.profiler",
    "torch.hub",
    "torch.library",
    "torch.multiprocessing",
    "torch.ops",
    "torch.classes",
    "torch.overrides",
    "torch.package",
    "torch.testing",
    "torch.utils.cpp_extension",
    "torch.utils.data.datapipes",
    "torch.cuda.gds",
    "torch.cuda.jiterator",
    "torch.cuda.nccl",
    "torch.cuda.tunable",
    "torch.fx.experimental",
    "torch.fx.passes",
    "torch.nn.intrinsic",
    "torch.nn.parallel",
    "torch.nn.qat",
    "torch.nn.quantizable",
    "torch.nn.quantized",
)
# Modules whose functions and classes are dropped where another module re-exports them: what
# reaches the interpreter, the process, other threads or raw memory.
FOREIGN = {
    "_ctypes",
    "_io",
    "_thread",
    "builtins",
    "ctypes",
    "gc",
    "importlib",
    "inspect",
    "io",
    "marshal",
    "multiprocessing",
    "os",
    "pickle",
    "posix",
    "nt",
    "runpy",
    "shutil",
    "signal",
    "socket",
    "subprocess",
    "sys",
    "threading",
    "types",
}


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _recorded(name: str) -> bool:
    # torch itself, without the submodules its entry in TORCH does not name.
    roots = (*STANDARD, *TORCH[1:], *NUMPY, *PRIVATE)
    return (name == "torch" or any(within(name, root) for root in roots)) and not any(
        within(name, refused) for refused in NOT_RECORDED
    )


# Type aliases a module defines (`ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]]`):
# types an annotation may name, recorded as classes.
ALIASES = (types.UnionType, types.GenericAlias)


def _kind(value: Any) -> str:
    if isinstance(value, type):
        return "metaclasses" if issubclass(value, type) else "classes"
    return "classes" if isinstance(value, ALIASES) else "other"


def _foreign(module: str, value: Any) -> bool:
    """A function or class of a module in FOREIGN that `module` re-exports."""
    # A type alias (`Device = str | torch.device | int | None`, `Shape = list[int]`) is the
    # module's own, though its __module__ says types or builtins.
    if isinstance(value, (types.ModuleType, *ALIASES)):
        return False
    owner = getattr(value, "__module__", None)
    if not isinstance(owner, str):
        return False
    root, home = owner.split(".")[0], module.split(".")[0]
    # A module's own C half (_io for io, posix for os) is not foreign to it.
    own = root.lstrip("_") == home or (home == "os" and root in ("posix", "nt"))
    return root in FOREIGN and not own


def describe(module: types.ModuleType) -> tuple[dict[str, list[str]], dict[str, str]]:
    """`module`'s public names by kind, and the modules it holds as attributes that are not
    recorded ones (name: module)."""
    kinds: dict[str, list[str]] = {"submodules": [], "classes": [], "metaclasses": [], "other": []}
    aliases = {}
    # A module object of a class of its own (torch.backends.cudnn) has its settings there.
    own = set(dir(type(module))) - set(dir(types.ModuleType))
    for name in sorted(set(dir(module)) | own):
        if name.startswith("_"):
            continue
        try:
            with warnings.catch_warnings():  # the same names whatever the warning filters
                warnings.simplefilter("ignore")
                value = getattr(module, name)
        except Exception:  # a lazy attribute that fails to load is not an answer's to use
            continue
        if isinstance(value, types.ModuleType):
            dotted = f"{module.__name__}.{name}"
            if sys.modules.get(dotted) is value and _recorded(dotted):
                kinds["submodules"].append(name)
            else:  # a re-export, or a submodule no answer may use
                aliases[name] = value.__name__
        elif not _foreign(module.__name__, value) or module.__name__ in LIMITED:
            kinds[_kind(value)].append(name)
    return kinds, aliases


def walk(roots: list[str]) -> tuple[dict[str, dict[str, list[str]]], dict[str, set[str]]]:
    """The recorded modules under `roots` with their public names by kind, and the modules
    they hold as attributes (name: modules)."""
    modules: dict[str, dict[str, list[str]]] = {}
    aliases: dict[str, set[str]] = {}
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in modules or not _recorded(name):
            continue
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue  # typing_extensions where it is not installed
        kinds, found = describe(module)
        if name in LIMITED:
            kinds = {
                kind: [n for n in names if n in LIMITED[name]] for kind, names in kinds.items()
            }
            found = {}
        modules[name] = kinds
        for alias, target in found.items():
            aliases.setdefault(alias, set()).add(target)
        pending += [f"{name}.{sub}" for sub in kinds["submodules"]]
        if not pending:
            # Public submodules a package imports but does not keep as attributes
            # (torch.optim.sgd): importable by name, so recorded too.
            pending = [
                loaded
                for loaded in sorted(sys.modules)
                if loaded not in modules
                and _recorded(loaded)
                and not any(part.startswith("_") for part in loaded.split("."))
                and loaded.rpartition(".")[0] in modules
                and loaded.rpartition(".")[0] not in LIMITED
            ]
    return modules, aliases


def generate(pythons: tuple[str, ...] = ()) -> dict[str, Any]:
    """The data public_names.json holds, from the modules installed here and the standard
    modules of the other Python interpreters `pythons` (a name any supported Python has is
    one an honest answer may use)."""
    import numpy
    import torch

    modules, aliases = walk([*STANDARD, *TORCH, *NUMPY, *PRIVATE])
    versions = [platform.python_version()]
    for python in pythons:
        done = subprocess.run(
            [python, "-I", __file__, "--standard"], capture_output=True, text=True, check=True
        )
        other = json.loads(done.stdout)
        versions.append(other["python"])
        for name, kinds in other["modules"].items():
            mine = modules.setdefault(name, {kind: [] for kind in kinds})
            for kind, listed in kinds.items():
                mine[kind] = sorted(set(mine[kind]) | set(listed))
        for alias, targets in other["module_aliases"].items():
            aliases.setdefault(alias, set()).update(targets)
    return {
        "python": sorted(versions, key=lambda v: tuple(map(int, v.split(".")))),
        "torch": torch.__version__.split("+")[0],
        "numpy": numpy.__version__,
        "module_aliases": {name: sorted(aliases[name]) for name in sorted(aliases)},
        "members": {
            owner: sorted(name for name in dir(_named(owner)) if not name.startswith("_"))
            for owner in MEMBERS_OF
        },
        "modules": dict(sorted(modules.items())),
    }


def _named(dotted: str) -> Any:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def dump(data: dict[str, Any]) -> str:
    """One module to a line: the file stays short to read and its diffs say what changed."""
    lines = [f'  "{key}": {json.dumps(data[key])},' for key in data if key != "modules"]
    body = ",\n".join(
        f"    {json.dumps(name)}: {json.dumps(kinds, separators=(',', ':'))}"
        for name, kinds in data["modules"].items()
    )
    return "{\n" + "\n".join(lines) + '\n  "modules": {\n' + body + "\n  }\n}\n"


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def main(argv: list[str]) -> None:
    if argv == ["--standard"]:  # run by another interpreter for its standard modules
        modules, aliases = walk(list(STANDARD))
        found = {name: sorted(targets) for name, targets in aliases.items()}
        print(
            json.dumps(
                {"python": platform.python_version(), "modules": modules, "module_aliases": found}
            )
        )
        return
    DATA.write_text(dump(generate(tuple(argv))), encoding="utf-8")
    print(f"wrote {DATA}")


if __name__ == "__main__":
    main(sys.argv[1:])
