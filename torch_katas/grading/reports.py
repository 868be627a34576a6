"""A grade's records, and the reports written from them: report.md, report.json, junit.xml and
Gradescope's results.json."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from junitparser import Error, Failure, JUnitXml, TestCase, TestSuite

from torch_katas.status import ERROR, FLAGGED, SOLVED
from torch_katas.text import plural

__all__ = [
    "REPORTS",
    "SCHEMA_VERSION",
    "FailureGroup",
    "Flag",
    "KataGrade",
    "Report",
    "plain",
    "write",
]

REPORTS = ("report.md", "report.json", "junit.xml", "results.json")
# report.json's layout: raised when a key is renamed, removed or changes meaning (a key added
# keeps it), so that a tool reading the file can tell. tests/golden/ holds its examples.
SCHEMA_VERSION = 1


@dataclass
class Flag:
    """Something an interviewer should look at: an edited file, a refused construct..."""

    reason: str
    kind: str  # edited, added, refused, tampering, policy, sandbox
    file: str | None = None
    kata: str | None = None
    line: int | None = None  # policy: the line of the refused construct
    rule: str | None = None  # policy: the rule it breaks (policy.Finding.rule)


@dataclass
class FailureGroup:
    """One distinct failure message and the tests that failed with it."""

    message: str
    tests: list[str]


@dataclass
class KataGrade:
    title: str
    verdict: str  # a status word: solved, partly solved, not started, error, flagged
    passed: int = 0
    total: int = 0
    skipped: int = 0
    seconds: float = 0.0
    reason: str | None = None
    failures: list[FailureGroup] = field(default_factory=list)
    tests_run: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    autoloaded_plugins: list[str] = field(default_factory=list)
    # Where the policy for returned code flagged the kata: the verdict of its tests alone.
    run_verdict: str | None = None
    # A bug hunt's take-home: whether the bug was found and fixed, and how (small or rewrite).
    practice: str | None = None

    @property
    def share(self) -> float:
        """Its part of the score: the share of tests passed, 0 when it cannot be trusted."""
        if self.verdict in (ERROR, FLAGGED) or not self.total:
            return 0.0
        if self.practice is not None:  # a bug hunt: the module handed out passed most tests
            return 1.0 if self.verdict == SOLVED else 0.0
        return self.passed / self.total


@dataclass
class Report:
    candidate: str
    date: str
    suite_commit: str | None
    handed_out: str | None  # the commit the take-home was written from
    torch: str
    python: str
    devices: list[str]
    sandbox: str
    timeout: float
    seconds: float
    katas: dict[str, KataGrade]
    flags: list[Flag]
    diffs: dict[str, str]
    warnings: list[str] = field(default_factory=list)
    hints: str | None = None  # which hints the take-home shipped, from the record
    # The candidate's torch and Python as their last run reported them (informative only).
    candidate_environment: dict[str, str] | None = None

    @property
    def score(self) -> float:
        """Each kata weighs the same, whatever its number of tests."""
        grades = self.katas.values()
        return round(sum(g.share for g in grades) / len(grades), 4) if grades else 0.0

    @property
    def solved(self) -> int:
        return sum(grade.verdict == SOLVED for grade in self.katas.values())

    def to_json(self) -> dict[str, Any]:
        data = {"schema_version": SCHEMA_VERSION, **dataclasses.asdict(self)}
        data["score"] = self.score
        # A flag's file and kata appear where they apply.
        data["flags"] = [{k: v for k, v in f.items() if v is not None} for f in data["flags"]]
        for grade in data["katas"].values():  # a take-home of another mode has none
            if grade.get("practice") is None:
                grade.pop("practice", None)
        return data


# Characters no report shows as they are: controls (terminal escape sequences, and what XML
# 1.0 cannot hold), format characters (bidirectional overrides that reorder a line), lone
# surrogates and unassigned code points. Each becomes U+FFFD, so that something shows.
HIDDEN = ("Cc", "Cf", "Cs", "Cn")
# Markdown that could forge text inline (emphasis, links, images, code spans, strikethrough).
MARKDOWN = re.compile(r"([\\`*_\[\]~])")


def plain(text: object, lines: bool = False) -> str:
    """`text` without hidden characters; `lines` keeps its line breaks and tabs."""
    kept = "\n\t" if lines else ""
    return "".join(
        char if char in kept or unicodedata.category(char) not in HIDDEN else "\ufffd"
        for char in str(text)
    )


def line(text: object) -> str:
    """`text` on one Markdown line, as text: no line break can start a row, a heading or a
    list item, no HTML tag (a `<table>` of fake rows, a `<!--` that hides the rest) is
    rendered, and no emphasis, link or image."""
    flat = plain(" ".join(str(text).split()))
    flat = flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return MARKDOWN.sub(r"\\\1", flat)


def cell(text: object) -> str:
    """`text` as one Markdown table cell: no line breaks or pipes can add rows or columns."""
    return line(text).replace("|", "\\|")


def code(text: object) -> str:
    """`text` inside a Markdown code span, where nothing is rendered: no backtick can end it."""
    return plain(" ".join(str(text).split())).replace("`", "'")


def candidate(report: Report) -> str:
    found = report.candidate_environment
    if not found:
        return "not known (the folder holds no run of the take-home)"
    shown = f"{found.get('torch', '?')} / {found.get('python', '?')}"
    return cell(shown + " (from their last run; as reported, not checked)")


def markdown(report: Report) -> str:
    lines = [f"# Grading: {line(report.candidate)}", "", "| | |", "| --- | --- |"]
    lines += [
        f"| date | {cell(report.date)} |",
        f"| suite commit | {cell(report.suite_commit or 'unknown (not a git checkout)')} |",
        f"| torch / Python | {cell(report.torch)} / {cell(report.python)} |",
        f"| the candidate's torch / Python | {candidate(report)} |",
        f"| devices | {cell(', '.join(report.devices) or 'none reported')} |",
        f"| sandbox | {cell(report.sandbox)} |",
        f"| time limit per kata | {report.timeout:g} s |",
        f"| hints shipped | {cell(report.hints or 'unknown (no record of the take-home)')} |",
        "",
    ]
    if report.warnings:
        lines += [f"**Warning**: {line(warning)}" for warning in report.warnings] + [""]
    lines += [
        f"**Score {report.score:.0%}**: {report.solved} of {len(report.katas)} katas solved. "
        "Each kata weighs the same: its share of tests passed (0 for `error` and `flagged`)."
        + (
            " A bug hunt's kata counts 1 when its bug is fixed (every test passes), else 0."
            if any(grade.practice for grade in report.katas.values())
            else ""
        ),
        "",
        "| kata | title | verdict | tests passed | time (s) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for module, grade in report.katas.items():
        verdict = grade.verdict + (f": {grade.reason}" if grade.reason else "")
        if grade.run_verdict and grade.run_verdict != grade.verdict:
            verdict += f" (its tests alone: {grade.run_verdict})"
        if grade.practice:
            verdict += f"; {grade.practice}"
        lines.append(
            f"| {cell(module[:3])} | {cell(grade.title)} | {cell(verdict)} | "
            f"{grade.passed}/{grade.total} | {grade.seconds:.1f} |"
        )
    if report.flags:
        lines += ["", "## Flags", ""]
        for flag in report.flags:
            place = flag.file and (f"{flag.file}:{flag.line}" if flag.line else flag.file)
            where = ", ".join(f"`{code(value)}`" for value in (flag.kata, place) if value)
            rule = f" [{line(flag.rule)}]" if flag.rule else ""
            lines.append(
                f"- {line(flag.kind)}: {line(flag.reason)}{rule}" + (f" ({where})" if where else "")
            )
    failing = {
        module: found for module, grade in report.katas.items() if (found := causes(module, grade))
    }
    if failing:
        lines += [
            "",
            "## Why tests fail",
            "",
            "Per kata, the causes of its failing tests as the candidate's own runs group them, "
            "the cause that fails most tests first; each with the number of tests it fails and "
            "the tests (the promises) it breaks.",
        ]
    for module, found in failing.items():
        grade = report.katas[module]
        failed = sum(len(tests) for _, tests in found)
        lines += [
            "",
            f"### {module[:3]} {line(grade.title)}",
            "",
            f"{grade.verdict}: {grade.passed} of {plural(grade.total, 'test')} passed, "
            f"{failed} failed ({plural(len(found), 'cause')}).",
            "",
        ]
        for message, tests in found:
            names = ", ".join(f"`{code(name)}`" for name in dict.fromkeys(map(promise, tests)))
            lines.append(f"- **{plural(len(tests), 'test')}**: {line(message)}. Breaks {names}.")
    if report.diffs:
        lines += ["", "## Edited test and harness files (not used for grading)", ""]
        for name, text in report.diffs.items():
            text = plain(text, lines=True)
            fence = "`" * max(3, 1 + max(map(len, re.findall("`+", text)), default=0))
            lines += [f"### {line(name)}", "", f"{fence}diff", text.rstrip("\n"), fence, ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def promise(test: str) -> str:
    """A test's name without its parameters: `test_keeps_dtype[cpu-float64]` ->
    `test_keeps_dtype`, the promise every parametrisation of it checks."""
    return test.partition("[")[0]


# The harness's words to a learner for a function still unwritten (plugin/messages.py), and
# the same fact for an interviewer.
UNWRITTEN = re.compile(
    r"(\S+)\(\) is not implemented yet; open \S+ and replace its NotImplementedError"
)


def cause(module: str, title: str, message: str) -> str:
    """A failure's cause as an interviewer reads it: the learner's message without its kata's
    heading, in the third person."""
    text = message.removeprefix(f"{module[:3]} {title}: ").strip().rstrip(".")
    return UNWRITTEN.sub(r"\1() was left unwritten: it still raises NotImplementedError", text)


def causes(module: str, grade: KataGrade) -> list[tuple[str, list[str]]]:
    """The kata's failures by cause, as the learner's digest groups them (the first line of
    the message), the cause failing most tests first."""
    found: dict[str, list[str]] = {}
    for failure in grade.failures:
        found.setdefault(cause(module, grade.title, failure.message), []).extend(failure.tests)
    return sorted(found.items(), key=lambda item: -len(item[1]))


def junit(report: Report) -> bytes:
    # Every text through plain(): XML 1.0 cannot hold control characters at all.
    xml = JUnitXml(plain(f"grading of {report.candidate}"))
    for module, grade in report.katas.items():
        suite = TestSuite(module)
        classname = f"katas.{module}_test"
        failed = {test: plain(f.message, lines=True) for f in grade.failures for test in f.tests}
        if grade.verdict in (ERROR, FLAGGED) or not grade.total:
            case = TestCase(module, classname=classname, time=grade.seconds)
            reason = plain(f"{grade.verdict}: {grade.reason or ''}", lines=True)
            result = Error(reason)
            result.text = reason
            case.result = [result]
            suite.add_testcase(case)
        else:
            for name in grade.tests_run:
                case = TestCase(plain(name), classname=classname)
                if name in failed:
                    failure = Failure(failed[name])
                    failure.text = failed[name]
                    case.result = [failure]
                suite.add_testcase(case)
        suite.time = grade.seconds
        xml.add_testsuite(suite)
    return bytes(xml.tostring())


def gradescope(report: Report) -> dict[str, Any]:
    tests = []
    for module, grade in report.katas.items():
        output = [f"{grade.verdict}: {grade.passed}/{grade.total} tests passed"]
        if grade.reason:
            output.append(grade.reason)
        if grade.practice:
            output.append(grade.practice)
        output += [
            f"- {plural(len(tests), 'test')}: {text}" for text, tests in causes(module, grade)
        ]
        tests.append(
            {
                "name": f"{module[:3]} {grade.title}",
                "score": round(grade.share, 4),
                "max_score": 1,
                "status": "passed" if grade.verdict == SOLVED else "failed",
                "output": plain("\n".join(output), lines=True),
            }
        )
    return {
        "score": round(sum(grade.share for grade in report.katas.values()), 4),
        "execution_time": round(report.seconds),
        "tests": tests,
    }


def write(out: Path, report: Report, formats: str) -> list[str]:
    """Write the reports into `out`; returns their names."""
    if out.is_symlink():
        out.unlink()
    out.mkdir(parents=True, exist_ok=True)
    outputs = {
        "report.md": markdown(report).encode(),
        "report.json": (json.dumps(report.to_json(), indent=2) + "\n").encode(),
        "junit.xml": junit(report),
    }
    if formats == "gradescope":
        outputs["results.json"] = (json.dumps(gradescope(report), indent=2) + "\n").encode()
    for name, data in outputs.items():
        # Written aside and renamed into place: a symlink planted there is replaced, not followed.
        descriptor, temporary = tempfile.mkstemp(dir=out, prefix=f".{name}.")
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, out / name)
    return list(outputs)
