"""What odds answer: the distribution of every metric, how it was obtained, and the
one-line forms a notebook or a prompt shows of it.

>>> bar(0.5, width=8), bar(1 / 16, width=8), bar(0.0)
('████', '▌', '')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from fracas.analysis.stats import wilson_interval
from fracas.analysis.views import headline
from fracas.core.errors import FracasError
from fracas.core.headline import Headline
from fracas.core.report import as_written, decimal_text, rounded

#: One metric's value in one outcome (``None`` when an outcome lacks the metric).
Value = int | float | str | bool | None
Probability = Fraction | float


@dataclass(frozen=True)
class ValueOdds:
    """One value of a metric: its probability and the interval around it.

    For exact results ``low == high == probability`` and ``count`` is ``None``.
    """

    value: Value
    probability: Probability
    low: float
    high: float
    count: int | None = None


@dataclass(frozen=True)
class MetricOdds:
    """The distribution of one metric, values in ascending order."""

    name: str
    numeric: bool
    values: tuple[ValueOdds, ...]
    mean: Probability | None = None
    mean_low: float | None = None
    mean_high: float | None = None
    #: What the ruleset calls the metric for a person (``name`` when it gives nothing).
    label: str = ""

    @property
    def title(self) -> str:
        """The label, or the name when there is no label."""
        return self.label or self.name

    def probability(self, value: Value) -> Probability:
        """P(metric == value); zero for a value never seen."""
        for entry in self.values:
            if entry.value == value and type(entry.value) is type(value):
                return entry.probability
        return Fraction(0) if self._exact_fractions() else 0.0

    def at_least(self, threshold: float) -> Probability:
        """P(metric ≥ threshold) for a numeric metric."""
        hits = [e.probability for e in self.values if _is_number(e.value) and e.value >= threshold]  # type: ignore[operator]
        return _sum(hits, exact=self._exact_fractions())

    def _exact_fractions(self) -> bool:
        return bool(self.values) and all(isinstance(e.probability, Fraction) for e in self.values)

    def __repr__(self) -> str:
        return metric_repr(self)


@dataclass(frozen=True)
class OddsResult:
    """The odds of a scenario and how they were obtained.

    ``method`` is ``"exact"`` or ``"monte-carlo"``; ``work`` counts ``work_unit`` (paths,
    runs, solver operations); ``dice_rolls`` counts every chance node decided;
    ``error_bar`` is the largest half-width of any reported interval; when exact, the
    probability a tolerance left out (0 when every branch was kept).
    """

    ruleset: str
    method: Literal["exact", "monte-carlo"]
    solver: str
    work: int
    work_unit: str
    dice_rolls: int
    metrics: tuple[MetricOdds, ...]
    confidence: float | None = None
    error_bar: float = 0.0
    seed: int | None = None
    runs: int | None = None
    precision: float | None = None
    stopped_by: str = ""
    fallback: str = ""
    budget: int = 0
    #: The ruleset's headline questions, answered by :func:`fracas.analysis.views.headline`.
    headlines: tuple[Headline, ...] = field(default=(), repr=False)

    def metric(self, name: str) -> MetricOdds:
        """The distribution of metric ``name``, given by its key or by its label (in any
        case)."""
        for metric in self.metrics:
            if metric.name == name:
                return metric
        wanted = " ".join(name.split()).casefold()
        for metric in self.metrics:
            if metric.label and " ".join(metric.label.split()).casefold() == wanted:
                return metric
        known = (
            ", ".join(
                m.name if m.title == m.name else f"{m.name} ({m.title})" for m in self.metrics
            )
            or "none"
        )
        raise FracasError(f"no metric named {name!r} (known: {known})")

    def __repr__(self) -> str:
        return odds_repr(self)

    def has(self, name: str) -> bool:
        return any(metric.name == name for metric in self.metrics)

    def probability(self, name: str, value: Value) -> Probability:
        """P(metric ``name`` == ``value``)."""
        return self.metric(name).probability(value)

    def interval(self, name: str, value: Value) -> tuple[float, float]:
        """The confidence interval of P(``name`` == ``value``) (a point when exact)."""
        for entry in self.metric(name).values:
            if entry.value == value and type(entry.value) is type(value):
                return (entry.low, entry.high)
        if self.method == "exact":
            return (0.0, 0.0)
        return wilson_interval(0, self.runs or 0, self.confidence or 0.95)

    @property
    def exact(self) -> bool:
        return self.method == "exact"


# ── public entry point ─────────────────────────────────────────────────────────────────


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | Fraction) and not isinstance(value, bool)


def _sum(values: Iterable[Probability], *, exact: bool) -> Probability:
    if exact:
        return sum((Fraction(v) for v in values), Fraction(0))
    return float(sum(float(v) for v in values))


BAR_WIDTH = 20
_EIGHTHS = ("", "▏", "▎", "▍", "▌", "▋", "▊", "▉")


def bar(probability: float, *, width: int = BAR_WIDTH) -> str:
    """A horizontal bar of ``probability × width`` cells, in eighths of a cell."""
    eighths = round(max(0.0, min(1.0, probability)) * width * 8)
    return "█" * (eighths // 8) + _EIGHTHS[eighths % 8]


#: A fraction longer than this (in characters) is folded: numerator and denominator on
#: lines of their own, each cut into lines of :data:`FOLD_DIGITS` digits from the right.
SHORT_FRACTION = 24
FOLD_DIGITS = 30


def percent(probability: Probability, *, fractions: bool = False) -> str:
    """A probability for people: ``83.33%``, ``<0.01%``; with ``fractions``, the exact
    fraction beside the percentage (folded onto more lines when it is long).

    >>> percent(Fraction(5, 6)), percent(0.00001), percent(Fraction(5, 36), fractions=True)
    ('83.33%', '<0.01%', '13.89% = 5/36')
    >>> percent(Fraction(1, 8)), percent(0.12345)   # 12.5 and 12.345: ties round up
    ('12.50%', '12.35%')
    >>> print(percent(Fraction(10**40 + 1, 3 * 10**40), fractions=True))
    33.33% =
    10000000000
    000000000000000000000000000001
    / 30000000000
    000000000000000000000000000000
    """
    if fractions and isinstance(probability, Fraction):
        shown = percent(probability)
        text = str(probability)
        if len(text) <= SHORT_FRACTION:
            return f"{shown} = {text}"
        numerator = _fold(str(probability.numerator))
        denominator = _fold(str(probability.denominator))
        return f"{shown} =\n{numerator}\n/ {denominator}"
    value = float(probability)
    if 0 < value < 0.00005:
        return "<0.01%"
    if 0.99995 < value < 1:
        return ">99.99%"
    return f"{rounded(as_written(probability) * 100, 2)}%"


def _fold(digits: str) -> str:
    """Lines of :data:`FOLD_DIGITS` digits, counted from the right as a number is read."""
    first = len(digits) % FOLD_DIGITS or FOLD_DIGITS
    rest = range(first, len(digits), FOLD_DIGITS)
    return "\n".join([digits[:first], *(digits[i : i + FOLD_DIGITS] for i in rest)])


def number(value: Value | Fraction) -> str:
    """A metric value for people: whole numbers plainly, others to three decimals."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float | Fraction):
        if float(value).is_integer():
            return str(int(value))
        return decimal_text(value, 3)
    return str(value)


