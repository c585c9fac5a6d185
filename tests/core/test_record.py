"""The two recorders give one total: a rule explained for a report counts what odds count."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fracas.core.modifiers import Breakdown
from fracas.core.record import SUMMING, KeepingRecorder, Sum

rows = st.lists(
    st.tuples(
        st.sampled_from(["plus", "times"]),
        st.fractions(min_value=-50, max_value=50, max_denominator=12),
    ),
    max_size=8,
)


@given(base=st.integers(-100, 100), changes=rows)
def test_a_sum_folds_the_rows_as_the_breakdown_does(
    base: int, changes: list[tuple[str, Fraction]]
) -> None:
    kept = KeepingRecorder().start("n", "base", base)
    summed = SUMMING.start("n", "base", base)
    for op, value in changes:
        kept = getattr(kept, op)("row", value)
        summed = getattr(summed, op)("row", value)
    assert summed.total == kept.total
    assert summed.rows == ()
    assert len(kept.rows) == len(changes) + 1


def test_a_hand_worked_combat_result() -> None:
    # 4 wounds + 1 charge + 3 ranks + 1 standard = 9; times nothing.
    for record in (KeepingRecorder(), SUMMING):
        score = record.start("Combat result", "Start", 0)
        for label, value in (("Wounds", 4), ("Charge", 1), ("Ranks", 3), ("Standard", 1)):
            score = score.plus(label, value)
        assert int(score) == 9


def test_keeping_gives_breakdowns_and_notes_summing_neither() -> None:
    keeping = KeepingRecorder()
    assert isinstance(keeping.start("a", "b", 1), Breakdown)
    assert isinstance(SUMMING.start("a", "b", 1), Sum)
    keeping.note("event")
    SUMMING.note("event")
    assert keeping.notes == ["event"]
    assert SUMMING.notes == ()


def test_int_of_a_fraction_is_refused() -> None:
    with pytest.raises(ValueError, match="half"):
        int(SUMMING.start("half", "base", Fraction(1, 2)))
