"""The policy for returned code (torch_katas/grading/policy.py): what it refuses, and that it
refuses nothing in honest answers: the reference answers, the stubs, and answers written
independently of them in other styles."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torch_katas import catalog, cli
from torch_katas.grading import policy

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)

# Correct answers written without looking at the reference answers, each in a style of its
# own; test_independent_answers_pass_their_katas checks that they are correct.
INDEPENDENT = {
    # A loop from the right with a private helper, f-strings, views for the channels.
    "q05_broadcasting": """
        from __future__ import annotations

        import torch


        def _from_the_right(shape: tuple[int, ...], count: int) -> tuple[int, ...]:
            return (1,) * (count - len(shape)) + tuple(shape)


        def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
            count = max(len(a), len(b))
            left, right = _from_the_right(a, count), _from_the_right(b, count)
            out = []
            i = count - 1
            while i >= 0:
                x, y = left[i], right[i]
                if x == y or y == 1:
                    out.append(x)
                elif x == 1:
                    out.append(y)
                else:
                    raise ValueError(f"cannot broadcast {tuple(a)} with {tuple(b)}")
                i -= 1
            return tuple(reversed(out))


        def normalize_channels(
            images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor
        ) -> torch.Tensor:
            if images.ndim != 4:
                raise ValueError(f"expected [N, C, H, W], got {images.ndim} dims")
            c = images.size(1)
            if tuple(mean.shape) != (c,) or tuple(std.shape) != (c,):
                shapes = f"{list(mean.shape)} and {list(std.shape)}"
                raise ValueError(f"mean and std must have shape [{c}], got {shapes}")
            return (images - mean.view(1, c, 1, 1)) / std.view(1, c, 1, 1)
    """,
    # functools.singledispatch on annotated helpers, a namedtuple told by its _fields.
    "q26_to_device": """
        import copy
        import functools
        from typing import Any

        import torch


        @functools.singledispatch
        def _move(value: Any, device: torch.device | str) -> Any:
            return value


        @_move.register
        def _(value: torch.Tensor, device: torch.device | str) -> torch.Tensor:
            return value.to(device)


        @_move.register
        def _(value: dict, device: torch.device | str) -> dict:
            out = copy.copy(value)
            out.update({key: _move(item, device) for key, item in value.items()})
            return out


        @_move.register
        def _(value: list, device: torch.device | str) -> list:
            return [_move(item, device) for item in value]


        @_move.register
        def _(value: tuple, device: torch.device | str) -> tuple:
            items = [_move(item, device) for item in value]
            return type(value)(*items) if hasattr(value, "_fields") else tuple(items)


        def to_device(batch: Any, device: torch.device | str) -> Any:
            return _move(batch, device)
    """,
    # A dataclass with private fields and __post_init__; a penalty over a filtered list.
    "q29_penalty_early_stopping": """
        import math
        from dataclasses import dataclass, field
        from typing import Optional

        import torch
        from torch import nn


        def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
            if min(l1, l2) < 0:
                raise ValueError("l1 and l2 must not be negative")
            params = list(model.parameters())
            if not params:
                return torch.zeros(())
            total = torch.zeros((), dtype=params[0].dtype, device=params[0].device)
            for p in filter(lambda p: p.ndim >= 2, params):
                total = total + l1 * p.abs().sum() + l2 * (p * p).sum()
            return total


        @dataclass
        class EarlyStopping:
            patience: int
            min_delta: float = 0.0
            best_loss: float = field(default=math.inf, init=False)
            _saved: Optional[dict] = field(default=None, init=False, repr=False)
            _waited: int = field(default=0, init=False, repr=False)

            def __post_init__(self) -> None:
                if not self.patience >= 1:
                    raise ValueError(f"patience must be at least 1, got {self.patience}")
                if not self.min_delta >= 0:
                    raise ValueError(f"min_delta must be >= 0, got {self.min_delta}")

            def step(self, val_loss: float, model: nn.Module) -> bool:
                if math.isfinite(val_loss) and val_loss < self.best_loss - self.min_delta:
                    self.best_loss = val_loss
                    self._saved = {k: v.detach().clone() for k, v in model.state_dict().items()}
                    self._waited = 0
                else:
                    self._waited += 1
                return self._waited >= self.patience

            def restore_best(self, model: nn.Module) -> None:
                if self._saved is None:
                    raise RuntimeError("no epoch has improved yet: nothing to restore")
                model.load_state_dict(self._saved)
    """,
    # A Dataset with super().__init__(), private state, negative indices, padding by hand.
    "q25_dataset_loader": """
        from collections.abc import Callable
        from typing import Any

        import torch
        from torch.utils.data import DataLoader, Dataset


        class SlidingWindows(Dataset):
            def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
                super().__init__()
                if window < 1 or stride < 1:
                    raise ValueError("window and stride must both be at least 1")
                self.series, self.window, self.stride = series, window, stride
                room = len(series) - 1 - window
                self._count = room // stride + 1 if room >= 0 else 0

            def __len__(self) -> int:
                return self._count

            def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
                if index < 0:
                    index += self._count
                if not 0 <= index < self._count:
                    raise IndexError(f"index {index} out of range")
                start = index * self.stride
                return self.series[start : start + self.window], self.series[start + self.window]


        def pad_collate(
            batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            sequences = [sequence for sequence, _ in batch]
            labels = torch.stack([label for _, label in batch])
            longest = max(sequence.shape[0] for sequence in sequences)
            first = sequences[0]
            padded = first.new_full((len(sequences), longest, *first.shape[1:]), padding_value)
            for i, sequence in enumerate(sequences):
                padded[i, : sequence.shape[0]] = sequence
            lengths = torch.tensor([s.shape[0] for s in sequences], dtype=torch.int64)
            return padded, lengths, labels


        def make_loader(
            dataset: Dataset,
            batch_size: int,
            seed: int,
            collate_fn: Callable[[list], Any] | None = None,
        ) -> DataLoader:
            generator = torch.Generator()
            generator.manual_seed(seed)
            return DataLoader(
                dataset,
                batch_size=batch_size,
                shuffle=True,
                generator=generator,
                collate_fn=collate_fn,
                num_workers=0,
            )
    """,
    # ModuleLists, a name-mangled private attribute, __class__.__name__ in extra_repr.
    "q09_mlp_module": """
        import math
        from collections.abc import Callable, Sequence

        import torch
        from torch import nn


        class MLP(nn.Module):
            def __init__(
                self,
                sizes: Sequence[int],
                activation: Callable[[], nn.Module] = nn.ReLU,
                dropout: float = 0.0,
            ) -> None:
                super().__init__()
                sizes = list(sizes)
                if len(sizes) < 2 or min(sizes) < 1:
                    raise ValueError(f"need two or more positive sizes, got {sizes}")
                if math.isnan(dropout) or not 0 <= dropout < 1:
                    raise ValueError(f"dropout must be in [0, 1), got {dropout}")
                self.linears = nn.ModuleList()
                self.activations = nn.ModuleList()
                self.dropouts = nn.ModuleList()
                for i in range(len(sizes) - 1):
                    self.linears.append(nn.Linear(sizes[i], sizes[i + 1]))
                    if i < len(sizes) - 2:
                        self.activations.append(activation())
                        self.dropouts.append(nn.Dropout(dropout))
                self.__depth = len(self.linears)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                *hidden, last = self.linears
                for linear, act, drop in zip(hidden, self.activations, self.dropouts):
                    x = drop(act(linear(x)))
                return last(x)

            def extra_repr(self) -> str:
                return f"{self.__class__.__name__} of {self.__depth} Linear layers"


        def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
            chosen = (p for p in model.parameters() if p.requires_grad or not trainable_only)
            return sum(map(lambda p: p.numel(), chosen))
    """,
}


def source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def refused(text: str, extra: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    return [(finding.line, finding.rule) for finding in policy.check(source(text), extra)]


def test_reference_answers_and_stubs_pass_the_policy():
    for kata in KATAS.values():
        for path in (kata.solution_path(ROOT), kata.stub_path(ROOT)):
            assert policy.check_file(path, kata.imports, kata.allow) == [], path


@pytest.mark.parametrize("module", sorted(INDEPENDENT))
def test_independent_answers_pass_the_policy(module):
    assert policy.check(source(INDEPENDENT[module]), KATAS[module].imports) == []


# Runs five katas' tests in a pytest process of its own: a few seconds, longer on a busy
# machine, so it has a time limit of its own.
@pytest.mark.timeout(300)
def test_independent_answers_pass_their_katas(tmp_path):
    files = []
    for module, text in INDEPENDENT.items():
        path = tmp_path / f"{module}__independent.py"
        path.write_text(source(text))
        files += ["--answer-file", str(path)]
    tests = [f"katas/{module}_test.py" for module in INDEPENDENT]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *tests, *files, "-q", "-p", "no:cacheprovider"],
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
    assert (
        refused("import torch\ntorch._dynamo.explain", KATAS["q38_compile_graph_breaks"].imports)
        == []
    )
    assert (2, "private") in refused("import torch\ntorch._dynamo.explain")
    # io where a kata writes files: the builtin open is io.open.
    assert refused("open('x', 'wb')", KATAS["q28_checkpoint"].imports) == []
    assert refused("open('x', 'wb')") == [(1, "builtin")]
    # os where a kata writes files, without what starts or ends processes.
    assert refused("import os\nos.replace('a', 'b')\nos.fork()", ("os",)) == [(3, "process")]


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
