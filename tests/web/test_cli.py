"""The command line around the server: ``fracas serve`` options, and ``-o`` stopped by SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from fracas.cli import app

ROOT = Path(__file__).resolve().parents[2]


def test_sigterm_while_writing_output_leaves_no_temporary_file(tmp_path: Path) -> None:
    # The command is held between writing its temporary file and renaming it over the
    # output (os.replace waits), then terminated as a service manager would.
    script = textwrap.dedent(
        """
        import os, sys, time
        from pathlib import Path
        from fracas.cli import common
        real = os.replace
        def held(*args):
            print("writing", flush=True)
            time.sleep(60)
        common.os.replace = held
        common.write_output("x" * 1000, Path(sys.argv[1]))
        """
    )
    output = tmp_path / "report.txt"
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(output)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "writing"
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".report.txt.")]
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == -signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_scheduler_is_one_line() -> None:
    ran = CliRunner().invoke(app, ["serve", "--port", "0", "--scheduler", "notanaddress"])
    assert ran.exit_code == 2
    lines = ran.stderr.strip().splitlines()
    assert lines == [lines[0]]
    assert lines[0].startswith("fracas: error: cannot reach the Dask scheduler at notanaddress")
