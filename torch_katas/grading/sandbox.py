"""Running a candidate's code: in a bubblewrap sandbox where possible, always time-limited,
and never leaving a process of theirs behind.

bwrap: a new mount namespace holding only the system folders, Python, and the kata's copy
of the suite (read-only) and a scratch folder (writable); no network, its own process tree
(every process in it dies with it), the interviewer's checkout and home invisible; a user
namespace of its own in which the code runs as `nobody`, with no capabilities and no way to
make another user namespace, so a grader running as root gives it no root (no remount of a
read-only folder, no write to site-packages).
none: a process group of its own, killed as a whole afterwards, with the grader as the
"subreaper" of every process the candidate's code forks, so a daemon cannot escape either.
The code runs as the grader's user, under a shell that stays its parent, so that a signal to
its parent (SIGSTOP) reaches that shell and not the grader, whose time limit still applies.
Nothing else protects the grader or its files; as root, none is refused unless allowed.

The child's Python runs isolated (`-I`: no environment variables, no user site, the standard
library first), and reports what happened through a pipe the grader reads as it happens.

In every mode: limits on the size of any file written (RLIMIT_FSIZE, which also bounds the
log of the process's output) and on the processes it may start (RLIMIT_NPROC, where the
interviewer is not root), a size limit on its scratch folder (watched while it runs, and a
tmpfs of that size for /tmp under bwrap), and a deadline on killing what it left behind:
processes are stopped (SIGSTOP, so none can fork again) before they are killed.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FILE_LIMIT",
    "KILL_DEADLINE",
    "RESULTS_FD",
    "RESULTS_LIMIT",
    "Outcome",
    "choose",
    "environment",
    "run",
    "set_subreaper",
    "site_packages",
]

BWRAP = "bwrap"
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
INSIDE = Path("/grading")  # where the kata's suite and scratch folder appear in the sandbox
PR_SET_CHILD_SUBREAPER = 36
# Passed through to the candidate's process; everything else (paths, tokens) stays out.
KEEP_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")
NOBODY = 65534  # the user (and group) the candidate's code is inside bwrap
RESULTS_FD = "{results-fd}"  # in the child's arguments: the number of the pipe it reports on
RESULTS_LIMIT = 16 * 1024 * 1024  # bytes read from that pipe; more is drained and dropped
# Under none, a shell stays the child's parent: a signal the child sends its parent stops or
# kills that shell, not the grader.
KEEPER = ("/bin/sh", "-c", '"$@"; exit $?', "sh")


FILE_LIMIT = 256 * 1024 * 1024  # bytes in any one file the candidate's code writes
SCRATCH_LIMIT = 1024 * 1024 * 1024  # bytes in its scratch folder
SCRATCH_ENTRIES = 20_000  # files and folders in its scratch folder
PROCESS_MARGIN = 256  # processes and threads it may add to the user's (RLIMIT_NPROC)
KILL_DEADLINE = 10.0  # seconds to kill every process it left


@dataclass
class Outcome:
    returncode: int | None  # None: killed at the time limit (or for a limit in `exceeded`)
    seconds: float
    exceeded: str | None = None  # the limit it was killed for, other than the time limit
    survivors: int = 0  # processes still being created when the kill deadline passed
    messages: bytes = b""  # what the child wrote on its results pipe (RESULTS_LIMIT at most)
    overflow: bool = False  # it wrote more than RESULTS_LIMIT


def python_paths() -> list[Path]:
    """Folders the child's Python needs: its installation and its site-packages."""
    found = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}
    found.add(Path(os.path.realpath(sys.executable)).parent.parent)
    found.update(Path(p) for p in sys.path if p and "-packages" in p and Path(p).is_dir())
    return sorted(p.resolve() for p in found)


