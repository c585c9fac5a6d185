"""Every d100 example resolves, at its own seed, and shows what it was written to show."""

from __future__ import annotations

from pathlib import Path

import pytest

from fracas.core.dice import SeededDice
from fracas.io import load_scenario
from fracas.io.render import RENDERERS
from fracas.rulesets.d100 import Battle, BattleResult, play_battle
from fracas.rulesets.d100.play import AssessmentEvent, AttackEvent

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "d100"


def played(name: str) -> tuple[Battle, BattleResult]:
    scenario = load_scenario(EXAMPLES / name)
    assert scenario.header.seed is not None
    return scenario.model, play_battle(scenario.model, SeededDice(scenario.header.seed))


def attacks(result: BattleResult) -> list[AttackEvent]:
    return [event for event in result.events if isinstance(event, AttackEvent)]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_example_resolves_in_every_format(path: Path) -> None:
    scenario = load_scenario(path)
    report = scenario.resolve()
    for render in RENDERERS.values():
        text = render(report)
        assert report.title in text
        assert scenario.sha256 in text


def test_lair_raid_defender_fights_behind_its_structures() -> None:
    battle, result = played("lair_raid.yaml")
    keep = battle.sides[1]
    assert keep.defender
    assert keep.location == "lair"
    defences = [e.defence for e in attacks(result) if battle.unit(e.target).side == 1]
    assert defences
    assert all(any(b.label == "Defensive structure" for b in d.bonuses) for d in defences)
    assert result.winner == 0
    assert result.loot is not None
    assert result.goods_value > 0


def test_bottle_out_example_has_a_unit_that_bottles_out_and_disbands() -> None:
    battle, result = played("bottle_out.yaml")
    disbanded = [
        e for e in result.events if isinstance(e, AssessmentEvent) and e.fate == "disbanded"
    ]
    assert [e.unit for e in disbanded] == ["Sellswords"]
    assert result.fates[battle.unit("Sellswords").index] == "disbanded"


def test_orc_warband_ignores_the_assessment() -> None:
    _battle, result = played("orc_warband.yaml")
    assessed = {e.unit: e.exempt for e in result.events if isinstance(e, AssessmentEvent)}
    assert assessed == {"Black Hand Orcs": True, "Boar Riders": True, "Goblin Skulkers": False}


def test_challenge_is_both_attacking_and_defending() -> None:
    battle, result = played("challenge.yaml")
    challenger = battle.sides[0]
    assert challenger.attacker
    assert challenger.defender
    brannoc = [e for e in attacks(result) if e.attacker == "Sir Brannoc"]
    assert brannoc
    assert all(any(b.label == "Mounted" for b in e.attack.bonuses) for e in brannoc)
    guarded = [e.defence for e in attacks(result) if e.target == "Sir Brannoc"]
    assert all(any(b.label == "Oath-shield" for b in d.bonuses) for d in guarded)
