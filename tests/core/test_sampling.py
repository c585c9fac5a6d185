"""The fast seeded dice of sampling show the faces of the plain seeded dice, in order."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fracas.core.dice import D100, ChanceNode, SeededDice, die
from fracas.core.errors import FracasError
from fracas.core.sampling import SamplingDice

nodes = st.one_of(
    st.integers(1, 300).map(die),
    st.lists(st.integers(1, 9), min_size=1, max_size=12).map(
        lambda weights: ChanceNode(
            "weighted", tuple((face * 3, w) for face, w in enumerate(weights))
        )
    ),
    st.just(ChanceNode("huge", ((1, 1), (2, 2**40)))),
)


@given(st.integers(0, 2**64), st.lists(nodes, min_size=1, max_size=40))
def test_sampling_dice_show_the_faces_of_seeded_dice(seed: int, rolls: list[ChanceNode]) -> None:
    fast, plain = SamplingDice(seed), SeededDice(seed)
    assert [fast.roll(node) for node in rolls] == [plain.roll(node) for node in rolls]
    assert fast.used == len(rolls)


@given(
    st.integers(0, 2**64),
    st.lists(st.tuples(nodes, st.booleans()), min_size=1, max_size=300),
)
def test_rollers_and_rolls_share_the_faces_of_seeded_dice(
    seed: int, rolls: list[tuple[ChanceNode, bool]]
) -> None:
    # A play asks for a roller of the dice it rolls often and rolls the others one by one;
    # together they must still read the seeded dice's faces in order, past the first block
    # of random words (300 rolls of a 300-sided die need more than one).
    fast, plain = SamplingDice(seed), SeededDice(seed)
    rollers: dict[ChanceNode, Callable[[], int]] = {}
    faces = []
    for node, use_roller in rolls:
        if use_roller:
            faces.append(rollers.setdefault(node, fast.roller(node))())
        else:
            faces.append(fast.roll(node))
    assert faces == [plain.roll(node) for node, _ in rolls]
    assert fast.used == len(rolls)


@given(
    st.integers(0, 2**64),
    st.lists(st.tuples(nodes, st.sampled_from(["draws", "roller", "roll"])), max_size=300),
)
def test_dice_read_by_byte_share_the_faces_of_seeded_dice(
    seed: int, rolls: list[tuple[ChanceNode, str]]
) -> None:
    # A play that asks for draws first reads the words by their top byte; its d100s drawn
    # inline, its other small dice through rollers and rolls, and dice too large for a byte
    # (a 300-sided die, a weighted one) must all still read the seeded dice's words in order.
    fast, plain = SamplingDice(seed), SeededDice(seed)
    source = fast.draws(D100)
    assert source is not None
    draw, table = source
    rollers: dict[ChanceNode, Callable[[], int]] = {}
    faces, inline = [], 0
    for node, how in rolls:
        if how == "draws":
            face = table[draw()]
            while not face:
                face = table[draw()]
            faces.append(face)
            inline += 1
            node = D100
        elif how == "roller":
            faces.append(rollers.setdefault(node, fast.roller(node))())
        else:
            faces.append(fast.roll(node))
    expected = [plain.roll(D100 if how == "draws" else node) for node, how in rolls]
    assert faces == expected
    assert fast.used + inline == len(rolls)


@given(st.integers(0, 2**32), st.integers(0, 2**32), st.lists(st.booleans(), max_size=600))
def test_dice_lent_one_generator_keep_their_own_sequences(
    first: int, second: int, turns: list[bool]
) -> None:
    # Two plays' dice reseed the same lent generator; each must go on reading its own seed's
    # words after its first block, whoever reseeded the generator in between.
    lent = random.Random()
    dice = [SamplingDice(first, rng=lent), SamplingDice(second, rng=lent)]
    plain = [SeededDice(first), SeededDice(second)]
    d100 = D100
    for turn in turns:
        assert dice[turn].roll(d100) == plain[turn].roll(d100)


def test_sampling_dice_stop_after_their_limit() -> None:
    dice = SamplingDice(1, limit=2)
    dice.roll(die(6))
    dice.roll(die(6))
    with pytest.raises(FracasError, match="more than 2 dice rolls"):
        dice.roll(die(6))
