"""Shared fixtures: a tiny dice ruleset that exercises the core without any real ruleset."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import settings
from pydantic import Field

import fracas.rulesets as registry
from fracas.core.dice import D6, Dice
from fracas.core.errors import ScenarioError
from fracas.core.modifiers import Breakdown
from fracas.core.process import Done, OneStep, Played
from fracas.core.record import Recorder
from fracas.core.report import Report, Section, Table, Text, breakdown_data, breakdown_table
from fracas.core.schema import Document, StrictModel
from fracas.rulesets.base import Ruleset, Summary

# Tests never depend on timing: no per-example deadline; a fixed derandomised profile in CI.
settings.register_profile("fracas", deadline=None, print_blob=True)
settings.register_profile("ci", parent=settings.get_profile("fracas"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "fracas")


class DuelParams(StrictModel):
    die_sides_note: str = Field("d6", description="Informational only.")


class Fighter(StrictModel):
    name: str
    bonus: int = Field(0, ge=0)


class DuelDocument(Document):
    parameters: DuelParams = DuelParams()
    fighters: tuple[Fighter, Fighter]


@dataclass(frozen=True)
class DuelResult:
    rolls: tuple[Breakdown, Breakdown]


class DuelRuleset(Ruleset[DuelDocument, DuelDocument, Done[DuelResult]]):
    """Two fighters each roll a d6 plus a bonus; the higher wins, ties are draws."""

    name = "duel"
    aliases = ("toy",)
    title = "Duel"
    summary = "two fighters, one d6 each"
    deterministic = False
    document_model = DuelDocument
    params_model = DuelParams

    def build(self, document: DuelDocument) -> DuelDocument:
        if document.fighters[0].name == document.fighters[1].name:
            raise ScenarioError("fighters need different names", path=("fighters", 1, "name"))
        return document

    def process(self, scenario: DuelDocument, recorder: Recorder) -> OneStep[DuelResult]:
        def duel(dice: Dice) -> DuelResult:
            rolls = tuple(
                Breakdown.start(f.name, "d6", dice.roll(D6)).plus("bonus", f.bonus, source=f.name)
                for f in scenario.fighters
            )
            return DuelResult((rolls[0], rolls[1]))

        return OneStep(duel)

    def winner(self, scenario: DuelDocument, result: DuelResult) -> str:
        a, b = (roll.total for roll in result.rolls)
        if a == b:
            return "draw"
        return scenario.fighters[0 if a > b else 1].name

    def report(self, scenario: DuelDocument, played: Played[Done[DuelResult]]) -> Report:
        result = played.state.result
        winner = self.winner(scenario, result)
        data: dict[str, Any] = {
            "winner": winner,
            "rolls": [breakdown_data(r) for r in result.rolls],
        }
        blocks: tuple[Table | Text, ...] = (
            *(breakdown_table(r) for r in result.rolls),
            Text(f"Winner: {winner}", True),
        )
        return Report("duel", "A duel", (Section("Rolls", blocks),), data)

    def metrics(self, scenario: DuelDocument, state: Done[DuelResult]) -> Summary:
        return {"winner": self.winner(scenario, state.result)}


@pytest.fixture
def duel(monkeypatch: pytest.MonkeyPatch) -> type[DuelRuleset]:
    """Register the duel ruleset for the duration of a test."""
    original = registry.available_rulesets

    def with_duel() -> tuple[type[registry.AnyRuleset], ...]:
        return (*original(), DuelRuleset)

    monkeypatch.setattr(registry, "available_rulesets", with_duel)
    monkeypatch.setattr("fracas.cli.commands.available_rulesets", with_duel)
    return DuelRuleset


DUEL_YAML = """\
fracas: 1
ruleset: duel
title: Two knights
seed: 3
fighters:
  - {name: Gawain, bonus: 1}
  - {name: Lancelot, bonus: 0}
"""


@pytest.fixture
def duel_file(duel: type[DuelRuleset], tmp_path: Any) -> Any:
    """A duel scenario on disk (with the duel ruleset registered)."""
    path = tmp_path / "duel.yaml"
    path.write_text(DUEL_YAML, encoding="utf-8")
    return path
