"""A toy dice ruleset for the odds tests: a volley of D6 shots against a small unit.

Each of ``attacker.dice`` shots hits on ``hit_on``+; each hit is saved on ``save``+ (7 means
no save). Wounds at or above ``defender.models`` wipe the unit out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest
from pydantic import Field

import fracas.rulesets as registry
from fracas.core.dice import D6, Dice, DiceGroup, draw
from fracas.core.distribution import Distribution, Successes
from fracas.core.errors import ScenarioError
from fracas.core.process import Played, Process
from fracas.core.record import Recorder
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


class VolleyProcess:
    """The volley in two steps: the hits (one group of shots), then the unsaved wounds
    (one group of saves), each a binomial count whose closed form exact odds branch on."""

    def __init__(self, scenario: VolleyDocument) -> None:
        self.scenario = scenario

    def start(self) -> tuple[int, ...]:
        return ()

    def finished(self, state: tuple[int, ...]) -> bool:
        return len(state) == 2

    def step(self, state: tuple[int, ...], dice: Dice) -> tuple[int, ...]:
        attacker, defender = self.scenario.attacker, self.scenario.defender
        if not state:
            return (draw(dice, Successes(attacker.dice, attacker.hit_on))[0],)
        (hits,) = state
        saved = draw(dice, Successes(hits, defender.save))[0] if defender.save <= 6 else 0
        return (hits, hits - saved)


class VolleyRuleset(Ruleset[VolleyDocument, VolleyDocument, tuple[int, ...]]):
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

    def process(self, scenario: VolleyDocument, recorder: Recorder) -> Process[tuple[int, ...]]:
        return VolleyProcess(scenario)

    def report(self, scenario: VolleyDocument, played: Played[tuple[int, ...]]) -> Report:
        hits, wounds = played.state
        text = Text(f"{hits} hits, {wounds} wounds")
        return Report("volley", "A volley", (Section("Volley", (text,)),), {"hits": hits})

    def metrics(self, scenario: VolleyDocument, state: tuple[int, ...]) -> Summary:
        hits, wounds = state
        return {
            "hits": hits,
            "wounds": wounds,
            "outcome": "wiped out" if wounds >= scenario.defender.models else "holds",
        }


def shoot(scenario: VolleyDocument, dice: Dice) -> tuple[int, ...]:
    """The volley die by die, in one step: hits, then saves."""
    hits = sum(dice.roll(D6) >= scenario.attacker.hit_on for _ in range(scenario.attacker.dice))
    save = scenario.defender.save
    saved = sum(dice.roll(D6) >= save for _ in range(hits)) if save <= 6 else 0
    return (hits, hits - saved)


class EnumeratedVolleyRuleset(VolleyRuleset):
    """The volley as one step rolled die by die: odds enumerate every path of its dice."""

    name = "volley-enumerated"

    def process(self, scenario: VolleyDocument, recorder: Recorder) -> Process[tuple[int, ...]]:
        return ShotByShot(scenario, shoot)


class ShotByShot(VolleyProcess):
    """The volley's states, reached in one step played by ``play``."""

    def __init__(
        self, scenario: VolleyDocument, play: Callable[[VolleyDocument, Dice], tuple[int, ...]]
    ) -> None:
        super().__init__(scenario)
        self.play = play

    def step(self, state: tuple[int, ...], dice: Dice) -> tuple[int, ...]:
        return self.play(self.scenario, dice)


class StandRuleset(VolleyRuleset):
    """The same volley without dice: every shot hits and nothing is saved."""

    name = "stand"
    deterministic = True

    def process(self, scenario: VolleyDocument, recorder: Recorder) -> Process[tuple[int, ...]]:
        return ShotByShot(scenario, lambda doc, dice: (doc.attacker.dice, doc.attacker.dice))


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


class Hits(DiceGroup[int, None]):
    """``n`` blows, each landing with chance ``p``: a binomial, drawn at once (a group for
    the exact walk's and the sampler's tests of branching steps)."""

    def __init__(self, n: int, p: Fraction) -> None:
        self.n, self.p = n, p

    def __hash__(self) -> int:
        return hash((self.n, self.p))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hits) and (self.n, self.p) == (other.n, other.p)

    def roll(self, dice: Dice) -> tuple[int, None]:
        raise NotImplementedError  # only drawn at once in these tests

    def law(self) -> tuple[tuple[int, Fraction], ...]:
        return tuple(Distribution.binomial(self.n, self.p).items())
