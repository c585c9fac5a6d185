"""The command line around the server: ``fracas serve`` options, and ``-o`` stopped by SIGTERM."""

from __future__ import annotations

import os
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


#: Loaded by the command's Python at start (``sitecustomize`` on ``PYTHONPATH``): holds
#: the rename of the output's temporary file (``FRACAS_TEST_HOLD=replace``), or has the
#: process sent SIGTERM the moment that file is made (``=made``), before the command has
#: done anything else. The command itself is the real one, from its argument parsing on.
SITECUSTOMIZE = """
import os, signal, tempfile, time
hold = os.environ.get("FRACAS_TEST_HOLD")
if hold == "replace":
    real_replace = os.replace
    def replace(source, target, *args, **kwargs):
        if os.path.basename(str(source)).startswith(".report.txt."):
            print("writing", flush=True)
            time.sleep(60)
        return real_replace(source, target, *args, **kwargs)
    os.replace = replace
elif hold == "made":
    real_mkstemp = tempfile.mkstemp
    def mkstemp(*args, **kwargs):
        made = real_mkstemp(*args, **kwargs)
        if os.path.basename(made[1]).startswith(".report.txt."):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.5)  # a signal handler would run here, before the name is kept
        return made
    tempfile.mkstemp = mkstemp
"""


def run_held(tmp_path: Path, hold: str) -> subprocess.Popen[str]:
    """``fracas resolve LAIR -o tmp_path/out/report.txt``, as a user runs it, held at ``hold``."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    (tmp_path / "out").mkdir()
    environment = {**os.environ, "PYTHONPATH": str(hooks), "FRACAS_TEST_HOLD": hold}
    lair = ROOT / "examples" / "d100" / "lair_raid.yaml"
    command = [sys.executable, "-m", "fracas", "resolve", str(lair), "-o", "out/report.txt"]
    return subprocess.Popen(
        command, cwd=tmp_path, env=environment, stdout=subprocess.PIPE, text=True
    )


def test_sigterm_while_the_command_renames_its_output_leaves_nothing(tmp_path: Path) -> None:
    process = run_held(tmp_path, "replace")
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "writing"  # the temporary file is written
        assert [p.name[:12] for p in (tmp_path / "out").iterdir()] == [".report.txt."]
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == -signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert list((tmp_path / "out").iterdir()) == []


def test_sigterm_the_moment_the_temporary_file_is_made_leaves_nothing(tmp_path: Path) -> None:
    # The signal comes before the command could note the file's name to remove it: it is
    # held until the name is noted, then ends the command.
    process = run_held(tmp_path, "made")
    try:
        assert process.wait(timeout=60) == -signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert list((tmp_path / "out").iterdir()) == []


def test_an_unreachable_scheduler_is_one_line() -> None:
    ran = CliRunner().invoke(app, ["serve", "--port", "0", "--scheduler", "notanaddress"])
    assert ran.exit_code == 2
    lines = ran.stderr.strip().splitlines()
    assert lines == [lines[0]]
    assert lines[0].startswith("fracas: error: cannot reach the Dask scheduler at notanaddress")
