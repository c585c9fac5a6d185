"""Per-ruleset views of the odds: derived metrics and the headline questions players ask.

The generic odds report lists every metric of ``summarize``. A ruleset's *view* adds

* **derived metrics** — computed from each outcome before the odds are gathered, so they
  work the same for exact and sampled odds (e.g. the difference of two combat results);
* **headline rows** — the few numbers a player looks at first (P(win), P(a unit breaks),
  expected casualties), each with its interval.

Views are looked up by ruleset name; a ruleset without one gets the generic report only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fracas.analysis.odds import OddsResult, Value

Derive = Callable[[Mapping[str, Any]], Mapping[str, Any]]


@dataclass(frozen=True)
class HeadlineRow:
    """One headline number: a probability (``kind="probability"``) or an expected value."""

    label: str
    value: Fraction | float
    low: float
    high: float
    kind: str = "probability"
    metric: str = ""
    event: str = ""


def derived_metrics(ruleset: str) -> Derive | None:
    """The function adding derived metrics to an outcome of ``ruleset``, if it has one."""
    return _DERIVED.get(ruleset)


def headline(result: OddsResult) -> list[HeadlineRow]:
    """The headline rows of ``result`` for its ruleset (empty when it has no view)."""
    view = _HEADLINES.get(result.ruleset)
    return view(result) if view else []


def default_event(ruleset: str) -> str | None:
    """The event ``--solve`` aims at when no ``--metric`` is given (``NAME=VALUE``)."""
    return _DEFAULT_EVENTS.get(ruleset)


def probability_row(result: OddsResult, label: str, metric: str, value: Value) -> HeadlineRow:
    """A headline row for P(``metric`` == ``value``)."""
    low, high = result.interval(metric, value)
    return HeadlineRow(
        label, result.probability(metric, value), low, high, "probability", metric, repr(value)
    )


def mean_row(result: OddsResult, label: str, metric: str) -> HeadlineRow | None:
    """A headline row for the expected value of ``metric`` (``None`` if it has no mean)."""
    odds = result.metric(metric)
    if odds.mean is None or odds.mean_low is None or odds.mean_high is None:
        return None
    return HeadlineRow(label, odds.mean, odds.mean_low, odds.mean_high, "mean", metric)


_DERIVED: dict[str, Derive] = {}
_HEADLINES: dict[str, Callable[[OddsResult], list[HeadlineRow]]] = {}
_DEFAULT_EVENTS: dict[str, str] = {}
