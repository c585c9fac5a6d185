"""Confidence intervals for sampled probabilities and means.

>>> low, high = wilson_interval(50, 100)
>>> round(low, 4), round(high, 4)
(0.4038, 0.5962)
>>> wilson_interval(0, 0)
(0.0, 1.0)
"""

from __future__ import annotations

import math
from statistics import NormalDist

from fracas.core.errors import FracasError

#: The highest confidence level an interval can have: above it, ``(1 + c) / 2`` rounds to
#: 1 in a float and the normal quantile is infinite. It is the float just below
#: 0.9999999999999999, the largest float under 1.
MAX_CONFIDENCE = 0.9999999999999998


class ConfidenceError(FracasError, ValueError):
    """A confidence level no interval can have (a bad option, not a bug)."""


class ToleranceError(FracasError, ValueError):
    """An exact tolerance no walk can take (a bad option, not a bug)."""


def check_tolerance(tolerance: float) -> None:
    """Refuse an exact tolerance outside 0 ≤ t < 1 (NaN included), in one sentence.

    >>> check_tolerance(1e-10)
    >>> check_tolerance(float("nan"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    fracas.analysis.stats.ToleranceError: the exact tolerance must be at least 0 and below 1, ...
    >>> check_tolerance(1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    fracas.analysis.stats.ToleranceError: ... not 1.0
    """
    # Written so that NaN fails too: no comparison with NaN is true.
    if not 0 <= tolerance < 1:
        raise ToleranceError(f"the exact tolerance must be at least 0 and below 1, not {tolerance}")


def check_confidence(confidence: float, name: str = "the confidence") -> None:
    """Refuse a confidence level outside 0 < c ≤ :data:`MAX_CONFIDENCE`, in one sentence
    that calls the option ``name``.

    >>> check_confidence(0.95)
    >>> check_confidence(0.9999999999999999, "--confidence")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    fracas.analysis.stats.ConfidenceError: --confidence must be at most 0.9999999999999998 ...
    """
    # Written so that NaN fails too: no comparison with NaN is true.
    if not 0 < confidence < 1:
        raise ConfidenceError(f"{name} must lie strictly between 0 and 1, not {confidence}")
    if not (1 + confidence) / 2 < 1:
        raise ConfidenceError(
            f"{name} must be at most {MAX_CONFIDENCE!r} (no interval is wider in a float), "
            f"not {confidence!r}"
        )


def z_score(confidence: float) -> float:
    """The two-sided normal quantile for ``confidence`` (0.95 → 1.96).

    >>> round(z_score(0.95), 2)
    1.96
    >>> round(z_score(MAX_CONFIDENCE), 2)
    8.21
    """
    check_confidence(confidence)
    return NormalDist().inv_cdf((1 + confidence) / 2)


def wilson_interval(successes: int, runs: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion.

    Unlike the textbook ``p ± z·√(p(1−p)/n)`` it never leaves [0, 1] and does not
    collapse to zero width when an outcome was never (or always) seen, which is exactly
    when a player most needs to know how sure the estimate is.
    """
    if runs <= 0:
        return (0.0, 1.0)
    z = z_score(confidence)
    p = successes / runs
    z2n = z * z / runs
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / runs + z2n / (4 * runs)) / (1 + z2n)
    # Rounding may leave the bounds a hair on the wrong side of the estimate itself.
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def mean_interval(
    total: float, total_of_squares: float, runs: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Normal-approximation interval of a sample mean from its running sums.

    >>> mean_interval(10.0, 10.0, 10)
    (1.0, 1.0)
    """
    if runs <= 0:
        return (-math.inf, math.inf)
    mean = total / runs
    if runs == 1:
        return (mean, mean)
    variance = max(0.0, (total_of_squares - runs * mean * mean) / (runs - 1))
    half = z_score(confidence) * math.sqrt(variance / runs)
    return (mean - half, mean + half)
