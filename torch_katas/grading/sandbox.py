"""Running a candidate's code: in a bubblewrap sandbox where possible, always time-limited,
and never leaving a process of theirs behind.

bwrap: a new mount namespace holding only the system folders, Python, and the kata's copy
of the suite (read-only) and a scratch folder (writable); no network, its own process tree
(every process in it dies with it), the interviewer's checkout and home invisible.
none: a process group of its own, killed as a whole afterwards, with the grader as the
"subreaper" of every process the candidate's code forks, so a daemon cannot escape either.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BWRAP = "bwrap"
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
INSIDE = Path("/grading")  # where the kata's suite and scratch folder appear in the sandbox
PR_SET_CHILD_SUBREAPER = 36
# Passed through to the candidate's process; everything else (paths, tokens) stays out.
KEEP_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")


@dataclass
class Outcome:
    returncode: int | None  # None: killed at the time limit
    seconds: float


def python_paths() -> list[Path]:
    """Folders the child's Python needs: its installation and its site-packages."""
    found = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}
    found.add(Path(os.path.realpath(sys.executable)).parent.parent)
    found.update(Path(p) for p in sys.path if p and "-packages" in p and Path(p).is_dir())
    return sorted(p.resolve() for p in found)


def site_packages() -> list[str]:
    return [p for p in sys.path if p and "-packages" in p and Path(p).is_dir()]


@functools.cache
def bwrap_works() -> bool:
    if shutil.which(BWRAP) is None:
        return False
    command = [*bwrap_command(Path("/"), None), sys.executable, "-S", "-c", "pass"]
    try:
        done = subprocess.run(command, capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def choose(mode: str) -> str:
    """`auto` means bwrap when it runs here; asking for bwrap where it cannot is an error."""
    if mode == "none":
        return "none"
    if bwrap_works():
        return "bwrap"
    if mode == "bwrap":
        raise ValueError(
            "--sandbox bwrap: bubblewrap is missing or cannot create namespaces here "
            "(install the bubblewrap package, or pass --sandbox none on a machine where "
            "running the candidate's code unconfined is acceptable)"
        )
    return "none"


def bwrap_command(suite: Path, work: Path | None) -> list[str]:
    command = [BWRAP, "--die-with-parent", "--new-session", "--unshare-all"]
    command += ["--tmpfs", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
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
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").glob("*"):
        try:
            found.update(int(p) for p in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return found


def kill_everything(process: subprocess.Popen, before: set[int]) -> None:
    """Kill the child's process group, then every orphan that came to the grader."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    quiet = 0
    while quiet < 3:
        stray = children() - before
        quiet = quiet + 1 if not stray else 0
        for pid in stray:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in stray:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        time.sleep(0.02)


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
    """Run `python python_args` on the kata's suite under the sandbox, within `timeout` s."""
    env = environment(suite, work)
    if mode == "bwrap":
        inside = {str(suite): str(INSIDE / "suite"), str(work): str(INSIDE / "work")}
        env = {k: replace_paths(v, inside) for k, v in env.items()}
        args = [replace_paths(a, inside) for a in python_args]
        command = [*bwrap_command(suite, work), sys.executable, *args]
        cwd = None
    else:
        command = [sys.executable, *python_args]
        cwd = suite
    (work / "tmp").mkdir(parents=True, exist_ok=True)
    before = children()
    started = time.monotonic()
    with open(log, "wb") as output:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            assert process.stdin is not None  # started with stdin=PIPE
            try:
                process.stdin.write(stdin.encode() + b"\n")
                process.stdin.close()
            except BrokenPipeError:
                pass
            returncode: int | None = process.wait(timeout=timeout)
            if mode == "bwrap" and returncode is not None and returncode > 128:
                returncode = 128 - returncode  # bwrap exits 128 + N for a child killed by N
        except subprocess.TimeoutExpired:
            returncode = None
        finally:
            kill_everything(process, before)
    return Outcome(returncode, time.monotonic() - started)


def replace_paths(text: str, mapping: dict[str, str]) -> str:
    for outside, inside in mapping.items():
        text = text.replace(outside, inside)
    return text
