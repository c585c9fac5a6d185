"""``--exact-tolerance``: what exact odds in floats leave out, and how the report says so."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fracas.analysis import odds
from fracas.cli import app
from fracas.io.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
FRONTAL = ROOT / "examples" / "rankflank" / "frontal_charge.yaml"
runner = CliRunner()


def one_round() -> object:
    return load_scenario(FRONTAL, overrides=[("parameters.max_rounds", 1)])


def test_the_default_tolerance_leaves_out_little_and_says_how_much() -> None:
    kept = odds(one_round(), method="exact")
    full = odds(one_round(), method="exact", exact_tolerance=0)
    exact = odds(one_round(), method="exact", exact_fractions=True)
    assert full.error_bar == 0.0
    # A report prints odds to 0.01 %: what is left out must be far below that.
    assert 0 < kept.error_bar < 1e-7
    assert kept.work < full.work
    # Every probability is within the reported amount of the exact fraction.
    for metric in exact.metrics:
        for entry in metric.values:
            assert isinstance(entry.probability, Fraction)
            got = float(kept.probability(metric.name, entry.value))
            assert float(entry.probability) - kept.error_bar - 1e-12 <= got, metric.name
            assert got <= float(entry.probability) + 1e-12, metric.name


def test_fractions_keep_every_branch_whatever_the_tolerance() -> None:
    result = odds(one_round(), method="exact", exact_fractions=True, exact_tolerance=0.01)
    assert result.error_bar == 0.0
    assert sum(e.probability for e in result.metric("winner").values) == 1


def test_a_large_tolerance_is_honest_about_what_it_dropped() -> None:
    rough = odds(one_round(), method="exact", exact_tolerance=1e-3)
    exact = odds(one_round(), method="exact", exact_fractions=True)
    assert rough.error_bar > 1e-3
    for entry in exact.metric("winner").values:
        got = float(rough.probability("winner", entry.value))
        assert float(entry.probability) - rough.error_bar - 1e-12 <= got


def test_the_report_and_json_say_what_was_left_out() -> None:
    common = [str(FRONTAL), "--set", "parameters.max_rounds=1", "--method", "exact"]
    text = runner.invoke(app, ["odds", *common])
    assert text.exit_code == 0, text.stderr
    assert "exact to within" in text.stdout
    full = runner.invoke(app, ["odds", *common, "--exact-tolerance", "0"])
    assert "Error bar: none" in full.stdout
    data = json.loads(runner.invoke(app, ["odds", *common, "--format", "json"]).stdout)
    assert 0 < data["result"]["error_bar"] < 1e-7


@pytest.mark.parametrize("bad", ["-1", "1", "2.5"])
def test_a_tolerance_outside_zero_to_one_is_refused_in_one_line(bad: str) -> None:
    result = runner.invoke(app, ["odds", str(FRONTAL), "--exact-tolerance", bad])
    assert result.exit_code == 2
    assert "exact tolerance" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
