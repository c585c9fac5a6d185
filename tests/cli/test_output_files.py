"""``-o`` writes the whole output or nothing, and never harms what is already at the path."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fracas.cli import app

LAIR = Path("examples/d100/lair_raid.yaml")
runner = CliRunner()


def resolve_to(output: Path, scenario: Path = LAIR) -> tuple[int, str]:
    result = runner.invoke(app, ["resolve", str(scenario), "-o", str(output)])
    return result.exit_code, result.stderr


def test_a_link_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "link.txt").symlink_to("real.txt")
    assert resolve_to(tmp_path / "link.txt")[0] == 0
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text().startswith("Raid on the Thornwall lair")


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    private = tmp_path / "private.txt"
    private.write_text("old")
    private.chmod(0o600)
    assert resolve_to(private)[0] == 0
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert private.read_text().startswith("Raid on the Thornwall lair")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_is_written_to_not_replaced(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    code = resolve_to(pipe)[0]
    reader.join(timeout=30)
    assert code == 0
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert received[0].startswith(b"Raid on the Thornwall lair")


def test_the_scenario_read_is_never_replaced(tmp_path: Path) -> None:
    scenario = tmp_path / "lair.yaml"
    shutil.copy(LAIR, scenario)
    before = scenario.read_bytes()
    code, err = resolve_to(scenario, scenario)
    assert code == 2
    assert "cannot write output: this is a file the command reads" in err
    assert scenario.read_bytes() == before
    # The same file by another name (a link to it) is refused too.
    (tmp_path / "alias.yaml").symlink_to(scenario)
    assert resolve_to(tmp_path / "alias.yaml", scenario)[0] == 2
    assert scenario.read_bytes() == before
