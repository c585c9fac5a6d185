"""A ruleset that lacks an operation says so in one line naming the file, and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ROOT, assert_one_line

WITHOUT_A_BOARD = [
    ROOT / "examples" / "d100" / "lair_raid.yaml",
    ROOT / "examples" / "rankflank" / "frontal_charge.yaml",
]


@pytest.mark.parametrize("example", WITHOUT_A_BOARD, ids=lambda path: path.parent.name)
@pytest.mark.parametrize(
    "command",
    [
        ["render", "-o", "board.svg"],
        ["forecast", "--attacker", "a", "--target", "b"],
        ["advise", "--side", "x"],
        ["advise", "--side", "x", "--plan"],
    ],
    ids=lambda command: " ".join(command[:2]),
)
def test_an_operation_the_ruleset_lacks_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], example: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    ruleset = example.parent.name
    assert_one_line((command[0], example, *command[1:]), f"{example}: ruleset {ruleset!r} has no ")
    assert not (tmp_path / "board.svg").exists()
