"""``--scheduler`` that cannot be reached: one line, exit code 2, and nothing printed after."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

LAIR = Path(__file__).resolve().parents[2] / "examples" / "d100" / "lair_raid.yaml"
GRID = ("--vary", "parameters.round_limit=1,2", "--metric", "winner=Red Fang")


@pytest.mark.parametrize("command", ["odds", "sweep"])
def test_an_unreachable_scheduler_prints_one_line_and_nothing_later(command: str) -> None:
    # The client that failed to connect used to close itself at exit, 20 s after the error,
    # printing "Exception ignored in Client.__del__" and a traceback.
    pytest.importorskip("distributed")
    fracas = Path(sys.executable).with_name("fracas")
    grid = GRID if command == "sweep" else ()
    done = subprocess.run(
        [str(fracas), command, str(LAIR), *grid, "--scheduler", "notanaddress"],
        capture_output=True,
        text=True,
        timeout=15,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert "cannot reach the Dask scheduler at notanaddress" in done.stderr
