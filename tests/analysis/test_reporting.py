"""The odds report: bars, percentages, long tables, and the text it prints."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from fracas.analysis.reporting import MAX_ROWS, odds_report
from fracas.analysis.results import MetricOdds, OddsResult, ValueOdds, bar, percent
from fracas.core.distribution import Distribution
from fracas.core.report import Table


def exact_result(metric: MetricOdds) -> OddsResult:
    return OddsResult("toy", "exact", "test", 1, "paths", 0, (metric,))


def binomial_metric(n: int) -> MetricOdds:
    values = tuple(
        ValueOdds(k, p, float(p), float(p))
        for k, p in sorted(Distribution.binomial(n, Fraction(1, 2)).items())
    )
    return MetricOdds("heads", True, values, Fraction(n, 2), n / 2, n / 2)


def table_of(result: OddsResult, name: str) -> Table:
    section = next(s for s in odds_report(result).sections if s.title == name)
    table = section.blocks[0]
    assert isinstance(table, Table)
    return table


def test_bar_counts_eighths_of_a_cell() -> None:
    # 0.3 × 20 cells = 6 cells = 48 eighths: six full blocks.
    assert bar(0.3) == "██████"
    # 0.01 × 20 × 8 = 1.6 eighths, rounded to 2: one quarter block.
    assert bar(0.01) == "▎"
    assert bar(1.0) == "█" * 20


@given(st.floats(0, 1))
def test_bar_never_exceeds_its_width(probability: float) -> None:
    assert len(bar(probability)) <= 20


def test_percent() -> None:
    assert percent(Fraction(1, 3)) == "33.33%"
    assert percent(1) == "100.00%"
    assert percent(0.99999) == ">99.99%"
    assert percent(Fraction(1, 3), fractions=True) == "33.33% = 1/3"
    # 1 / 3^70 (34 digits) is beyond 24 characters: folded onto lines of at most 30 digits,
    # the last lines full, as a number is read from the right.
    folded = percent(Fraction(1, 3**70), fractions=True).splitlines()
    assert folded[:2] == ["<0.01% =", "1"]
    assert "".join(folded[2:]).removeprefix("/ ") == str(3**70)
    assert [len(line) for line in folded[2:]] == [len("/ ") + 34 - 30, 30]


def test_short_tables_list_every_value() -> None:
    table = table_of(exact_result(binomial_metric(3)), "heads")
    # 3 coins: 1/8, 3/8, 3/8, 1/8; at least 0 heads is certain, at least 3 is 1/8.
    assert [row[:3] for row in table.rows] == [
        ("0", "12.50%", "100.00%"),
        ("1", "37.50%", "87.50%"),
        ("2", "37.50%", "50.00%"),
        ("3", "12.50%", "12.50%"),
    ]


def test_long_tables_lump_the_rare_tails() -> None:
    # 40 coins: P(≤ 9 heads) = P(≥ 31) ≈ 0.0003 lumps into one row at each end; the 21
    # values in between are still more than 16, so they fall into ranges of two.
    table = table_of(exact_result(binomial_metric(40)), "heads")
    labels = [row[0] for row in table.rows]
    assert labels[0].startswith("≤ ")
    assert labels[-1].startswith("≥ ")
    assert len(labels) <= MAX_ROWS + 2
    shown = sum(float(row[1].rstrip("%").lstrip("<>")) for row in table.rows)
    assert abs(shown - 100) < 0.1
    assert table.rows[0][2] == "100.00%"
