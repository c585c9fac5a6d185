"""Every command line the documentation shows is run, and must do what it says.

Collected automatically, so a new document is checked without touching this file:

* Markdown: ``README.md``, ``ARCHITECTURE.md``, ``docs/**/*.md`` and ``examples/**/*.md``;
  in fenced blocks marked ``sh``, ``bash``, ``shell`` or unmarked, every line that starts
  with ``fracas `` (after optional ``NAME=value`` variables); in ``console`` blocks, every
  line after a ``$ `` prompt, whatever its command (the lines without one are output);
  a line ending in ``\\`` continues on the next.
* ``--help``: the lines under "Example:" / "Examples:" (or "Example, …:") of every command.

Each line runs in bash in a fresh folder per document (``examples/`` copied into it, so the
files the tour writes never land in the clone), with this environment's ``fracas`` first on
PATH, and must exit with 0. A trailing comment marks the exceptions:

* ``# … (exit 2)`` — an error example: it must exit with that code;
* ``# … (not run: starts a server)`` — shown but not run (a server, the network, the
  user's shell set-up); the reason is required.

``<!-- commands: not run (reason) -->`` on the line before a fence marks the whole block.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from fracas.cli.commands import cli_command

ROOT = Path(__file__).resolve().parent.parent
SHELL_BLOCKS = {"", "sh", "bash", "shell", "zsh"}
_COMMAND = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*fracas(?:\s|$)")
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
_EXIT = re.compile(r"\(exit (\d+)\)")
_NOT_RUN = re.compile(r"\(not run: ([^)]+)\)")
_BLOCK_NOT_RUN = re.compile(r"<!--\s*commands:\s*not run\s*\(([^)]+)\)\s*-->")


@dataclass(frozen=True)
class DocCommand:
    """One documented command line and what it is expected to do."""

    where: str  # "README.md:42" or "fracas odds --help"
    document: str
    line: str
    exit_code: int = 0
    not_run: str = ""


def _split_comment(line: str) -> tuple[str, str]:
    """The command and its trailing ``# comment`` (a ``#`` outside quotes, after a space)."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip(), line[index + 1 :].strip()
    return line.rstrip(), ""


def _command(where: str, document: str, text: str, block_not_run: str = "") -> DocCommand:
    line, comment = _split_comment(text.strip().removeprefix("$ ").strip())
    code = _EXIT.search(comment)
    skip = _NOT_RUN.search(comment)
    return DocCommand(
        where,
        document,
        line,
        int(code.group(1)) if code else 0,
        skip.group(1) if skip else block_not_run,
    )


