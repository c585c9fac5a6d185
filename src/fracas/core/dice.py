"""Chance nodes and the dice that decide them.

Every random event in a ruleset is a :class:`ChanceNode`: a finite list of outcomes with
integer weights. A ruleset never draws a random number itself; it asks an injected
:class:`Dice` to decide a node. The same ruleset code therefore runs

* seeded play (:class:`SeededDice`),
* scripted tests that fix every face (:class:`ScriptedDice`), and
* exact enumeration of every path (:func:`fracas.core.distribution.enumerate_outcomes`).

>>> dice = ScriptedDice([6, 1])
>>> dice.roll(D6), dice.roll(D6)
(6, 1)
>>> SeededDice(7).roll(D100) == SeededDice(7).roll(D100)
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Protocol

from fracas.core.errors import DiceExhaustedError
from fracas.core.limits import spend


@dataclass(frozen=True, slots=True)
class ChanceNode:
    """A random event: ``outcomes`` pairs each face with a positive integer weight."""

    label: str
    outcomes: tuple[tuple[int, int], ...]
    total_weight: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if not self.outcomes or any(weight <= 0 for _, weight in self.outcomes):
            raise ValueError(f"chance node {self.label!r} needs outcomes with positive weights")
        object.__setattr__(self, "total_weight", sum(weight for _, weight in self.outcomes))

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
        pick = self._rng.randrange(node.total_weight)
        for face, weight in node.outcomes:
            if pick < weight:
                return face
            pick -= weight
        raise AssertionError("unreachable: pick is below the total weight")

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
