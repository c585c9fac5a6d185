"""Invariants over random combats (hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.core.dice import SeededDice
from fracas.core.modifiers import Breakdown
from fracas.rulesets.rankflank.formation import models_alive
from fracas.rulesets.rankflank.play import play_combat

from .conftest import combat_from

TROOPS = ["infantry", "cavalry", "monstrous_infantry", "monster", "chariot"]


@st.composite
def unit_specs(draw: st.DrawFn, name: str, side: str) -> dict[str, Any]:
    models = draw(st.integers(1, 30))
    files = draw(st.integers(1, min(models, 10)))
    stat = st.integers(1, 10)
    profile = " ".join(
        str(v)
        for v in (
            4,
            draw(stat),
            3,
            draw(stat),
            draw(stat),
            draw(st.integers(1, 4)),
            draw(st.integers(0, 10)),
            draw(st.integers(0, 4)),
            draw(stat),
        )
    )
    return {
        "name": name,
        "side": side,
        "troop_type": draw(st.sampled_from(TROOPS)),
        "models": models,
        "files": files,
        "profile": profile,
        "armour": draw(st.none() | st.integers(2, 6)),
        "ward": draw(st.none() | st.integers(4, 6)),
        "charged": draw(st.booleans()),
        "height": draw(st.integers(0, 1)),
        "command": {"standard": draw(st.booleans()), "battle_standard": draw(st.booleans())},
        "rules": draw(st.lists(st.sampled_from(["stubborn", "swiftstride"]), unique=True)),
    }


@st.composite
def characters(draw: st.DrawFn, name: str) -> list[dict[str, Any]]:
    if not draw(st.booleans()):
        return []
    wounds = draw(st.integers(1, 3))
    profile = f"4 {draw(st.integers(1, 10))} 3 {draw(st.integers(1, 10))} "
    profile += f"{draw(st.integers(1, 10))} {wounds} {draw(st.integers(0, 10))} "
    profile += f"{draw(st.integers(1, 5))} {draw(st.integers(1, 10))}"
    return [
        {
            "name": name,
            "profile": profile,
            "armour": draw(st.none() | st.integers(1, 6)),
            "wounds_taken": draw(st.integers(0, wounds - 1)),
        }
    ]


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    units = [draw(unit_specs("A1", "red")), draw(unit_specs("B1", "blue"))]
    units[0]["characters"] = draw(characters("Hero"))
    units[1]["characters"] = draw(characters("Champ"))
    engagements = [{"unit": "A1", "enemy": "B1", "arc": "front"}]
    arcs = st.sampled_from(["front", "left", "right", "rear"])
    if draw(st.booleans()):
        units.append(draw(unit_specs("A2", "red")))
        engagements.append({"unit": "A2", "enemy": "B1", "arc": draw(arcs)})
    if draw(st.booleans()):
        units.append(draw(unit_specs("B2", "blue")))
        engagements.append({"unit": "B2", "enemy": "A1", "arc": draw(arcs)})
    document: dict[str, Any] = {
        "units": units,
        "engagements": engagements,
        "parameters": {
            "edition": draw(st.sampled_from(["ninth", "eighth"])),
            "max_rounds": draw(st.integers(1, 3)),
            "flank_and_rear_per": draw(st.sampled_from(["enemy", "unit"])),
            "overkill_needs_survivor": draw(st.booleans()),
        },
    }
    if units[0]["characters"] and units[1]["characters"] and draw(st.booleans()):
        document["challenge"] = {"challenger": "Hero", "opponent": "Champ"}
    return document


@settings(max_examples=60)
@given(documents(), st.integers(0, 2**32))
def test_casualties_never_exceed_models(document: dict[str, Any], seed: int) -> None:
    combat = combat_from(document)
    outcome = play_combat(combat, SeededDice(seed))
    for unit in combat.units:
        before = models_alive(unit, outcome.initial[unit.name])
        after = models_alive(unit, outcome.final[unit.name])
        assert 0 <= after <= before == unit.models + len(unit.characters)


@settings(max_examples=60)
@given(documents(), st.integers(0, 2**32))
def test_combat_result_is_never_negative(document: dict[str, Any], seed: int) -> None:
    combat = combat_from(document)
    for fought in play_combat(combat, SeededDice(seed)).rounds:
        for side in combat.sides:
            assert fought.result.score(side) >= 0
            assert all(
                step.running >= 0
                for step in Breakdown("score", fought.result.scores[side].rows).steps()
            )


@settings(max_examples=60)
@given(documents(), st.integers(0, 2**32))
def test_the_higher_total_wins_and_only_the_loser_tests(
    document: dict[str, Any], seed: int
) -> None:
    combat = combat_from(document)
    for fought in play_combat(combat, SeededDice(seed)).rounds:
        result = fought.result
        red, blue = result.score("red"), result.score("blue")
        assert result.difference == abs(red - blue)
        if not result.wiped_out:
            expected = None if red == blue else ("red" if red > blue else "blue")
            assert result.winner == expected
        losers = {u.name for u in combat.units if u.side == result.loser}
        assert {test.unit for test in fought.break_tests} <= losers
        if result.winner is None or result.wiped_out:
            assert fought.break_tests == ()


@settings(max_examples=60)
@given(documents(), st.integers(0, 2**32))
def test_swapping_the_sides_swaps_the_result(document: dict[str, Any], seed: int) -> None:
    swap = {"red": "blue", "blue": "red"}
    mirrored = {
        **document,
        "units": [{**unit, "side": swap[unit["side"]]} for unit in document["units"]],
    }
    first = play_combat(combat_from(document), SeededDice(seed))
    second = play_combat(combat_from(mirrored), SeededDice(seed))
    assert len(first.rounds) == len(second.rounds)
    for one, other in zip(first.rounds, second.rounds, strict=True):
        assert one.result.score("red") == other.result.score("blue")
        assert one.result.score("blue") == other.result.score("red")
        expected = None if one.result.winner is None else swap[one.result.winner]
        assert other.result.winner == expected
    assert first.final == second.final


@settings(max_examples=60)
@given(documents(), st.integers(0, 2**32))
def test_each_unit_counts_its_ranks_once_and_each_arc_once(
    document: dict[str, Any], seed: int
) -> None:
    combat = combat_from(document)
    cap = combat.options.max_rank_bonus
    for fought in play_combat(combat, SeededDice(seed)).rounds:
        for side in combat.sides:
            ranks = [r for r in fought.result.scores[side].rows if r.label == "Ranks"]
            # A source reads "<unit> in the <arc> of <enemy>"; the disrupted add a note.
            units = [r.source.split(" in the ")[0].split(" (disrupted")[0] for r in ranks]
            arcs = [r.source.split(" in the ")[1] for r in ranks]
            assert len(units) == len(set(units))
            assert len(arcs) == len(set(arcs))
            assert all(0 <= r.value <= cap for r in ranks)
