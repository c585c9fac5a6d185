"""Modifier records and breakdowns: every number fracas shows is explained by its rows.

A :class:`Breakdown` is a base value followed by :class:`Modifier` rows applied in order.
Its total is *computed* from the rows, so a report that prints the rows and the total can
never disagree with itself.

>>> atk = (Breakdown.start("Effective Atk", "Strength", 100, source="1st Infantry")
...        .times("Attack", 1.2, source="printed")
...        .times("Lv", "1.05", source="level 5")
...        .plus("Support", 30, source="2nd Infantry"))
>>> atk.total
Fraction(156, 1)
>>> [str(row.running) for row in atk.steps()]
['100', '120', '126', '156']
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

Number = int | float | str | Fraction


def to_fraction(value: Number) -> Fraction:
    """Convert a number to an exact fraction, reading floats by their shortest decimal form.

    ``0.1`` becomes exactly 1/10, not the binary float nearest to it.

    >>> to_fraction(0.1), to_fraction("1.25"), to_fraction(3)
    (Fraction(1, 10), Fraction(5, 4), Fraction(3, 1))
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, float):
        return Fraction(repr(value))
    if isinstance(value, int):
        # Most rows add a small whole number; a Fraction is immutable, so one will do.
        small = _SMALL_FRACTIONS.get(value)
        if small is not None:
            return small
    return Fraction(value)


_SMALL_FRACTIONS = {number: Fraction(number) for number in range(-100, 101)}


class Op(enum.Enum):
    """How a modifier row acts on the running value."""

    BASE = "="
    MUL = "×"
    ADD = "+"

    def apply(self, running: Fraction, value: Fraction) -> Fraction:
        if self is Op.BASE:
            return value
        if self is Op.MUL:
            return running * value
        return running + value


@dataclass(frozen=True, slots=True)
class Modifier:
    """One row of a breakdown.

    ``label`` is the row's name in the report ("Lv", "Terrain"), ``source`` what produced
    it (a unit, a hex, a status), ``rule`` the rule that allows it (a seed paragraph or a
    parameter name).
    """

    label: str
    op: Op
    value: Fraction
    source: str = ""
    rule: str = ""


@dataclass(frozen=True, slots=True)
class Step:
    """A modifier together with the running value right after it."""

    modifier: Modifier
    running: Fraction


@dataclass(frozen=True, slots=True)
class Breakdown:
    """An ordered, immutable list of modifier rows; ``total`` folds them left to right."""

    label: str
    rows: tuple[Modifier, ...]

    @classmethod
    def start(
        cls, label: str, row: str, value: Number, *, source: str = "", rule: str = ""
    ) -> Breakdown:
        """Begin a breakdown named ``label`` whose first row ``row`` sets the base value."""
        return cls(label, (Modifier(row, Op.BASE, to_fraction(value), source, rule),))

    def then(self, modifier: Modifier) -> Breakdown:
        """Return a new breakdown with ``modifier`` appended."""
        return Breakdown(self.label, (*self.rows, modifier))

    def times(self, row: str, value: Number, *, source: str = "", rule: str = "") -> Breakdown:
        """Append a multiplying row."""
        return self.then(Modifier(row, Op.MUL, to_fraction(value), source, rule))

    def plus(self, row: str, value: Number, *, source: str = "", rule: str = "") -> Breakdown:
        """Append an adding row (use a negative value for a penalty)."""
        return self.then(Modifier(row, Op.ADD, to_fraction(value), source, rule))

    def steps(self) -> Iterator[Step]:
        """Yield every row with the running value after it."""
        running = Fraction(0)
        for row in self.rows:
            running = row.op.apply(running, row.value)
            yield Step(row, running)

    @property
    def total(self) -> Fraction:
        """The value of the breakdown: every row applied in order."""
        # Whole numbers are added as ints (exact, and many times cheaper than Fractions):
        # most breakdowns are sums of whole bonuses.
        running: int | Fraction = 0
        for row in self.rows:
            value: int | Fraction = row.value
            if value.denominator == 1:
                value = value.numerator
            op = row.op
            if op is Op.ADD:
                running = running + value
            elif op is Op.MUL:
                running = running * value
            else:
                running = value
        return Fraction(running)

    def __int__(self) -> int:
        total = self.total
        if total.denominator != 1:
            raise ValueError(f"{self.label} is not a whole number: {total}")
        return total.numerator
