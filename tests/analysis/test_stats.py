"""Wilson and mean intervals, checked against hand arithmetic and invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fracas.analysis.stats import mean_interval, wilson_interval, z_score


def test_wilson_interval_of_half_matches_hand_arithmetic() -> None:
    # p = 0.5, n = 100, z = 1.959964: z²/n = 0.0384146
    # centre = (0.5 + 0.0192073) / 1.0384146 = 0.5
    # half = z · √(0.25/100 + 0.0384146/400) / 1.0384146 = 1.959964 · 0.0509513 / 1.0384146
    z = 1.959963984540054
    half = z * math.sqrt(0.0025 + z * z / 100 / 400) / (1 + z * z / 100)
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.5 - half)
    assert high == pytest.approx(0.5 + half)
    assert round(low, 4) == 0.4038


def test_wilson_interval_of_an_unseen_outcome_is_not_a_point() -> None:
    # 0 of 100: the upper bound is z²/n / (1 + z²/n) = 0.0384146 / 1.0384146 = 0.036994
    low, high = wilson_interval(0, 100)
    assert low == 0.0
    assert high == pytest.approx(0.0384146 / 1.0384146, rel=1e-5)


def test_z_score_rejects_impossible_confidence() -> None:
    with pytest.raises(ValueError, match="confidence"):
        z_score(1.0)


@given(st.integers(1, 10_000), st.data())
def test_wilson_interval_holds_the_estimate_inside_zero_one(runs: int, data: st.DataObject) -> None:
    successes = data.draw(st.integers(0, runs))
    low, high = wilson_interval(successes, runs)
    assert 0.0 <= low <= successes / runs <= high <= 1.0


@given(st.integers(0, 50), st.integers(1, 50))
def test_wilson_interval_narrows_with_more_runs(successes: int, extra: int) -> None:
    runs = successes + extra
    narrow = wilson_interval(successes * 4, runs * 4)
    wide = wilson_interval(successes, runs)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]


def test_mean_interval_from_running_sums() -> None:
    # values 1, 2, 3: mean 2, sample variance ((1)² + 0 + (1)²) / 2 = 1, se = √(1/3)
    low, high = mean_interval(6.0, 14.0, 3)
    half = z_score(0.95) * math.sqrt(1 / 3)
    assert (low, high) == pytest.approx((2 - half, 2 + half))
