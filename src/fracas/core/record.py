"""Recorders: where a rule states its explained numbers, once, for every interpreter.

A rule builds each number it explains through the recorder it was handed: ``start`` a
breakdown, then ``plus`` and ``times`` rows, and ``note`` each event a report shows. Seeded
play hands over a :class:`KeepingRecorder`, whose breakdowns are full
:class:`~fracas.core.modifiers.Breakdown` rows and whose notes are kept for the report;
exact odds and sampling hand over a :class:`SummingRecorder`, whose breakdowns are bare
:class:`Sum` totals and whose notes are dropped. The rule is the same code either way, so
the total a report explains is, by construction, the total the odds count.

>>> def combat_score(record: Recorder, wounds: int, ranks: int) -> int:
...     score = record.start("Combat result", "Start", 0).plus("Wounds", wounds)
...     score = score.plus("Ranks", ranks, source="Halberdiers")
...     record.note(("scored", int(score.total)))
...     return int(score.total)
>>> keeping, summing = KeepingRecorder(), SummingRecorder()
>>> combat_score(keeping, 4, 3), combat_score(summing, 4, 3)
(7, 7)
>>> keeping.notes, summing.notes
([('scored', 7)], ())
>>> [row.label for row in keeping.start("x", "Start", 0).plus("Wounds", 4).rows]
['Start', 'Wounds']
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar, Protocol

from fracas.core.modifiers import Breakdown, Modifier, Number, Op, to_fraction


class Explained(Protocol):
    """What a rule may do with a number it explains: a :class:`Breakdown` or a :class:`Sum`."""

    @property
    def label(self) -> str: ...

    @property
    def total(self) -> Fraction: ...

    @property
    def rows(self) -> tuple[Modifier, ...]: ...

    def plus(self, row: str, value: Number, *, source: str = "", rule: str = "") -> Explained: ...

    def times(self, row: str, value: Number, *, source: str = "", rule: str = "") -> Explained: ...

    def then(self, modifier: Modifier) -> Explained: ...

    def __int__(self) -> int: ...


class Sum:
    """A breakdown's total without its rows: what odds need of an explained number.

    It folds the rows as :attr:`Breakdown.total` does, so the two totals are equal.

    >>> Sum.start("Effective Atk", "Strength", 100).times("Attack", "1.2").plus("Support", 30).total
    Fraction(150, 1)
    """

    __slots__ = ("label", "value")
    rows: ClassVar[tuple[Modifier, ...]] = ()

    def __init__(self, label: str, value: int | Fraction) -> None:
        # Kept as an int while every row is whole (most are): exact, and many times
        # cheaper than Fraction arithmetic, as Breakdown.total does it.
        self.label, self.value = label, value

    @classmethod
    def start(cls, label: str, row: str, value: Number, *, source: str = "", rule: str = "") -> Sum:
        """A total named ``label`` whose base is ``value``."""
        return cls(label, _exact(value))

    @property
    def total(self) -> Fraction:
        """The total of every row applied in order."""
        return Fraction(self.value)

    def plus(self, row: str, value: Number, *, source: str = "", rule: str = "") -> Sum:
        """Add ``value`` (negative for a penalty)."""
        return Sum(self.label, self.value + _exact(value))

    def times(self, row: str, value: Number, *, source: str = "", rule: str = "") -> Sum:
        """Multiply by ``value``."""
        return Sum(self.label, self.value * _exact(value))

    def then(self, modifier: Modifier) -> Sum:
        """Apply one modifier row."""
        return Sum(self.label, modifier.op.apply(Fraction(self.value), modifier.value))

    def __int__(self) -> int:
        total = self.total
        if total.denominator != 1:
            raise ValueError(f"{self.label} is not a whole number: {total}")
        return total.numerator

    def __repr__(self) -> str:
        return f"Sum({self.label!r}, {self.value!r})"


def _exact(value: Number) -> int | Fraction:
    """``value`` exactly: an int stays an int, anything else becomes a fraction."""
    return value if isinstance(value, int) else to_fraction(value)


class Recorder:
    """The interface a rule records through (see the module's docstring)."""

    #: True when rows and notes are kept for a report.
    keeps: ClassVar[bool]

    def start(
        self, label: str, row: str, value: Number, *, source: str = "", rule: str = ""
    ) -> Explained:
        """Begin an explained number named ``label`` whose first row ``row`` is ``value``."""
        raise NotImplementedError

    def note(self, event: object) -> None:
        """State one event of the play for the report."""
        raise NotImplementedError


class KeepingRecorder(Recorder):
    """Keeps every row and every note: seeded play's recorder, for the report."""

    keeps: ClassVar[bool] = True

    def __init__(self) -> None:
        self.notes: list[object] = []

    def start(
        self, label: str, row: str, value: Number, *, source: str = "", rule: str = ""
    ) -> Breakdown:
        """A full :class:`~fracas.core.modifiers.Breakdown`."""
        return Breakdown(label, (Modifier(row, Op.BASE, to_fraction(value), source, rule),))

    def note(self, event: object) -> None:
        """Keep ``event`` for the report."""
        self.notes.append(event)


class SummingRecorder(Recorder):
    """Keeps only the totals: the recorder of exact odds and sampling."""

    keeps: ClassVar[bool] = False
    #: Always empty: a summing recorder drops every note.
    notes: ClassVar[tuple[object, ...]] = ()

    def start(
        self, label: str, row: str, value: Number, *, source: str = "", rule: str = ""
    ) -> Sum:
        """A bare :class:`Sum`."""
        return Sum(label, _exact(value))

    def note(self, event: object) -> None:
        """Drop ``event``: nothing reports it."""


#: The one summing recorder everything may share: it holds nothing.
SUMMING = SummingRecorder()
