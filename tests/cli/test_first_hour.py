"""What a new user meets first: examples, listings, help, completion, errors, output width."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fracas.cli import app
from fracas.cli.commands import ruleset_sentence
from fracas.io.examples import example_files
from fracas.io.render import render_text
from fracas.rulesets import available_rulesets

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def fracas(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real entry point, as a user runs it (help and completion need it)."""
    return subprocess.run(
        [sys.executable, "-m", "fracas", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )


# ── examples ──────────────────────────────────────────────────────────────────────────


def test_examples_lists_every_scenario_of_the_examples_folder() -> None:
    on_disk = sorted(
        path.relative_to(ROOT / "examples").as_posix()
        for path in (ROOT / "examples").glob("*/*.yaml")
    )
    assert [name for name, _ in example_files()] == on_disk
    listing = runner.invoke(app, ["examples"]).stdout
    assert "hex/river_crossing.yaml" in listing
    assert "River crossing at Kessel Mill" in listing  # the scenario's own title
    as_json = json.loads(runner.invoke(app, ["examples", "--format", "json"]).stdout)
    assert [entry["name"] for entry in as_json] == on_disk


def test_examples_copies_one_out_by_full_or_short_name(tmp_path: Path) -> None:
    target = tmp_path / "river.yaml"
    result = runner.invoke(app, ["examples", "river_crossing", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert target.read_text() == (ROOT / "examples/hex/river_crossing.yaml").read_text()
    printed = runner.invoke(app, ["examples", "hex/river_crossing.yaml"]).stdout
    assert printed == target.read_text()
    # A file of the user's is never overwritten.
    target.write_text("mine")
    again = runner.invoke(app, ["examples", "river_crossing", "-o", str(target)])
    assert again.exit_code == 2
    assert target.read_text() == "mine"


def test_examples_copies_all_into_a_folder_and_copying_again_is_harmless(tmp_path: Path) -> None:
    first = runner.invoke(app, ["examples", "-o", str(tmp_path / "ex")])
    assert first.exit_code == 0, first.output
    copied = sorted(p.relative_to(tmp_path / "ex").as_posix() for p in tmp_path.rglob("*.yaml"))
    # Every scenario, and the campaign tour's rosters and battle file beside them.
    campaign = [
        "campaign/d100/fenwick.yaml",
        "campaign/d100/raid.yaml",
        "campaign/d100/thornwall.yaml",
    ]
    assert copied == sorted([name for name, _ in example_files()] + campaign)
    second = runner.invoke(app, ["examples", "-o", str(tmp_path / "ex")])
    assert second.exit_code == 0, second.output
    (tmp_path / "ex/hex/river_crossing.yaml").write_text("edited")
    third = runner.invoke(app, ["examples", "-o", str(tmp_path / "ex")])
    assert third.exit_code == 2
    assert "not overwriting" in third.stderr
    assert (tmp_path / "ex/hex/river_crossing.yaml").read_text() == "edited"


def test_an_unknown_or_ambiguous_example_is_one_line() -> None:
    result = runner.invoke(app, ["examples", "atlantis"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "fracas: error: no example called 'atlantis' (list them with: fracas examples)"
    )
    # challenge.yaml is in d100/ and challenge_overkill.yaml in rankflank/: "challenge" is
    # the stem of one file only, so it is not ambiguous.
    assert runner.invoke(app, ["examples", "challenge"]).exit_code == 0


# ── rulesets ──────────────────────────────────────────────────────────────────────────


def test_rulesets_read_as_sentences_without_a_doubled_word() -> None:
    for cls in available_rulesets():
        sentence = ruleset_sentence(cls)
        assert sentence.startswith(f"{cls.name} — ")
        assert sentence.endswith(".")
        words = re.findall(r"\w+", sentence.lower())
        assert all(a != b for a, b in itertools.pairwise(words)), sentence
    listing = runner.invoke(app, ["rulesets"]).stdout
    assert "deterministic deterministic" not in listing


def test_rulesets_take_format_json_and_output(tmp_path: Path) -> None:
    out = tmp_path / "rulesets.json"
    assert runner.invoke(app, ["rulesets", "--format", "json", "-o", str(out)]).exit_code == 0
    listing = json.loads(out.read_text())
    assert [entry["name"] for entry in listing] == [cls.name for cls in available_rulesets()]
    hex_params = json.loads(runner.invoke(app, ["rulesets", "hex", "-f", "json"]).stdout)
    assert hex_params["name"] == "hex"
    assert all({"name", "default", "description"} <= set(p) for p in hex_params["parameters"])


def test_schema_takes_format_json_and_output(tmp_path: Path) -> None:
    out = tmp_path / "hex.schema.json"
    result = runner.invoke(app, ["schema", "hex", "--format", "json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["title"]
    assert runner.invoke(app, ["schema", "hex", "--format", "text"]).exit_code == 2


def test_every_command_that_writes_takes_output() -> None:
    from fracas.cli.commands import cli_command

    # commit prints one line to post, verify one line per check, serve serves: no file to write;
    # campaign new and buy say in one line what they recorded.
    status_lines = {"commit", "verify", "serve", "campaign new", "campaign buy", "campaign verify"}
    commands = list(cli_command().commands.items())
    while commands:
        name, command = commands.pop()
        if name in status_lines:
            continue
        if hasattr(command, "commands"):  # a group: check each of its commands
            commands += [(f"{name} {sub}", c) for sub, c in command.commands.items()]
            continue
        options = {opt for param in command.params for opt in getattr(param, "opts", [])}
        assert "-o" in options, name


# ── validate: every problem at once ───────────────────────────────────────────────────


BROKEN = """\
fracas: 1
ruleset: duel
fighters:
  - {name: Gawain, bonus: -1}
  - {name: Lancelot, bonus: many, horse: true}
"""


def test_validate_lists_every_problem_one_a_line(duel: object, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BROKEN)
    result = runner.invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    # Three mistakes: a negative bonus, a bonus that is not a number, an unknown key.
    assert len(lines) == 3, result.stderr
    assert lines[0].startswith(f"fracas: error: {bad}: fighters[0].bonus: ")
    assert lines[1].startswith(f"fracas: error: {bad}: fighters[1].bonus: ")
    assert lines[2] == f"fracas: error: {bad}: fighters[1].horse: unknown key"
    assert "more problem" not in result.stderr
    as_json = runner.invoke(app, ["validate", str(bad), "--format", "json"])
    assert as_json.exit_code == 2
    document = json.loads(as_json.stdout)
    assert document["valid"] is False
    assert [p["path"] for p in document["problems"]] == [
        "fighters[0].bonus",
        "fighters[1].bonus",
        "fighters[1].horse",
    ]


def test_commands_that_run_still_stop_at_one_line(duel: object, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BROKEN)
    result = runner.invoke(app, ["resolve", str(bad)])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"fracas: error: {bad}: fighters[0].bonus: ")
    assert "2 more problems after this one; 'fracas validate' lists them all" in line


def test_validate_of_a_good_file_and_of_a_missing_one(tmp_path: Path) -> None:
    good = runner.invoke(app, ["validate", "examples/hex/river_crossing.yaml", "-f", "json"])
    assert good.exit_code == 0
    assert json.loads(good.stdout)["valid"] is True
    missing = runner.invoke(app, ["validate", str(tmp_path / "nowhere.yaml")])
    assert missing.exit_code == 2
    assert len(missing.stderr.strip().splitlines()) == 1


# ── help ──────────────────────────────────────────────────────────────────────────────


def test_help_shows_plain_metavariables() -> None:
    from fracas.cli.commands import cli_command

    for name in ["", *cli_command().commands]:
        completed = fracas(*([name] if name else []), "--help", env={"COLUMNS": "100"})
        assert completed.returncode == 0, name
        text = completed.stdout
        for type_name in ("<int", "<str>", "<float>", "<path>", "<list", "range>", "{"):
            assert type_name not in text, (name, type_name, text)
    odds_help = fracas("odds", "--help", env={"COLUMNS": "100"}).stdout
    for shown in ("FILE", "--seed N", "--set KEY=VALUE", "--plot PATH", "-o, --output PATH"):
        assert shown in odds_help


def test_the_command_list_shows_every_summary_whole() -> None:
    from fracas.cli.commands import cli_command

    for width in ("60", "100"):
        text = fracas("--help", env={"COLUMNS": width}).stdout
        commands = text.split("Commands:", 1)[1]
        assert "…" not in commands, commands
        assert "..." not in commands, commands
        # The end of serve's summary is what a user needs to know before trying it.
        assert "'fracas[web]')" in commands
        for name in cli_command().commands:
            assert f"  {name} " in commands, name


def test_forecast_help_example_names_units_that_exist() -> None:
    """The example in the help is run by tests/test_doc_commands.py; here: it is there."""
    text = fracas("forecast", "--help").stdout
    assert "--attacker assault --target grenadiers" in text


# ── completion ────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_are_printed_for_each_shell(shell: str) -> None:
    completed = fracas(env={"_FRACAS_COMPLETE": f"source_{shell}"})
    assert completed.returncode == 0
    assert "_FRACAS_COMPLETE=complete_" in completed.stdout


def test_completion_completes_commands_and_options() -> None:
    env = {"_FRACAS_COMPLETE": "complete_bash", "COMP_WORDS": "fracas res", "COMP_CWORD": "1"}
    assert fracas(env=env).stdout.split() == ["resolve"]
    env = {"_FRACAS_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": "fracas odds x --me"}
    assert "--method" in fracas(env=env).stdout


def test_bash_completion_works_in_bash(tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    launcher = tmp_path / "fracas"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m fracas "$@"\n')
    launcher.chmod(0o755)
    script = (
        'eval "$(_FRACAS_COMPLETE=source_bash fracas)"\n'
        "COMP_WORDS=(fracas ex); COMP_CWORD=1\n"
        "_fracas_completion fracas\n"
        'echo "${COMPREPLY[@]}"\n'
    )
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    completed = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, env=env, check=False
    )
    assert completed.stdout.split() == ["examples"], completed.stderr


# ── output width ──────────────────────────────────────────────────────────────────────


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]{3,}", text))


@pytest.mark.parametrize("width", [40, 60, 100, 160])
def test_text_fits_the_width_and_keeps_every_word_whole(width: int) -> None:
    import fracas as api

    for name, path in example_files():
        report = api.load_scenario(path).resolve()
        wide = render_text(report, width=1000)
        text = render_text(report, width=width)
        # The same words at any width: none was split or cut off.
        assert _words(text) == _words(wide), (name, _words(wide) ^ _words(text))
        longest_word = max(len(word) for word in wide.split())
        if longest_word < width:
            over = [line for line in text.splitlines() if len(line) > width]
            # Only tables whose words alone are wider than the page may be wider.
            assert all("  " in line for line in over), (name, over)


def test_the_terminal_width_is_used_and_piped_output_has_the_default() -> None:
    narrow = fracas("resolve", "examples/hex/encirclement.yaml", env={"COLUMNS": "60"}).stdout
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    piped = subprocess.run(
        [sys.executable, "-m", "fracas", "resolve", "examples/hex/encirclement.yaml"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    ).stdout
    assert max(len(line) for line in narrow.splitlines()) <= 60
    assert 60 < max(len(line) for line in piped.splitlines()) <= 100


# ── reprs ─────────────────────────────────────────────────────────────────────────────


def test_reports_odds_and_scenarios_have_short_useful_reprs() -> None:
    import fracas as api
    from fracas.analysis import odds

    for name, path in example_files():
        scenario = api.load_scenario(path)
        shown = repr(scenario)
        assert shown.startswith(f"Scenario({scenario.ruleset.name} ")
        assert str(path) in shown
        assert scenario.sha256 in shown
        report = repr(scenario.resolve())
        assert report.startswith(f"Report({scenario.ruleset.name}, "), name
        assert len(report) < 300, (name, report)
    charge = api.load_scenario(
        "examples/rankflank/frontal_charge.yaml", overrides=[("parameters.max_rounds", 1)]
    )
    result = odds(charge)
    assert repr(result).startswith("OddsResult(rankflank, exact, ")
    assert "P(Empire wins the combat) " in repr(result)
    assert len(repr(result)) < 300
    winner = repr(result.metric("round_winner"))
    assert winner == "MetricOdds('round_winner': Empire 83.42%, Greenskins 8.58%, draw 8.00%)"


def test_examples_copied_with_format_json_lists_them_as_the_listing_does(tmp_path: Path) -> None:
    result = runner.invoke(app, ["examples", "-o", str(tmp_path / "ex"), "-f", "json"])
    assert result.exit_code == 0, result.output
    listing = json.loads(runner.invoke(app, ["examples", "-f", "json"]).stdout)
    assert json.loads(result.stdout) == listing
    on_disk = sorted(p.relative_to(tmp_path / "ex").as_posix() for p in tmp_path.rglob("*.yaml"))
    scenarios = [name for name in on_disk if not name.startswith("campaign/")]
    assert [entry["name"] for entry in listing] == scenarios
    (tmp_path / "ex/hex/river_crossing.yaml").unlink()
    again = runner.invoke(app, ["examples", "-o", str(tmp_path / "ex"), "-f", "json"])
    assert [entry["name"] for entry in json.loads(again.stdout)] == ["hex/river_crossing.yaml"]
