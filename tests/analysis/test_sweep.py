"""``fracas sweep`` and :mod:`fracas.analysis.sweep`: grids, cells, outputs, bad input."""

from __future__ import annotations

import csv
import io
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fracas.analysis.sweep import cell_seed, grid, parse_vary
from fracas.cli import app
from fracas.core.errors import FracasError

LAIR = "examples/d100/lair_raid.yaml"
runner = CliRunner()


def run(*args: str | Path) -> tuple[int, str, str]:
    result = runner.invoke(app, ["sweep", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


def test_ranges_and_lists() -> None:
    assert parse_vary("units[0].models=10..40:5").values == (10, 15, 20, 25, 30, 35, 40)
    assert parse_vary("a=3..3").values == (3,)
    assert parse_vary("a=-2..2:2").values == (-2, 0, 2)
    assert parse_vary("a = 10, 20,30").values == (10, 20, 30)
    assert parse_vary("parameters.rule=strict,loose").values == ("strict", "loose")
    assert parse_vary("a=0.5,1.5").values == (0.5, 1.5)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("units[0].models", "expected PATH=A..B"),
        ("=1,2", "expected PATH=A..B"),
        ("a=", "expected PATH=A..B"),
        ("a=10..", "a range is A..B"),
        ("a=1..5:0", "the step must be at least 1"),
        ("a=5..1", "is empty"),
        ("a=1,,2", "an empty value"),
        ("a=1,1", "listed twice"),
        ("a={x: 1}", "not a single value"),
        # Past Python's 4,300 digits, and a YAML base-60 float past a float's range.
        ("a=1.." + "9" * 5000, "a number too long to read"),
        ("a=" + "9" * 5000 + ",1", "a number too large to read"),
        ("a=" + ":".join(["59"] * 200) + ".0", "a number too large to read"),
    ],
)
def test_malformed_vary(spec: str, problem: str) -> None:
    with pytest.raises(FracasError, match=problem):
        parse_vary(spec)


def test_grid_is_every_combination_first_path_slowest_and_capped() -> None:
    axes = [parse_vary("a=1..7"), parse_vary("b=x,y,z")]
    cells = grid(axes)
    assert len(cells) == 7 * 3
    assert cells[0] == (("a", 1), ("b", "x"))
    assert cells[1] == (("a", 1), ("b", "y"))
    assert cells[-1] == (("a", 7), ("b", "z"))
    with pytest.raises(FracasError, match="21 cells, more than --max-cells 20"):
        grid(axes, max_cells=20)
    with pytest.raises(FracasError, match="each path once"):
        grid([parse_vary("a=1,2"), parse_vary("a=3")])


def test_cell_seeds_depend_on_the_sweep_seed_and_the_cell_only() -> None:
    cell = (("a", 1), ("b", "x"))
    assert cell_seed(3, cell) == cell_seed(3, cell)
    assert cell_seed(3, cell) != cell_seed(4, cell)
    assert cell_seed(3, cell) != cell_seed(3, (("a", 2), ("b", "x")))


def sweep_args(*extra: str) -> list[str]:
    return [
        LAIR,
        "--vary",
        "sides[1].units[0].pax=2..6:2",
        "--vary",
        "parameters.round_limit=1,5",
        "--metric",
        "winner=Red Fang",
        "--method",
        "mc",
        "--runs",
        "300",
        *extra,
    ]


