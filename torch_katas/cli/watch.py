"""`katas watch`: rerun one kata's tests on every save of its stub or its tests, and score
again a test module of `katas testwrite` (testwrite/qNN_*_test.py, any kata) on every save.

Each run happens in a spare interpreter (torch_katas/cli/spare.py) started ahead of time,
which has already imported torch, pytest and the harness: it runs pytest once and exits, and
the next spare starts as soon as a run starts, so that it is ready for a save soon after the
verdict. So a rerun pays for the kata's tests, not for `import torch`, and no module survives
from one run into the next. While a run goes on, two interpreters hold torch (the run's and
the next spare, about 240 MB each); between runs, one. This process imports neither torch
nor any kata; watchfiles reports the saves.

pytest runs quietly (-qq) with the plugin's failure digest fitted to the terminal's rows
(--digest-height), first failure on top; the watcher's own last lines say what the learner's
store now says of the kata and which kata `n` goes to, in place of the progress table and its
"Next:" line.

Keys, when stdin is a terminal: Enter reruns, h shows the next hint, n moves on to the kata
the footer names, q quits.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import watchfiles

from torch_katas import catalog
from torch_katas.cli.bughunt import verdict_lines
from torch_katas.cli.commands import progress, progress_words, show_hint
from torch_katas.practice import testwrite
from torch_katas.store import Store, upcoming
from torch_katas.text import fit

try:
    import termios
    import tty
except ImportError:  # pragma: no cover - Windows: no single-key input, saves still rerun
    termios = None  # type: ignore[assignment]

__all__ = [
    "VERDICTS",
    "watch",
]

VERDICTS = {
    0: "all tests pass",
    1: "some tests fail",
    2: "the run was interrupted",
    3: "internal error (see above)",
    4: "pytest usage error (see above)",
    5: "no tests ran",
}
KEYS = "Enter: rerun  h: hint  q: quit"
CLEAR = "\033[H\033[2J"
QUIET = "-qq"  # no header, progress table or "Next:": the watcher's last lines say as much
# The rows the watcher fills itself: its header, a blank line, the verdict, the footer and the
# line the cursor waits on; and those pytest fills at -qq beside the digest: the test letters
# (two lines for up to about 140 tests), the skips (a heading and a line), the progress
# summary's heading and its totals.
WATCH_ROWS = 5
PYTEST_ROWS = 6
MIN_DIGEST = 3
SAVE_QUIET_MS = 10  # a batch of saved files ends after this long without a change


def digest_height(rows: int) -> int | None:
    """The rows the failure digest may take in a terminal of `rows` (None: not known)."""
    return max(rows - WATCH_ROWS - PYTEST_ROWS, MIN_DIGEST) if rows > 0 else None


def sets_verbosity(args: list[str]) -> bool:
    """Whether pytest arguments choose a verbosity themselves (-v, -qq, --verbose...)."""
    return any(
        re.fullmatch(r"-[A-Za-z]*[vq][A-Za-z]*", arg)
        or arg in ("--verbose", "--quiet")
        or arg.startswith("--verbosity")
        for arg in args
    )


def learners_answers(args: list[str]) -> bool:
    """Whether a run with these pytest arguments tests the learner's stubs (and so records
    their progress), not the reference answers or other files."""
    return not any(arg == "--solutions" or arg.startswith("--answer-file") for arg in args)


def shown(text: str, width: int) -> str:
    """`text` cut to the terminal's `width`, where it is known (not 0)."""
    return fit(text, width) if width else text


def terminal_size() -> tuple[int, int]:
    """The terminal's columns and rows; 0 for what it does not say (or no terminal)."""
    try:
        size = os.get_terminal_size(sys.stdout.fileno())
    except (OSError, ValueError):
        return 0, 0
    return size.columns, size.lines


class Spare:
    """A warm interpreter waiting for the arguments of one pytest run."""

    def __init__(self, root: Path):
        # sys.executable: the interpreter running this command, so no venv needs activating.
        # A session of its own: Ctrl-C reaches the watcher only, which then ends the spare.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "torch_katas.cli.spare"],
            cwd=root,
            stdin=subprocess.PIPE,
            start_new_session=True,
        )

    def run(self, args: list[str]) -> subprocess.Popen:
        assert self.process.stdin is not None  # started with stdin=PIPE
        try:
            self.process.stdin.write((json.dumps(args) + "\n").encode())
            self.process.stdin.close()
        except BrokenPipeError:
            pass  # it failed to start and said why; wait() gives its exit code
        return self.process

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


