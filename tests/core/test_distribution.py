from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fracas.core.dice import D6, ChanceNode, Dice
from fracas.core.distribution import Distribution, EnumerationBudgetError, enumerate_outcomes


def test_two_d6_by_convolution_and_by_enumeration_agree() -> None:
    # P(7) = 6 ways of 36 = 1/6; P(2) = 1/36
    by_sum = Distribution.of_node(D6) + Distribution.of_node(D6)
    by_paths = enumerate_outcomes(lambda dice: dice.roll(D6) + dice.roll(D6))
    assert by_sum == by_paths
    assert by_sum.probability(7) == Fraction(1, 6)
    assert by_sum.probability(2) == Fraction(1, 36)


@given(n=st.integers(min_value=0, max_value=6), target=st.integers(min_value=1, max_value=6))
def test_binomial_matches_the_plain_enumeration(n: int, target: int) -> None:
    p = Fraction(7 - target, 6)  # a d6 roll of `target`+

    def hits(dice: Dice) -> int:
        return sum(dice.roll(D6) >= target for _ in range(n))

    assert Distribution.binomial(n, p) == enumerate_outcomes(hits)


def test_binomial_by_hand() -> None:
    # 3 dice hitting on 4+ (p = 1/2): P(2 hits) = C(3,2)/8 = 3/8
    assert Distribution.binomial(3, Fraction(1, 2)).probability(2) == Fraction(3, 8)


def test_probabilities_sum_to_one_and_mean() -> None:
    d = Distribution({1: 1, 2: 2, 3: 1})
    assert sum(p for _, p in d.items()) == 1
    # mean = (1 + 4 + 3) / 4 = 2
    assert d.mean() == 2
    assert d.at_least(2) == Fraction(3, 4)
    assert d.probability(lambda x: x != 2) == Fraction(1, 2)
    assert d.map(lambda x: x % 2).probability(1) == Fraction(1, 2)


def test_paths_stop_early_when_a_process_rolls_less() -> None:
    # Roll a d6; only on a 6 roll again. P(total 12) = 1/36, P(total 3) = 1/6.
    def explode_once(dice: Dice) -> int:
        first = dice.roll(D6)
        return first + dice.roll(D6) if first == 6 else first

    d = enumerate_outcomes(explode_once)
    assert d.probability(12) == Fraction(1, 36)
    assert d.probability(3) == Fraction(1, 6)
    assert sum(p for _, p in d.items()) == 1


def test_weighted_nodes_and_budget() -> None:
    coin = ChanceNode("biased", ((0, 1), (1, 3)))
    assert enumerate_outcomes(lambda dice: dice.roll(coin)).probability(1) == Fraction(3, 4)
    with pytest.raises(EnumerationBudgetError, match="more than 10 paths"):
        enumerate_outcomes(lambda dice: dice.roll(D6) + dice.roll(D6), max_paths=10)


def test_equality_is_a_bool() -> None:
    assert (Distribution.certain(1) == Distribution.certain(1)) is True
    assert (Distribution.certain(1) == Distribution.certain(2)) is False
