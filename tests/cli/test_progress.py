"""The progress display draws without a thread of its own, so exact odds may fork a helper
(tests/core/test_sharing.py checks that they do with the bar shown)."""

from __future__ import annotations

import threading

from fracas.cli.progress import Tracker


def test_a_shown_bar_starts_no_thread() -> None:
    tracker = Tracker(show=True)
    before = threading.active_count()
    tracker.start(1_000, "step plays", "rankflank")
    tracker.advance(10, "step plays")
    tracker.advance(990, "step plays")
    assert threading.active_count() == before
    assert tracker.finished("step plays") == "1,000 of 1,000 step plays"
    tracker.stop()
