"""``--limit`` takes any whole number a limit can honour, and refuses the rest in one line."""

from __future__ import annotations

import sys

from typer.testing import CliRunner

from fracas.cli import app

LAIR = "examples/d100/lair_raid.yaml"
runner = CliRunner()


def test_the_largest_limit_reads_the_file() -> None:
    # A read of sys.maxsize bytes at once would reserve them first; the file is 2 KB.
    result = runner.invoke(app, ["validate", LAIR, "--limit", f"input.file_bytes={sys.maxsize}"])
    assert result.exit_code == 0, result.stderr


def test_a_limit_beyond_a_machine_word_is_refused() -> None:
    result = runner.invoke(app, ["validate", LAIR, "--limit", f"input.file_bytes={10**22}"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "input.file_bytes: 10,000,000,000,000,000,000,000 is more than any limit" in (
        result.stderr
    )
