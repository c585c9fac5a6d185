"""The rank-and-flank exact solver against icepool, against itself, and against play."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.analysis import odds
from fracas.analysis.exact_rankflank import (
    RoundQuestion,
    binomial_pmf,
    move_distribution,
    pass_chance,
    round_and_break,
)
from fracas.io.scenario import parse_scenario
from fracas.rulesets.rankflank.samples import LINE_AGAINST_LINE
from fracas.rulesets.rankflank.strikes import StrikeRecord, unsaved_wound_chance

targets = st.integers(2, 6)
optional = st.one_of(st.none(), targets)


def record(
    attacks: int, to_hit: int, to_wound: int | None, armour: int | None, ward: int | None
) -> StrikeRecord:
    return StrikeRecord(
        round=1, initiative=3, side="a", attacker_unit="u", striker="u", target_unit="v",
        target_character=None, attacks=attacks, weapon_skill=3, target_weapon_skill=3,
        strength=3, toughness=3, to_hit=to_hit, to_wound=to_wound, armour=armour, ward=ward,
    )  # fmt: skip


def icepool_unsaved(to_hit: int, to_wound: int | None, armour: int | None, ward: int | None) -> Any:
    """One blow as icepool sees it: hit, wound, fail the armour save, fail the ward save."""
    d6 = icepool.d6
    wound = d6 >= to_wound if to_wound is not None else icepool.Die([False])
    failed_armour = d6 < armour if armour is not None else icepool.Die([True])
    failed_ward = d6 < ward if ward is not None else icepool.Die([True])
    return (d6 >= to_hit) * wound * failed_armour * failed_ward


@settings(max_examples=60)
@given(st.integers(0, 40), targets, optional, optional, optional)
def test_wound_distribution_equals_icepool(
    attacks: int, to_hit: int, to_wound: int | None, armour: int | None, ward: int | None
) -> None:
    blows = record(attacks, to_hit, to_wound, armour, ward)
    chance = unsaved_wound_chance(blows)
    oracle = attacks @ icepool_unsaved(to_hit, to_wound, armour, ward)
    exact = binomial_pmf(attacks, chance, fractions=True)
    floats = binomial_pmf(attacks, chance, fractions=False)
    for wounds in range(attacks + 1):
        expected = oracle.probability(wounds)
        assert exact[wounds] == expected
        assert floats[wounds] == pytest.approx(float(expected), abs=1e-12)


def test_wound_distribution_of_ten_thousand_blows_stays_finite() -> None:
    pmf = binomial_pmf(10_000, Fraction(1, 6), fractions=False)
    assert sum(pmf) == pytest.approx(1.0, abs=1e-9)
    assert max(pmf) == pytest.approx(0.01068, abs=1e-4)  # ≈ 1 / √(2π · 10000 · 1/6 · 5/6)


def test_two_d6_tests_worked_by_hand() -> None:
    # Totals ≤ 7: 1+2+3+4+5+6 = 21 of 36; a double 1 passes even below 2.
    assert pass_chance(7) == Fraction(21, 36)
    assert pass_chance(1) == Fraction(1, 36)
    assert pass_chance(12) == 1
    # 2D6 shows 7 in 6 ways; 3D6 keeping the two highest shows 12 in 16 ways (1 + 3·5).
    assert move_distribution(False)[7] == Fraction(6, 36)
    assert move_distribution(True)[12] == Fraction(16, 216)


def bernoulli(chance: Fraction) -> Any:
    """A die showing 1 with ``chance`` (icepool weighs outcomes by integers)."""
    return icepool.Die({1: chance.numerator, 0: chance.denominator - chance.numerator})


def icepool_round_and_break(question: RoundQuestion) -> tuple[Any, Any, Any]:
    """The same question in icepool: P(first wins), P(draw) and P(second breaks)."""
    first = question.attacks[0] @ bernoulli(question.chance[0])
    second = question.attacks[1] @ bernoulli(question.chance[1])
    difference = first + question.bonus[0] - second - question.bonus[1]
    leadership = question.leadership[1]

    def breaks(gap: int, a: int, b: int) -> bool:
        return gap > 0 and not ((a, b) == (1, 1) or a + b <= leadership - gap)

    broken = icepool.map(breaks, difference, icepool.d6, icepool.d6)
    return difference.probability(">", 0), difference.probability(0), broken.probability(True)


@settings(max_examples=25)
@given(
    st.tuples(st.integers(0, 12), st.integers(0, 12)),
    st.tuples(
        st.sampled_from([Fraction(1, 6), Fraction(5, 24), Fraction(1, 3)]), st.just(Fraction(1, 4))
    ),
    st.tuples(st.integers(0, 5), st.integers(0, 5)),
    st.tuples(st.integers(5, 10), st.integers(5, 10)),
)
def test_round_and_break_equals_icepool(
    attacks: tuple[int, int],
    chance: tuple[Fraction, Fraction],
    bonus: tuple[int, int],
    leadership: tuple[int, int],
) -> None:
    question = RoundQuestion(attacks, chance, bonus, leadership)
    answer = round_and_break(question)
    wins, draw, breaks = icepool_round_and_break(question)
    assert answer.first_wins == pytest.approx(float(wins), abs=1e-12)
    assert answer.draw == pytest.approx(float(draw), abs=1e-12)
    assert answer.breaks[1] == pytest.approx(float(breaks), abs=1e-12)
    assert sum(answer.difference.values()) == pytest.approx(1.0, abs=1e-12)


def test_state_solver_equals_the_vectorised_round_on_a_plain_line_fight() -> None:
    # One rank each (no rank bonus), eighth edition (no outnumber bonus, no charge
    # initiative): only the charge +1 is a bonus, and both sides strike together.
    # Spears: 4+ to hit, 4+ to wound, the orcs' 6+ fails 5/6: 1/2 · 1/2 · 5/6 = 5/24.
    # Orcs: 4+, 4+, the spears' 5+ fails 4/6: 1/2 · 1/2 · 2/3 = 1/6.
    scenario = parse_scenario(LINE_AGAINST_LINE)
    result = odds(scenario)
    assert result.solver == "rank-and-flank state solver"
    answer = round_and_break(
        RoundQuestion((25, 20), (Fraction(5, 24), Fraction(1, 6)), (1, 0), (7, 7))
    )
    assert float(result.probability("winner", "Empire")) == pytest.approx(
        answer.first_wins, abs=1e-9
    )
    assert float(result.probability("winner", "draw")) == pytest.approx(answer.draw, abs=1e-9)
    assert float(result.probability("breaks.Orcs", True)) == pytest.approx(
        answer.breaks[1], abs=1e-9
    )
    assert float(result.probability("breaks.Spears", True)) == pytest.approx(
        answer.breaks[0], abs=1e-9
    )


def test_state_solver_in_fractions_equals_floats() -> None:
    scenario = parse_scenario(
        LINE_AGAINST_LINE.replace("25, files: 25", "6, files: 6").replace(
            "20, files: 20", "5, files: 5"
        )
    )
    floats = odds(scenario)
    fractions = odds(scenario, exact_fractions=True)
    for metric in fractions.metrics:
        assert sum(e.probability for e in metric.values) == 1
        for entry in metric.values:
            assert isinstance(entry.probability, Fraction)
            assert floats.probability(metric.name, entry.value) == pytest.approx(
                float(entry.probability), abs=1e-12
            )


def test_state_solver_equals_enumeration_of_every_path() -> None:
    # One model against one, both Unbreakable so that no break test or pursuit multiplies
    # the paths: small enough to roll every die one path at a time.
    from fracas.analysis.odds import exact_outcomes
    from fracas.core.distribution import enumerate_outcomes

    text = LINE_AGAINST_LINE.replace("25, files: 25", "1, files: 1")
    text = text.replace("20, files: 20", "1, files: 1").replace(
        "charged: true", "rules: [unbreakable]"
    )
    text = text.replace("armour: 6}", "armour: 6, rules: [unbreakable]}")
    scenario = parse_scenario(text)
    ruleset, model = scenario.ruleset, scenario.model
    fast, _ = exact_outcomes(ruleset, model, fractions=True)
    plain = enumerate_outcomes(
        lambda dice: tuple(ruleset.summarize(model, ruleset.play(model, dice)).items()),
        max_paths=200_000,
    )
    assert dict(fast.outcomes) == dict(plain.items())


def test_five_rounds_of_a_big_fight_fall_back_to_sampling() -> None:
    path = Path(__file__).resolve().parents[2] / "examples" / "rankflank" / "frontal_charge.yaml"
    scenario = parse_scenario(path.read_text(encoding="utf-8"), source=str(path))
    result = odds(scenario, exact_budget=50_000, runs=200)
    assert result.method == "monte-carlo"
    assert "merged-state steps" in result.fallback


@settings(max_examples=15)
@given(
    st.integers(1, 8),
    st.integers(1, 8),
    st.integers(1, 4),
    st.integers(1, 3),
    st.integers(2, 6),
    st.integers(2, 6),
    st.sampled_from(["ninth", "eighth"]),
    st.booleans(),
)
def test_state_solver_probabilities_sum_to_one(
    models_a: int,
    models_b: int,
    files: int,
    attacks: int,
    strength: int,
    armour: int,
    edition: str,
    restrain: bool,
) -> None:
    files_a, files_b = min(files, models_a), min(files, models_b)
    text = f"""\
