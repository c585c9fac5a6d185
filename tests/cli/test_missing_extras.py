"""A missing optional extra is named before the work starts, and never costs the output
that does not need it."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fracas.cli import app

from .conftest import ROOT

FRONTAL = ROOT / "examples" / "rankflank" / "frontal_charge.yaml"
runner = CliRunner()


@pytest.fixture
def no_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the plot extra were not installed: importing matplotlib fails."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)


def test_odds_names_the_missing_extra_before_any_work(
    no_matplotlib: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    odds_module = importlib.import_module("fracas.analysis.odds")

    def no_work(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the odds were worked out before the chart was known to fail")

    monkeypatch.setattr(odds_module, "odds", no_work)
    chart = tmp_path / "odds.png"
    result = runner.invoke(app, ["odds", str(FRONTAL), "--plot", str(chart)])
    assert result.exit_code == 2, result.output
    assert "matplotlib" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not chart.exists()


def test_sweep_names_the_missing_extra_before_any_work(
    no_matplotlib: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    sweep_module = importlib.import_module("fracas.analysis.sweep")

    def no_work(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the grid was worked out before the chart was known to fail")

    monkeypatch.setattr(sweep_module, "sweep", no_work)
    table = tmp_path / "sweep.csv"
    args = ["sweep", str(FRONTAL), "--method", "mc", "--runs", "50", "--metric", "winner=Empire"]
    args += ["--vary", "units[0].models=10,20", "-o", str(table), "--plot", str(tmp_path / "s.png")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "matplotlib" in result.stderr
    assert not table.exists()


def test_sweep_keeps_its_table_when_the_chart_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from fracas.core.errors import FracasError

    plot_module = importlib.import_module("fracas.analysis.plot")
    sweep_module = importlib.import_module("fracas.analysis.sweep")

    def broken(*args: Any, **kwargs: Any) -> bytes:
        raise FracasError("the chart could not be drawn")

    monkeypatch.setattr(plot_module, "check_charts", lambda path: "png")
    monkeypatch.setattr(sweep_module, "chart_bytes", broken)
    table = tmp_path / "sweep.csv"
    args = ["sweep", str(FRONTAL), "--method", "mc", "--runs", "50", "--metric", "winner=Empire"]
    args += ["--vary", "units[0].models=10,20", "-o", str(table), "--plot", str(tmp_path / "s.png")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "the table is written; the chart is not" in result.stderr
    rows = table.read_text(encoding="utf-8").splitlines()
    assert len(rows) == 3  # the header and one row per cell
    assert not (tmp_path / "s.png").exists()