class Keyboard:
    """Single keys from the terminal, without Enter and without echo, put on `events`."""

    def __init__(self, events: queue.Queue):
        self.fd = sys.stdin.fileno()
        self.saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)
        threading.Thread(target=self.read, args=(events,), daemon=True).start()

    def read(self, events: queue.Queue) -> None:
        while key := os.read(self.fd, 1):
            events.put(("key", key.decode(errors="replace")))

    def restore(self) -> None:
        termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)


def report_saves(folders: list[Path], events: queue.Queue, stop: threading.Event) -> None:
    """Put each batch of saved kata files (stubs, tests, testwrite modules) on `events`."""

    def is_kata_file(change: watchfiles.Change, path: str) -> bool:
        return change != watchfiles.Change.deleted and catalog.module_of(Path(path)) is not None

    # The folder, not the files: editors that save by renaming a new file over the old one
    # would end a watch on the file itself. A batch ends after 10 ms without a change, not
    # watchfiles' 50: a save's writes come microseconds apart, and a later one reruns anyway.
    for changes in watchfiles.watch(
        *folders, watch_filter=is_kata_file, stop_event=stop, step=SAVE_QUIET_MS
    ):
        events.put(("save", {Path(path).resolve() for _, path in changes}))


def wait_for(process: subprocess.Popen, events: queue.Queue) -> None:
    events.put(("done", process.wait()))


