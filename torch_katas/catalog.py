"""The kata catalogue: `katas/katas.toml`, the one list of every kata."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CATALOG = Path("katas") / "katas.toml"
KATA_MODULE = re.compile(r"q(\d\d)_[a-z0-9_]+")


@dataclass(frozen=True)
class Kata:
    number: int
    module: str
    title: str
    topic: str
    difficulty: int
    hints: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"q{self.number:02d}"

    def stub_path(self, root: Path) -> Path:
        return root / "katas" / f"{self.module}.py"

    def test_path(self, root: Path) -> Path:
        return root / "katas" / f"{self.module}_test.py"

    def solution_path(self, root: Path) -> Path:
        return root / "solutions" / f"{self.module}.py"


def load(root: Path) -> dict[str, Kata]:
    """Read the catalogue under `root`, keyed by module name, in kata order."""
    data = tomllib.loads((root / CATALOG).read_text(encoding="utf-8"))
    katas = [
        Kata(
            number=entry["number"],
            module=entry["module"],
            title=entry["title"],
            topic=entry["topic"],
            difficulty=entry["difficulty"],
            hints=tuple(entry["hints"]),
        )
        for entry in data.get("kata", [])
    ]
    return {kata.module: kata for kata in sorted(katas, key=lambda k: k.number)}


def topics(root: Path) -> list[str]:
    """Every topic, in the order katas.toml suggests them; topics it does not list come
    last, in the order of their first kata."""
    data = tomllib.loads((root / CATALOG).read_text(encoding="utf-8"))
    order = list(data.get("topics", []))
    for kata in load(root).values():
        if kata.topic not in order:
            order.append(kata.topic)
    return order


def suggested_order(root: Path, katas: dict[str, Kata]) -> list[Kata]:
    """Topic by topic as katas.toml orders them, easier katas first within a topic."""
    rank = {topic: place for place, topic in enumerate(topics(root))}
    return sorted(katas.values(), key=lambda k: (rank[k.topic], k.difficulty, k.number))


def module_of(path: Path) -> str | None:
    """The kata module a stub, test, solution or wrong-answer file belongs to.

    `q06_autograd.py`, `q06_autograd_test.py` and `q06_autograd__no_reset.py` all give
    `q06_autograd`; anything else gives None.
    """
    stem = path.stem.split("__")[0].removesuffix("_test")
    return stem if KATA_MODULE.fullmatch(stem) else None