fracas: 1
ruleset: rankflank
parameters: {{edition: {edition}, max_rounds: 2}}
units:
  - {{name: A, side: x, models: {models_a}, files: {files_a}, charged: true,
     profile: "4 3 3 {strength} 3 1 3 {attacks} 7", armour: {armour}}}
  - {{name: B, side: y, models: {models_b}, files: {files_b}, restrain: {str(restrain).lower()},
     profile: "4 4 3 3 4 1 4 1 8"}}
engagements:
  - {{unit: A, enemy: B, arc: front}}
"""
    scenario = parse_scenario(text)
    result = odds(scenario, exact_budget=5_000_000)
    assert result.method == "exact"
    for metric in result.metrics:
        assert sum(float(e.probability) for e in metric.values) == pytest.approx(1.0, abs=1e-9)
    # Only a unit that broke can be caught.
    for unit in ("A", "B"):
        caught = float(result.probability(f"caught.{unit}", True))
        assert caught <= float(result.probability(f"breaks.{unit}", True)) + 1e-9


def test_who_wins_the_combat_is_who_makes_the_other_side_break() -> None:
    # One round of the line fight: the combat is decided for Empire exactly when the Orcs
    # break (being wiped out by 25 blows at 5/24 is below 1e-13), for the Greenskins when
    # the Spears break, and is otherwise still undecided after the one round played.
    result = odds(parse_scenario(LINE_AGAINST_LINE))
    answer = round_and_break(
        RoundQuestion((25, 20), (Fraction(5, 24), Fraction(1, 6)), (1, 0), (7, 7))
    )
    decided = {entry.value: float(entry.probability) for entry in result.metric("decided").values}
    assert decided["Empire"] == pytest.approx(answer.breaks[1], abs=1e-9)
    assert decided["Greenskins"] == pytest.approx(answer.breaks[0], abs=1e-9)
    assert decided["undecided"] == pytest.approx(1 - sum(answer.breaks), abs=1e-9)
