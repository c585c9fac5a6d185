"""The quick fuzz run of ``make test``: a few thousand cases, none may crash, hang or ramble.

``make fuzz`` runs the long one (100,000 cases); both count every case in one outcome class
(see ``tests/fuzz/fuzzer.py``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _fuzzer() -> ModuleType:
    # Loaded by path (tests are not a package); registered so worker results unpickle.
    if "fracas_fuzzer" in sys.modules:
        return sys.modules["fracas_fuzzer"]
    spec = importlib.util.spec_from_file_location(
        "fracas_fuzzer", Path(__file__).with_name("fuzzer.py")
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fracas_fuzzer"] = module
    spec.loader.exec_module(module)
    return module


def test_quick_fuzz_has_no_crash_hang_or_multi_line_error() -> None:
    fuzzer = _fuzzer()
    # A generous per-case limit: a loaded machine must not turn a slow case into a "hang".
    tally = fuzzer.fuzz(3_000, workers=2, seed=1, time_limit=60.0, cli_every=25)
    counts = {name: tally.outcomes[name] for name in fuzzer.OUTCOMES}
    assert sum(counts.values()) == 3_000, counts
    assert all(counts[name] == 0 for name in fuzzer.FAILURES), "\n".join(tally.failures)
    assert all(tally.cli[name] == 0 for name in fuzzer.FAILURES), "\n".join(tally.failures)
    # The cases reach every stage: some resolve, most are refused with one line.
    assert counts["ok"] > 100
    assert counts["rejected"] > 1_000
    assert sum(tally.cli.values()) > 50


def test_a_failing_case_is_counted_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    fuzzer = _fuzzer()
    case = fuzzer.Case(
        example="x",
        mutations=[],
        document={"fracas": 1, "ruleset": "hex"},
        fmt="memory",
        text=None,
        action="resolve",
        seed=0,
        output="text",
        cli=False,
    )
    tally = fuzzer.Tally()
    assert fuzzer.run_case(case, tally, 30.0, Path(".")) == "rejected"
    monkeypatch.setattr(fuzzer, "run_library", lambda case: 1 / 0)
    assert fuzzer.run_case(case, tally, 30.0, Path(".")) == "crash"
    assert tally.outcomes == {"rejected": 1, "crash": 1}
    assert "ZeroDivisionError" in tally.failures[0]
