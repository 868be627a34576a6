"""The learner's commands: list, next, hint, solution, reset, restore and run (watch: watch.py)."""

from __future__ import annotations

import argparse
import ast
import datetime
import difflib
import itertools
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

from torch_katas import catalog, status
from torch_katas.catalog import Kata, UsageError, pick
from torch_katas.practice import bughunt
from torch_katas.runtime import mistakes
from torch_katas.store import CHANGED, Progress, Store
from torch_katas.text import fit

__all__ = [
    "BACKUPS",
    "backups",
    "chosen_or_current",
    "cmd_grade",
    "cmd_gradescope",
    "cmd_hint",
    "cmd_list",
    "cmd_next",
    "cmd_reset",
    "cmd_restore",
    "cmd_review",
    "cmd_run",
    "cmd_solution",
    "cmd_start",
    "cmd_takehome",
    "code_lines",
    "columns",
    "level",
    "original_stub",
    "progress",
    "progress_words",
    "save_attempt",
    "show_hint",
]

BACKUPS = ".katas-backups"


def columns() -> int:
    """The terminal's width (COLUMNS where set; 80 where nothing says)."""
    return shutil.get_terminal_size().columns


def level(kata: Kata) -> str:
    return "*" * kata.difficulty + "." * (3 - kata.difficulty)


MIN_TITLE = 16  # below this the topic column makes room for the title


def table(rows: list[tuple[Kata, str]], width: int) -> list[str]:
    """One line per kata: number, title, topic, difficulty and status, in `width` columns.

    The title takes what the other columns leave, cut with an ellipsis; where that is too
    little, the topic column goes (`--topic` chooses one), and a line still too long is cut.
    """
    topic_width = max(len(kata.topic) for kata, _ in rows)
    status_width = max(len(known) for _, known in rows)
    longest = max(len(kata.title) for kata, _ in rows)
    fixed = 3 + 2 + 2 + 3 + 2 + status_width  # label, title, difficulty, status, separators
    show_topic = width - fixed - topic_width - 2 >= min(MIN_TITLE, longest)
    if show_topic:
        fixed += topic_width + 2
    title_width = max(min(longest, width - fixed), 1)
    lines = []
    for kata, known in rows:
        title = f"{fit(kata.title, title_width):<{title_width}}"
        topic = f"  {kata.topic:<{topic_width}}" if show_topic else ""
        line = f"{kata.label}  {title}{topic}  {level(kata)}  {known}".rstrip()
        lines.append(fit(line, width))
    return lines


