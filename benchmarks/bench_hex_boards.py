"""Benchmark: big hex boards on the path a user runs, as ratios measured in this one run.

Two boards: 20 rows × 50 columns with a unit on every hex (1,000 units), and 100 rows ×
100 columns with 10,000. Each is timed for what ``fracas advise FILE --side blue`` does
(the command's own functions, in this process, start-up done): load the file, rank the
attacks, write the report as text and as JSON. Every time is also given as a ratio to a
baseline run here on the same board: reading the file and parsing its JSON, the least any
loader pays. Peak memory is this process's high-water mark after the big board.

``--reply`` is timed in one process and in two (``sharing_with(2)``, what the command
does on a machine of two cores: a forked helper searches half of the replies).

The floors are for the command a user types, so each is also measured as that: ``fracas
advise FILE --side blue`` (text, ``-f json``, ``--reply``) run as a process, start-up and
imports included, with its wall time, its CPU time (less shaken by other work on the
machine) and its own peak memory (``os.wait4``), against a baseline process that starts
Python and parses the file's JSON. For the examples, the time a process takes to import
the core install's libraries alone (numpy, pydantic, typer, rich, PyYAML) is given too:
what any command pays before fracas does anything.

Run: ``.venv/bin/python benchmarks/bench_hex_boards.py``. The floors are printed beside
each number; timing depends on the machine and its load, so the tests assert none of it.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fracas.cli.common import Format, render
from fracas.core.helper import sharing_with
from fracas.io.scenario import load_scenario
from fracas.rulesets.hex.reply import replies


def full_board(rows: int, columns: int, seed: int = 7) -> dict[str, Any]:
    """A unit on every hex; sides in bands three columns wide, so fronts run everywhere."""
    rng = random.Random(seed)
    terrain = ["".join(rng.choice(".....fhm~=") for _ in range(columns)) for _ in range(rows)]
    units: list[dict[str, Any]] = []
    for r in range(rows):
        for c in range(columns):
            units.append(
                {
                    "id": f"u{len(units)}",
                    "side": "blue" if (c // 3) % 2 == 0 else "red",
                    "hex": [c - r // 2, r],
                    "strength": rng.choice([33, 50, 77, 99, 100]),
                    "attack": {"land": rng.choice([8, 10, 12])},
                    "defense": rng.choice([8, 10, 12]),
                    "range": [1, 1] if rng.random() < 0.85 else [2, 3],
                    "level": rng.choice([0, 1, 5]),
                }
            )
    return {"fracas": 1, "ruleset": "hex", "title": f"{len(units)} units",
            "map": {"rows": terrain}, "units": units}  # fmt: skip


def timed(runs: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """Best wall time of ``runs`` and the last result."""
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    return best, result


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB (Linux; 0 elsewhere)."""
    status = Path("/proc/self/status")
    if not status.exists():
        return 0.0
    line = next(row for row in status.read_text().splitlines() if row.startswith("VmHWM"))
    return int(line.split()[1]) / 1024


#: A 10,000-unit file holds more values and bytes than the default limits let in (a
#: guard against hostile files, docs/limits.md): raised here as a user would, --limit.
LIMITS = {"input.nodes": 1_000_000, "input.file_bytes": 40_000_000, "budget.advise": 10**9}


