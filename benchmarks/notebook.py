"""Time a `%%kata N` cell from its run to its verdict, against `katas run N` for the same code.

    python benchmarks/notebook.py [--repeat 5] [--kata q02_numpy_bridge]

Needs the notebook extra (pip install -e ".[notebook]"). A real Jupyter kernel runs in one
copy of the kata, `katas run N` in another; each round saves, alternately, the reference
answer and the original stub in both, the stub file for `katas run` and a `%%kata N` cell in
the kernel, and times from the save (the cell's start) to the verdict (the cell's end, the
command's exit). Rounds take turns, so both see the same load. The best time of each counts,
the least disturbed by other load on the machine; medians are shown too. The target is a
cell within 1.2x of `katas run N`.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jupyter_client.manager import start_new_kernel  # noqa: E402

from torch_katas import catalog  # noqa: E402
from torch_katas.grading import takehome  # noqa: E402

TARGET = 1.2


def suite(scratch: Path, name: str, kata: catalog.Kata) -> Path:
    """A git checkout holding only the kata (the notebook keeps attempts as reset does)."""
    root = scratch / name
    takehome.practice_copy(ROOT, root, [kata])
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "suite"]):
        subprocess.run([*git, *command], cwd=root, check=True)
    return root


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def katas_run(root: Path, kata: catalog.Kata, text: str, code: int) -> tuple[float, float]:
    cpu = children_cpu()
    start = time.perf_counter()
    kata.stub_path(root).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "torch_katas", "run", str(kata.number)],
        cwd=root,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode != code:
        sys.exit(f"katas run {kata.number} exited {done.returncode}:\n{done.stdout[-3000:]}")
    return seconds, children_cpu() - cpu


KERNEL_CPU = (
    "import resource as _r\n"
    "print(sum(_r.getrusage(w).ru_utime + _r.getrusage(w).ru_stime "
    "for w in (_r.RUSAGE_SELF, _r.RUSAGE_CHILDREN)))"
)


def kernel_cpu(client: Any) -> float:
    """CPU seconds of the kernel and of the processes it has waited for."""
    said: list[str] = []
    client.execute_interactive(
        KERNEL_CPU, timeout=60, output_hook=lambda m: said.append(m["content"].get("text", ""))
    )
    return float("".join(said))


def kata_cell(client: Any, kata: catalog.Kata, text: str, verdict: str) -> tuple[float, float]:
    shown: list[str] = []
    cpu = kernel_cpu(client)

    def collect(message: dict) -> None:
        content = message["content"]
        shown.append(content.get("text") or content.get("data", {}).get("text/plain", ""))

    start = time.perf_counter()
    reply = client.execute_interactive(
        f"%%kata {kata.number}\n{text}", timeout=600, output_hook=collect
    )
    seconds = time.perf_counter() - start
    if reply["content"]["status"] != "ok" or verdict not in "".join(shown):
        sys.exit(f"the %%kata cell did not say {verdict!r}:\n{''.join(shown)[-3000:]}")
    return seconds, kernel_cpu(client) - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds of each (default 5)")
    parser.add_argument("--kata", default="q02_numpy_bridge", help="the kata timed")
    args = parser.parse_args()
    kata = catalog.load(ROOT)[args.kata]
    versions = [  # (stub, exit code of `katas run`, what the cell's verdict says)
        (kata.solution_path(ROOT).read_text(encoding="utf-8"), 0, "all tests pass; solved"),
        (kata.stub_path(ROOT).read_text(encoding="utf-8"), 1, "not started"),
    ]
    cli_times: list[tuple[float, float]] = []
    cell_times: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory(prefix="katas-notebook-") as scratch:
        terminal = suite(Path(scratch), "terminal", kata)
        notebook = suite(Path(scratch), "notebook", kata)
        manager, client = start_new_kernel(kernel_name="python3", cwd=str(notebook))
        try:
            client.execute_interactive("%load_ext torch_katas", timeout=60)
            for turn in range(args.repeat):
                # The original stub is already in place: start with the reference answer.
                text, code, verdict = versions[turn % 2]
                # Which goes first changes each round too: neither always finds the files cached.
                for which in (turn % 2, 1 - turn % 2):
                    if which == 0:
                        cli_times.append(katas_run(terminal, kata, text, code))
                    else:
                        cell_times.append(kata_cell(client, kata, text, verdict))
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
    print(f"{'wall-clock s, CPU s':<24} {'best':>6} {'median':>7} {'CPU best':>9} {'median':>7}")
    for name, runs in (
        (f"katas run {kata.number}", cli_times),
        (f"%%kata {kata.number} cell", cell_times),
    ):
        wall, cpu = [run[0] for run in runs], [run[1] for run in runs]
        print(
            f"{name:<24} {min(wall):>6.2f} {statistics.median(wall):>7.2f} "
            f"{min(cpu):>9.2f} {statistics.median(cpu):>7.2f}"
        )
    ratio = min(t for t, _ in cell_times) / min(t for t, _ in cli_times)
    median_ratio = statistics.median(t for t, _ in cell_times) / statistics.median(
        t for t, _ in cli_times
    )
    cpu_ratio = statistics.median(c for _, c in cell_times) / statistics.median(
        c for _, c in cli_times
    )
    verdict = "within" if ratio <= TARGET else "OVER"
    print(
        f"the cell takes {ratio:.2f}x `katas run` (medians {median_ratio:.2f}x, CPU "
        f"{cpu_ratio:.2f}x): {verdict} the {TARGET}x target"
    )
    sys.exit(0 if ratio <= TARGET else 1)


if __name__ == "__main__":
    main()
