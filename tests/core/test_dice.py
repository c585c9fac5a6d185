from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fracas.core.dice import D6, D100, ChanceNode, ScriptedDice, SeededDice, die
from fracas.core.errors import DiceExhaustedError


@given(seed=st.integers(min_value=0, max_value=2**63))
def test_same_seed_same_faces(seed: int) -> None:
    a, b = SeededDice(seed), SeededDice(seed)
    assert [a.roll(D100) for _ in range(20)] == [b.roll(D100) for _ in range(20)]


def test_different_seeds_differ_somewhere() -> None:
    def ten_rolls(seed: int) -> tuple[int, ...]:
        dice = SeededDice(seed)
        return tuple(dice.roll(D100) for _ in range(10))

    assert len({ten_rolls(seed) for seed in range(5)}) == 5


def test_seeded_faces_follow_the_weights() -> None:
    # A node with weights 3:1 shows its first face about 75 % of the time.
    node = ChanceNode("loaded", ((1, 3), (2, 1)))
    dice = SeededDice(11)
    counts = Counter(dice.roll(node) for _ in range(8000))
    assert set(counts) == {1, 2}
    assert 0.72 < counts[1] / 8000 < 0.78


def test_scripted_dice_replay_and_run_out() -> None:
    dice = ScriptedDice([4, 2])
    assert (dice.roll(D6), dice.roll(D6)) == (4, 2)
    assert dice.remaining == 0
    with pytest.raises(DiceExhaustedError, match="ran out after 2 rolls"):
        dice.roll(D6)


def test_scripted_dice_refuse_impossible_faces() -> None:
    with pytest.raises(DiceExhaustedError, match="not a face of d6"):
        ScriptedDice([0]).roll(D6)


def test_chance_node_probabilities_are_exact() -> None:
    assert D100.probability(100) == Fraction(1, 100)
    assert ChanceNode("coin", ((0, 1), (1, 1))).probability(1) == Fraction(1, 2)
    with pytest.raises(ValueError, match="positive weights"):
        ChanceNode("broken", ((1, 0),))
    with pytest.raises(ValueError, match="at least one side"):
        die(0)
