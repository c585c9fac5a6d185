"""Benchmark: ``fracas import`` of a 2,400-point list (goal ≤ 0.5 s).

The list is the example Empire roster (``examples/armies/empire.ros``) with its units
repeated until it passes 2,400 points, written in the three containers: New Recruit JSON,
BattleScribe ``.ros`` and ``.rosz``. The baseline, measured in the same run, is parsing the
same bytes alone (``json.loads`` / ``ElementTree.fromstring``), so the ratio says what the
import adds to reading the file at all. The best of several runs counts.

Run: ``.venv/bin/python benchmarks/bench_import.py`` (or ``make bench``).
"""

from __future__ import annotations

import io
import json
import tempfile
import time
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from fracas.rulesets.rankflank.armylists import import_army, parse_xml

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 7
GOAL = 0.5
POINTS = 2_400


def best(work: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def points(row: dict[str, Any]) -> float:
    """A row's points and its children's (the export's costs are already totals)."""
    own = sum(float(cost.get("value", 0)) for cost in row.get("costs", []))
    return own + sum(points(child) for child in row.get("selections", []))


def big_roster() -> tuple[dict[str, Any], float]:
    """The example roster, its units repeated past :data:`POINTS`, and its points."""
    source = ROOT / "examples/armies/empire.ros"
    roster = parse_xml(source, source.read_bytes())["roster"]
    force = roster["forces"][0]
    units = force["selections"]

    each = sum(points(unit) for unit in units)
    copies = int(POINTS // each) + 1
    force["selections"] = [unit for _ in range(copies) for unit in units]
    return {"roster": {**roster, "generatedBy": "https://newrecruit.eu"}}, each * copies


def main() -> None:
    document, total = big_roster()
    with tempfile.TemporaryDirectory() as folder:
        as_json = Path(folder) / "army.json"
        as_json.write_text(json.dumps(document), encoding="utf-8")
        as_ros = Path(folder) / "army.ros"
        # The example .ros with its units repeated as many times: the same list as XML.
        text = (ROOT / "examples/armies/empire.ros").read_bytes()
        head, _, rest = text.partition(b"<selections>")
        body, _, tail = rest.rpartition(b"</selections>")
        copies = len(document["roster"]["forces"][0]["selections"]) // 3
        as_ros.write_bytes(head + b"<selections>" + body * copies + b"</selections>" + tail)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("army.ros", as_ros.read_bytes())
        as_rosz = Path(folder) / "army.rosz"
        as_rosz.write_bytes(buffer.getvalue())
        print(f"import of a {total:,.0f}-point list, best of {REPEAT}")
        cases: tuple[tuple[str, Path, Callable[[bytes], object] | None], ...] = (
            ("New Recruit JSON", as_json, json.loads),
            ("BattleScribe .ros", as_ros, ElementTree.fromstring),
            ("BattleScribe .rosz", as_rosz, None),
        )
        for name, path, baseline in cases:
            took = best(partial(import_army, path))
            data = path.read_bytes()
            parse = best(partial(baseline, data)) if baseline else 0.0
            ratio = f"{took / parse:5.1f}x parsing alone" if parse else ""
            verdict = "goal met" if took <= GOAL else f"above the goal of {GOAL} s"
            print(
                f"  {name:20s} {path.stat().st_size:>9,} bytes {took:6.3f} s  {ratio}  ({verdict})"
            )


if __name__ == "__main__":
    main()