def measure(path: Path, runs: int) -> dict[str, float]:
    def baseline() -> Any:
        return json.loads(path.read_text())

    def advise(fmt: Format) -> Callable[[], str]:
        def work() -> str:
            return render(load_scenario(path, limits=LIMITS).advise("blue"), fmt, None)

        return work

    base, _ = timed(runs, baseline)
    load, scenario = timed(runs, lambda: load_scenario(path, limits=LIMITS))
    rank, report = timed(runs, lambda: scenario.advise("blue"))
    text, _ = timed(runs, advise(Format.text))
    data, _ = timed(runs, advise(Format.json))
    ruleset, model = scenario.ruleset, scenario.model
    threats, _ = timed(runs, lambda: ruleset.threats(model, "blue"))
    extra = {"threats": threats}
    if len(model.board.units) <= 1000:
        extra["plan"] = timed(1, lambda: ruleset.plan(model, "blue"))[0]
        extra["reply1"] = timed(1, lambda: ruleset.reply(model, "blue", top=1))[0]
        extra["reply"] = timed(1, lambda: ruleset.reply(model, "blue"))[0]

        def shared_reply() -> object:
            with sharing_with(2):  # as the command does on 2 cores
                return ruleset.reply(model, "blue")

        extra["reply_two"] = timed(1, shared_reply)[0]
        # The same twenty replies, each searched on its own (nothing kept between them):
        # what sharing the enemy's outcomes across the replies saves.
        board, params = model.board, model.params
        extra["reply_alone"] = timed(1, lambda: replies(board, "blue", params, shared=False))[0]
        extra["reply_shared"] = timed(1, lambda: replies(board, "blue", params))[0]
    return {
        **extra,
        "baseline": base,
        "load": load,
        "rank": rank,
        "text": text,
        "json": data,
        "attacks": report.data["total"] if "total" in report.data else len(report.data["attacks"]),
    }


@dataclass(frozen=True)
class Run:
    """One process: wall time, CPU time (user + system) and peak resident memory."""

    wall: float
    cpu: float
    peak_mb: float


def run_process(arguments: list[str]) -> Run:
    """Run ``arguments`` as a process, output thrown away; refuse a failure."""
    start = time.perf_counter()
    child = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    error = child.stderr.read().decode() if child.stderr else ""
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(arguments)} failed ({child.returncode}): {error}")
    # ru_maxrss is in kilobytes on Linux.
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def best_run(runs: int, arguments: list[str]) -> Run:
    """The fastest of ``runs`` (by wall time); peak memory is the largest seen."""
    got = [run_process(arguments) for _ in range(runs)]
    fastest = min(got, key=lambda r: r.wall)
    return Run(fastest.wall, fastest.cpu, max(r.peak_mb for r in got))


#: The command as a user runs it: the fracas installed beside this Python.
FRACAS = str(Path(sys.executable).with_name("fracas"))


def commands(path: Path, units: int, runs: int) -> None:
    """The whole ``fracas advise`` command on ``path``, against starting Python and parsing
    the file, with the floors of the issue."""
    limits = [a for name, value in LIMITS.items() for a in ("--limit", f"{name}={value}")]
    base = best_run(runs, parse(path))
    print(f"  the command, as a process (baseline: start Python, parse the file: "
          f"{base.wall:.3f} s wall):")  # fmt: skip
    floors = {1000: (0.5, 0.5, 2.0), 10000: (3.0, 3.0, None)}[units]
    cases = [("advise --side blue", [], floors[0]), ("advise --side blue -f json", ["-f", "json"],
             floors[1])]  # fmt: skip
    if floors[2] is not None:
        cases.append(("advise --side blue --reply", ["--reply"], floors[2]))
    for label, extra, floor in cases:
        got = best_run(runs, [FRACAS, "advise", str(path), "--side", "blue", *extra, *limits])
        print(f"    {label:28} {got.wall:7.3f} s wall {got.cpu:7.3f} s CPU "
              f"{got.wall / base.wall:6.1f} × baseline  peak {got.peak_mb:5.0f} MB  "
              f"(floor {floor:g} s)")  # fmt: skip


def parse(path: Path) -> list[str]:
    """The baseline process: start Python and parse ``path`` as JSON (or YAML)."""
    module, reader = ("json", "load") if path.suffix == ".json" else ("yaml", "safe_load")
    code = f"import {module}; {module}.{reader}(open({str(path)!r}))"
    return [sys.executable, "-c", code]


#: The libraries of the core install that every ``fracas advise`` imports.
STACK = "import numpy, pydantic, typer, rich.console, yaml"