class Watch:
    def __init__(
        self,
        root: Path,
        katas: dict[str, catalog.Kata],
        kata: catalog.Kata,
        args: list[str],
        topic: str | None = None,
    ):
        self.root, self.katas, self.kata, self.pytest_args = root, katas, kata, args
        self.topic = topic  # `n` stays within it, where given
        self.events: queue.Queue = queue.Queue()
        self.terminal = sys.stdout.isatty()
        self.following: catalog.Kata | None = None  # where `n` goes, as the footer says

    def say(self, text: str = "", end: str = "\n") -> None:
        print(text, end=end, flush=True)

    def files(self) -> set[Path]:
        return {self.kata.stub_path(self.root).resolve(), self.kata.test_path(self.root).resolve()}

    def testwrite_modules(self, saved: set[Path]) -> list[tuple[catalog.Kata, Path]]:
        """The testwrite modules among `saved`, each with its kata."""
        folder = (self.root / testwrite.FOLDER).resolve()
        found = []
        for path in sorted(saved):
            module = catalog.module_of(path)
            if path.parent == folder and path.stem.endswith("_test") and module in self.katas:
                found.append((self.katas[module], path))
        return found

    def size(self) -> tuple[int, int]:
        return terminal_size() if self.terminal else (0, 0)

    def arguments(self, rows: int) -> list[str]:
        """pytest's arguments for one run of the kata in a terminal of `rows` rows (0: not
        known): quiet, its digest fitted to the rows left, then the learner's own."""
        test_file = self.kata.test_path(self.root).relative_to(self.root)
        chosen = [] if sets_verbosity(self.pytest_args) else [QUIET]
        chosen.append(str(test_file))
        height = digest_height(rows)
        given = any(arg.startswith("--digest-height") for arg in self.pytest_args)
        if height is not None and not given:
            chosen += ["--digest-height", str(height)]
        return chosen + self.pytest_args

    def header(self, width: int) -> str:
        test_file = self.kata.test_path(self.root).relative_to(self.root)
        return shown(f"katas watch: {self.kata.label} {self.kata.title}: pytest {test_file}", width)

    def start_scoring(self, kata: catalog.Kata, path: Path) -> subprocess.Popen:
        """Score a saved testwrite module as `katas testwrite N --score PATH` does, in a
        session of its own (its scoring process and forks end with it on q or Ctrl-C)."""
        if self.terminal:
            self.say(CLEAR, end="")
        shown_path = path.relative_to(self.root.resolve()).as_posix()
        self.say(shown(f"katas watch: {kata.label} testwrite: {shown_path}", self.size()[0]))
        command = [sys.executable, "-m", "torch_katas", "testwrite", str(kata.number)]
        process = subprocess.Popen(
            [*command, "--score", str(path)], cwd=self.root, start_new_session=True
        )
        threading.Thread(target=wait_for, args=(process, self.events), daemon=True).start()
        return process

    def start_run(self, spare: Spare) -> subprocess.Popen:
        if self.terminal:
            self.say(CLEAR, end="")
        width, rows = self.size()
        self.say(self.header(width))
        process = spare.run(self.arguments(rows))
        threading.Thread(target=wait_for, args=(process, self.events), daemon=True).start()
        return process

    def verdict(self, code: int) -> str:
        """The run's last word: what the store now says of the kata, where the run recorded
        it; else what pytest's exit code means."""
        if code in (0, 1) and learners_answers(self.pytest_args):
            known = progress(self.root, self.kata)
            if known.current:  # the record is of the stub and tests as they are now
                return f"{self.kata.label}: {progress_words(self.kata, known)}"
        return f"{self.kata.label}: {VERDICTS.get(code, f'exit code {code}')}"

    def upcoming(self) -> catalog.Kata | None:
        """The kata `n` moves on to: the one a run of this kata's tests names as next (within
        the topic watch was given)."""
        known = Store.for_root(self.root).known(self.root, self.katas)
        topics = None if self.topic is None else {self.topic}
        return upcoming(self.root, self.katas, known, [self.kata], topics)

    def footer(self, keys: bool) -> str:
        if not keys:
            return "Watching for saves; Ctrl-C quits."
        if self.following is None:
            other = f"other kata of {self.topic}" if self.topic else "other kata"
            return f"{KEYS}  (every {other} is solved)"
        return f"{KEYS}  n: {self.following.label} {self.following.title}"

    def closing(self, code: int, keys: bool, width: int) -> list[str]:
        """The lines under a run's output: a blank one, the verdict and the footer."""
        self.following = self.upcoming()  # one decision, for the footer and for `n`
        hunt = verdict_lines(self.root, self.kata, code)  # a bug hunt's verdict, if one is on
        if width:  # its lines are long: wrapped, not cut
            hunt = [row for line in hunt for row in textwrap.wrap(line, width) or [""]]
        lines = ("", self.verdict(code), *hunt, self.footer(keys))
        return [shown(line, width) for line in lines]

    def loop(self, keys: bool) -> int:
        spare: Spare | None = Spare(self.root)
        running: subprocess.Popen | None = None
        scoring = False  # whether `running` scores a testwrite module
        pending = True  # run once at the start
        to_score: dict[Path, catalog.Kata] = {}  # saved testwrite modules, scored in turn
        waiting_keys: list[str] = []
        try:
            while True:
                if to_score and running is None:
                    path = next(iter(to_score))
                    running, scoring = self.start_scoring(to_score.pop(path), path), True
                elif pending and running is None and spare is not None:
                    pending = False
                    # The next spare warms up while this run goes on: a save soon after the
                    # verdict finds it ready (two interpreters with torch for that while).
                    running, spare = self.start_run(spare), Spare(self.root)
                    scoring = False
                kind, value = self.events.get()
                if kind == "save":
                    pending = pending or bool(value & self.files())
                    to_score.update({path: kata for kata, path in self.testwrite_modules(value)})
                elif kind == "done":
                    running = None
                    width = self.size()[0]
                    # A score's report ends with its own verdict: only the footer under it.
                    closing = (
                        ["", self.footer(keys)] if scoring else self.closing(value, keys, width)
                    )
                    for line in closing:
                        self.say(shown(line, width))
                    for key in waiting_keys:
                        self.events.put(("key", key))
                    waiting_keys.clear()
                elif kind == "key":
                    if value == "q":
                        return 0
                    if running is not None:
                        waiting_keys.append(value)  # after the run, not in its output
                    elif value in "\r\n":
                        pending = True
                    elif value == "h":
                        self.say()
                        show_hint(self.root, self.kata)
                        sys.stdout.flush()
                    elif value == "n":
                        if self.following is None:
                            self.say("Every other kata is solved.")
                        else:
                            self.kata, pending = self.following, True
        except KeyboardInterrupt:
            return 130
        finally:
            for process in (spare, running):
                if isinstance(process, Spare):
                    process.stop()
                elif process is not None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)  # a score's forks too
                    process.wait()


def watch(
    root: Path,
    katas: dict[str, catalog.Kata],
    kata: catalog.Kata,
    args: list[str],
    topic: str | None = None,
) -> int:
    stop = threading.Event()
    session = Watch(root, katas, kata, args, topic)
    # testwrite/ made here if missing, so a module `katas testwrite` writes later is watched.
    folders = [root / "katas", root / testwrite.FOLDER]
    folders[1].mkdir(exist_ok=True)
    saves = threading.Thread(target=report_saves, args=(folders, session.events, stop), daemon=True)
    saves.start()
    keyboard = Keyboard(session.events) if termios and sys.stdin.isatty() else None
    try:
        return session.loop(keys=keyboard is not None)
    finally:
        stop.set()
        if keyboard is not None:
            keyboard.restore()
