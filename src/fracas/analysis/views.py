"""Headline rows: the few numbers of an odds result a player looks at first.

The generic odds report lists every metric of ``summarize``. A ruleset declares, as data,
which questions head the report — :class:`~fracas.core.headline.Headline` values in its
``headlines`` class attribute — and this module answers them for any ruleset, each number
with its interval: P(win), P(a unit breaks), expected casualties. Derived metrics (added to
each outcome before the odds are gathered) come from the ruleset's ``derived_metrics`` hook.
Nothing here knows a ruleset by name; a ruleset without headlines gets the generic report.

>>> from fracas.core.dice import D6
>>> from fracas.core.process import Done, OneStep, Played
>>> from fracas.core.record import Recorder
>>> from fracas.core.report import Report
>>> from fracas.core.schema import Document, StrictModel
>>> from fracas.rulesets.base import Ruleset
>>> from fracas.analysis.odds import odds
>>> class Shot(Ruleset[Document, int, Done[int]]):
...     name, title, summary, deterministic = "shot", "Shot", "one d6", False
...     document_model, params_model = Document, StrictModel
...     def build(self, document: Document) -> int: return 5
...     def process(self, scenario: int, recorder: Recorder) -> OneStep[int]:
...         return OneStep(lambda dice: dice.roll(D6))
...     def report(self, scenario: int, played: Played[Done[int]]) -> Report:
...         return Report("shot", "", ())
...     def metrics(self, scenario: int, state: Done[int]) -> dict[str, int]:
...         return {"roll": state.result}
>>> result = odds(0, ruleset=Shot(), exact_fractions=True)
>>> asked = (Headline("event", "roll", "P(hit on 5+)", values=(5, 6)),
...          Headline("mean", "roll", "expected roll"))
>>> [(row.label, row.value) for row in headline_rows(result, asked)]
[('P(hit on 5+)', Fraction(1, 3)), ('expected roll', Fraction(7, 2))]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import groupby
from typing import TYPE_CHECKING

from fracas.analysis.stats import wilson_interval
from fracas.core.headline import Headline

if TYPE_CHECKING:
    from fracas.analysis.results import OddsResult, Value


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


def headline(result: OddsResult) -> list[HeadlineRow]:
    """The headline rows of ``result``: the ``headlines`` its ruleset declares.

    :func:`~fracas.analysis.odds.odds` copies them from the ruleset into the result, so
    a ruleset passed in directly gets its headline as well as a registered one does.
    """
    return headline_rows(result, result.headlines)


def headline_rows(result: OddsResult, asked: Sequence[Headline]) -> list[HeadlineRow]:
    """The rows answering the headline questions ``asked`` about ``result``, in order.

    Consecutive questions about the same family of metrics are answered name by name, so
    each unit's rows stay together.
    """
    rows: list[HeadlineRow] = []
    for metric, same in groupby(asked, key=lambda question: question.metric):
        questions = list(same)
        family = questions[0].family
        members = (
            [("", metric)]
            if family is None
            else [(name, family + name) for name in _prefixed(result, family)]
        )
        for name, member in members:
            if not result.has(member):
                continue
            for question in questions:
                rows.extend(_answer(result, question, name, member))
    return rows


def _answer(result: OddsResult, question: Headline, name: str, metric: str) -> list[HeadlineRow]:
    if question.kind == "mean":
        row = mean_row(result, question.label_for(name), metric)
        return [] if row is None else [row]
    if question.kind == "values":
        values: list[Value] = [entry.value for entry in result.metric(metric).values]
        rows = [
            probability_row(result, question.label_for(name, value), metric, value)
            for value in values
        ]
    elif question.kind == "probability":
        value = question.values[0]
        rows = [probability_row(result, question.label_for(name, value), metric, value)]
    else:
        rows = [event_row(result, question.label_for(name), metric, question.values)]
    # A fate that never happened (or cannot) would only lengthen the headline.
    return [row for row in rows if row.value] if question.omit_zero else rows


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


def event_row(result: OddsResult, label: str, metric: str, values: Iterable[Value]) -> HeadlineRow:
    """A headline row for P(``metric`` takes one of ``values``)."""
    wanted = list(values)
    entries = [e for e in result.metric(metric).values if e.value in wanted]
    probability: Fraction | float = sum((e.probability for e in entries), Fraction(0))
    if result.exact:
        low = high = float(probability)
    else:
        count = sum(e.count or 0 for e in entries)
        low, high = wilson_interval(count, result.runs or 0, result.confidence or 0.95)
    return HeadlineRow(label, probability, low, high, "probability", metric, repr(wanted))


def _prefixed(result: OddsResult, prefix: str) -> list[str]:
    """Names after ``prefix`` of the metrics that start with it, in report order."""
    return [m.name[len(prefix) :] for m in result.metrics if m.name.startswith(prefix)]