def cmd_list(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    statuses = Store.for_root(root).known(root, katas)
    shown = [k for k in katas.values() if args.topic in (None, k.topic)]
    if not shown:
        raise UsageError(f"no kata has topic {args.topic!r}; topics: {topics(katas)}")
    width = columns()
    print("\n".join(table([(k, statuses.get(k.module, "not run")) for k in shown], width)))
    if any(statuses.get(kata.module) == CHANGED for kata in shown):
        note = f"{CHANGED}: the stub or its tests changed after its last run; run it again"
        print(textwrap.fill(note, width))
    solved = sum(statuses.get(kata.module) == status.SOLVED for kata in katas.values())
    totals = f"Solved {solved} of {len(katas)} katas."
    legend = "Difficulty: * easy, ** medium, *** hard."
    together = f"{totals} {legend}"
    print(
        "\n" + (together if len(together) <= width else f"{totals}\n{textwrap.fill(legend, width)}")
    )
    return 0


def topics(katas: dict[str, Kata]) -> str:
    return ", ".join(sorted({kata.topic for kata in katas.values()}))


def cmd_next(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    store = Store.for_root(root)
    topic = catalog.topic_of(katas, getattr(args, "topic", None))
    kata = store.next_unsolved(root, katas, topics=None if topic is None else {topic})
    if kata is None:
        if topic is None:
            print(f"All {len(katas)} katas are solved.")
        else:
            print(f"Every kata of {topic} is solved.")
        return 0
    known = store.known(root, katas).get(kata.module, "not run")
    print("\n".join(table([(kata, known)], columns())))
    within = f" --topic {topic}" if topic else ""
    print(f"Open katas/{kata.module}.py, then run: katas watch {kata.number}{within}")
    return 0


def chosen_or_current(
    root: Path, katas: dict[str, Kata], wanted: str | None, topic: str | None = None
) -> Kata:
    """The kata asked for by number; without one, the current kata: the first unsolved one
    (of `topic`, where given), as `katas next` names it."""
    if wanted is not None:
        (kata,) = pick(katas, [wanted])
        return kata
    current = Store.for_root(root).next_unsolved(
        root, katas, topics=None if topic is None else {topic}
    )
    if current is None:
        every = f"every kata of {topic}" if topic else "every kata"
        raise UsageError(f"{every} is solved: give a kata's number, such as 6")
    return current


def cmd_start(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    """Bare `katas`: the kata to work on next and how to watch it, as `katas next` says."""
    cmd_next(args, root, katas)
    print("Every command: katas --help")
    return 0


def show_hint(root: Path, kata: Kata, show_all: bool = False) -> None:
    """Print the kata's hints up to the next one not shown yet (or all), and remember it."""
    hints, all_shown = Store.for_root(root).take_hints(kata, show_all)
    width = columns() - 1  # whole words; a line of the full width wraps in some terminals
    print(fit(f"{kata.label} {kata.title}", width))
    for hint in hints:
        print(
            textwrap.fill(
                hint,
                width,
                initial_indent="  ",
                subsequent_indent="    ",
                break_on_hyphens=False,
            )
        )
    if all_shown:
        print("  (that was the last hint)")


def cmd_hint(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    show_hint(root, chosen_or_current(root, katas, args.kata), args.all)
    return 0


# -- what the store says of one kata --------------------------------------------------------


def progress(root: Path, kata: Kata) -> Progress:
    return Store.for_root(root).progress(root, kata)


def progress_words(kata: Kata, known: Progress) -> str:
    """What the store says of the kata, as the learner reads it: "partly solved 12/50"."""
    if known.status == status.NOT_STARTED:
        return f"nothing written yet: open katas/{kata.module}.py"
    if known.status in (status.SOLVED, status.PARTLY) and known.passed is not None:
        if known.total is not None:
            return f"{known.status} {known.passed}/{known.total}"
        return f"{known.status}: {known.passed} tests passed"
    return known.status


# -- katas solution ---------------------------------------------------------------------------


def code_lines(text: str) -> list[str]:
    """The module's lines without its docstrings (the module's, each class's and function's),
    which state the task rather than answer it; every line where it does not parse."""
    # Lines as the parser counts them (str.splitlines also breaks at form feeds and others).
    lines = re.split(r"\r\n?|\n", text)
    if lines[-1] == "":  # the line end of the last line
        lines.pop()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return [line.expandtabs() for line in lines]
    dropped: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, DOCUMENTED) or not node.body:
            continue
        first = node.body[0]
        if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)):
            continue
        if not isinstance(first.value.value, str) or first.end_lineno is None:
            continue
        start, end = first.lineno - 1, first.end_lineno - 1
        # Only a docstring on lines of its own (ast's columns count UTF-8 bytes).
        before = lines[start].encode()[: first.col_offset]
        after = lines[end].encode()[first.end_col_offset or 0 :]
        if not before.strip() and not after.strip():
            dropped.update(range(start, end + 1))
    kept = [line.expandtabs() for number, line in enumerate(lines) if number not in dropped]
    while kept and not kept[0].strip():
        kept.pop(0)
    return kept


DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def pieces(line: str | None, width: int) -> list[str]:
    """`line` folded into rows of at most `width` characters, at spaces where it can be,
    the rows after the first indented past the line's own indentation ([] for no line)."""
    if line is None:
        return []
    if len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    if len(indent) >= width // 2:
        indent = ""
    folded = textwrap.wrap(
        line, width, subsequent_indent=indent, break_on_hyphens=False, replace_whitespace=False
    )
    return folded or [line[:width]]  # a line of blanks alone


def side_by_side(left: list[str], right: list[str], column: int) -> list[str]:
    """Two texts in two columns of `column` characters, equal lines level with each other,
    changed lines marked as diff -y marks them (| changed, < only left, > only right); a line
    longer than its column is folded onto the rows below."""
    rows = []
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for mine, theirs in itertools.zip_longest(left[i1:i2], right[j1:j2]):
            if tag == "equal":
                mark = " "
            else:
                mark = ">" if mine is None else "<" if theirs is None else "|"
            parts = itertools.zip_longest(
                pieces(mine, column), pieces(theirs, column), fillvalue=""
            )
            for place, (a, b) in enumerate(parts):
                rows.append(f"{a:<{column}} {mark if place == 0 else ' '} {b}".rstrip())
    return rows


def unified(left: list[str], right: list[str], names: tuple[str, str], width: int) -> list[str]:
    """A unified diff of the two texts with every line as context, each row folded to fit
    `width` (its folded rows keep its mark)."""
    diff = difflib.unified_diff(left, right, *names, lineterm="", n=max(len(left), len(right)))
    rows = []
    for number, row in enumerate(diff):
        if number < 3:  # ---, +++ and @@: the names and the range
            rows.append(fit(row, width))
            continue
        mark, text = row[:1], row[1:]
        rows += [mark + piece for piece in pieces(text, max(width - 1, 1))]
    return rows


MIN_COLUMN = 60  # columns narrower than this (and than the code) read worse than a unified diff


def classic_mistakes(root: Path, kata: Kata) -> list[str]:
    """What each of the kata's wrong answers gets wrong, in words (tests/wrong_answers/,
    which a take-home folder does not have: none there)."""
    found = []
    for mistake in mistakes.mistakes(root, kata.module):
        try:
            found.append(mistake.description.removeprefix("Wrong:").strip())
        except (OSError, ValueError):
            continue
    return [summary for summary in found if summary]


def cmd_solution(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    known = progress(root, kata)
    if known.status != status.SOLVED:
        shown = "not run yet" if known.status == "not run" else known.status
        raise UsageError(
            f"{kata.label} is {shown}: solve it first (katas watch {kata.number}), "
            "then compare your answer with the reference"
        )
    reference = kata.solution_path(root)
    if not reference.is_file():
        raise UsageError(f"this folder has no reference answers ({reference} is missing)")
    mine = code_lines(kata.stub_path(root).read_text(encoding="utf-8"))
    theirs = code_lines(reference.read_text(encoding="utf-8"))
    names = (f"your answer: katas/{kata.module}.py", f"reference: solutions/{kata.module}.py")
    width = columns()
    print(fit(f"{kata.label} {kata.title}: the code, docstrings left out", width) + "\n")
    longest = max(len(line) for line in [*mine, *theirs, *names])
    column = min((width - 3) // 2, longest)
    if mine == theirs:
        print("Your code is the reference's, line for line:\n")
        print("\n".join(row for line in theirs for row in pieces(line, width)))
    elif column >= min(MIN_COLUMN, longest):
        print(f"{fit(names[0], column):<{column}}   {fit(names[1], column)}\n")
        print("\n".join(side_by_side(mine, theirs, column)))
    else:  # too narrow for two columns
        print("\n".join(unified(mine, theirs, names, width)))
    mistakes = classic_mistakes(root, kata)
    if mistakes:
        verdict = (
            "yours avoided them"
            if known.current
            else f"your stub changed since its last run: katas run {kata.number} checks it"
        )
        print(
            "\n"
            + textwrap.fill(f"The classic mistakes this kata's tests catch ({verdict}):", width)
        )
        for mistake in mistakes:
            print(textwrap.fill(mistake, width, initial_indent="  - ", subsequent_indent="    "))
    return 0


def original_stub(root: Path, kata: Kata) -> str:
    """The stub as the suite ships it: from git, the upstream branch or else HEAD."""
    relative = f"katas/{kata.module}.py"
    for ref in ("@{upstream}", "HEAD"):
        done = subprocess.run(
            ["git", "show", f"{ref}:{relative}"], cwd=root, capture_output=True, text=True
        )
        if done.returncode == 0:
            return done.stdout
    raise UsageError(
        f"cannot find the original {relative}: reset needs a git checkout of torch-katas"
    )


def backup_stamp() -> str:
    return datetime.datetime.now().strftime("%Y%m%d-%H%M%S")


BACKUP_NAME = r"{module}-(\d{{8}}-\d{{6}})(?:-(\d+))?\.py"


def backups(root: Path, kata: Kata) -> list[Path]:
    """The kata's backed-up attempts, oldest first."""
    name = re.compile(BACKUP_NAME.format(module=kata.module))
    found: list[tuple[str, int, Path]] = []
    for path in (root / BACKUPS).glob(f"{kata.module}-*.py"):
        match = name.fullmatch(path.name)
        if match:
            found.append((match[1], int(match[2] or 1), path))
    return [path for *_, path in sorted(found)]


def save_attempt(root: Path, kata: Kata, text: str) -> None:
    """Back up `text` under a name no backup has yet (unless it is the latest backup)."""
    saved = backups(root, kata)
    if saved and saved[-1].read_text(encoding="utf-8") == text:
        print(f"your attempt is already saved as {saved[-1].relative_to(root)}")
        return
    folder = root / BACKUPS
    folder.mkdir(exist_ok=True)
    stamp = backup_stamp()
    for count in itertools.count(1):
        path = folder / f"{kata.module}-{stamp}{f'-{count}' if count > 1 else ''}.py"
        try:
            with path.open("x", encoding="utf-8") as file:  # "x": never over another backup
                file.write(text)
        except FileExistsError:
            continue
        print(f"your attempt is saved as {path.relative_to(root)}")
        return


def cmd_reset(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    stub = kata.stub_path(root)
    original = original_stub(root, kata)
    current = stub.read_text(encoding="utf-8") if stub.exists() else None
    # The kata starts over at once: `katas list` and `katas solution` go by its status.
    Store.for_root(root).forget(kata)
    hunt = bughunt.stop(Store.for_root(root), kata.module)  # a bug hunt ends with a reset
    if hunt is not None:
        kept = f"kept in {hunt.backup}" if hunt.backup else "the original stub"
        print(f"the bug hunt of {kata.label} is over; your code from before it was {kept}")
    if current == original:
        print(f"{stub.relative_to(root)} is already the original stub; its status is cleared")
        return 0
    if current is not None:
        save_attempt(root, kata, current)
    stub.write_text(original, encoding="utf-8")
    print(f"{stub.relative_to(root)} is back to the original stub; its status is cleared")
    return 0


def cmd_restore(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    saved = backups(root, kata)
    if not saved:
        raise UsageError(
            f"{BACKUPS}/ holds no backup of {kata.label}; `katas reset {kata.number}` makes one"
        )
    if args.list:
        print("\n".join(str(path.relative_to(root)) for path in saved))
        return 0
    chosen = saved[-1]
    if args.backup:
        wanted = Path(args.backup).name
        named = next((p for p in saved if wanted in (p.name, p.stem)), None)
        if named is None:
            names = ", ".join(path.name for path in saved)
            raise UsageError(f"{args.backup} is not a backup of {kata.label}; there are: {names}")
        chosen = named
    stub = kata.stub_path(root)
    text = chosen.read_text(encoding="utf-8")
    current = stub.read_text(encoding="utf-8") if stub.exists() else None
    if current == text:
        print(f"{stub.relative_to(root)} already holds {chosen.relative_to(root)}")
        return 0
    try:
        original = original_stub(root, kata)
    except UsageError:  # not a git checkout: every stub counts as an attempt
        original = None
    if current is not None and current != original:  # the untouched stub needs no backup
        save_attempt(root, kata, current)
    stub.write_text(text, encoding="utf-8")
    print(f"{stub.relative_to(root)} is {chosen.relative_to(root)} again")
    return 0


def test_files(root: Path, chosen: list[Kata]) -> list[str]:
    return [str(kata.test_path(root).relative_to(root)) for kata in chosen]


def cmd_run(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    import pytest

    os.chdir(root)
    chosen = pick(katas, args.katas, topics=True)
    return int(pytest.main([*test_files(root, chosen), *args.pytest_args]))


# -- interviewer commands (grading/) --------------------------------------------------------


def cmd_takehome(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    from torch_katas.grading import takehome

    return takehome.cmd_takehome(args, root, katas)


def cmd_grade(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    from torch_katas.grading import grade

    return grade.cmd_grade(args, root, katas)


def cmd_gradescope(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    from torch_katas.grading import gradescope

    return gradescope.cmd_gradescope(args, root, katas)


def cmd_review(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    from torch_katas.grading import policy

    refused = 0
    for name in args.files:
        path = Path(name)
        if not path.is_file():
            raise UsageError(f"{name} is not a file")
        kata = katas.get(catalog.module_of(path) or "")
        findings = (
            policy.check_file(path, kata.imports, kata.allow, kata.test_path(root))
            if kata
            else policy.check_file(path)
        )
        refused += bool(findings)
        for finding in findings:
            print(f"{name}:{finding.line}: {finding.text} ({finding.rule})")
        if kata is None:
            print(
                f"{name}: not named after a kata; checked with the modules every answer may import"
            )
        if not findings:
            print(f"{name}: nothing the policy refuses")
    return 1 if refused else 0
