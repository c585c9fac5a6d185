"""Chance nodes and the dice that decide them.

Every random event in a ruleset is a :class:`ChanceNode`: a finite list of outcomes with
integer weights. A ruleset never draws a random number itself; it asks an injected
:class:`Dice` to decide a node. The same ruleset code therefore runs

* seeded play (:class:`SeededDice`),
* scripted tests that fix every face (:class:`ScriptedDice`), and
* exact enumeration of every path (:func:`fracas.core.distribution.enumerate_outcomes`)
  and of a ruleset's steps (:func:`fracas.analysis.exact.exact_states`).

Many dice rolled together for one number (ten blows, each hitting on a 4+) form a
:class:`DiceGroup`: play rolls it die by die and logs every face, while exact odds use its
closed form, the law of the number it yields. Both live in the same class, and
:func:`~fracas.core.distribution.check_group` proves that they agree.

>>> dice = ScriptedDice([6, 1])
>>> dice.roll(D6), dice.roll(D6)
(6, 1)
>>> SeededDice(7).roll(D100) == SeededDice(7).roll(D100)
True
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from bisect import bisect_right
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from itertools import accumulate
from typing import Generic, Protocol, TypeVar

from fracas.core.errors import DiceExhaustedError
from fracas.core.limits import spend


@dataclass(frozen=True, slots=True)
class ChanceNode:
    """A random event: ``outcomes`` pairs each face with a positive integer weight."""

    label: str
    outcomes: tuple[tuple[int, int], ...]
    total_weight: int = field(init=False, compare=False)
    cumulative: tuple[int, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.outcomes or any(weight <= 0 for _, weight in self.outcomes):
            raise ValueError(f"chance node {self.label!r} needs outcomes with positive weights")
        cumulative = tuple(accumulate(weight for _, weight in self.outcomes))
        object.__setattr__(self, "total_weight", cumulative[-1])
        object.__setattr__(self, "cumulative", cumulative)

    def face_at(self, pick: int) -> int:
        """The face that a uniform ``pick`` in ``range(total_weight)`` lands on.

        >>> die(6).face_at(0), die(6).face_at(5)
        (1, 6)
        """
        return self.outcomes[bisect_right(self.cumulative, pick)][0]

    def probability(self, face: int) -> Fraction:
        """Exact probability of ``face``.

        >>> D6.probability(3)
        Fraction(1, 6)
        """
        weight = sum(w for f, w in self.outcomes if f == face)
        return Fraction(weight, self.total_weight)

    def faces(self) -> tuple[int, ...]:
        return tuple(face for face, _ in self.outcomes)


@cache
def die(sides: int) -> ChanceNode:
    """A fair die numbered 1..``sides``.

    >>> die(6).faces()
    (1, 2, 3, 4, 5, 6)
    """
    if sides < 1:
        raise ValueError(f"a die needs at least one side, not {sides}")
    return ChanceNode(f"d{sides}", tuple((face, 1) for face in range(1, sides + 1)))


D6 = die(6)
D100 = die(100)


class Dice(Protocol):
    """Decides chance nodes. Rulesets receive one and call :meth:`roll` for every event."""

    def roll(self, node: ChanceNode) -> int:
        """Return one face of ``node``."""
        ...


class SeededDice:
    """Samples faces from a private :class:`random.Random` seeded with ``seed``.

    Two instances with the same seed produce the same faces in the same order, on every
    platform and Python version that keeps :meth:`random.Random.randrange` stable.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def roll(self, node: ChanceNode) -> int:
        spend()  # each die rolled is a step of the work budget in force (docs/limits.md)
        # One random number per roll, found by bisection: a d100 costs what a d6 costs.
        return node.face_at(self._rng.randrange(node.total_weight))

    def __repr__(self) -> str:
        return f"SeededDice({self.seed})"


class ScriptedDice:
    """A test double that returns the given faces in order.

    It refuses a face the node cannot show and complains when the script runs out, so a
    test cannot silently consume the wrong number of rolls.

    >>> ScriptedDice([7]).roll(D6)
    Traceback (most recent call last):
    ...
    fracas.core.errors.DiceExhaustedError: scripted face 7 is not a face of d6 (roll #1)
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0

    @property
    def remaining(self) -> int:
        """How many scripted faces are still unused."""
        return len(self._faces) - self._next

    def roll(self, node: ChanceNode) -> int:
        if self._next >= len(self._faces):
            raise DiceExhaustedError(
                f"scripted dice ran out after {len(self._faces)} rolls (next: {node.label})"
            )
        face = self._faces[self._next]
        self._next += 1
        if face not in node.faces():
            raise DiceExhaustedError(
                f"scripted face {face} is not a face of {node.label} (roll #{self._next})"
            )
        return face


K = TypeVar("K", bound=Hashable, covariant=True)
D = TypeVar("D", covariant=True)


class DiceGroup(ABC, Generic[K, D]):
    """Dice rolled together for one number, with that number's exact law beside them.

    :meth:`roll` rolls die by die and returns ``(key, detail)``: the number the rules go
    on with and the faces a report shows. :meth:`law` is the closed form of ``key``. Rules
    ask for a group through :func:`draw`, so seeded play logs every face while exact odds
    branch once per key instead of once per face.

    >>> class AtLeast(DiceGroup[int, tuple[int, ...]]):
    ...     label = "2 dice, 5+"
    ...     def roll(self, dice: Dice) -> tuple[int, tuple[int, ...]]:
    ...         faces = (dice.roll(D6), dice.roll(D6))
    ...         return sum(face >= 5 for face in faces), faces
    ...     def law(self) -> tuple[tuple[int, Fraction], ...]:
    ...         return ((0, Fraction(4, 9)), (1, Fraction(4, 9)), (2, Fraction(1, 9)))
    >>> draw(ScriptedDice([6, 2]), AtLeast())
    (1, (6, 2))
    >>> from fracas.core.distribution import check_group
    >>> check_group(AtLeast())
    True
    """

    label: str = "dice"

    @abstractmethod
    def roll(self, dice: Dice) -> tuple[K, D]:
        """Roll every die and return the key and the faces (for the log)."""

    @abstractmethod
    def law(self) -> tuple[tuple[K, Fraction], ...]:
        """Every key with its exact probability (they sum to 1)."""

    def float_law(self) -> tuple[tuple[K, float], ...]:
        """The law in floats, for exact odds computed in floats. Override when the
        fractions themselves would be too costly to compute (a binomial of 10,000 blows)."""
        return tuple((key, float(p)) for key, p in self.law())

    def law_pays(self) -> bool:
        """Whether sampling should draw the group from its law (one random number) rather
        than die by die. Sampling builds a state's law once for every run that reaches the
        state; override with a cheap check where the law can cost more to build than
        rolling saves (many dice whose keys seldom repeat). Exact odds always use the law.
        """
        return True


def draw(dice: Dice, group: DiceGroup[K, D]) -> tuple[K, D | None]:
    """Ask ``dice`` for a group: die by die, or one branch per key when enumerating.

    Dice that enumerate exact odds define ``draw_group``; every other dice object (seeded,
    scripted, counting wrappers) rolls the group's dice one by one.
    """
    closed = getattr(dice, "draw_group", None)
    if closed is not None:
        key: K = closed(group)
        return key, None
    return group.roll(dice)
