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
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from fracas.rulesets.hex.batch import FIELDS, StrikeArrays, evaluate, strike_arrays
from fracas.rulesets.hex.strike import SideInputs, StrikeInputs, Supporter, compute_strike

STRIKES = 1_000_000
SAMPLE = 2_000


def best_of(runs: int, work: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


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


def command(*args: str) -> tuple[float, float, float, str]:
    """Wall time, CPU time, peak memory (MB) and stdout of ``fracas ARGS``, a fresh process."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *args], capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    marks = [line.split() for line in done.stderr.splitlines() if line.startswith("@@")]
    if done.returncode != 0 or not marks:
        raise SystemExit(f"fracas {' '.join(args)} failed: {done.stderr}")
    return elapsed, float(marks[-1][2]), float(marks[-1][1]), done.stdout


def main() -> None:
    rng = np.random.default_rng(2026)
    columns = random_strikes(rng, STRIKES)
    arrays = strike_arrays(**columns)
    batch_time = best_of(3, lambda: evaluate(arrays))
    batch_rate = STRIKES / batch_time
    two_rate = STRIKES / best_of(3, lambda: evaluate(arrays, workers=2))
    sample = [exact_inputs(arrays, i) for i in range(SAMPLE)]
    exact_time = best_of(2, lambda: [compute_strike(s) for s in sample])
    exact_rate = SAMPLE / exact_time
    result = evaluate(arrays)
    agree = all(compute_strike(s).losses == result.losses[i] for i, s in enumerate(sample))

    full = [name for name in FIELDS if np.ndim(getattr(arrays, name)) == 1]
    stacked = np.stack([getattr(arrays, name) for name in full])
    copy_time = best_of(3, stacked.copy)
    # A copy reads and writes each byte: its bandwidth counts both.
    bandwidth = 2 * stacked.nbytes / copy_time
    bytes_per_strike = 8 * (len(full) + 4)  # the inputs read, four outputs written
    ceiling = bandwidth / bytes_per_strike

    # Many programs vary fewer numbers: statuses, encirclement and pierce the same for all.
    fewer = {
        name: values
        for name, values in random_strikes(rng, STRIKES).items()
        if not name.endswith(("status_mul", "status_add", "encirclement")) and name != "pierce"
    }
    fewer_arrays = strike_arrays(**fewer)
    fewer_rate = STRIKES / best_of(3, lambda: evaluate(fewer_arrays))

    halves = random_strikes(rng, STRIKES)
    with_halves(rng, halves, 0.1)
    half_arrays = strike_arrays(**halves)
    half_time = best_of(2, lambda: evaluate(half_arrays))
    decided = evaluate(half_arrays).decided_exactly

    print(f"hex batch: {STRIKES:,} random strikes, all {len(full)} fields given per strike")
    print(f"  batch (numpy)          {batch_rate:12.3g} strikes/s   (floor 1e7)")
    print(f"  batch, 2 threads       {two_rate:12.3g} strikes/s   (2 cores; both busy elsewhere "
          f"shows no gain)")  # fmt: skip
    print(f"  per strike (exact)     {exact_rate:12.3g} strikes/s   ({SAMPLE:,} sampled)")
    print(f"  ratio                  {batch_rate / exact_rate:12,.0f} ×           (floor 1,000 ×)")
    print(f"  same losses on the sample: {agree}; decided exactly: {result.decided_exactly}")
    print(f"  plain copy             {bandwidth / 1e9:12.3g} GB/s read + written")
    print(f"  bandwidth ceiling      {ceiling:12.3g} strikes/s   ({bytes_per_strike} B a strike)")
    print(f"  share of the ceiling   {batch_rate / ceiling:12.1%} (one thread)")
    print(f"  {len(fewer)} fields per strike     {fewer_rate:12.3g} strikes/s   (the rest scalars; "
          f"ceiling {bandwidth / (8 * (len(fewer) + 4)):.3g})")  # fmt: skip
    print(f"  with 10 % exact halves {STRIKES / half_time:12.3g} strikes/s   ({decided:,} exact)")

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "thousand.json"
        path.write_text(json.dumps(big_board()))
        startup, startup_cpu, _, _ = command("--help")
        advise_time, advise_cpu, advise_memory, text = command(
            "advise", str(path), "--side", "blue", "-f", "json", "-o", "-"
        )
        attacks = len(json.loads(text)["result"]["attacks"])
        plan_time, plan_cpu, plan_memory, text = command(
            "advise", str(path), "--side", "blue", "--plan", "-f", "json", "-o", "-"
        )
        planned = json.loads(text)["result"]
    print("1,000-unit board: the command in a fresh process (wall clock, and CPU time of the")
    print("process; on a busy machine the CPU time is the steadier number)")
    print(f"  fracas --help (start-up)  {startup:6.2f} s wall {startup_cpu:6.2f} s CPU")
    print(f"  advise --side             {advise_time:6.2f} s wall {advise_cpu:6.2f} s CPU"
          f"   (floor 1 s)   {attacks} attacks ranked, peak {advise_memory:.0f} MB")  # fmt: skip
    print(f"  advise --side --plan      {plan_time:6.2f} s wall {plan_cpu:6.2f} s CPU"
          f"   (floor 10 s)  width {planned['width']}, {len(planned['attacks'])} attacks, "
          f"peak {plan_memory:.0f} MB (floor 500 MB)")  # fmt: skip
    print(f"  plan value {planned['value']}; the advise ranking played in order gives "
          f"{planned['ranking_value']}")  # fmt: skip


if __name__ == "__main__":
    main()
