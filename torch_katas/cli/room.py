"""The dojo's commands: `katas show` (a kata's task for a projector), `katas progress` (this
laptop's progress, as JSON for the board) and `katas board` (a room's progress, in the
terminal and as a static HTML page: no server)."""

from __future__ import annotations

import argparse
import ast
import datetime
import getpass
import html
import json
import socket
import textwrap
from pathlib import Path

from torch_katas import catalog, status
from torch_katas.catalog import Kata, UsageError, pick
from torch_katas.cli.commands import columns, level, progress_words
from torch_katas.store import Store
from torch_katas.text import fit

__all__ = [
    "BOARD_STYLE",
    "CLASSES",
    "FORMAT",
    "LEGEND",
    "MARKS",
    "PAGE",
    "SHOW_STYLE",
    "board_rows",
    "cmd_board",
    "cmd_progress",
    "cmd_show",
    "html_board",
    "progress_record",
    "read_records",
    "show_lines",
    "signature",
    "solved_count",
    "task_of",
    "terminal_board",
    "wrapped",
]

FORMAT = "torch-katas progress 1"  # the "format" of `katas progress --json`
MARKS = {status.SOLVED: "✓", status.PARTLY: "~", status.NOT_STARTED: "·"}
LEGEND = "✓ solved   ~ partly solved   · not started   (blank: not run)"


# -- katas show -----------------------------------------------------------------------------


