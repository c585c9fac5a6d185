"""``Ruleset.exact_tolerance``: odds pass ``--exact-tolerance`` to a ruleset's exact method
when the ruleset declares that the method takes it, and only then."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fracas.analysis import odds
from fracas.analysis.exact import ExactOdds
from fracas.rulesets import BUILTIN_RULESETS, AnyRuleset, _load
from fracas.rulesets.base import Ruleset

from .conftest import VolleyDocument, VolleyRuleset

PLUGIN = Path(__file__).resolve().parents[2] / "examples" / "plugin" / "src"
VOLLEY = {
    "fracas": 1,
    "ruleset": "volley",
    "attacker": {"dice": 2, "hit_on": 4},
    "defender": {"models": 1, "save": 5},
}


class Forwarding(VolleyRuleset):
    """An exact method that takes whatever options it is given and forwards them: its
    signature names no tolerance, its declaration says it takes one."""

    exact_tolerance = True

    def __init__(self) -> None:
        self.received: dict[str, Any] = {}

    def exact(self, scenario: VolleyDocument, **options: Any) -> ExactOdds:
        self.received = options
        return super().exact(scenario, **options)


class Declining(VolleyRuleset):
    """An exact method with a ``tolerance`` parameter whose ruleset declares no support."""

    exact_tolerance = False

    def __init__(self) -> None:
        self.received: dict[str, Any] = {}

    def exact(
        self,
        scenario: VolleyDocument,
        *,
        max_work: int,
        fractions: bool = True,
        tolerance: float = 0.0,
    ) -> ExactOdds:
        self.received = {"max_work": max_work, "fractions": fractions}
        if tolerance:
            self.received["tolerance"] = tolerance
        return super().exact(scenario, max_work=max_work, fractions=fractions)


def test_a_ruleset_declaring_the_tolerance_gets_it() -> None:
    ruleset = Forwarding()
    result = odds(ruleset.load(VOLLEY), ruleset=ruleset, method="exact", exact_tolerance=1e-6)
    assert result.method == "exact"
    assert ruleset.received["tolerance"] == 1e-6
    # A tolerance of 0 (keep every branch) is what an exact method does unasked.
    odds(ruleset.load(VOLLEY), ruleset=ruleset, method="exact", exact_tolerance=0)
    assert "tolerance" not in ruleset.received


def test_a_ruleset_declaring_no_tolerance_gets_none() -> None:
    ruleset = Declining()
    odds(ruleset.load(VOLLEY), ruleset=ruleset, method="exact", exact_tolerance=1e-3)
    assert ruleset.received == {"max_work": ruleset.received["max_work"], "fractions": False}


def test_the_default_is_the_inherited_exact_method_which_takes_a_tolerance() -> None:
    assert Ruleset.exact_tolerance is True
    assert "tolerance" in inspect.signature(Ruleset.exact).parameters


@pytest.fixture
def shipped(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[type[AnyRuleset]]]:
    """The built-in ruleset classes and the plugin example's, imported from its sources."""
    monkeypatch.syspath_prepend(str(PLUGIN))
    from fracas_duel.ruleset import DuelRuleset

    yield [*(_load(target) for target in BUILTIN_RULESETS), DuelRuleset]
    for name in [name for name in sys.modules if name.partition(".")[0] == "fracas_duel"]:
        del sys.modules[name]


def test_every_shipped_declaration_is_truthful(shipped: list[type[AnyRuleset]]) -> None:
    # The one place that reads a signature: it keeps the built-ins' and the plugin
    # example's declarations true to their exact methods.
    assert [cls.name for cls in shipped] == ["hex", "d100", "rankflank", "duel"]
    for cls in shipped:
        takes = "tolerance" in inspect.signature(cls.exact).parameters
        assert cls.exact_tolerance is takes, cls.name
