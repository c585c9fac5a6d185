"""What the command-line tests share: running a command, and the one-line error check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from fracas.cli import app

ROOT = Path(__file__).resolve().parents[2]
LAIR = ROOT / "examples" / "d100" / "lair_raid.yaml"
#: The work options of odds (and of each sweep cell) and the limit that bounds each.
WORK_OPTIONS = [
    ("--runs", "odds.runs"),
    ("--max-runs", "odds.runs"),
    ("--exact-budget", "odds.exact_budget"),
    ("--sample-budget", "odds.sample_budget"),
]


def run(*args: str | Path) -> tuple[int, list[str], str]:
    """Exit code, stderr lines and stdout of ``fracas ARGS``."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    return result.exit_code, result.stderr.splitlines(), result.stdout


def assert_one_line(args: tuple[str | Path, ...], *expected: str, stdout_empty: bool = True) -> str:
    """Bad input: exit code 2 and one short, printable ``fracas: error:`` line holding every
    ``expected`` part (and, unless told otherwise, nothing on stdout)."""
    code, lines, out = run(*args)
    assert code == 2, lines
    assert len(lines) == 1, lines
    if stdout_empty:
        assert out == "", out
    line = lines[0]
    assert line.startswith("fracas: error: "), line
    assert len(line) <= 520
    assert line.isprintable(), line
    for part in expected:
        assert part in line, line
    return line


def fresh_python(*args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in a fresh interpreter: nothing an earlier test imported is loaded."""
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False)
