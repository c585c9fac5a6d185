"""Charts of the odds with matplotlib (the optional ``plot`` extra), imported only when used.

The chart leads with the headline: one horizontal bar per headline probability (who wins,
who breaks), with its interval for sampled odds. The detail follows: each metric gets a
bar chart of its distribution (with error bars for sampled odds) and, for numeric
metrics, the cumulative "at least" curve: P(metric ≥ value). The files are reproducible:
the same odds give the same bytes (no timestamps, fixed SVG ids), and the file's metadata
says how they were made (the seed and the fracas version, as a report's footer does).
"""

from __future__ import annotations

import importlib.util
import io
import math
from itertools import pairwise
from pathlib import Path
from typing import Any

from fracas._version import __version__
from fracas.analysis.results import MetricOdds, OddsResult, number, percent
from fracas.analysis.views import HeadlineRow, headline
from fracas.core.errors import FracasError
from fracas.core.escape import printable

FORMATS = ("png", "svg")


#: What a user without the plotting library is told, before any work starts.
NEEDS_MATPLOTLIB = (
    "charts need matplotlib, the 'plot' extra of fracas: python -m pip install matplotlib"
)


def check_charts(output: Path) -> str:
    """The chart format of ``output`` (:func:`chart_format`), once it is sure a chart can
    be drawn: the plotting library is installed. Called before the work a chart shows, so
    a missing extra never throws that work away.

    >>> check_charts(Path("odds.svg"))
    'svg'
    """
    kind = chart_format(output)
    if importlib.util.find_spec("matplotlib") is None:
        raise FracasError(NEEDS_MATPLOTLIB)
    return kind


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
    except ImportError:
        raise FracasError(NEEDS_MATPLOTLIB) from None
    return pyplot


def chart_format(output: Path) -> str:
    """``png`` or ``svg`` from the name of ``output``; any other suffix is an error."""
    kind = output.suffix.lower().lstrip(".")
    if kind not in FORMATS:
        raise FracasError(f"--plot writes .png or .svg files, not {output.name!r}")
    return kind


def chart_metadata(kind: str, title: str, description: str) -> dict[str, Any]:
    """What a chart file says of itself (SVG ``dc:`` elements, PNG text chunks): its title
    and how it was made, the line of a report's footer (seed, version).

    Nothing in it changes from one run to the next or with the plotting library, so the
    same chart is the same bytes: no date, no matplotlib version (fracas's own version is in
    the description).

    >>> chart_metadata("png", "Odds", "ruleset d100 · seed 5")["Software"] is None
    True
    >>> chart_metadata("svg", "Odds", "ruleset d100 · seed 5")["Creator"] is None
    True
    """
    metadata: dict[str, Any] = {"Title": printable(title), "Description": printable(description)}
    if kind == "png":
        metadata["Software"] = None
    else:
        metadata["Date"] = None
        metadata["Creator"] = None
    return metadata


def footer(result: OddsResult) -> str:
    """The chart's line of provenance when the caller has no report footer to give.

    >>> from fracas.analysis.results import OddsResult
    >>> footer(OddsResult("coin", "monte-carlo", "", 10, "runs", 10, (), seed=3))[:24]
    'ruleset coin · seed 3 · '
    """
    parts = [f"ruleset {result.ruleset}"]
    if result.seed is not None:
        parts.append(f"seed {result.seed}")
    parts.append(f"fracas {__version__}")
    return " · ".join(parts)


