"""The report model: what every ruleset produces and every renderer consumes.

A :class:`Report` holds display blocks (sections of paragraphs and tables) for people and
a JSON-ready ``data`` mapping for programs. Renderers (``fracas.io.render``) are pure
functions of a report, so the same result reads the same in a terminal, a Markdown file,
a forum post or a JSON pipe.

>>> from fracas.core.modifiers import Breakdown
>>> table = breakdown_table(Breakdown.start("Atk", "Strength", 10).times("Lv", "1.5"))
>>> table.rows[-1]
('Atk', '', '', '15')
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

from fracas.core.modifiers import Breakdown, Op
from fracas.core.record import Explained


@dataclass(frozen=True, slots=True)
class Text:
    """A paragraph. ``strong`` paragraphs are headlines (a winner, a verdict)."""

    text: str
    strong: bool = False


@dataclass(frozen=True, slots=True)
class Table:
    """A table of already formatted cells. ``total_rows`` counts footer rows at the end."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str = ""
    total_rows: int = 0


Block = Text | Table


@dataclass(frozen=True, slots=True)
class Section:
    """A titled group of blocks."""

    title: str
    blocks: tuple[Block, ...] = ()
    #: A detail a forum post may fold away (``[spoiler]``, ``<details>``) under the outcome.
    fold: bool = False


@dataclass(frozen=True, slots=True)
class Report:
    """The full account of one resolution.

    ``data`` must contain only JSON types (dict, list, str, int, float, bool, None) with
    keys in a fixed, documented order; the JSON renderer writes it as it is.
    """

    ruleset: str
    title: str
    sections: tuple[Section, ...]
    data: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    version: str = ""
    scenario_hash: str = ""
    source: str = ""
    #: Changes applied on top of the scenario file (``--set path=value``), in order.
    overrides: tuple[str, ...] = ()
    #: The fair-dice record (``fracas.io.fair``): derivation, commitment, nonces, secret.
    fair: Mapping[str, Any] | None = None

    def __repr__(self) -> str:
        """Short: what, which ruleset, the first sections; the rest is in ``sections``/``data``.

        >>> Report("hex", "A river", (Section("Scenario"), Section("1. a attacks b")), seed=None)
        Report(hex, 'A river', sections: 'Scenario', '1. a attacks b')
        """
        titles = [repr(section.title) for section in self.sections[:3]]
        if len(self.sections) > 3:
            titles.append(f"… {len(self.sections) - 3} more")
        seed = "" if self.seed is None else f", seed {self.seed}"
        return f"Report({self.ruleset}, {self.title!r}{seed}, sections: {', '.join(titles)})"

    def footer(self) -> str:
        """The line that lets anyone re-run this exact resolution."""
        parts = [f"ruleset {self.ruleset}"]
        if self.seed is not None:
            parts.append(f"seed {self.seed}")
        if self.scenario_hash:
            parts.append(f"scenario sha256:{self.scenario_hash}")
        parts += [f"--set {override}" for override in self.overrides]
        parts.append(f"fracas {self.version}")
        return " · ".join(parts)

    def fair_lines(self) -> tuple[str, ...]:
        """The lines under the footer that let anyone check the dice were fair (or none).

        >>> report = Report("d100", "T", (), fair={"derivation": "fracas-fair-v1",
        ...     "commitment": "ab12", "nonces": ["owl", "7"], "secret": "cd34"})
        >>> print("\\n".join(report.fair_lines()))
        fair dice fracas-fair-v1 · commitment ab12
        nonces "owl", "7"
        secret cd34
        """
        if not self.fair:
            return ()
        nonces = ", ".join(json.dumps(nonce, ensure_ascii=False) for nonce in self.fair["nonces"])
        return (
            f"fair dice {self.fair['derivation']} · commitment {self.fair['commitment']}",
            f"nonces {nonces}",
            f"secret {self.fair['secret']}",
        )


def scientific(value: Fraction | int, digits: int = 3) -> str:
    """``value`` as ``d.ddde±N``, exact to the last digit shown, whatever its size.

    >>> scientific(Fraction(10) ** 400 / 3)
    '3.333e+399'
    """
    value = Fraction(value)
    with localcontext() as context:
        context.prec = digits + 3
        return f"{Decimal(value.numerator) / Decimal(value.denominator):.{digits}e}"


#: From this size on, numbers are shown in scientific notation.
SCIENTIFIC_FROM = 10**15


