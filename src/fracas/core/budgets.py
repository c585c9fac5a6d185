"""The budgets and defaults of odds, apart from the code that spends them.

Light on purpose: the command line reads these defaults to build its help, and must not
load the evaluators (or numpy) to start.

>>> AUTO_EXACT_BUDGET < EXACT_BUDGET <= EXACT_LIMIT.default
True
"""

from __future__ import annotations

from fracas.core import limits

#: Default budget of exact odds asked for with ``method="exact"``: step plays of a
#: ruleset's steps.
EXACT_BUDGET = 8_000_000
#: The exact budget of ``method="auto"``, which falls back to sampling past it: enough for
#: every shipped rank-and-flank combat until decided (the largest, ``frontal_charge``,
#: walks 304,418 step plays, under two seconds), small enough that a question exact odds
#: cannot answer is sampled within a few seconds.
AUTO_EXACT_BUDGET = 500_000


def exact_budget_for(method: str) -> int:
    """The exact budget a question gets when it names none: ``exact`` tries hard, ``auto``
    gives up soon and samples.

    >>> exact_budget_for("exact") > exact_budget_for("auto")
    True
    """
    return EXACT_BUDGET if method == "exact" else AUTO_EXACT_BUDGET


#: Exact odds in floats leave out branches less likely than this (their mass is summed
#: and reported: "exact to within …"); fractions keep every branch. On the shipped
#: combats what is left out stays under 5e-6 in all, far below the 0.01 % a report
#: prints, and each goes one and a half to two times faster than at 1e-12.
EXACT_TOLERANCE = 1e-10
#: Default budget of sampling, in dice rolls over all repetitions.
SAMPLE_BUDGET = 20_000_000
#: The most work ``--exact-budget`` may ask for (raised like any limit, docs/limits.md).
EXACT_LIMIT = limits.declare("odds.exact_budget", 100_000_000, "steps --exact-budget may allow")
# A number typed on the command line may not ask for unbounded work either: the other work
# options of odds are bounded by these limits, raised like any other with --limit.
RUNS_LIMIT = limits.declare("odds.runs", 10_000_000, "Monte Carlo repetitions (--runs, --max-runs)")
SAMPLE_LIMIT = limits.declare(
    "odds.sample_budget", 2_000_000_000, "dice rolls --sample-budget may allow"
)
SOLVE_LIMIT = limits.declare("odds.solve_range", 1_000_000, "values --from .. --to of --solve")
#: The most characters one picture (a ruleset's SVG) may take while it is drawn: far above
#: any board a person reads, so ``fracas render`` draws what it is given; ``fracas serve``
#: lowers it to half its answer limit, so that a huge board's picture stops early instead
#: of being drawn whole (some 60 MB for a board of 150,000 hexes) and then left out.
PICTURE_BYTES = limits.declare(
    "budget.picture", 1_000_000_000, "characters of one picture (SVG) while it is drawn"
)
#: Local processes one command may start: a typo (--workers 100000) would fork them all.
PROCESSES_LIMIT = limits.declare("work.processes", 256, "local processes --workers may start")
# --max-cells is a number typed on the command line like --runs: bounded by a limit in turn,
# so that a typo cannot lay out a grid that fills the memory before any cell is worked out.
CELLS_LIMIT = limits.declare("sweep.cells", 1_000_000, "cells of a sweep's grid (--max-cells)")
#: Repetitions of a Monte Carlo run when no precision is asked for.
DEFAULT_RUNS = 10_000
#: Cap on repetitions while sampling towards a precision.
DEFAULT_MAX_RUNS = 200_000
#: Repetitions between two precision checks.
BATCH_RUNS = 1_000
#: Most runs a question sampled towards a precision plays at once: the tally of each
#: BATCH_RUNS of them is still looked at apart (the stop does not move), and at most this
#: many runs past the stop are played for nothing.
PRECISION_SLICE = 8_000
