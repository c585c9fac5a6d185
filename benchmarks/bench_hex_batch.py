"""Benchmark: hex strikes at AI scale, every number a ratio measured in this one run.

1. A million random strikes through ``fracas.rulesets.hex.batch`` against the per-strike
   exact path (``compute_strike``, what one forecast costs per strike) on a sample.
2. The same batch against a plain copy of its input arrays: the memory-bandwidth
   ceiling, as the share of it the batch reaches.
3. The batch with a tenth of exact halves, which are decided in exact rationals.
4. ``fracas advise --side`` and ``fracas advise --side --plan`` on a 1,000-unit board, as
   a user runs them (the command, in a fresh process), with their peak memory.

Run: ``.venv/bin/python benchmarks/bench_hex_batch.py`` (or ``make bench``). The floors
of the issue are printed beside each number; timing depends on the machine and its load,
so nothing here is asserted by the tests.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fracas.io.render import render_json
from fracas.io.scenario import load_scenario
from fracas.rulesets.hex import fast
from fracas.rulesets.hex.batch import FIELDS, StrikeArrays, evaluate, strike_arrays
from fracas.rulesets.hex.strike import SideInputs, StrikeInputs, Supporter, compute_strike

STRIKES = 1_000_000
SAMPLE = 2_000


def random_strikes(rng: np.random.Generator, n: int) -> dict[str, Any]:
    """Strikes as an AI meets them: per-unit numbers vary, the rule numbers do not."""
    columns: dict[str, Any] = {}
    for prefix, printed, support in (
        ("attacker", "attack", "attack_support"),
        ("target", "defense", "defense_support"),
    ):
        columns[f"{prefix}_strength"] = rng.integers(1, 200, n)
        columns[printed] = rng.choice([5.0, 8.0, 10.0, 12.5, 15.0], n)
        columns[f"{prefix}_level"] = rng.integers(0, 20, n)
        columns[f"{prefix}_encirclement"] = rng.choice([1.0, 1.0, 1.0, 0.9, 0.8], n)
        columns[f"{prefix}_terrain"] = rng.choice([1.0, 1.1, 1.25, 1.3, 0.8], n)
        columns[f"{prefix}_status_mul"] = rng.choice([1.0, 1.0, 1.2, 0.8], n)
        columns[support] = rng.choice([0.0, 0.0, 250.0, 500.0, 125.0], n)
        columns[f"{prefix}_status_add"] = rng.choice([0.0, 0.0, 50.0, -30.0], n)
    columns["pierce"] = rng.choice([0.0, 0.0, 0.1, 0.25], n)
    return columns


def with_halves(rng: np.random.Generator, columns: dict[str, Any], share: float) -> None:
    """Make a share of the strikes even fights of an odd number of soldiers: x.5 losses."""
    n = len(columns["attacker_strength"])
    chosen = rng.random(n) < share
    odd = rng.integers(0, 100, n) * 2 + 1
    for prefix, printed, support in (
        ("attacker", "attack", "attack_support"),
        ("target", "defense", "defense_support"),
    ):
        columns[f"{prefix}_strength"] = np.where(chosen, odd, columns[f"{prefix}_strength"])
        columns[printed] = np.where(chosen, 10.0, columns[printed])
        for key in ("level", "encirclement", "terrain", "status_mul"):
            columns[f"{prefix}_{key}"] = np.where(
                chosen, columns[f"attacker_{key}"], columns[f"{prefix}_{key}"]
            )
        columns[support] = np.where(chosen, 0.0, columns[support])
        columns[f"{prefix}_status_add"] = np.where(chosen, 0.0, columns[f"{prefix}_status_add"])
    columns["pierce"] = np.where(chosen, 0.0, columns["pierce"])


def exact_inputs(arrays: StrikeArrays, index: int) -> StrikeInputs:
    """Strike ``index`` as the exact path's record (one supporter carrying the support)."""
    read = {name: values[0] for name, values in arrays.exact_fields(np.array([index])).items()}

    def side(prefix: str, printed: str, support: str) -> SideInputs:
        lent = read[support]
        return SideInputs(
            unit=prefix,
            strength=int(read[f"{prefix}_strength"]),
            printed=read[printed],
            level=int(read[f"{prefix}_level"]),
            encirclers=(),
            encirclement=read[f"{prefix}_encirclement"],
            terrain="plains",
            terrain_factor=read[f"{prefix}_terrain"],
            status_mul=(("s", read[f"{prefix}_status_mul"]),),
            supporters=(Supporter("ally", 1, lent),) if lent else (),
            status_add=(("s", read[f"{prefix}_status_add"]),),
        )

    return StrikeInputs(
        attacker=side("attacker", "attack", "attack_support"),
        defender=side("target", "defense", "defense_support"),
        target_domain="land",
        distance=1,
        pierce=read["pierce"],
        level_percent=read["level_percent"],
        support_share=Fraction(1),
        defense_support_cap=read["defense_support_cap"],
        loss_exponent=read["loss_exponent"],
    )