def example_commands() -> None:
    """``fracas advise --reply`` as a process on every side of every example."""
    stack = best_run(3, [sys.executable, "-c", STACK])
    print("  the command, as a process (baseline: start Python, parse the file); importing "
          f"the core install's libraries alone ({STACK[7:]}): {stack.wall:.3f} s wall")  # fmt: skip
    for example in sorted(Path(__file__).resolve().parents[1].glob("examples/hex/*.yaml")):
        base = best_run(3, parse(example))
        for side in load_scenario(example).model.board.sides():
            got = best_run(3, [FRACAS, "advise", str(example), "--side", side, "--reply"])
            print(f"    {example.name:26} --reply --side {side:5} {got.wall:7.3f} s wall "
                  f"{got.cpu:6.3f} s CPU {got.wall / base.wall:5.1f} × baseline "
                  "(floor 0.3 s)")  # fmt: skip


def replies_on_the_examples() -> None:
    """``--reply`` on every side of every hex example, against parsing its JSON again."""
    for example in sorted(Path(__file__).resolve().parents[1].glob("examples/hex/*.yaml")):
        scenario = load_scenario(example)
        text = json.dumps(scenario.document)
        base, _ = timed(3, lambda: json.loads(text))  # noqa: B023
        for side in scenario.model.board.sides():

            def reply() -> str:
                return render(scenario.ruleset.reply(scenario.model, side), Format.text, None)  # noqa: B023

            wall, _ = timed(3, reply)
            print(f"  {example.name:26} --reply --side {side:5} {wall:7.3f} s "
                  f"{wall / base:9.0f} × baseline  (floor 0.3 s)")  # fmt: skip


def main() -> None:
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"hex boards ({len(os.sched_getaffinity(0))} cores, load average {load}); best wall "
          "time of several runs, and its ratio to reading + parsing the file")  # fmt: skip
    floors = {
        1000: {"load": 0.2, "text": 0.5, "json": 0.5, "reply": 2.0, "reply_two": 2.0},
        10000: {"load": 3.0, "text": 3.0, "json": 3.0},
    }
    with tempfile.TemporaryDirectory() as folder:
        for rows, columns, runs in ((20, 50, 3), (100, 100, 1)):
            path = Path(folder) / f"board{rows}x{columns}.json"
            path.write_text(json.dumps(full_board(rows, columns)))
            units = rows * columns
            got = measure(path, runs)
            base = got["baseline"]
            print(f"{rows} × {columns} board, {units:,} units, {int(got['attacks']):,} attacks "
                  f"of blue; baseline {base:.3f} s")  # fmt: skip
            for key, label in (
                ("load", "load"),
                ("rank", "rank the attacks (loaded)"),
                ("text", "advise --side, text"),
                ("json", "advise --side, JSON"),
                ("threats", "threats (loaded)"),
                ("plan", "advise --plan (loaded)"),
                ("reply1", "--reply --top 1 (loaded)"),
                ("reply", "--reply, best 20 (loaded)"),
                ("reply_two", "  the same, 2 processes"),
                ("reply_alone", "  the replies, each alone"),
                ("reply_shared", "  the replies, outcomes shared"),
            ):
                if key not in got:
                    continue
                floor = floors[units].get(key)
                shown = f"(floor {floor:g} s)" if floor is not None else ""
                print(f"  {label:28} {got[key]:7.3f} s  {got[key] / base:7.1f} × baseline  "
                      f"{shown}")  # fmt: skip
            if "reply_alone" in got:
                print(f"  sharing outcomes: {got['reply_alone'] / got['reply_shared']:.1f} × "
                      "faster than each reply alone")  # fmt: skip
            commands(path, units, runs)
    print(f"peak memory of this process {peak_mb():.0f} MB (floor 1,000 MB; each command's "
          "own is given above)")  # fmt: skip
    print("the examples (baseline: parsing the scenario's JSON):")
    replies_on_the_examples()
    example_commands()


if __name__ == "__main__":
    main()
