"""The dice of a group of blows, written once: rolled die by die, with their exact law.

A blow goes through to hit (with its re-roll) → poisoned check on the natural to-hit face
→ to wound (re-roll) → killing blow or armour bane check on the natural to-wound face →
armour save (re-roll; worse after an armour bane six) → ward or regeneration (re-roll) →
multiple wounds. :class:`Blows` is the one definition of a group of such blows on one
target, as a :class:`~fracas.core.dice.DiceGroup`: :meth:`Blows.roll` rolls every die,
stage by stage as players do (seeded play shows each face), and :meth:`Blows.law` is the
closed form of the wounds they remove (exact odds branch on it, sampling draws from it).
:func:`~fracas.core.dice.check_group` proves the two agree.

The law is built from :func:`blow_law`, what one blow does: 0 (nothing), ``n`` wounds, or
:data:`SLAY` (a killing blow). N such blows are laid on the target one after the other,
as play removes them: each blow's wounds fall on the model in front of the pool, and what
a model cannot take is lost (a multiple-wounds blow never spills onto the next model).

>>> from fractions import Fraction
>>> from fracas.core.dice import ScriptedDice
>>> from fracas.core.distribution import check_group
>>> blow = Blow(to_hit=4, to_wound=4, armour=None, ward=None)
>>> dict(blow_law(blow))[1]
Fraction(1, 4)
>>> two = Blows(blow, attacks=2, left=5)
>>> dict(two.law())[2]
Fraction(1, 16)
>>> two.roll(ScriptedDice([6, 2, 5]))[0], check_group(two)
(1, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, TypeVar

from fracas.core.dice import D6, Dice, DiceGroup, die
from fracas.core.distribution import Distribution
from fracas.rulesets.rankflank.specials import amount_law
from fracas.rulesets.rankflank.tables import armour_ap_target, passes

#: A killing blow: the model it strikes is slain whatever its wounds.
SLAY = -1

_SIXTH = Fraction(1, 6)


@dataclass(frozen=True, slots=True)
class Blow:
    """Every D6 target and rule one blow's dice need.

    ``to_hit`` ``None``: the blow hits without a roll (impact hits, stomp). ``to_wound``
    ``None``: it cannot wound. ``armour`` / ``ward`` ``None``: no such save. A re-roll is
    ``"failed"`` or ``"ones"``. ``multiple`` is N, ``"D3"`` or ``"D6"`` wounds per unsaved
    wound. ``armour_bane`` X: a natural 6 to wound worsens that blow's armour save by X.
    """

    to_hit: int | None
    to_wound: int | None
    armour: int | None
    ward: int | None
    hit_reroll: str | None = None
    wound_reroll: str | None = None
    armour_reroll: str | None = None
    ward_reroll: str | None = None
    poisoned: bool = False
    killing_blow: bool = False
    multiple: str | None = None
    armour_bane: int = 0

    def bane_armour(self) -> int | None:
        """The armour save against a blow whose to-wound die was an armour bane six.

        >>> Blow(4, 4, armour=5, ward=None, armour_bane=1).bane_armour()
        6
        >>> Blow(4, 4, armour=6, ward=None, armour_bane=1).bane_armour() is None
        True
        """
        return armour_ap_target(self.armour, self.armour_bane)


def rerolled(face: int, target: int | None, reroll: str | None) -> bool:
    """Whether ``face`` is re-rolled: a failed die, or a natural 1, under ``reroll``.

    A roll that cannot succeed is not re-rolled (nothing to gain).
    """
    if reroll is None or target is None:
        return False
    if reroll == "ones":
        return face == 1
    return not passes(face, target)


# Rolling die by die -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rolled:
    """Every face one group of blows rolled, in the order play rolled them.

    ``*_faces`` are the first dice of each stage, ``*_rerolls`` the faces of the dice
    rolled again; ``count_faces`` the dice that set a random number of automatic hits;
    ``multiple_faces`` the D3 / D6 of multiple wounds; ``slain`` the unsaved killing blows.
    """

    count_faces: tuple[int, ...]
    hit_faces: tuple[int, ...]
    hit_rerolls: tuple[int, ...]
    wound_faces: tuple[int, ...]
    wound_rerolls: tuple[int, ...]
    armour_faces: tuple[int, ...]
    armour_rerolls: tuple[int, ...]
    ward_faces: tuple[int, ...]
    ward_rerolls: tuple[int, ...]
    multiple_faces: tuple[int, ...]
    hits: int
    wounds: int
    slain: int
    #: What each blow did, in the order of its to-hit die (0, wounds, or SLAY).
    values: tuple[int, ...]

    @property
    def unsaved(self) -> int:
        """Blows that got through every save."""
        return sum(1 for value in self.values if value)


def _roll_stage(
    dice: Dice,
    count: int,
    target: int | None,
    reroll: str | None,
    targets: Sequence[int | None] = (),
) -> tuple[list[int], tuple[int, ...], tuple[int, ...]]:
    """Roll ``count`` dice, then re-roll the ones ``reroll`` allows: final faces and both
    lists. ``targets``, when given, is each die's own target (an armour bane six's)."""
    first = tuple(dice.roll(D6) for _ in range(count))
    final = list(first)
    again: list[int] = []
    for index, face in enumerate(first):
        if rerolled(face, targets[index] if targets else target, reroll):
            final[index] = dice.roll(D6)
            again.append(final[index])
    return final, first, tuple(again)


def roll_count(dice: Dice, amount: str | None, models: int) -> tuple[int, tuple[int, ...]]:
    """Blows of a group: ``models`` attacks, or each model's N / D3 / D6 automatic hits."""
    if amount is None:
        return models, ()
    if amount in ("D3", "D6"):
        faces = tuple(dice.roll(die(3 if amount == "D3" else 6)) for _ in range(models))
        return sum(faces), faces
    return int(amount) * models, ()


