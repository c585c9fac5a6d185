"""The HTML renderer: escaped text, the odds chart's geometry, notebook display."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import fracas
from fracas.analysis import odds
from fracas.analysis.results import MetricOdds, OddsResult, ValueOdds
from fracas.core.report import Report, Section, Table, Text
from fracas.io.html import odds_chart_svg, odds_html, render_html

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "src" / "fracas" / "web"


def coin(name: str = "hits") -> OddsResult:
    hits = MetricOdds(
        name,
        True,
        (ValueOdds(0, Fraction(1, 4), 0.25, 0.25), ValueOdds(1, Fraction(3, 4), 0.75, 0.75)),
        Fraction(3, 4),
    )
    return OddsResult("coin", "exact", "single play", 1, "play", 0, (hits,))


def test_every_text_is_escaped() -> None:
    report = Report(
        "demo<",
        "<script>alert(1)</script>",
        (Section("A & B", (Text("<i>x</i>", strong=True), Table(("<c>",), (("<d>",),)))),),
        overrides=("units[0].name=<e>",),
    )
    html = render_html(report)
    assert "<script>" not in html
    for text in ("&lt;script&gt;", "A &amp; B", "&lt;i&gt;x&lt;/i&gt;", "&lt;c&gt;", "&lt;d&gt;"):
        assert text in html
    assert "--set units[0].name=&lt;e&gt;" in html  # the footer, overrides included
    chart = odds_chart_svg(coin("<hits>"), title="<t>")
    assert "<hits>" not in chart
    assert "&lt;hits&gt;" in chart
    assert "&lt;t&gt;" in chart


def test_number_columns_are_right_aligned_and_totals_in_the_footer() -> None:
    table = Table(
        ("row", "value"), (("Strength", "100"), ("×Lv", "×1.5"), ("Total", "150")), total_rows=1
    )
    html = render_html(Report("r", "t", (Section("s", (table,)),)))
    assert '<tbody><tr><td>Strength</td><td class="num">100</td></tr>' in html
    assert '<tfoot><tr><td>Total</td><td class="num">150</td></tr></tfoot>' in html


def test_the_chart_draws_the_probabilities_to_scale() -> None:
    svg = odds_chart_svg(coin())
    bars = re.findall(
        r'<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill="#4c72b0"', svg
    )
    # The tallest bar is 3/4, so the axis tops out at 80 %; the panel is 150 px high:
    # 1/4 → 0.25 / 0.8 × 150 = 46.875 px, 3/4 → 0.75 / 0.8 × 150 = 140.625 px.
    assert [float(height) for _, height in bars] == [46.88, 140.62]
    # Bars stand on the axis: the panel starts at 26 (heading) + 22 (margin) = 48 px, so its
    # floor is at 48 + 150 = 198 px, and each bar's top is the floor minus its height.
    assert [round(float(y) + float(h), 2) for y, h in bars] == [198.0, 198.0]
    assert ">80%</text>" in svg
    assert ">40%</text>" in svg
    # The at-least curve: P(≥ 0) = 1 at the top (48 px), P(≥ 1) = 3/4 at 198 − 112.5 = 85.5 px.
    points = re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', svg)
    assert [float(y) for y in points] == [48.0, 85.5]


def test_a_certain_metric_gets_no_panel() -> None:
    sure = MetricOdds("losses", True, (ValueOdds(3, Fraction(1), 1.0, 1.0),), Fraction(3))
    result = OddsResult("coin", "exact", "single play", 1, "play", 0, (sure,))
    svg = odds_chart_svg(result)
    assert "nothing to chart" in svg
    assert "<rect" not in svg


def test_odds_html_puts_the_chart_under_the_headline() -> None:
    scenario = fracas.load_scenario(ROOT / "examples" / "rankflank" / "flank_charge.yaml")
    result = odds(scenario, method="mc", runs=300, seed=1)
    html = odds_html(result, title="Flank")
    assert (
        html.index("<h3>Headline</h3>")
        < html.index("<svg")
        < html.index("<h3>Winner of the combat (winner)</h3>")
    )


def test_notebooks_show_reports_and_odds_as_html() -> None:
    report = fracas.load_scenario(ROOT / "examples" / "hex" / "encirclement.yaml").resolve()
    shown = report._repr_html_()  # type: ignore[attr-defined]
    assert shown == render_html(report, standalone=True)
    assert shown.startswith("<style>")
    assert "Closing the ring at Hollow Farm" in shown
    chart = coin()._repr_html_()  # type: ignore[attr-defined]
    assert "<svg" in chart
    assert "<h3>hits</h3>" in chart


NOTEBOOK = """
import sys, types
if sys.argv[1] == "notebook":
    sys.modules["IPython"] = types.ModuleType("IPython")  # a notebook's kernel has it loaded
import fracas
report = fracas.load_scenario(sys.argv[2]).resolve()
print(hasattr(report, "_repr_html_"), "fracas.io.html" in sys.modules)
"""


def test_a_notebook_needs_nothing_but_import_fracas_for_html() -> None:
    # In a fresh interpreter, as a notebook starts: `import fracas` alone must give reports
    # their HTML. Outside IPython (the command line) the HTML module is not loaded for it.
    import subprocess
    import sys

    example = str(ROOT / "examples" / "hex" / "encirclement.yaml")
    for where, expected in (("notebook", "True True"), ("shell", "False False")):
        done = subprocess.run(
            [sys.executable, "-c", NOTEBOOK, where, example],
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.strip() == expected, (where, done.stdout, done.stderr)


def test_the_web_package_names_no_ruleset() -> None:
    # The page and the API ask each ruleset what it can do; they never test for a name.
    names = re.compile(r"\b(hex|d100|rankflank)\b", re.IGNORECASE)
    for path in sorted(WEB.rglob("*")):
        if path.suffix in (".py", ".js", ".html", ".css"):
            found = names.findall(path.read_text(encoding="utf-8"))
            assert not found, f"{path.name} names {found}"