def metric_repr(metric: MetricOdds, *, most: int = 4) -> str:
    """A metric's odds in one short line: its likeliest values first.

    >>> from fracas.analysis.odds import MetricOdds, ValueOdds
    >>> coin = MetricOdds("side", False, (ValueOdds("heads", Fraction(1, 2), 0.5, 0.5),
    ...                                   ValueOdds("tails", Fraction(1, 2), 0.5, 0.5)))
    >>> coin
    MetricOdds('side': heads 50.00%, tails 50.00%)
    """
    likeliest = sorted(metric.values, key=lambda entry: -float(entry.probability))
    shown = [f"{number(entry.value)} {percent(entry.probability)}" for entry in likeliest[:most]]
    if len(likeliest) > most:
        shown.append(f"… {len(likeliest) - most} more")
    mean = "" if metric.mean is None else f"; mean {number(metric.mean)}"
    return f"MetricOdds({metric.name!r}: {', '.join(shown)}{mean})"


def odds_repr(result: OddsResult, *, most: int = 3) -> str:
    """The odds in one short line: method, work, the first headline numbers."""
    how = "exact" if result.exact else f"Monte Carlo, {result.runs or 0:,} runs"
    rows = headline(result)
    shown = [
        f"{row.label} {percent(row.value) if row.kind == 'probability' else number(row.value)}"
        for row in rows[:most]
    ]
    if len(rows) > most:
        shown.append(f"… {len(rows) - most} more")
    told = f"; {', '.join(shown)}" if shown else ""
    return f"OddsResult({result.ruleset}, {how}, {len(result.metrics)} metrics{told})"
