"""A new kata needs its own files and its katas.toml entry, nothing else: no count or list of
katas elsewhere (tests, docs, CLI) may need the new number.

A scratch checkout gets one more kata, a copy of the smallest existing one under the next
number, made the way CONTRIBUTING.md says (an entry appended to katas.toml; every file named
after the kata copied under the new name, whatever form its files take), and the layout, CLI
and docs self-checks run there as they are.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from torch_katas import catalog

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)
# The self-checks that read the catalogue, its counts and the pages that describe it; for
# the new kata alone, its stub's examples (test_docs.py).
CHECKS = ["tests/test_layout.py", "tests/test_cli.py", "tests/test_readme.py"]


def tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--", "."],
        capture_output=True,
        check=True,
        text=True,
        timeout=60,
    )
    return [name for name in listed.stdout.split("\0") if name and (ROOT / name).is_file()]


def entry_text(module: str) -> str:
    """The kata's [[kata]] entry in katas.toml, as written there."""
    text = (ROOT / catalog.CATALOG).read_text(encoding="utf-8")
    entries = re.split(r"(?m)^(?=\[\[kata\]\])", text)
    (entry,) = [part for part in entries if re.search(rf'(?m)^module = "{module}"$', part)]
    return entry


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, timeout=120)


def scratch_with_a_new_kata(root: Path) -> catalog.Kata:
    """Copy the tracked tree to `root`, add a copy of the smallest kata under the next
    number, commit it (the self-checks read stubs as committed), and return the copy."""
    source = min(
        (kata for kata in KATAS.values() if not kata.imports),
        key=lambda kata: kata.test_path(ROOT).stat().st_size,
    )
    number = max(kata.number for kata in KATAS.values()) + 1
    module = f"q{number:02d}{source.module[3:]}"
    for name in tracked_files():
        data = (ROOT / name).read_bytes()
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
        if source.module in Path(name).name:  # the kata's files, in whatever form they have
            copy = root / name.replace(source.module, module)
            copy.write_bytes(data.replace(source.module.encode(), module.encode()))
    entry = entry_text(source.module)
    entry = re.sub(r"(?m)^number = \d+$", f"number = {number}", entry, count=1)
    entry = re.sub(r'(?m)^module = "\w+"$', f'module = "{module}"', entry, count=1)
    entry = re.sub(r'(?m)^title = "(.*)"$', r'title = "\1, once more"', entry, count=1)
    with (root / catalog.CATALOG).open("a", encoding="utf-8") as toml:
        toml.write("\n" + entry.rstrip("\n") + "\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=k", "-c", "user.email=k@k", "commit", "-q", "-m", "kata")
    return catalog.load(root)[module]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_new_kata_needs_only_its_own_files_and_entry(tmp_path):
    root = tmp_path / "suite"
    kata = scratch_with_a_new_kata(root)
    assert len(catalog.load(root)) == len(KATAS) + 1
    # Not the watcher in a terminal: it watches two fixed katas, and reads no count (a minute
    # of the check's time on two cores).
    chosen = f"(not test_stub_examples or {kata.module}) and not test_watch_reruns_on_save"
    checks = [*CHECKS, "tests/test_docs.py", "-k", chosen]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *checks, "-q", "-p", "no:cacheprovider"],
        cwd=root,
        # The scratch checkout's harness, not this one's.
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=840,
    )
    summary = done.stdout.strip().splitlines()[-1:]
    assert done.returncode == 0, f"with {kata.label} added:\n{done.stdout[-6000:]}{done.stderr}"
    assert "passed" in summary[0] and "failed" not in summary[0], summary
