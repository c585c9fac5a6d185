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

import math
import random
from abc import ABC, abstractmethod
from array import array
from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, partial
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


#: The die whose rolls are the digits (base 4,096) of the uniform number a dice group is
#: drawn with.
_UNIFORM_SIDES = 4_096
UNIFORM = die(_UNIFORM_SIDES)
#: Stands, in a :class:`LawTable`, for a first digit that leaves the key open.
OPEN = object()


class LawTable:
    """A group's keys and their cumulative probabilities, for :class:`LawDice`.

    A uniform number is read digit by digit (base 4,096) until the interval the digits
    leave lies within one key's share. ``first`` settles most draws at the first digit:
    ``keys[first[d]]`` is the key every number starting with digit ``d`` falls on, or,
    at index ``len(keys)``, a mark that more digits are needed. The bounds are worked
    out in integers from the same floats the digit-by-digit loop compares, so both give
    the same key for the same digits.

    >>> table = LawTable((0, 1), (0.25, 1.0))
    >>> table.keys[table.first[1]], table.keys[table.first[1024]], table.keys[table.first[1025]]
    (0, 0, 1)
    """

    __slots__ = ("cumulative", "first", "keys")

    def __init__(self, keys: tuple[Hashable, ...], cumulative: tuple[float, ...]) -> None:
        self.cumulative = cumulative
        last = len(keys) - 1
        #: The keys, then the mark that the first digit settled none.
        self.keys: tuple[Hashable, ...] = (*keys, OPEN)
        # Digit d covers [(d - 1) / 4096, d / 4096); both ends and every cumulative sum
        # times 4096 are exact in floats. Key j takes the digits whose interval starts at
        # or after the sum before j and ends at or before its own sum (the last key: every
        # digit from its start, for sums rounded a hair below 1).
        first = array("H" if last < 0xFFFF else "L", [last + 1]) * (_UNIFORM_SIDES + 1)
        for index in range(last + 1):
            start = 1 if index == 0 else math.ceil(cumulative[index - 1] * _UNIFORM_SIDES) + 1
            end = (
                _UNIFORM_SIDES
                if index == last
                else min(math.floor(cumulative[index] * _UNIFORM_SIDES), _UNIFORM_SIDES)
            )
            if start <= end:
                first[start : end + 1] = array(first.typecode, [index]) * (end + 1 - start)
        self.first: array[int] | None = first if last else None

    def after(self, digit: int, roll: Callable[[], int]) -> Hashable:
        """The key of a number whose first digit ``digit`` left it open: more digits."""
        keys, cumulative = self.keys, self.cumulative
        last = len(keys) - 2
        width = 1.0 / _UNIFORM_SIDES
        low = (digit - 1) * width
        while True:
            width /= _UNIFORM_SIDES
            low += (roll() - 1) * width
            index = bisect_right(cumulative, low)
            # Rounding may leave the last cumulative sum a hair below 1: the last key then.
            if index >= last or cumulative[index] >= low + width or width < 1e-15:
                return keys[min(index, last)]


def uniform_digits(dice: Dice) -> Callable[[], int]:
    """A function rolling the next digit (1 to 4,096) of a uniform number with ``dice``.

    >>> digit = uniform_digits(SeededDice(2))
    >>> digit() == SeededDice(2).roll(die(4_096))
    True
    """
    # Dice that offer a roller for a die rolled again and again (sampling dice do) give
    # the same faces through it, faster than roll by roll.
    roller = getattr(dice, "roller", None)
    if roller is not None:
        fast: Callable[[], int] = roller(UNIFORM)
        return fast
    return partial(dice.roll, UNIFORM)


class LawDice:
    """Dice that draw each group at once from its closed form, for sampling.

    Nodes are rolled by ``inner``; a :class:`DiceGroup` is decided by a uniform number
    looked up in the group's law, instead of one roll per die: each roll of a 4,096-sided
    die gives the next digit of the number (base 4,096), and digits are rolled until the
    interval they leave lies within one key's share (a group of one key rolls none).
    Monte Carlo, which keeps no log, gets each group's number at the cost of about one
    die. The play is still a pure function of ``inner``'s seed, but not the same play as
    rolling die by die. ``tables`` may be shared between plays of one question.

    >>> class Pair(DiceGroup[int, None]):
    ...     def roll(self, dice: Dice) -> tuple[int, None]: return 0, None
    ...     def law(self) -> tuple[tuple[int, Fraction], ...]:
    ...         return ((0, Fraction(1, 4)), (1, Fraction(3, 4)))
    >>> dice = LawDice(SeededDice(5))
    >>> draws = [draw(dice, Pair())[0] for _ in range(4000)]
    >>> 0.72 < sum(draws) / 4000 < 0.78
    True
    """

    __slots__ = ("digit", "inner", "tables", "wide")

    def __init__(
        self,
        inner: Dice,
        tables: dict[Hashable, LawTable] | None = None,
        *,
        digit: Callable[[], int] | None = None,
    ) -> None:
        self.inner = inner
        self.tables = {} if tables is None else tables
        #: Groups whose law is too wide to combine: rolled die by die.
        self.wide: set[Hashable] = set()
        #: Rolls the next digit of a uniform number: ``uniform_digits(inner)``, or the
        #: one given (it rolls with ``inner``).
        self.digit = uniform_digits(inner) if digit is None else digit

    def roll(self, node: ChanceNode) -> int:
        return self.inner.roll(node)

    def draw_group(self, group: DiceGroup[Hashable, object]) -> Hashable:
        table = self.table_or_none(group)
        if table is None:
            key: Hashable = group.roll(self)[0]
            return key
        return self.pick(table)

    def table_or_none(self, group: DiceGroup[Hashable, object]) -> LawTable | None:
        """:meth:`table`, or ``None`` for a group whose law is too wide to combine (its
        ``float_law`` raises an ``OverflowError``): such a group is rolled die by die."""
        if group in self.wide:
            return None
        try:
            return self.table(group)
        except OverflowError:
            self.wide.add(group)
            return None

    def table(self, group: DiceGroup[Hashable, object]) -> LawTable:
        """The keys of ``group`` and their cumulative probabilities, computed once."""
        table = self.tables.get(group)
        if table is None:
            law = [(key, p) for key, p in group.float_law() if p]
            table = LawTable(tuple(key for key, _ in law), tuple(accumulate(p for _, p in law)))
            self.tables[group] = table
        return table

    def pick(self, table: LawTable) -> Hashable:
        """One key of a :meth:`table`: digits of a uniform number until one key holds it."""
        first = table.first
        if first is None:
            return table.keys[0]
        digit = self.digit()
        key = table.keys[first[digit]]
        return table.after(digit, self.digit) if key is OPEN else key
