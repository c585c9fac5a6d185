"""Bad options and odd files given to sweep and odds: each is one line on stderr, exit code
2, nothing written, and no work started past a declared limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import LAIR, WORK_OPTIONS, assert_one_line, run

GRID = ("--vary", "parameters.round_limit=1,2", "--metric", "winner=Red Fang")
HUGE_SEED = "1" * 200


def sweep_file(tmp_path: Path, *settings: str) -> Path:
    lines = {
        "scenario": f"scenario: {LAIR}",
        "vary": "vary: {parameters.round_limit: [1, 2]}",
        "metric": "metric: winner=Red Fang",
        "method": "method: mc",
    }
    lines.update((line.partition(":")[0], line) for line in settings)
    path = tmp_path / "balance.yaml"
    path.write_text("sweep:\n" + "".join(f"  {line}\n" for line in lines.values()))
    return path


# ── sweep: the work options are bounded as odds bounds them ──────────────────────────


@pytest.mark.parametrize(("option", "limit"), WORK_OPTIONS)
def test_sweep_work_options_are_bounded_like_odds(option: str, limit: str) -> None:
    assert_one_line(
        ("sweep", LAIR, *GRID, option, "99999999999"), "command line", option, limit, "--limit"
    )


@pytest.mark.parametrize(
    ("setting", "limit"),
    [
        ("runs: 99999999999", "odds.runs"),
        ("max_runs: 99999999999", "odds.runs"),
        ("exact_budget: 99999999999", "odds.exact_budget"),
        ("sample_budget: 99999999999", "odds.sample_budget"),
        ("max_cells: 99999999999", "sweep.cells"),
    ],
)
def test_a_sweep_files_work_options_are_bounded(tmp_path: Path, setting: str, limit: str) -> None:
    key = setting.partition(":")[0]
    assert_one_line(("sweep", sweep_file(tmp_path, setting)), f"sweep.{key}", limit)


def test_sweep_takes_limit_to_raise_or_lower_a_bound() -> None:
    assert_one_line(
        ("sweep", LAIR, *GRID, "--runs", "10", "--limit", "odds.runs=5"), "odds.runs = 5"
    )


def test_max_cells_must_be_at_least_one() -> None:
    # A usage error: one line from the fracas script (CliRunner shows click's own usage).
    done = subprocess.run(
        [sys.executable, "-m", "fracas", "sweep", str(LAIR), *GRID, "--max-cells", "-1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "Invalid value for '--max-cells'" in done.stderr


def test_max_cells_is_bounded_by_a_limit() -> None:
    # It had no bound: --max-cells 10**15 let a grid of 10**15 cells fill the memory.
    assert_one_line(("sweep", LAIR, *GRID, "--max-cells", "10000000"), "--max-cells", "sweep.cells")


def test_a_huge_grid_is_refused_before_it_is_laid_out() -> None:
    axes = [f"sides[{side}].units[0].pax=1..100000" for side in (0, 1)]
    line = assert_one_line(
        ("sweep", LAIR, "--vary", axes[0], "--vary", axes[1], "--metric", "winner=Red Fang"),
        "10,000,000,000 cells",
    )
    assert "--max-cells 10,000" in line


def test_a_range_longer_than_any_grid_is_refused() -> None:
    assert_one_line(
        ("sweep", LAIR, "--vary", "parameters.round_limit=1..10000000000000", "--metric", "x"),
        "--vary",
        "sweep.cells",
    )


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        ("runs: lots", "sweep.runs: must be a whole number of at least 1"),
        ("runs: 1.5", "sweep.runs: must be a whole number"),
        ("runs: true", "sweep.runs: must be a whole number"),
        ("seed: -1", "sweep.seed: must be a whole number of at least 0"),
        ("seed: x", "sweep.seed: must be a whole number"),
        ("max_cells: 0", "sweep.max_cells: must be a whole number of at least 1"),
        ("precision: x", "sweep.precision: must be a number"),
        ("precision: .nan", "sweep.precision: must lie strictly between 0 and 0.5, not nan"),
        ("precision: 0.7", "sweep.precision: must lie strictly between 0 and 0.5, not 0.7"),
        ("confidence: 1", "sweep.confidence: must lie strictly between 0 and 1, not 1"),
        ("metric: 3", "sweep.metric: must be text"),
        ("method: nope", "sweep.method: must be auto, exact or mc"),
    ],
)
def test_a_sweep_files_settings_have_their_options_types(
    tmp_path: Path, setting: str, problem: str
) -> None:
    # They used to reach the odds code as they were: a TypeError, exit code 70.
    assert_one_line(("sweep", sweep_file(tmp_path, setting)), "balance.yaml", problem)


def test_sweep_reads_its_file_within_the_size_limit() -> None:
    # /dev/zero used to be read whole before its suffix was looked at: MemoryError.
    assert_one_line(("sweep", "/dev/zero", *GRID), "/dev/zero", "input.file_bytes")


# ── seeds: as many digits as resolve takes ───────────────────────────────────────────


@pytest.mark.parametrize("command", ["odds", "sweep"])
def test_a_seed_option_beyond_the_digit_limit_is_refused(command: str) -> None:
    grid = GRID if command == "sweep" else ()
    assert_one_line(
        (command, LAIR, *grid, "--seed", HUGE_SEED),
        "--seed",
        "a seed of 200 digits",
        "input.integer_digits",
    )


def test_a_sweep_files_seed_beyond_the_digit_limit_is_refused(tmp_path: Path) -> None:
    assert_one_line(
        ("sweep", sweep_file(tmp_path, f"seed: {'1' * 30}")), "sweep.seed", "integer_digits"
    )


def test_the_seed_limit_of_odds_can_be_raised() -> None:
    seed = "9" * 25
    code, lines, out = run(
        "odds",
        *(LAIR, "--seed", seed, "--method", "mc", "--runs", "10", "--workers", "1"),
        *("--limit", "input.integer_digits=25"),
    )
    assert code == 0, lines
    assert f"seed {seed}" in out


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        ("vary: {parameters.round_limit: 5..1}", "the range 5..1 is empty"),
        ("vary: {parameters.round_limit: []}", "expected PATH=A..B[:STEP] or PATH=V1,V2,…"),
    ],
)
def test_a_bad_range_in_a_sweep_file_names_the_file_and_its_key(
    tmp_path: Path, setting: str, problem: str
) -> None:
    # Written in the file, never typed as --vary: the error says where it is written.
    path = sweep_file(tmp_path, setting)
    line = assert_one_line(("sweep", path))
    assert line == f"fracas: error: {path}: sweep.vary.parameters.round_limit: {problem}"


def test_a_missing_scenario_of_a_sweep_file_says_which_file_named_it(tmp_path: Path) -> None:
    path = sweep_file(tmp_path, "scenario: nowhere.yaml")
    line = assert_one_line(("sweep", path))
    assert line == (
        f"fracas: error: {tmp_path / 'nowhere.yaml'}: cannot read file: No such file or "
        f"directory (hint: named by {path}: sweep.scenario)"
    )
