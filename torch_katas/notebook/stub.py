"""A kata's stub file and the notebook cell that holds it.

A `%%kata N` cell is the stub's whole text below its first line. Saving it keeps the stub
it replaces as `katas reset` keeps an attempt (in .katas-backups/, unless it is the stub as
the suite ships it), and the file is only ever read as text here: the kernel never imports it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from torch_katas.catalog import Kata, UsageError
from torch_katas.cli.commands import original_stub, save_attempt

__all__ = [
    "cell_text",
    "save",
]


def cell_text(kata: Kata, code: str) -> str:
    """The cell that saves `code` as the kata's stub and runs its tests."""
    return f"%%kata {kata.number}\n{code}"


def save(root: Path, kata: Kata, text: str) -> bool:
    """Write `text` as the kata's stub, keeping the stub it replaces; False if unchanged."""
    if not text.strip():
        raise UsageError(
            f"the cell holds no code below %%kata {kata.number}; `%kata {kata.number}` "
            "writes the current stub into a new cell"
        )
    if not text.endswith("\n"):
        text += "\n"
    stub = kata.stub_path(root)
    current = stub.read_text(encoding="utf-8") if stub.exists() else None
    if current == text:
        return False
    if current is not None:
        try:
            original: str | None = original_stub(root, kata)
        except UsageError:  # not a git checkout: every stub counts as an attempt
            original = None
        if current != original:  # the untouched stub needs no backup
            save_attempt(root, kata, current)
    stub.write_text(text, encoding="utf-8")
    # The bytecode cache tells a changed file by its size and its mtime in whole seconds: two
    # saves of the same size within one second would run the older code. Drop the cache.
    Path(importlib.util.cache_from_source(str(stub))).unlink(missing_ok=True)
    return True