def roll_blows(blow: Blow, blows: int, dice: Dice, count_faces: tuple[int, ...] = ()) -> Rolled:
    """Roll ``blows`` blows stage by stage, every die of a stage together, as players do."""
    if blow.to_hit is None:
        hit_final: list[int] = []
        hit_first: tuple[int, ...] = ()
        hit_again: tuple[int, ...] = ()
        poisoned = [False] * blows
        hit_index = list(range(blows))
    else:
        hit_final, hit_first, hit_again = _roll_stage(dice, blows, blow.to_hit, blow.hit_reroll)
        poisoned = [blow.poisoned and face == 6 and passes(6, blow.to_hit) for face in hit_final]
        hit_index = [i for i, face in enumerate(hit_final) if passes(face, blow.to_hit)]
    to_wound = [i for i in hit_index if not poisoned[i]]
    wound_final, wound_first, wound_again = (
        _roll_stage(dice, len(to_wound), blow.to_wound, blow.wound_reroll)
        if blow.to_wound is not None
        else ([], (), ())
    )
    slain: set[int] = set()
    wounded: list[int] = []
    baned: set[int] = set()
    # A blow that cannot wound rolls no to-wound die: only its poisoned sixes go on.
    for i, face in zip(to_wound if blow.to_wound is not None else [], wound_final, strict=True):
        if blow.killing_blow and face == 6 and passes(6, blow.to_wound):
            slain.add(i)
        elif passes(face, blow.to_wound):
            wounded.append(i)
            if blow.armour_bane and face == 6:
                baned.add(i)
    wounded = sorted(wounded + [i for i in hit_index if poisoned[i]])
    # Only a save that can succeed is rolled: an armour bane six may leave none.
    bane_armour = blow.bane_armour()
    saving = [i for i in wounded if (bane_armour if i in baned else blow.armour) is not None]
    targets = [bane_armour if i in baned else blow.armour for i in saving]
    armour_final, armour_first, armour_again = _roll_stage(
        dice, len(saving), blow.armour, blow.armour_reroll, targets
    )
    saved = {i for k, i in enumerate(saving) if passes(armour_final[k], targets[k])}
    through = sorted([i for i in wounded if i not in saved] + list(slain))
    ward_final, ward_first, ward_again = (
        _roll_stage(dice, len(through), blow.ward, blow.ward_reroll)
        if blow.ward is not None
        else ([], (), ())
    )
    unsaved = [
        i
        for k, i in enumerate(through)
        if blow.ward is None or not passes(ward_final[k], blow.ward)
    ]
    values = [0] * blows
    multiple_faces: list[int] = []
    for i in unsaved:
        if i in slain:
            values[i] = SLAY
        elif blow.multiple in ("D3", "D6"):
            face = dice.roll(die(3 if blow.multiple == "D3" else 6))
            multiple_faces.append(face)
            values[i] = face
        else:
            values[i] = int(blow.multiple or "1")
    return Rolled(
        count_faces=count_faces,
        hit_faces=hit_first,
        hit_rerolls=hit_again,
        wound_faces=wound_first,
        wound_rerolls=wound_again,
        armour_faces=armour_first,
        armour_rerolls=armour_again,
        ward_faces=ward_first,
        ward_rerolls=ward_again,
        multiple_faces=tuple(multiple_faces),
        hits=len(hit_index),
        wounds=len(wounded) + len(slain),
        slain=sum(1 for i in unsaved if i in slain),
        values=tuple(values),
    )


