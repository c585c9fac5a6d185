from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fracas.core.modifiers import Breakdown, Op, to_fraction


def test_rows_fold_in_order_multiplications_then_additions() -> None:
    # 100 × 1.2 = 120; × 1.05 = 126; + 30 = 156; × (1 − 0.25) = 117
    total = (
        Breakdown.start("Atk", "Strength", 100)
        .times("Attack", 1.2)
        .times("Lv", 1.05)
        .plus("Support", 30)
        .times("Pierce", 0.75)
    )
    assert total.total == Fraction(117)
    assert [step.running for step in total.steps()] == [100, 120, 126, 156, 117]


def test_base_row_resets_the_running_value() -> None:
    # A second BASE row replaces what came before: 5 + 2 = 7, then = 3, + 1 = 4
    b = Breakdown.start("x", "a", 5).plus("b", 2)
    b = b.then(b.rows[0].__class__("c", Op.BASE, Fraction(3))).plus("d", 1)
    assert b.total == 4


def test_int_refuses_a_fraction() -> None:
    assert int(Breakdown.start("x", "a", 7).plus("b", 3)) == 10
    with pytest.raises(ValueError, match="not a whole number"):
        int(Breakdown.start("x", "a", 1).times("half", "0.5"))


def test_floats_are_read_as_their_decimal_text() -> None:
    assert to_fraction(1.1) == Fraction(11, 10)
    assert to_fraction(0.9) * 10 == 9


numbers = st.fractions(min_value=-1000, max_value=1000, max_denominator=100)


@given(
    base=numbers,
    rows=st.lists(st.tuples(st.sampled_from([Op.MUL, Op.ADD]), numbers), max_size=12),
)
def test_total_equals_last_running_value_and_a_plain_fold(
    base: Fraction, rows: list[tuple[Op, Fraction]]
) -> None:
    b = Breakdown.start("t", "base", base)
    expected = base
    for op, value in rows:
        b = b.times("m", value) if op is Op.MUL else b.plus("a", value)
        expected = expected * value if op is Op.MUL else expected + value
    steps = list(b.steps())
    assert b.total == expected == steps[-1].running
    assert len(steps) == len(rows) + 1
