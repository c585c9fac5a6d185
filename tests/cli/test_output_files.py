"""``-o`` writes the whole output or nothing, and never harms what is already at the path."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
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
    # 0o604 is what no usual umask gives a new file: kept, not made afresh.
    private.chmod(0o604)
    assert resolve_to(private)[0] == 0
    assert stat.S_IMODE(private.stat().st_mode) == 0o604
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


def test_every_file_the_command_reads_is_kept(tmp_path: Path) -> None:
    scenario = tmp_path / "lair.yaml"
    shutil.copy(LAIR, scenario)
    before = scenario.read_bytes()
    grid = ["--vary", "parameters.round_limit=1,2", "--metric", "winner=Red Fang", "--runs", "50"]
    swept = runner.invoke(app, ["sweep", str(scenario), *grid, "-o", str(scenario)])
    assert swept.exit_code == 2
    assert scenario.read_bytes() == before
    secret = tmp_path / "gm.secret"
    committed = runner.invoke(app, ["commit", str(scenario), "--secret-file", str(secret)])
    assert committed.exit_code == 0
    kept = secret.read_bytes()
    words = ["resolve", str(scenario), "--secret-file", str(secret), "--nonce", "a"]
    assert runner.invoke(app, [*words, "-o", str(secret)]).exit_code == 2
    assert secret.read_bytes() == kept


def test_standard_output_by_name_appends_where_the_shell_appends(tmp_path: Path) -> None:
    # `fracas resolve … -o /dev/stdout >> log.txt`: reopening /dev/stdout to write would
    # empty log.txt; replacing it would lose the shell's file altogether.
    log = tmp_path / "log.txt"
    log.write_text("previous line\n")
    with log.open("a") as stream:
        subprocess.run(
            [sys.executable, "-m", "fracas", "resolve", str(LAIR.resolve()), "-o", "/dev/stdout"],
            stdout=stream,
            check=True,
        )
    text = log.read_text()
    assert text.startswith("previous line\nRaid on the Thornwall lair")


def test_a_regular_file_under_dev_is_replaced_like_any_other() -> None:
    # /dev/shm holds ordinary files: only the names of open descriptors are written in place.
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("no writable /dev/shm here")
    target = shm / f"fracas-{os.getpid()}.txt"
    try:
        target.write_text("prior\n")
        assert resolve_to(target)[0] == 0
        assert resolve_to(target)[0] == 0
        assert target.read_text().startswith("Raid on the Thornwall lair")
        assert target.read_text().count("Raid on the Thornwall lair") == 1
    finally:
        target.unlink(missing_ok=True)


def test_a_picture_may_go_to_standard_output() -> None:
    result = runner.invoke(app, ["render", "examples/hex/encirclement.yaml", "-o", "-"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.lstrip().startswith("<svg")
    assert "wrote" not in result.stdout


@pytest.mark.parametrize(
    "command",
    [
        ["resolve", "examples/d100/lair_raid.yaml", "--seed", "3"],
        ["render", "examples/hex/encirclement.yaml"],
        ["schema", "hex"],
        ["validate", "examples/hex/encirclement.yaml"],
        ["advise", "examples/hex/encirclement.yaml", "--side", "blue"],
        ["examples", "lair_raid"],
    ],
    ids=lambda command: command[0],
)
def test_every_command_confirms_a_file_written_once_on_stderr(
    command: list[str], tmp_path: Path
) -> None:
    target = tmp_path / ("out.svg" if command[0] == "render" else "out.txt")
    result = runner.invoke(app, [*command, "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr.splitlines() == [f"wrote {target}"]
    assert target.stat().st_size > 0


def test_a_chart_that_fails_to_write_leaves_no_hidden_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full disk: the hidden file beside the chart went unremoved, one more each try.
    import errno
    import io

    from fracas.cli import common
    from fracas.core.errors import FracasError

    class Full(io.BytesIO):
        def write(self, data: object) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    real = os.fdopen

    def full_disk(handle: int, *args: object, **kwargs: object) -> object:
        os.close(handle)
        return Full()

    monkeypatch.setattr(os, "fdopen", full_disk)
    with pytest.raises(FracasError, match=r"a\.svg: cannot write the chart: No space left"):
        common.chart_beside(b"<svg/>", tmp_path / "a.svg")
    monkeypatch.setattr(os, "fdopen", real)
    assert list(tmp_path.iterdir()) == []
    written = common.chart_beside(b"<svg/>", tmp_path / "a.svg")
    assert written.read_bytes() == b"<svg/>"


def test_examples_copied_onto_a_full_disk_leave_nothing_that_blocks_the_next_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The third file fills the disk half-way: it and the two before it go again, and the
    # line names the file that could not be written, not the example it came from.
    import errno
    import shutil as shell

    real = shell.copyfile
    copied: list[Path] = []

    def filling(source: str | Path, target: str | Path) -> object:
        if len(copied) == 2:
            Path(target).write_bytes(b"half")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(source))
        copied.append(Path(target))
        return real(source, target)

    monkeypatch.setattr(shell, "copyfile", filling)
    target = tmp_path / "ex"
    result = CliRunner().invoke(app, ["examples", "-o", str(target)])
    assert result.exit_code == 2, result.output
    assert f"{target}/" in result.stderr
    assert "cannot copy the examples: No space left on device" in result.stderr
    assert [path for path in target.rglob("*") if path.is_file()] == []
    monkeypatch.setattr(shell, "copyfile", real)
    again = CliRunner().invoke(app, ["examples", "-o", str(target)])
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize("command", ["odds", "sweep"])
def test_a_chart_and_a_report_into_one_file_is_refused(tmp_path: Path, command: str) -> None:
    # The chart replaced the report (or the other way round), with "wrote" said twice.
    same = tmp_path / "same.svg"
    grid = ["--vary", "parameters.round_limit=1,2", "--metric", "winner=Red Fang"]
    extra = grid if command == "sweep" else ["--method", "mc", "--runs", "100"]
    example = "examples/d100/lair_raid.yaml"
    result = CliRunner().invoke(
        app, [command, example, *extra, "-o", str(same), "--plot", str(tmp_path / "." / "same.svg")]
    )
    assert result.exit_code == 2, result.output
    assert "--plot:" in result.stderr
    assert "is the -o file too; name two files" in result.stderr
    assert not same.exists()


@pytest.mark.parametrize(
    "command",
    [
        ["examples"],
        ["resolve", str(LAIR)],
        ["render", "examples/hex/encirclement.yaml"],
    ],
)
@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_output_path_is_refused_and_nothing_is_written(
    command: list[str], empty: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Path("") is the current folder: `examples -o ""` copied every example into it.
    root = Path.cwd()
    monkeypatch.chdir(tmp_path)
    args = [str(root / part) if part.startswith("examples/") else part for part in command]
    result = runner.invoke(app, [*args, "-o", empty])
    assert result.exit_code == 2
    assert "--output" in result.stderr
    assert "empty path" in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert list(tmp_path.iterdir()) == []
