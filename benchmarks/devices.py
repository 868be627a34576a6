"""Time what the simulated device adds: the kata run on the CPU alone against the default
device list (the CPU plus `sim` on a machine without a GPU).

    python benchmarks/devices.py [--repeat 3] [--kata q01_fit_line]

Each command runs in a fresh process; the runs of the two device lists alternate, so load
from other work on the machine falls on both alike, and the best time of each counts. The
targets: the whole suite within 1.5x of its CPU-only time, one kata within 1.5x too.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.5


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed


def compare(name: str, command: list[str], repeat: int) -> float:
    cpu, both = [], []
    for _ in range(repeat):
        cpu.append(seconds([*command, "--device", "cpu"]))
        both.append(seconds(command))
    ratio = min(both) / min(cpu)
    verdict = "within" if ratio <= TARGET else "OVER"
    print(
        f"{name:<26} cpu {min(cpu):7.2f} s   cpu+sim {min(both):7.2f} s   "
        f"{ratio:.2f}x: {verdict} the {TARGET}x target"
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per command (default 3)")
    parser.add_argument("--kata", default="q01_fit_line", help="the kata timed on its own")
    args = parser.parse_args()
    pytest = [sys.executable, "-m", "pytest", "--solutions", "-q", "-p", "no:cacheprovider"]
    sys.path.insert(0, str(ROOT))
    from torch_katas import devices

    if devices.present() != ["cpu", "sim"]:
        sys.exit(f"the default devices here are {devices.present()}, not cpu and sim")
    ratios = [
        compare(f"one kata ({args.kata})", [*pytest, f"katas/{args.kata}_test.py"], args.repeat),
        compare("pytest katas --solutions", [*pytest, "katas"], args.repeat),
    ]
    sys.exit(0 if max(ratios) <= TARGET else 1)


if __name__ == "__main__":
    main()
