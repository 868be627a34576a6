"""`katas watch`: rerun one kata's tests on every save of its stub or its tests.

Each run happens in a spare interpreter (torch_katas/spare.py) started ahead of time, which
has already imported torch, pytest and the harness: it runs pytest once and exits, and the
next spare starts as soon as a run ends. So a rerun pays for the kata's tests, not for
`import torch`, and no module survives from one run into the next. This process imports
neither torch nor any kata; watchfiles reports the saves.

Keys, when stdin is a terminal: Enter reruns, h shows the next hint, n moves on to the next
unsolved kata, q quits.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import watchfiles

from torch_katas import catalog
from torch_katas.cli.commands import show_hint
from torch_katas.store import Store

try:
    import termios
    import tty
except ImportError:  # pragma: no cover - Windows: no single-key input, saves still rerun
    termios = None  # type: ignore[assignment]

VERDICTS = {
    0: "all tests pass",
    1: "some tests fail",
    2: "the run was interrupted",
    3: "internal error (see above)",
    4: "pytest usage error (see above)",
    5: "no tests ran",
}
KEYS = "Enter: rerun  h: hint  n: next kata  q: quit"
CLEAR = "\033[H\033[2J"


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


def report_saves(folder: Path, events: queue.Queue, stop: threading.Event) -> None:
    """Put each batch of saved kata files (stubs and tests) on `events`."""

    def is_kata_file(change: watchfiles.Change, path: str) -> bool:
        return change != watchfiles.Change.deleted and catalog.module_of(Path(path)) is not None

    # The folder, not the files: editors that save by renaming a new file over the old one
    # would end a watch on the file itself.
    for changes in watchfiles.watch(folder, watch_filter=is_kata_file, stop_event=stop):
        events.put(("save", {Path(path).resolve() for _, path in changes}))


def wait_for(process: subprocess.Popen, events: queue.Queue) -> None:
    events.put(("done", process.wait()))


class Watch:
    def __init__(
        self, root: Path, katas: dict[str, catalog.Kata], kata: catalog.Kata, args: list[str]
    ):
        self.root, self.katas, self.kata, self.pytest_args = root, katas, kata, args
        self.events: queue.Queue = queue.Queue()
        self.terminal = sys.stdout.isatty()

    def say(self, text: str = "") -> None:
        print(text, flush=True)

    def files(self) -> set[Path]:
        return {self.kata.stub_path(self.root).resolve(), self.kata.test_path(self.root).resolve()}

    def start_run(self, spare: Spare) -> subprocess.Popen:
        self.say(CLEAR if self.terminal else "")
        test_file = self.kata.test_path(self.root).relative_to(self.root)
        self.say(f"katas watch: {self.kata.label} {self.kata.title}: pytest {test_file}")
        process = spare.run([str(test_file), *self.pytest_args])
        threading.Thread(target=wait_for, args=(process, self.events), daemon=True).start()
        return process

    def next_kata(self) -> None:
        following = Store.for_root(self.root).next_unsolved(self.root, self.katas, after=self.kata)
        if following is None:
            self.say("Every other kata is solved.")
        else:
            self.kata = following

    def loop(self, keys: bool) -> int:
        spare: Spare | None = Spare(self.root)
        running = None
        pending = True  # run once at the start
        waiting_keys: list[str] = []
        try:
            while True:
                if pending and running is None and spare is not None:
                    pending = False
                    running, spare = self.start_run(spare), None
                kind, value = self.events.get()
                if kind == "save" and value & self.files():
                    pending = True
                elif kind == "done":
                    running = None
                    spare = Spare(self.root)  # warm up for the next save at once
                    self.say(f"\n{self.kata.label}: {VERDICTS.get(value, f'exit code {value}')}")
                    self.say(KEYS if keys else "Watching for saves; Ctrl-C quits.")
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
                        current = self.kata
                        self.next_kata()
                        pending = self.kata != current
        except KeyboardInterrupt:
            return 130
        finally:
            for process in (spare, running):
                if isinstance(process, Spare):
                    process.stop()
                elif process is not None:
                    process.kill()
                    process.wait()


def watch(root: Path, katas: dict[str, catalog.Kata], kata: catalog.Kata, args: list[str]) -> int:
    stop = threading.Event()
    session = Watch(root, katas, kata, args)
    saves = threading.Thread(
        target=report_saves, args=(root / "katas", session.events, stop), daemon=True
    )
    saves.start()
    keyboard = Keyboard(session.events) if termios and sys.stdin.isatty() else None
    try:
        return session.loop(keys=keyboard is not None)
    finally:
        stop.set()
        if keyboard is not None:
            keyboard.restore()
