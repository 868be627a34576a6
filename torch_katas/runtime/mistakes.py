"""The curated wrong answers, each stored as the change it makes to its kata's reference answer.

A mistake is `tests/wrong_answers/<kata module>__<name>.diff`: what it gets wrong, in words
(the text before the first hunk), then the hunks of a unified diff against
`solutions/<kata module>.py` (no `---`/`+++` lines: the file's name says which reference and
which mistake; `patch solutions/<kata module>.py < it` applies it too). Applying it is strict,
as `patch` without fuzz: each hunk's context and removed lines must be found in the reference
exactly as written (an offset is allowed), so an edit to the reference that touches a
mistake's lines stops that mistake from applying until someone looks at it again.

The self-checks, the mutation job and `katas solution` read mistakes through this module; the
contributor's command that stores a wrong module as a diff is tests/store_mistakes.py.
"""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from torch_katas.catalog import module_of

__all__ = ["SUFFIX", "WRONG_ANSWERS", "Mistake", "PatchError", "apply", "make_diff", "mistakes"]

WRONG_ANSWERS = Path("tests") / "wrong_answers"
SUFFIX = ".diff"
CONTEXT = 1  # lines of context around an added block: enough to place it, few enough to read
HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class PatchError(ValueError):
    """A mistake's diff does not apply to its reference as it stands."""


@dataclass(frozen=True)
class Mistake:
    path: Path  # the .diff

    @property
    def name(self) -> str:
        """`q13_cross_entropy__calls_log_softmax`: also the stem of the module it writes."""
        return self.path.stem

    @property
    def module(self) -> str:
        module = module_of(self.path)
        if module is None:
            raise ValueError(f"{self.path.name} names no kata")
        return module

    @property
    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    @property
    def description(self) -> str:
        """What the mistake gets wrong, on one line ("Wrong: ...")."""
        return " ".join(self.text.partition("\n@@ ")[0].split())

    def reference(self, root: Path) -> Path:
        return root / "solutions" / f"{self.module}.py"

    def source(self, root: Path) -> str:
        """The whole wrong module: the diff applied to its reference."""
        try:
            return apply(self.reference(root).read_text(encoding="utf-8"), self.text)
        except PatchError as error:
            raise PatchError(f"{self.path.name}: {error}") from None

    def write(self, folder: Path, root: Path) -> Path:
        """Write the whole wrong module as `folder/<name>.py` (a name `--answer-file` takes)."""
        path = folder / f"{self.name}.py"
        path.write_text(self.source(root), encoding="utf-8")
        return path


def mistakes(root: Path, module: str | None = None) -> list[Mistake]:
    """The suite's mistakes (of one kata module, if given), by name; none in a folder
    without tests/wrong_answers/ (a take-home)."""
    pattern = f"{module}__*{SUFFIX}" if module else f"q*__*{SUFFIX}"
    return [Mistake(path) for path in sorted((root / WRONG_ANSWERS).glob(pattern))]


def make_diff(reference: str, wrong: str, description: str) -> str:
    """The stored form of a mistake: its description, then the hunks of the diff from the
    reference to the wrong module. A hunk that removes lines is placed by them alone; one that
    only adds keeps a line of context on each side to say where."""
    diff = difflib.unified_diff(reference.splitlines(), wrong.splitlines(), n=CONTEXT, lineterm="")
    lines = list(diff)[2:]  # without the --- and +++ lines
    starts = [i for i, line in enumerate(lines) if HUNK.match(line)] + [len(lines)]
    hunks = [_trimmed(lines[a], lines[a + 1 : b]) for a, b in itertools.pairwise(starts)]
    return description.strip() + "\n" + "\n".join(line for hunk in hunks for line in hunk) + "\n"


def _trimmed(header: str, body: list[str]) -> list[str]:
    """A hunk without its outer context lines, where it removes lines (they place it)."""
    if not any(line.startswith("-") for line in body):
        return [header, *body]
    match = HUNK.match(header)
    assert match is not None
    lead = next(i for i, line in enumerate(body) if line[:1] in ("-", "+"))
    tail = next(i for i, line in enumerate(reversed(body)) if line[:1] in ("-", "+"))
    body = body[lead : len(body) - tail]
    old = sum(1 for line in body if line[:1] != "+")
    new = sum(1 for line in body if line[:1] != "-")
    ranges = f"-{_range(int(match[1]) + lead, old)} +{_range(int(match[3]) + lead, new)}"
    return [f"@@ {ranges} @@", *body]


def _range(start: int, length: int) -> str:
    """A hunk's range as unified diffs write it (an empty range names the line before)."""
    if length == 1:
        return str(start)
    return f"{start - 1 if length == 0 else start},{length}"


def hunks(diff: str) -> list[tuple[int, list[str], list[str]]]:
    """Each hunk of a unified diff as (first old line, old lines, new lines)."""
    found: list[tuple[int, list[str], list[str]]] = []
    lines = diff.splitlines()
    start = next((i for i, line in enumerate(lines) if HUNK.match(line)), len(lines))
    for line in lines[start:]:
        if match := HUNK.match(line):
            found.append((int(match[1]), [], []))
        elif line.startswith("\\"):  # "\ No newline at end of file"
            continue
        elif line[:1] in ("", " ", "-", "+"):  # an editor may strip a blank line's space
            mark, text = line[:1] or " ", line[1:]
            if mark != "+":
                found[-1][1].append(text)
            if mark != "-":
                found[-1][2].append(text)
        else:
            raise PatchError(f"not a line of a unified diff: {line!r}")
    if not found:
        raise PatchError("holds no diff (@@ hunks of a unified diff)")
    return found


def apply(reference: str, diff: str) -> str:
    """`reference` with the diff's hunks applied; PatchError when one does not apply."""
    lines = reference.splitlines()
    result: list[str] = []
    done = 0  # lines of the reference consumed so far
    for first, old, new in hunks(diff):
        places = [
            at for at in range(done, len(lines) - len(old) + 1) if lines[at : at + len(old)] == old
        ]
        if not places:
            raise PatchError(
                f"the hunk at line {first} no longer applies to the reference (its lines "
                "changed): look at the mistake again and store it anew (tests/store_mistakes.py)"
            )
        at = min(places, key=lambda place: abs(place - (first - 1)))
        result += lines[done:at] + new
        done = at + len(old)
    return "\n".join(result + lines[done:]) + "\n"
