"""Turn an :class:`~fracas.analysis.odds.OddsResult` into a :class:`~fracas.core.report.Report`.

The text shows probabilities as percentages with a bar of unicode blocks, so a terminal
shows the shape of each distribution at a glance; the JSON ``data`` keeps full precision
in a fixed key order (documented in ``docs/odds.md``, "JSON output").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from fracas._version import __version__
from fracas.analysis.results import (
    MetricOdds,
    OddsResult,
    Probability,
    ValueOdds,
    bar,
    number,
    percent,
)
from fracas.analysis.stats import wilson_interval
from fracas.analysis.views import HeadlineRow, headline
from fracas.core.report import Report, Section, Table, Text, rounded

#: Numeric metrics with more distinct values than this are shown in ranges (text only).
MAX_ROWS = 16
#: Each rare tail of such a metric, lumped into one row, holds less than this probability.
TAIL = 0.001


def method_lines(result: OddsResult) -> list[str]:
    """One-line statements of the method, the work done and the error bar."""
    if result.exact:
        lines = [
            f"Method: exact ({result.solver}); work: {result.work:,} {result.work_unit}"
            + (f", {result.dice_rolls:,} dice rolls" if result.dice_rolls else "")
            + ".",
            "Error bar: none — every probability is exact."
            if not result.error_bar
            else f"Error bar: every probability is exact to within {result.error_bar:.1e} "
            "(branches less likely than the exact tolerance were left out).",
        ]
    else:
        level = f"{(result.confidence or 0.95) * 100:g}%"
        lines = [
            f"Method: Monte Carlo ({result.work:,} seeded runs from seed {result.seed}); "
            f"work: {result.dice_rolls:,} dice rolls.",
            f"Error bar: {level} Wilson intervals; the widest is ±{result.error_bar:.4f}.",
        ]
        if result.precision is not None:
            if result.stopped_by == "precision":
                lines.append(f"Precision ±{result.precision:g} reached.")
            else:
                lines.append(
                    f"Precision ±{result.precision:g} NOT reached: stopped by the "
                    f"{result.stopped_by} ({result.work:,} runs)."
                )
        elif result.stopped_by == "work budget":
            lines.append(f"Stopped early by the work budget ({result.budget:,} dice rolls).")
    if result.fallback:
        instead = (
            f"; these odds are {result.runs:,} sampled battles instead, each probability "
            f"within ±{rounded(result.error_bar * 100, 1)} percentage points"
            if result.runs
            else ""
        )
        lines.append(f"Why not exact: {result.fallback}{instead}.")
    return lines


def odds_report(
    result: OddsResult,
    *,
    title: str = "",
    fractions: bool = False,
    chart: bool = True,
    extra: Sequence[Section] = (),
    extra_data: dict[str, Any] | None = None,
) -> Report:
    """The report of ``result``: method, headline, one section per metric."""
    sections = [Section("Method", tuple(Text(line) for line in method_lines(result)))]
    sections.extend(extra)
    rows = headline(result)
    if rows:
        sections.append(Section("Headline", (_headline_table(rows, result, fractions),)))
    for metric in result.metrics:
        sections.append(_metric_section(metric, result, fractions, chart))
    data = odds_data(result, fractions=fractions, headline_rows=rows)
    if extra_data:
        data.update(extra_data)
    return Report(
        ruleset=result.ruleset,
        title=f"Odds — {title}" if title else "Odds",
        sections=tuple(sections),
        data=data,
        seed=result.seed,
        version=__version__,
    )


def _interval_text(low: float, high: float) -> str:
    return f"{percent(low)} – {percent(high)}"


def _headline_table(rows: list[HeadlineRow], result: OddsResult, fractions: bool) -> Table:
    columns = ["question", "value"]
    if not result.exact:
        columns.append(f"{(result.confidence or 0.95) * 100:g}% interval")
    body: list[tuple[str, ...]] = []
    for row in rows:
        if row.kind == "probability":
            cells = [row.label, percent(row.value, fractions=fractions)]
            interval = _interval_text(row.low, row.high)
        else:
            cells = [row.label, number(row.value)]
            interval = f"{number(row.low)} – {number(row.high)}"
        if not result.exact:
            cells.append(interval)
        body.append(tuple(cells))
    return Table(tuple(columns), tuple(body))


def shown_rows(metric: MetricOdds, result: OddsResult) -> tuple[list[str], list[ValueOdds]]:
    """The rows the text table shows for ``metric``: its values, or ranges of a long one."""
    entries = list(metric.values)
    if metric.numeric and len(entries) > MAX_ROWS:
        return _binned(entries, result)
    return [number(entry.value) for entry in entries], entries


def _metric_section(
    metric: MetricOdds, result: OddsResult, fractions: bool, chart: bool
) -> Section:
    labels, entries = shown_rows(metric, result)
    columns = ["value", "P"]
    if metric.numeric:
        columns.append("P(≥ value)")
    if not result.exact:
        columns.append(f"{(result.confidence or 0.95) * 100:g}% interval")
    if chart:
        columns.append("")
    rows: list[tuple[str, ...]] = []
    at_least = _at_least(entries, result)
    for label, entry, tail in zip(labels, entries, at_least, strict=True):
        cells = [label, percent(entry.probability, fractions=fractions)]
        if metric.numeric:
            cells.append(percent(tail, fractions=fractions))
        if not result.exact:
            cells.append(_interval_text(entry.low, entry.high))
        if chart:
            cells.append(bar(float(entry.probability)))
        rows.append(tuple(cells))
    blocks: list[Text | Table] = [Table(tuple(columns), tuple(rows))]
    if metric.mean is not None:
        text = f"Mean: {number(metric.mean)}"
        if not result.exact and metric.mean_low is not None and metric.mean_high is not None:
            text += f" ({number(metric.mean_low)} – {number(metric.mean_high)})"
        blocks.append(Text(text))
    title = metric.name if metric.title == metric.name else f"{metric.title} ({metric.name})"
    return Section(title, tuple(blocks))


def _at_least(entries: list[ValueOdds], result: OddsResult) -> list[Probability]:
    """P(value ≥ each entry's value), from counts when sampled so no rounding creeps in."""
    tails: list[Probability] = []
    if not result.exact and result.runs:
        remaining = sum(e.count or 0 for e in entries)
        for entry in entries:
            tails.append(remaining / result.runs)
            remaining -= entry.count or 0
        return tails
    running: Probability = sum((e.probability for e in entries), Fraction(0))
    for entry in entries:
        tails.append(running)
        running -= entry.probability
    return tails


def _binned(entries: list[ValueOdds], result: OddsResult) -> tuple[list[str], list[ValueOdds]]:
    """Show many numeric values in at most about ``MAX_ROWS`` rows.

    The rare tails go into one "≤ a" and one "≥ b" row each (under ``TAIL`` of the
    probability); if the middle still has too many values, it is cut into ranges of equal
    width. The cumulative column stays exact: it is computed from the merged rows.
    """
    numbers = [e for e in entries if e.value is not None]
    others = [e for e in entries if e.value is None]
    low_end, high_end = 0, len(numbers)
    tail = 0.0
    while low_end < high_end - 1 and tail + float(numbers[low_end].probability) < TAIL:
        tail += float(numbers[low_end].probability)
        low_end += 1
    tail = 0.0
    while high_end - 1 > low_end and tail + float(numbers[high_end - 1].probability) < TAIL:
        tail += float(numbers[high_end - 1].probability)
        high_end -= 1
    labels: list[str] = []
    merged: list[ValueOdds] = []
    if low_end:
        labels.append(f"≤ {number(numbers[low_end - 1].value)}")
        merged.append(_merge(numbers[:low_end], result))
    for group in _ranges(numbers[low_end:high_end]):
        first, last = group[0].value, group[-1].value
        labels.append(number(first) if first == last else f"{number(first)} – {number(last)}")
        merged.append(_merge(group, result))
    if high_end < len(numbers):
        labels.append(f"≥ {number(numbers[high_end].value)}")
        merged.append(_merge(numbers[high_end:], result))
    for entry in others:
        labels.append(number(None))
        merged.append(entry)
    return labels, merged


def _ranges(middle: list[ValueOdds]) -> list[list[ValueOdds]]:
    if len(middle) <= MAX_ROWS:
        return [[entry] for entry in middle]
    lowest = float(middle[0].value)  # type: ignore[arg-type]
    highest = float(middle[-1].value)  # type: ignore[arg-type]
    width = (highest - lowest) / MAX_ROWS or 1.0
    if all(isinstance(e.value, int) for e in middle):
        # Whole numbers get ranges of equal whole widths (6–7, 8–9…), not 2 then 1 then 2.
        width = float(math.ceil((highest - lowest + 1) / MAX_ROWS))
    groups: list[list[ValueOdds]] = [[] for _ in range(MAX_ROWS)]
    for entry in middle:
        slot = min(MAX_ROWS - 1, int((float(entry.value) - lowest) / width))  # type: ignore[arg-type]
        groups[slot].append(entry)
    return [group for group in groups if group]


def _merge(group: list[ValueOdds], result: OddsResult) -> ValueOdds:
    probability: Probability = sum((e.probability for e in group), Fraction(0))
    if result.exact:
        return ValueOdds(group[0].value, probability, float(probability), float(probability))
    count = sum(e.count or 0 for e in group)
    low, high = wilson_interval(count, result.runs or 0, result.confidence or 0.95)
    return ValueOdds(group[0].value, probability, low, high, count)


# ── JSON ───────────────────────────────────────────────────────────────────────────────


def _json_probability(probability: Probability) -> float:
    return float(probability)


def odds_data(
    result: OddsResult, *, fractions: bool = False, headline_rows: list[HeadlineRow] | None = None
) -> dict[str, Any]:
    """The JSON ``data`` of an odds report, keys in the documented order."""
    rows = headline(result) if headline_rows is None else headline_rows
    return {
        "method": result.method,
        "solver": result.solver,
        "work": {
            "amount": result.work,
            "unit": result.work_unit,
            "dice_rolls": result.dice_rolls,
            "budget": result.budget,
        },
        "confidence": result.confidence,
        "error_bar": result.error_bar,
        "seed": result.seed,
        "runs": result.runs,
        "precision": result.precision,
        "stopped_by": result.stopped_by or None,
        "fallback": result.fallback or None,
        "headline": [_headline_data(row, fractions) for row in rows],
        "metrics": [_metric_data(metric, result, fractions) for metric in result.metrics],
    }


def _headline_data(row: HeadlineRow, fractions: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "label": row.label,
        "kind": row.kind,
        "metric": row.metric,
        "value": _json_probability(row.value),
        "low": row.low,
        "high": row.high,
    }
    if fractions and isinstance(row.value, Fraction):
        data["fraction"] = str(row.value)
    return data


def _metric_data(metric: MetricOdds, result: OddsResult, fractions: bool) -> dict[str, Any]:
    values: list[dict[str, Any]] = []
    at_least = _at_least(list(metric.values), result)
    for entry, tail in zip(metric.values, at_least, strict=True):
        item: dict[str, Any] = {
            "value": entry.value,
            "probability": _json_probability(entry.probability),
        }
        if fractions and isinstance(entry.probability, Fraction):
            item["fraction"] = str(entry.probability)
        if metric.numeric:
            item["at_least"] = _json_probability(tail)
        item["low"] = entry.low
        item["high"] = entry.high
        item["count"] = entry.count
        values.append(item)
    return {
        "name": metric.name,
        "label": metric.title,
        "kind": "numeric" if metric.numeric else "categorical",
        "mean": None if metric.mean is None else float(metric.mean),
        "mean_low": metric.mean_low,
        "mean_high": metric.mean_high,
        "values": values,
    }
