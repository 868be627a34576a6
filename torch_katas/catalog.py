"""The kata catalogue: `katas/katas.toml`, the one list of every kata, and how to pick from it."""

from __future__ import annotations

import functools
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "CATALOG",
    "CatalogError",
    "Kata",
    "UsageError",
    "files_digest",
    "find_root",
    "load",
    "module_of",
    "pick",
    "sha256",
    "suggested_order",
    "tomllib",
    "topic_of",
    "topics",
]

CATALOG = Path("katas") / "katas.toml"
KATA_MODULE = re.compile(r"q(\d\d)_[a-z0-9_]+")


class UsageError(Exception):
    """A problem with what was asked; the message says what to do instead."""


class CatalogError(UsageError):
    """katas.toml does not say what the suite needs; the message names the entry and key."""


@dataclass(frozen=True)
class Kata:
    number: int
    module: str
    title: str
    topic: str
    difficulty: int
    hints: tuple[str, ...]
    # Modules a correct answer of this kata may import beyond the ones every answer may
    # (the policy for returned code, grading/policy.py).
    imports: tuple[str, ...] = ()
    # File and process APIs a correct answer of this kata may use (`torch.save`): the policy
    # refuses them elsewhere.
    allow: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"q{self.number:02d}"

    def stub_path(self, root: Path) -> Path:
        return root / "katas" / f"{self.module}.py"

    def test_path(self, root: Path) -> Path:
        return root / "katas" / f"{self.module}_test.py"

    def solution_path(self, root: Path) -> Path:
        return root / "solutions" / f"{self.module}.py"


# Each key of a [[kata]] entry, its type, and whether it may be left out.
_FIELDS: dict[str, tuple[type, bool]] = {
    "number": (int, True),
    "module": (str, True),
    "title": (str, True),
    "topic": (str, True),
    "difficulty": (int, True),
    "hints": (list, True),
    "imports": (list, False),
    "allow": (list, False),
}


def _kata(entry: Any, place: str) -> Kata:
    if not isinstance(entry, dict):
        raise CatalogError(f"{place} is not a table of keys")
    unknown = sorted(set(entry) - set(_FIELDS))
    if unknown:
        raise CatalogError(f"{place} has unknown keys {unknown}; known: {sorted(_FIELDS)}")
    for key, (kind, required) in _FIELDS.items():
        if key not in entry:
            if required:
                raise CatalogError(f"{place} lacks the key {key!r}")
            continue
        value = entry[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise CatalogError(f"{place}: {key} must be a {kind.__name__}, got {value!r}")
        if isinstance(value, list) and not all(isinstance(item, str) for item in value):
            raise CatalogError(f"{place}: {key} must be a list of strings")
    module = entry["module"]
    if not KATA_MODULE.fullmatch(module) or int(module[1:3]) != entry["number"]:
        raise CatalogError(
            f"{place}: module {module!r} must be q{entry['number']:02d}_name (lower case)"
        )
    if entry["difficulty"] not in (1, 2, 3):
        raise CatalogError(f"{place}: difficulty must be 1, 2 or 3, got {entry['difficulty']}")
    return Kata(
        number=entry["number"],
        module=module,
        title=entry["title"],
        topic=entry["topic"],
        difficulty=entry["difficulty"],
        hints=tuple(entry["hints"]),
        imports=tuple(entry.get("imports", ())),
        allow=tuple(entry.get("allow", ())),
    )


def _read(root: Path) -> dict[str, Any]:
    """katas.toml's contents: parsed once per version of the file (a run reads it several
    times, and each parse costs milliseconds). Callers only read what it returns."""
    path = root / CATALOG
    stat = path.stat()
    return _parse(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _parse(path: Path, mtime_ns: int, size: int) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise CatalogError(f"{path} is not valid TOML: {error}") from None


def load(root: Path) -> dict[str, Kata]:
    """Read the catalogue under `root`, keyed by module name, in kata order.

    Raises CatalogError (a UsageError) naming the entry and key where katas.toml is wrong.
    """
    data = _read(root)
    entries = data.get("kata", [])
    if not isinstance(entries, list):
        raise CatalogError(f"{root / CATALOG}: [[kata]] entries expected")
    katas = [_kata(entry, f"{CATALOG} entry {place}") for place, entry in enumerate(entries, 1)]
    by_module = {kata.module: kata for kata in sorted(katas, key=lambda k: k.number)}
    numbers = [kata.number for kata in katas]
    if len(by_module) != len(katas) or len(set(numbers)) != len(numbers):
        raise CatalogError(f"{root / CATALOG}: two entries share a number or module")
    return by_module


def topics(root: Path) -> list[str]:
    """Every topic, in the order katas.toml suggests them; topics it does not list come
    last, in the order of their first kata."""
    order = [str(topic) for topic in _read(root).get("topics", [])]
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


def find_root(start: Path) -> Path:
    """The torch-katas folder holding `start`."""
    for folder in (start, *start.parents):
        if (folder / CATALOG).is_file():
            return folder
    raise UsageError(
        f"no {CATALOG} in {start} or above: run this inside a torch-katas folder or pass --root"
    )


def pick(katas: dict[str, Kata], wanted: list[str], topics: bool = False) -> list[Kata]:
    """Katas by number (6, 06, q06) or module name, in the order given; with `topics`, a
    topic's name stands for its katas, in number order."""
    by_number = {kata.number: kata for kata in katas.values()}
    known_topics = {kata.topic for kata in katas.values()}
    chosen: list[Kata] = []
    for name in wanted:
        found = [katas[name]] if name in katas else []
        digits = name.lower().removeprefix("q")
        if not found and digits.isdigit() and int(digits) in by_number:
            found = [by_number[int(digits)]]
        if not found and topics and name in known_topics:
            found = [kata for kata in katas.values() if kata.topic == name]
        if not found:
            also = " or a topic such as autograd" if topics else ""
            raise UsageError(
                f"no kata {name!r}: give a number such as 6{also}, or run `katas list`"
            )
        chosen += [kata for kata in found if kata not in chosen]
    return chosen


def topic_of(katas: dict[str, Kata], name: str | None) -> str | None:
    """`name` where it is a topic (None stays None); else a UsageError listing the topics."""
    names = sorted({kata.topic for kata in katas.values()})
    if name is not None and name not in names:
        raise UsageError(f"no topic {name!r}; topics: {', '.join(names)}")
    return name


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def files_digest(*paths: Path) -> str | None:
    """One digest of the files' contents; None when one cannot be read."""
    hasher = hashlib.sha256()
    try:
        for path in paths:
            hasher.update(path.read_bytes())
    except OSError:
        return None
    return hasher.hexdigest()
