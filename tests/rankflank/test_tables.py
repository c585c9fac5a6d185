"""The dice tables, checked for every pair of characteristics against the rule's own words."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas.rulesets.rankflank.tables import (
    armour_save_target,
    d6_success,
    passes,
    to_hit_target,
    to_wound_target,
)

RANGE = range(1, 11)


@pytest.mark.parametrize("attacker", RANGE)
@pytest.mark.parametrize("target", RANGE)
def test_to_hit_every_weapon_skill_pair(attacker: int, target: int) -> None:
    # Rule: 3+ against a lower WS; 5+ when the target's WS is more than double; else 4+.
    # Written as a sum of the two adjustments (they can never both apply).
    expected = 4 - (1 if attacker > target else 0) + (1 if target > attacker * 2 else 0)
    assert to_hit_target(attacker, target) == expected


@pytest.mark.parametrize("strength", RANGE)
@pytest.mark.parametrize("toughness", RANGE)
def test_to_wound_every_strength_toughness_pair(strength: int, toughness: int) -> None:
    # Rule as a lookup by the gap S - T: ≥+2 → 2+, +1 → 3+, 0 → 4+, -1 → 5+, -2/-3 → 6+,
    # ≤-4 → impossible. Here: clamp 4 - gap into 2..6, except a gap of -4 or worse.
    gap = strength - toughness
    expected = None if gap <= -4 else min(6, max(2, 4 - gap))
    assert to_wound_target(strength, toughness) == expected


# A save gets one point worse for every point of Strength above 3.
SAVE_PENALTY = {1: 0, 2: 0, 3: 0, 4: 1, 5: 2, 6: 3, 7: 4, 8: 5, 9: 6, 10: 7}


@pytest.mark.parametrize("armour", [None, 1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("strength", RANGE)
def test_armour_save_every_strength(armour: int | None, strength: int) -> None:
    if armour is None:
        expected = None
    else:
        worsened = armour + SAVE_PENALTY[strength]
        expected = worsened if worsened <= 6 else None
    assert armour_save_target(armour, strength) == expected


def test_armour_save_hand_worked_examples() -> None:
    # 4+ save against S5: 4 + (5 - 3) = 6+; against S6: 4 + 3 = 7 → no save.
    assert armour_save_target(4, 5) == 6
    assert armour_save_target(4, 6) is None
    # 1+ against S3 stays 1+ (the 1 still fails, see passes()).
    assert armour_save_target(1, 3) == 1


@pytest.mark.parametrize("target", [None, 1, 2, 3, 4, 5, 6])
def test_d6_success_counts_faces(target: int | None) -> None:
    # Count the faces 1..6 that succeed, by hand: a 1 never does.
    winning = [face for face in range(1, 7) if target is not None and face >= target and face > 1]
    assert d6_success(target) == Fraction(len(winning), 6)
    assert [passes(face, target) for face in range(1, 7)] == [
        face in winning for face in range(1, 7)
    ]


def test_natural_one_always_fails() -> None:
    # Even a printed 1+ save is failed on a roll of 1.
    assert not passes(1, 1)
    assert passes(2, 1)
