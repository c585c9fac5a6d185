"""The progress display draws without a thread of its own, so exact odds may fork a helper
(tests/core/test_sharing.py checks that they do with the bar shown)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

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


def test_ctrl_c_during_odds_says_how_far_the_work_got() -> None:
    from fracas.cli.odds import odds_interrupted

    exact = Tracker(show=False)
    exact.start(8_000_000, "step plays", "rankflank")
    exact.advance(1_234_567, "step plays")
    assert odds_interrupted(exact) == (
        "exact odds stopped after 1,234,567 of at most 8,000,000 step plays"
    )
    # Sampling after an exact attempt (--method auto): the runs are what counts.
    exact.start(10_000, "runs", "rankflank")
    exact.advance(4_000, "runs")
    assert odds_interrupted(exact) == "4,000 of 10,000 runs of the last odds finished"
    assert odds_interrupted(Tracker(show=False)) == "0 of 0 runs of the last odds finished"


def test_ctrl_c_in_work_done_here_says_so_and_exits_130(capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    from fracas.cli.progress import interruptible

    with (
        pytest.raises(typer.Exit) as stopped,
        interruptible(interrupted=lambda t: "3 of 9 attacks"),
    ):
        raise KeyboardInterrupt
    assert stopped.value.exit_code == 130
    assert capsys.readouterr().err == "fracas: interrupted: 3 of 9 attacks; nothing written\n"


def test_advise_loads_no_evaluator() -> None:
    """``advise`` samples nothing, so it starts without the odds machinery (start-up time)."""
    import subprocess
    import sys

    example = Path(__file__).resolve().parents[2] / "examples" / "hex" / "encirclement.yaml"
    probe = (
        "import sys; from fracas.cli import main; sys.argv = ['fracas', 'advise', "
        f"{str(example)!r}, '--side', 'blue', '--reply', '-f', 'json']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('fracas.analysis')), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stderr.strip().splitlines()[-1] == "[]"