def task_of(source: str) -> tuple[str, list[tuple[str, str]]]:
    """The stub's module docstring, and each public function's and class's signature with its
    docstring, in the file's order: the task and the contract, none of the stub's code."""
    tree = ast.parse(source)
    parts: list[tuple[str, str]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not node.name.startswith("_"):
                parts.append((signature(node), ast.get_docstring(node) or ""))
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            bases = ", ".join(ast.unparse(base) for base in node.bases)
            parts.append((f"class {node.name}({bases})", ast.get_docstring(node) or ""))
            for item in node.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                if not item.name.startswith("_") or item.name == "__init__":
                    parts.append((f"{node.name}.{signature(item)}", ast.get_docstring(item) or ""))
    return ast.get_docstring(tree) or "", parts


def signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{node.name}({ast.unparse(node.args)}){returns}"


def wrapped(text: str, width: int, indent: str = "") -> list[str]:
    """Paragraphs and lists of `text` filled to `width`; `>>>` examples and their output as
    written."""
    lines: list[str] = []
    for paragraph in text.split("\n\n"):
        rows = paragraph.splitlines()
        if any(row.lstrip().startswith(">>>") for row in rows):
            lines += [indent + row for row in rows]
        else:  # list items ("- ...") start a line of their own
            items: list[str] = []
            for row in rows:
                if row.lstrip().startswith("- ") or not items:
                    items.append(row.strip())
                else:
                    items[-1] += " " + row.strip()
            for item in items:
                follow = indent + ("  " if item.startswith("- ") else "")
                lines += textwrap.wrap(
                    item, width, initial_indent=indent, subsequent_indent=follow
                ) or [""]
        lines.append("")
    return lines[:-1]


def show_lines(root: Path, kata: Kata, width: int) -> list[str]:
    module_doc, parts = task_of(kata.stub_path(root).read_text(encoding="utf-8"))
    heading = f"{kata.label}  {kata.title}"
    lines = [heading, "=" * min(len(heading), width)]
    lines += [f"topic {kata.topic}, difficulty {level(kata)}", ""]
    lines += wrapped(module_doc, width)
    for name, doc in parts:
        title = textwrap.wrap(name, width, subsequent_indent="    ", break_on_hyphens=False)
        lines += ["", *title, "-" * min(max(map(len, title)), width)]
        lines += wrapped(doc, width - 2, "  ")
    return lines


def cmd_show(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    width = min(columns(), args.width) if args.width else columns()
    lines = show_lines(root, kata, max(width, 20))
    if args.html:
        page = PAGE.format(
            title=html.escape(f"{kata.label} {kata.title}"),
            refresh="",
            style=SHOW_STYLE,
            body=f"<pre>{html.escape(chr(10).join(show_lines(root, kata, 72)))}</pre>",
        )
        Path(args.html).write_text(page, encoding="utf-8")
        print(f"wrote {args.html}: open it in a browser, full screen")
        return 0
    print("\n".join(lines))
    return 0


# -- katas progress -----------------------------------------------------------------------


def progress_record(root: Path, katas: dict[str, Kata], name: str) -> dict[str, object]:
    """This checkout's progress as `katas board` reads it."""
    store = Store.for_root(root)
    entries = {}
    for kata in katas.values():
        known = store.progress(root, kata)
        entries[kata.module] = {
            "number": kata.number,
            "title": kata.title,
            "topic": kata.topic,
            "status": known.status,
            "passed": known.passed,
            "total": known.total,
        }
    return {
        "format": FORMAT,
        "name": name,
        "written": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "solved": sum(entry["status"] == status.SOLVED for entry in entries.values()),
        "katas": entries,
    }


def cmd_progress(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    name = args.name or f"{getpass.getuser()}@{socket.gethostname()}"
    record = progress_record(root, katas, name)
    if args.json:
        print(json.dumps(record, indent=2, ensure_ascii=False))
        return 0
    store = Store.for_root(root)
    width = columns()
    for topic in catalog.topics(root):
        chosen = [kata for kata in katas.values() if kata.topic == topic]
        solved = sum(store.status_of(kata) == status.SOLVED for kata in chosen)
        print(f"{topic}: {solved} of {len(chosen)} solved")
        for kata in chosen:
            known = store.progress(root, kata)
            if known.status != "not run":
                print(fit(f"  {kata.label}  {kata.title}: {progress_words(kata, known)}", width))
    print(
        f"\nSolved {record['solved']} of {len(katas)} katas. For the room's board: "
        "katas progress --json > NAME.json"
    )
    return 0


# -- katas board --------------------------------------------------------------------------


def read_records(paths: list[str]) -> list[tuple[str, dict[str, object]]]:
    """Each person's progress: the files given, and the *.json files of folders given."""
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files += sorted(path.glob("*.json"))
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"{name} is neither a file nor a folder")
    records, seen = [], set()
    for path in dict.fromkeys(file.resolve() for file in files):  # each file once
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise UsageError(
                f"{path} is not the output of katas progress --json ({error})"
            ) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise UsageError(f"{path} is not the output of katas progress --json")
        person = str(data.get("name") or path.stem)
        if person in seen:  # two laptops with the same user name
            person = f"{person} ({path.stem})"
        seen.add(person)
        records.append((person, data))
    if not records:
        raise UsageError("no progress files found: give files or a folder of katas progress --json")
    return records


def board_rows(
    katas: dict[str, Kata], records: list[tuple[str, dict[str, object]]], topic: str | None
) -> list[tuple[Kata, list[str]]]:
    """Each kata (of `topic`, where given) and each person's status of it."""
    rows = []
    for kata in katas.values():
        if topic not in (None, kata.topic):
            continue
        statuses = []
        for _, data in records:
            entries = data.get("katas")
            entry = entries.get(kata.module) if isinstance(entries, dict) else None
            statuses.append(str(entry.get("status", "")) if isinstance(entry, dict) else "")
        rows.append((kata, statuses))
    return rows


def solved_count(statuses: list[str]) -> str:
    return f"{sum(s == status.SOLVED for s in statuses)}/{len(statuses)}"


def terminal_board(rows: list[tuple[Kata, list[str]]], people: list[str], width: int) -> list[str]:
    cell = max(3, min(max(len(p) for p in people), 10))
    title_width = max(12, width - 11 - (cell + 1) * len(people))
    head = " " * (4 + title_width) + " ".join(f"{fit(p, cell):>{cell}}" for p in people)
    lines = [head + "  solved"]
    for kata, statuses in rows:
        marks = " ".join(f"{MARKS.get(s, ''):>{cell}}" for s in statuses)
        title = f"{fit(kata.title, title_width - 1):<{title_width}}"
        lines.append(f"{kata.label} {title}{marks}  {solved_count(statuses):>5}")
    totals = [sum(statuses[i] == status.SOLVED for _, statuses in rows) for i in range(len(people))]
    lines.append(" " * (4 + title_width) + " ".join(f"{t:>{cell}}" for t in totals) + "  solved")
    return [line.rstrip() for line in lines] + ["", LEGEND]


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">{refresh}
<title>{title}</title>
<style>{style}</style></head>
<body>{body}</body></html>
"""
SHOW_STYLE = "body{font:28px/1.4 monospace;margin:1em 2em}pre{white-space:pre-wrap}"
BOARD_STYLE = (
    "body{font:20px/1.3 system-ui,sans-serif;margin:1em 2em}"
    "table{border-collapse:collapse}th,td{padding:.2em .6em;border-bottom:1px solid #ddd;"
    "text-align:left}"
    "td.mark{text-align:center;font-size:1.3em}td.solved{background:#c8f0c8}"
    "td.partly{background:#fbeab0}td.not-started{background:#f4d0d0}th.person{writing-mode:"
    "vertical-rl;transform:rotate(180deg);text-align:left}tfoot td{font-weight:bold}"
)
CLASSES = {status.SOLVED: "solved", status.PARTLY: "partly", status.NOT_STARTED: "not-started"}


def html_board(
    rows: list[tuple[Kata, list[str]]], people: list[str], title: str, refresh: int
) -> str:
    """The board as a page: a table of katas by people, each cell marked and coloured."""
    escape = html.escape
    head = "".join(f'<th class="person">{escape(p)}</th>' for p in people)
    body = []
    for kata, statuses in rows:
        cells = "".join(
            f'<td class="mark {CLASSES.get(s, "not-run")}" title="{escape(s or "not run")}">'
            f"{MARKS.get(s, '')}</td>"
            for s in statuses
        )
        body.append(
            f'<tr id="{kata.module}"><td>{kata.label}</td><td>{escape(kata.title)}</td>'
            f"<td>{escape(kata.topic)}</td>{cells}<td>{solved_count(statuses)}</td></tr>"
        )
    totals = "".join(
        f"<td>{sum(statuses[i] == status.SOLVED for _, statuses in rows)}</td>"
        for i in range(len(people))
    )
    table = (
        f"<table><thead><tr><th>kata</th><th>title</th><th>topic</th>{head}<th>solved</th>"
        f"</tr></thead><tbody>{''.join(body)}</tbody>"
        f"<tfoot><tr><td></td><td>solved</td><td></td>{totals}<td></td></tr></tfoot></table>"
    )
    stamp = datetime.datetime.now().strftime("%H:%M")
    return PAGE.format(
        title=escape(title),
        refresh=f'<meta http-equiv="refresh" content="{refresh}">' if refresh else "",
        style=BOARD_STYLE,
        body=f"<h1>{escape(title)}</h1>{table}<p>{escape(LEGEND)} · as of {stamp}</p>",
    )


def cmd_board(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    topic = catalog.topic_of(katas, args.topic)
    records = read_records(args.files)
    people = [person for person, _ in records]
    rows = board_rows(katas, records, topic)
    print("\n".join(terminal_board(rows, people, columns())))
    if args.html:
        title = f"torch-katas: {topic or 'every topic'}, {len(people)} people"
        Path(args.html).write_text(html_board(rows, people, title, args.refresh), "utf-8")
        print(f"\nwrote {args.html}: open it in a browser (file://{Path(args.html).resolve()})")
    return 0
