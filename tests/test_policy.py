"""The policy for returned code (torch_katas/grading/policy.py): what it refuses, and that it
refuses nothing in honest answers: the reference answers, the stubs, and answers written
independently of them in other styles."""

import ast
import importlib
import inspect
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torch_katas import catalog, cli
from torch_katas.grading import policy, public_names

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)

# Correct answers written without looking at the reference answers, each in a style of its
# own (its docstring says which); test_honest_answers_pass_their_katas checks they are correct.
HONEST = sorted((ROOT / "tests" / "honest_answers").glob("q*.py"))


def kata_of(path: Path) -> catalog.Kata:
    return KATAS[path.name.split("__")[0]]


def source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def refused(text: str, extra: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    return [(finding.line, finding.rule) for finding in policy.check(source(text), extra)]


def test_reference_answers_and_stubs_pass_the_policy():
    for kata in KATAS.values():
        for path in (kata.solution_path(ROOT), kata.stub_path(ROOT)):
            tests = kata.test_path(ROOT)  # with the state its tests keep (tests_state)
            assert policy.check_file(path, kata.imports, kata.allow, tests) == [], path


# Correct answers in other styles kept beside the wrong ones: each must pass the policy too
# (those stored as changes import the rest from their reference, which answers may not).
CORRECT = sorted((ROOT / "tests" / "correct_answers").glob("q*.py"))


@pytest.mark.parametrize("path", HONEST + CORRECT, ids=lambda path: path.stem)
def test_honest_answers_pass_the_policy(path):
    kata = kata_of(path)
    tests = kata.test_path(ROOT)
    found = [str(f) for f in policy.check_file(path, kata.imports, kata.allow, tests)]
    reference = f"imports solutions.{kata.module} "
    assert [finding for finding in found if reference not in finding] == []


def rounds(paths: list[Path]) -> list[list[Path]]:
    """The answers split into runs that each take at most one answer per kata (a pytest run
    tests one answer file per kata): a kata's second style goes to the second run."""
    runs: list[list[Path]] = []
    for path in paths:
        taken = next((run for run in runs if all(kata_of(p) != kata_of(path) for p in run)), None)
        if taken is None:
            runs.append(taken := [])
        taken.append(path)
    return runs


def test_the_honest_answers_cover_many_katas_in_styles_of_their_own():
    katas = {kata_of(path).module for path in HONEST}
    assert len(katas) >= 30
    for path in HONEST:
        # qNN_module__style.py: the style named after the kata's module, one file per style.
        module, _, style = path.stem.partition("__")
        assert module == kata_of(path).module and style, f"{path.name}: name its style"
        assert ast.get_docstring(ast.parse(path.read_text())), f"{path.name}: say its style"
    assert sorted(p for run in rounds(HONEST) for p in run) == HONEST


# Runs thirty katas' tests in a pytest process of its own, once per round of styles: on the
# inputs as shipped and on held-out ones (grading's second run, its seed fixed here), since a
# grade needs both.
@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("seed", [0, 918273], ids=["as shipped", "held out"])
@pytest.mark.parametrize("run", rounds(HONEST), ids=lambda run: f"{len(run)} answers")
def test_honest_answers_pass_their_katas(run, seed):
    files = [arg for path in run for arg in ("--answer-file", str(path))]
    tests = [str(kata_of(path).test_path(ROOT)) for path in run]
    held_out = ["--katas-seed", str(seed)] if seed else []
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *tests, *files, *held_out, "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]


@pytest.mark.parametrize(
    "code, expected",
    [
        ("import subprocess", [(1, "import")]),
        ("import threading", [(1, "import")]),
        ("from concurrent.futures import ThreadPoolExecutor", [(1, "import")]),
        ("import os", [(1, "import")]),
        ("import unittest", [(1, "import")]),
        ("import pytest", [(1, "import")]),
        ("import torch.overrides", [(1, "import")]),
        ("from torch.utils._python_dispatch import TorchDispatchMode", [(1, "import")]),
        ("from torch import library", [(1, "import")]),
        ("import torch._dynamo", [(1, "import")]),
        ("from . import helper", [(1, "import")]),
        ("from math import *", [(1, "import")]),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_imports_outside_the_allow_list_are_refused(code, expected):
    assert set(expected) <= set(refused(code))


def test_the_modules_a_kata_adds_are_allowed_for_it_only():
    assert refused("import numpy as np", KATAS["q02_numpy_bridge"].imports) == []
    assert refused("import torch\ntorch._dynamo.explain", ("torch._dynamo",)) == []
    assert (2, "private") in refused("import torch\ntorch._dynamo.explain")
    assert refused("import torch._dynamo\nfrom torch import _dynamo", ("torch._dynamo",)) == []
    assert refused("from onnx import sys", ("onnx",)) == [(1, "module")]
    # io where a kata writes files: the builtin open is io.open.
    assert refused("open('x', 'wb')", KATAS["q28_checkpoint"].imports) == []
    assert refused("open('x', 'wb')") == [(1, "builtin")]
    # os where a kata writes files, without what starts or ends processes.
    assert refused("import os\nos.replace('a', 'b')\nos.fork()", ("os",)) == [(3, "process")]


# Kata 50 adds torch.distributed, which public_names.json does not record: its names are looked
# up on the package itself. What its modules hold of other modules (a module, a function, a
# class) is no name of its: `import_module` of torch.distributed._tensor is every module.
ADDED_REEXPORTS = {
    "import-module": (
        "from torch.distributed._tensor import import_module\ngc = import_module('g' + 'c')",
        [(1, "private")],
    ),
    "import-module-by-import": (
        "import torch.distributed._tensor as t\ngc = t.import_module('g' + 'c')",
        [(1, "private")],
    ),
    "signal": (
        "from torch.distributed.elastic.multiprocessing.api import signal\nsignal.alarm(1)",
        [(1, "module"), (2, "module")],
    ),
    "multiprocessing": (
        "from torch.distributed.elastic.multiprocessing.api import mp\n"
        "mp.get_context('fork').Process(target=print).start()",
        [(1, "module"), (2, "module")],
    ),
    "thread-pool": (
        "from torch.distributed.checkpoint.staging import ThreadPoolExecutor\n"
        "ThreadPoolExecutor().submit(print)",
        [(1, "import")],
    ),
    "private-function": (
        "import torch.distributed as dist\ndist._store_based_barrier(0, None, '', 1, None)",
        [(2, "private")],
    ),
}


@pytest.mark.parametrize("case", sorted(ADDED_REEXPORTS))
def test_what_an_added_module_holds_of_other_modules_is_refused(case):
    code, expected = ADDED_REEXPORTS[case]
    found = refused(code, KATAS["q50_data_parallel"].imports)
    assert set(expected) <= set(found), found


def test_an_added_modules_own_names_are_allowed():
    code = (
        "import torch.distributed as dist\n"
        "from torch.distributed import ReduceOp, all_reduce\n"
        "op, world = dist.ReduceOp.SUM, dist.group.WORLD\n"
        "def f(t, group: dist.ProcessGroup | None = None):\n"
        "    dist.all_reduce(t, op=op, group=group)\n"
        "    return t / dist.get_world_size(group), dist.HashStore, dist.is_initialized()"
    )
    assert refused(code, KATAS["q50_data_parallel"].imports) == []
    kata = KATAS["q50_data_parallel"]
    assert policy.check(code, kata.imports, allow=kata.allow) == []


def test_a_process_group_handed_its_store_is_allowed():
    # The stub's own way to try the collectives: a group over a HashStore in memory.
    code = (
        "import torch.distributed as dist\n"
        "dist.init_process_group('gloo', store=dist.HashStore(), rank=0, world_size=1)\n"
        "dist.init_process_group(backend='gloo', store=dist.HashStore(), rank=0, world_size=1)\n"
        "store = dist.HashStore()\n"
        "dist.init_process_group('gloo', store=store, rank=0, world_size=1)\n"
        "dist.destroy_process_group()"
    )
    kata = KATAS["q50_data_parallel"]
    assert policy.check(code, kata.imports, allow=kata.allow) == []


# What a large added package holds beyond a kata's needs: programs started, bytes the answer
# chose unpickled, files written, native code loaded. Where the kata's entry grants names of
# the module, every other name is refused, whatever it is.
BEYOND_GRANTED = {
    "q50_data_parallel": [
        "from torch.distributed.elastic.multiprocessing.subprocess_handler import "
        "SubprocessHandler",
        "from torch.distributed.elastic.multiprocessing import start_processes",
        "from torch.distributed.launcher.api import elastic_launch",
        "import torch.distributed.run as r\nr.main([])",
        "from torch.distributed.elastic.rendezvous.dynamic_rendezvous import "
        "DynamicRendezvousHandler",
        "import torch.distributed as dist\ndist.recv_object_list([None], 0)",
        "import torch.distributed as dist\ndist.broadcast_object_list([None], 0)",
        "import torch.distributed as dist\nx = dist.all_gather_object",
        "from torch.distributed import FileStore, TCPStore",
        "import torch.distributed.checkpoint as dcp\ndcp.FileSystemWriter('x')",
        "import torch.distributed as dist\ndist.breakpoint()",
        "import torch.distributed as dist\ndist.Backend.register_backend('x', print)",
        "import torch.distributed\ntorch.distributed.rendezvous('file:///x')",
        "import torch.distributed as dist\nx = getattr(dist, 'gather_object')",
        # A granted function's arguments: init_method makes a FileStore at any path (made,
        # written and deleted natively) or a TCPStore; without store= it reads env://.
        "import torch.distributed as dist\n"
        "dist.init_process_group('gloo', init_method='file:///x', rank=0, world_size=1)",
        "import torch.distributed as dist\n"
        "dist.init_process_group('gloo', 'tcp://127.0.0.1:1', rank=0, world_size=1)",
        "import torch.distributed as dist\ndist.init_process_group('gloo')",
        "import torch.distributed as dist\n"
        "def f(**kw):\n    dist.init_process_group('gloo', store=dist.HashStore(), **kw)",
        "from torch.distributed import init_process_group as ipg\nimport functools\n"
        "f = functools.partial(ipg, init_method='file:///x')",
        # store= that is no HashStore made for the call: None falls back to env:// (a TCPStore
        # listening where MASTER_ADDR and MASTER_PORT say, wherever the grader's environment
        # sets them), and a name bound to anything else can be None at run time.
        "import torch.distributed as dist\n"
        "dist.init_process_group('gloo', store=None, rank=0, world_size=1)",
        "import torch.distributed as dist\ns = None\n"
        "dist.init_process_group('gloo', store=s, rank=0, world_size=1)",
        "import torch.distributed as dist\n"
        "def f(s=None):\n    dist.init_process_group('gloo', store=s, rank=0, world_size=1)",
        "import torch.distributed as dist\n"
        "dist.init_process_group('gloo', store=dist.HashStore() if 0 else None, rank=0, "
        "world_size=1)",
    ],
    "q48_export_deploy": [
        "import onnxruntime as ort\nort.SessionOptions().register_custom_ops_library('x.so')",
        "import onnxruntime as ort\no = ort.SessionOptions()\no.enable_profiling = True",
        "import onnxruntime as ort\no = ort.SessionOptions()\no.optimized_model_filepath = 'x'",
        # Settings by key: these two keys make ONNX Runtime write a file at any path.
        "import onnxruntime as ort\no = ort.SessionOptions()\n"
        "o.add_session_config_entry('session.collect_node_memory_stats_to_file', '/x')",
        "import onnxruntime as ort\no = ort.SessionOptions()\n"
        "getattr(o, 'add_session_config_entry')('session.node_partition_config_file', '/x')",
        "import onnxruntime as ort\nx = ort.capi",
        "from onnxruntime.capi import _pybind_state",
        "import onnx\nonnx.reference.ReferenceEvaluator",
        "from onnx import hub\nhub.load('x')",
    ],
}


@pytest.mark.parametrize(
    "module, code", [(m, c) for m, codes in BEYOND_GRANTED.items() for c in codes]
)
def test_an_added_module_gives_only_the_names_its_kata_grants(module, code):
    kata = KATAS[module]
    assert policy.check(code, kata.imports, allow=kata.allow) != [], code


def test_every_added_module_the_data_does_not_record_grants_its_names():
    # Without granted names, a module the data does not record gives every public name it
    # holds: a kata that adds one says which of its names answers use.
    for kata in KATAS.values():
        for module in policy.unrecorded(kata.imports):
            granted = [a for a in kata.allow if policy.within(a, module)]
            assert granted, (kata.module, module)
            for name in granted:  # each one there, under that name
                owner, _, last = name.rpartition(".")
                assert hasattr(importlib.import_module(owner), last), name


def test_what_an_added_module_holds_is_judged_by_where_it_was_made(tmp_path, monkeypatch):
    # Numbers, dtypes and torch's own layers are data; a module's implementation package
    # (_pytest for pytest) is the module's own; a table is judged by what it holds.
    (tmp_path / "added_tables.py").write_text(
        "import importlib\nimport torch\n"
        "DTYPES = (torch.float32, 1, 'one')\n"
        "LAYERS = {'relu': torch.nn.ReLU, 'stack': torch.nn.Sequential()}\n"
        "LOADERS = {'load': importlib.import_module}\n"
    )
    monkeypatch.syspath_prepend(tmp_path)
    added = ("added_tables",)
    assert refused("import added_tables as t\nx = t.DTYPES, t.LAYERS", added) == []
    assert (2, "name") in refused("import added_tables as t\ngc = t.LOADERS['load']('gc')", added)
    code = "import pytest\nchecks = pytest.mark.parametrize, pytest.approx, pytest.raises"
    assert refused(code, ("pytest",)) == []


TAMPERING = {
    "patch-module": ("import torch\ntorch.isclose = lambda *a, **k: True", [(2, "patch")]),
    "patch-alias": ("import torch\nt = torch\nt.equal = print", [(3, "patch")]),
    "patch-loop": (
        "import torch\nimport torch.nn.functional as F\nfor m in (torch, F):\n    m.relu = abs",
        [(4, "patch")],
    ),
    "patch-class": (
        "from torch import nn\nnn.Module.__call__ = print",
        [(2, "patch")],
    ),
    "patch-through-class": ("def f(t):\n    t.__class__.add = print", [(2, "patch")]),
    "patch-through-type": ("def f(t):\n    type(t).add = print", [(2, "patch")]),
    "setattr-module": ("import torch\nsetattr(torch, 'equal', print)", [(2, "patch")]),
    "setattr-computed": ("def f(o, n):\n    setattr(o, n, 1)", [(2, "attribute-by-name")]),
    "getattr-computed": ("def f(o, n):\n    return getattr(o, n)", [(2, "attribute-by-name")]),
    "getattr-dunder": ("def f(e):\n    return getattr(e, '__traceback__')", [(2, "dunder")]),
    "getattr-alias": ("g = getattr", [(1, "builtin")]),
    # Handed on, even with a literal name, the builtin is called where the policy does not
    # look, with whatever arguments the callee gives it; a function of the answer's own that
    # assigns the attribute, handed on instead, passes (an honest answer to kata 8 does so).
    "setattr-handed-to-a-callback": (
        "import contextlib\ndef f(m):\n    with contextlib.ExitStack() as s:\n"
        "        s.callback(setattr, m, 'training', True)",
        [(4, "builtin")],
    ),
    "getattr-in-a-partial": (
        "import functools\ndef f(x):\n    return functools.partial(getattr, x, 'shape')",
        [(3, "builtin")],
    ),
    "traceback": (
        "def f():\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n"
        "        return e.__traceback__.tb_frame.f_back",
        [(5, "dunder"), (5, "frame"), (5, "frame")],
    ),
    "generator-frame": ("g = (i for i in [])\nframe = g.gi_frame", [(2, "frame")]),
    "globals": ("def f():\n    return globals()", [(2, "builtin")]),
    "eval": ("x = eval('1')", [(1, "builtin")]),
    "exec-alias": ("run = exec", [(1, "builtin")]),
    "dunder-import": ("m = __import__('os')", [(1, "builtin")]),
    "file": ("where = __file__", [(1, "name")]),
    "builtins": ("b = __builtins__", [(1, "name")]),
    "keyboard-interrupt": ("def f():\n    raise KeyboardInterrupt", [(2, "raise")]),
    "system-exit": ("def f():\n    raise SystemExit(0)", [(2, "raise")]),
    "interrupt-alias": ("stop = KeyboardInterrupt", [(1, "raise")]),
    "base-subclass": ("class Stop(BaseException):\n    pass", [(1, "raise")]),
    "exit": ("exit()", [(1, "builtin")]),
    "torch-function": (
        "import torch\nclass T(torch.Tensor):\n    def __torch_function__(cls, *a):\n        pass",
        [(3, "definition")],
    ),
    "torch-function-attribute": (
        "import torch\nclass T(torch.Tensor):\n    __torch_function__ = None",
        [(3, "name")],
    ),
    "torch-dispatch": (
        "class T:\n    def __torch_dispatch__(cls, *a):\n        pass",
        [(2, "definition")],
    ),
    "getattr-hook": (
        "class T:\n    def __getattr__(self, name):\n        pass",
        [(2, "definition")],
    ),
    "test-hook": (
        "class T:\n    @property\n    def __test__(self):\n        pass",
        [(3, "definition")],
    ),
    "del-hook": ("class T:\n    def __del__(self):\n        pass", [(2, "definition")]),
    "always-equal": (
        "class T:\n    def __eq__(self, other):\n        return True",
        [(2, "definition")],
    ),
    "dynamic-class": ("T = type('T', (), {})", [(1, "builtin")]),
    "private-torch": (
        "import torch\nf = torch._C._nn.cross_entropy_loss",
        [(2, "private"), (2, "private")],
    ),
    "torch-ops": ("import torch\nf = torch.ops.aten.log_softmax", [(2, "name")]),
    "torch-library": (
        "import torch\nlib = torch.library.Library",
        [(2, "name")],
    ),
    "global-hook": (
        "from torch import nn\nnn.modules.module.register_module_forward_hook(print)",
        [(2, "attribute")],
    ),
    "from-file": ("import torch\nt = torch.from_file('x')", [(2, "attribute")]),
    "string-annotation": ("def f(x: \"__import__('os')\"):\n    pass", [(1, "builtin")]),
    "dunder-dict": ("import torch\nd = torch.__dict__", [(2, "dunder")]),
    "subclasses": ("s = object.__subclasses__()", [(1, "dunder")]),
}


@pytest.mark.parametrize("case", sorted(TAMPERING))
def test_tampering_constructs_are_refused(case):
    code, expected = TAMPERING[case]
    assert set(expected) <= set(refused(code))


def test_findings_name_the_line_and_the_rule():
    (finding,) = policy.check("import torch\n\n\ntorch.isclose = max\n")
    assert str(finding) == (
        "line 4: assigns to torch.isclose, an attribute of a module or class (patch)"
    )


def test_the_answers_own_names_are_not_builtins():
    # A parameter called input is not the builtin input; a class attribute called eval does
    # not hide the builtin from the class's methods.
    assert refused("def loss(input, target):\n    return input - target") == []
    code = "class A:\n    eval = 1\n    def m(self):\n        return eval('1')"
    assert refused(code) == [(4, "builtin")]
    # Catching a BaseException to clean up, and raising it again, is fine.
    code = "def save():\n    try:\n        pass\n    except BaseException:\n        raise"
    assert refused(code) == []


def test_honest_idioms_are_allowed():
    code = """
        import torch
        from torch import nn


        class Net(nn.Module):
            __slots__ = ()

            def __init__(self) -> None:
                super().__init__()
                self._hidden = nn.Linear(2, 2)
                self.fc = nn.Linear(2, 1)

            def __repr__(self) -> str:
                return type(self).__name__ + self.__class__.__qualname__

            def forward(self, x):
                setattr(self, "calls", getattr(self, "calls", 0) + 1)
                return self.fc(torch.relu(self._hidden(x)))


        def tie(model, head):
            head.weight = model.fc.weight  # an attribute of an argument, not of a module
            params = [p for p in model.parameters()]
            params[0].grad = None
            for layer in model.modules():
                layer.training = False
            if __name__ == "__main__":
                print(torch.__version__)
    """
    assert refused(code) == []


def test_katas_review_runs_the_policy_alone(tmp_path, capsys):
    answer = tmp_path / "q13_cross_entropy.py"
    answer.write_text("import torch\nimport threading\n\ntorch.isclose = max\n")
    assert cli.main(["--root", str(ROOT), "review", str(answer)]) == 1
    output = capsys.readouterr().out
    assert f"{answer}:2: imports threading" in output
    assert f"{answer}:4: assigns to torch.isclose" in output
    assert (
        cli.main(
            ["--root", str(ROOT), "review", str(KATAS["q02_numpy_bridge"].solution_path(ROOT))]
        )
        == 0
    )
    assert "nothing the policy refuses" in capsys.readouterr().out


# Ways to reach the grader, the tests' comparisons or the reference answers from an answer,
# each with the rule that refuses it and, where it matters, the kata whose entry it is read
# for (the modules and file APIs that kata adds do not open the way).
ATTACKS = {
    # Modules reached as attributes of allowed ones, by name, string or call.
    "gc-through-torch-sys": ("import torch\ngc = torch.sys.modules['gc']", "module"),
    "torch-os-kill": ("import torch\ntorch.os.kill(torch.os.getppid(), 19)", "module"),
    "torch-builtins": ("import torch\ntorch.builtins.eval('1')", "module"),
    "from-torch-import-sys": ("from torch import sys", "import"),
    "logging-sys": ("import logging\nm = logging.sys.modules", "module"),
    "nested-reexport": ("import torch\nm = torch.nn.modules.module.sys", "module"),
    "getattr-literal-sys": ("import torch\nm = getattr(torch, 'sys')", "module"),
    "getattr-default-sys": ("import torch\nm = getattr(torch, 'sys', None)", "module"),
    "getattr-default-submodule": (
        "import torch\nm = getattr(torch, 'serialization', None)",
        "module",
    ),
    "update-wrapper-by-name": (
        "import functools\nimport torch.nn.functional as F\ndef f(fake, name):\n"
        "    functools.update_wrapper(F.relu, fake, assigned=(name,))",
        "attribute-by-name",
    ),
    "log-record-factory": ("import logging\nlogging.setLogRecordFactory(print)", "attribute"),
    "numpy-error-callback": ("import numpy as np\nnp.seterrcall(print)", "attribute"),
    "getattr-of-a-package": (
        "import torch\nm = getattr(torch, 'utils')\nm.cpp_extension.load_inline('x', '')",
        "module",
    ),
    "getattr-computed": (
        "import torch\nm = getattr(torch, 's' + str(len('ys')))",
        "attribute-by-name",
    ),
    # Literal pieces joined: each name the join can make meets the rules of its literal.
    "getattr-joined-literals": ("import torch\nm = getattr(torch, 's' + 'ys')", "module"),
    "getattr-f-string-of-literals": (
        "import torch\ndef f(c):\n    return getattr(torch, f\"{'_' if c else 'x'}C\")",
        "private",
    ),
    "getattr-f-string-with-a-conversion": (
        "import torch\nm = getattr(torch, f\"{'_C'!s}\")",
        "attribute-by-name",
    ),
    "reduce-getattr": (
        "import functools, torch\nm = functools.reduce(getattr, ['sys', 'modules'], torch)",
        "builtin",
    ),
    "attrgetter": (
        "import operator, torch\nm = operator.attrgetter('sys.modules')(torch)",
        "module",
    ),
    "attrgetter-computed": (
        "import operator\ndef f(o, n):\n    return operator.attrgetter(n)(o)",
        "attribute-by-name",
    ),
    "attrgetter-alias": ("from operator import attrgetter\ng = attrgetter", "builtin"),
    "methodcaller-dunder": (
        "import operator\nf = operator.methodcaller('__subclasses__')",
        "dunder",
    ),
    "module-in-a-list": ("import torch\nm = [torch][0]\nm.sys", "module"),
    "module-from-a-lambda": ("import torch\nm = (lambda: torch)()\nx = m.sys", "module"),
    "module-in-a-loop": ("import torch\nfor m in [torch]:\n    m.sys", "module"),
    "private-of-a-call-result": (
        "import collections\nm = (lambda: collections)()\nx = m._sys",
        "private",
    ),
    "private-named-after-the-interpreter": ("def f(o):\n    return o._getframe", "private"),
    "private-of-an-imported-class": ("from torch import nn\nf = nn.Module._apply", "private"),
    "import-in-a-function": ("def f():\n    import gc\n    return gc", "import"),
    "pytest-as-attribute": ("def f(x):\n    return x.pytest", "module"),
    "weakref-as-attribute": ("def f(m):\n    return m.weakref", "module"),
    "module-name-in-a-string": ("x = 'builtins'", "string"),
    # Dunder names and frame attributes spelled as strings.
    # getattr(x, "__class__") is x.__class__, a class of the tests' to write to.
    "getattr-class-then-patch": (
        "def f(x):\n    c = getattr(x, '__class__')\n    c.foo = 1",
        "patch",
    ),
    "dunder-string": ("def f(x):\n    return x.__dict__ if 0 else '__globals__'", "string"),
    "globals-string": ("def f(fn):\n    return getattr(fn, '__globals__')", "dunder"),
    "format-field-dunder": ("def f(fn):\n    return '{0.__globals__}'.format(fn)", "dunder"),
    "format-field-frame": ("def f(g):\n    return '{0.gi_frame.f_back}'.format(g)", "frame"),
    "match-reads-a-dunder": (
        "def f(fn):\n    match fn:\n        case object(__globals__=g):\n            return g",
        "dunder",
    ),
    "match-reads-a-frame": (
        "def f(g):\n    match g:\n        case object(gi_frame=f):\n            return f",
        "frame",
    ),
    "frame-by-name": ("def f(g):\n    return g.gi_frame", "frame"),
    "cell-contents": ("def f(fn):\n    return fn.cell_contents", "frame"),
    "frame-as-string": ("import operator\nf = operator.attrgetter('f_back')", "frame"),
    "exception-chain-to-frames": ("def f(e):\n    return e.__cause__.__traceback__", "dunder"),
    "super-setattr": ("class A:\n    def f(self):\n        super().__setattr__('x', 1)", "dunder"),
    # Classes made or changed at their creation.
    "type-three-arguments": ("T = type('T', (object,), {'x': 1})", "builtin"),
    "type-alias": ("t = type\nT = t('T', (), {})", "builtin"),
    "type-subclass": ("class Meta(type):\n    pass", "builtin"),
    "metaclass-keyword": ("import abc\nclass A(metaclass=abc.ABCMeta):\n    pass", "class"),
    "metaclass-call": ("import abc\nA = abc.ABCMeta('A', (), {})", "class"),
    "enum-metaclass": ("import enum\nM = enum.EnumMeta", "class"),
    "init-subclass": (
        "class A:\n    def __init_subclass__(cls, **kw):\n        pass",
        "definition",
    ),
    "class-keywords-unpacked": ("class A(dict, **options):\n    pass", "class"),
    "set-name": (
        "class D:\n    def __set_name__(self, owner, name):\n        owner.x = 1",
        "definition",
    ),
    "bool-always-true": ("class Yes:\n    def __bool__(self):\n        return True", "definition"),
    "sub-always-zero": ("class Z:\n    def __sub__(self, other):\n        return 0", "definition"),
    # Attribute writes on what the answer did not make.
    "class-through-type": ("def f(layer):\n    cls = type(layer)\n    cls.weight = None", "patch"),
    "forward-of-an-argument": ("def f(act):\n    act.forward = lambda self, x: x", "patch"),
    "isclose-of-an-argument": ("def f(m):\n    m.isclose = lambda *a, **k: True", "patch"),
    "step-of-an-optimizer": ("def f(opt):\n    opt.step = lambda: None", "patch"),
    "call-result": ("def f(g):\n    g().equal = print", "patch"),
    "setattr-forward": ("def f(model):\n    setattr(model, 'forward', print)", "patch"),
    "setattr-computed-on-self": (
        "class A:\n    def __init__(self, **kw):\n        for k, v in kw.items():\n"
        "            setattr(self, k, v)",
        "attribute-by-name",
    ),
    "module-setting": ("import warnings\nwarnings.showwarning = print", "patch"),
    "class-attribute": ("from torch import nn\nnn.Linear.weight = None", "patch"),
    # Files and processes.
    "torch-from-file": (
        "import torch\nt = torch.from_file('solutions/q13_cross_entropy.py', size=10)",
        "attribute",
    ),
    "storage-from-file": (
        "import torch\ns = torch.UntypedStorage.from_file('x', False, 9)",
        "attribute",
    ),
    # A profile's results write their trace natively, where no audit event sees it: any path.
    "profile-results-saved": (
        "import torch\nwith torch.autograd.profiler.profile() as prof:\n    torch.ones(1)\n"
        "prof.kineto_results.save('/tmp/report.md')",
        "name",
    ),
    "profiler-imported": ("from torch.autograd import profiler_legacy", "import"),
    "profiler-util-imported": ("import torch.autograd.profiler_util", "import"),
    "cuda-profiler": ("import torch\nwith torch.cuda.profiler.profile():\n    pass", "name"),
    "mps-profiler": ("from torch.mps import profiler", "import"),
    "torch-load": ("import torch\nx = torch.load('solutions/x.pt')", "file"),
    "torch-save": ("import torch\ntorch.save({}, 'x.pt')", "file"),
    "from-torch-import-load": ("from torch import load", "import"),
    "np-load": ("import numpy as np\nx = np.load('x.npy')", "file"),
    "np-fromfile": ("import numpy as np\nx = np.fromfile('solutions/q01_fit_line.py')", "file"),
    "ndarray-tofile": ("def f(a):\n    a.tofile('x')", "attribute"),
    "logging-file-handler": ("import logging\nh = logging.FileHandler('report.md')", "file"),
    "logging-basic-config-file": ("import logging\nlogging.basicConfig(filename='r.md')", "file"),
    "logging-config": ("import logging.config", "import"),
    "contextlib-chdir": ("import contextlib\nwith contextlib.chdir('/'):\n    pass", "attribute"),
    "get-type-hints": ("import typing\nh = typing.get_type_hints", "attribute"),
    "load-library": ("import torch\ntorch.classes.load_library('x.so')", "attribute"),
    "pluggable-allocator": (
        "import torch\nf = torch.cuda.memory.CUDAPluggableAllocator('./x.so', 'a', 'f')",
        "attribute",
    ),
    "os-system-as-callback": (
        "import os\nfrom torch.utils.data import DataLoader\n"
        "def f(ds):\n    return DataLoader(ds, collate_fn=os.system)",
        "process",
        "q28_checkpoint",
    ),
    "from-os-import-system": ("from os import system", "import", "q28_checkpoint"),
    "os-kill-parent": ("import os\nos.kill(os.getppid(), 19)", "process", "q28_checkpoint"),
    "os-environ": ("import os\nos.environ['PYTHONPATH'] = '.'", "process", "q28_checkpoint"),
    # The same environment in bytes: PATH and LD_PRELOAD of the compiler torch.compile starts.
    "os-environb": ("import os\nos.environb[b'PATH'] = b'.'", "process", "q28_checkpoint"),
    "os-environb-alias": (
        "import os\nenv = os.environb\nenv[b'LD_PRELOAD'] = b'x.so'",
        "process",
        "q48_export_deploy",
    ),
    "np-load-where-torch-save-is-allowed": (
        "import numpy as np\nx = np.load('x.npy')",
        "file",
        "q28_checkpoint",
    ),
    # Private and unrecorded parts of torch and NumPy.
    "private-torch-import": ("import torch.utils._python_dispatch", "import"),
    "private-torch-attribute": ("import torch\nx = torch._C", "private"),
    "private-pytree-reexport": ("import torch.utils._pytree as p\nx = p.sys", "module"),
    "private-pytree-name": ("from torch.utils._pytree import _private_thing", "import"),
    "fx-experimental": ("import torch.fx.experimental", "import"),
    "torch-jit-fork": ("import torch\nf = torch.jit.fork", "module"),
    "torch-hub": ("import torch\ntorch.hub.load('a', 'b')", "name"),
    "np-ctypeslib": ("import numpy as np\nx = np.ctypeslib", "attribute"),
    "np-f2py": ("import numpy.f2py", "import"),
    "np-testing": ("import numpy.testing", "import"),
    "name-newer-than-the-data": ("import torch\nx = torch.newmodule.thing", "name"),
    # Classes reached through type(x).mro(), dunder and private writes, subclasses that lie.
    "class-through-mro": ("def f(x):\n    c = type(x).mro()[1]\n    c.weight = None", "patch"),
    "class-through-dunder-mro": (
        "class A:\n    pass\ndef f(x):\n    A.__mro__[0].weight = None",
        "patch",
    ),
    "class-of-an-argument": ("def f(model, M):\n    model.__class__ = M", "patch"),
    "private-of-an-argument": ("def f(model):\n    model._forward_hooks = {}", "patch"),
    "tensor-subclass": (
        "import torch\nclass T(torch.Tensor):\n    def allclose(self, *a, **k):\n"
        "        return True",
        "class",
    ),
    "ndarray-subclass": ("import numpy as np\nclass A(np.ndarray):\n    pass", "class"),
    "abc-register": ("import numbers\nclass X:\n    pass\nnumbers.Real.register(X)", "patch"),
    "current-frame": ("import logging\nf = logging.currentframe()", "attribute"),
    # Where code is: the file that called the answer tells a check's call from a caller's.
    "find-caller": (
        "import logging\ndef f(x):\n    return logging.getLogger().findCaller(False, 2)[0]",
        "location",
    ),
    "warning-raised-up-the-stack": (
        "import warnings\ndef f(x):\n    with warnings.catch_warnings(record=True) as seen:\n"
        "        warnings.simplefilter('always')\n        warnings.warn('where', stacklevel=3)\n"
        "    return 'facets' in seen[0].filename",
        "location",
    ),
    # Raised up the stack and read back by other means than a record's fields.
    "warning-text-up-the-stack": (
        "import warnings\ndef f(x):\n    with warnings.catch_warnings(record=True) as seen:\n"
        "        warnings.simplefilter('always')\n        warnings.warn('where', UserWarning, 3)\n"
        "    return 'facets' in str(seen[0])",
        "location",
    ),
    "warning-line-on-redirected-stderr": (
        "import contextlib\nimport warnings\nclass Sink:\n    text = ''\n"
        "    def write(self, s):\n        self.text += s\n"
        "def f(x):\n    sink = Sink()\n    with contextlib.redirect_stderr(sink):\n"
        "        warnings.warn('where', stacklevel=3)\n    return 'facets' in sink.text",
        "location",
    ),
    "log-record-module-up-the-stack": (
        "import logging\nclass Keep(logging.Handler):\n    def emit(self, record):\n"
        "        self.seen = record.module\n"
        "def f(x):\n    keep = Keep()\n    logging.getLogger(__name__).addHandler(keep)\n"
        "    logging.getLogger(__name__).warning('where', stacklevel=3)\n"
        "    return keep.seen == 'facets'",
        "location",
    ),
    "log-filter-appended-up-the-stack": (
        "import logging\ndef f(x):\n    seen = []\n"
        "    logging.getLogger(__name__).filters.append(lambda r: seen.append(r.module))\n"
        "    logging.getLogger(__name__).warning('where', stacklevel=3)\n"
        "    return seen == ['facets']",
        "location",
    ),
    "log-format-module": ("import logging\nform = logging.Formatter('%(module)s')", "location"),
    "warning-place-by-name": ("def f(w):\n    return getattr(w, 'lineno')", "location"),
    "log-format-place": ("import logging\nform = logging.Formatter('%(pathname)s')", "location"),
    "log-format-place-braces": (
        "import logging\nform = logging.Formatter('{funcName}', style='{')",
        "location",
    ),
    "ndarray-dump": ("def f(a):\n    a.dump('x')", "attribute"),
    # Code generated or loaded by torch from what the answer chooses.
    "fx-symbolic-trace": ("import torch\ng = torch.fx.symbolic_trace", "name"),
    "fx-graph-module-importer": (
        "import torch.fx\nm = torch.fx.graph_module.sys_importer",
        "attribute",
    ),
    "compiler-load-config": ("import torch\ntorch.compiler.config.load_config(b'')", "attribute"),
    "compiled-function": ("import torch\nf = torch.compiler.load_compiled_function", "attribute"),
    "file-reader": ("import torch\nr = torch.PyTorchFileReader('x.pt')", "attribute"),
    "method-taken-from-its-class": (
        "class H:\n    def patch(self):\n        self.forward = lambda x: x\n"
        "def f(model):\n    H.patch(model)",
        "patch",
    ),
    "static-method-parameter": (
        "class H:\n    @staticmethod\n    def patch(model):\n        model.forward = print\n"
        "H().patch(1)",
        "patch",
    ),
    "method-mapped-over-objects": (
        "class H:\n    def patch(self):\n        self.step = None\n"
        "def f(opts):\n    list(map(H.patch, opts))",
        "patch",
    ),
    "name-from-a-match": (
        "from torch import nn\ndef f(x):\n    m = nn.Linear(1, 1)\n    match x:\n"
        "        case [m]:\n            m.forward = print",
        "patch",
    ),
    # Builtins and the __main__ block.
    "help": ("help(print)", "builtin"),
    "name-rebound": ("__name__ = '__main__'", "name"),
    "main-block-with-else": (
        "if __name__ == '__main__':\n    pass\nelse:\n    import subprocess",
        "import",
    ),
    # Classes from a mapping built at run time: its keys can be any dunder.
    "make-dataclass-namespace": (
        "import dataclasses\nD = '_' * 2\n"
        "C = dataclasses.make_dataclass('C', [], namespace={D + 'eq' + D: lambda s, o: True})",
        "attribute",
    ),
    "make-dataclass-imported": (
        "from dataclasses import make_dataclass as m\nC = m('C', [])",
        "attribute",
    ),
    "make-dataclass-dunder-field": (
        "import dataclasses\nD = '_' * 2\n"
        "C = dataclasses.make_dataclass('C', [(D + 'eq' + D, object, dataclasses.field())])",
        "attribute",
    ),
    "types-new-class": (
        "import dataclasses\nnew = dataclasses.types.new_class",
        "attribute",
    ),
    "enum-functional": (
        "import enum\nD = '_' * 2\nE = enum.Enum('E', [('A', 0), (D + 'eq' + D, print)])",
        "class",
    ),
    "enum-functional-names": (
        "from enum import IntEnum\ndef f(members):\n    return IntEnum('E', names=members)",
        "class",
    ),
    "enum-functional-own": (
        "import enum\nclass Base(enum.Enum):\n    pass\nE = Base('E', [('A', 1), *[]])",
        "class",
    ),
    "enum-functional-literal-dunder": ("import enum\nE = enum.Enum('E', '__eq__ A')", "class"),
    # torch's modes, wherever re-exported: a subclass sees every operation.
    "dispatch-mode": (
        "from torch.autograd.graph import TorchDispatchMode\nclass M(TorchDispatchMode):\n    pass",
        "class",
    ),
    "dispatch-mode-checkpoint": (
        "import torch.utils.checkpoint as c\nclass M(c.TorchDispatchMode):\n    pass",
        "class",
    ),
    "dispatch-mode-through-an-alias": (
        "import torch.utils.checkpoint as c\nM = c.TorchDispatchMode\nclass S(M):\n    pass",
        "class",
    ),
    "function-mode": (
        "from torch.overrides import TorchFunctionMode\nclass M(TorchFunctionMode):\n    pass",
        "import",
    ),
    # Global registries the tests' objects go through.
    "copy-dispatch-table": (
        "import copy\nfrom torch import nn\ncopy.dispatch_table[nn.Linear] = print",
        "attribute",
    ),
    "add-safe-globals": (
        "import torch\ntorch.serialization.add_safe_globals([print])",
        "attribute",
    ),
    "register-dataclass": ("import torch\ntorch.export.register_dataclass(int)", "attribute"),
    "register-kl": ("from torch.distributions import register_kl", "attribute"),
    # A name computed at run time reaches anything: a literal name is the way.
    "getattr-nn-init-computed": (
        "from torch import nn\ndef f(t, name):\n    getattr(nn.init, name)(t)",
        "attribute-by-name",
    ),
    "numpy-as-strided": (
        "import numpy as np\nf = np.lib.stride_tricks.as_strided",
        "name",
    ),
    "frozen-setattr-other-field": (
        "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass C:\n    a: int\n"
        "    def __post_init__(self):\n        object.__setattr__(self, 'b', 1)",
        "dunder",
    ),
    "setattr-dunder-outside-post-init": (
        "def f(x):\n    object.__setattr__(x, 'a', 1)",
        "dunder",
    ),
    # Names built at run time: on the answer's own object only from a literal start that no
    # private or dunder name has; on anything else never.
    "getattr-self-name-from-a-variable": (
        "class M:\n    def f(self):\n        n = '__cl' + 'ass__'\n        return getattr(self, n)",
        "attribute-by-name",
    ),
    "getattr-self-underscore-start": (
        "class M:\n    def f(self, n):\n        return getattr(self, '_' + f'_{n}')",
        "attribute-by-name",
    ),
    "getattr-self-start-computed": (
        "class M:\n    def f(self, n):\n        return getattr(self, f'{n}fc')",
        "attribute-by-name",
    ),
    "getattr-module-with-a-built-name": (
        "import torch\ndef f(n):\n    return getattr(torch, f'from_{n}')",
        "attribute-by-name",
    ),
    "sys-modules": ("import sys\nm = sys.modules", "name"),
    "from-sys-import-modules": ("from sys import modules", "import"),
    "sys-recursion-limit": ("import sys\nsys.setrecursionlimit(10**6)", "name"),
    "sys-exit": ("import sys\nsys.exit(0)", "name"),
    "sys-stream-replaced": ("import sys\nsys.stdout = None", "patch"),
    # Global registries by their names, in every form (see also test_every_form_of_a_name...).
    "optimizer-step-hook": (
        "from torch.optim.optimizer import register_optimizer_step_pre_hook as h",
        "attribute",
    ),
    "saved-tensors-hooks-entered": (
        "import torch\ntorch.autograd.graph.saved_tensors_hooks(abs, abs).__enter__()",
        "attribute",
    ),
    "builtins-imported-by-name": ("from torch import __builtins__ as b\nb['exec']('')", "dunder"),
    "dunder-bound-by-import": ("from torch import nn as __builtins__", "name"),
    # Tables of names: only a module-level literal that nothing changes is read as its values.
    "name-table-changed": (
        "from torch import nn\nN = {'a': 'ReLU'}\ndef f(k):\n    N[k] = 'sys'\n"
        "    return getattr(nn, N[k])",
        "attribute-by-name",
    ),
    "name-table-handed-on": (
        "from torch import nn\nN = ['ReLU']\ndef g(t):\n    t[0] = 'sys'\n"
        "def f():\n    g(N)\n    return getattr(nn, N[0])",
        "attribute-by-name",
    ),
    "name-table-changed-by-a-method": (
        "from torch import nn\nN = ['ReLU']\ndef f():\n    N.append('sys')\n"
        "    return [getattr(nn, n) for n in N]",
        "attribute-by-name",
    ),
    "name-table-on-the-left-of-in": (
        "from torch import nn\nN = ['ReLU']\ndef f(box):\n    if N in box:\n"
        "        return getattr(nn, N[0])",
        "attribute-by-name",
    ),
    "name-table-read-by-a-rebound-builtin": (
        "from torch import nn\nN = ['ReLU']\ndef sorted(t):\n    t[0] = 'sys'\n"
        "def f():\n    sorted(N)\n    return getattr(nn, N[0])",
        "attribute-by-name",
    ),
    "name-choice-with-a-computed-branch": (
        "import torch\ndef f(c, n):\n    return getattr(torch, 'float16' if c else n)",
        "attribute-by-name",
    ),
    "name-table-get-with-a-computed-default": (
        "import torch\nN = {'a': 'relu'}\ndef f(k, d):\n    return getattr(torch, N.get(k, d))",
        "attribute-by-name",
    ),
    "name-loop-rebound-by-a-second-generator": (
        "import torch\nX = [getattr(torch, n) for n in ('float16',) for n in ('_C', 'sys')]",
        "attribute-by-name",
    ),
    "name-loop-rebound-by-a-lambda-in-the-comprehension": (
        "import torch\nX = [lambda n: getattr(torch, n) for n in ('float16',)]",
        "attribute-by-name",
    ),
    "name-loop-of-one-comprehension-read-in-another": (
        "import torch\nX = [n for n in ('float16',)]\ndef f(n):\n    return getattr(torch, n)",
        "attribute-by-name",
    ),
    "literal-with-a-value-built-at-run-time": (
        "from typing import Literal\ndef f(x, r: Literal[x] = 1) -> None:\n    pass",
        "annotation",
    ),
    # string.Formatter reads attributes named in templates built at run time; uuid1 and
    # getnode may run a program for the hardware address.
    "string-formatter": (
        "import string\ndef f(t, x):\n    return string.Formatter().vformat(t, (x,), {})",
        "name",
    ),
    "uuid-getnode": ("from uuid import getnode\nx = getnode()", "import"),
    "uuid1": ("import uuid\nx = uuid.uuid1()", "name"),
    "name-table-rebound": (
        "from torch import nn\nN = ('ReLU',)\nN = ('sys',)\nm = getattr(nn, N[0])",
        "attribute-by-name",
    ),
    "name-table-holds-a-refused-name": (
        "from torch.nn.modules import module\nN = ('register_module_forward_hook',)\n"
        "f = getattr(module, N[0])",
        "attribute",
    ),
    # A table, a local table or a template name bound again in any other way (a match pattern,
    # `except ... as`, a parameter of the same name in another function) holds anything.
    "name-table-rebound-by-a-match-capture": (
        "import torch\nN = ('training',)\nmatch ['for' + 'wards']:\n    case N:\n        pass\n"
        "def f(model):\n    setattr(model, N[0], 0)",
        "attribute-by-name",
    ),
    "name-table-rebound-by-a-match-star": (
        "import torch\nN = ('training',)\nmatch ['sys']:\n    case [*N]:\n        pass\n"
        "m = getattr(torch, N[0])",
        "attribute-by-name",
    ),
    "name-table-rebound-by-a-match-mapping-rest": (
        "import torch\nN = ('training',)\nmatch {0: 'sys'}:\n    case {**N}:\n        pass\n"
        "m = getattr(torch, N[0])",
        "attribute-by-name",
    ),
    "name-table-shadowed-by-except-as": (
        "N = ('weight',)\nclass P(Exception):\n    def __getitem__(self, i):\n"
        "        return 'for' + 'wards'\ndef f(model):\n    try:\n        raise P\n"
        "    except P as N:\n        setattr(model, N[0], 0)",
        "attribute-by-name",
    ),
    "local-table-name-is-a-parameter-elsewhere": (
        "def layout(model):\n    kinds = {'weight': 0}\n    return [kinds[k] for k in kinds]\n"
        "def settle(model, kinds):\n    for entry in kinds:\n        setattr(model, entry, 0)\n"
        "def f(model):\n    settle(model, ['for' + 'wards'])",
        "attribute-by-name",
    ),
    "local-table-rebound-by-a-match-capture": (
        "def f(model):\n    kinds = {'weight': 0}\n    match ['for' + 'wards']:\n"
        "        case kinds:\n            pass\n    for entry in kinds:\n"
        "        setattr(model, entry, 0)",
        "attribute-by-name",
    ),
    "template-rebound-by-a-match-capture": (
        "def f(x, t0):\n    t = '{0}'\n    match [t0]:\n        case [t]:\n            pass\n"
        "    return t.format(x)",
        "string",
    ),
    "class-template-rebound-by-a-match-capture": (
        "class C:\n    TEMPLATE = '{0}'\n    match ['{0.x}']:\n        case [TEMPLATE]:\n"
        "            pass\n    def show(self, x):\n        return self.TEMPLATE.format(x)",
        "string",
    ),
    # Literal[...] holds values only while the name is typing's: `Literal = List` makes the
    # strings forward references that typing evaluates (singledispatch's register).
    "literal-rebound-to-a-generic": (
        "from typing import List, Literal\nLiteral = List\n"
        "def f(x: Literal['print(1)']):\n    pass",
        "annotation",
    ),
    "literal-rebound-by-a-match-capture": (
        "from typing import List, Literal\nmatch List:\n    case Literal:\n        pass\n"
        "def f(x: Literal['print(1)']):\n    pass",
        "annotation",
    ),
    # A module or class body hides a builtin only once a statement that always binds the name
    # has run: a def under an `if`, deleted, bound through `global`, or called before its def
    # leaves the builtin (kata 34's counter of forward passes was changed through it).
    "builtin-name-defined-under-an-if": (
        "import re\nif not callable(re.sub):\n    def setattr(o, n, v):\n        pass\n"
        "def f(model, n):\n    setattr(model, 'for' + n, 1)",
        "attribute-by-name",
    ),
    "builtin-name-defined-then-deleted": (
        "def setattr(o, n, v):\n    pass\ndel setattr\ndef f(model, n):\n    setattr(model, n, 1)",
        "attribute-by-name",
    ),
    "builtin-name-bound-through-global": (
        "def f(model, n):\n    global setattr\n    if not n:\n        setattr = print\n"
        "    setattr(model, n, 1)",
        "attribute-by-name",
    ),
    "builtin-name-used-before-its-def": (
        "def f(model, n):\n    setattr(model, n, 1)\nf(object(), 'x')\n"
        "def setattr(o, n, v):\n    pass",
        "attribute-by-name",
    ),
    "builtin-name-in-a-class-body-under-a-try": (
        "class C:\n    try:\n        def getattr(self, o, n):\n            pass\n"
        "    except NameError:\n        pass\n    x = getattr(object, 'mro' + str(len('')))",
        "attribute-by-name",
    ),
    # A constructor run again on an object the answer did not make resets what it holds (kata
    # 34's counter of forward passes: graded solved for an answer that ran the model twice).
    "constructor-run-again-on-an-argument": (
        "def f(model):\n    state = model.state_dict()\n    model.__init__()\n"
        "    model.load_state_dict(state)",
        "patch",
    ),
    "constructor-of-a-library-class-on-an-argument": (
        "from torch import nn\ndef f(model):\n    nn.Module.__init__(model)",
        "patch",
    ),
    "constructor-through-its-class": ("def f(model):\n    type(model).__init__(model)", "patch"),
    "constructor-handed-on": ("def f(model):\n    g = model.__init__\n    g()", "patch"),
    "constructor-by-name": ("def f(model):\n    getattr(model, '__init__')()", "patch"),
    "post-init-run-again": ("def f(config):\n    config.__post_init__()", "patch"),
    # functools.wraps and update_wrapper copy the wrapped object's namespace into the wrapper:
    # on a test's model that writes any attribute (kata 34's count of forward passes).
    "wraps-applied-to-an-argument": (
        "import functools\nclass Seen:\n    def __init__(self):\n        self.forwards = 1\n"
        "def f(model):\n    functools.wraps(Seen())(model)",
        "patch",
    ),
    "update-wrapper-on-an-argument": (
        "from functools import update_wrapper\ndef f(model, seen):\n"
        "    update_wrapper(model, seen)",
        "patch",
    ),
    "wraps-handed-on": (
        "import functools\ndef f(model, seen):\n    w = functools.wraps(seen)\n    return w(model)",
        "patch",
    ),
    "update-wrapper-as-a-value": (
        "import functools\ndef f(model, seen):\n    u = functools.update_wrapper\n"
        "    u(model, seen)",
        "patch",
    ),
    # A for, comprehension or with target assigns as `=` does.
    "forward-replaced-by-a-for-target": (
        "def f(model):\n    for model.forward in [print]:\n        pass",
        "patch",
    ),
    "module-attribute-as-a-comprehension-target": (
        "import torch\nx = [0 for torch.manual_seed in [print]]",
        "patch",
    ),
    "private-attribute-as-a-with-target": (
        "import contextlib\ndef f(model):\n"
        "    with contextlib.nullcontext({}) as model._modules:\n        pass",
        "patch",
    ),
    # A rule on a name is about what the name is: the answer's own method, not an argument's.
    "dump-of-an-argument-in-a-class-with-dump": (
        "class E:\n    def dump(self, a):\n        a.dump('x')",
        "attribute",
    ),
    "vars-of-an-argument": ("def f(model):\n    return vars(model)", "builtin"),
    "forward-replaced-by-a-layer": (
        "from torch import nn\ndef f(model):\n    model.forward = nn.Identity()",
        "patch",
    ),
    "method-replaced-by-own-module": (
        "from torch import nn\nclass Yes(nn.Module):\n    def forward(self, *a):\n"
        "        return True\ndef f(t):\n    t.isclose = Yes()",
        "patch",
    ),
    # Allowed APIs that turn a string built at run time into code or an attribute path.
    "fx-get-attr-target": (
        "import torch.fx as fx\nT = 'w' + chr(34)\ng = fx.Graph()\ng.output(g.get_attr(T))\n"
        "fx.GraphModule({T: 1}, g)()",
        "sink",
    ),
    "fx-graph-of-a-backend": (
        "def backend(gm, inputs):\n    gm.graph.placeholder('x' + chr(34))\n    gm.recompile()\n"
        "    return gm.forward",
        "sink",
    ),
    "fx-node-target-written": (
        "import copy\ndef backend(gm, inputs):\n    for node in gm.graph.nodes:\n"
        "        node.target = 'w' + chr(34)\n    return copy.deepcopy(gm).forward",
        "sink",
    ),
    "fx-graph-module-from-an-alias": (
        "from torch.fx import GraphModule\nG = GraphModule\nm = G(1, 2)",
        "sink",
    ),
    "fx-interpreter-fetch-attr": (
        "import torch\nimport torch.fx as fx\nU = '_' * 2\n"
        "ns = fx.Interpreter(torch.nn.Module()).fetch_attr('forward.' + U + 'globals' + U)",
        "sink",
    ),
    "export-of-own-module-names": (
        "import torch\ndef f(m, x):\n    return torch.export.export(m, (x,)).module()",
        "sink",
    ),
    "typing-generic-of-a-built-string": (
        "import functools, typing\nE = ''.join(map(chr, (101, 120)))\n@functools.singledispatch\n"
        "def d(v):\n    return v\ndef t(v: typing.List[E]):\n    return v\nd.register(t)",
        "annotation",
    ),
    "builtin-generic-outside-an-annotation": (
        "def f(s):\n    T = list[s]\n    def g(v: T):\n        pass\n    return g",
        "annotation",
    ),
    "literal-string-in-a-generic": ("import typing\nX = typing.List['exec(1)']", "builtin"),
    "annotation-from-a-librarys-list": (
        "import typing, warnings\ndef f(v: typing.List[warnings.filters[0][0]]):\n    pass",
        "annotation",
    ),
    "annotation-from-a-librarys-object": (
        "import logging\ndef f(v: logging.root.level):\n    pass",
        "annotation",
    ),
    "annotation-from-an-own-class-attribute": (
        "class C:\n    a = 'x'\nC.a = str(1)\ndef f(v: C.a):\n    pass",
        "annotation",
    ),
    "annotation-from-a-parameter": ("def f(s):\n    def g(v: s):\n        pass", "annotation"),
    "typevar-bound-built": (
        "import typing\nB = str(1)\nT = typing.TypeVar('T', bound=B)\ndef f(x: T):\n    pass",
        "annotation",
    ),
    "get-annotations-eval-str": (
        "import typing_extensions as te\ndef f(g):\n"
        "    return te.get_annotations(g, eval_str=True)",
        "sink",
    ),
    "format-template-built": (
        "def f(x):\n    return ('{0.' + '_' * 2 + 'class' + '_' * 2 + '}').format(x)",
        "string",
    ),
    "str-format-template-built": (
        "def f(t, x):\n    return str.format(t, x)",
        "string",
    ),
    "logging-formatter-template-built": (
        "import logging\ndef f(t):\n    return logging.Formatter(t, style='{')",
        "string",
    ),
    # Callbacks into a process-wide registry, through a method or a setting.
    "root-logger-handler": (
        "import logging\nclass H(logging.Handler):\n    def emit(self, record):\n        pass\n"
        "logging.getLogger().addHandler(H())",
        "callback",
    ),
    "named-logger-handler": (
        "import logging\nlog = logging.getLogger('torch')\nlog.addFilter(print)",
        "callback",
    ),
    "root-logger-handlers-list": ("import logging\nlogging.root.handlers.append(1)", "callback"),
    "basic-config-handlers": ("import logging\nlogging.basicConfig(handlers=[1])", "callback"),
    "numpy-print-formatter": (
        "import numpy as np\nnp.set_printoptions(formatter={'all': repr})",
        "callback",
    ),
    "numpy-print-override-repr": (
        "import numpy as np\nwith np.printoptions(override_repr=repr):\n    pass",
        "callback",
    ),
    "numpy-print-options-through-an-alias": (
        "import numpy as np\nset_options = np.set_printoptions\nset_options(formatter={})",
        "builtin",
    ),
    "numpy-errstate-call": ("import numpy as np\nnp.errstate(call=print).__enter__()", "callback"),
    "biject-to-register": (
        "import torch\ntorch.distributions.biject_to.register(1)(print)",
        "callback",
    ),
    "transform-to-register-imported": (
        "from torch.distributions import transform_to\ntransform_to.register(1, print)",
        "callback",
    ),
    "registry-through-an-alias": (
        "import torch\nr = torch.distributions.transform_to\nr.register(1, print)",
        "callback",
    ),
    "registry-through-getattr": (
        "import torch\ngetattr(torch.distributions, 'biject_to').register(1, print)",
        "callback",
    ),
    # A display looped over in place holds its literal keys; one with a key spread in does not.
    "setattr-loop-over-a-spread-dict-in-place": (
        "def f(model, extra):\n    for name, value in {'a': 1, **extra}.items():\n"
        "        setattr(model, name, value)",
        "attribute-by-name",
    ),
    "setattr-loop-over-a-dunder-in-place": (
        "def f(model):\n    for name, value in (('__class__', int),):\n"
        "        setattr(model, name, value)",
        "patch",
    ),
    "setattr-module-private": (
        "import torch\ndef f():\n    setattr(torch.backends.cudnn, '_x', 1)",
        "private",
    ),
    # A loop name read where another binding of that name is seen: a comprehension's name
    # outside it, a nested function's loop name in its caller, a default or a comprehension's
    # first iterable (evaluated around), a class body's name in a method, a table of another
    # scope. There the name is the module's `name`, any string.
    **{
        f"loop-name-read-in-another-scope-{where}": (
            f"import torch\nname = '_' + 'C'\n{code}",
            "attribute-by-name",
        )
        for where, code in {
            "comprehension": "def f():\n    [0 for name in ('float16',)]\n"
            "    return getattr(torch, name)",
            "generator": "def f():\n    any(name for name in ('float16',))\n"
            "    return getattr(torch, name)",
            "setattr": "def f(v):\n    {name: 0 for name in {'float16': 1}}\n"
            "    setattr(torch, name, v)",
            "nested-function": "def f():\n    def g():\n        for name in ('float16',):\n"
            "            pass\n    return getattr(torch, name)",
            "default": "def f():\n    def g(v=getattr(torch, name)):\n"
            "        for name in ('float16',):\n            pass\n    return g()",
            "first-iterable": "def f():\n"
            "    return [x for x in getattr(torch, name) for name in ('float16',)]",
            "class-body": "class A:\n    for name in ('float16',):\n        pass\n"
            "    def f(self):\n        return getattr(torch, name)",
            "method-of-a-class-in-a-function": "def f():\n    class A:\n"
            "        for name in ('float16',):\n            pass\n"
            "        def g(self):\n            return getattr(torch, name)\n    return A",
            "table-of-a-nested-function": "table = {'_C': 1}\ndef f():\n    def g():\n"
            "        table = {'float16': 1}\n        return sorted(table)\n"
            "    return [getattr(torch, k) for k in table]",
        }.items()
    },
    "setattr-module-function": (
        "import torch\ndef f():\n    setattr(torch.nn.functional, 'relu', print)",
        "patch",
    ),
    "setattr-module-computed": (
        "import torch\ndef f(name):\n    setattr(torch.backends.cudnn, name, True)",
        "attribute-by-name",
    ),
    "setattr-loop-over-a-changed-dict": (
        "class A:\n    def __init__(self, k):\n        s = {'a': 1}\n        s[k] = 2\n"
        "        for name, value in s.items():\n            setattr(self, name, value)",
        "attribute-by-name",
    ),
    "dict-of-an-argument": ("def f(model):\n    return model.__dict__", "dunder"),
    "reflected-arithmetic": (
        "class Zero:\n    def __rsub__(self, other):\n        return 0",
        "definition",
    ),
    "getattr-parameter-with-a-built-name": (
        "def f(model, n):\n    return getattr(model, f'fc{n}')",
        "attribute-by-name",
    ),
    # A name built at run time written into the answer's own object's namespace: as setattr
    # with a computed name (an instance `__annotations__` that typing evaluates), in every form.
    **{
        f"namespace-{form}": (
            "import copy, functools\nU = '_' * 2\nclass S:\n"
            f"    def __init__(self, fields, key):\n        {line}",
            "namespace",
        )
        for form, line in {
            "vars-update": "vars(self).update(fields)",
            "dict-update": "self.__dict__.update(fields)",
            "getattr-dict-update": "getattr(self, '__dict__').update(fields)",
            "update-built-key": "vars(self).update({U + 'annotations' + U: fields})",
            "update-keyword-splat": "vars(self).update(**fields)",
            "update-dict-call": "vars(self).update(dict(fields))",
            "update-comprehension": "vars(self).update({k: v for k, v in fields.items()})",
            "setdefault": "vars(self).setdefault(key, fields)",
            "item": "vars(self)[key] = fields",
            "item-built": "self.__dict__[U + 'annotations' + U] = fields",
            "item-read-built": "fields.append(vars(self)[U + 'dict' + U])",
            "get-built": "fields.append(vars(self).get(key))",
            "dunder-setitem": "vars(self).__setitem__(key, fields)",
            "or-assign": "ns = vars(self)\n        ns |= fields",
            "alias-update": "ns = vars(self)\n        ns.update(fields)",
            "alias-walrus": "(ns := vars(self))[key] = fields",
            "alias-conditional": "ns = vars(self) if key else {}\n        ns.update(fields)",
            "handed-to-dict-update": "dict.update(vars(self), fields)",
            "handed-to-a-function": "functools.partial(fields, vars(self))()",
            "bound-method-handed-on": "f = vars(self).update\n        f(fields)",
            "returned": "self.ns = vars(self)",
            "in-a-tuple": "for ns in (vars(self),):\n            ns.update(fields)",
        }.items()
    },
    # A state-dict loader that the answer calls itself: it picks the keys.
    "namespace-load-state-dict-called-by-the-answer": (
        "class S:\n    def load_state_dict(self, state):\n        self.__dict__.update(state)\n"
        "    def reset(self):\n        self.load_state_dict({'_' * 2 + 'x': 1})",
        "namespace",
    ),
    "namespace-load-state-dict-that-changes-the-state": (
        "class S:\n    def load_state_dict(self, state, key):\n        state[key] = 1\n"
        "        self.__dict__.update(state)",
        "namespace",
    ),
    # A conditional alias whose branch is not a type: typing would evaluate its string.
    "annotation-alias-conditional-with-a-string": (
        "import sys\nS = '__import__(\"os\")' if sys.version_info else int\n"
        "def f() -> S:\n    pass",
        "annotation",
    ),
    "annotation-conditional-inside-an-annotation": (
        "import sys\ndef f() -> (int if sys.version_info else str):\n    pass",
        "annotation",
    ),
    # A stream's file, whose class opens any path or descriptor: `type(f)("/anywhere", "wb")`.
    "stdout-raw-file-class": ("import sys\nF = type(sys.stdout.buffer.raw)", "attribute"),
    "stdout-buffer-by-name": (
        "import sys\nb = getattr(sys.stdout, 'buffer')\nF = type(getattr(b, 'raw', b))",
        "attribute",
    ),
    "handler-stream-buffer": (
        "import logging, sys\nF = logging.StreamHandler(sys.stderr).stream.buffer.__class__",
        "attribute",
    ),
    "stderr-descriptor": ("import sys\nn = sys.stderr.fileno()", "attribute"),
    # The hooks the tests register on what they hand over, removed through the private
    # tables they live in (a probe that sees earlier graphs kept alive, unregistered).
    "hook-table-cleared": ("def f(model):\n    model._forward_pre_hooks.clear()", "patch"),
    "hook-table-entry-deleted": (
        "def f(model):\n    for k in list(model._forward_pre_hooks):\n"
        "        del model._forward_pre_hooks[k]",
        "patch",
    ),
    "hook-table-by-name-aliased": (
        "def f(opt):\n    hooks = getattr(opt, '_optimizer_step_post_hooks')\n    hooks.clear()",
        "patch",
    ),
    "hook-table-handed-to-a-helper": (
        "def _drop(table):\n    table.popitem()\ndef f(model):\n    _drop(model._forward_hooks)",
        "patch",
    ),
    "hook-table-returned-to-the-answers-own-code": (
        "def _hooks(model):\n    return model._forward_pre_hooks\n"
        "def f(model):\n    _hooks(model).clear()",
        "patch",
    ),
    "hook-table-entry-replaced": (
        "def f(model):\n    for k in model._forward_pre_hooks:\n"
        "        model._forward_pre_hooks[k] = print",
        "patch",
    ),
    "stream-file-through-a-parameter": (
        "import sys\ndef f(s):\n    return type(s.buffer)\nF = f(sys.stdout)",
        "attribute",
    ),
}


@pytest.mark.parametrize("case", sorted(ATTACKS))
def test_attacks_are_refused_by_their_rule(case):
    code, rule, *kata = ATTACKS[case]
    entry = KATAS[kata[0]] if kata else None
    findings = policy.check(
        code, entry.imports if entry else (), allow=entry.allow if entry else ()
    )
    assert rule in {finding.rule for finding in findings}, [str(f) for f in findings]


# Which objects the answer made is decided where a name is read, in the name's scope, from the
# bindings that can reach the read. A write to what the answer did not make (an argument, what
# a library returns, an alias of either) is refused whichever way it got there.
NOT_MADE = {
    "argument-in-one-branch": (
        "def f(arg, c):\n    if c:\n        x = arg\n    else:\n        x = {}\n    x._p = 1",
        [(6, "patch")],
    ),
    "argument-or-a-library-result": (
        "import torch\ndef f(c):\n    x = {} if c else torch.zeros(1)\n    x._p = 1",
        [(4, "patch")],
    ),
    "alias-of-an-argument": ("def f(arg):\n    y = arg\n    y._p = 1", [(3, "patch")]),
    "own-object-rebound-to-an-argument": (
        "def f(arg):\n    y = {}\n    y = arg\n    y._p = 1",
        [(4, "patch")],
    ),
    "argument-named-like-an-own-local-of-another-function": (
        "def g():\n    result = {}\n    result._p = 1\ndef f(result):\n    result._p = 1",
        [(5, "patch")],
    ),
    "parameter-of-a-nested-function": (
        "def f():\n    x = {}\n    def g(x):\n        x._p = 1\n    return g",
        [(4, "patch")],
    ),
    "rebound-in-an-earlier-turn-of-a-loop": (
        "def f(arg):\n    x = {}\n    for _ in range(2):\n        x._p = 1\n        x = arg",
        [(4, "patch")],
    ),
    "loop-target": (
        "def f(args):\n    x = {}\n    for x in args:\n        pass\n    x._p = 1",
        [(5, "patch")],
    ),
    "rebound-before-an-exception": (
        "def f(arg, g):\n    x = {}\n    try:\n        x = arg\n        x = g()\n"
        "    except Exception:\n        pass\n    x._p = 1",
        [(8, "patch")],
    ),
    "rebound-in-a-with-that-swallows-exceptions": (
        "import contextlib\ndef f(arg, g):\n    x = arg\n"
        "    with contextlib.suppress(Exception):\n        x = g()\n        x = {}\n"
        "    x._p = 1",
        [(7, "patch")],
    ),
    "rebound-by-a-nested-function": (
        "def f(arg):\n    x = {}\n    def g():\n        nonlocal x\n        x = arg\n"
        "    g()\n    x._p = 1",
        [(7, "patch")],
    ),
    "global-rebound-by-a-function": (
        "x = {}\ndef g(arg):\n    global x\n    x = arg\nx._p = 1",
        [(5, "patch")],
    ),
    "closure-over-a-name-rebound-later": (
        "def f(arg):\n    x = {}\n    def g():\n        x._p = 1\n    x = arg\n    g()",
        [(4, "patch")],
    ),
    "builtin-read-before-a-global-of-its-name": (
        "def h():\n    dict._p = 1\nh()\ndict = {}",
        [(2, "patch")],
    ),
    "walrus": (
        "def f(arg):\n    x = {}\n    if (x := arg):\n        pass\n    x._p = 1",
        [(5, "patch")],
    ),
    "unpacked-from-a-tuple": ("def f(arg):\n    a, b = arg, 1\n    a._p = 1", [(3, "patch")]),
    "bound-by-an-earlier-target": (
        "def f(arg):\n    x = {}\n    x, x._p = arg, 1",
        [(3, "patch")],
    ),
    "method-self-rebound": (
        "class A:\n    def m(self, other):\n        self = other\n        self._p = 1",
        [(4, "patch")],
    ),
    "call-of-a-parameter-named-like-a-class": (
        "from collections import OrderedDict\ndef f(OrderedDict, dict):\n    x = OrderedDict()\n"
        "    x._p = 1\n    y = dict()\n    y._p = 1",
        [(4, "patch"), (6, "patch")],
    ),
    "vars-of-an-argument-in-one-branch": (
        "def f(arg, c):\n    x = arg\n    if c:\n        x = {}\n    return vars(x)",
        [(5, "builtin")],
    ),
    "dict-of-an-argument-in-one-branch": (
        "def f(arg, c):\n    x = arg\n    if c:\n        x = {}\n    return x.__dict__",
        [(5, "dunder")],
    ),
}


@pytest.mark.parametrize("case", sorted(NOT_MADE))
def test_writes_to_what_the_answer_did_not_make_are_refused_however_bound(case):
    code, expected = NOT_MADE[case]
    assert refused(code) == expected


# The same writes where the object is the answer's on every way to the write.
MADE = {
    "own-in-its-branch": (
        "from collections import OrderedDict\ndef f(sd, c):\n    if c:\n"
        "        fixed = OrderedDict(sd)\n        fixed._metadata = {}\n    else:\n"
        "        fixed = sd\n    return fixed"
    ),
    "own-local-beside-another-functions-local-of-that-name": (
        "from collections import OrderedDict\ndef g(model):\n    result = model.state_dict()\n"
        "    return list(result)\ndef f():\n    result = OrderedDict()\n"
        "    result._metadata = {}\n    return result"
    ),
    "own-after-a-branch-that-returns": (
        "def f(arg, c):\n    if c:\n        x = arg\n        return x\n    x = {}\n    x._p = 1"
    ),
    "alias-of-an-own-object": "def f():\n    x = {}\n    y = x\n    y._p = 1",
    "own-in-each-turn-of-a-loop": (
        "def f(args):\n    for a in args:\n        x = {}\n        x._p = a"
    ),
    "own-global-read-in-a-function": "x = {}\ndef f():\n    x._p = 1",
    "closure-over-an-own-object": (
        "def f():\n    x = {}\n    def g():\n        x._p = 1\n    return g"
    ),
    "method-self-in-a-hook": (
        "class A:\n    def m(self, model):\n        def hook(*args):\n"
        "            self._seen = args\n        return model.register_forward_hook(hook)"
    ),
}


@pytest.mark.parametrize("case", sorted(MADE))
def test_writes_to_what_the_answer_made_are_allowed(case):
    assert refused(MADE[case]) == []


# What honest answers do that an earlier policy refused, and idioms next to the attacks above.
HONEST_IDIOMS = {
    "operator": (
        "import functools, operator\ndef prod(xs):\n"
        "    return functools.reduce(operator.mul, xs, 1)"
        "\nkey = operator.itemgetter(1)\nshape_of = operator.attrgetter('shape')"
    ),
    "pytree": (
        "import torch\nimport torch.utils._pytree as pytree\n"
        "from torch.utils._pytree import tree_map"
        "\ndef to(batch, device):\n    return tree_map(lambda t: t.to(device), batch)"
        "\nleaves = pytree.tree_leaves"
    ),
    "numpy-in-any-kata": (
        "import numpy as np\nimport torch\ndef f(t):\n"
        "    return torch.from_numpy(np.ascontiguousarray(t.detach().cpu().numpy() * 2))"
    ),
    "getattr-of-a-newer-class": (
        "from torch import nn\nNorm = getattr(nn, 'RMSNorm', None) or nn.LayerNorm"
        "\nLater = getattr(nn, 'NormFromTheFuture', None)"
    ),
    "logging": (
        "import logging\nlog = logging.getLogger(__name__)\nlogging.basicConfig(level=logging.INFO)"
        "\ndef f(x):\n    log.info('x=%s', x)\n    return x"
    ),
    "warnings-filters-read": (
        "import warnings\ndef filters_now():\n    return list(warnings.filters)"
    ),
    "time": (
        "import time\ndef f():\n    t = time.perf_counter()\n"
        "    return time.perf_counter() - t, time.monotonic()"
    ),
    "namedtuple-field-f-x": (
        "from typing import NamedTuple\nclass P(NamedTuple):\n    f_x: float\n    co_y: float"
        "\ndef g(p: P) -> float:\n    return p.f_x + p.co_y"
    ),
    "main-block-doctest": (
        "def f(x):\n    return x + 1\n\nif __name__ == '__main__':\n    import doctest\n"
        "    import sys\n    sys.exit(doctest.testmod().failed)"
    ),
    "contextlib": (
        "import contextlib\n@contextlib.contextmanager\ndef evaluating(model):\n"
        "    was = model.training\n    model.eval()\n    try:\n        yield model\n"
        "    finally:\n        model.train(was)\nquiet = contextlib.suppress(ValueError)"
    ),
    "warnings": (
        "import warnings\ndef f(x):\n    if x < 0:\n        warnings.warn('negative', stacklevel=2)"
        "\n    with warnings.catch_warnings():\n        warnings.simplefilter('ignore')\n"
        "    return x"
    ),
    "protocol-dunders": (
        "class Meter:\n    def __float__(self):\n        return 1.0\n    def __int__(self):\n"
        "        return 1\n    def __index__(self):\n        return 1\n    def __hash__(self):\n"
        "        return 1\n    def __format__(self, spec):\n"
        "        return format(float(self), spec)"
    ),
    "exception-cause": (
        "def root(e):\n    while e.__cause__ is not None:\n        e = e.__cause__\n"
        "    return e, e.__context__, e.__suppress_context__"
    ),
    "hasattr-dunder": "def iterable(x):\n    return hasattr(x, '__iter__')",
    "own-module-attributes": (
        "from torch import nn\ndef build():\n    m = nn.Linear(2, 2)\n    m.forward = print\n"
        "    return m"
    ),
    "model-surgery": (
        "from torch import nn\ndef head(model, n):\n"
        "    model.fc = nn.Linear(model.fc.in_features, n)"
        "\n    for p in model.parameters():\n        p.requires_grad = False\n    return model"
    ),
    "type-of-x": (
        "from torch import nn\ndef f(x, cls: type[nn.Module]):\n"
        "    return type(x).__name__, isinstance(cls, type)"
    ),
    "torch-settings": "import torch\ntorch.backends.cudnn.deterministic = True",
    "compile-backend-types": (
        "import torch\ndef backend(gm: torch.fx.GraphModule, inputs):\n"
        "    return gm.forward\nf = torch.compile(lambda x: x + 1, backend=backend)"
    ),
    "public-names-of-torch": (
        "import torch\nimport torch.nn.functional as F\nfrom torch.optim.lr_scheduler import StepLR"
        "\nfrom torch.utils.data import DataLoader\nx = (torch.float32, torch.finfo, F.relu,"
        " torch.nn.utils.clip_grad_norm_, torch.cuda.is_available, torch.__version__)"
    ),
    "base-init-with-own-self": (
        "class Base:\n    def __init__(self, size):\n        self.size = size\n"
        "class Child(Base):\n    def __init__(self):\n        Base.__init__(self, 3)\n"
        "        self.step = 0\n    @classmethod\n    def make(cls):\n        return cls()\n"
        "c = Child.make()"
    ),
    "private-of-what-tests-hand-over": (
        "def f(x, model):\n    return x._version, list(model._modules)"
    ),
    "dunder-in-an-error-message": (
        "def f(x):\n    raise TypeError('call super().__init__() before using f_back')"
    ),
    "files-where-the-kata-writes-them": (
        "import io, os, pathlib\nimport torch\ndef save(obj, path):\n"
        "    tmp = f'{path}.tmp{os.getpid()}'\n    buffer = io.BytesIO()\n"
        "    torch.save(obj, buffer)\n    pathlib.Path(tmp).write_bytes(buffer.getvalue())\n"
        "    os.replace(tmp, path)\n    return os.name == 'nt'",
        "q28_checkpoint",
    ),
    "container-methods-as-callables": (
        "def f(model, x):\n    outs = {}\n    handles = [m.register_forward_hook("
        "lambda mod, i, o, n=n: outs.__setitem__(n, o)) for n, m in model.named_modules()]\n"
        "    model(x)\n    for h in handles:\n        h.remove()\n    return outs"
    ),
    "own-class-attribute": (
        "class Counter:\n    count = 0\n    def bump(self):\n        Counter.count += 1"
    ),
    "module-attributes-named-like-methods": (
        "from torch import nn\nclass M(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.size, self.step, self.mean = 3, 0, None"
    ),
    "optimizer-subclass-state": (
        "import torch\nclass MySGD(torch.optim.Optimizer):\n"
        "    def __init__(self, params, lr=0.1):\n        super().__init__(params, dict(lr=lr))\n"
        "    @torch.no_grad()\n    def step(self, closure=None):\n"
        "        for group in self.param_groups:\n            for p in group['params']:\n"
        "                self.state[p]['steps'] = self.state[p].get('steps', 0) + 1"
    ),
    "typed-dict-total": (
        "from typing import TypedDict\nclass Config(TypedDict, total=False):\n    lr: float"
    ),
    "scheduler-fields": "def f(sched):\n    sched.last_epoch = 0\n    sched.base_lrs = [0.1]",
    "match-statement": (
        "def f(x):\n    match x:\n        case (a, b):\n            return a + b\n"
        "        case {'k': v}:\n            return v"
    ),
    "own-private-attributes": (
        "class A:\n    def __init__(self):\n        self._n = 0\n        self.__secret = 1\n"
        "    def _bump(self):\n        return self._n, self.__secret\n"
        "def f(p):\n    return p._asdict(), p._replace(x=1), p._fields"
    ),
    "format-strings": "def f(x):\n    return '{} {:.3f} {0.real}'.format(x, 1.0) + f'{x!r:>9}'",
    # The documented way to set a derived field of a frozen dataclass.
    "frozen-dataclass-post-init": (
        "import dataclasses, math\n@dataclasses.dataclass(frozen=True)\nclass C:\n"
        "    cubic: float = 0.044715\n    scale: float = dataclasses.field(init=False)\n"
        "    def __post_init__(self):\n"
        "        object.__setattr__(self, 'scale', math.sqrt(2 / math.pi))"
    ),
    "sliding-window-view": (
        "import numpy as np\ndef windows(a, n):\n"
        "    return np.lib.stride_tricks.sliding_window_view(a, n).copy()"
    ),
    "sliding-window-view-imported": (
        "from numpy.lib.stride_tricks import sliding_window_view\nf = sliding_window_view"
    ),
    # nn.init's functions by literal name (a computed name is refused: it reaches anything).
    "getattr-literal-nn-init": (
        "from torch import nn\ndef f(t):\n    getattr(nn.init, 'zeros_')(t)\n"
        "    return getattr(t, 'weight', None)"
    ),
    "enum-class-statement": (
        "import enum\nclass Kind(enum.Enum):\n    A = 1\n    B = 2\nk = Kind(1)"
    ),
    "sys-streams-and-facts": (
        "import sys\nfrom sys import stderr\ndef f(x):\n"
        "    print(x, file=sys.stderr)\n    print(x, file=stderr)\n"
        "    return sys.float_info.epsilon, sys.maxsize, sys.version_info >= (3, 10)"
    ),
    # Honest code an earlier policy flagged.
    "getattr-from-a-table-of-names": (
        "from torch import nn\nCLASS_NAMES = {'relu': 'ReLU', 'tanh': 'Tanh'}\n"
        "ORDER = ('Linear', 'ReLU')\ndef act(name):\n    return getattr(nn, CLASS_NAMES[name])()"
        "\ndef first():\n    return getattr(nn, ORDER[0])"
    ),
    "getattr-from-a-table-beside-a-match": (
        "from typing import Literal\nfrom torch import nn\nNAMES = {'relu': 'ReLU'}\n"
        "def act(kind: Literal['relu', 'gelu']):\n    match kind:\n"
        "        case 'gelu':\n            return nn.GELU()\n        case other:\n"
        "            return getattr(nn, NAMES[other])()\n"
        "def build(model):\n    kinds = {'weight': 0}\n    for name in kinds:\n"
        "        getattr(model, name)\n    template = '{0}'\n    return template.format(model)"
    ),
    "own-dump-and-vars-in-repr": (
        "class EarlyStopping:\n    def __init__(self):\n        self.best = None\n"
        "    def dump(self):\n        return {k: v for k, v in vars(self).items()}\n"
        "    def __repr__(self):\n        return f'EarlyStopping({self.dump()})'"
    ),
    "getattr-name-with-a-default": (
        "def f(fn):\n    raise ValueError(f'{getattr(fn, \"__name__\", repr(fn))} failed')"
    ),
    "submodules-replaced": (
        "from torch import nn\ndef f(model):\n    model.dropout = nn.Identity()\n"
        "    model.norm = nn.LayerNorm(4)\n    model.relu = nn.ReLU()\n"
        "    model.linear = nn.Linear(4, 2)\n    model.embedding = nn.Embedding(9, 4)\n"
        "    model.activation = nn.GELU()\n    for block in model.children():\n"
        "        block.dropout = nn.Identity()\n    return model"
    ),
    "saved-tensors-hooks-where-the-kata-asks": (
        "import torch\ndef f(pack):\n"
        "    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):\n        pass",
        "q49_gpu_memory",
    ),
    # Honest styles an earlier policy flagged.
    "enum-functional-literal": (
        "import enum\nReduction = enum.Enum('Reduction', [('MEAN', 'mean'), ('SUM', 'sum')])\n"
        "Color = enum.IntEnum('Color', 'RED GREEN', start=0)"
    ),
    "state-dict-through-own-dict": (
        "class S:\n    def state_dict(self):\n"
        "        return {k: v for k, v in self.__dict__.items() if k != 'optimizer'}\n"
        "    def load_state_dict(self, state):\n        self.__dict__.update(state)"
    ),
    # Reading the own namespace, and writing names the policy can see.
    "own-namespace-read-and-written-by-name": (
        "import copy, logging\nLOG = logging.getLogger(__name__)\nclass S:\n"
        "    def __init__(self, gamma, i):\n"
        "        vars(self).update(gamma=gamma, steps=0)\n"
        "        vars(self).update({'warmup': 1, f'layer{i}': 2})\n"
        "        self.__dict__['base'] = 0.1\n        vars(self).setdefault('last', -1)\n"
        "        for name in ('a', 'b'):\n            vars(self)[name] = 0\n"
        "    def state(self):\n        ns = vars(self)\n"
        "        return {**ns}, dict(vars(self)), copy.deepcopy(self.__dict__), "
        "sorted(ns.items()), 'gamma' in ns, vars(self).get('gamma'), f'{vars(self)}'\n"
        "    def log(self):\n        LOG.info('%s', vars(self))\n"
        "        return max(vars(self), key=len)\n"
        "    def __setstate__(self, state):\n        vars(self).update(state)"
    ),
    # A type alias chosen by the Python version, used in an annotation.
    "annotation-alias-by-version": (
        "import sys\nimport typing\nimport torch\n"
        "LrList = list[float] if sys.version_info >= (3, 9) else typing.List[float]\n"
        "class S(torch.optim.lr_scheduler.LRScheduler):\n"
        "    def get_lr(self) -> LrList:\n        return [0.1]"
    ),
    # setattr with a literal name is `owner.name = value`: torch's documented settings too, and
    # a display looped over in place (a dict, pairs led by strings) holds its literal keys.
    "setattr-settings-on-a-module": (
        "import torch\nfrom torch.backends import cudnn\ndef f(on):\n"
        "    setattr(torch.backends.cudnn, 'deterministic', on)\n"
        "    for flag, value in {'deterministic': on, 'benchmark': not on}.items():\n"
        "        setattr(torch.backends.cudnn, flag, value)\n"
        "    for setting, to in (('deterministic', on), ('benchmark', not on)):\n"
        "        setattr(cudnn, setting, to)"
    ),
    "setattr-over-a-literal-dict-in-place": (
        "class S:\n    def __init__(self, warmup, gamma):\n"
        "        for name, value in {'warmup': warmup, 'gamma': gamma}.items():\n"
        "            setattr(self, name, value)\n"
        "        for field in {'a': 0}.keys():\n            setattr(self, field, 0)"
    ),
    # A loop name read in the scope its loop binds it in, or in one inside that.
    "loop-name-read-inside-its-scope": (
        "import torch\nclass S:\n    def __init__(self, on):\n"
        "        self.kinds = {n: getattr(torch, n) for n in ('float16', 'bfloat16')}\n"
        "        for flag in ('warmup', 'gamma'):\n"
        "            apply = lambda: setattr(self, flag, on)\n            apply()\n"
        "            self.seen = [getattr(self, flag) for _ in range(2)]\n"
        "        settings = {'steps': on}\n        def inner():\n"
        "            for key, value in settings.items():\n"
        "                setattr(self, key, value)\n        inner()\n"
        "    class A:\n        for name in ('float32',):\n            kind = getattr(torch, name)"
    ),
    "setattr-over-a-literal-dict": (
        "class S:\n    def __init__(self, warmup, gamma):\n"
        "        settings = {'warmup': warmup, 'gamma': gamma}\n"
        "        for name, value in settings.items():\n            setattr(self, name, value)\n"
        "        for field in ('a', 'b'):\n            setattr(self, field, 0)"
    ),
    "nn-bound-at-module-level": (
        "import torch\nnn = torch.nn\nF = torch.nn.functional\n"
        "def f(m: nn.Module, x):\n    return F.relu(m(x))"
    ),
    "repr-with-str-format": (
        "class S:\n    def __repr__(self):\n"
        "        return '{0.__class__.__name__}(gamma={0.gamma})'.format(self)"
    ),
    "in-place-accumulator": (
        "class Meter:\n    def __init__(self):\n        self.n = 0\n"
        "    def __iadd__(self, k):\n        self.n += k\n        return self\n"
        "    def __len__(self):\n        return self.n"
    ),
    "own-functions-named-after-builtins": (
        "def setattr(config, name, value):\n    config[name] = value\n"
        "def apply(config, name):\n    setattr(config, name, 1)\n    return config\n"
        "class Registry:\n    def vars(self):\n        return {}\n    def get(self, n):\n"
        "        return getattr(self, 'vars')()\n"
        "def f(input, format, type):\n    return input, format, type"
    ),
    "constructors-of-own-objects": (
        "from torch import nn\nclass M(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        nn.Module.__init__(self)\n"
        "    def reset(self):\n        self.__init__()\nclass D(M):\n"
        "    def __init__(self):\n        M.__init__(self)\n"
        "def f():\n    m = M()\n    m.__init__()\n    return m"
    ),
    "wraps-on-own-functions": (
        "import functools\nfrom functools import wraps\ndef deco(fn):\n    @functools.wraps(fn)\n"
        "    def inner(*a):\n        return fn(*a)\n    return inner\ndef deco2(fn):\n"
        "    def inner(*a):\n        return fn(*a)\n    functools.update_wrapper(inner, fn)\n"
        "    return wraps(fn)(inner)\ndef deco3(fn):\n"
        "    return functools.wraps(fn)(lambda *a: fn(*a))\nclass Memo:\n"
        "    def __init__(self, fn):\n        self.fn = fn\n"
        "        functools.update_wrapper(self, fn)\n"
        "    def __call__(self, *a):\n        return self.fn(*a)"
    ),
    "methodcaller-over-a-literal-table": (
        "import operator\nHOW = {'sum': 'sum', 'mean': 'mean'}\n"
        "def reduce(loss, how):\n    return operator.methodcaller(HOW[how])(loss)"
    ),
    "own-module-logger": (
        "import logging, sys\nlog = logging.getLogger(__name__)\n"
        "log.addHandler(logging.NullHandler())\nlogging.basicConfig(stream=sys.stderr)"
    ),
    "generics-of-numpy-and-own-classes": (
        "import typing\nimport numpy as np\nimport numpy.typing as npt\nimport torch\n"
        "Floats = npt.NDArray[np.float64]\nT = typing.TypeVar('T')\n"
        "class Box(typing.Generic[T]):\n    pass\n"
        "def f(a: Floats, b: Box[int], c: 'Box[torch.Tensor]') -> tuple[int, ...]:\n"
        "    return ()"
    ),
    "type-aliases-and-typevars": (
        "import typing\nimport torch\nT = typing.TypeVar('T', bound='torch.nn.Module')\n"
        "Batch = dict[str, torch.Tensor]\nFn = typing.Callable[[torch.Tensor], torch.Tensor]\n"
        "def f(x: Batch, m: 'T', g: Fn | None = None) -> list[T]:\n    return [m]"
    ),
    "numpy-print-precision-and-index-tricks": (
        "import numpy as np\nnp.set_printoptions(precision=3, suppress=True)\n"
        "def f(a, b):\n    return np.r_[a, b], '{:.3f}'.format(1.0)"
    ),
    "layers-named-in-a-loop": (
        "from torch import nn\nclass MLP(nn.Module):\n    def __init__(self, sizes):\n"
        "        super().__init__()\n        self.depth = len(sizes) - 1\n"
        "        for i in range(self.depth):\n"
        "            setattr(self, f'fc{i}', nn.Linear(sizes[i], sizes[i + 1]))\n"
        "    def forward(self, x):\n        for i in range(self.depth):\n"
        "            x = getattr(self, 'fc' + str(i))(x)\n"
        "            if hasattr(self, f'norm{i}'):\n"
        "                x = getattr(self, f'norm{i}')(x)\n"
        "        return x"
    ),
    # A table of names also read by a membership test, len, sorted, a loop or its methods;
    # a choice between literal names; a loop over a table at the module's top level.
    "getattr-from-a-table-it-also-checks-against": (
        "import torch\nfrom torch import nn\nACTIVATIONS = {'relu': 'ReLU', 'tanh': 'Tanh'}\n"
        "DTYPES = ('float16', 'bfloat16')\n"
        "BY_NAME = {n: getattr(torch, n) for n in DTYPES}\n"
        "def act(name):\n    if name not in ACTIVATIONS or len(ACTIVATIONS) < 1:\n"
        "        raise ValueError(f'{name}: one of {sorted(ACTIVATIONS)}')\n"
        "    return getattr(nn, ACTIVATIONS[name])()\n"
        "def every():\n    return [getattr(nn, v)() for _, v in ACTIVATIONS.items()]\n"
        "def lenient(name):\n    return getattr(nn, ACTIVATIONS.get(name, 'Identity'))()\n"
        "def half(native):\n    return getattr(torch, 'bfloat16' if native else DTYPES[0])"
    ),
    # A name joined from literal choices (an f-string, a `+`) is each of its combinations.
    "getattr-joined-from-literal-choices": (
        "import torch\nimport torch.nn.functional as F\n"
        "def probabilities(x, log=False):\n"
        "    return getattr(F, f\"{'log_' if log else ''}softmax\")(x, dim=-1)\n"
        "def squash(x, inverse=False):\n"
        "    return getattr(torch, ('a' if inverse else '') + 'tanh', torch.tanh)(x)"
    ),
    # A comprehension's loop name is its own: the same name bound elsewhere in the module (a
    # for loop in a function) does not make the table's entries computed names.
    "getattr-in-a-comprehension-beside-another-loop-of-that-name": (
        "from torch import nn\nNAMES = ('LayerNorm', 'Embedding')\n"
        "LAYERS = tuple(getattr(nn, name) for name in NAMES)\n"
        "def names(model):\n    return [name for name, _ in model.named_parameters()]\n"
        "def walk(model):\n    for name, p in model.named_parameters():\n        print(name, p)"
    ),
    # Literal's arguments are values, which typing never evaluates.
    "literal-annotations": (
        "import typing\nfrom typing import Literal, Optional\n"
        "Reduction = Literal['mean', 'sum', 'none']\n"
        "def f(r: Reduction = 'mean', m: Optional[Literal['min', 'max']] = None,\n"
        "      k: typing.Literal['rel', -1, None] | None = None) -> 'Literal[\"none\"]':\n"
        "    return 'none'"
    ),
    # Ordinary standard modules: patterns on names, character sets and templates, fresh ids.
    "re-string-uuid": (
        "import re\nimport string\nimport uuid\nfrom uuid import uuid4\n"
        "BIAS = re.compile(r'(^|\\.)\\w*bias$')\n"
        "def f(name, folder):\n    ok = BIAS.search(name) or re.fullmatch(r'fc\\d+', name)\n"
        "    tmp = string.Template('$folder/.$id.tmp').substitute(folder=folder, id=uuid4().hex)\n"
        "    return bool(ok), tmp, uuid.uuid5(uuid.NAMESPACE_URL, name), string.ascii_lowercase"
    ),
    # A name the standard modules have on some supported Pythons only (re.PatternError from
    # 3.13 on): the data records the names of every recorded Python.
    "re-pattern-error-of-3-13": (
        "import re\ndef f(pattern):\n    try:\n        return re.compile(pattern)\n"
        "    except re.PatternError:\n        return None"
    ),
    # Type aliases a library defines (a union, a generic alias), named in annotations.
    "library-type-aliases": (
        "import torch\nfrom torch.optim.optimizer import ParamsT, StateDict\n"
        "def f(params: ParamsT, state: StateDict,\n"
        "      device: torch.types.Device = None, scale: torch.types.Number = 1) -> None:\n"
        "    pass"
    ),
    # An enum member looked up by its name: no generic subscripted.
    "enum-member-by-name": (
        "import enum\nclass Init(enum.Enum):\n    XAVIER = 'xavier'\n    KAIMING = 'kaiming'\n"
        "def f(name):\n    return Init[name.upper()]"
    ),
    # Private attributes of what the tests hand over, read: counted, copied, handed to a
    # helper of the answer's that only reads them, returned to the tests.
    "private-tables-read": (
        "def _names(table):\n    return sorted(table)\n"
        "def f(model, x):\n    n = len(model._forward_hooks)\n"
        "    return n, _names(model._modules), dict(model._buffers), x._version"
    ),
    # Printing to the standard streams, and a buffer of the answer's own class.
    "print-to-a-stream": (
        "import sys\ndef f(x):\n    print(x, file=sys.stderr)\n    sys.stdout.write('')\n"
        "    sys.stdout.flush()\nclass Ring:\n    def __init__(self):\n        self.buffer = []\n"
        "    def push(self, x):\n        self.buffer.append(x)"
    ),
    # A warning raised at the caller's line, and warnings recorded where none is raised so.
    "warning-at-the-callers-line": (
        "import warnings\ndef f(x):\n    warnings.warn('slow path', UserWarning, stacklevel=2)\n"
        "    return x"
    ),
    "warnings-recorded-without-a-stacklevel": (
        "import warnings\ndef f(g, x):\n    with warnings.catch_warnings(record=True) as seen:\n"
        "        warnings.simplefilter('always')\n        y = g(x)\n    return y, len(seen)"
    ),
    # A wrapper's wrapped module (DistributedDataParallel's `.module`) is not a record's.
    "a-wrappers-module": "def f(model):\n    return model.module",
    # A kata that imports os may sync a file it wrote (a checkpoint's fsync).
    "fsync-where-the-kata-imports-os": (
        "import os\ndef save(path, data):\n    with open(path, 'wb') as f:\n        f.write(data)\n"
        "        os.fsync(f.fileno())",
        "q28_checkpoint",
    ),
}


@pytest.mark.parametrize("case", sorted(HONEST_IDIOMS))
def test_honest_idioms_pass_the_policy(case):
    code, *kata = (
        (HONEST_IDIOMS[case],) if isinstance(HONEST_IDIOMS[case], str) else HONEST_IDIOMS[case]
    )
    entry = KATAS[kata[0]] if kata else None
    findings = policy.check(
        code, entry.imports if entry else (), allow=entry.allow if entry else ()
    )
    assert [str(f) for f in findings] == []


# Names the policy refuses as `owner.name`, each named in every other way Python has: one
# resolve-and-judge path means every form is refused too. Beside them, names it allows, which
# every form must allow (a form is not refused for its own sake).
# Every recorded name a rule on names refuses (found in the data, not listed), and names
# refused by the other rules: dunders, private names, modules reached as attributes.
REFUSED_NAMES = sorted(
    {
        (module, name)
        for module, kinds in policy.names().modules.items()
        for name in kinds
        if policy.allowed_import(module)
        and (
            name in policy.REFUSED_ATTRIBUTES
            or name in policy.names().registries
            or policy.MODE_NAMES.fullmatch(name)
            or f"{module}.{name}" in policy.FILE_APIS
            or f"{module}.{name}" in policy.SINK_APIS
        )
    }
    | {
        ("torch", "__builtins__"),
        ("torch", "__dict__"),
        ("math", "__loader__"),
        ("numpy", "__builtins__"),
        ("torch", "sys"),
        ("torch", "_C"),
        ("numpy", "ctypeslib"),
        ("sys", "modules"),
    }
)


# What loads a native library in the code of a recorded name (its own source, not what it calls:
# the grading child refuses a library loaded by path at run time, however reached).
LOADS_LIBRARIES = re.compile(r"\bCDLL\(|\bLoadLibrary\(|\bcdll\b|\bdlopen\(|\bload_library\(")


@pytest.mark.slow  # reads the code of every recorded name
def test_every_recorded_name_whose_code_loads_a_native_library_is_refused():
    sources: dict[str, str] = {}
    loaders = []
    for module, kinds in policy.names().modules.items():
        if module.split(".")[0] not in ("torch", "numpy") or not policy.allowed_import(module):
            continue
        try:
            imported = importlib.import_module(module)
        except Exception:  # a part of torch this machine cannot import (no CUDA) names nothing
            continue
        for name, kind in kinds.items():
            value = getattr(imported, name, None)
            if kind == "submodules" or not (inspect.isfunction(value) or inspect.isclass(value)):
                continue
            try:
                path = inspect.getsourcefile(value) or ""
            except TypeError:
                continue  # a builtin: no Python source
            if path not in sources:
                try:
                    sources[path] = Path(path).read_text(encoding="utf-8")
                except OSError:
                    sources[path] = ""
            if not LOADS_LIBRARIES.search(sources[path]):
                continue
            try:
                code = inspect.getsource(value)
            except (OSError, TypeError):
                continue
            if LOADS_LIBRARIES.search(code):
                loaders.append(f"{module}.{name}")
    assert "torch.cuda.memory.CUDAPluggableAllocator" in loaders, loaders
    allowed = [
        name
        for name in loaders
        if not policy.check(f"import {name.rpartition('.')[0]}\nx = {name}\n")
    ]
    assert not allowed, f"{allowed} load a native library, and the policy allows them"


def test_the_refused_names_are_found_in_the_data():
    for pair in [
        ("torch.optim.optimizer", "register_optimizer_step_pre_hook"),
        ("torch.nn.modules.module", "register_module_forward_hook"),
        ("torch.autograd.graph", "saved_tensors_hooks"),
        ("torch.utils.checkpoint", "TorchDispatchMode"),
        ("torch", "from_file"),
        ("copy", "dispatch_table"),
    ]:
        assert pair in REFUSED_NAMES, pair


ALLOWED_NAMES = [
    ("torch.nn", "Linear"),
    ("torch.nn.functional", "relu"),
    ("torch", "__version__"),
    ("torch", "float32"),
    ("math", "pi"),
]
FORMS = {
    "attribute": "import {module} as m\nx = m.{name}",
    "attribute-chain": "import {root}\nx = {module}.{name}",
    "from-import": "from {module} import {name}",
    "from-import-as": "from {module} import {name} as b",
    "getattr": "import {module} as m\nx = getattr(m, '{name}')",
    "getattr-default": "import {module} as m\nx = getattr(m, '{name}', None)",
    "getattr-table": "import {module} as m\nN = ('{name}',)\nx = getattr(m, N[0])",
    "attrgetter": "import operator\nimport {module} as m\nx = operator.attrgetter('{name}')(m)",
    "methodcaller": "import operator\nimport {module} as m\nx = operator.methodcaller('{name}')(m)",
    "match-class": "import {module} as m\nmatch m:\n    case object({name}=x):\n        pass",
}


def in_form(form: str, module: str, name: str) -> str:
    return FORMS[form].format(module=module, name=name, root=module.split(".")[0])


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("module, name", REFUSED_NAMES, ids=lambda v: v)
def test_every_form_of_a_refused_name_is_refused(module, name, form):
    assert refused(in_form("attribute", module, name)), "refused as an attribute"
    assert refused(in_form(form, module, name)), in_form(form, module, name)
    if name[0] != "_":  # import m.name only imports modules
        assert (
            refused(f"import {module}.{name} as b") or f"{module}.{name}" in policy.names().modules
        )


# attrgetter, methodcaller and a match take the owner as a value: a module passed on is refused on
# its own rule. A dunder in a table is a dunder in a string outside getattr's call: refused.
@pytest.mark.parametrize(
    "module, name, form",
    [
        (module, name, form)
        for module, name in ALLOWED_NAMES
        for form in sorted(set(FORMS) - {"attrgetter", "methodcaller", "match-class"})
        if not (form == "getattr-table" and name.startswith("__"))
    ],
)
def test_every_form_of_an_allowed_name_is_allowed(module, name, form):
    assert refused(in_form(form, module, name)) == [], in_form(form, module, name)


# The sinks the policy lists by name (methods of objects a test may hand over, such as a
# torch.fx GraphModule): each is refused in every form, on a module and on an argument.
SINK_NAMES = sorted(policy.SINKS)
ON_AN_ARGUMENT = {
    "attribute": "def f(o):\n    return o.{name}",
    "called": "def f(o):\n    return o.{name}('x')",
    "getattr": "def f(o):\n    return getattr(o, '{name}')",
    "getattr-table": "N = ('{name}',)\ndef f(o):\n    return getattr(o, N[0])",
    "attrgetter": "import operator\nf = operator.attrgetter('a.{name}')",
    "methodcaller": "import operator\nf = operator.methodcaller('{name}', 'x')",
    "methodcaller-table": "import operator\nN = ('{name}',)\nf = operator.methodcaller(N[0])",
    "match-class": "def f(o):\n    match o:\n        case object({name}=x):\n            return x",
}


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("name", SINK_NAMES)
def test_every_form_of_a_sink_is_refused(name, form):
    assert refused(in_form(form, "torch", name)), in_form(form, "torch", name)


@pytest.mark.parametrize("form", sorted(ON_AN_ARGUMENT))
@pytest.mark.parametrize("name", SINK_NAMES)
def test_every_form_of_a_sink_on_an_argument_is_refused(name, form):
    code = ON_AN_ARGUMENT[form].format(name=name)
    assert "sink" in {rule for _, rule in refused(code)}, code


def test_every_sink_is_a_name_the_installed_libraries_have():
    # A stale name (torch renames a method) would refuse nothing.
    import torch.fx
    import typing_extensions

    owners = (torch.fx.Graph, torch.fx.GraphModule, torch.fx.Interpreter, typing_extensions)
    for name in SINK_NAMES:
        assert any(hasattr(owner, name) for owner in owners), name


@pytest.mark.parametrize("dotted", sorted(policy.ANNOTATION_ONLY))
def test_the_types_of_torch_fx_are_names_in_annotations_only(dotted):
    module, _, name = dotted.rpartition(".")
    named = [
        f"import torch\ndef f(gm: {dotted}) -> '{dotted}':\n    return gm",
        f"from {module} import {name}\ndef f(gm: {name}, n: 'list[{name}]'):\n    return gm",
    ]
    for code in named:
        assert refused(code) == [], code
    used = [
        f"import torch\nm = {dotted}(1, 2)",
        f"from {module} import {name}\nM = {name}",
        f"import {module} as m\nM = getattr(m, '{name}')",
        f"from {module} import {name}\ndef f(x):\n    return isinstance(x, {name})",
    ]
    for code in used:
        assert "sink" in {rule for _, rule in refused(code)}, code


def test_the_sink_apis_are_found_in_the_data_and_granted_by_allow():
    for dotted in policy.SINK_APIS:
        module, _, name = dotted.rpartition(".")
        assert (module, name) in REFUSED_NAMES, dotted
    kata = KATAS["q48_export_deploy"]
    code = "import torch\ndef f(m, x):\n    return torch.export.export(m, (x,))"
    assert policy.check(code, kata.imports, allow=kata.allow) == []
    assert {f.rule for f in policy.check(code)} == {"sink"}


def test_every_module_level_registration_function_the_data_records_is_refused():
    # Found as a class, not listed: what a newer torch adds is refused as it is recorded.
    found = [
        (module, name)
        for module, kinds in public_names.load()["modules"].items()
        for name in kinds["other"]
        if name.startswith("register_")
    ]
    assert ("torch.optim.optimizer", "register_optimizer_step_post_hook") in found
    for module, name in found:
        per_object = name in policy.PER_OBJECT
        assert bool(refused(f"from {module} import {name}")) != per_object, (module, name)
    # The methods of that name register on one object: `model.register_forward_hook`; so do
    # the functions that take the object (a parametrization of one module).
    assert refused("def f(model):\n    return model.register_forward_hook(print)") == []
    symmetric = """
import torch
from torch.nn.utils import parametrize


class Symmetric(torch.nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


def symmetric(layer):
    parametrize.register_parametrization(layer, "weight", Symmetric())
    torch.nn.utils.parametrize.register_parametrization(layer, "bias", Symmetric())
    return layer
"""
    assert refused(symmetric) == []


def test_file_apis_need_the_katas_allow_key():
    code = "import torch\ndef f(x, path):\n    torch.save(x, path)\n    return torch.load(path)"
    assert KATAS["q28_checkpoint"].allow == ("torch.save", "torch.load")
    kata = KATAS["q28_checkpoint"]
    assert policy.check(code, kata.imports, allow=kata.allow) == []
    assert {f.rule for f in policy.check(code, KATAS["q13_cross_entropy"].imports)} == {"file"}


def test_every_name_the_policy_lists_is_one_the_data_records():
    # A stale name in FILE_APIS or SETTINGS would refuse or allow nothing.
    recorded = policy.names().modules
    for dotted in [*policy.FILE_APIS, *policy.SETTINGS]:
        module, _, name = dotted.rpartition(".")
        while module not in recorded:
            module, _, parent = module.rpartition(".")
            name = f"{parent}.{name}"
        assert name.split(".")[0] in recorded[module], dotted
    for module in [*policy.ALLOWED, *policy.ALLOWED_TORCH]:
        assert module in recorded, module


def test_a_name_missing_from_the_data_is_refused_with_the_versions_it_came_from():
    (finding,) = policy.check("import torch\nx = torch.newer_than_the_data(1)")
    data = public_names.load()
    assert f"recorded from torch {data['torch']}" in finding.text
    assert "not among the public names of torch" in finding.text


def test_the_data_records_type_aliases_as_the_modules_own_types():
    # `Device = str | torch.device | int | None`: its __module__ says types, yet it is no
    # re-export of the types module but an alias torch.types defines.
    import torch.types
    from torch.optim.optimizer import StateDict

    assert not public_names._foreign("torch.types", torch.types.Device)
    assert public_names._kind(StateDict) == "classes"
    modules = public_names.load()["modules"]
    assert "Device" in modules["torch.types"]["classes"]
    assert "ParamsT" in modules["torch.optim.optimizer"]["classes"]


def test_the_data_records_no_module_reached_as_an_attribute():
    data = public_names.load()
    for module, kinds in data["modules"].items():
        for name in kinds["submodules"]:
            assert f"{module}.{name}" in data["modules"], f"{module}.{name}"
        names = {name for listed in kinds.values() for name in listed}
        assert not names & {"sys", "os", "builtins", "gc", "importlib", "subprocess"}, module
    assert not any(refused in data["modules"] for refused in public_names.NOT_RECORDED)


# Imports each recorded module again (seconds). torch's and NumPy's parts are compared where
# the installed version is the recorded one; the standard modules' names are the union over
# the recorded Pythons, so this Python's must be among them where it is one of those (on
# Linux, where the data is made).
@pytest.mark.slow
def test_the_data_is_what_the_generator_makes_from_the_recorded_versions():
    # In a fresh interpreter, as the data is made: what a module lists depends on which of
    # its submodules this process has happened to import (torch.onnx.operators, say).
    code = "import json; from torch_katas.grading import public_names as p; "
    code += "print(json.dumps(p.generate()))"
    made = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    data, fresh = public_names.load(), json.loads(made.stdout)
    python = fresh["python"][0]
    same = {"torch": data["torch"] == fresh["torch"], "numpy": data["numpy"] == fresh["numpy"]}
    # The standard modules differ by platform (os, time): the data is read on Linux.
    same["python"] = python in data["python"] and sys.platform == "linux"
    if not any(same.values()):
        pytest.skip(f"no library here has a version the data records ({same})")

    def part(module: str) -> str:
        root = module.split(".")[0]
        return root if root in ("torch", "numpy") else "python"

    for module in sorted(set(data["modules"]) | set(fresh["modules"])):
        if not same[part(module)]:
            continue
        recorded, made = data["modules"].get(module), fresh["modules"].get(module)
        if part(module) != "python":
            assert recorded == made, module
        else:  # this Python's names are among the union's
            assert made is not None and recorded is not None, module
            for kind, names in made.items():
                assert set(names) <= set(recorded[kind]), (module, kind)


# -- strings that reach a compiler's command line ----------------------------------------------


def test_torch_compiles_settings_are_literals_that_configure_no_external_program():
    """Inductor pastes option values into the C++ compiler's command line (`cpp.march` with
    `-wrapper` runs a shell): mode= and options= are literals, and no option configures an
    external program (the compiler, its flags, paths) unless the kata allows it."""
    bad = {
        "torch.compile(fn, options={'cpp.march': s})": "built at run time",
        "torch.compile(fn, options={'cpp.march': 'native'})": "cpp.march",
        "torch.compile(fn, options={'cuda.cutlass_dir': '/x'})": "cuda.cutlass_dir",
        "torch.compile(fn, options={'max_autotune': s})": "built at run time",
        "torch.compile(fn, options=dict(max_autotune=True))": "built at run time",
        "torch.compile(fn, mode=s)": "built at run time",
        "torch.compile(fn, **s)": "with **",
        "torch.compile(options={s: True})(fn)": "built at run time",
        "torch.compiler.config.patch(job_id=s)": "built at run time",
    }
    for call, why in bad.items():
        found = policy.check(f"import torch\ndef f(fn, s):\n    return {call}\n")
        assert any(why in f.text for f in found), (call, found)
    # A module-level constant passed on only as options= is a literal; one used otherwise is not.
    constant = "import torch\nOPTIONS = {'max_autotune': False}\n"
    call = "def f(fn):\n    return torch.compile(fn, options=OPTIONS)\n"
    assert refused(constant + call) == []
    assert refused(constant + "OPTIONS['cpp.cxx'] = 'sh'\n" + call)
    good = [
        "torch.compile(fn, mode='reduce-overhead', fullgraph=True, dynamic=s)",
        "torch.compile(fn, backend=s, options={'triton.cudagraphs': False, 'compile_threads': 1})",
        "torch.compiler.config.patch(assume_static_by_default=not s)",
    ]
    for call in good:
        assert refused(f"import torch\ndef f(fn, s):\n    return {call}\n") == [], call
    # Taken as a value, its settings go where the call's keywords are not read.
    for taken in (
        "c = torch.compile\ndef f(fn, s):\n    return c(fn, options={'max_autotune': s})\n",
        "def f(fn, s):\n    return functools.partial(torch.compile, options=s)(fn)\n",
        "def f(fn, s):\n    return getattr(torch, 'compile')(fn, options=s)\n",
    ):
        found = policy.check("import functools\nimport torch\n" + taken)
        assert any("other than in a call of it" in f.text for f in found), taken
    decorated = "import torch\n@torch.compile\ndef f(x):\n    return x.sin()\n"
    assert refused(decorated) == []
    chosen = "import torch\ndef f(fn, long):\n"
    chosen += "    return torch.compile(fn, mode='max-autotune' if long else 'default')\n"
    assert refused(chosen) == []
    # Inductor's own config is private: refused however it is written to.
    assert refused("import torch\ntorch._inductor.config.cpp.march = 'x'\n")


# -- honest code that was refused --------------------------------------------------------------


def test_a_class_looked_up_along_its_mro_is_read_as_through_mro():
    # `type(m).__mro__` is what `type(m).mro()` gives, as a tuple: kata 17's honest answer
    # looks each class up in a table of schemes. Writes through it stay refused, as above.
    honest = (
        "from torch import nn\nSCHEMES = {nn.Linear: print}\ndef f(m):\n"
        "    for cls in type(m).__mro__:\n        if cls in SCHEMES:\n"
        "            return SCHEMES[cls](m)\n"
    )
    assert refused(honest) == []
    assert refused(honest.replace("__mro__", "mro()")) == []
    assert refused("def f(m):\n    for cls in type(m).__mro__:\n        cls.x = 1\n") == [
        (3, "patch")
    ]
    assert refused("def f(m):\n    return m.__mro__[-1].__subclasses__()\n") == [(2, "dunder")]


RECORD = "class R:\n    TEMPLATE = '{}'\n    def show(self, x):\n"
RECORD += "        return self.TEMPLATE.format(x)\n"


def test_a_template_chosen_between_literals_or_a_class_constant_is_a_literal():
    honest = [
        """
def check(name, value):
    return ("{} must be in (0, 1], got {}" if value == value else "{} is NaN ({})").format(
        name, value
    )
""",
        """
def check(name, value):
    message = "{} must be in (0, 1], got {}" if value == value else "{} is NaN ({})"
    return message.format(name, value)
""",
        """
class Report:
    TEMPLATE = "lr={:.3f}"

    def show(self, lr):
        return self.TEMPLATE.format(lr)
""",
    ]
    for text in honest:
        assert refused(text) == [], text
    # Bound to anything else anywhere, or named as a string or keyword: built at run time.
    run_time = [
        "def check(name, other):\n    message = '{}'\n    if other:\n        message = other\n"
        "    return message.format(name)\n",
        "def check(name, message='{}'):\n    return message.format(name)\n",
        "def check(name, a):\n    return ('{}' if a else a).format(name)\n",
        RECORD + "\ndef f(r, s):\n    r.TEMPLATE = s\n",
        RECORD + "\nclass S(R):\n    TEMPLATE = '{' + '}'\n",
        RECORD + "\ndef f(s):\n    return R.show(dict(TEMPLATE=s), 1)\n",
        RECORD.replace("TEMPLATE", "template"),
    ]
    for text in run_time:
        assert "string" in {rule for _, rule in refused(text)}, text


def test_fields_of_the_answers_own_object_given_to_its_helper_may_be_written():
    """A parameter annotated with the answer's own plain class is the answer's object when
    every call in the source passes one it made: the annotation alone is no guarantee (a
    torch.fx Node or a test's optimizer could be passed where a Phase is annotated)."""
    phase = """
import dataclasses


@dataclasses.dataclass
class Phase:
    name: str
    step: int
    target: float


def advance(phase: Phase, step: int) -> Phase:
    phase.name = "decay"
    phase.step = step  # a method of an optimizer, were one passed
    phase.target = 0.5
    return phase
"""
    made = "\n\ndef run(t):\n    first = Phase('warmup', 0, 1.0)\n"
    made += "    return advance(first, t), advance(Phase('decay', 1, 0.1), t)\n"
    assert refused(phase + made) == []
    for other in (
        "\n\ndef run(node):\n    return advance(node, 1)\n",  # whatever the caller passed
        "\n\ndef run(t):\n    return list(map(advance, [Phase('a', 0, 1.0)], [t]))\n",
        "\n\ndef run(t, args):\n    return advance(*args)\n",
        "",  # no call in the source: the tests' objects only
    ):
        rules = [rule for _, rule in refused(phase + other)]
        assert "sink" in rules and "patch" in rules, other
    # A class of the answer's that subclasses a library class is not plain.
    node = phase.replace("class Phase:", "class Phase(torch.fx.Node):").replace(
        "import dataclasses", "import dataclasses\nimport torch"
    )
    assert "sink" in [rule for _, rule in refused(node + made)]


def test_a_null_handler_may_go_on_any_logger():
    named = "import logging\nlogging.getLogger('pkg.name').addHandler(logging.NullHandler())\n"
    assert refused(named) == []
    for other in (
        "import logging\ndef f(h):\n    logging.getLogger('pkg').addHandler(h)\n",
        "import logging\nlogging.getLogger().addHandler(logging.StreamHandler())\n",
        "import logging\nlogging.getLogger('pkg').removeHandler(logging.NullHandler())\n",
    ):
        assert refused(other), other


# The state a kata's tests keep in the objects they hand over: kata 34's model counts its
# forward passes, and an answer that ran it twice took one off the count (graded solved).
# Each way to change that state is refused; reading it, and the same names on the answer's
# own objects, are fine.
TESTS = (
    "class CountsForwards:\n    def __init__(self):\n        self.forwards = 0\n"
    "        self.seen = []\n    def forward(self, x):\n        self.forwards += 1\n"
)
CHANGES_TESTS_STATE = {
    "augmented": "def f(model, x):\n    model(x)\n    model(x)\n    model.forwards -= 1",
    "assigned": "def f(model):\n    model.forwards = 1",
    "setattr": "def f(model):\n    setattr(model, 'forwards', 1)",
    "getattr-then-changed": "def f(probe):\n    getattr(probe, 'seen').clear()",
    "getattr-with-a-default-aliased": (
        "def f(probe):\n    s = getattr(probe, 'seen', None)\n    s[:] = []"
    ),
    "attrgetter-then-changed": (
        "import operator\ndef f(probe):\n    operator.attrgetter('seen')(probe).clear()"
    ),
    "attrgetter-handed-on": (
        "import operator\ndef f(probe):\n    g = operator.attrgetter('seen')\n    g(probe).clear()"
    ),
    "match-keyword-bound": (
        "def f(probe):\n    match probe:\n        case object(seen=s):\n            s.clear()"
    ),
    "match-fields-of-its-type": (
        "def f(probe):\n    T = type(probe)\n    match probe:\n        case T(s):\n"
        "            s.clear()"
    ),
    "for-target": "def f(model):\n    for model.forwards in [1]:\n        pass",
    "with-target": (
        "import contextlib\ndef f(model):\n"
        "    with contextlib.nullcontext(1) as model.forwards:\n        pass"
    ),
    "deleted": "def f(model):\n    del model.forwards",
    "in-a-chain": "def f(outer):\n    outer.inner.forwards = 1",
    "through-the-answers-object": (
        "class A:\n    def __init__(self, model):\n        self.model = model\n"
        "        self.model.forwards = 1"
    ),
    "list-cleared": "def f(probe):\n    probe.seen.clear()",
    "list-sliced": "def f(probe):\n    probe.seen[:] = []",
    "list-item-deleted": "def f(probe):\n    del probe.seen[0]",
    "setitem-called": "def f(probe):\n    probe.seen.__setitem__(0, 1)",
    "aliased-then-cleared": "def f(probe):\n    s = probe.seen\n    s.clear()",
    "aliased-then-extended": "def f(probe):\n    s = probe.seen\n    s += [1]",
    "aliased-twice-then-cleared": "def f(probe):\n    s = probe.seen\n    t = s\n    t.clear()",
    "aliased-then-returned": "def f(probe):\n    s = probe.seen\n    return s",
    "aliased-then-cleared-in-a-closure": (
        "def f(probe):\n    s = probe.seen\n    def g():\n        s.clear()\n    g()"
    ),
    "walrus-then-cleared": "def f(probe):\n    (s := probe.seen).clear()",
    "or-then-cleared": "def f(probe):\n    (probe.seen or []).clear()",
    "chosen-then-cleared": "def f(probe, c):\n    s = probe.seen if c else []\n    s.clear()",
    "unpacked-then-cleared": "def f(probe):\n    n, s = probe.forwards, probe.seen\n    s.clear()",
    "handed-to-a-function": "import heapq\ndef f(probe):\n    heapq.heappush(probe.seen, 1)",
    "through-its-class": "def f(probe):\n    list.clear(probe.seen)",
    "returned": "def f(probe):\n    return probe.seen",
    # An expression whose value is the state, or an element of it, carries it on.
    "or-then-changed": (
        "def f(model):\n    for module in model.modules():\n"
        "        notes = getattr(module, 'seen', None) or []\n"
        "        notes[:] = [(False, False) for _ in notes]"
    ),
    "chosen-then-changed": "def f(probe, c):\n    s = probe.seen if c else []\n    s.clear()",
    "aliased-or-then-changed": "def f(probe):\n    s = probe.seen\n    t = s or []\n    t.clear()",
    "largest-element-changed": "def f(probe):\n    s = max(probe.seen)\n    s.clear()",
    "loop-element-changed": "def f(probe):\n    for s in probe.seen:\n        s.clear()",
    "comprehension-element-changed": "def f(probe):\n    return [s.pop() for s in probe.seen]",
    "tensor-changed-in-place": "def f(probe):\n    probe.seen.zero_()",
    # The answer's own methods that Python hands an operand receive the state.
    "handed-to-its-own-contains": (
        "class Box:\n    def __contains__(self, item):\n        item.clear()\n"
        "        return True\ndef f(probe):\n    return probe.seen in Box()"
    ),
    "handed-to-its-own-getitem": (
        "class Box:\n    def __getitem__(self, key):\n        key.clear()\n"
        "def f(probe):\n    return Box()[probe.seen]"
    ),
    "handed-to-its-own-iadd": (
        "class Box:\n    def __iadd__(self, other):\n        other.clear()\n"
        "        return self\ndef f(probe):\n    box = Box()\n    box += probe.seen"
    ),
    # An object of the answer's own class put where the tests look for theirs.
    "own-object-put-in-by-index": (
        "import torch.nn as nn\nclass Fake(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.seen = []\n    def forward(self, x):\n"
        "        return x\ndef f(model):\n    for i, part in enumerate(model):\n"
        "        if hasattr(part, 'seen'):\n            model[i] = Fake()"
    ),
    "own-object-put-in-by-name": (
        "class Fake:\n    seen = ()\ndef f(model):\n    fake = Fake()\n"
        "    setattr(model, '0', fake)"
    ),
    # A builtin that reads, rebound by the answer, or handed a key function.
    "handed-to-a-builtin-it-rebinds": (
        "def any(notes):\n    notes.clear()\n    return True\ndef f(probe):\n    any(probe.seen)"
    ),
    "handed-to-a-builtin-bound-by-a-default": (
        "def f(probe, list=lambda x: x.clear()):\n    return list(probe.seen)"
    ),
    "elements-handed-to-a-key": (
        "def k(e):\n    e.clear()\n    return 0\n"
        "def f(probe):\n    return sorted(probe.seen, key=k)"
    ),
    # A layer of torch.nn (or any class of it) where the tests keep data, not a submodule.
    "torch-class-in-place-of-a-record": (
        "import torch\nimport torch.nn as nn\ndef f(probe):\n"
        "    probe.seen = nn.utils.rnn.PackedSequence(*[torch.zeros(2)] * 4)"
    ),
    "torch-layer-in-place-of-a-count": (
        "import torch.nn as nn\ndef f(m):\n    m.forwards = nn.Identity()"
    ),
    "own-object-made-by-a-function": (
        "class Fake:\n    pass\ndef make():\n    return [Fake()]\n"
        "def f(model):\n    model[0] = make()[0] or None"
    ),
    "torch-object-dressed-as-the-tests-put-in": (
        "import torch.nn as nn\ndef f(model):\n    stand_in = nn.Identity()\n"
        "    stand_in.seen = []\n    model[0] = stand_in"
    ),
    "own-object-put-in-by-a-loop": (
        "class Fake:\n    pass\ndef f(model):\n    for model[0] in [Fake()]:\n        pass"
    ),
    "own-object-added": "class Fake:\n    pass\ndef f(model):\n    model.add_module('0', Fake())",
    "own-object-into-private-dict": (
        "class Fake:\n    pass\ndef f(model):\n    model._modules['0'] = Fake()"
    ),
    "aliased-tensor-changed-in-place": (
        "def f(probe):\n    s = probe.seen\n    s.index_put_((0,), 1)"
    ),
    # A class's name bound again (a parameter, a lambda's, a match capture) is not its own.
    "own-class-name-as-a-parameter": (
        "class Tally:\n    seen = []\ndef f(Tally):\n    Tally.seen.clear()"
    ),
    "own-class-name-as-a-lambda-parameter": (
        "class Tally:\n    seen = []\ndef f(part):\n    (lambda Tally: Tally.seen.clear())(part)"
    ),
    "own-class-name-as-a-match-capture": (
        "class Tally:\n    seen = []\ndef f(part):\n    match part:\n"
        "        case object() as Tally:\n            Tally.seen.clear()"
    ),
    # An object of the answer's own class, made by one of the class's methods or its objects'.
    "own-object-made-by-a-classmethod": (
        "class Relay:\n    @classmethod\n    def fresh(cls):\n        return cls()\n"
        "def f(model):\n    model[0] = Relay.fresh()"
    ),
    "own-object-made-by-an-own-objects-method": (
        "class Relay:\n    def spawn(self):\n        return Relay()\n"
        "proto = Relay()\ndef f(model):\n    model[0] = proto.spawn()"
    ),
}


@pytest.mark.parametrize("case", sorted(CHANGES_TESTS_STATE))
def test_the_state_the_tests_keep_in_what_they_hand_over_is_refused(case):
    found = policy.check(CHANGES_TESTS_STATE[case], tests=TESTS)
    assert {f.rule for f in found} == {"patch"}, found
    # No such state without the tests, but for a private attribute (read only anyway).
    private = "._" in CHANGES_TESTS_STATE[case]
    assert private or policy.check(CHANGES_TESTS_STATE[case]) == []


def test_the_state_the_tests_keep_may_be_read_and_named_on_the_answers_own_objects():
    honest = (
        "import torch.nn as nn\n"
        "class Meter:\n    def __init__(self):\n        self.forwards = 0\n        self.seen = []\n"
        "    def add(self, x):\n        self.forwards += 1\n        self.seen.append(x)\n"
        "def f(model, x):\n    model(x)\n    n = model.forwards + len(model.seen)\n"
        "    model.forwards_seen = n\n    return n\n"
        "def g(model):\n    model.seen = nn.Identity()\n"
    )
    assert (
        policy.check(honest, tests=TESTS.replace("self.seen = []", "self.seen = nn.ReLU()")) == []
    )


# getattr(torch, "name"), hasattr and isinstance(x, type) hand a module or type to a builtin
# that only looks at it; a function of the answer's own under that name is handed it.
@pytest.mark.parametrize(
    "code",
    [
        "import torch\ndef getattr(m, name):\n    return m._C\ndef f():\n"
        "    return getattr(torch, 'float')",
        "import torch\ndef hasattr(m, name):\n    return m._C\ndef f():\n"
        "    return hasattr(torch, 'float')",
        "def isinstance(x, kind):\n    return kind('X', (float,), {})\ndef f(x):\n"
        "    return isinstance(x, type)",
        "import torch\nif True:\n    def getattr(m, name):\n        return m._C\ndef f():\n"
        "    return getattr(torch, 'float')",
        "import torch\ndef setup():\n    global hasattr\n    hasattr = lambda m, n: m._C\n"
        "def f():\n    return hasattr(torch, 'float')",
    ],
    ids=["getattr", "hasattr", "isinstance", "defined-under-an-if", "bound-by-global"],
)
def test_a_module_or_type_handed_to_the_answers_own_builtin_is_refused(code):
    # (`m._C` returned to the answer's own code is refused as well: a private attribute.)
    rules = [f.rule for f in policy.check(code) if f.rule != "patch"]
    assert rules in (["module"], ["builtin"])


def test_objects_of_the_answers_classes_go_into_its_own_containers_and_torch_layers_anywhere():
    honest = (
        "import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.layers = nn.ModuleList()\n"
        "        self.layers.append(Block2())\n        self.head = Block2()\n"
        "class Block2(nn.Module):\n    pass\n"
        "def f(model):\n    model[0] = nn.Identity()\n    model.head = nn.Linear(2, 2)\n"
        "    blocks = nn.Sequential()\n    blocks.append(Block())\n    return blocks\n"
    )
    assert policy.check(honest, tests=TESTS) == []


def test_the_tests_state_may_be_read_into_a_name_of_the_answers_own():
    # `head = model.head` reads; what is then done with `head` meets the rules of the state
    # (`n += 1` is refused on such a name: on a list it changes the state in place).
    honest = (
        "def f(model, x):\n    seen = model.seen\n    n, also = model.forwards, model.seen\n"
        "    first: int = seen[0]\n    if (count := len(seen)) > n:\n        return first + n\n"
        "    total = n + count + len(also or [])\n"
        "    for each in seen:\n        total = total + each\n"
        "    if model.seen and (model.forwards if n else 0):\n        total = total + 1\n"
        "    return total\n"
    )
    assert policy.check(honest, tests=TESTS) == []


def test_the_tests_state_may_be_read_by_name():
    honest = (
        "import operator\ndef f(probe):\n    n = len(getattr(probe, 'seen', []))\n"
        "    m = operator.attrgetter('forwards')(probe) + 1\n"
        "    for x in getattr(probe, 'seen'):\n        n += x\n"
        "    return n + m + getattr(probe, 'forwards')\n"
    )
    assert policy.check(honest, tests=TESTS) == []


def test_match_patterns_may_compare_the_tests_state_and_bind_it_from_own_classes():
    honest = (
        "from dataclasses import dataclass\n@dataclass\nclass Seen:\n    seen: list\n"
        "def f(probe):\n    match probe:\n        case object(forwards=0, seen=_):\n"
        "            return 0\n        case Seen(s) | Seen(seen=s):\n            return s\n"
        "        case int(n):\n            return n\n"
    )
    assert policy.check(honest, tests=TESTS) == []


# A dtype's name built at run time (`getattr(torch, f"float{bits}")`) names one of the dtypes
# torch or NumPy holds: each name of theirs with that start is judged as `torch.name` is.
DTYPE_NAMES_BUILT = [
    "import torch\ndef f(bits):\n    return getattr(torch, f'float{bits}')",
    "import torch\ndef f(bits):\n    return getattr(torch, 'int' + str(bits), None)",
    "import torch\ndef f(bits):\n    return hasattr(torch, f'bfloat{bits}')",
    "import numpy as np\ndef f(bits):\n    return getattr(np, f'uint{bits}')",
    "import torch\ndef f(x):\n    return getattr(torch, f'float8_e4m3{x}')",
]


@pytest.mark.parametrize("code", DTYPE_NAMES_BUILT)
def test_a_dtype_name_built_at_run_time_is_allowed(code):
    assert refused(code, ("numpy",)) == []


@pytest.mark.parametrize(
    "code",
    [
        "import torch\ndef f(x):\n    return getattr(torch, f'set_{x}')",
        "import torch\ndef f(x):\n    return getattr(torch, f'{x}float16')",
        "import torch\ndef f(x):\n    return getattr(torch.nn, f'float{x}')",
        "import torch\ndef f(x):\n    setattr(torch, f'float{x}', 1)",
        "def f(t, x):\n    return getattr(t, f'float{x}')",
    ],
)
def test_other_names_built_at_run_time_are_refused(code):
    assert "attribute-by-name" in [rule for _, rule in refused(code)]


def test_every_name_a_dtype_start_can_reach_is_recorded_or_harmless():
    # dtype_names judges the recorded names with the start; a module or a re-exported
    # function of another module held under such a name would pass unjudged.
    import re
    import types

    import numpy
    import torch

    from torch_katas.source_names import DTYPE_MODULES, DTYPE_START

    data = public_names.load()
    starts = re.compile(DTYPE_START.pattern.split("[")[0])
    for module in (torch, numpy):
        assert module.__name__ in DTYPE_MODULES
        recorded = {n for listed in data["modules"][module.__name__].values() for n in listed}
        same = module.__version__.split("+")[0] == data[module.__name__]
        for name in filter(starts.match, dir(module)):
            value = getattr(module, name)
            assert not isinstance(value, types.ModuleType), name
            assert not public_names._foreign(module.__name__, value), name
            assert not same or name in recorded, name


def test_kata_34s_answer_that_hides_its_second_forward_pass_is_refused():
    answer = (
        "import torch\ndef first_nonfinite_module(model, x):\n    with torch.no_grad():\n"
        "        model(x)\n    if hasattr(model, 'forwards'):\n        model.forwards -= 1\n"
    )
    kata = KATAS["q34_debug_nonfinite"]
    tests = kata.test_path(ROOT).read_text()
    assert "forwards" in policy.tests_state(tests)
    found = policy.check(answer, kata.imports, "<answer>", kata.allow, tests)
    assert [(f.line, f.rule) for f in found] == [(6, "patch")]
