"""`katas gradescope`: the autograder Gradescope runs, built from this suite.

Gradescope unpacks the uploaded autograder.zip into /autograder/source, runs `setup.sh` there
once to build its image, then, for each submission, `/autograder/run_autograder` (a copy of
ours) with the student's files in /autograder/submission, and reads
/autograder/results/results.json. Ours installs the suite (the harness and the chosen katas'
tests as committed, never the reference answers) with the grader's torch, then grades the
submission with `katas grade --format gradescope`. AUTOGRADER_ROOT stands in for /autograder
(to try it on a folder laid out the same way).
"""

from __future__ import annotations

import argparse
import stat
import zipfile
from pathlib import Path

from torch_katas import catalog
from torch_katas.catalog import UsageError, pick
from torch_katas.grading import takehome

__all__ = [
    "CPU_INDEX",
    "RUN",
    "SETUP",
    "SUITE_README",
    "build",
    "cmd_gradescope",
]

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, to build the autograder's image.
set -euo pipefail
AUTOGRADER="${{AUTOGRADER_ROOT:-/autograder}}"
# bubblewrap sandboxes each kata's run where the container allows it (else katas grade says so
# in the report and runs without). Best effort, as is python3-venv on images that lack it.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq python3-venv bubblewrap) >/dev/null 2>&1 ||
        echo "could not install python3-venv and bubblewrap" >&2
fi
python3 -m venv "$AUTOGRADER/venv"
# The CPU build of torch: Gradescope's machines have no GPU, and the CUDA build is several GB.
"$AUTOGRADER/venv/bin/pip" install --quiet {torch} numpy --index-url {index} \\
    --extra-index-url https://pypi.org/simple
"$AUTOGRADER/venv/bin/pip" install --quiet -e "$AUTOGRADER/source/suite"
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission; it writes results/results.json.
set -uo pipefail
AUTOGRADER="${{AUTOGRADER_ROOT:-/autograder}}"
submission="$AUTOGRADER/submission"
# An uploaded folder (or a zip of one) may put the take-home one or two levels down.
if [ ! -d "$submission/katas" ]; then
    found="$(find "$submission" -mindepth 2 -maxdepth 3 -type d -name katas -print -quit)"
    [ -n "$found" ] && submission="$(dirname "$found")"
fi
katas="$AUTOGRADER/venv/bin/katas"
[ -x "$katas" ] || katas="katas"  # an environment made otherwise, katas on PATH
mkdir -p "$AUTOGRADER/results"
"$katas" --root "$AUTOGRADER/source/suite" grade "$submission" --katas {katas} \\
    --device cpu --out "$AUTOGRADER/results" --format gradescope
status=$?
# 0: every kata solved, 1: not all; both wrote results.json, which is what Gradescope reads.
if [ "$status" -gt 1 ]; then
    echo "katas grade failed (exit status $status); see the output above" >&2
    exit "$status"
fi
exit 0
"""

SUITE_README = "The torch-katas harness and tests for Gradescope's autograder (katas gradescope).\n"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def build(root: Path, chosen: list[catalog.Kata], out: Path, torch: str, hints: str) -> Path:
    """The autograder's files in `out`, and `out/autograder.zip` of them to upload."""
    # The files as handed out (the stubs too: grading collects the tests' names with them).
    handed_out = takehome.suite_files(root, chosen, stubs=True, hints=hints)
    files = {f"suite/{name}": data for name, data in handed_out.items()}
    files["suite/README.md"] = SUITE_README.encode()  # pyproject.toml names it
    files["setup.sh"] = SETUP.format(torch=torch, index=CPU_INDEX).encode()
    numbers = " ".join(str(kata.number) for kata in chosen)
    files["run_autograder"] = RUN.format(katas=numbers).encode()
    takehome.write_files(out, files)
    for script in ("setup.sh", "run_autograder"):
        path = out / script
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    archive = out / "autograder.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for name, data in sorted(files.items()):
            info = zipfile.ZipInfo(name)
            executable = name in ("setup.sh", "run_autograder")
            info.external_attr = (0o755 if executable else 0o644) << 16
            zipped.writestr(info, data)
    return archive


def cmd_gradescope(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    chosen = pick(katas, args.katas)
    out = Path(args.out).resolve()
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"{out} is not empty: choose a new folder for the autograder")
    version = args.torch or takehome.torch_version()
    torch = f"torch=={version}" if version else f"torch{takehome.torch_floor(root)}"
    archive = build(root, chosen, out, torch, args.hints)
    print(f"wrote {out}: setup.sh, run_autograder and the suite for katas ", end="")
    print(", ".join(kata.label for kata in chosen) + f" ({torch})")
    print(f"upload {archive} as the assignment's autograder (Gradescope: Configure Autograder)")
    return 0
