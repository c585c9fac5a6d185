"""A toy dice ruleset for the odds tests: a volley of D6 shots against a small unit.

Each of ``attacker.dice`` shots hits on ``hit_on``+; each hit is saved on ``save``+ (7 means
no save). Wounds at or above ``defender.models`` wipe the unit out.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

import fracas.rulesets as registry
from fracas.analysis.exact import ExactOdds
from fracas.core.dice import D6, Dice
from fracas.core.distribution import Distribution, EnumerationBudgetError
from fracas.core.errors import ScenarioError, UnsupportedError
from fracas.core.report import Report, Section, Text
from fracas.core.schema import Document, StrictModel
from fracas.rulesets.base import Ruleset, Summary


class VolleyParams(StrictModel):
    wipe_bonus: int = Field(0, ge=0, description="Extra wounds counted when the unit is wiped.")


class Shooter(StrictModel):
    name: str = "archers"
    dice: int = Field(ge=0, le=10_000)
    hit_on: int = Field(4, ge=2, le=6)


class Target(StrictModel):
    name: str = "goblins"
    models: int = Field(ge=1)
    save: int = Field(7, ge=2, le=7)


class VolleyDocument(Document):
    parameters: VolleyParams = VolleyParams()
    attacker: Shooter
    defender: Target


@dataclass(frozen=True)
class Volley:
    hits: int
    wounds: int
    models: int


class VolleyRuleset(Ruleset[VolleyDocument, VolleyDocument, Volley]):
    """Shots hit on a D6, hits are saved on a D6; enough wounds wipe the target out."""

    name = "volley"
    title = "Volley"
    summary = "D6 shots against a unit"
    deterministic = False
    document_model = VolleyDocument
    params_model = VolleyParams

    def build(self, document: VolleyDocument) -> VolleyDocument:
        if document.attacker.name == document.defender.name:
            raise ScenarioError("the target cannot shoot itself", path=("defender", "name"))
        return document

    def play(self, scenario: VolleyDocument, dice: Dice) -> Volley:
        hits = sum(dice.roll(D6) >= scenario.attacker.hit_on for _ in range(scenario.attacker.dice))
        save = scenario.defender.save
        saved = sum(dice.roll(D6) >= save for _ in range(hits)) if save <= 6 else 0
        return Volley(hits, hits - saved, scenario.defender.models)

    def report(self, scenario: VolleyDocument, result: Volley) -> Report:
        text = Text(f"{result.hits} hits, {result.wounds} wounds")
        return Report("volley", "A volley", (Section("Volley", (text,)),), {"hits": result.hits})

    def summarize(self, scenario: VolleyDocument, result: Volley) -> Summary:
        return {
            "hits": result.hits,
            "wounds": result.wounds,
            "outcome": "wiped out" if result.wounds >= result.models else "holds",
        }

    def exact(
        self,
        scenario: VolleyDocument,
        *,
        max_work: int,
        fractions: bool = True,
        tolerance: float = 0.0,
    ) -> ExactOdds:
        """Hits are binomial; given the hits, unsaved wounds are binomial again."""
        attacker, defender = scenario.attacker, scenario.defender
        work = (attacker.dice + 1) * (attacker.dice + 2) // 2  # pairs (hits, wounds ≤ hits)
        if work > max_work:
            raise EnumerationBudgetError(f"the volley needs {work:,} steps", needed=work)
        hit = Fraction(7 - attacker.hit_on, 6)
        unsaved = Fraction(defender.save - 1, 6) if defender.save <= 6 else Fraction(1)
        outcomes: dict[Any, Fraction] = {}
        for hits, p_hits in Distribution.binomial(attacker.dice, hit).items():
            for wounds, p_wounds in Distribution.binomial(hits, unsaved).items():
                summary = self.summarize(scenario, Volley(hits, wounds, defender.models))
                key = tuple(sorted(summary.items()))
                outcomes[key] = outcomes.get(key, Fraction(0)) + p_hits * p_wounds
        return ExactOdds(outcomes, len(outcomes), "outcomes", "volley exact method")


class EnumeratedVolleyRuleset(VolleyRuleset):
    """The volley without its exact method: odds come from enumerating every path."""

    name = "volley-enumerated"

    def exact(
        self,
        scenario: VolleyDocument,
        *,
        max_work: int,
        fractions: bool = True,
        tolerance: float = 0.0,
    ) -> ExactOdds:
        raise UnsupportedError("no exact method")


class StandRuleset(VolleyRuleset):
    """The same volley without dice: every shot hits and nothing is saved."""

    name = "stand"
    deterministic = True

    def play(self, scenario: VolleyDocument, dice: Dice) -> Volley:
        shots = scenario.attacker.dice
        return Volley(shots, shots, scenario.defender.models)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> type[VolleyRuleset]:
    """Register the volley (and stand) rulesets for the duration of a test."""
    original = registry.available_rulesets

    def with_toys() -> tuple[type[registry.AnyRuleset], ...]:
        return (*original(), VolleyRuleset, EnumeratedVolleyRuleset, StandRuleset)

    monkeypatch.setattr(registry, "available_rulesets", with_toys)
    return VolleyRuleset


def volley_yaml(
    dice: int = 2, hit_on: int = 4, models: int = 1, save: int = 5, ruleset: str = "volley"
) -> str:
    return (
        f"fracas: 1\nruleset: {ruleset}\ntitle: Archers at the ford\nseed: 5\n"
        f"attacker: {{dice: {dice}, hit_on: {hit_on}}}\n"
        f"defender: {{models: {models}, save: {save}}}\n"
    )


@pytest.fixture
def volley_file(toy: type[VolleyRuleset], tmp_path: Path) -> Path:
    """Two shots hitting on 4+ against one model with a 5+ save."""
    path = tmp_path / "volley.yaml"
    path.write_text(volley_yaml(), encoding="utf-8")
    return path
