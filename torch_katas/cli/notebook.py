"""`katas notebook`: a Jupyter notebook with one section per kata, for the %kata magics.

Each section is the kata's task in Markdown (its stub's module docstring) and a cell holding
its stub as it is now, under `%%kata N`: running that cell saves it and runs the kata's tests
(torch_katas/notebook/). The notebook holds no second copy of anything once a cell has run:
the stub files stay the learner's code, the store the learner's progress.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from typing import Any

from torch_katas import catalog
from torch_katas.catalog import Kata, UsageError

__all__ = [
    "cmd_notebook",
]

NOTEBOOK = "katas.ipynb"
INTRO = """# torch-katas

Each section below is one kata: its task, then a cell holding its stub. Edit the cell and
run it (Shift+Enter): its first line, `%%kata N`, saves the cell as the kata's stub in
`katas/` (the version it replaces is kept in `.katas-backups/`) and runs the kata's tests in a
fresh process, on the CPU and on every GPU this machine has, with your progress at the end.

`%kata hint N` shows the next hint, `%kata next` the kata to do next, `%kata list` every kata
with its status, `%kata solution N` the reference answer once you have solved kata N, and
`%kata N` the stub as it is now, in a new cell. Run the next cell first."""


def task(code: str) -> str | None:
    """The stub's module docstring; None where the stub does not parse or has none."""
    try:
        return ast.get_docstring(ast.parse(code))
    except SyntaxError:
        return None


def section(root: Path, kata: Kata) -> list[Any]:
    import nbformat.v4 as v4

    path = kata.stub_path(root)
    code = path.read_text(encoding="utf-8")
    relative = path.relative_to(root).as_posix()
    about = task(code) or f"(`{relative}` does not parse: its code is in the cell below.)"
    heading = f"## {kata.label} {kata.title}"
    where = f"{kata.topic}, difficulty {kata.difficulty} of 3: `{relative}`"
    return [
        v4.new_markdown_cell(f"{heading}\n\n{where}\n\n{about}", id=f"{kata.label}-task"),
        v4.new_code_cell(f"%%kata {kata.number}\n{code}", id=f"{kata.label}-stub"),
    ]


def build(root: Path, chosen: list[Kata]) -> Any:
    import nbformat.v4 as v4

    cells = [
        v4.new_markdown_cell(INTRO, id="intro"),
        v4.new_code_cell("%load_ext torch_katas", id="load"),
    ]
    for kata in chosen:
        cells += section(root, kata)
    metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }
    return v4.new_notebook(cells=cells, metadata=metadata)


def cmd_notebook(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    try:
        import nbformat
    except ImportError:
        raise UsageError(
            'writing a notebook needs nbformat: pip install -e ".[notebook]"'
        ) from None
    chosen = catalog.pick(katas, args.katas) if args.katas else catalog.suggested_order(root, katas)
    out = Path(args.out) if args.out else root / NOTEBOOK
    if out.exists() and not args.force:
        raise UsageError(f"{out} exists and may hold your work: --force replaces it")
    notebook = build(root, chosen)
    nbformat.validate(notebook)
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(out))
    print(f"wrote {out} with {len(chosen)} kata(s); {how_to_open(out)}")
    return 0


# Front ends that open a notebook, by the module that comes with each, and their command.
FRONT_ENDS = (("jupyterlab", "jupyter lab"), ("notebook", "jupyter notebook"))


def how_to_open(path: Path) -> str:
    """The command that opens the notebook with a front end installed here; where none is,
    how to install one (the notebook extra brings JupyterLab)."""
    import importlib.util

    for module, command in FRONT_ENDS:
        if importlib.util.find_spec(module) is not None:
            return f"open it: {command} {path}"
    return (
        "no Jupyter front end is installed here: pip install jupyterlab (or pip install -e "
        f'".[notebook]"), then: jupyter lab {path}; or open it in VS Code'
    )
