"""Time the suite against a bare `import torch`, the floor every run pays.

    python benchmarks/startup.py [--repeat 5] [--kata q01_fit_line]

Each command runs in a fresh process `--repeat` times (the full run once) and the best
wall-clock time counts, which is the least disturbed by other load on the machine. The
target is a single-kata run within 1.5x the bare import.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.5


def best_time(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode not in (0,):
            sys.exit(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (default 5)")
    parser.add_argument("--kata", default="q01_fit_line", help="the kata timed on its own")
    args = parser.parse_args()
    pytest = [sys.executable, "-m", "pytest", "--solutions", "-q", "-p", "no:cacheprovider"]
    rows = [
        ("bare import torch", [sys.executable, "-c", "import torch"], args.repeat),
        (f"one kata ({args.kata})", [*pytest, f"katas/{args.kata}_test.py"], args.repeat),
        ("full pytest --solutions", pytest, 1),
    ]
    results = [(name, best_time(command, repeat)) for name, command, repeat in rows]
    floor = results[0][1]
    print(f"{'command':<32} {'seconds':>8} {'x import':>9}")
    for name, seconds in results:
        print(f"{name:<32} {seconds:>8.2f} {seconds / floor:>9.2f}")
    ratio = results[1][1] / floor
    verdict = "within" if ratio <= TARGET else "OVER"
    print(f"one kata is {ratio:.2f}x the bare import: {verdict} the {TARGET}x target")
    sys.exit(0 if ratio <= TARGET else 1)


if __name__ == "__main__":
    main()
