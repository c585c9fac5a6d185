"""The extension story, shown working: a third-party ruleset installed with pip.

``examples/plugin`` is a package of its own (``fracas-duel``) whose only link to fracas is
the ``fracas.rulesets`` entry point in its ``pyproject.toml``. The test installs it with pip
into a temporary folder and runs the ``fracas`` command with that folder on the path, so
the ruleset is found exactly as a user's installed plugin would be.

The numbers, by hand. Each exchange both fighters roll a d6 and add their skill; the higher
total wounds the other, a tie wounds no one. Gawain (skill 1) against Lancelot (skill 0),
faces a and b, 36 equally likely pairs:

* Gawain hits when a + 1 > b, i.e. b ≤ a: 1 + 2 + … + 6 = 21 pairs, p = 21/36;
* Lancelot hits when b ≥ a + 2: 4 + 3 + 2 + 1 = 10 pairs, q = 10/36;
* a tie when b = a + 1: 5 pairs, t = 5/36.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "plugin"
TOURNAMENT = PLUGIN / "scenarios" / "tournament.yaml"

p, q, t = Fraction(21, 36), Fraction(10, 36), Fraction(5, 36)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin installed by pip (a wheel built from examples/plugin) into a folder."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            target,
            PLUGIN,
        ],
        check=True,
        capture_output=True,
    )
    return target


def fracas(installed: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(installed), "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "fracas", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def odds_json(installed: Path, *args: str | Path) -> dict[str, Any]:
    done = fracas(installed, "odds", *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)["result"]
    return result


def headline(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["label"]: row for row in result["headline"]}


def test_the_command_lists_the_installed_ruleset_and_its_parameters(installed: Path) -> None:
    listing = fracas(installed, "rulesets")
    assert listing.returncode == 0, listing.stderr
    assert "duel" in listing.stdout
    assert "two fighters trade opposed rolls" in listing.stdout
    one = fracas(installed, "rulesets", "opposed-roll")  # found by its alias too
    assert one.returncode == 0, one.stderr
    assert "max_exchanges = 3" in one.stdout
    assert "die = 6" in one.stdout
    # Read from the class: dice, summarize (odds), exact_odds, headlines; no forecast.
    assert "Offers: resolve, dice, odds, exact odds, headline odds\n" in one.stdout


def test_resolve_reports_every_roll_and_a_winner_that_follows_from_them(installed: Path) -> None:
    done = fracas(installed, "resolve", TOURNAMENT, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)["result"]
    wounds = {"Gawain": 0, "Lancelot": 0}
    for exchange in data["exchanges"]:
        totals = []
        for roll in exchange["rolls"]:
            die, skill = (row["value"] for row in roll["rows"])
            assert 1 <= int(die) <= 6
            assert roll["total"] == int(die) + int(skill)  # the rows add up to the total
            totals.append(roll["total"])
        gawain, lancelot = totals
        expected = None if gawain == lancelot else ("Lancelot" if gawain > lancelot else "Gawain")
        assert exchange["wounded"] == expected
        if expected:
            wounds[expected] += 1
    assert wounds == data["wounds"]
    # Gawain falls at his first wound, Lancelot at his second (health 1 and 2).
    fallen = [name for name, health in (("Gawain", 1), ("Lancelot", 2)) if wounds[name] >= health]
    assert data["winner"] == {"Gawain": "Lancelot", "Lancelot": "Gawain"}.get(
        fallen[0] if fallen else "", "none"
    )
    again = fracas(installed, "resolve", TOURNAMENT, "--format", "json")
    assert again.stdout == done.stdout  # same scenario, same seed: byte-identical


def test_exact_odds_of_the_example_by_hand(installed: Path) -> None:
    # Gawain (health 1) wins once Lancelot (health 2) took two hits and he none, within
    # three exchanges: GG, tGG or GtG — p²(1 + 2t). Lancelot wins with his first hit while
    # Gawain has at most one: at once, after one G or t, or after tt, tG or Gt —
    # q(1 + (p + t) + (t² + 2pt)). Neither falls otherwise.
    gawain = p**2 * (1 + 2 * t)
    lancelot = q * (1 + (p + t) + (t**2 + 2 * p * t))
    assert (gawain, lancelot) == (Fraction(1127, 2592), Fraction(12335, 23328))
    result = odds_json(installed, TOURNAMENT, "--method", "exact", "--exact-fractions")
    assert result["method"] == "exact"
    rows = headline(result)
    assert Fraction(rows["P(Gawain wins)"]["fraction"]) == gawain
    assert Fraction(rows["P(Lancelot wins)"]["fraction"]) == lancelot
    assert Fraction(rows["P(both still stand at the end)"]["fraction"]) == 1 - gawain - lancelot


def sudden_death(tmp_path: Path) -> Path:
    path = tmp_path / "sudden_death.yaml"
    path.write_text(
        "fracas: 1\nruleset: duel\nparameters: {max_exchanges: 2}\n"
        "fighters:\n  - {name: Gawain, skill: 1}\n  - {name: Lancelot}\n",
        encoding="utf-8",
    )
    return path


def test_headline_odds_and_derived_metric_come_through_the_hooks(
    installed: Path, tmp_path: Path
) -> None:
    # Both fall at the first wound; two exchanges at most. Gawain wins at once (p) or after
    # a tie (t·p): 21/36 · 41/36 = 861/1296; Lancelot likewise 10/36 · 41/36 = 410/1296;
    # two ties leave both standing, 25/1296. Whoever wins took no wound ("flawless", the
    # derived metric): 1 − 25/1296. A second exchange is fought after a tie: E = 1 + t = 41/36.
    result = odds_json(installed, sudden_death(tmp_path), "--method", "exact", "--exact-fractions")
    rows = headline(result)
    assert [row["label"] for row in result["headline"]] == [
        "P(Gawain wins)",
        "P(Lancelot wins)",
        "P(both still stand at the end)",
        "P(the winner took no wound)",
        "expected exchanges",
        "expected wounds taken by Gawain",
        "expected wounds taken by Lancelot",
    ]
    assert Fraction(rows["P(Gawain wins)"]["fraction"]) == p * (1 + t) == Fraction(861, 1296)
    assert Fraction(rows["P(Lancelot wins)"]["fraction"]) == q * (1 + t) == Fraction(410, 1296)
    assert Fraction(rows["P(both still stand at the end)"]["fraction"]) == t**2
    assert Fraction(rows["P(the winner took no wound)"]["fraction"]) == 1 - t**2
    assert Fraction(rows["expected exchanges"]["fraction"]) == 1 + t
    # Gawain is wounded exactly when Lancelot wins.
    assert Fraction(rows["expected wounds taken by Gawain"]["fraction"]) == q * (1 + t)


def test_sampled_odds_bracket_the_exact_ones(installed: Path, tmp_path: Path) -> None:
    exact = {
        row["label"]: row["value"]
        for row in odds_json(installed, sudden_death(tmp_path), "--method", "exact")["headline"]
    }
    sampled = odds_json(
        installed,
        sudden_death(tmp_path),
        "--method",
        "mc",
        "--runs",
        "4000",
        "--seed",
        "11",
        "--confidence",
        "0.999",
    )
    assert sampled["method"] == "monte-carlo"
    assert sampled["runs"] == 4000
    for row in sampled["headline"]:
        assert row["low"] <= exact[row["label"]] <= row["high"], row


def test_auto_odds_are_exact_within_the_default_budget(installed: Path) -> None:
    assert odds_json(installed, TOURNAMENT)["method"] == "exact"


def test_exact_odds_walk_merged_states_from_the_process_alone(installed: Path) -> None:
    # The plugin writes only its process; the walk merges bouts that reach the same
    # wounds after the same exchanges. Its states: the start; after one exchange Gawain hit,
    # Lancelot hit (Gawain falls: finished) or a tie — 2 live; after two, (G,G) finishes and
    # (1,0) (from G then t, or t then G) and (0,0) (two ties) live, with Lancelot's hits
    # finishing. Each live state plays its 36 pairs of faces once: 1 + 2 + 2 live states
    # over three exchanges, 5 × 36 = 180 step plays, where the paths of three exchanges
    # number up to 36³ = 46,656.
    result = odds_json(installed, TOURNAMENT, "--method", "exact")
    assert result["work"]["unit"] == "step plays"
    assert result["work"]["amount"] == 5 * 36
    assert "merged states" in result["solver"]


def test_a_bad_scenario_is_one_line_naming_the_key(installed: Path, tmp_path: Path) -> None:
    bad = tmp_path / "same_names.yaml"
    bad.write_text(
        "fracas: 1\nruleset: duel\nfighters:\n  - {name: Kay}\n  - {name: Kay}\n", encoding="utf-8"
    )
    done = fracas(installed, "resolve", bad)
    assert done.returncode == 2
    assert "fighters[1].name" in done.stderr or "fighters.1.name" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_plugin_doctests_pass_where_it_is_installed(installed: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(installed)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--doctest-modules",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            installed,
            installed / "fracas_duel",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=installed,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout


def test_the_plugin_has_the_layout_of_a_built_in_ruleset() -> None:
    package = PLUGIN / "src" / "fracas_duel"
    roles = ("ruleset", "document", "scenario", "play", "report", "odds")
    assert [role for role in roles if not (package / f"{role}.py").is_file()] == []
    assert (package / "py.typed").is_file()
    assert 'duel = "fracas_duel.ruleset:DuelRuleset"' in (PLUGIN / "pyproject.toml").read_text()
