"""Oracle tests: the record's closed-form chance against rolling every path of its dice."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.core.distribution import Distribution, enumerate_outcomes
from fracas.rulesets.rankflank.blows import Blow
from fracas.rulesets.rankflank.breaktest import break_test_target, passes_break_test, roll_dice
from fracas.rulesets.rankflank.result import _best_assignment
from fracas.rulesets.rankflank.strikes import StrikeRecord, roll_strike, unsaved_wound_chance


def record(
    attacks: int, to_hit: int, to_wound: int | None, armour: int | None, ward: int | None
) -> StrikeRecord:
    return StrikeRecord(
        round=1,
        initiative=3,
        side="a",
        attacker_unit="u",
        striker="u",
        target_unit="v",
        target_character=None,
        attacks=attacks,
        weapon_skill=3,
        target_weapon_skill=3,
        strength=3,
        toughness=3,
        blow=Blow(to_hit=to_hit, to_wound=to_wound, armour=armour, ward=ward),
    )


@settings(max_examples=40)
@given(
    attacks=st.integers(0, 1),
    to_hit=st.integers(3, 5),
    to_wound=st.none() | st.integers(2, 6),
    armour=st.none() | st.integers(1, 6),
    ward=st.none() | st.integers(2, 6),
)
def test_unsaved_wounds_are_binomial(
    attacks: int, to_hit: int, to_wound: int | None, armour: int | None, ward: int | None
) -> None:
    strike = record(attacks, to_hit, to_wound, armour, ward)
    rolled = enumerate_outcomes(lambda dice: roll_strike(strike, dice).faces.unsaved)
    assert rolled == Distribution.binomial(attacks, unsaved_wound_chance(strike))


def test_two_attacks_are_binomial() -> None:
    strike = record(2, 4, 3, 5, None)
    rolled = enumerate_outcomes(lambda dice: roll_strike(strike, dice).faces.unsaved)
    assert rolled == Distribution.binomial(2, unsaved_wound_chance(strike))


def test_one_attack_by_hand() -> None:
    # 3+ to hit (4/6), 4+ to wound (3/6), 5+ armour fails 4/6, 6+ ward fails 5/6:
    # 4/6 × 3/6 × 4/6 × 5/6 = 240/1296 = 5/27.
    assert unsaved_wound_chance(record(1, 3, 4, 5, 6)) == Fraction(5, 27)


@pytest.mark.parametrize("target", range(-3, 14))
def test_break_test_pass_chance_by_counting(target: int) -> None:
    rolled = enumerate_outcomes(
        lambda dice: passes_break_test(roll_dice(dice, 2), target=target)
    ).probability(True)
    # Count the 36 pairs by hand: total ≤ target, or the double 1.
    pairs = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    passing = sum(1 for a, b in pairs if a + b <= target or a == b == 1)
    assert rolled == Fraction(passing, 36)


def test_break_test_target() -> None:
    # Ld 8 lost by 3 → 5; Steadfast keeps 8.
    assert break_test_target(leadership=8, difference=3, steady=False) == 8 - 3
    assert break_test_target(leadership=8, difference=3, steady=True) == 8


def brute_force_best(groups: list[list[str]], bonus: dict[str, int]) -> int:
    """The highest total over every way of giving each arc one unit (or none), each unit once."""
    best = 0
    for choice in product(*[[None, *members] for members in groups]):
        placed = [name for name in choice if name is not None]
        if len(placed) == len(set(placed)):
            best = max(best, sum(bonus[name] for name in placed))
    return best


@settings(max_examples=300)
@given(
    st.dictionaries(st.sampled_from("ABCDE"), st.integers(0, 3), min_size=1),
    st.data(),
)
def test_rank_placement_is_the_best_of_every_placement(
    bonus: dict[str, int], data: st.DataObject
) -> None:
    names = sorted(bonus)
    groups = data.draw(
        st.lists(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True), max_size=4)
    )
    chosen = _best_assignment(groups, bonus)
    pairs = list(zip(chosen, groups, strict=True))
    placed = [name for name in chosen if name is not None]
    assert len(placed) == len(set(placed))
    assert all(name is None or name in members for name, members in pairs)
    assert sum(bonus[name] for name in placed) == brute_force_best(groups, bonus)
    # An arc is left empty only when each of its units counts elsewhere.
    assert all(name is not None or set(members) <= set(placed) for name, members in pairs)