def as_written(value: Fraction | int | float) -> Fraction:
    """The exact value of a number as it is written: a float as it prints.

    >>> as_written(0.1), as_written(Fraction(1, 3))
    (Fraction(1, 10), Fraction(1, 3))
    """
    return Fraction(Decimal(repr(value))) if isinstance(value, float) else Fraction(value)


def rounded(value: Fraction | int | float, places: int) -> Decimal:
    """``value`` rounded to ``places`` decimals, half up (ties away from zero), from its
    exact value: a fraction as it is, a float as it prints (``2.175`` is 2.175, not the
    binary number just below it), so what a report shows is what a person rounding by hand
    writes.

    >>> rounded(Fraction(87, 40), 2), rounded(Fraction(39, 40), 2), rounded(-2.175, 2)
    (Decimal('2.18'), Decimal('0.98'), Decimal('-2.18'))
    >>> f"{2.175:.2f}", f"{0.975:.2f}"   # what binary floats would print instead
    ('2.17', '0.97')
    """
    exact = as_written(value)
    scaled = abs(exact) * 10**places
    whole = (scaled.numerator * 2 + scaled.denominator) // (2 * scaled.denominator)
    return Decimal(-whole if exact < 0 else whole).scaleb(-places)


def decimal_text(value: Fraction | int | float, places: int) -> str:
    """``value`` rounded half up to ``places`` decimals (:func:`rounded`), without
    trailing zeros; never ``-0``.

    >>> decimal_text(Fraction(87, 40), 2), decimal_text(Fraction(1, 2), 0), decimal_text(-0.001, 2)
    ('2.18', '1', '0')
    """
    text = f"{rounded(value, places):f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def fmt(value: Fraction | int | float, places: int = 2) -> str:
    """Format a number for a report: whole numbers plainly, others to ``places`` decimals.

    Numbers of 10^15 and more (a ratio against a near-zero defence) use scientific notation.
    The rest are rounded half up from their exact value (:func:`rounded`).

    >>> fmt(Fraction(5, 4)), fmt(Fraction(10)), fmt(Fraction(1, 3), 3), fmt(Fraction(10) ** 400)
    ('1.25', '10', '0.333', '1.000e+400')
    >>> fmt(Fraction(87, 40)), fmt(Fraction(39, 40))   # 2.175 and 0.975
    ('2.18', '0.98')
    """
    if not isinstance(value, float) and abs(Fraction(value)) >= SCIENTIFIC_FROM:
        return scientific(value)
    if isinstance(value, int) or (isinstance(value, Fraction) and value.denominator == 1):
        return str(int(value))
    return decimal_text(value, places)


def json_number(value: Fraction | int | float) -> int | float | str:
    """A JSON-safe number: exact integers stay integers, others round to 6 decimals.

    A value beyond the range of floats becomes a string in scientific notation.

    >>> json_number(Fraction(1, 3)), json_number(Fraction(7)), json_number(Fraction(10) ** 400 / 3)
    (0.333333, 7, '3.333e+399')
    >>> json_number(Fraction(2_000_005, 10_000_000))   # 0.2000005, half up (a float: 0.2)
    0.200001
    """
    if isinstance(value, int) or (isinstance(value, Fraction) and value.denominator == 1):
        return int(value)
    try:
        as_float = float(value)
    except OverflowError:
        return scientific(Fraction(value))
    if not math.isfinite(as_float):
        return as_float
    return float(rounded(value, 6))


def breakdown_table(breakdown: Breakdown, *, title: str = "") -> Table:
    """Render a breakdown as rows (row, source, operation, running value) plus its total."""
    rows: list[tuple[str, ...]] = []
    for step in breakdown.steps():
        mod = step.modifier
        op = "" if mod.op is Op.BASE else mod.op.value
        rows.append((mod.label, mod.source, f"{op}{fmt(mod.value, 4)}", fmt(step.running)))
    rows.append((breakdown.label, "", "", fmt(breakdown.total)))
    return Table(("row", "source", "value", "running"), tuple(rows), title=title, total_rows=1)


def breakdown_data(breakdown: Explained) -> dict[str, Any]:
    """JSON form of a breakdown: ``{"total": …, "rows": [{label, op, value, source, rule}]}``."""
    return {
        "label": breakdown.label,
        "total": json_number(breakdown.total),
        "rows": [
            {
                "label": row.label,
                "op": row.op.name.lower(),
                "value": json_number(row.value),
                "source": row.source,
                "rule": row.rule,
            }
            for row in breakdown.rows
        ],
    }
