"""The dice tables of close combat: to hit, to wound, saves. Each returns the D6 target.

A target of ``None`` means the roll cannot succeed. A natural 1 always fails, so no
target is ever below 2 except an armour save printed as 1+ (which the 1 still fails).

>>> to_hit_target(4, 3), to_hit_target(3, 3), to_hit_target(3, 7)
(3, 4, 5)
>>> to_wound_target(5, 3), to_wound_target(3, 7)
(2, None)
>>> armour_save_target(4, 5), armour_save_target(5, 5)
(6, None)

The oldworld preset's tables differ at the edges: a WS more than twice the target's hits
on 2+, a 6 wounds down to five points of Strength below Toughness, and armour is worsened
by the weapon's Armour Piercing instead of its Strength:

>>> to_hit_target(7, 3, table="oldworld"), to_wound_target(3, 7, table="oldworld")
(2, 6)
>>> armour_ap_target(4, 2), armour_ap_target(5, 2)
(6, None)
"""

from __future__ import annotations

from fractions import Fraction


def to_hit_target(attacker_ws: int, target_ws: int, table: str = "classic") -> int:
    """D6 needed to hit: 3+ if the attacker's WS is higher, 5+ if the target's is more
    than double, 4+ otherwise; the ``oldworld`` table adds 2+ when the attacker's WS is
    more than double the target's."""
    if table == "oldworld" and attacker_ws > 2 * target_ws:
        return 2
    if attacker_ws > target_ws:
        return 3
    if target_ws > 2 * attacker_ws:
        return 5
    return 4


def to_wound_target(strength: int, toughness: int, table: str = "classic") -> int | None:
    """D6 needed to wound; ``None`` when Strength is 4 or more below Toughness (the
    ``oldworld`` table: 6 or more below)."""
    gap = strength - toughness
    if gap >= 2:
        return 2
    if gap <= (-6 if table == "oldworld" else -4):
        return None
    return {1: 3, 0: 4, -1: 5}.get(gap, 6)


def armour_save_target(armour: int | None, strength: int) -> int | None:
    """D6 needed to save: the printed save worsened by 1 per point of Strength above 3."""
    return armour_ap_target(armour, max(0, strength - 3))


def armour_ap_target(armour: int | None, armour_piercing: int) -> int | None:
    """D6 needed to save: the armour value worsened by ``armour_piercing`` points of AP."""
    if armour is None:
        return None
    needed = armour + armour_piercing
    return needed if needed <= 6 else None


def d6_success(target: int | None) -> Fraction:
    """Chance that one D6 meets ``target`` (a natural 1 always fails).

    >>> d6_success(4), d6_success(1), d6_success(None)
    (Fraction(1, 2), Fraction(5, 6), Fraction(0, 1))
    """
    return Fraction(sum(1 for face in range(1, 7) if passes(face, target)), 6)


def passes(face: int, target: int | None) -> bool:
    """True when a D6 ``face`` meets ``target``; a natural 1 always fails."""
    return target is not None and face != 1 and face >= target
