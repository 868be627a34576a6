import sys

import pytest

from torch_katas.answers import is_kata_package


class _Reports:
    def __init__(self):
        self.reports: list[pytest.TestReport] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reports.append(report)


@pytest.fixture
def run_pytest_inline():
    """Run pytest in this process and return its test reports.

    Unlike pytester's in-process runs, this keeps every module the run imported except the
    kata modules: torch registers native operators when some of its modules are first
    imported, and importing them a second time fails.
    """

    def run(*args: str) -> list[pytest.TestReport]:
        recorder = _Reports()
        kata_modules = {n: m for n, m in sys.modules.items() if is_kata_package(n)}
        try:
            pytest.main([*args, "-p", "no:cacheprovider", "-q"], plugins=[recorder])
        finally:
            for name in [n for n in sys.modules if is_kata_package(n)]:
                del sys.modules[name]
            sys.modules.update(kata_modules)
        return recorder.reports

    return run