def chart_bytes(result: OddsResult, kind: str, *, title: str = "", description: str = "") -> bytes:
    """The chart of every metric of ``result`` as the bytes of a ``png`` or ``svg`` file.

    The file's metadata holds ``description``: the report's footer, by default the
    ruleset, seed and version of ``result``.

    >>> from fracas.analysis.results import MetricOdds, OddsResult, ValueOdds
    >>> hits = MetricOdds("hits", True, (ValueOdds(0, 0.25, 0.25, 0.25),
    ...                                  ValueOdds(1, 0.75, 0.75, 0.75)), 0.75, 0.75, 0.75)
    >>> result = OddsResult("coin", "exact", "single play", 1, "play", 0, (hits,))
    >>> chart_bytes(result, "svg", title="A coin")[:5]
    b'<?xml'
    """
    if not result.metrics:
        raise FracasError("nothing to plot: the outcome has no metrics")
    pyplot = _pyplot()
    rows = [row for row in headline(result) if row.kind == "probability"]
    # Text stays text in SVG files: searchable, selectable, and smaller.
    with pyplot.rc_context({"svg.hashsalt": "fracas", "svg.fonttype": "none", "font.size": 8}):
        count = len(result.metrics)
        lead = 0.9 + 0.28 * len(rows) if rows else 0.0
        figure = pyplot.figure(figsize=(10, lead + 2.6 * count), constrained_layout=True)
        # Two sub-figures, so the long headline labels do not narrow the detail below.
        top, bottom = (
            figure.subfigures(2, 1, height_ratios=[lead, 2.6 * count]) if rows else (None, figure)
        )
        try:
            if top is not None:
                _headline(top.subplots(), rows, result)
            axes = bottom.subplots(count, 2, squeeze=False)
            for metric, (left, right) in zip(result.metrics, axes, strict=True):
                _distribution(left, metric, result)
                if metric.numeric:
                    _at_least(right, metric)
                else:
                    right.axis("off")
            method = "exact" if result.exact else f"Monte Carlo, {result.runs:,} runs"
            heading = f"{title or 'Odds'} ({method})"
            figure.suptitle(heading)
            metadata = chart_metadata(kind, heading, description or footer(result))
            buffer = io.BytesIO()
            figure.savefig(buffer, format=kind, metadata=metadata)
        finally:
            pyplot.close(figure)
    return buffer.getvalue()


def _headline(axis: Any, rows: list[HeadlineRow], result: OddsResult) -> None:
    """The headline probabilities as horizontal bars, the first question at the top."""
    values = [float(row.value) for row in rows]
    positions = list(range(len(rows)))[::-1]
    errors = None
    if not result.exact:
        errors = [
            [max(0.0, value - row.low) for value, row in zip(values, rows, strict=True)],
            [max(0.0, row.high - value) for value, row in zip(values, rows, strict=True)],
        ]
    axis.barh(positions, values, xerr=errors, color="#c44e52", capsize=2, height=0.6)
    for position, value in zip(positions, values, strict=True):
        axis.text(min(value, 1.0) + 0.01, position, percent(value), va="center")
    axis.set_yticks(positions, [row.label for row in rows])
    axis.set_xlim(0, 1.12)
    axis.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0%", "25%", "50%", "75%", "100%"])
    axis.set_title("Headline", loc="left", fontweight="bold")


def _distribution(axis: Any, metric: MetricOdds, result: OddsResult) -> None:
    labels = [number(entry.value) for entry in metric.values]
    heights = [float(entry.probability) for entry in metric.values]
    positions: list[float] = [float(i) for i in range(len(labels))]
    # Numbers stand at their own place on the axis, so that a gap in the values (a unit
    # either loses a few models or is wiped out) shows as a gap, not as neighbouring bars.
    spaced = metric.numeric and all(entry.value is not None for entry in metric.values)
    if spaced:
        positions = [float(entry.value) for entry in metric.values]  # type: ignore[arg-type]
    errors = None
    if not result.exact:
        errors = [
            [max(0.0, h - e.low) for h, e in zip(heights, metric.values, strict=True)],
            [max(0.0, e.high - h) for h, e in zip(heights, metric.values, strict=True)],
        ]
    gaps = [b - a for a, b in pairwise(positions)]
    # Sparse values far apart (goods worth 5 or 230) would give hairline bars: keep each
    # bar at least a 1/80 of the axis wide.
    width = max(0.8 * min(gaps, default=1.0), (positions[-1] - positions[0]) / 80)
    axis.bar(positions, heights, width=width, yerr=errors, color="#4c72b0", capsize=2)
    if spaced:
        axis.xaxis.get_major_locator().set_params(integer=True)
    else:
        step = max(1, math.ceil(len(labels) / 20))
        axis.set_xticks(positions[::step], labels[::step], rotation=45 if step > 1 else 0)
    axis.set_ylabel("probability")
    axis.set_xlabel(metric.title)
    axis.set_title(metric.title)


def _at_least(axis: Any, metric: MetricOdds) -> None:
    values = [float(entry.value) for entry in metric.values if entry.value is not None]
    remaining = 1.0
    curve = []
    for entry in metric.values:
        if entry.value is None:
            continue
        curve.append(remaining)
        remaining -= float(entry.probability)
    # Markers too: a metric with a single value has a curve of one point.
    axis.step(values, curve, where="post", color="#dd8452", marker=".")
    axis.set_ylim(0, 1.05)
    axis.set_ylabel("probability of at least this")
    axis.set_xlabel(metric.title)
    axis.set_title(f"{metric.title}: at least")