def test_csv_has_one_row_per_cell_that_odds_reproduces(tmp_path: Path) -> None:
    target = tmp_path / "sweep.csv"
    code, out, err = run(*sweep_args("-o", str(target), "--workers", "1"))
    assert (code, out, err) == (0, "", f"wrote {target}\n")
    table = list(csv.DictReader(io.StringIO(target.read_text())))
    assert len(table) == 3 * 2
    assert [row["sides[1].units[0].pax"] for row in table] == ["2", "2", "4", "4", "6", "6"]
    assert {row["method"] for row in table} == {"monte-carlo"}
    assert {row["runs"] for row in table} == {"300"}
    for row in table:
        assert float(row["low"]) <= float(row["value"]) <= float(row["high"])
    # The cell re-run alone with fracas odds gives the very same probability and interval.
    row = table[3]
    result = runner.invoke(
        app,
        [
            "odds",
            LAIR,
            "--set",
            f"sides[1].units[0].pax={row['sides[1].units[0].pax']}",
            "--set",
            f"parameters.round_limit={row['parameters.round_limit']}",
            "--seed",
            row["seed"],
            "--method",
            "mc",
            "--runs",
            "300",
            "--format",
            "json",
            "--workers",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    winner = next(
        m for m in json.loads(result.stdout)["result"]["metrics"] if m["name"] == "winner"
    )
    thornwall = next(v for v in winner["values"] if v["value"] == "Red Fang")
    assert repr(thornwall["probability"]) == row["value"]
    assert repr(thornwall["low"]) == row["low"]
    assert repr(thornwall["high"]) == row["high"]


def test_two_workers_write_the_same_bytes(tmp_path: Path) -> None:
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert run(*sweep_args("-o", str(one), "--workers", "1"))[0] == 0
    assert run(*sweep_args("-o", str(two), "--workers", "2"))[0] == 0
    assert one.read_bytes() == two.read_bytes()
    data = json.loads(one.read_text())
    assert data["sweep"]["metric"] == "winner=Red Fang"
    assert data["cells"][0]["settings"] == {
        "sides[1].units[0].pax": 2,
        "parameters.round_limit": 1,
    }


def test_exact_cells_have_a_point_interval(volley_file: Path) -> None:
    # Volley: each shot hits on 4+ (1/2) and is saved on 5+ (fails 4/6): it wounds with
    # 1/2 × 2/3 = 1/3, so P(at least one wound in n shots) = 1 − (2/3)^n: 1/3, 5/9, 19/27.
    code, out, _ = run(
        volley_file, "--vary", "attacker.dice=1..3", "--metric", "wounds>=1", "-f", "csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    # Exact in floats: each within a rounding error of the fraction.
    values = [float(row["value"]) for row in rows]
    assert values == pytest.approx([1 / 3, 5 / 9, 19 / 27], abs=1e-15)
    assert all(row["low"] == row["value"] == row["high"] for row in rows)
    assert {row["method"] for row in rows} == {"exact"}


def test_an_invalid_cell_is_a_row_not_a_failure(volley_file: Path) -> None:
    code, out, _ = run(
        volley_file, "--vary", "defender.models=0,1", "--metric", "wounds>=1", "-f", "csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[0]["method"] == "invalid"
    assert rows[0]["value"] == ""
    assert "greater than or equal to 1" in rows[0]["problem"]
    assert rows[1]["method"] == "exact"


def test_text_table_and_rerun_line() -> None:
    code, out, _ = run(*sweep_args("--workers", "1"))
    assert code == 0
    header = out.splitlines()[0]
    # The axis is shown by name; the cells were worked out on sides[1].units[0].pax.
    assert header.startswith(
        "sides[Thornwall].units[Wall Guard].pax  parameters.round_limit  winner=Red Fang"
    )
    assert header.split()[-4:] == ["95", "%", "interval", "method"]
    # The header, 6 cells, a blank line, the re-run command (a line of its own, then the
    # command cut into two lines), a blank line and the footer.
    assert len(out.splitlines()) == 1 + 6 + 1 + 3 + 2
    assert "Re-run a cell alone:\n  fracas odds examples/d100/lair_raid.yaml" in out


def test_text_ends_with_a_footer_naming_seed_and_version() -> None:
    from fracas import __version__

    code, out, _ = run(*sweep_args("--workers", "1", "--seed", "17", "--set", "seed=3"))
    assert code == 0
    lines = out.splitlines()
    assert lines[-2] == ""
    assert lines[-1].startswith("ruleset d100 · sweep seed 17 · scenario sha256:")
    assert lines[-1].endswith(f" · --set seed=3 · fracas {__version__}")


def test_csv_rows_carry_the_sweep_seed_and_version(tmp_path: Path) -> None:
    from fracas import __version__

    code, out, _ = run(*sweep_args("--workers", "1", "--seed", "17", "-f", "csv"))
    assert code == 0
    table = list(csv.reader(io.StringIO(out)))
    assert table[0][-2:] == ["sweep_seed", "version"]
    assert {len(row) for row in table} == {len(table[0])}
    assert {(row[-2], row[-1]) for row in table[1:]} == {("17", __version__)}


@pytest.mark.parametrize("value", ['=HYPERLINK("http://e")', "@x", "+x", "-x", "\tx", "\rx"])
def test_csv_text_that_starts_like_a_formula_is_escaped(tmp_path: Path, value: str) -> None:
    # A name that a spreadsheet would run as a formula is written with a leading quote.
    sweep_file = tmp_path / "names.yaml"
    sweep_file.write_text(
        "sweep:\n"
        f"  scenario: {Path(LAIR).resolve()}\n"
        "  vary:\n"
        f"    sides[0].name: [{json.dumps(value)}, Plain, -3]\n"
        "  metric: winner=Red Fang\n"
        "  method: mc\n"
        "  runs: 20\n"
    )
    code, out, err = run(sweep_file, "-f", "csv", "--workers", "1")
    assert code == 0, err
    names = [row[0] for row in csv.reader(io.StringIO(out))][1:]
    assert names == [f"'{value}", "Plain", "-3"]  # a number stays a number


def test_csv_escapes_the_header_and_the_metric_too() -> None:
    from fracas.analysis.sweep import Axis, CellResult, SweepResult, to_csv

    cell = CellResult((("=a", "@b"),), 1, None, None, None, "invalid", None, "-oops")
    result = SweepResult((Axis("=a", ("@b",)),), "+m", 0, {}, (cell,))
    header, row = csv.reader(io.StringIO(to_csv(result)))
    assert header[0] == "'=a"
    assert (row[0], row[1], row[8]) == ("'@b", "'+m", "'-oops")


def test_sweep_file_holds_the_settings(tmp_path: Path) -> None:
    sweep_file = tmp_path / "balance.yaml"
    sweep_file.write_text(
        "sweep:\n"
        f"  scenario: {Path(LAIR).resolve()}\n"
        "  vary:\n"
        "    sides[1].units[0].pax: 2..6:2\n"
        "    parameters.round_limit: [1, 5]\n"
        "  metric: winner=Red Fang\n"
        "  method: mc\n"
        "  runs: 300\n"
    )
    from_file, from_options = tmp_path / "file.csv", tmp_path / "options.csv"
    assert run(sweep_file, "-o", str(from_file), "--workers", "1")[0] == 0
    assert run(*sweep_args("-o", str(from_options), "--workers", "1"))[0] == 0
    assert from_file.read_bytes() == from_options.read_bytes()


def test_the_rerun_line_gives_the_first_cells_number(tmp_path: Path) -> None:
    # The sweep file sets round_limit 3 and --set adds a unit's PAX: the printed command must
    # carry both, or its odds answer another scenario.
    sweep_file = tmp_path / "balance.yaml"
    sweep_file.write_text(
        "sweep:\n"
        f"  scenario: {Path(LAIR).resolve()}\n"
        "  vary:\n"
        "    sides[1].units[0].pax: [2, 4]\n"
        "  metric: winner=Red Fang\n"
        "  method: mc\n"
        "  runs: 300\n"
        "  set: {parameters.round_limit: 3}\n"
    )
    # A title of "3" is text: written bare, the printed command would set the number 3.
    code, out, err = run(
        sweep_file, "--set", "sides[0].units[0].pax=5", "--set", 'title="3"', "--workers", "1"
    )
    assert code == 0, err
    first = out.splitlines()[1].split()
    # The command is cut into lines that fit the width, each ending in " \\" (a shell
    # reads it as one line).
    hint = out.split("Re-run a cell alone:\n", 1)[1].split("\n\n", 1)[0]
    assert len(hint.splitlines()) > 1
    assert max(len(text) for text in hint.splitlines()) <= 100
    line = hint.replace(" \\\n", " ").strip()
    assert "--set parameters.round_limit=3" in line
    assert "--set 'sides[0].units[0].pax=5'" in line
    assert "--set 'title=\"3\"'" in line
    words = shlex.split(line)[2:]
    again = runner.invoke(app, ["odds", *words, "-f", "json"])
    assert again.exit_code == 0, again.stderr
    winner = next(m for m in json.loads(again.stdout)["result"]["metrics"] if m["name"] == "winner")
    chance = sum(v["probability"] for v in winner["values"] if v["value"] == "Red Fang")
    assert f"{chance:.4f}" == first[1]


def test_line_chart_and_heatmap(tmp_path: Path, volley_file: Path) -> None:
    line, heat = tmp_path / "line.svg", tmp_path / "heat.png"
    code, _, err = run(
        volley_file, "--vary", "attacker.dice=1..3", "--metric", "wounds>=1", "--plot", str(line)
    )
    assert code == 0, err
    assert line.read_text().startswith("<?xml")
    code, _, err = run(*sweep_args("--plot", str(heat), "--workers", "1"))
    assert code == 0, err
    assert heat.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("suffix", ["svg", "png"])
def test_a_chart_records_seed_and_version_and_is_the_same_bytes_again(
    tmp_path: Path, volley_file: Path, suffix: str
) -> None:
    from fracas import __version__

    charts = [tmp_path / f"one.{suffix}", tmp_path / f"two.{suffix}"]
    for chart in charts:
        code, _, err = run(
            volley_file,
            *("--vary", "attacker.dice=1..3", "--metric", "wounds>=1", "--seed", "9"),
            *("--plot", chart, "-o", tmp_path / "table.txt"),
        )
        assert code == 0, err
    assert charts[0].read_bytes() == charts[1].read_bytes()
    footer = (tmp_path / "table.txt").read_text().splitlines()[-1]
    assert footer.startswith("ruleset volley · sweep seed 9 · ")
    assert footer.endswith(f"fracas {__version__}")
    if suffix == "svg":
        text = charts[0].read_text()
        assert f"<dc:description>{footer}</dc:description>" in text
        assert "<dc:title>wounds&gt;=1 over the sweep</dc:title>" in text
        assert "<dc:date>" not in text
    else:
        from PIL import Image

        with Image.open(charts[0]) as image:
            assert image.text["Description"] == footer  # type: ignore[attr-defined]
            assert "Software" not in image.text  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (
            ["--vary", "sides[1].units[0].pax=2..", "--metric", "winner=Red Fang"],
            "a range is A..B",
        ),
        (["--vary", "sides[5].units[0].pax=1,2", "--metric", "winner=Red Fang"], "no such key"),
        (
            [
                "--vary",
                "sides[1].units[0].pax=1..200",
                "--vary",
                "parameters.round_limit=1..100",
                "--metric",
                "winner=Red Fang",
            ],
            "20,000 cells, more than --max-cells 10,000",
        ),
        (["--vary", "parameters.round_limit=1,2"], "needs --metric"),
        # A chart that cannot be written is refused before the grid is worked out, so the
        # table is not left behind either.
        (
            [
                "--vary",
                "parameters.round_limit=1,2",
                "--metric",
                "winner=Red Fang",
                "--plot",
                "/nonexistent/folder/chart.png",
            ],
            "/nonexistent/folder/chart.png: cannot write output: No such file or directory",
        ),
        # A whole number --set would refuse: the same limit, wherever it is typed.
        (
            ["--vary", f"sides[1].units[0].pax=1,{'9' * 40}", "--metric", "winner=Red Fang"],
            "an integer of 40 digits is above the limit input.integer_digits",
        ),
        (
            [
                "--vary",
                "parameters.round_limit=1,2",
                "--metric",
                "winner=Red Fang",
                "--plot",
                "x.gif",
            ],
            "png or .svg",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, args: list[str], problem: str
) -> None:
    target = tmp_path / "out.csv"
    code, out, err = run(LAIR, *args, "-o", str(target))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert problem in err
    assert list(tmp_path.iterdir()) == []


def test_missing_file_is_one_line() -> None:
    code, _, err = run("nowhere.yaml", "--vary", "a=1,2", "--metric", "x")
    assert code == 2
    assert err.startswith("fracas: error: nowhere.yaml: cannot read file")


def test_a_larger_grid_is_allowed_when_asked(volley_file: Path) -> None:
    code, out, _ = run(
        volley_file,
        "--vary",
        "attacker.dice=1..3",
        "--metric",
        "wounds>=1",
        "--max-cells",
        "2",
        "-f",
        "csv",
    )
    assert code == 2
    code, out, _ = run(
        volley_file,
        "--vary",
        "attacker.dice=1..3",
        "--metric",
        "wounds>=1",
        "--max-cells",
        "3",
        "-f",
        "csv",
    )
    assert code == 0
    assert out.count("\n") == 4


def test_no_progress_bar_when_not_a_terminal() -> None:
    code, _, err = run(*sweep_args("--workers", "1"))
    assert code == 0
    assert err == ""


def test_ctrl_c_stops_cleanly_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "odds.txt"
    fracas = Path(sys.executable).with_name("fracas")
    process = subprocess.Popen(
        [str(fracas), "odds", LAIR, "--runs", "10000000", "--workers", "2", "-o", str(target)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As in a terminal: a suite started in the background (a non-interactive shell's
        # `&`) ignores SIGINT, and its children would inherit that and never see the Ctrl+C.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(3)
    assert process.poll() is None
    os.kill(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert out == ""
    assert err.startswith("fracas: interrupted: ")
    assert err.rstrip().endswith("nothing written")
    assert err.count("\n") == 1
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []
