"""Progress of long work on a terminal, and what to say when Ctrl-C stops it.

A :class:`Tracker` counts what has finished (runs, cells) whether or not it shows it; on a
terminal, and unless ``--quiet``, it draws a rich progress bar on stderr (done, rate, time
left) that disappears when the work is done. Piped output never carries a progress bar.

The bar is redrawn when work is reported, never by a thread of its own: an exact walk may
fork a helper process (:func:`fracas.analysis.exact.sharing_work`), which is only safe while
this process runs no other thread.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

WorkersOpt = Annotated[
    int | None,
    typer.Option(
        min=1,
        metavar="N",
        help="Local processes sharing the Monte Carlo runs (default: every core); "
        "1 plays them all in this process. The numbers are the same.",
    ),
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        metavar="ADDRESS",
        help="Send the work to the Dask cluster whose scheduler is at this address, "
        "e.g. tcp://10.0.0.5:8786 (needs fracas[dask]). The numbers are the same.",
    ),
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress bar, even on a terminal.")
]

#: Exit status after Ctrl-C, as shells report a process stopped by SIGINT.
EXIT_INTERRUPTED = 130
#: Fewest seconds between two redraws of the bar.
REDRAW_EVERY = 0.1


class Tracker:
    """Counts finished work by unit and, when ``show`` is set, draws it."""

    def __init__(self, *, show: bool) -> None:
        self.done: dict[str, int] = {}
        self.total: dict[str, int] = {}
        self._tasks: dict[str, Any] = {}
        self._labels: dict[str, str] = {}
        self._bar: Any = None
        self._drawn = 0.0
        if show:
            # Imported here: most commands never draw a bar.
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
                auto_refresh=False,
            )

    def start(self, total: int, unit: str, label: str) -> None:
        self.total[unit] = total
        self.done[unit] = 0
        self._labels[unit] = f"{label} {unit}" if label else unit
        task = self._tasks.get(unit)
        if self._bar is not None and task is not None:
            self._bar.reset(task, total=total, description=self._labels[unit], rate="")

    def advance(self, done: int, unit: str = "runs", *, at_once: bool = False) -> None:
        """Count ``done`` more of ``unit``; redraw at most every ``REDRAW_EVERY`` seconds,
        or ``at_once`` (a new stage that will not advance for a while)."""
        if at_once:
            self._drawn = 0.0
        self.done[unit] = self.done.get(unit, 0) + done
        if self._bar is None:
            return
        # The bar starts with the first finished work, after any worker processes have
        # started.
        if not self._bar.live.is_started:
            self._bar.start()
        task = self._tasks.get(unit)
        if task is None:
            task = self._tasks[unit] = self._bar.add_task(
                self._labels.get(unit, unit), total=self.total.get(unit), rate=""
            )
            self._bar.update(task, completed=self.done[unit] - done)
        self._bar.advance(task, done)
        speed = self._bar.tasks[task].speed
        self._bar.update(task, rate=f"{speed:,.0f} {unit}/s" if speed else "")
        now = time.monotonic()
        if now - self._drawn >= REDRAW_EVERY:
            self._drawn = now
            self._bar.refresh()

    def stop(self) -> None:
        if self._bar is not None and self._bar.live.is_started:
            self._bar.stop()

    def finished(self, unit: str) -> str:
        """``4,000 of 10,000 runs`` (what a Ctrl-C message reports)."""
        return f"{self.done.get(unit, 0):,} of {self.total.get(unit, 0):,} {unit}"


def showing(quiet: bool) -> bool:
    """Whether to draw progress: on a terminal, unless ``--quiet``."""
    return not quiet and sys.stderr.isatty()


@contextmanager
def long_work(
    *,
    workers: int | None,
    scheduler: str | None = None,
    quiet: bool = False,
    interrupted: Callable[[Tracker], str],
) -> Iterator[Tracker]:
    """Run the block on ``workers`` processes (default: every core) or a Dask scheduler,
    with progress on a terminal; Ctrl-C stops everything and prints ``interrupted(...)``.
    """
    from fracas.analysis.parallel import running
    from fracas.core.helper import cores

    with (
        interruptible(quiet=quiet, interrupted=interrupted) as tracker,
        running(
            workers=cores() if workers is None else workers,
            scheduler=scheduler,
            progress=tracker,
        ),
    ):
        yield tracker


@contextmanager
def interruptible(
    *, quiet: bool = False, interrupted: Callable[[Tracker], str]
) -> Iterator[Tracker]:
    """Progress on a terminal for work done in this process (no sampling, so no workers:
    the evaluators are not even imported); Ctrl-C prints ``interrupted(...)``, exit 130.
    """
    tracker = Tracker(show=showing(quiet))
    try:
        yield tracker
    except KeyboardInterrupt:
        tracker.stop()
        typer.echo(f"fracas: interrupted: {interrupted(tracker)}; nothing written", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        tracker.stop()
