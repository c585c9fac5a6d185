from pathlib import Path

from typer.testing import CliRunner

from fracas import __version__
from fracas.cli import app

runner = CliRunner()


def test_resolve_is_byte_identical_for_the_same_seed(duel_file: Path) -> None:
    first = runner.invoke(app, ["resolve", str(duel_file), "--seed", "12"])
    second = runner.invoke(app, ["resolve", str(duel_file), "--seed", "12"])
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    assert "seed 12" in first.stdout
    assert f"fracas {__version__}" in first.stdout


def test_the_scenario_seed_is_the_default(duel_file: Path) -> None:
    result = runner.invoke(app, ["resolve", str(duel_file)])
    assert "seed 3" in result.stdout


def test_every_format_renders(duel_file: Path) -> None:
    for fmt, marker in [
        ("text", "Winner"),
        ("markdown", "# A duel"),
        ("bbcode", "[b]"),
        ("json", '"ruleset": "duel"'),
    ]:
        result = runner.invoke(app, ["resolve", str(duel_file), "--format", fmt])
        assert result.exit_code == 0, result.output
        assert marker in result.stdout


def test_output_file_and_overrides(duel_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    args = ["resolve", str(duel_file), "-f", "markdown", "-o", str(out)]
    result = runner.invoke(app, [*args, "--set", "fighters[1].bonus=40"])
    assert result.exit_code == 0, result.output
    # Lancelot's d6 + 40 always beats Gawain's d6 + 1.
    assert "Winner: Lancelot" in out.read_text()


def test_bad_input_is_one_line_and_exit_2(duel_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("fracas: 1\nruleset: duel\nfighters: [{name: A, bonus: -2}, {name: B}]\n")
    out = tmp_path / "never.txt"
    result = runner.invoke(app, ["resolve", str(bad), "-o", str(out)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"fracas: error: {bad}: fighters[0].bonus: ")
    assert "Traceback" not in result.output
    assert not out.exists()  # nothing written half-way


def test_bad_override_and_unsupported_commands(duel_file: Path) -> None:
    result = runner.invoke(app, ["resolve", str(duel_file), "--set", "nonsense"])
    assert result.exit_code == 2
    assert "KEY.PATH=VALUE" in result.stderr
    result = runner.invoke(app, ["advise", str(duel_file), "--side", "a"])
    assert result.exit_code == 2
    assert "has no advisor" in result.stderr


def test_validate_rulesets_schema_and_version(duel_file: Path) -> None:
    assert runner.invoke(app, ["validate", str(duel_file)]).stdout.startswith("ok: ")
    listing = runner.invoke(app, ["rulesets"]).stdout
    assert "duel" in listing
    assert "die_sides_note" in runner.invoke(app, ["rulesets", "toy"]).stdout
    schema = runner.invoke(app, ["schema", "duel"])
    assert '"fighters"' in schema.stdout
    assert runner.invoke(app, ["--version"]).stdout.strip() == f"fracas {__version__}"
    assert runner.invoke(app, ["schema", "nonesuch"]).exit_code == 2


def test_python_dash_m_runs_the_cli() -> None:
    import subprocess
    import sys

    completed = subprocess.run(
        [sys.executable, "-m", "fracas", "--version"], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0
    assert completed.stdout.strip() == f"fracas {__version__}"


def test_errors_from_ruleset_hooks_name_the_file() -> None:
    example = "examples/hex/encirclement.yaml"
    for args in (
        ["forecast", example, "--attacker", "lead", "--target", "nobody"],
        ["advise", example, "--side", "green"],
        ["render", example, "-o", "never.svg", "--attacker", "nobody", "--target", "lead"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        assert result.stderr.startswith(f"fracas: error: {example}: "), result.stderr
    assert not Path("never.svg").exists()


def test_overrides_are_recorded_so_the_run_can_be_repeated(duel_file: Path) -> None:
    result = runner.invoke(app, ["resolve", str(duel_file), "--set", "fighters[1].bonus=40"])
    assert "· --set fighters[1].bonus=40 ·" in result.stdout
    as_json = runner.invoke(app, ["resolve", str(duel_file), "-f", "json", "--set", "seed=5"])
    assert '"overrides": [\n    "seed=5"\n  ]' in as_json.stdout


def test_dash_output_means_stdout_and_negative_seeds_are_refused(duel_file: Path) -> None:
    result = runner.invoke(app, ["resolve", str(duel_file), "-o", "-"])
    assert result.exit_code == 0
    assert "Winner" in result.stdout
    assert not Path("-").exists()
    assert runner.invoke(app, ["resolve", str(duel_file), "--seed", "-1"]).exit_code == 2


def test_usage_mistakes_are_one_line_with_exit_2() -> None:
    import subprocess
    import sys

    example = "examples/hex/encirclement.yaml"
    for args, fragment in [
        (["resolve", example, "--format", "xml"], "Invalid value for '--format'"),
        (["resolve", example, "--seed", "abc"], "Invalid value for '--seed'"),
        (["forecast", example, "--attacker", "lead"], "Missing option '--target'"),
        (["conquer"], "No such command 'conquer'"),
        # Only the invoked command is built; a misspelt one still gets the whole list.
        (["advis", example], "Did you mean 'advise'?"),
        (["campaign", "nwe"], "No such command 'nwe'"),
    ]:
        completed = subprocess.run(
            [sys.executable, "-m", "fracas", *args], capture_output=True, text=True, check=False
        )
        assert completed.returncode == 2, args
        lines = completed.stderr.strip().splitlines()
        assert len(lines) == 1, completed.stderr
        assert lines[0].startswith("fracas: error: ")
        assert fragment in lines[0]
        assert "Value error" not in lines[0]


def test_every_line_of_a_rulesets_parameters_fits_the_width() -> None:
    """A default that is a whole table (hex's terrain, d100's equipment) was one line of
    700 columns; it is opened up entry by entry, and still reads back as the same value."""
    import json

    for name in ("hex", "d100", "rankflank"):
        result = runner.invoke(app, ["rulesets", name], env={"COLUMNS": "100"})
        assert result.exit_code == 0
        lines = result.stdout.splitlines()
        assert max(len(line) for line in lines) <= 100, name
    text = runner.invoke(app, ["rulesets", "hex"], env={"COLUMNS": "100"}).stdout.splitlines()
    start = text.index("  terrain = {")
    end = text.index("    }", start)
    shown = json.loads("{" + "\n".join(text[start + 1 : end]) + "}")
    listed = runner.invoke(app, ["rulesets", "hex", "-f", "json"]).stdout
    terrain = next(p for p in json.loads(listed)["parameters"] if p["name"] == "terrain")
    assert shown == terrain["default"]