def take(removed: int, value: int, *, left: int, model_wounds: int, duel: bool) -> int:
    """Wounds removed after one more blow of ``value``, ``removed`` already gone.

    Outside a challenge a blow's wounds fall on the front model of the pool and what it
    cannot take is lost; a killing blow takes all it has. In a challenge every wound counts
    (overkill), and a killing blow counts the wounds the rival had left, at least 1.

    >>> take(0, 3, left=4, model_wounds=2, duel=False)   # 2 models of W2: one slain, 1 lost
    2
    >>> take(1, SLAY, left=6, model_wounds=3, duel=False)   # the front model had 2 left
    3
    """
    if duel:
        return removed + (max(1, left - removed) if value == SLAY else value)
    pool = left - removed
    if pool <= 0:
        return removed
    front = (pool - 1) % model_wounds + 1
    return removed + (front if value == SLAY else min(value, front))


def removed_by(values: tuple[int, ...], *, left: int, model_wounds: int, duel: bool) -> int:
    """Wounds that ``values`` remove, blow after blow (:func:`take`)."""
    removed = 0
    for value in values:
        if value:
            removed = take(removed, value, left=left, model_wounds=model_wounds, duel=duel)
    return removed


# The closed form ----------------------------------------------------------------------


@cache
def face_law(target: int | None, reroll: str | None) -> tuple[Fraction, ...]:
    """Chance of each final natural face 1..6 after the re-roll (index 0 is face 1).

    >>> face_law(4, "failed")[5]   # a 6 at once (1/6), or a miss re-rolled into a 6
    Fraction(1, 4)
    """
    law = [Fraction(0)] * 6
    for face in range(1, 7):
        if rerolled(face, target, reroll):
            for again in range(6):
                law[again] += _SIXTH * _SIXTH
        else:
            law[face - 1] += _SIXTH
    return tuple(law)


def _success(target: int | None, reroll: str | None) -> Fraction:
    law = face_law(target, reroll)
    return sum((law[f - 1] for f in range(1, 7) if passes(f, target)), Fraction(0))


@cache
def blow_law(blow: Blow) -> tuple[tuple[int, Fraction], ...]:
    """What one blow does: each value (0, wounds, :data:`SLAY`) with its exact chance."""
    if blow.to_hit is None:
        hit, poison_six = Fraction(1), Fraction(0)
    else:
        hit_faces = face_law(blow.to_hit, blow.hit_reroll)
        poison_six = hit_faces[5] if blow.poisoned and passes(6, blow.to_hit) else Fraction(0)
        hit = _success(blow.to_hit, blow.hit_reroll) - poison_six
    wound_faces = face_law(blow.to_wound, blow.wound_reroll)
    six = wound_faces[5] if passes(6, blow.to_wound) else Fraction(0)
    slay_face = six if blow.killing_blow else Fraction(0)
    bane_face = six if blow.armour_bane and not blow.killing_blow else Fraction(0)
    wound = _success(blow.to_wound, blow.wound_reroll) - slay_face - bane_face
    unsaved_armour = 1 - _success(blow.armour, blow.armour_reroll)
    unsaved_bane = 1 - _success(blow.bane_armour(), blow.armour_reroll)
    unsaved_ward = 1 - _success(blow.ward, blow.ward_reroll)
    wounded = (
        (hit * wound + poison_six) * unsaved_armour + hit * bane_face * unsaved_bane
    ) * unsaved_ward
    slain = hit * slay_face * unsaved_ward
    law: dict[int, Fraction] = {}
    if slain:
        law[SLAY] = slain
    for value, weight in amount_law(blow.multiple or "1"):
        if wounded:
            law[value] = law.get(value, Fraction(0)) + wounded * Fraction(weight, 6)
    law[0] = 1 - slain - wounded
    return tuple(sorted((v, p) for v, p in law.items() if p))


