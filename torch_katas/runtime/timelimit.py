"""Time limits: stop code that runs too long, and remember where it was.

One watchdog thread waits for the nearest deadline of every armed limit; at the deadline it
records the main thread's stack and signals it (SIGALRM), whose handler raises. A long C++
operation is interrupted only once it returns, by which time the learner's line that started it
may have left the stack: the recorded stack keeps it for the failure message.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "WATCHDOG",
    "TimeLimit",
    "TimedOut",
]


class TimedOut(BaseException):
    """Raised in the main thread when its time limit ran out.

    A BaseException, so that an `except Exception` in the code under test cannot swallow it.
    """


class Watchdog:
    """One thread that waits for the nearest deadline of the armed time limits.

    A thread per test would cost more than most kata tests take, and so would waking the
    thread at every test: it is woken only for a deadline sooner than the one it waits for.
    """

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._armed: list[TimeLimit] = []
        self._thread: threading.Thread | None = None
        self._wakes_at = math.inf  # when the thread looks at the armed limits next

    def arm(self, limit: TimeLimit) -> None:
        with self._wake:
            self._armed.append(limit)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._watch, name="torch-katas", daemon=True)
                self._thread.start()
            elif limit.deadline < self._wakes_at:
                self._wake.notify()

    @property
    def thread(self) -> threading.Thread | None:
        """The watchdog's thread, once started."""
        return self._thread

    def disarm(self, limit: TimeLimit) -> None:
        with self._wake:
            if limit in self._armed:
                self._armed.remove(limit)

    def _watch(self) -> None:
        while True:
            with self._wake:
                now = time.monotonic()
                due = [armed for armed in self._armed if armed.deadline <= now]
                if not due:
                    soonest = min((armed.deadline for armed in self._armed), default=math.inf)
                    self._wakes_at = soonest
                    self._wake.wait(None if soonest == math.inf else soonest - now)
                    continue
                for armed in due:
                    self._armed.remove(armed)
            for armed in due:
                armed._on_deadline()


WATCHDOG = Watchdog()


class TimeLimit:
    """Interrupt the main thread after `seconds` by calling `expire` there (it raises).

    At the deadline the watchdog thread records the main thread's stack, then signals it.
    Where signals cannot reach the main thread (Windows, or not on the main thread), it
    falls back to interrupting it like Ctrl-C: `expired` tells the two apart.
    """

    def __init__(self, seconds: float, expire: Callable[[], None]):
        self.seconds = seconds
        self.expire = expire
        self.deadline = 0.0
        self.stack: traceback.StackSummary | None = None
        self.expired = False
        self._main = threading.main_thread()
        self._lock = threading.Lock()
        self._active = False
        self._previous: Any = None
        self._signal = hasattr(signal, "SIGALRM") and threading.current_thread() is self._main

    @property
    def usable(self) -> bool:
        return threading.current_thread() is self._main and self.seconds > 0

    def __enter__(self) -> TimeLimit:
        if not self.usable:
            return self
        if self._signal:
            self._previous = signal.signal(signal.SIGALRM, self._on_signal)
        self._active = True
        self.deadline = time.monotonic() + self.seconds
        WATCHDOG.arm(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self.usable:
            return
        with self._lock:
            self._active = False
        WATCHDOG.disarm(self)
        if self._signal:
            signal.signal(signal.SIGALRM, self._previous)

    def _on_deadline(self) -> None:
        main = self._main.ident
        assert main is not None
        with self._lock:
            if not self._active:
                return
            frame = sys._current_frames().get(main)
            self.stack = traceback.extract_stack(frame) if frame is not None else None
            self.expired = True
            if self._signal:
                signal.pthread_kill(main, signal.SIGALRM)
            else:
                import _thread

                _thread.interrupt_main()

    def _on_signal(self, signum: int, frame: types.FrameType | None) -> None:
        __tracebackhide__ = True
        if self.expired and self._active:
            self._active = False
            self.expire()
        elif callable(self._previous):  # an outer limit's signal (a run inside a test)
            self._previous(signum, frame)

    def last_line_in(self, path: Path) -> traceback.FrameSummary | None:
        """The innermost line of `path` that was running when the time ran out."""
        for entry in reversed(self.stack or ()):
            if Path(entry.filename) == path:
                return entry
        return None
