"""``--limit`` takes any whole number a limit can honour, and refuses the rest in one line."""

from __future__ import annotations

import sys
from pathlib import Path

from typer.testing import CliRunner

from fracas.cli import app

from .conftest import fresh_python

LAIR = "examples/d100/lair_raid.yaml"
runner = CliRunner()


def test_the_largest_limit_reads_the_file() -> None:
    # A read of sys.maxsize bytes at once would reserve them first; the file is 2 KB.
    result = runner.invoke(app, ["validate", LAIR, "--limit", f"input.file_bytes={sys.maxsize}"])
    assert result.exit_code == 0, result.stderr


def test_a_limit_beyond_a_machine_word_is_refused() -> None:
    result = runner.invoke(app, ["validate", LAIR, "--limit", f"input.file_bytes={10**22}"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "input.file_bytes: 10,000,000,000,000,000,000,000 is more than any limit" in (
        result.stderr
    )


def test_a_raised_depth_limit_is_not_blamed_for_the_readers_own_bound(tmp_path: Path) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text("x: " + "[" * 5_000 + "]" * 5_000 + "\n")
    default = runner.invoke(app, ["validate", str(deep)])
    assert "nested deeper than the limit input.depth = 32" in default.stderr
    raised = runner.invoke(app, ["validate", str(deep), "--limit", "input.depth=1000000"])
    assert raised.exit_code == 2
    assert "nested deeper than the YAML reader goes (1,000 levels)" in raised.stderr


def test_the_counting_reader_is_not_blamed_on_the_limit_either(tmp_path: Path) -> None:
    # More '*' than input.aliases sends the text to the reader that counts aliases, which
    # Python's own recursion stops a few hundred levels down.
    deep = tmp_path / "deep.yaml"
    deep.write_text("x: " + "[" * 450 + "]" * 450 + "\n#" + "*" * 1_001 + "\n")
    raised = runner.invoke(app, ["validate", str(deep), "--limit", "input.depth=900"])
    assert raised.exit_code == 2
    assert "nested deeper than Python reads" in raised.stderr


def test_a_rulesets_own_limit_may_be_raised_before_any_scenario_loads() -> None:
    # d100.melee_attacks is declared by d100's document model, which loads with a scenario:
    # --limit is read before that, and must still know it.
    # A fresh interpreter: in this one, earlier tests have loaded the models already.
    words = ["validate", LAIR, "--limit", "d100.melee_attacks=500"]
    result = fresh_python("-m", "fracas", *words)
    assert result.returncode == 0, result.stderr


def test_the_library_knows_a_rulesets_limit_before_its_models_load() -> None:
    code = (
        "from fracas.io.scenario import load_scenario\n"
        "s = load_scenario('examples/d100/lair_raid.yaml', limits={'d100.round_limit': 5000})\n"
        "print(s.limits)\n"
    )
    result = fresh_python("-c", code)
    assert result.returncode == 0, result.stderr
    assert "'d100.round_limit': 5000" in result.stdout


def test_a_sweep_cell_knows_a_rulesets_limit_in_a_fresh_worker() -> None:
    # What a Dask worker does for `sweep --limit rankflank.models=…`: build one cell.
    code = (
        "import yaml\n"
        "from fracas.cli.sweep import cell_scenario\n"
        "doc = yaml.safe_load(open('examples/rankflank/frontal_charge.yaml'))\n"
        "cell_scenario(doc, 'f.yaml', (), limits={'rankflank.models': 500})\n"
    )
    result = fresh_python("-c", code)
    assert result.returncode == 0, result.stderr


def test_a_lowered_runs_limit_leaves_questions_without_precision_alone() -> None:
    # --max-runs (default 200,000) caps a --precision question only: a limit of 100,000
    # runs must not refuse a question of 1,000 runs that never reads it.
    lowered = ["--limit", "odds.runs=100000", "--method", "mc", "-q"]
    plain = runner.invoke(app, ["odds", LAIR, *lowered, "--runs", "1000"])
    assert plain.exit_code == 0, plain.stderr
    precise = runner.invoke(app, ["odds", LAIR, *lowered, "--precision", "0.05"])
    assert precise.exit_code == 2
    assert "--max-runs: 200000 is above the limit odds.runs = 100000" in precise.stderr


def test_workers_beyond_the_process_limit_are_refused_before_any_fork() -> None:
    # --workers 100000 forked until the machine stalled.
    ask = ["odds", LAIR, "--method", "mc", "--runs", "200", "-q", "--workers"]
    refused = runner.invoke(app, [*ask, "100000"])
    assert refused.exit_code == 2
    assert "--workers: 100000 is above the limit work.processes = 256" in refused.stderr
    raised = runner.invoke(app, [*ask, "3", "--limit", "work.processes=2"])
    assert raised.exit_code == 2
    assert "--workers: 3 is above the limit work.processes = 2" in raised.stderr
