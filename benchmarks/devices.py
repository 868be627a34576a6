"""Time what the simulated device adds: the kata run on the CPU alone against the default
device list (the CPU plus `sim` on a machine without a GPU).

    python benchmarks/devices.py [--repeat 3] [--kata q01_fit_line] [--baseline REV]

With a baseline, both runs a learner meets are compared: the reference answers (`--solutions`,
all passing) and the untouched stubs (all failing), which the learner's first `pytest` is.

Each command runs in a fresh process; the runs being compared alternate, one of each back to
back, and the verdict goes by the median of those pairs' ratios: a machine whose speed drifts
over minutes (a shared virtual machine's does, by a third) slows both runs of a pair alike.
The target: the default run within 1.5x of the suite's run before the simulated device
existed. `--baseline REV` times that run at a git revision (checked out in a temporary
worktree) against today's default run; without it, only the CPU-only run of today's code
stands in for it, an underestimate of the time before, since the harness has become faster
since.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.5


def seconds(command: list[str], where: Path = ROOT) -> float:
    start = time.perf_counter()
    # PYTHONPATH: the harness of the tree being timed, not of wherever torch-katas is installed.
    env = {**os.environ, "PYTHONPATH": str(where)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caches kept, as on a learner's machine
    done = subprocess.run(command, cwd=where, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    # pytest's 1: tests failed, as every test of an untouched stub does.
    if done.returncode not in ((0, 1) if "--solutions" not in command else (0,)):
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed


def compare(name: str, before: tuple[str, list[str], Path], now: list[str], repeat: int) -> float:
    label, command, where = before
    old, new = [], []
    for _ in range(repeat):
        old.append(seconds(command, where))
        new.append(seconds(now))
    ratio = statistics.median(after / before for before, after in zip(old, new, strict=True))
    verdict = "within" if ratio <= TARGET else "OVER"
    print(
        f"{name:<26} {label} {min(old):7.2f} s   cpu+sim {min(new):7.2f} s (best of {repeat})   "
        f"{ratio:.2f}x (median pair): {verdict} the {TARGET}x target"
    )
    return ratio


@contextlib.contextmanager
def checkout(revision: str):
    """The suite at `revision`, in a temporary git worktree."""
    with tempfile.TemporaryDirectory(prefix="katas-baseline-") as scratch:
        tree = Path(scratch) / "suite"
        git = ["git", "-C", str(ROOT), "worktree"]
        subprocess.run([*git, "add", "--detach", "-q", str(tree), revision], check=True)
        try:
            yield tree
        finally:
            subprocess.run([*git, "remove", "--force", str(tree)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per command (default 3)")
    parser.add_argument("--kata", default="q01_fit_line", help="the kata timed on its own")
    parser.add_argument("--baseline", metavar="REV", help="time the suite at this revision too")
    args = parser.parse_args()
    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    pytest = [*run, "--solutions"]
    sys.path.insert(0, str(ROOT))
    from torch_katas import devices

    if devices.present() != ["cpu", "sim"]:
        sys.exit(f"the default devices here are {devices.present()}, not cpu and sim")
    one = [*pytest, f"katas/{args.kata}_test.py"]
    every = [*pytest, "katas"]
    cpu = ("cpu", [*every, "--device", "cpu"], ROOT)
    one_cpu = ("cpu", [*one, "--device", "cpu"], ROOT)
    compare(f"one kata ({args.kata})", one_cpu, one, args.repeat)
    judged = [compare("pytest katas --solutions", cpu, every, args.repeat)]
    if args.baseline:
        stubs = [*run, "katas"]
        changed = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD", "katas"])
        if changed.returncode != 0:
            sys.exit("katas/ differs from HEAD: the stub run needs the untouched stubs")
        with checkout(args.baseline) as tree:
            # The suite before: its default runs, which then meant the CPU alone.
            label = args.baseline[:7]
            judged = [
                compare("pytest katas --solutions", (label, every, tree), every, args.repeat),
                compare("pytest katas (the stubs)", (label, stubs, tree), stubs, args.repeat),
            ]
    sys.exit(0 if max(judged) <= TARGET else 1)


if __name__ == "__main__":
    main()