def big_board(units: int = 1000, seed: int = 7) -> dict[str, Any]:
    """A 1,000-unit scenario: two sides in interleaved bands, so fronts run everywhere."""
    rng = random.Random(seed)
    width, height = 50, 32
    rows = ["".join(rng.choice(".....fhm~=") for _ in range(width)) for _ in range(height)]
    places = [(c - r // 2, r) for r in range(height) for c in range(width)]
    rng.shuffle(places)
    made = []
    for number, (q, r) in enumerate(places[:units]):
        band = (q + r // 2) // 3
        made.append(
            {
                "id": f"u{number}",
                "side": "blue" if band % 2 == 0 else "red",
                "hex": [q, r],
                "strength": rng.choice([33, 50, 77, 99, 100]),
                "attack": {"land": rng.choice([8, 10, 12])},
                "defense": rng.choice([8, 10, 12]),
                "range": [1, 1] if rng.random() < 0.85 else [2, 3],
                "level": rng.choice([0, 1, 5]),
            }
        )
    return {"fracas": 1, "ruleset": "hex", "title": "A thousand units", "map": {"rows": rows},
            "units": made}  # fmt: skip


#: Runs the command in this interpreter, then reports the process's own peak memory
#: (VmHWM starts afresh at exec, unlike the rusage of a forked child) and CPU time.
RUNNER = """
import os, resource, sys
from fracas.cli import main
sys.argv = ["fracas", *sys.argv[1:]]
try:
    main()
finally:
    peak = next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"@@ {int(peak) / 1024:.0f} {usage.ru_utime + usage.ru_stime:.3f}", file=sys.stderr)
"""


@dataclass(frozen=True)
class Run:
    """One command in a fresh process: best wall time, its CPU time, peak memory, output."""

    wall: float
    cpu: float
    memory: float
    stdout: str


def command(*args: str, runs: int = 3, environment: dict[str, str] | None = None) -> Run:
    """``fracas ARGS`` in a fresh process, ``runs`` times; the fastest run."""
    best: Run | None = None
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", RUNNER, *args],
            capture_output=True,
            text=True,
            check=False,
            env=environment,
        )
        elapsed = time.perf_counter() - start
        marks = [line.split() for line in done.stderr.splitlines() if line.startswith("@@")]
        if done.returncode != 0 or not marks:
            raise SystemExit(f"fracas {' '.join(args)} failed: {done.stderr}")
        run = Run(elapsed, float(marks[-1][2]), float(marks[-1][1]), done.stdout)
        if best is None or run.wall < best.wall:
            best = run
    assert best is not None
    return best


def timed(runs: int, work: Callable[[], Any]) -> tuple[float, float]:
    """Best wall time of ``runs`` and the CPU time of that run (this process, all threads)."""
    best = (float("inf"), float("inf"))
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def copy_in_threads(source: NDArray[np.float64], target: NDArray[np.float64], workers: int) -> None:
    """A plain copy of ``source`` into ``target``, row blocks shared by ``workers`` threads."""
    bounds = np.linspace(0, source.shape[1], workers + 1).astype(int)
    with ThreadPoolExecutor(workers) as pool:
        list(
            pool.map(
                lambda i: np.copyto(
                    target[:, bounds[i] : bounds[i + 1]], source[:, bounds[i] : bounds[i + 1]]
                ),
                range(workers),
            )
        )


def machine_load() -> str:
    """The load average and the cores this process may use, to read the times by."""
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    return f"{len(os.sched_getaffinity(0))} cores, load average {load}"


def main() -> None:
    rng = np.random.default_rng(2026)
    columns = random_strikes(rng, STRIKES)
    arrays = strike_arrays(**columns)
    evaluate(arrays)  # warm up: first-touch page faults belong to no one's rate
    batch_wall, batch_cpu = timed(5, lambda: evaluate(arrays))
    two_wall, two_cpu = timed(5, lambda: evaluate(arrays, workers=2))
    sample = [exact_inputs(arrays, i) for i in range(SAMPLE)]
    exact_wall, exact_cpu = timed(2, lambda: [compute_strike(s) for s in sample])
    result = evaluate(arrays)
    agree = all(compute_strike(s).losses == result.losses[i] for i, s in enumerate(sample))
    batch_rate, two_rate = STRIKES / batch_wall, STRIKES / two_wall
    exact_rate = SAMPLE / exact_wall

    full = [name for name in FIELDS if np.ndim(getattr(arrays, name)) == 1]
    stacked = np.stack([getattr(arrays, name) for name in full])
    target = np.empty_like(stacked)
    copy_wall, _ = timed(5, lambda: np.copyto(target, stacked))
    copy_two_wall, _ = timed(5, lambda: copy_in_threads(stacked, target, 2))
    # A copy reads and writes each byte: its bandwidth counts both.
    bandwidth = 2 * stacked.nbytes / copy_wall
    bandwidth_two = 2 * stacked.nbytes / copy_two_wall
    bytes_per_strike = 8 * (len(full) + 4)  # the inputs read, four outputs written
    ceiling, ceiling_two = bandwidth / bytes_per_strike, bandwidth_two / bytes_per_strike

    # Many programs vary fewer numbers: statuses, encirclement and pierce the same for all.
    fewer = {
        name: values
        for name, values in random_strikes(rng, STRIKES).items()
        if not name.endswith(("status_mul", "status_add", "encirclement")) and name != "pierce"
    }
    fewer_arrays = strike_arrays(**fewer)
    fewer_wall, _ = timed(5, lambda: evaluate(fewer_arrays, workers=2))

    halves = random_strikes(rng, STRIKES)
    with_halves(rng, halves, 0.1)
    half_arrays = strike_arrays(**halves)
    half_wall, _ = timed(2, lambda: evaluate(half_arrays, workers=2))
    decided = evaluate(half_arrays).decided_exactly
    fewer_ceiling = bandwidth_two / (8 * (len(fewer) + 4))

    # The compiled kernel of the `fast` extra, when installed (compiling is not timed).
    kernel: tuple[float, float, float, bool] | None = None
    if fast.available():
        compile_start = time.perf_counter()
        same = np.array_equal(fast.evaluate(arrays).losses, result.losses)
        compile_time = time.perf_counter() - compile_start
        fast_wall, fast_cpu = timed(5, lambda: fast.evaluate(arrays))
        kernel = (STRIKES / fast_wall, STRIKES / fast_cpu, compile_time, same)

    print(f"hex batch: {STRIKES:,} random strikes, all {len(full)} fields given per strike")
    print(f"  ({machine_load()}; rates are wall clock, best of several runs; the CPU")
    print("   time of the same run shows what a quiet machine would give)")
    print(f"  batch, 1 thread        {batch_rate:12.3g} strikes/s   "
          f"({STRIKES / batch_cpu:.3g} a CPU second)")  # fmt: skip
    print(f"  batch, 2 threads       {two_rate:12.3g} strikes/s   (floor 1e7 on 2 cores; "
          f"{STRIKES / two_cpu:.3g} a CPU second)")  # fmt: skip
    print(f"  per strike (exact)     {exact_rate:12.3g} strikes/s   ({SAMPLE:,} sampled; "
          f"{SAMPLE / exact_cpu:.3g} a CPU second)")  # fmt: skip
    print(f"  ratio, 2 threads       {two_rate / exact_rate:12,.0f} ×           (floor 1,000 ×)")
    print(f"  ratio, 1 thread        {batch_rate / exact_rate:12,.0f} ×")
    print(f"  same losses on the sample: {agree}; decided exactly: {result.decided_exactly}")
    print(f"  plain copy, 1 thread   {bandwidth / 1e9:12.3g} GB/s read + written")
    print(f"  plain copy, 2 threads  {bandwidth_two / 1e9:12.3g} GB/s")
    print(f"  bandwidth ceiling      {ceiling:12.3g} strikes/s   ({bytes_per_strike} B a strike; "
          f"2 threads {ceiling_two:.3g})")  # fmt: skip
    print(f"  share of the ceiling   {batch_rate / ceiling:12.1%} (1 thread); "
          f"{two_rate / ceiling_two:.1%} (2 threads)")  # fmt: skip
    print(f"  {len(fewer)} fields per strike     {STRIKES / fewer_wall:12.3g} strikes/s   "
          f"(2 threads; the rest scalars; ceiling {fewer_ceiling:.3g})")  # fmt: skip
    print(f"  with 10 % exact halves {STRIKES / half_wall:12.3g} strikes/s   (2 threads; "
          f"{decided:,} decided exactly)")  # fmt: skip
    if kernel is None:
        print("  compiled kernel: numba is not installed (pip install 'fracas[fast]')")
    else:
        rate, per_cpu, compile_time, same = kernel
        print(f"  compiled (numba)       {rate:12.3g} strikes/s   (floor 5e7; every core; "
              f"{rate / ceiling_two:.1%} of the ceiling; {per_cpu:.3g} a CPU second)")  # fmt: skip
        print(f"  compiled / numpy       {rate / two_rate:12.2f} ×           (both on 2 threads; "
              f"compiling took {compile_time:.1f} s; same losses: {same})")  # fmt: skip

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "thousand.json"
        path.write_text(json.dumps(big_board()))

        # In this process, start-up done: what a program that imports fracas pays.
        def advise_here() -> str:
            return render_json(load_scenario(path).advise("blue"))

        def plan_here() -> str:
            scenario = load_scenario(path)
            return render_json(scenario.ruleset.plan(scenario.model, "blue"))

        advise_here()
        here_wall, here_cpu = timed(3, advise_here)
        plan_here_wall, plan_here_cpu = timed(1, plan_here)

        startup = command("--help")
        advise = command("advise", str(path), "--side", "blue", "-f", "json", "-o", "-")
        attacks = len(json.loads(advise.stdout)["result"]["attacks"])
        plan = command(
            "advise", str(path), "--side", "blue", "--plan", "-f", "json", "-o", "-", runs=1
        )
        planned = json.loads(plan.stdout)["result"]
        # As installed from a wheel: bytecode compiled once and kept (an environment with
        # PYTHONDONTWRITEBYTECODE otherwise compiles every module at every start).
        compiled = {
            **os.environ,
            "PYTHONPYCACHEPREFIX": str(Path(folder) / "bytecode"),
            "PYTHONDONTWRITEBYTECODE": "",
        }
        compiled.pop("PYTHONDONTWRITEBYTECODE")
        command("--help", runs=1, environment=compiled)
        startup_compiled = command("--help", environment=compiled)
        advise_compiled = command(
            "advise", str(path), "--side", "blue", "-f", "json", "-o", "-", environment=compiled
        )

    print(f"1,000-unit board, {attacks} attacks ({machine_load()}): wall clock and the CPU")
    print("time of the same run; on a busy machine the CPU time is the steadier number")
    print(f"  advise, in this process      {here_wall:6.2f} s wall {here_cpu:6.2f} s CPU"
          "   (floor 1 s; load, rank, render)")  # fmt: skip
    print(f"  advise --plan, same          {plan_here_wall:6.2f} s wall {plan_here_cpu:6.2f} s CPU"
          "   (floor 10 s)")  # fmt: skip
    print("  the command, a fresh process:")
    print(f"  fracas --help (start-up)     {startup.wall:6.2f} s wall {startup.cpu:6.2f} s CPU")
    print(f"  advise --side                {advise.wall:6.2f} s wall {advise.cpu:6.2f} s CPU"
          f"   (floor 1 s)   peak {advise.memory:.0f} MB")  # fmt: skip
    print(f"  advise --side --plan         {plan.wall:6.2f} s wall {plan.cpu:6.2f} s CPU"
          f"   (floor 10 s)  width {planned['width']}, {len(planned['attacks'])} attacks, "
          f"peak {plan.memory:.0f} MB (floor 500 MB)")  # fmt: skip
    print("  the command with compiled bytecode kept (as a wheel installs it):")
    print(f"  fracas --help (start-up)     {startup_compiled.wall:6.2f} s wall "
          f"{startup_compiled.cpu:6.2f} s CPU")  # fmt: skip
    print(f"  advise --side                {advise_compiled.wall:6.2f} s wall "
          f"{advise_compiled.cpu:6.2f} s CPU   (floor 1 s)")  # fmt: skip
    print(f"  plan value {planned['value']}; the advise ranking played in order gives "
          f"{planned['ranking_value']}")  # fmt: skip


if __name__ == "__main__":
    main()