def unsaved_chance(blow: Blow) -> Fraction:
    """Chance that one blow gets through every save (a wound or more, or a killing blow).

    >>> unsaved_chance(Blow(to_hit=4, to_wound=4, armour=5, ward=None))  # 1/2 × 1/2 × 2/3
    Fraction(1, 6)
    """
    return sum((p for value, p in blow_law(blow) if value), Fraction(0))


@cache
def count_law(amount: str | None, models: int) -> tuple[tuple[int, Fraction], ...]:
    """The law of :func:`roll_count`'s number of blows.

    >>> count_law("D3", 2)[0]
    (2, Fraction(1, 9))
    """
    if amount is None:
        return ((models, Fraction(1)),)
    if amount not in ("D3", "D6"):
        return ((int(amount) * models, Fraction(1)),)
    sides = 3 if amount == "D3" else 6
    law: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(models):
        following: dict[int, Fraction] = {}
        for total, p in law.items():
            for face in range(1, sides + 1):
                following[total + face] = following.get(total + face, Fraction(0)) + p / sides
        law = following
    return tuple(sorted(law.items()))


N = TypeVar("N", Fraction, float)


def _chain(
    law: tuple[tuple[int, N], ...], blows: int, left: int, model_wounds: int, duel: bool
) -> dict[int, N]:
    states: dict[int, N] = {0: law[0][1] * 0 + 1}
    for _ in range(blows):
        following: dict[int, N] = {}
        for removed, chance in states.items():
            for value, p in law:
                key = (
                    removed
                    if value == 0
                    else take(removed, value, left=left, model_wounds=model_wounds, duel=duel)
                )
                following[key] = following.get(key, chance * 0) + chance * p
        states = following
    return states


def _simple(law: tuple[tuple[int, Fraction], ...], model_wounds: int, duel: bool) -> bool:
    """True when every blow removes 0 or 1 wound: a binomial, capped by the wounds left."""
    values = {v for v, _ in law} - {0}
    if not values:
        return True
    if duel:
        return values == {1}
    return model_wounds == 1 or values == {1}


def _binomial(blows: int, p: Fraction, floats: bool) -> Iterable[tuple[int, Any]]:
    if floats:
        return enumerate(Distribution.binomial_floats(blows, p))
    return Distribution.binomial(blows, p).items()


@cache
def _blows_law(
    blow: Blow,
    count: tuple[tuple[int, Fraction], ...],
    left: int,
    model_wounds: int,
    duel: bool,
    floats: bool,
) -> tuple[tuple[int, Any], ...]:
    law = blow_law(blow)
    simple = _simple(law, model_wounds, duel)
    # Fractions, or floats for exact odds in floats: the same arithmetic on either.
    one: tuple[tuple[int, Any], ...] = tuple((v, float(p)) for v, p in law) if floats else law
    total: dict[int, Any] = {}
    for blows, weight in count:
        scale: Any = float(weight) if floats else weight
        terms: Iterable[tuple[int, Any]]
        if simple:
            # Each blow through removes one wound while any is left: a binomial.
            p = sum((q for v, q in law if v), Fraction(0))
            terms = ((k if duel else min(k, left), q) for k, q in _binomial(blows, p, floats))
        else:
            terms = _chain(one, blows, left, model_wounds, duel).items()
        for key, q in terms:
            total[key] = total.get(key, 0) + scale * q
    if floats:
        return tuple(sorted(total.items()))
    return tuple(sorted((k, q) for k, q in total.items() if q))


