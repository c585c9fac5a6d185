"""A helper process forked to share work: started where forking is safe, fed and read
through two pipes, stopped and waited for when the work ends.

The exact walk shares each step's second half with one (:func:`fracas.analysis.exact.
sharing_work`); hex's reply search gives it half of the boards it searches. Both ask one
setting how many processes they may use (:func:`sharing_with`). Nothing a helper does is
seen but through the pipes: it writes nothing to the terminal.

>>> def double(requests, replies):
...     while (number := receive(requests)) is not None:
...         send(replies, 2 * number)
>>> helper = Helper.start(double)
>>> if helper is None:  # a platform that does not fork works alone
...     print(42)
... else:
...     helper.send(21); print(helper.receive()); helper.stop()
42
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from typing import Any, BinaryIO, NoReturn

#: How many processes the work inside :func:`sharing_with` may use.
_PROCESSES: ContextVar[int] = ContextVar("fracas_sharing_processes", default=1)


@contextmanager
def sharing_with(processes: int) -> Iterator[None]:
    """Let the work inside share itself with up to ``processes`` processes: an exact
    walk's steps (:func:`fracas.analysis.exact.sharing_work` adds when a walk forks) and
    hex's reply searches. Two at most help, the second forked as a :class:`Helper` while
    a core is free. The answer is the same whatever ``processes`` is; outside, work stays
    in one process.

    >>> with sharing_with(2):
    ...     sharing_processes()
    2
    >>> sharing_processes()
    1
    """
    if processes < 1:
        raise ValueError(f"work needs at least 1 process, not {processes}")
    token = _PROCESSES.set(processes)
    try:
        yield
    finally:
        _PROCESSES.reset(token)


def sharing_processes() -> int:
    """The processes :func:`sharing_with` allows here (1 outside it)."""
    return _PROCESSES.get()


def cores() -> int:
    """The processor cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not every platform can tell
        return os.cpu_count() or 1


def a_core_is_free() -> bool:
    """Whether fewer threads are ready to run on this machine than this process may use
    cores, this one included: the least of three looks at ``/proc/loadavg`` a few
    milliseconds apart (a program that only starts does not count). ``True`` where the
    platform does not tell."""
    try:
        usable = cores()
        ready = []
        for look in range(3):
            if look:
                time.sleep(0.002)
            with open("/proc/loadavg") as loadavg:
                ready.append(int(loadavg.read().split()[3].split("/")[0]))
    except (AttributeError, OSError, ValueError, IndexError):
        return True
    return min(ready) < usable


#: Whether this platform forks a helper (not macOS, whose system libraries do not survive
#: a fork).
FORKS = hasattr(os, "fork") and sys.platform != "darwin"


class Helper:
    """A forked process that works out part of an answer (the module doc says whose).

    It runs ``serve(requests, replies)``: it reads pickled messages from the first pipe
    and writes pickled replies to the second.
    """

    def __init__(self, pid: int, requests: BinaryIO, replies: BinaryIO) -> None:
        self.pid = pid
        self._requests = requests
        self._replies = replies
        self._alive = True

    @staticmethod
    def start(serve: Callable[[BinaryIO, BinaryIO], None]) -> Helper | None:
        """A helper forked from this process, or ``None`` where forking is not safe."""
        # Python threads are what matter: one may hold a lock (the import lock, a file's
        # buffer) that the fork would copy held. Native threads (a BLAS pool) are prepared
        # for a fork by their libraries, as malloc is, and the helper runs Python only.
        if not FORKS or threading.active_count() != 1:
            return None
        requests_in, requests_out = os.pipe()
        replies_in, replies_out = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no room for another process: work alone
            for end in (requests_in, requests_out, replies_in, replies_out):
                os.close(end)
            return None
        if pid == 0:
            _live(serve, requests_in, replies_out, others=(requests_out, replies_in))
        os.close(requests_in)
        os.close(replies_out)
        return Helper(pid, open(requests_out, "wb"), open(replies_in, "rb"))

    def send(self, message: object) -> None:
        try:
            send(self._requests, message)
        except OSError:  # the helper is gone: receive() says so
            self._alive = False

    def receive(self) -> Any:
        """The helper's next reply; ``None`` when it failed or is gone (its part is then
        worked out here, where any error it raises has its whole traceback)."""
        if not self._alive:
            return None
        try:
            return receive(self._replies)
        except OSError:
            return None

    def stop(self) -> None:
        """Stop the helper now (it keeps nothing worth finishing) and wait for its end."""
        for pipe in (self._requests, self._replies):
            with suppress(OSError):
                pipe.close()
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def _live(
    serve: Callable[[BinaryIO, BinaryIO], None],
    requests: int,
    replies: int,
    *,
    others: tuple[int, ...],
) -> NoReturn:
    """A helper's whole life: ``serve``, then exit.

    It never returns into the code that forked it, never flushes what that code had
    buffered for its files, and writes nothing to the terminal.
    """
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the walk's process
        for end in others:
            os.close(end)
        silent = os.open(os.devnull, os.O_RDWR)
        for standard in (0, 1, 2):
            os.dup2(silent, standard)
        with open(requests, "rb") as reader, open(replies, "wb") as writer:
            serve(reader, writer)
        status = 0
    finally:
        os._exit(status)


def send(pipe: BinaryIO, message: object) -> None:
    """Write ``message`` to ``pipe``, pickled, after its length."""
    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    pipe.write(len(data).to_bytes(8, "little"))
    pipe.write(data)
    pipe.flush()


def receive(pipe: BinaryIO) -> Any:
    """The next message on ``pipe``, or ``None`` when the other end has closed it."""
    head = pipe.read(8)
    if len(head) < 8:
        return None
    size = int.from_bytes(head, "little")
    data = pipe.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)