def site_packages() -> list[str]:
    return [p for p in sys.path if p and "-packages" in p and Path(p).is_dir()]


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot run here, or None when it can."""
    if shutil.which(BWRAP) is None:
        return f"{BWRAP} is not installed"
    command = [*bwrap_command(Path("/"), None), sys.executable, "-S", "-c", "pass"]
    try:
        done = subprocess.run(command, capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{BWRAP} did not start ({error})"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"{BWRAP} cannot start here ({said[-1][:200] if said else done.returncode})"
    return None


def bwrap_works() -> bool:
    return bwrap_problem() is None


def is_root() -> bool:
    return os.geteuid() == 0


def choose(mode: str, allow_root: bool = False) -> tuple[str, str | None]:
    """The sandbox to use for `mode` and, where `auto` falls back to none, a warning.

    Asking for bwrap where it cannot run is an error (ValueError), and so is none for a
    grader running as root, unless `allow_root` says that is acceptable here.
    """
    problem = None if mode == "none" else bwrap_problem()
    if problem is None and mode != "none":
        return "bwrap", None
    if mode == "bwrap":
        raise ValueError(
            f"--sandbox bwrap: {problem}; bubblewrap needs the bubblewrap package and "
            "unprivileged user namespaces (or pass --sandbox none on a machine where running "
            "the candidate's code unconfined is acceptable)"
        )
    if is_root() and not allow_root:
        why = "--sandbox none" if mode == "none" else f"--sandbox auto ({problem})"
        raise ValueError(
            f"{why} would run the candidate's code as root, with every capability: it could "
            "change anything on this machine, including what the next `katas` command runs. "
            "Grade with --sandbox bwrap (it runs the code as nobody, with no capabilities), "
            "or as an ordinary user; add --allow-root only on a throw-away machine"
        )
    if mode == "none":
        return "none", None
    return "none", (
        f"--sandbox auto fell back to none: {problem}. The candidate's code ran as you, "
        "with your files and network (docs/interviewer.md: what grading can and cannot promise)"
    )


@functools.cache
def bwrap_options() -> str:
    """bwrap's --help, to use the options the installed version has."""
    try:
        done = subprocess.run([BWRAP, "--help"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.decode(errors="replace")


def bwrap_command(suite: Path, work: Path | None) -> list[str]:
    command = [BWRAP, "--die-with-parent", "--new-session", "--unshare-all"]
    # As nobody, with no capabilities: a grader run as root gives the code no root. No user
    # namespace can be made inside (bwrap 0.8 and later), so none can give capabilities back.
    command += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    command += ["--cap-drop", "ALL"]
    if "--disable-userns" in bwrap_options():
        command += ["--disable-userns"]
    command += ["--tmpfs", "/", "--proc", "/proc", "--dev", "/dev"]
    command += ["--size", str(SCRATCH_LIMIT), "--tmpfs", "/tmp"]
    for name in SYSTEM:
        path = Path(name)
        if path.is_symlink():
            command += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            command += ["--ro-bind", name, name]
    for path in python_paths():
        command += ["--ro-bind", str(path), str(path)]
    # GPUs: their device files, so grading on a GPU machine still tests on the GPU.
    for device in [*sorted(Path("/dev").glob("nvidia*")), Path("/dev/dri"), Path("/dev/kfd")]:
        if device.exists():
            command += ["--dev-bind", str(device), str(device)]
    command += ["--ro-bind", str(suite), str(INSIDE / "suite")]
    if work is not None:
        command += ["--bind", str(work), str(INSIDE / "work")]
    command += ["--chdir", str(INSIDE / "suite")]
    return command


def environment(suite: Path, work: Path) -> dict[str, str]:
    env = {name: os.environ[name] for name in KEEP_ENV if name in os.environ}
    env.update(
        HOME=str(work),
        TMPDIR=str(work / "tmp"),
        PYTHONPATH=os.pathsep.join([str(suite), *site_packages()]),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
        # Only the plugins grading names with -p: none the interviewer happens to have installed.
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        # Inductor compiles in the test process, where the audit hooks see each compiler it
        # starts, not in a pool of worker processes that have none.
        TORCHINDUCTOR_COMPILE_THREADS="1",
    )
    return env


def set_subreaper(on: bool) -> bool:
    """Orphans of the candidate's processes become the grader's children, to be killed."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def children() -> set[int]:
    return children_of(os.getpid())


def children_of(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.update(int(p) for p in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return found


def descendants(roots: set[int]) -> set[int]:
    """`roots` and every process below them."""
    found, pending = set(), list(roots)
    while pending:
        pid = pending.pop()
        if pid not in found:
            found.add(pid)
            pending.extend(children_of(pid))
    return found


def kill_everything(
    process: subprocess.Popen, before: set[int], deadline: float = KILL_DEADLINE
) -> int:
    """Kill the child's process group, then every process that came to the grader and all
    below them; returns how many were still appearing when `deadline` seconds had passed.

    Each round stops every process found first (a stopped process cannot fork), then kills
    them, so a chain of processes that each fork a new one before they die ends too.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    ends = time.monotonic() + deadline
    quiet = 0
    stray: set[int] = set()
    while quiet < 3:
        stray = descendants(children() - before)
        quiet = quiet + 1 if not stray else 0
        for sent in (signal.SIGSTOP, signal.SIGKILL):
            for pid in stray:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sent)
            if sent == signal.SIGSTOP:  # what they forked before they stopped
                stray |= descendants(stray)
        for pid in children() - before:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        if time.monotonic() > ends:
            return len(stray)
        time.sleep(0.02)
    return 0


def user_tasks() -> int:
    """Processes and threads of this real user, as RLIMIT_NPROC counts them."""
    uid, count = os.getuid(), 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(
                line.split(":", 1) for line in status.read_text().splitlines() if ":" in line
            )
            if int(fields["Uid"].split()[0]) == uid:
                count += int(fields["Threads"])
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return count


def limits() -> list[tuple[int, int]]:
    """(resource, limit) for the candidate's process, set in it before it starts."""
    chosen = [(resource.RLIMIT_FSIZE, FILE_LIMIT)]
    if os.getuid() != 0 and sys.platform.startswith("linux"):  # root is not counted
        allowed = user_tasks() + PROCESS_MARGIN + 8 * (os.cpu_count() or 1)
        chosen.append((resource.RLIMIT_NPROC, allowed))
    return chosen


def limit_process(chosen: list[tuple[int, int]]) -> None:
    for kind, value in chosen:
        _, hard = resource.getrlimit(kind)
        capped = value if hard == resource.RLIM_INFINITY else min(value, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(kind, (capped, capped))


def scratch_size(folder: Path) -> tuple[int, int]:
    """Bytes and entries under `folder`, counting no further than the limits."""
    size = entries = 0
    pending = [folder]
    while pending and entries <= SCRATCH_ENTRIES and size <= SCRATCH_LIMIT:
        try:
            with os.scandir(pending.pop()) as found:
                for entry in found:
                    entries += 1
                    with contextlib.suppress(OSError):
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(Path(entry.path))
                        else:
                            size += entry.stat(follow_symlinks=False).st_blocks * 512
        except OSError:
            continue
    return size, entries


def over_scratch_limit(folder: Path) -> str | None:
    size, entries = scratch_size(folder)
    if size > SCRATCH_LIMIT:
        return f"wrote more than {SCRATCH_LIMIT // 2**20} MiB in its scratch folder"
    if entries > SCRATCH_ENTRIES:
        return f"made more than {SCRATCH_ENTRIES} files in its scratch folder"
    return None


class Reader(threading.Thread):
    """Reads the child's results pipe as it writes, up to RESULTS_LIMIT bytes (the rest is
    drained, so the child never blocks on a full pipe, and dropped)."""

    def __init__(self, descriptor: int):
        super().__init__(daemon=True)
        self.descriptor = descriptor
        self.chunks: list[bytes] = []
        self.size = 0
        self.overflow = False
        self.stopping = False

    def run(self) -> None:
        while not self.stopping:
            ready, _, _ = select.select([self.descriptor], [], [], 0.2)
            if not ready:
                continue
            chunk = os.read(self.descriptor, 65536)
            if not chunk:
                return
            if self.size + len(chunk) > RESULTS_LIMIT:
                self.overflow = True
            else:
                self.chunks.append(chunk)
                self.size += len(chunk)

    def finish(self) -> tuple[bytes, bool]:
        self.join(timeout=5)  # the write end is closed once every process that held it died
        self.stopping = True
        self.join()
        os.close(self.descriptor)
        return b"".join(self.chunks), self.overflow


def run(
    python_args: list[str],
    *,
    suite: Path,
    work: Path,
    mode: str,
    timeout: float,
    stdin: str,
    log: Path,
) -> Outcome:
    """Run `python python_args` on the kata's suite under the sandbox, within `timeout` s.

    RESULTS_FD in `python_args` becomes the number of a pipe whose contents come back in the
    outcome's `messages`.
    """
    env = environment(suite, work)
    readable, writable = os.pipe()
    os.set_inheritable(writable, True)
    python_args = [a.replace(RESULTS_FD, str(writable)) for a in python_args]
    if mode == "bwrap":
        inside = {str(suite): str(INSIDE / "suite"), str(work): str(INSIDE / "work")}
        env = {k: replace_paths(v, inside) for k, v in env.items()}
        args = [replace_paths(a, inside) for a in python_args]
        command = [*bwrap_command(suite, work), sys.executable, *args]
        cwd = None
    else:
        command = [*KEEPER, sys.executable, *python_args]
        cwd = suite
    (work / "tmp").mkdir(parents=True, exist_ok=True)
    chosen = limits()
    before = children()
    started = time.monotonic()
    exceeded = None
    returncode: int | None = None
    reader = Reader(readable)
    reader.start()
    with open(log, "wb") as output:
        try:
            process = subprocess.Popen(
                command,
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=output,
                stderr=subprocess.STDOUT,
                pass_fds=(writable,),
                start_new_session=True,
                preexec_fn=functools.partial(limit_process, chosen),
            )
        finally:
            os.close(writable)
        try:
            assert process.stdin is not None  # started with stdin=PIPE
            try:
                process.stdin.write(stdin.encode() + b"\n")
                process.stdin.close()
            except BrokenPipeError:
                pass
            ends = started + timeout
            while returncode is None and exceeded is None:
                try:
                    returncode = process.wait(timeout=max(0.0, min(0.5, ends - time.monotonic())))
                except subprocess.TimeoutExpired:
                    if time.monotonic() >= ends:
                        break
                    exceeded = over_scratch_limit(work)
            if returncode is not None and returncode > 128:
                returncode = 128 - returncode  # bwrap and sh exit 128 + N for a child killed by N
        finally:
            survivors = kill_everything(process, before)
            messages, overflow = reader.finish()
    seconds = time.monotonic() - started
    return Outcome(returncode, seconds, exceeded, survivors, messages, overflow)


def replace_paths(text: str, mapping: dict[str, str]) -> str:
    for outside, inside in mapping.items():
        text = text.replace(outside, inside)
    return text
