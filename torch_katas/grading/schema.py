"""What the grading child writes for the grader: one JSON object of this schema.

The child (child.py) runs one kata's tests beside the candidate's code; the grader (grade.py)
reads what it wrote. The file is read from a capped number of bytes, checked against this
schema, and anything that does not fit is that kata's error: the grader never trusts it
further than this, nor crashes on it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TypedDict

__all__ = [
    "VERSION",
    "ChildResults",
    "NoResults",
    "SchemaError",
    "TestRecord",
    "parse",
    "read",
]

VERSION = 1
MAX_BYTES = 16 * 1024 * 1024  # far more than any kata's results take
MAX_DEPTH = 6  # the schema nests four levels; deeper input is refused before parsing


class SchemaError(ValueError):
    """The results do not fit the schema; the message says where."""


class NoResults(SchemaError):
    """No results file was written."""


class TestRecord(TypedDict):
    outcome: str  # "passed", "failed" or "skipped", over setup, call and teardown
    called: bool  # its call phase ran to an end
    message: str  # the first line of its failure or skip
    not_implemented: bool  # it failed because a stub function is still unwritten
    seconds: float


class ChildResults(TypedDict):
    version: int
    token: str  # the secret the grader gave the child on stdin
    kata: str
    exit_code: int  # pytest's
    devices: list[str]
    stub_imported: bool
    collect_errors: list[str]
    tests: dict[str, TestRecord]  # by node id
    tampering: list[str]
    refused_reads: list[str]
    autoloaded_plugins: list[str]


_RECORD_FIELDS: dict[str, type | tuple[type, ...]] = {
    "outcome": str,
    "called": bool,
    "message": str,
    "not_implemented": bool,
    "seconds": (int, float),
}
_FIELDS: dict[str, type] = {
    "version": int,
    "token": str,
    "kata": str,
    "exit_code": int,
    "devices": list,
    "stub_imported": bool,
    "collect_errors": list,
    "tests": dict,
    "tampering": list,
    "refused_reads": list,
    "autoloaded_plugins": list,
}
_OUTCOMES = ("passed", "failed", "skipped")


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


def parse(text: str) -> ChildResults:
    """The results in `text`, checked field by field; SchemaError where they do not fit."""
    if _too_deep(text):
        raise SchemaError(f"nested deeper than the schema ({MAX_DEPTH} levels)")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise SchemaError(f"not JSON: {error}") from None
    if not isinstance(data, dict):
        raise SchemaError("not a JSON object")
    for key, kind in _FIELDS.items():
        if not isinstance(data.get(key), kind) or (kind is int and isinstance(data[key], bool)):
            raise SchemaError(f"{key}: expected {kind.__name__}")
    if data["version"] != VERSION:
        raise SchemaError(f"version {data['version']}, expected {VERSION}")
    for key in ("devices", "collect_errors", "tampering", "refused_reads", "autoloaded_plugins"):
        if not all(isinstance(item, str) for item in data[key]):
            raise SchemaError(f"{key}: expected a list of strings")
    for nodeid, record in data["tests"].items():
        if not isinstance(record, dict):
            raise SchemaError(f"tests[{nodeid!r}]: expected an object")
        for key, kinds in _RECORD_FIELDS.items():
            if not isinstance(record.get(key), kinds):
                raise SchemaError(f"tests[{nodeid!r}].{key}: wrong type")
        if record["outcome"] not in _OUTCOMES:
            raise SchemaError(f"tests[{nodeid!r}].outcome: {record['outcome']!r}")
    return data  # type: ignore[return-value]  # checked above, field by field


def read(path: Path) -> ChildResults:
    """The results file at `path`, read from at most MAX_BYTES; SchemaError if unusable."""
    try:
        if not os.path.lexists(path):
            raise NoResults("no results file")
        if path.is_symlink() or not path.is_file():
            raise SchemaError("not a plain file")
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except OSError as error:
        raise SchemaError(f"unreadable: {error}") from None
    if len(data) > MAX_BYTES:
        raise SchemaError(f"larger than {MAX_BYTES} bytes")
    return parse(data.decode("utf-8", errors="replace"))
