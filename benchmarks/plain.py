"""Plain pytest for the kata tests: what the harness's cost is measured against.

    pytest -p no:torch_katas.plugin -p benchmarks.plain --device cpu ... (benchmarks/harness.py)

Only what the test bodies need to run: `katas.qNN_*` imported from solutions/, a `device`
fixture for the CPU, the markers. No state guard, no time limits of the harness's own, no
rules about imports, no progress, no summary.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any

import pytest
import torch

from torch_katas import catalog


class _Solutions(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`katas.q06_x` is `solutions.q06_x`."""

    def __init__(self, modules: set[str]):
        self.modules = modules

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        package, _, module = fullname.partition(".")
        if package == "katas" and module in self.modules:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec: Any) -> ModuleType:
        return importlib.import_module("solutions." + spec.name.partition(".")[2])

    def exec_module(self, module: ModuleType) -> None:
        pass


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--device", default="cpu")
    parser.addoption("--solutions", action="store_true")


def pytest_configure(config: pytest.Config) -> None:
    for name in ("cuda", "slow", "not_on_sim"):
        config.addinivalue_line("markers", name)
    katas = catalog.load(config.rootpath)
    for kata in katas.values():
        config.addinivalue_line("markers", kata.topic)
    torch.set_num_threads(1)
    sys.meta_path.insert(0, _Solutions(set(katas)))


@pytest.fixture
def device() -> torch.device:
    return torch.device("cpu")
