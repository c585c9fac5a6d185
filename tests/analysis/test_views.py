"""Headline questions and derived metrics, read from the ruleset class by generic code.

The toy volley (see conftest): two shots hit on 4+, each hit is saved on 5+, one goblin.
Hits are binomial(2, 1/2): 0, 1, 2 with 1/4, 1/2, 1/4. A hit wounds unless saved, 2/3.
P(0 wounds) = 1/4 + 1/2·1/3 + 1/4·(1/3)² = 9/36 + 6/36 + 1/36 = 4/9, so the goblin is wiped
out with 5/9; P(2 wounds) = 1/4·(2/3)² = 1/9; E[wounds] = 2·1/2·2/3 = 2/3.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest

from fracas.analysis import headline, odds
from fracas.analysis.views import headline_rows
from fracas.core.headline import Headline
from fracas.io.scenario import parse_scenario
from fracas.rulesets.base import DeriveMetrics, Summary

from .conftest import StandRuleset, VolleyDocument, VolleyRuleset, volley_yaml


class WipedVolley(VolleyRuleset):
    """The volley with a derived family of metrics ``wiped.<unit>`` and headlines on it."""

    name = "volley"
    headlines = (
        Headline("probability", "wiped.*", "P({name} wiped out)", values=(True,)),
        Headline("probability", "wiped.*", "P({name} stands)", values=(False,)),
        Headline("mean", "wounds", "expected wounds"),
    )

    def derived_metrics(self, scenario: VolleyDocument) -> DeriveMetrics:
        defender, attacker = scenario.defender.name, scenario.attacker.name

        def derive(summary: Mapping[str, Any]) -> Summary:
            return {
                f"wiped.{defender}": summary["outcome"] == "wiped out",
                f"wiped.{attacker}": False,
            }

        return derive


def test_each_kind_of_question_answered_by_hand(toy: type[VolleyRuleset]) -> None:
    result = odds(parse_scenario(volley_yaml()), method="exact", exact_fractions=True)
    asked = (
        Headline("values", "outcome", "P({value})", labels=(("wiped out", "P(goblin dies)"),)),
        Headline("event", "wounds", "P(at most one wound)", values=(0, 1)),
        Headline("probability", "hits", "P(no hit)", values=(0,)),
        Headline("mean", "wounds", "expected wounds"),
        Headline("probability", "morale", "P(never asked)", values=(True,)),
        Headline("event", "wounds", "P(three wounds)", values=(3,), omit_zero=True),
    )
    rows = [(row.label, row.value, row.kind) for row in headline_rows(result, asked)]
    assert rows == [
        ("P(holds)", Fraction(4, 9), "probability"),
        ("P(goblin dies)", Fraction(5, 9), "probability"),
        ("P(at most one wound)", 1 - Fraction(1, 9), "probability"),
        ("P(no hit)", Fraction(1, 4), "probability"),
        ("expected wounds", Fraction(2, 3), "mean"),
    ]


@pytest.mark.parametrize("method", ["exact", "mc"])
def test_a_registered_ruleset_gets_its_headlines_and_derived_metrics(
    toy: type[VolleyRuleset], monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    monkeypatch.setattr("fracas.rulesets.available_rulesets", lambda: (WipedVolley,))
    scenario = parse_scenario(volley_yaml())
    result = odds(scenario, method=method, runs=3000, seed=1)  # type: ignore[arg-type]
    rows = headline(result)
    # Questions on one family are answered unit by unit: goblins first (reported first).
    assert [row.label for row in rows] == [
        "P(goblins wiped out)",
        "P(goblins stands)",
        "P(archers wiped out)",
        "P(archers stands)",
        "expected wounds",
    ]
    expected = [5 / 9, 4 / 9, 0, 1, 2 / 3]
    for row, value in zip(rows, expected, strict=True):
        assert row.low - 1e-15 <= value <= row.high + 1e-15, row  # floats: a rounding error
    if method == "exact":
        assert [float(row.value) for row in rows] == pytest.approx(expected)


def test_headlines_travel_with_the_result_not_the_registry(toy: type[VolleyRuleset]) -> None:
    registered = odds(parse_scenario(volley_yaml()), method="exact")
    assert toy.headlines == ()
    assert headline(registered) == []
    # The same name, passed in directly with headlines of its own: those are answered.
    model = toy().load({"fracas": 1, "ruleset": "volley", **_volley()})
    direct = odds(model, ruleset=WipedVolley(), method="mc", runs=200)
    assert [row.label for row in headline(direct)][-1] == "expected wounds"


def _volley() -> dict[str, Any]:
    return {"attacker": {"dice": 2}, "defender": {"models": 1, "save": 5}}


def test_capabilities_are_read_from_the_class() -> None:
    assert VolleyRuleset.capabilities() == ("resolve", "dice", "odds", "exact odds")
    assert WipedVolley.capabilities() == ("resolve", "dice", "odds", "exact odds", "headline odds")
    assert StandRuleset.capabilities()[:2] == ("resolve", "deterministic")
    assert not VolleyRuleset.implements("forecast")
    with pytest.raises(ValueError, match="not an optional hook"):
        VolleyRuleset.implements("play")


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        (("probability", "hits", "x"), "one value"),
        (("event", "hits", "x"), "values it is made of"),
        (("mean", "hits", "x", (1,)), "takes no values"),
        (("odds", "hits", "x"), "unknown headline kind"),
        (("mean", "hits*", "x"), "prefix"),
    ],
)
def test_a_malformed_headline_is_refused_when_declared(
    arguments: tuple[Any, ...], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        Headline(*arguments)
