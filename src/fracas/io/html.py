"""HTML for reports and odds: one renderer for the web page and for notebooks.

:func:`render_html` turns a :class:`~fracas.core.report.Report` into a self-contained
fragment (an ``<article>``); :func:`odds_chart_svg` draws the odds as an SVG chart from
the same numbers that ``fracas odds --plot`` draws, without matplotlib; :func:`odds_html`
puts both together. Every piece of text that comes from a scenario is escaped, so a unit
called ``<script>`` is shown, never run.

Importing this module also gives :class:`~fracas.core.report.Report` and
:class:`~fracas.analysis.odds.OddsResult` their ``_repr_html_`` (see
:func:`install_notebook_display`), which is how Jupyter shows them.

>>> from fracas.core.report import Report, Section, Table, Text
>>> report = Report("demo", "A <b>bold</b> claim", (Section("Result", (
...     Text("Red wins", strong=True), Table(("unit", "losses"), (("<Orcs>", "3"),)))),))
>>> fragment = render_html(report)
>>> "&lt;Orcs&gt;" in fragment and "<Orcs>" not in fragment
True
>>> report._repr_html_() == render_html(report, standalone=True)
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import pairwise

from fracas.analysis.reporting import odds_report
from fracas.analysis.results import MetricOdds, OddsResult, number, percent
from fracas.core.escape import escape_html as escape
from fracas.core.report import Block, Report, Table, Text
from fracas.io.render import numeric_columns

#: Styles of the fragments, scoped to ``.fracas-report`` so a notebook's own are untouched.
REPORT_CSS = """
.fracas-report{font:14px/1.45 system-ui,sans-serif;color:#1d2330;max-width:60rem}
.fracas-report h2{font-size:1.25rem;margin:.2rem 0 .6rem}
.fracas-report h3{font-size:1rem;margin:1rem 0 .3rem;border-bottom:1px solid #d8dde6}
.fracas-report p{margin:.3rem 0;white-space:pre-line}
.fracas-report p.strong{font-weight:600}
.fracas-report table{border-collapse:collapse;margin:.4rem 0 .8rem;font-size:.9rem}
.fracas-report caption{text-align:left;font-style:italic;padding:.2rem 0}
.fracas-report th,.fracas-report td{padding:.15rem .6rem;text-align:left;
  border-bottom:1px solid #eceff4;vertical-align:top}
.fracas-report th{border-bottom:2px solid #c5ccd8}
.fracas-report .num{text-align:right;font-variant-numeric:tabular-nums}
.fracas-report tfoot td{font-weight:600;border-top:2px solid #c5ccd8}
.fracas-report details.fold{margin:.4rem 0;border:1px solid #d8dde6;border-radius:6px;
  padding:.2rem .6rem}
.fracas-report details.fold summary{cursor:pointer;font-weight:600}
.fracas-report .fracas-footer{color:#5b6577;font-size:.8rem;margin-top:1rem}
.fracas-report svg{max-width:100%;height:auto}
.fracas-report h2,.fracas-report h3,.fracas-report p,.fracas-report summary,
.fracas-report caption{overflow-wrap:anywhere}
""".strip()


def _table(table: Table) -> str:
    numeric = numeric_columns(table)

    def cells(tag: str, row: Iterable[str]) -> str:
        return "".join(
            f'<{tag} class="num">{escape(cell)}</{tag}>'
            if is_number
            else f"<{tag}>{escape(cell)}</{tag}>"
            for cell, is_number in zip(row, numeric, strict=True)
        )

    parts = ["<table>"]
    if table.title:
        parts.append(f"<caption>{escape(table.title)}</caption>")
    parts.append(f"<thead><tr>{cells('th', table.columns)}</tr></thead>")
    body = len(table.rows) - table.total_rows
    parts.append("<tbody>")
    parts += [f"<tr>{cells('td', row)}</tr>" for row in table.rows[:body]]
    parts.append("</tbody>")
    if table.total_rows:
        parts.append("<tfoot>")
        parts += [f"<tr>{cells('td', row)}</tr>" for row in table.rows[body:]]
        parts.append("</tfoot>")
    parts.append("</table>")
    return "".join(parts)


def _block(block: Block) -> str:
    if isinstance(block, Text):
        css = ' class="strong"' if block.strong else ""
        return f"<p{css}>{escape(block.text)}</p>"
    return _table(block)


def render_html(
    report: Report,
    *,
    standalone: bool = False,
    extra: str = "",
    extra_after: int = 0,
    fold: bool = False,
) -> str:
    """``report`` as an HTML fragment: title, sections, tables, and the reproducing footer.

    ``standalone`` adds the stylesheet (for notebooks; the web page has its own copy).
    ``extra`` is trusted HTML (a chart) placed after section number ``extra_after``.
    ``fold`` puts the sections a report marks as details in closed ``<details>`` blocks,
    so the outcome comes first and the steps are one click away (as ``--fold`` does).
    """
    parts = []
    if standalone:
        parts.append(f"<style>{REPORT_CSS}</style>")
    parts.append(f'<article class="fracas-report" data-ruleset="{escape(report.ruleset)}">')
    parts.append(f"<h2>{escape(report.title)}</h2>")
    for index, section in enumerate(report.sections):
        if fold and section.fold:
            parts.append(f'<details class="fold"><summary>{escape(section.title)}</summary>')
            parts += [_block(block) for block in section.blocks]
            parts.append("</details>")
        else:
            parts.append(f"<section><h3>{escape(section.title)}</h3>")
            parts += [_block(block) for block in section.blocks]
            parts.append("</section>")
        if index == extra_after and extra:
            parts.append(extra)
    # The fair-dice lines under the footer, as the other renderers write them: with them
    # anyone can check the dice were fair.
    for line in (report.footer(), *report.fair_lines()):
        parts.append(f'<p class="fracas-footer"><code>{escape(line)}</code></p>')
    parts.append("</article>")
    return "\n".join(parts)


# ── odds chart ─────────────────────────────────────────────────────────────────────────

_BAR = "#4c72b0"
_CURVE = "#dd8452"
_PANEL_WIDTH = 340
_PANEL_HEIGHT = 150
_MARGIN_LEFT = 44
_MARGIN_BOTTOM = 34
_MARGIN_TOP = 22
_GAP = 30


def _f(value: float) -> str:
    """Coordinates with two decimals at most: small files, the same bytes every time."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _positions(metric: MetricOdds) -> tuple[list[float], bool]:
    # As in the matplotlib chart: numbers stand at their own place on the axis, so a gap in
    # the values shows as a gap; categories stand side by side.
    spaced = metric.numeric and all(entry.value is not None for entry in metric.values)
    if spaced:
        return [float(entry.value) for entry in metric.values], True  # type: ignore[arg-type]
    return [float(index) for index in range(len(metric.values))], False


#: Tops of the probability axis: the smallest one above the tallest bar is used.
_TOPS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)


def _nice_top(highest: float) -> float:
    """The top of a probability axis: a round number just above ``highest``.

    >>> _nice_top(0.885), _nice_top(0.07), _nice_top(0.0)
    (1.0, 0.1, 0.01)
    """
    return next((top for top in _TOPS if top >= highest), 1.0)


def _axis_label(probability: float) -> str:
    return f"{probability * 100:g}%"


def _axes(x: float, y: float, width: float, height: float, top: float) -> list[str]:
    """The frame of a panel and its probability gridlines (0, top/2, top)."""
    out = [
        f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(width)}" height="{_f(height)}" '
        'fill="#fff" stroke="#c5ccd8"/>'
    ]
    for fraction in (0.0, 0.5, 1.0):
        line_y = y + height - fraction * height
        label = _axis_label(top * fraction)
        out.append(
            f'<line x1="{_f(x)}" x2="{_f(x + width)}" y1="{_f(line_y)}" y2="{_f(line_y)}" '
            'stroke="#eceff4"/>'
        )
        out.append(
            f'<text x="{_f(x - 4)}" y="{_f(line_y + 3)}" text-anchor="end">{escape(label)}</text>'
        )
    return out


def _distribution_panel(metric: MetricOdds, result: OddsResult, x: float, y: float) -> list[str]:
    width, height = _PANEL_WIDTH, _PANEL_HEIGHT
    positions, spaced = _positions(metric)
    highs = [max(float(e.probability), e.high if not result.exact else 0.0) for e in metric.values]
    top = _nice_top(max(highs, default=0.0))
    low_x, high_x = min(positions, default=0.0), max(positions, default=0.0)
    gaps = [b - a for a, b in pairwise(positions)]
    step = min(gaps, default=1.0)
    span = (high_x - low_x) + step
    bar_width = max(0.8 * step, span / 80) / span * width

    def at(position: float) -> float:
        return x + (position - low_x + step / 2) / span * width

    out = [f'<text x="{_f(x)}" y="{_f(y - 6)}" class="t">{escape(metric.title)}</text>']
    out += _axes(x, y, width, height, top)
    labels = [number(entry.value) for entry in metric.values]
    every = max(1, math.ceil(len(labels) / 12))
    for index, (entry, position) in enumerate(zip(metric.values, positions, strict=True)):
        probability = float(entry.probability)
        bar_height = probability / top * height
        centre = at(position)
        tip = f"{metric.title} = {labels[index]}: {percent(entry.probability)}"
        if not result.exact:
            tip += f" ({percent(entry.low)} – {percent(entry.high)})"
        out.append(
            f'<rect x="{_f(centre - bar_width / 2)}" y="{_f(y + height - bar_height)}" '
            f'width="{_f(bar_width)}" height="{_f(bar_height)}" fill="{_BAR}">'
            f"<title>{escape(tip)}</title></rect>"
        )
        if not result.exact:
            low_y = y + height - entry.low / top * height
            high_y = y + height - entry.high / top * height
            out.append(
                f'<path d="M{_f(centre)} {_f(low_y)}V{_f(high_y)}M{_f(centre - 2)} {_f(low_y)}'
                f'h4M{_f(centre - 2)} {_f(high_y)}h4" stroke="#1d2330" fill="none"/>'
            )
        if index % every == 0 or (spaced and index == len(labels) - 1 and every == 1):
            out.append(
                f'<text x="{_f(centre)}" y="{_f(y + height + 13)}" text-anchor="middle">'
                f"{escape(labels[index])}</text>"
            )
    return out


def _at_least_panel(metric: MetricOdds, x: float, y: float) -> list[str]:
    width, height = _PANEL_WIDTH, _PANEL_HEIGHT
    points = [entry for entry in metric.values if entry.value is not None]
    values = [float(entry.value) for entry in points]  # type: ignore[arg-type]
    out = [f'<text x="{_f(x)}" y="{_f(y - 6)}" class="t">{escape(metric.title)}: at least</text>']
    out += _axes(x, y, width, height, 1.0)
    if not values:
        return out
    low_x, high_x = values[0], values[-1]
    span = (high_x - low_x) or 1.0
    pad = span / 20

    def at(value: float) -> float:
        return x + (value - low_x + pad) / (span + 2 * pad) * width

    remaining = 1.0
    path: list[str] = []
    dots: list[str] = []
    for entry, value in zip(points, values, strict=True):
        point_y = y + height - remaining * height
        # A step curve: P(≥ value) holds from one value to the next.
        path.append(
            f"M{_f(at(value))} {_f(point_y)}" if not path else f"H{_f(at(value))}V{_f(point_y)}"
        )
        tip = f"{metric.title} ≥ {number(entry.value)}: {percent(remaining)}"
        dots.append(
            f'<circle cx="{_f(at(value))}" cy="{_f(point_y)}" r="2" fill="{_CURVE}">'
            f"<title>{escape(tip)}</title></circle>"
        )
        remaining -= float(entry.probability)
    path.append(f"H{_f(x + width)}")
    out.append(f'<path d="{"".join(path)}" stroke="{_CURVE}" stroke-width="1.5" fill="none"/>')
    out += dots
    every = max(1, math.ceil(len(values) / 12))
    for index, entry in enumerate(points):
        if index % every == 0:
            out.append(
                f'<text x="{_f(at(values[index]))}" y="{_f(y + height + 13)}" '
                f'text-anchor="middle">{escape(number(entry.value))}</text>'
            )
    return out


def odds_chart_svg(result: OddsResult, *, title: str = "") -> str:
    """The odds of every metric as an SVG: the same panels as ``fracas odds --plot``.

    Each metric gets its distribution (bars, with the interval of each bar when sampled)
    and, when numeric, the "at least" curve P(metric ≥ value). Hovering a bar or a point
    shows its number. Metrics with a single, certain value are left to the tables.

    >>> from fracas.analysis.results import MetricOdds, OddsResult, ValueOdds
    >>> hits = MetricOdds("hits", True, (ValueOdds(0, 0.25, 0.25, 0.25),
    ...                                  ValueOdds(1, 0.75, 0.75, 0.75)), 0.75, 0.75, 0.75)
    >>> svg = odds_chart_svg(OddsResult("coin", "exact", "single play", 1, "play", 0, (hits,)))
    >>> svg.startswith("<svg") and svg.count("<rect") == 1 + 2 + 1  # frame, 2 bars, frame
    True
    """
    # A metric with one value is certain: its row of the table says all a chart could.
    drawn = [metric for metric in result.metrics if len(metric.values) > 1]
    row_height = _MARGIN_TOP + _PANEL_HEIGHT + _MARGIN_BOTTOM
    header = 26 if drawn else 40
    total_width = 2 * (_MARGIN_LEFT + _PANEL_WIDTH) + _GAP
    total_height = header + row_height * len(drawn)
    method = "exact" if result.exact else f"Monte Carlo, {result.runs or result.work:,} runs"
    heading = f"{title or 'Odds'} ({method})"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="fracas-chart" role="img" '
        f'viewBox="0 0 {total_width} {total_height}" width="{total_width}" '
        f'height="{total_height}" font-family="system-ui,sans-serif" font-size="10" '
        f'fill="#1d2330">',
        f"<title>{escape(heading)}</title>",
        "<style>.t{font-weight:600;font-size:11px}</style>",
        f'<text x="{_f(total_width / 2)}" y="16" text-anchor="middle" class="t">'
        f"{escape(heading)}</text>",
    ]
    if not drawn:
        out.append(
            f'<text x="{_f(total_width / 2)}" y="32" text-anchor="middle">'
            "Every metric is certain: one value each, nothing to chart.</text>",
        )
    for row, metric in enumerate(drawn):
        y = header + row * row_height + _MARGIN_TOP
        out += _distribution_panel(metric, result, _MARGIN_LEFT, y)
        if metric.numeric:
            out += _at_least_panel(metric, 2 * _MARGIN_LEFT + _PANEL_WIDTH + _GAP, y)
    out.append("</svg>")
    return "\n".join(out)


def odds_html(
    result: OddsResult, *, title: str = "", report: Report | None = None, standalone: bool = False
) -> str:
    """The odds report of ``result`` as HTML, with the SVG chart after the method section.

    ``report`` is the odds report to show (e.g. one already stamped with its scenario);
    by default it is built from ``result``.
    """
    shown = report if report is not None else odds_report(result, title=title, chart=False)
    chart = f'<figure class="fracas-chart-box">{odds_chart_svg(result, title=title)}</figure>'
    # The chart goes under the headline table (the numbers people read first), if any.
    titles = [section.title for section in shown.sections]
    after = titles.index("Headline") if "Headline" in titles else 0
    return render_html(shown, standalone=standalone, extra=chart, extra_after=after)


def _report_repr_html(report: Report) -> str:
    return render_html(report, standalone=True)


def _odds_repr_html(result: OddsResult) -> str:
    return odds_html(result, standalone=True)


def install_notebook_display() -> None:
    """Give reports and odds results a ``_repr_html_`` drawn by this module.

    The classes live in lower layers (``core``, ``analysis``) that must not import ``io``
    (the layers point one way), so the method is attached from here. ``import fracas``
    imports this module where IPython is running (a notebook), so it is in place there;
    elsewhere, importing this module puts it in place.
    """
    setattr(Report, "_repr_html_", _report_repr_html)  # noqa: B010
    setattr(OddsResult, "_repr_html_", _odds_repr_html)  # noqa: B010


install_notebook_display()
