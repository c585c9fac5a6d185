"""Open-ended percentile rolls, their law, and the record each roll leaves in the log.

A roll is one or more d100 faces (a face of ``open_ended_from`` or more is rolled again
and added) plus named bonuses. :class:`OpenEnded` is that roll as one dice group: seeded
play rolls it die by die and logs every face, exact odds and sampling use its law. The
bonuses are rows of a :class:`~fracas.core.modifiers.Breakdown` stated through the
recorder of the play, so a roll's total is the total of its rows.

>>> from fracas.core.dice import ScriptedDice
>>> open_ended(ScriptedDice([98, 97, 12]), from_face=96)
(98, 97, 12)
>>> OpenEnded(96).roll(ScriptedDice([98, 97, 12]))
(207, (98, 97, 12))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache, partial
from itertools import accumulate

from fracas.core.dice import ChanceNode, Dice, DiceGroup, die
from fracas.core.distribution import EnumerationBudgetError
from fracas.core.modifiers import Breakdown, Modifier
from fracas.core.record import Explained, Recorder
from fracas.core.report import fmt
from fracas.rulesets.d100.params import ROLL_LABELS

Probability = Fraction | float

#: Without a limit a roll may go on for ever; its law is that of a roll stopped after the
#: first number of extra dice past which less than this much probability is left (the
#: chance that every one of them rolled again). See :meth:`OpenEnded.levels`.
OPEN_END_CUT = Fraction(1, 10**12)
#: The most work (faces times totals, summed over the extra dice) the law of one roll may
#: take; a roll that rolls again on almost every face has no closed form within it.
_MOST_LAW_WORK = 2_000_000


def die_roller(dice: Dice, node: ChanceNode) -> Callable[[], int]:
    """A function rolling ``node`` with ``dice``: the dice's own fast roller if they offer
    one (Monte Carlo's do), else ``dice.roll(node)`` each time. Either way the faces are
    those ``dice.roll`` gives, in the same order."""
    roller = getattr(dice, "roller", None)
    if roller is not None:
        fast: Callable[[], int] = roller(node)
        return fast
    return partial(dice.roll, node)


#: The dice whose rollers were made last, and those rollers by die (see :func:`rolling`).
#: One tuple, replaced whole: threads playing at once each keep the pair they read.
_ROLLING: tuple[object, dict[int, tuple[ChanceNode, Callable[[], int]]]] = (None, {})


def rolling(dice: Dice, node: ChanceNode) -> Callable[[], int]:
    """:func:`die_roller`, made once for the dice of a play: a play asks for its d100s
    hundreds of times, with the same dice."""
    global _ROLLING
    held = _ROLLING
    if held[0] is not dice:
        held = _ROLLING = (dice, {})
    # By identity: hashing a die of a hundred faces costs more than rolling it. The die
    # is kept beside its roller, so that its id cannot go to another die meanwhile.
    rollers = held[1]
    known = rollers.get(id(node))
    if known is None or known[0] is not node:
        known = rollers[id(node)] = (node, die_roller(dice, node))
    return known[1]


@dataclass(frozen=True, slots=True)
class OpenEnded(DiceGroup[int, tuple[int, ...]]):
    """One open-ended roll: a die of ``sides`` faces; while the last face is ``from_face``
    or more another is rolled and added (at most ``limit`` extra dice when a limit is
    given). The key is the sum of the faces, the detail every face.

    With a limit the law is exact. Without one it is the law of the roll stopped after
    :meth:`levels` extra dice: the two differ only where every one of those dice rolled
    again, which has probability :meth:`cut`, below :data:`OPEN_END_CUT`.

    >>> OpenEnded(96, limit=1).law()[:2]
    ((1, Fraction(1, 100)), (2, Fraction(1, 100)))
    >>> OpenEnded(96).levels, OpenEnded(96).cut < OPEN_END_CUT
    (9, True)
    """

    from_face: int
    limit: int | None = None
    sides: int = 100
    label: str = field(default="open-ended roll", init=False, compare=False, repr=False)

    def roll(self, dice: Dice) -> tuple[int, tuple[int, ...]]:
        """Every face rolled, die by die, and their sum."""
        return self.rolled(rolling(dice, die(self.sides)))

    def rolled(self, roll: Callable[[], int]) -> tuple[int, tuple[int, ...]]:
        """:meth:`roll` with ``roll`` rolling each die (a group of rolls asks once)."""
        first = roll()
        if first < self.from_face:  # most rolls: one die
            return first, (first,)
        faces = [first]
        limit = self.limit
        while faces[-1] >= self.from_face and (limit is None or len(faces) <= limit):
            faces.append(roll())
        return sum(faces), tuple(faces)

    @property
    def levels(self) -> int:
        """The extra dice the law allows: the limit, or without one the fewest past which
        the chance of rolling again each time is below :data:`OPEN_END_CUT`."""
        return _levels(self.sides, self.from_face, self.limit)

    @property
    def cut(self) -> Fraction:
        """The probability the law leaves out: that the roll goes past :meth:`levels`
        extra dice (0 with a limit)."""
        if self.limit is not None:
            return Fraction(0)
        return Fraction(self.sides + 1 - self.from_face, self.sides) ** (self.levels + 1)

    def law(self) -> tuple[tuple[int, Fraction], ...]:
        weights, scale = _weights(self.sides, self.from_face, self.levels)
        return tuple((total, Fraction(w, scale)) for total, w in enumerate(weights) if w)

    def float_law(self) -> tuple[tuple[int, float], ...]:
        weights, scale = _weights(self.sides, self.from_face, self.levels)
        return tuple((total, w / scale) for total, w in enumerate(weights) if w)

    def at_least(self, total: int) -> Fraction:
        """The probability that the roll comes to ``total`` or more.

        >>> OpenEnded(96, limit=0).at_least(51)
        Fraction(1, 2)
        """
        tails, scale = _tails(self.sides, self.from_face, self.levels)
        return Fraction(tails[min(max(total, 0), len(tails) - 1)], scale)

    def beats(self, margin: int) -> Fraction:
        """The probability that this roll beats another such roll by more than ``margin``:
        ``P(X > Y + margin)`` for two independent rolls (a tie beats nothing).

        >>> OpenEnded(96, limit=0).beats(0)  # 4,950 of the 10,000 pairs of faces
        Fraction(99, 200)
        """
        return _beats(self.sides, self.from_face, self.levels, margin)


@cache
def _levels(sides: int, from_face: int, limit: int | None) -> int:
    """See :attr:`OpenEnded.levels`."""
    if limit is not None:
        return limit
    again = Fraction(sides + 1 - from_face, sides)
    if again == 1:
        raise EnumerationBudgetError(
            f"a roll that rolls again on every face ({from_face}+) has no closed form"
        )
    # again ** (levels + 1) < OPEN_END_CUT, found in floats and checked exactly.
    levels = max(0, math.ceil(math.log(OPEN_END_CUT) / math.log(again)) - 1)
    while again ** (levels + 1) >= OPEN_END_CUT:
        levels += 1
    return levels


@cache
def _weights(sides: int, from_face: int, levels: int) -> tuple[tuple[int, ...], int]:
    """The law of a roll allowed ``levels`` extra dice: for each total the number of
    sequences of ``levels + 1`` faces that give it, and their count, ``sides ** (levels + 1)``.

    A roll that stops after ``j`` dice stands for ``sides ** (levels + 1 − j)`` sequences,
    so every weight is a whole number and the law is exact.
    """
    work = sum(sides * (level * (sides - from_face) + 1) for level in range(levels + 1))
    if work > _MOST_LAW_WORK:
        raise EnumerationBudgetError(
            f"the law of an open-ended roll from {from_face} is too wide for a closed form"
        )
    weights = [0] * (sides * (levels + 1) + 1)
    going = {0: 1}  # sums of the dice rolled so far, every one of them rolling again
    for level in range(levels + 1):
        stands_for = sides ** (levels - level)
        rolling_on: dict[int, int] = {}
        for before, count in going.items():
            for face in range(1, sides + 1):
                if face < from_face or level == levels:
                    weights[before + face] += count * stands_for
                else:
                    rolling_on[before + face] = rolling_on.get(before + face, 0) + count
        going = rolling_on
    return tuple(weights), sides ** (levels + 1)


@cache
def _tails(sides: int, from_face: int, levels: int) -> tuple[tuple[int, ...], int]:
    """For each total ``t`` (and one past the highest) the weight of totals ``t`` or more."""
    weights, scale = _weights(sides, from_face, levels)
    tails = list(accumulate(reversed(weights)))[::-1]
    return (*tails, 0), scale


@lru_cache(maxsize=1 << 12)
def _beats(sides: int, from_face: int, levels: int, margin: int) -> Fraction:
    weights, scale = _weights(sides, from_face, levels)
    tails, _ = _tails(sides, from_face, levels)
    top = len(tails) - 1
    # P(X > y + margin) weighted by P(Y = y), in whole numbers over scale².
    wins = sum(w * tails[min(max(y + margin + 1, 0), top)] for y, w in enumerate(weights) if w)
    return Fraction(wins, scale * scale)


def open_ended(dice: Dice, from_face: int, limit: int | None = None) -> tuple[int, ...]:
    """Roll d100; while the last face is ``from_face`` or more, roll again (at most ``limit``
    extra dice when a limit is given). Returns every face rolled."""
    return OpenEnded(from_face, limit).roll(dice)[1]


def number(probability: Fraction, fractions: bool) -> Probability:
    """``probability`` as a fraction, or as the float nearest to it."""
    return probability if fractions else float(probability)


class Rows:
    """The named bonuses of one roll, stated through a recorder as they are found.

    ``explained`` is the recorder's breakdown of the bonuses alone (a first row of 0 for
    the dice, then one row per bonus); ``details`` holds, for each bonus row, the
    arithmetic a battle log prints beside it (``2 × 10 × 7/10``, or nothing).
    """

    __slots__ = ("_total", "details", "explained")

    def __init__(self, explained: Explained) -> None:
        self.explained = explained
        self.details: list[str] = []
        self._total: int | None = None

    def add(self, label: str, value: int, source: str = "", detail: str = "") -> None:
        """One more bonus (a penalty when ``value`` is negative)."""
        self.explained = self.explained.plus(label, value, source=source)
        self.details.append(detail)
        self._total = None

    @property
    def total(self) -> int:
        """The bonuses added up."""
        total = self._total
        if total is None:
            total = self._total = int(self.explained)
        return total


@dataclass(frozen=True, slots=True)
class Roll:
    """One roll of one unit: its faces and its breakdown (the dice, then each bonus).

    ``details`` is the arithmetic printed beside each bonus row (see :class:`Rows`).

    >>> from fracas.core.modifiers import Op
    >>> rows = (Modifier("d100", Op.BASE, Fraction(57), "57"),
    ...         Modifier("Offense", Op.ADD, Fraction(20)))
    >>> roll = Roll("attack", "Wolves", (57,), Breakdown("Attack", rows), ("2 × 10",))
    >>> roll.total, roll.describe()
    (77, 'Attack 77 = 57 (d100) + 20 (Offense 2 × 10)')
    """

    name: str
    unit: str
    faces: tuple[int, ...]
    breakdown: Breakdown
    details: tuple[str, ...]

    @classmethod
    def made(
        cls, record: Recorder, name: str, unit: str, faces: Sequence[int], bonuses: Rows
    ) -> Roll:
        """The roll of ``faces`` with ``bonuses``, its rows stated through ``record``: the
        dice first, then each bonus in order."""
        label = ROLL_LABELS.get(name, name)
        explained = record.start(label, "d100", sum(faces), source="+".join(map(str, faces)))
        for row in bonuses.explained.rows[1:]:
            explained = explained.then(row)
        breakdown = Breakdown(label, explained.rows)
        return cls(name, unit, tuple(faces), breakdown, tuple(bonuses.details))

    @property
    def total(self) -> int:
        """Every face plus every bonus."""
        return int(self.breakdown)

    @property
    def bonuses(self) -> tuple[Modifier, ...]:
        """The bonus rows, after the dice."""
        return self.breakdown.rows[1:]

    @property
    def label(self) -> str:
        """The roll's name as a battle log prints it (``Damage reduction``)."""
        return ROLL_LABELS.get(self.name, self.name)

    def describe(self) -> str:
        """One log line: ``Attack 85 = 57 (d100) + 20 (Offense 2 × 10) + 8 (Overwhelm)``."""
        breakdown = self.breakdown
        dice = "+".join(map(str, self.faces))
        parts = [f"{self.label} {fmt(breakdown.total)} = {dice} (d100)"]
        for row, detail in zip(breakdown.rows[1:], self.details, strict=True):
            sign = "−" if row.value < 0 else "+"
            name = f"{row.label} {detail}" if detail else row.label
            parts.append(f"{sign} {fmt(abs(row.value))} ({name})")
        return " ".join(parts)