def blows_law(
    blow: Blow,
    *,
    count: tuple[tuple[int, Fraction], ...],
    left: int,
    model_wounds: int,
    duel: bool,
) -> tuple[tuple[int, Fraction], ...]:
    """Wounds removed by a random number of identical blows (``count``: blows → chance).

    Outside a challenge the result never exceeds ``left``; in a challenge it counts every
    wound scored.

    >>> blow = Blow(to_hit=4, to_wound=4, armour=None, ward=None)
    >>> dict(blows_law(blow, count=((2, Fraction(1)),), left=5, model_wounds=1, duel=False))[2]
    Fraction(1, 16)
    """
    law: tuple[tuple[int, Fraction], ...] = _blows_law(blow, count, left, model_wounds, duel, False)
    return law


@dataclass(frozen=True, slots=True)
class Blows(DiceGroup[int, Rolled]):
    """One group of blows on one target: the number it yields is the wounds removed.

    ``attacks`` blows (or, with ``auto_hits`` N / D3 / D6, that many automatic hits per
    model of ``attacks`` models) land on a target of ``left`` wounds whose models have
    ``model_wounds`` each. In a challenge (``duel``) every wound counts, overkill included;
    otherwise no more than ``left`` can be removed.

    >>> blows = Blows(Blow(to_hit=4, to_wound=4, armour=None, ward=None), attacks=2, left=1)
    >>> blows.law()   # nothing (3/4 each blow, 9/16), or the one wound left (7/16)
    ((0, Fraction(9, 16)), (1, Fraction(7, 16)))
    """

    blow: Blow
    attacks: int
    left: int
    model_wounds: int = 1
    auto_hits: str | None = None
    duel: bool = False
    label = "blows"

    @classmethod
    def on(
        cls,
        blow: Blow,
        attacks: int,
        *,
        left: int,
        model_wounds: int = 1,
        auto_hits: str | None = None,
        duel: bool = False,
    ) -> Blows:
        """The group, its ``left`` reduced to what the blows could ever tell apart.

        Outside a challenge no blow removes more than one model's wounds, so beyond the
        most the blows can remove only the wounds of the front model matter (``left``
        modulo ``model_wounds``): groups on larger targets share one law. In a challenge
        every wound counts, and ``left`` matters only to a killing blow.

        >>> blow = Blow(to_hit=4, to_wound=4, armour=None, ward=None)
        >>> Blows.on(blow, 2, left=20).left, Blows.on(blow, 2, left=7, model_wounds=2).left
        (2, 5)
        """
        if duel:
            # In a challenge only a killing blow asks what the rival has left.
            left = left if blow.killing_blow else 1
        else:
            most = max(n for n, _ in count_law(auto_hits, attacks)) * model_wounds
            if left > most:
                left -= (left - most) // model_wounds * model_wounds
        return cls(blow, attacks, left, model_wounds, auto_hits, duel)

    def roll(self, dice: Dice) -> tuple[int, Rolled]:
        """Every die, stage by stage, and the wounds the blows removed, one after the other."""
        blows, count_faces = roll_count(dice, self.auto_hits, self.attacks)
        rolled = roll_blows(self.blow, blows, dice, count_faces)
        removed = removed_by(
            rolled.values, left=self.left, model_wounds=self.model_wounds, duel=self.duel
        )
        return removed, rolled

    def _law(self, floats: bool) -> tuple[tuple[int, Any], ...]:
        count = count_law(self.auto_hits, self.attacks)
        return _blows_law(self.blow, count, self.left, self.model_wounds, self.duel, floats)

    def law(self) -> tuple[tuple[int, Fraction], ...]:
        law: tuple[tuple[int, Fraction], ...] = self._law(False)
        return law

    def float_law(self) -> tuple[tuple[int, float], ...]:
        law: tuple[tuple[int, float], ...] = self._law(True)
        return law
