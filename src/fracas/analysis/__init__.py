"""Odds of a scenario: exact distributions, Monte Carlo with error bars, "what would it take".

>>> from fracas.analysis import odds, odds_report, parse_goal, solve
>>> callable(odds) and callable(odds_report) and callable(solve) and callable(parse_goal)
True
"""

from fracas.analysis.odds import ExactAnswer, exact_outcomes, odds, repetition_seed
from fracas.analysis.reporting import odds_data, odds_report
from fracas.analysis.results import MetricOdds, OddsResult, ValueOdds
from fracas.analysis.solve import Goal, SolveResult, parse_goal, solve
from fracas.analysis.stats import wilson_interval
from fracas.analysis.views import HeadlineRow, headline, headline_rows
from fracas.core.budgets import (
    AUTO_EXACT_BUDGET,
    DEFAULT_MAX_RUNS,
    DEFAULT_RUNS,
    EXACT_BUDGET,
    SAMPLE_BUDGET,
)

__all__ = [
    "AUTO_EXACT_BUDGET",
    "DEFAULT_MAX_RUNS",
    "DEFAULT_RUNS",
    "EXACT_BUDGET",
    "SAMPLE_BUDGET",
    "ExactAnswer",
    "Goal",
    "HeadlineRow",
    "MetricOdds",
    "OddsResult",
    "SolveResult",
    "ValueOdds",
    "exact_outcomes",
    "headline",
    "headline_rows",
    "odds",
    "odds_data",
    "odds_report",
    "parse_goal",
    "repetition_seed",
    "solve",
    "wilson_interval",
]
