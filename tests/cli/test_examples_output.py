"""``fracas examples -o``: a place that cannot take the files is one line, exit code 2, and
nothing copied."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fracas.cli import app

from .conftest import assert_one_line


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


def test_one_example_is_its_file_not_a_json_listing() -> None:
    # -f json used to be ignored here, printing the YAML file under a JSON request.
    assert_one_line(("examples", "hex/river_crossing", "-f", "json"), "lists the examples")


def test_render_names_its_file_svg(tmp_path: Path) -> None:
    board = tmp_path / "board.png"
    example = Path("examples/hex/encirclement.yaml")
    assert_one_line(("render", example, "-o", board), "board.png", "render writes SVG")
    assert not board.exists()


def test_examples_o_copies_what_the_tours_read_beside_the_scenarios(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/campaigns.md enters examples/campaign/d100/*.yaml and docs/import.md reads
    # examples/armies/: an installed fracas has no checkout, only this copy.
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["examples", "-o", "examples"])
    assert result.exit_code == 0, result.stderr
    for name in ("fenwick.yaml", "thornwall.yaml", "raid.yaml"):
        assert (tmp_path / "examples" / "campaign" / "d100" / name).is_file()
    assert (tmp_path / "examples" / "armies" / "empire.ros").is_file()
    new = CliRunner().invoke(app, ["campaign", "new", "War", "--ruleset", "d100"])
    assert new.exit_code == 0, new.stderr
    entered = [
        "campaign",
        "roster",
        "War",
        "Fenwick",
        "--file",
        "examples/campaign/d100/fenwick.yaml",
    ]
    assert CliRunner().invoke(app, entered).exit_code == 0
