"""``fracas examples -o``: a place that cannot take the files is one line, exit code 2, and
nothing copied."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fracas.cli import app

ROOT = Path(__file__).resolve().parents[2]
LAIR = ROOT / "examples" / "d100" / "lair_raid.yaml"


def run(*args: str | Path) -> tuple[int, list[str], str]:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    return result.exit_code, result.stderr.splitlines(), result.stdout


def assert_one_line(args: tuple[str | Path, ...], *expected: str) -> str:
    code, lines, out = run(*args)
    assert code == 2, lines
    assert len(lines) == 1, lines
    assert out == ""
    line = lines[0]
    assert line.startswith("fracas: error: "), line
    for part in expected:
        assert part in line, line
    return line


def test_examples_into_an_existing_file_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("mine\n")
    assert_one_line(("examples", "-o", target), str(target), "not a folder")
    assert_one_line(("examples", "-o", target / "sub"), str(target), "not a folder")
    assert target.read_text() == "mine\n"


@pytest.mark.parametrize("blocked", ["d100", "rankflank"])
def test_examples_where_a_ruleset_folder_is_a_file_writes_nothing(
    tmp_path: Path, blocked: str
) -> None:
    # Ruleset folders are made in turn: a file in the place of a later one used to stop
    # the copy half-way, with a traceback's last line and exit code 70.
    (tmp_path / blocked).write_text("mine\n")
    assert_one_line(("examples", "-o", tmp_path), f"{tmp_path / blocked}", "not a folder")
    assert sorted(path.name for path in tmp_path.iterdir()) == [blocked]


def test_one_example_where_its_folder_is_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "d100").write_text("mine\n")
    assert_one_line(("examples", "lair_raid", "-o", tmp_path), "d100", "not a folder")
    assert (tmp_path / "d100").read_text() == "mine\n"
