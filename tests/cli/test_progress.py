"""The progress display draws without a thread of its own, so exact odds may fork a helper."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from unittest import mock

import pytest

from fracas.analysis.odds import odds
from fracas.analysis.parallel import running
from fracas.cli.progress import Tracker
from fracas.io.scenario import load_scenario

FRONTAL = Path(__file__).resolve().parents[2] / "examples" / "rankflank" / "frontal_charge.yaml"


def test_a_shown_bar_starts_no_thread() -> None:
    tracker = Tracker(show=True)
    before = threading.active_count()
    tracker.start(1_000, "step plays", "rankflank")
    tracker.advance(10, "step plays")
    tracker.advance(990, "step plays")
    assert threading.active_count() == before
    assert tracker.finished("step plays") == "1,000 of 1,000 step plays"
    tracker.stop()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
@pytest.mark.parametrize("workers", [1, 2, 4])
def test_exact_odds_with_a_shown_bar_share_the_walk_as_workers_allow(workers: int) -> None:
    # Two rounds: steps of thousands of live states, above the threshold for a helper.
    scenario = load_scenario(FRONTAL, overrides=[("parameters.max_rounds", 2)])
    alone = odds(scenario, method="exact")
    forked: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            forked.append(pid)
        return pid

    tracker = Tracker(show=True)
    with mock.patch.object(os, "fork", fork), running(workers=workers, progress=tracker):
        shared = odds(scenario, method="exact")
    tracker.stop()
    assert shared == alone
    # --workers 1 walks in this process; more share the walk with one helper at most.
    assert len(forked) == min(workers, 2) - 1
    assert tracker.done["step plays"] == shared.work
