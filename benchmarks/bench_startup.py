"""Benchmark: start-up of ``fracas --help`` and ``fracas rulesets`` (goal ≤ 0.2 s each).

Each command runs in a fresh interpreter, several times; the best run counts (the others
waited for a busy machine). The same run times two baselines: the bare interpreter and
one that only imports typer, the command-line library itself, so the ratios say how much
fracas adds whatever the machine. CPU seconds are printed beside the wall-clock ones: on a
shared machine the wall clock waits for other people's work, the CPU time does not.

Run: ``.venv/bin/python benchmarks/bench_startup.py`` (or ``make bench``).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

FRACAS = [sys.executable, "-m", "fracas"]
REPEAT = 15
GOAL = 0.2


def best(argv: list[str]) -> tuple[float, float]:
    """Best wall-clock and CPU seconds of ``argv`` over :data:`REPEAT` runs."""
    walls, cpus = [], []
    for _ in range(REPEAT):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus)


def main() -> None:
    os.chdir(Path(__file__).resolve().parents[1])
    bare = best([sys.executable, "-c", "pass"])
    typer = best([sys.executable, "-c", "import typer"])
    print("start-up: a fresh interpreter each time, best of", REPEAT)
    print(f"  python -c pass                {bare[0]:6.3f} s wall {bare[1]:6.3f} s CPU")
    print(f"  python -c 'import typer'      {typer[0]:6.3f} s wall {typer[1]:6.3f} s CPU")
    for args in (["--help"], ["rulesets"]):
        wall, cpu = best([*FRACAS, *args])
        name = "fracas " + " ".join(args)
        verdict = "goal met" if wall <= GOAL else f"above the goal of {GOAL} s"
        print(f"  {name:29s} {wall:6.3f} s wall {cpu:6.3f} s CPU  ({verdict})")
        print(
            f"    × the bare interpreter {wall / bare[0]:5.1f}, "
            f"× importing typer alone {wall / typer[0]:5.1f} (wall)"
        )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"  load average while measured   {load:6.2f}")


if __name__ == "__main__":
    main()
