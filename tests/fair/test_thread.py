"""The worked thread of docs/fair-dice.md, run command by command: each output shown there
is the output fracas gives."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fracas.cli import app

from .conftest import ROOT

DOC = ROOT / "docs" / "fair-dice.md"


def console_steps(text: str) -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` from every ```console block, in order."""
    steps: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.DOTALL):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
    return steps


def test_the_documented_thread_runs_as_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    steps = console_steps(DOC.read_text(encoding="utf-8"))
    assert [command.split()[0] for command, _ in steps] == [
        "echo",
        "fracas",
        "fracas",
        "head",
        "fracas",
        "fracas",
    ]
    # Bo's verify has no --commitment: the post holds, but is not tied to the thread.
    exit_codes = [0, 0, 0, 0, 0, 3]
    for (command, expected), exit_code in zip(steps, exit_codes, strict=True):
        words = shlex.split(command, comments=True)
        if words[0] == "echo":  # echo TEXT > FILE
            Path(words[3]).write_text(words[1] + "\n", encoding="utf-8")
            output = ""
        elif words[0] == "head":  # head -n N FILE
            lines = Path(words[3]).read_text(encoding="utf-8").split("\n")
            output = "\n".join(lines[: int(words[2])]) + "\n"
        else:
            result = runner.invoke(app, words[1:])
            assert result.exit_code == exit_code, (command, result.output)
            output = result.stdout
        assert output.splitlines() == expected, command
