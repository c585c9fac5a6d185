"""Open-ended rolls are chance nodes: the core can enumerate them exactly."""

from __future__ import annotations

from fractions import Fraction

from fracas.core.dice import SeededDice
from fracas.core.distribution import enumerate_outcomes
from fracas.rulesets.d100 import open_ended


def test_open_ended_distribution_is_exact_with_one_reroll() -> None:
    exact = enumerate_outcomes(lambda dice: sum(open_ended(dice, from_face=96, limit=1)))
    # Faces 1–95 stand alone (1/100 each); 96–100 each add a second d100 (1/100 × 1/100).
    assert exact.probability(50) == Fraction(1, 100)
    assert exact.probability(96) == 0  # a 96 always rolls again
    assert exact.probability(97) == Fraction(1, 100 * 100)  # 96 + 1 only
    assert exact.probability(200) == Fraction(1, 100 * 100)  # 100 + 100 only
    # Mean: 50.5 for the first die, plus 5/100 × 50.5 for the second = 53.025.
    assert exact.mean() == Fraction(505, 10) + Fraction(5, 100) * Fraction(505, 10)


def test_seeded_rolls_agree_with_the_exact_mean() -> None:
    dice = SeededDice(2024)
    runs = 20_000
    total = sum(sum(open_ended(dice, from_face=96, limit=1)) for _ in range(runs))
    # Standard deviation of one roll is about 33, so the mean of 20,000 is within ±1.5
    # of 53.025 far beyond 4 standard errors (4 × 33 / √20000 ≈ 0.93).
    assert abs(total / runs - 53.025) < 1.5
