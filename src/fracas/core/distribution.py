"""Exact discrete distributions and the generic enumerator of chance-node processes.

Probabilities are :class:`~fractions.Fraction` inside; floats only when asked for.

>>> from fracas.core.dice import D6
>>> two_d6 = Distribution.of_node(D6) + Distribution.of_node(D6)
>>> two_d6.probability(7)
Fraction(1, 6)
>>> enumerate_outcomes(lambda dice: dice.roll(D6) >= 5).probability(True)
Fraction(1, 3)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Mapping
from fractions import Fraction
from math import comb
from typing import Any, Generic, TypeVar

from fracas.core.dice import D6, ChanceNode, Dice, DiceGroup, die
from fracas.core.errors import FracasError

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)


class Distribution(Generic[T]):
    """An immutable finite distribution: outcome → exact probability (summing to 1)."""

    __slots__ = ("_p",)

    def __init__(self, weights: Mapping[T, int | Fraction]) -> None:
        total = sum(weights.values(), Fraction(0))
        if total <= 0:
            raise ValueError("a distribution needs positive total weight")
        self._p: dict[T, Fraction] = {
            outcome: Fraction(weight) / total for outcome, weight in weights.items() if weight
        }

    @classmethod
    def certain(cls, outcome: T) -> Distribution[T]:
        """The distribution that always gives ``outcome``."""
        return cls({outcome: 1})

    @staticmethod
    def of_node(node: ChanceNode) -> Distribution[int]:
        """The faces of a chance node with their probabilities."""
        weights: dict[int, int] = {}
        for face, weight in node.outcomes:
            weights[face] = weights.get(face, 0) + weight
        return Distribution(weights)

    @staticmethod
    def binomial(n: int, p: Fraction) -> Distribution[int]:
        """Number of successes in ``n`` independent trials of probability ``p``.

        >>> Distribution.binomial(2, Fraction(1, 2)).probability(1)
        Fraction(1, 2)
        """
        if n < 0 or not 0 <= p <= 1:
            raise ValueError(f"binomial needs n ≥ 0 and 0 ≤ p ≤ 1, got n={n}, p={p}")
        q = 1 - p
        return Distribution({k: comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)})

    @staticmethod
    def binomial_floats(n: int, p: Fraction) -> list[float]:
        """P(k successes) for k = 0..n in floats, through logarithms.

        Ten thousand trials neither overflow nor underflow into nonsense; terms below
        1e-300 are zero.

        >>> [round(p, 12) for p in Distribution.binomial_floats(2, Fraction(1, 2))]
        [0.25, 0.5, 0.25]
        """
        if n < 0 or not 0 <= p <= 1:
            raise ValueError(f"binomial needs n ≥ 0 and 0 ≤ p ≤ 1, got n={n}, p={p}")
        if p in (0, 1):
            terms = [0.0] * (n + 1)
            terms[0 if p == 0 else n] = 1.0
            return terms
        log_p, log_q = math.log(p), math.log1p(-float(p))
        base = math.lgamma(n + 1)
        out = []
        for k in range(n + 1):
            log_term = base - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            log_term += k * log_p + (n - k) * log_q
            out.append(math.exp(log_term) if log_term > -690 else 0.0)
        return out

    def items(self) -> Iterator[tuple[T, Fraction]]:
        """Outcomes with their probabilities, in insertion order."""
        return iter(self._p.items())

    def outcomes(self) -> list[T]:
        return list(self._p)

    def __len__(self) -> int:
        return len(self._p)

    def __contains__(self, outcome: object) -> bool:
        return outcome in self._p

    def probability(self, outcome: T | Callable[[T], bool]) -> Fraction:
        """Probability of one outcome, or of every outcome a predicate accepts."""
        if callable(outcome):
            predicate = outcome
            return sum((p for o, p in self._p.items() if predicate(o)), Fraction(0))
        return self._p.get(outcome, Fraction(0))

    def map(self, function: Callable[[T], U]) -> Distribution[U]:
        """Apply ``function`` to every outcome, merging equal results."""
        merged: dict[U, Fraction] = {}
        for outcome, p in self._p.items():
            key = function(outcome)
            merged[key] = merged.get(key, Fraction(0)) + p
        return Distribution(merged)

    def mean(self) -> Fraction:
        """Expected value of a numeric distribution."""
        return sum((Fraction(o) * p for o, p in self._p.items()), Fraction(0))  # type: ignore[call-overload]

    def at_least(self, threshold: Any) -> Fraction:
        """P(outcome ≥ threshold) for an ordered distribution."""
        return sum((p for o, p in self._p.items() if o >= threshold), Fraction(0))

    def __add__(self, other: Distribution[Any]) -> Distribution[Any]:
        """Distribution of the sum of two independent numeric outcomes."""
        merged: dict[Any, Fraction] = {}
        for a, pa in self._p.items():
            for b, pb in other._p.items():
                key = a + b
                merged[key] = merged.get(key, Fraction(0)) + pa * pb
        return Distribution(merged)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return self._p == other._p

    def __hash__(self) -> int:
        return hash(frozenset(self._p.items()))

    def __repr__(self) -> str:
        body = ", ".join(f"{o!r}: {p}" for o, p in sorted(self._p.items(), key=_order_key))
        return f"Distribution({{{body}}})"

    def as_floats(self) -> dict[T, float]:
        """The same distribution with float probabilities, sorted by outcome."""
        return {o: float(p) for o, p in sorted(self._p.items(), key=_order_key)}


def _order_key(item: tuple[Any, Fraction]) -> tuple[int, Any]:
    outcome = item[0]
    if isinstance(outcome, int | float | Fraction):
        return (0, outcome)
    return (1, repr(outcome))


class EnumerationBudgetError(FracasError, OverflowError):
    """Exact enumeration would visit more paths than the caller allowed.

    ``needed`` is the work the method would take, in the budget's unit, when it can tell
    without doing it (``None`` when it stopped where the budget ran out).
    """

    def __init__(self, message: str, *, needed: float | None = None) -> None:
        super().__init__(message)
        self.needed = needed


class _PathDice:
    """Replays a fixed prefix of choices, then takes the first outcome of each new node.

    It records the node at every depth so the enumerator knows where it can branch.
    """

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.choices: list[int] = []
        self.nodes: list[ChanceNode] = []
        self.probability = Fraction(1)

    def roll(self, node: ChanceNode) -> int:
        depth = len(self.choices)
        index = self.prefix[depth] if depth < len(self.prefix) else 0
        face, weight = node.outcomes[index]
        self.choices.append(index)
        self.nodes.append(node)
        self.probability *= Fraction(weight, node.total_weight)
        return face


def enumerate_outcomes(
    process: Callable[[Dice], T], *, max_paths: int = 200_000
) -> Distribution[T]:
    """Run ``process`` once for every path through its chance nodes and merge the results.

    This is the plain, always-correct path: it costs one run per leaf, so rulesets with
    many dice provide faster exact methods and test them against this one.
    ``process`` must be deterministic given the faces it is dealt.

    >>> from fracas.core.dice import D6
    >>> enumerate_outcomes(lambda dice: dice.roll(D6) + dice.roll(D6)).probability(12)
    Fraction(1, 36)
    """
    results: dict[T, Fraction] = {}
    prefix: list[int] = []
    paths = 0
    while True:
        dice = _PathDice(prefix)
        outcome = process(dice)
        paths += 1
        if paths > max_paths:
            raise EnumerationBudgetError(
                f"exact enumeration needs more than {max_paths:,} paths; use Monte Carlo"
            )
        results[outcome] = results.get(outcome, Fraction(0)) + dice.probability
        # Advance to the next path: bump the deepest choice that still has siblings.
        choices = dice.choices
        depth = len(choices) - 1
        while depth >= 0 and choices[depth] + 1 >= len(dice.nodes[depth].outcomes):
            depth -= 1
        if depth < 0:
            return Distribution(results)
        prefix = [*choices[:depth], choices[depth] + 1]


K = TypeVar("K", bound=Hashable)
D = TypeVar("D")


def check_group(group: DiceGroup[K, D], *, max_paths: int = 200_000) -> bool:
    """True when enumerating every face of ``group.roll`` gives exactly ``group.law()``."""
    detailed = enumerate_outcomes(lambda dice: group.roll(dice)[0], max_paths=max_paths)
    return detailed == Distribution(dict(group.law()))


class Successes(DiceGroup[int, tuple[int, ...]]):
    """``count`` dice of ``sides`` sides, each a success on ``target`` or more: the number
    of successes, rolled die by die for a log, with the binomial as its closed form.

    >>> from fracas.core.dice import ScriptedDice, draw
    >>> draw(ScriptedDice([6, 2, 4]), Successes(3, 4))
    (2, (6, 2, 4))
    >>> dict(Successes(2, 5).law())   # 4/9 none, 4/9 one, 1/9 both
    {0: Fraction(4, 9), 1: Fraction(4, 9), 2: Fraction(1, 9)}
    >>> check_group(Successes(3, 4))
    True
    """

    __slots__ = ("count", "node", "target")

    def __init__(self, count: int, target: int, sides: int = 6) -> None:
        self.count, self.target = count, target
        self.node = D6 if sides == 6 else die(sides)
        self.label = f"{count} × {self.node.label}, {target}+"

    def roll(self, dice: Dice) -> tuple[int, tuple[int, ...]]:
        faces = tuple(dice.roll(self.node) for _ in range(self.count))
        return sum(face >= self.target for face in faces), faces

    @property
    def chance(self) -> Fraction:
        """One die's chance of a success."""
        sides = len(self.node.outcomes)
        return Fraction(max(0, min(sides, sides + 1 - self.target)), sides)

    def law(self) -> tuple[tuple[int, Fraction], ...]:
        return tuple(Distribution.binomial(self.count, self.chance).items())

    def float_law(self) -> tuple[tuple[int, float], ...]:
        # Thousands of dice: the fractions would take seconds, the logarithms do not.
        return tuple(enumerate(Distribution.binomial_floats(self.count, self.chance)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Successes) and (self.count, self.target, self.node) == (
            other.count,
            other.target,
            other.node,
        )

    def __hash__(self) -> int:
        return hash((Successes, self.count, self.target, self.node))
