"""``fracas odds`` through the command line: output, options, errors, charts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fracas.cli import app

from .conftest import volley_yaml

runner = CliRunner()


def run(*args: str | Path) -> tuple[int, str, str]:
    result = runner.invoke(app, ["odds", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


def test_exact_odds_name_the_method_and_have_no_error_bar(volley_file: Path) -> None:
    code, out, _ = run(volley_file)
    assert code == 0
    assert "Method: exact" in out
    assert "Error bar: none" in out
    # P(wiped out) = 1 − (2/3)² = 5/9 = 55.56 %
    assert "55.56%" in out
    assert "█" in out


def test_exact_fractions(volley_file: Path) -> None:
    code, out, _ = run(volley_file, "--exact-fractions", "--format", "json")
    assert code == 0
    data = json.loads(out)["result"]
    outcome = next(m for m in data["metrics"] if m["name"] == "outcome")
    assert [v["fraction"] for v in outcome["values"]] == ["4/9", "5/9"]


def test_monte_carlo_prints_its_runs_and_interval(volley_file: Path) -> None:
    code, out, _ = run(volley_file, "--method", "mc", "--runs", "2000", "--seed", "4")
    assert code == 0
    assert "Monte Carlo (2,000 seeded runs from seed 4)" in out
    assert "95% Wilson intervals" in out
    assert "seed 4" in out.splitlines()[-1]


def test_monte_carlo_defaults_to_the_scenario_seed(volley_file: Path) -> None:
    _, out, _ = run(volley_file, "--method", "mc", "--runs", "100")
    assert "from seed 5" in out  # the fixture's file says seed: 5


def test_same_seed_same_bytes(volley_file: Path) -> None:
    first = run(volley_file, "--method", "mc", "--runs", "300", "--format", "json")
    again = run(volley_file, "--method", "mc", "--runs", "300", "--format", "json")
    assert first == again


def test_json_key_order(volley_file: Path) -> None:
    _, out, _ = run(volley_file, "--format", "json")
    data = json.loads(out)["result"]
    assert list(data) == [
        "method",
        "solver",
        "work",
        "confidence",
        "error_bar",
        "seed",
        "runs",
        "precision",
        "stopped_by",
        "fallback",
        "headline",
        "metrics",
    ]
    assert list(data["metrics"][0]) == [
        "name",
        "label",
        "kind",
        "mean",
        "mean_low",
        "mean_high",
        "values",
    ]


def test_markdown_output(volley_file: Path) -> None:
    code, out, _ = run(volley_file, "--format", "markdown", "--no-chart")
    assert code == 0
    assert out.startswith("# Odds — Archers at the ford")
    assert "█" not in out


def test_solve_through_the_cli(volley_file: Path) -> None:
    # 1 − (2/3)^n ≥ 0.8 first at n = 4 (0.8025; n = 3 gives 0.7037).
    code, out, _ = run(
        volley_file, "--solve", "attacker.dice", "--target", "0.8", "--metric", "wounds>=1"
    )
    assert code == 0, out
    assert "attacker.dice = 4 is the smallest value" in out
    assert "0.8025" in out
    assert "At 3 it gives 0.7037" in out


def test_solve_json(volley_file: Path) -> None:
    code, out, _ = run(
        volley_file,
        "--solve",
        "attacker.dice",
        "--target",
        "0.8",
        "--metric",
        "wounds>=1",
        "--format",
        "json",
    )
    assert code == 0
    solved = json.loads(out)["result"]["solve"]
    assert solved["value"] == 4
    assert [p["value"] for p in solved["probes"]] == [0, 1, 2, 3, 4]


def test_plot_svg_is_written_and_reproducible(volley_file: Path, tmp_path: Path) -> None:
    chart = tmp_path / "odds.svg"
    code, out, _ = run(volley_file, "--plot", chart)
    assert code == 0, out
    first = chart.read_bytes()
    assert first.startswith(b"<?xml")
    run(volley_file, "--plot", chart)
    assert chart.read_bytes() == first


def test_plot_png(volley_file: Path, tmp_path: Path) -> None:
    chart = tmp_path / "odds.png"
    code, _, _ = run(volley_file, "--method", "mc", "--runs", "200", "--plot", chart)
    assert code == 0
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_a_failed_report_leaves_no_chart_behind(volley_file: Path, tmp_path: Path) -> None:
    chart = tmp_path / "odds.png"
    code, _, err = run(volley_file, "--plot", chart, "-o", tmp_path / "missing" / "odds.txt")
    assert code == 2
    assert "cannot write output" in err
    assert list(tmp_path.iterdir()) == [volley_file]


def test_chart_and_report_written_together(volley_file: Path, tmp_path: Path) -> None:
    chart, report = tmp_path / "odds.svg", tmp_path / "odds.txt"
    code, out, _ = run(volley_file, "--plot", chart, "-o", report)
    assert code == 0
    assert out == ""
    assert chart.read_bytes().startswith(b"<?xml")
    assert "Method: exact" in report.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["odds.svg", "odds.txt", "volley.yaml"]


def test_missing_matplotlib_is_a_clear_error(
    volley_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins

    real_import = builtins.__import__

    def without_matplotlib(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", without_matplotlib)
    code, _, err = run(volley_file, "--plot", tmp_path / "odds.png")
    assert code == 2
    assert "'plot' extra of fracas: python -m pip install matplotlib" in err
    assert not (tmp_path / "odds.png").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--plot", "odds.txt"], "writes .png or .svg"),
        (["--precision", "0.9"], "--precision must lie between 0 and 0.5"),
        (["--runs", "0", "--method", "mc"], "--runs must be at least 1"),
        (["--solve", "attacker.dice"], "--solve needs --target"),
        (["--target", "0.5"], "--target and --metric need --solve"),
        (["--solve", "attacker.arrows", "--target", "0.5"], "attacker.arrows: no such key"),
        (["--solve", "attacker.dice", "--target", "0.5", "--metric", "kills=1"], "no metric"),
        (
            ["--solve", "attacker.dice", "--target", "0.99", "--metric", "wounds>=1", "--to", "5"],
            "never reached",
        ),
        (["--method", "exact", "--exact-budget", "1"], "exact-budget"),
        (["--confidence", "1.5"], "--confidence must lie strictly between 0 and 1"),
        (["--max-runs", "0", "--precision", "0.01"], "--max-runs must be at least 1"),
        (["--sample-budget", "0"], "--sample-budget must be at least 1, not 0"),
        (["--exact-budget", "0"], "--exact-budget must be at least 1, not 0"),
        (
            ["--solve", "attacker.dice", "--target", "0.5", "--metric", "wounds>=x"],
            "needs a number",
        ),
    ],
)
def test_bad_options_exit_2_with_one_line(
    volley_file: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    args = [str(tmp_path / a) if a.endswith(".txt") else a for a in args]
    code, out, err = run(volley_file, *args)
    assert code == 2
    assert message in err
    assert str(volley_file) in err
    assert err.count("\n") == 1
    assert out == ""


@pytest.mark.parametrize(
    ("settings", "path"),
    [
        ({"dice": -1}, "attacker.dice"),
        ({"save": 9}, "defender.save"),
        ({"models": 0}, "defender.models"),
    ],
)
def test_bad_scenarios_exit_2_naming_the_key_path(
    toy: object, tmp_path: Path, settings: dict[str, Any], path: str
) -> None:
    file = tmp_path / "bad.yaml"
    file.write_text(volley_yaml(**settings), encoding="utf-8")
    code, _, err = run(file)
    assert code == 2
    assert f"{file}: {path}:" in err


def test_unknown_unit_name_clash_is_a_scenario_error(toy: object, tmp_path: Path) -> None:
    file = tmp_path / "bad.yaml"
    file.write_text(volley_yaml() + "", encoding="utf-8")
    text = volley_yaml().replace("{models: 1", "{name: archers, models: 1")
    file.write_text(text, encoding="utf-8")
    code, _, err = run(file)
    assert code == 2
    assert "defender.name: the target cannot shoot itself" in err


def test_huge_scenario_through_the_cli_stays_within_budget(toy: object, tmp_path: Path) -> None:
    file = tmp_path / "huge.yaml"
    # Shot by shot: every one of the 10,000 dice counts against the sample budget.
    file.write_text(volley_yaml(dice=10_000, models=50, ruleset="volley-enumerated"))
    # One worker: the toy ruleset is registered in this process only.
    args = ("--exact-budget", "20000", "--sample-budget", "100000", "--workers", "1")
    code, out, _ = run(file, *args)
    assert code == 0
    assert "Monte Carlo" in out
    said = " ".join(out.split())  # as read, whatever the terminal's width
    assert "Why not exact: exact odds would take" in said
    # One step of 10,000 dice shot by shot: too wide for any budget, said before any walk.
    assert "exact odds would take more steps of work, more than the 20,000 budgeted" in said
    assert "sampled battles instead, each probability within ±" in said
    assert "Stopped early by the work budget (100,000 dice rolls)" in out


def test_the_chart_leads_with_the_headline() -> None:
    from fracas import load_scenario
    from fracas.analysis.odds import odds
    from fracas.analysis.plot import chart_bytes
    from fracas.analysis.views import headline

    charge = "examples/rankflank/frontal_charge.yaml"
    result = odds(load_scenario(charge, overrides=[("parameters.max_rounds", 1)]), method="exact")
    svg = chart_bytes(result, "svg", title="Charge").decode()
    rows = [row for row in headline(result) if row.kind == "probability"]
    assert rows, "the rankflank view has headline probabilities"
    # The headline chart comes first, every headline question in it, then the metrics.
    first_metric = svg.index(f">{result.metrics[0].title}<")
    assert svg.index(">Headline<") < first_metric
    for row in rows:
        assert svg.index(f">{row.label}<") < first_metric, row.label


@pytest.mark.parametrize("path", ["units[0].level", "parameters.level_percent"])
def test_solve_takes_a_key_left_at_its_default_as_set_does(path: str) -> None:
    # encirclement.yaml writes neither key; --set and --vary take them all the same, and so
    # does --solve now. The oracle: the same search once the key is written in the file.
    example = Path(__file__).resolve().parents[2] / "examples" / "hex" / "encirclement.yaml"
    ask: list[str | Path] = [
        example,
        "--solve",
        path,
        "--target",
        "30",
        "--metric",
        "losses.holdout",
    ]
    code, out, err = run(*ask, "--to", "3", "--format", "json")
    assert code == 0, err
    code, written, err = run(*ask, "--to", "3", "--format", "json", "--set", f"{path}=0")
    assert code == 0, err
    assert json.loads(out)["result"]["solve"] == json.loads(written)["result"]["solve"]
