"""What the grading child sends the grader: one JSON line per message, on a pipe.

The child (child.py) runs one kata's tests beside the candidate's code and sends, as they
happen, each test phase's report, each tamper check that trips, each refused action, and last
how the run ended; the grader (grade.py) reads the pipe while the child runs (at most 16 MiB,
sandbox.py), checks each line against this schema and the order of the reports, and merges
them into one record per test. Anything that does not fit is that kata's error, and a report
out of order (a phase reported twice, a call after a failed setup, anything after the end) is
flagged: the grader never trusts the child further than this, nor crashes on it.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import TypedDict

from torch_katas import status

__all__ = [
    "MAX_BYTES",
    "VERSION",
    "ChildResults",
    "Forged",
    "Merge",
    "NoResults",
    "Numbering",
    "SchemaError",
    "TestRecord",
    "collect",
    "message",
]

VERSION = 2
MAX_BYTES = 16 * 1024 * 1024  # far more than any kata's results take
MAX_DEPTH = 6  # the schema nests four levels; deeper input is refused before parsing
MAX_PROBLEMS = 20


class SchemaError(ValueError):
    """The results do not fit the schema; the message says where."""


class NoResults(SchemaError):
    """The child never sent how its run ended."""


class Forged(SchemaError):
    """A message does not carry the grader's secret: something else wrote it."""


class TestRecord(TypedDict):
    outcome: str  # "passed", "failed" or "skipped", over setup, call and teardown
    called: bool  # its call phase ran to an end
    message: str  # the first line of its failure or skip
    not_implemented: bool  # it failed because a stub function is still unwritten
    seconds: float


class ChildResults(TypedDict):
    kata: str
    exit_code: int  # pytest's
    devices: list[str]
    stub_imported: bool
    collect_errors: list[str]
    tests: dict[str, TestRecord]  # by node id
    tampering: list[str]
    refused_reads: list[str]
    autoloaded_plugins: list[str]
    problems: list[str]  # reports out of order: flagged


_PHASES = ("setup", "call", "teardown")
_OUTCOMES = ("passed", "failed", "skipped")
_EVENTS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "report": {
        "nodeid": str,
        "when": str,
        "outcome": str,
        "message": str,
        "not_implemented": bool,
        "does_not_import": str,
        "duration": (int, float),
    },
    "tampering": {"text": str},
    "refused": {"text": str},
    "end": {
        "version": int,
        "kata": str,
        "exit_code": int,
        "devices": list,
        "stub_imported": bool,
        "collect_errors": list,
        "autoloaded_plugins": list,
    },
}
_STRING_LISTS = ("devices", "collect_errors", "autoloaded_plugins")


def _too_deep(text: str) -> bool:
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return True
        elif char in "]}":
            depth -= 1
    return False


def message(line: str, token: str) -> dict:
    """One line, checked against its event's fields; SchemaError or Forged where it does not fit."""
    if _too_deep(line):
        raise SchemaError(f"nested deeper than the schema ({MAX_DEPTH} levels)")
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise SchemaError(f"not JSON: {error}") from None
    if not isinstance(data, dict):
        raise SchemaError("not a JSON object")
    given = data.get("token")
    if not isinstance(given, str) or not secrets.compare_digest(given, token):
        raise Forged("a message without the grader's secret")
    seq = data.get("seq")
    if seq is not None and (type(seq) is not int or seq < 0):
        raise SchemaError("seq: wrong type")
    fields = _EVENTS.get(data.get("event"))  # type: ignore[arg-type]
    if fields is None:
        raise SchemaError(f"unknown event {str(data.get('event'))[:40]!r}")
    for key, kinds in fields.items():
        value = data.get(key)
        if not isinstance(value, kinds) or (kinds is int and isinstance(value, bool)):
            raise SchemaError(f"{data['event']}.{key}: wrong type")
    for key in _STRING_LISTS:
        if key in fields and not all(isinstance(item, str) for item in data[key]):
            raise SchemaError(f"{key}: expected a list of strings")
    if data["event"] == "report" and (
        data["when"] not in _PHASES or data["outcome"] not in _OUTCOMES
    ):
        raise SchemaError(f"report of {data['nodeid'][:80]!r}: {data['when']}/{data['outcome']}")
    if data["event"] == "end" and data["version"] != VERSION:
        raise SchemaError(f"version {data['version']}, expected {VERSION}")
    return data


class Numbering:
    """The child numbers its messages from 0 (a forked process's go unnumbered, null): a
    number left out is a message dropped or rewritten on the way, which the grader never
    reads as absent."""

    def __init__(self) -> None:
        self.expected = 0

    def missing(self, event: dict) -> str | None:
        seq = event.get("seq")
        if seq is None:
            return None
        if seq != self.expected:
            return f"message {self.expected} of its results never came (the next was {seq})"
        self.expected += 1
        return None


@dataclass
class _Phase:
    """One phase's report as the child sent it, read by status.TestOutcome.add: the merge of
    a test's phases is status's, the same for the learner's progress and for a grade."""

    when: str
    outcome: str
    duration: float
    user_properties: list[tuple[str, object]] = field(default_factory=list)
    longrepr: None = None

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"

    @property
    def skipped(self) -> bool:
        return self.outcome == "skipped"


class Merge:
    """Each test's phases merged into one record, and what came out of order."""

    def __init__(self) -> None:
        self.outcomes: dict[str, status.TestOutcome] = {}
        self.phases: dict[str, dict[str, str]] = {}  # node id -> phase -> outcome
        self.problems: list[str] = []

    def problem(self, text: str) -> None:
        if text not in self.problems and len(self.problems) < MAX_PROBLEMS:
            self.problems.append(text)

    def add(self, report: dict) -> None:
        nodeid, when, outcome = report["nodeid"], report["when"], report["outcome"]
        test = nodeid.split("::", 1)[-1][:100]
        seen = self.phases.setdefault(nodeid, {})
        if when in seen:
            self.problem(f"{test} reported its {when} twice ({seen[when]}, then {outcome})")
        elif "teardown" in seen:
            self.problem(f"{test} reported its {when} after its teardown")
        elif when != "setup" and "setup" not in seen:
            self.problem(f"{test} reported its {when} before its setup")
        elif when == "call" and seen.get("setup") != "passed":
            self.problem(f"{test} reported a call ({outcome}) after its setup {seen['setup']}")
        seen.setdefault(when, outcome)
        properties: list[tuple[str, object]] = [(status.MESSAGE, report["message"])]
        if report["not_implemented"]:
            properties.append((status.NOT_IMPLEMENTED, "a stub function"))
        phase = _Phase(when, outcome, float(report["duration"]), properties)
        self.outcomes.setdefault(nodeid, status.TestOutcome()).add(phase)

    @property
    def tests(self) -> dict[str, TestRecord]:
        return {
            nodeid: {
                "outcome": test.outcome,
                "called": test.called,
                "message": test.message,
                "not_implemented": test.unwritten is not None,
                "seconds": round(test.seconds, 3),
            }
            for nodeid, test in self.outcomes.items()
        }


def collect(data: bytes, token: str) -> ChildResults:
    """The child's messages in `data`, checked and merged; SchemaError where they do not fit
    (Forged where one lacks the secret, NoResults where the run's end was never sent)."""
    merge = Merge()
    tampering: list[str] = []
    refused: list[str] = []
    import_errors: list[str] = []
    end: dict | None = None
    numbering = Numbering()
    # Every line is a message: a blank one, as much as one that is no JSON, came from
    # something other than the sender.
    for line in data.decode("utf-8", errors="replace").splitlines():
        event = message(line, token)
        missing = numbering.missing(event)
        if missing:
            raise SchemaError(missing)
        if end is not None:
            merge.problem(f"a message ({event['event']}) after the run's end")
        elif event["event"] == "report":
            merge.add(event)
            reason = event["does_not_import"]
            if reason and reason not in import_errors:
                import_errors.append(reason)
        elif event["event"] == "end":
            end = event
        else:
            found = tampering if event["event"] == "tampering" else refused
            if event["text"] not in found and len(found) < MAX_PROBLEMS:
                found.append(event["text"])
    if end is None:
        raise NoResults("the run's end was never sent")
    return {
        "kata": end["kata"],
        "exit_code": end["exit_code"],
        "devices": end["devices"],
        "stub_imported": end["stub_imported"] and not import_errors,
        "collect_errors": end["collect_errors"] + import_errors,
        "tests": merge.tests,
        "tampering": tampering,
        "refused_reads": refused,
        "autoloaded_plugins": end["autoloaded_plugins"],
        "problems": merge.problems,
    }