def _joined(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Join lines ending in a backslash with the next (keeping the first line's number)."""
    joined: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, text in lines:
        if pending is not None:
            number, text = pending[0], pending[1] + " " + text.strip()
            pending = None
        if text.rstrip().endswith("\\"):
            pending = (number, text.rstrip()[:-1].rstrip())
            continue
        joined.append((number, text))
    if pending is not None:
        joined.append(pending)
    return joined


def markdown_commands(path: Path) -> list[DocCommand]:
    """The command lines of the shell blocks of one Markdown file."""
    name = path.relative_to(ROOT).as_posix()
    commands: list[DocCommand] = []
    fence = ""
    language = ""
    block_not_run = ""
    previous = ""
    block: list[tuple[int, str]] = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        opening = _FENCE.match(text)
        if not fence and opening:
            fence, language = opening.group(1), opening.group(2).lower()
            marker = _BLOCK_NOT_RUN.search(previous)
            block_not_run = marker.group(1) if marker else ""
            block = []
        elif fence and text.strip().startswith(fence):
            if language in SHELL_BLOCKS or language == "console":
                for start, line in _joined(block):
                    wanted = (
                        line.strip().startswith("$ ")
                        if language == "console"
                        else _COMMAND.match(line.strip())
                    )
                    if wanted:
                        commands.append(_command(f"{name}:{start}", name, line, block_not_run))
            fence = ""
        elif fence:
            block.append((number, text))
        if text.strip():
            previous = text
    return commands


def help_commands() -> list[DocCommand]:
    """The examples under "Example(s):" in the help of every command."""
    root = cli_command()
    helps = [("fracas --help", root.help or "")]
    helps += [(f"fracas {name} --help", sub.help or "") for name, sub in root.commands.items()]
    commands: list[DocCommand] = []
    for where, text in helps:
        lines = text.splitlines()
        starts = [
            i
            for i, line in enumerate(lines)
            if line.strip().startswith("Example") and line.strip().endswith(":")
        ]
        for start in starts:
            block: list[tuple[int, str]] = []
            for number, line in enumerate(lines[start + 1 :], start=start + 2):
                if not line.strip():
                    break
                block.append((number, line))
            for _, line in _joined(block):
                if _COMMAND.match(line.strip()):
                    commands.append(_command(where, where, line))
    return commands


def documents() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "ARCHITECTURE.md"]
    for folder in ("docs", "examples"):
        found += sorted((ROOT / folder).glob("**/*.md"))
    return [path for path in found if path.is_file()]


def all_commands() -> list[DocCommand]:
    commands = [command for path in documents() for command in markdown_commands(path)]
    return commands + help_commands()


def fracas_environment(bin_dir: Path) -> dict[str, str]:
    """The environment documented commands run in: ``bin_dir``'s fracas first on PATH."""
    environment = dict(os.environ)
    environment["PATH"] = f"{bin_dir}{os.pathsep}{environment.get('PATH', '')}"
    environment.pop("COLUMNS", None)  # piped output: the documented default width
    environment["NO_COLOR"] = "1"
    return environment


def run_documented(
    command: DocCommand, folder: Path, environment: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", command.line],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def check_result(command: DocCommand, result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == command.exit_code, (
        f"{command.where}: `{command.line}` exited with {result.returncode}, expected "
        f"{command.exit_code}.\nstderr: {result.stderr[-2000:]}\n"
        "If this line is an error example, end it with '# … (exit 2)'; if it needs a server, "
        "the network or the user's shell, with '# … (not run: reason)'."
    )
    if command.exit_code == 0:
        assert "Traceback" not in result.stderr, result.stderr


COMMANDS = all_commands()
_BIN = Path(sys.executable).parent
_FOLDERS: dict[str, Path] = {}


def _folder_for(document: str, factory: pytest.TempPathFactory) -> Path:
    """One folder per document, shared by its commands (which may build on each other)."""
    if document not in _FOLDERS:
        folder = factory.mktemp(re.sub(r"\W+", "_", document))
        shutil.copytree(ROOT / "examples", folder / "examples")
        _FOLDERS[document] = folder
    return _FOLDERS[document]


# The README's tour is run by test_the_wheel_brings_the_tour, by a fracas installed from
# the wheel into a fresh environment, as a new user runs it.
OTHERS = [command for command in COMMANDS if command.document != "README.md"]
README = [command for command in COMMANDS if command.document == "README.md"]


@pytest.mark.parametrize("command", OTHERS, ids=[c.where for c in OTHERS])
def test_documented_command_runs(
    command: DocCommand, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if command.not_run:
        pytest.skip(f"not run: {command.not_run}")
    folder = _folder_for(command.document, tmp_path_factory)
    check_result(command, run_documented(command, folder, fracas_environment(_BIN)))


def test_the_collector_finds_the_tour_and_the_help_examples() -> None:
    wheres = {command.where.split(":")[0] for command in COMMANDS}
    assert {"README.md", "docs/odds.md", "fracas odds --help", "fracas --help"} <= wheres
    lines = [command.line for command in COMMANDS]
    # A continued line is one command.
    assert any("--solve" in line and "--metric winner=Empire" in line for line in lines)
    assert all(command.not_run for command in COMMANDS if "--install-completion" in command.line)


def test_markers_of_error_examples_and_lines_not_run(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "```sh\n"
        "fracas validate broken.yaml   # every problem at once (exit 2)\n"
        "fracas serve examples \\\n"
        "    --port 8000               # (not run: starts a server)\n"
        "echo 'fracas is not the first word'\n"
        "```\n"
        "```console\n"
        "$ echo hi > gm.secret\n"
        "output, not a command\n"
        "```\n"
        "<!-- commands: not run (needs the network) -->\n"
        "```\n"
        "COLUMNS=60 fracas rulesets\n"
        "```\n"
        "```python\n"
        "fracas resolve x  # python blocks are not shell\n"
        "```\n",
        encoding="utf-8",
    )
    original = globals()["ROOT"]
    globals()["ROOT"] = tmp_path
    try:
        found = markdown_commands(doc)
    finally:
        globals()["ROOT"] = original
    assert [(c.line, c.exit_code, c.not_run) for c in found] == [
        ("fracas validate broken.yaml", 2, ""),
        ("fracas serve examples --port 8000", 0, "starts a server"),
        ("echo hi > gm.secret", 0, ""),
        ("COLUMNS=60 fracas rulesets", 0, "needs the network"),
    ]
    assert [c.where for c in found] == ["doc.md:2", "doc.md:3", "doc.md:8", "doc.md:13"]


def test_the_tour_leaves_nothing_untracked_in_a_clone(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Run in the clone itself, every file the README's commands write is git-ignored."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    # The commands that write files (the others are run by test_documented_command_runs).
    writes = re.compile(r"\s(-o|--output|--plot)\s|>")
    readme = [c for c in README if not c.not_run and writes.search(c.line)]
    folder = tmp_path_factory.mktemp("tour")
    shutil.copytree(ROOT / "examples", folder / "examples")
    for command in readme:
        check_result(command, run_documented(command, folder, fracas_environment(_BIN)))
    written = [
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and path.relative_to(folder).parts[0] != "examples"
    ]
    assert written, "the tour writes no file: this test checks nothing"
    ignored = subprocess.run(
        ["git", "-C", str(ROOT), "check-ignore", "--no-index", "--stdin"],
        input="\n".join(written),
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    assert sorted(ignored) == sorted(written)


def test_the_wheel_brings_the_tour(tmp_path: Path) -> None:
    """Build the sdist and the wheel from it, install the wheel in a fresh environment with
    pip (dependencies from the package index, as a user gets them), and run the README's
    tour there, in an empty folder: no clone, no make."""
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert wheel.name in readme, f"the README's install line names another wheel than {wheel.name}"
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = [name for name in archive.namelist() if name.startswith("fracas/examples/")]
    with tarfile.open(sdist) as archive:
        in_sdist = [name for name in archive.getnames() if "/examples/" in name]
    scenarios = list((ROOT / "examples").glob("**/*.yaml"))
    assert len([name for name in in_wheel if name.endswith(".yaml")]) == len(scenarios)
    assert len([name for name in in_sdist if name.endswith(".yaml")]) == len(scenarios)

    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True)
    bin_dir = fresh / ("Scripts" if os.name == "nt" else "bin")
    python = next(bin_dir.glob("python*"))
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            f"{wheel}[plot,campaign]",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    where = subprocess.run(
        [str(python), "-c", "import fracas; print(fracas.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(fresh) in where, f"the tour would test the checkout, not the wheel: {where}"

    folder = tmp_path / "anywhere"
    folder.mkdir()
    environment = fracas_environment(bin_dir)
    ran = 0
    for command in README:
        if command.not_run:
            continue
        check_result(command, run_documented(command, folder, environment))
        ran += 1
    assert ran >= 10, "the tour has shrunk: is the README's command block still collected?"
    assert (folder / "board.svg").read_text(encoding="utf-8").startswith("<svg")
