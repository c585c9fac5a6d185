"""Numbers for people and for JSON, safe for any size a scenario can produce.

The core formatters go through ``float``; a defence of 1e-300 makes a ratio too large
for one, so these fall back to scientific notation computed with :mod:`decimal`.

>>> from fractions import Fraction
>>> fmt(Fraction(5, 4)), fmt(Fraction(10) ** 400)
('1.25', '1.000e+400')
>>> number(Fraction(1, 3)), number(Fraction(10) ** 400 / 3)
(0.333333, '3.333e+399')
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

from fracas.core.report import fmt as plain_fmt
from fracas.core.report import json_number


def scientific(value: Fraction | int) -> str:
    """``value`` as ``d.ddde±N``, exact up to the last digit shown."""
    value = Fraction(value)
    with localcontext() as context:
        context.prec = 6
        return f"{Decimal(value.numerator) / Decimal(value.denominator):.3e}"


def fmt(value: Fraction | int, places: int = 2) -> str:
    """The core ``fmt``, or :func:`scientific` from 10^15 up (and beyond the range of floats)."""
    if abs(Fraction(value)) >= 10**15:
        return scientific(value)
    try:
        return plain_fmt(value, places)
    except OverflowError:
        return scientific(value)


def number(value: Fraction | int) -> int | float | str:
    """A JSON number (exact integers stay integers); beyond floats, a string like "1.000e+400"."""
    try:
        return json_number(value)
    except OverflowError:
        return scientific(value)
