"""The IPython extension: `%load_ext torch_katas` in a Jupyter or IPython kernel gives the
%kata magics (magics.py), which save a cell as a kata's stub (stub.py) and run the kata's
tests in a fresh process (run.py). It sits above the CLI, whose commands and backups it
reuses; the kernel imports neither torch nor any kata.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "load_ipython_extension",
]


def load_ipython_extension(ipython: Any) -> None:
    from torch_katas.notebook.magics import KataMagics  # IPython: only inside a kernel

    ipython.register_magics(KataMagics)
