"""What the tests of work shared with a forked helper process have in common.

Work never forks while another thread runs (:class:`fracas.core.helper.Helper`), and some
tests leave threads behind (a Dask client keeps its event loop for the life of the
process): a file of such tests then skips them here and runs them again, all together, in
a fresh process (:func:`alone_or_again`), so that each really forks its helper.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest


@contextmanager
def counting_forks() -> Iterator[list[int]]:
    """The ids of the helpers forked inside."""
    forked: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            forked.append(pid)
        return pid

    with mock.patch.object(os, "fork", fork):
        yield forked


def reaped(pid: int) -> bool:
    """Whether ``pid`` is no child of this process any more (ended and waited for)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


#: The mark of a file of such tests: they need a platform that forks.
FORKS = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
#: The test that runs the others of its file again in a fresh process.
FRESH = "test_in_a_fresh_process"


def alone_or_again(test_file: str) -> tuple[Callable[..., None], Callable[[], None]]:
    """For a file of such tests: its autouse fixture, which skips each test while another
    thread runs here, and the test that then runs them all again in a fresh process.
    A test file takes them as ``alone_in_this_process, test_in_a_fresh_process``."""

    @pytest.fixture(autouse=True)
    def alone_in_this_process(request: pytest.FixtureRequest) -> None:
        skip_unless_alone(request, FRESH)

    def test_in_a_fresh_process() -> None:
        run_alone(test_file, FRESH)

    return alone_in_this_process, test_in_a_fresh_process


def skip_unless_alone(request: pytest.FixtureRequest, fresh: str) -> None:
    """Skip the test unless this process runs no other thread (the test named ``fresh``,
    which runs the others again in a fresh process, always runs)."""
    if request.node.name == fresh:
        return
    if threading.active_count() > 1:
        pytest.skip(f"another thread runs here: {fresh} runs this")


def run_alone(test_file: str, fresh: str) -> None:
    """Run every test of ``test_file`` but ``fresh`` in a fresh process: none may skip."""
    if threading.active_count() == 1:
        pytest.skip("no other thread runs here: every test of this file ran in this process")
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", str(Path(test_file)), "-p", "no:cacheprovider"),
            *("-k", f"not {fresh}"),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    summary = run.stdout.strip().splitlines()[-1]
    assert " passed" in summary  # and nothing skipped: each of them forked its helper
    assert "skipped" not in summary
