"""Time `katas watch` as a learner sees it, from the write of the stub to its status line, against
a bare `import torch`.

    python benchmarks/watch.py [--repeat 5] [--kata q06_gradients]

`katas watch` runs in a terminal (a pseudo-terminal here) on a copy of the kata. Each round
writes the stub, alternately one of the kata's wrong answers and the reference answer (a
learner's saves: partly solved, then solved), and times from the write until the watcher
prints the status line that stub deserves (`q06: partly solved 60/94`, `q06: solved 94/94`).
Two kinds of rounds: a save 10 s after the last status line, as while a learner edits (the
target: under 0.3x the bare import), and a quick second save 1 s after it (the target: under
0.5x; the next spare is still starting). Medians decide; the best times are shown too. Beside
them, the part of a round that is the notice of the save (watchfiles, as the watcher asks it).
"""

from __future__ import annotations

import argparse
import os
import pty
import queue
import re
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from torch_katas import catalog  # noqa: E402
from torch_katas.cli import watch  # noqa: E402
from torch_katas.grading import takehome  # noqa: E402
from torch_katas.runtime import mistakes  # noqa: E402

# Seconds from the last verdict to the next save, and the target for each (x import).
ROUNDS = {10.0: 0.3, 1.0: 0.5}
ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """A command on a pseudo-terminal, and what it has printed."""

    def __init__(self, command: list[str], cwd: Path):
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            command, cwd=cwd, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
        )
        os.close(slave)
        self.seen = b""

    def wait_for(self, text: str, timeout: float = 120) -> float:
        """Read until `text` appears in what was printed since the last call; return when."""
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            if select.select([self.master], [], [], 0.1)[0]:
                self.seen += os.read(self.master, 65536)
                if text.encode() in ESCAPES.sub(b"", self.seen):
                    self.seen = b""
                    return time.perf_counter()
        raise SystemExit(f"no {text!r} after {timeout} s; printed:\n{self.seen.decode()[-3000:]}")

    def quit(self) -> None:
        os.write(self.master, b"q")
        self.process.wait(timeout=30)


def bare_import(repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
        times.append(time.perf_counter() - start)
    return times


def save_to_verdict(kata: catalog.Kata, repeat: int, settle: float) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="katas-watch-") as scratch:
        suite = Path(scratch) / "suite"
        takehome.practice_copy(ROOT, suite, [kata])
        stub = kata.stub_path(suite)
        # The status lines `katas watch` prints once the run has recorded the stub's status.
        untouched = f"{kata.label}: nothing written yet"
        wrong = mistakes.mistakes(ROOT, kata.module)[0]
        versions = [
            (wrong.source(ROOT), f"{kata.label}: partly solved "),
            (kata.solution_path(ROOT).read_text(encoding="utf-8"), f"{kata.label}: solved "),
        ]
        command = [sys.executable, "-m", "torch_katas", "watch", str(kata.number)]
        terminal = Terminal(command, suite)
        terminal.wait_for(untouched)
        times = []
        try:
            for turn in range(repeat):
                time.sleep(settle)  # the learner edits; the next spare warms up
                text, verdict = versions[turn % 2]
                start = time.perf_counter()
                stub.write_text(text, encoding="utf-8")
                times.append(terminal.wait_for(verdict) - start)
        finally:
            terminal.quit()
    return times


def notice_of_save(repeat: int) -> list[float]:
    """From a file's write to watchfiles' report of it, as the watcher asks for reports."""
    with tempfile.TemporaryDirectory(prefix="katas-notice-") as scratch:
        folder = Path(scratch)
        noticed: queue.Queue = queue.Queue()
        stop = threading.Event()
        thread = threading.Thread(
            target=watch.report_saves, args=(folder, noticed, stop), daemon=True
        )
        thread.start()
        time.sleep(1)  # the watch has started
        times = []
        for turn in range(repeat):
            start = time.perf_counter()
            (folder / "q01_fit_line.py").write_text(f"x = {turn}\n", encoding="utf-8")
            noticed.get(timeout=30)
            times.append(time.perf_counter() - start)
            time.sleep(0.5)
        stop.set()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds of each (default 5)")
    parser.add_argument("--kata", default="q06_gradients", help="the kata watched")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # caches kept, as on a learner's machine
    kata = catalog.load(ROOT)[args.kata]
    imports = bare_import(args.repeat)
    floor = statistics.median(imports)
    print(f"{'measure':<40} {'best s':>7} {'median s':>9} {'x import':>9}")
    print(f"{'bare import torch':<40} {min(imports):>7.2f} {floor:>9.2f}")
    over = False
    for settle, target in ROUNDS.items():
        saves = save_to_verdict(kata, args.repeat, settle)
        ratio = statistics.median(saves) / floor
        over |= ratio >= target
        name = f"save {settle:g} s after the verdict ({kata.label})"
        print(
            f"{name:<40} {min(saves):>7.2f} {statistics.median(saves):>9.2f} {ratio:>8.2f}x"
            f"  {'within' if ratio < target else 'OVER'} the {target}x target"
        )
    notices = notice_of_save(args.repeat)
    name = "of which the notice of a save"
    print(
        f"{name:<40} {min(notices):>7.2f} {statistics.median(notices):>9.2f} "
        f"{statistics.median(notices) / floor:>8.2f}x"
    )
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
