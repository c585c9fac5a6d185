"""Where the server's work runs: worker processes that can be killed, in two lanes.

Every question is a :class:`~fracas.web.jobs.Job` run by a worker process, never by the
server's own process, so the event loop stays free for the connections (a computation
holds its own interpreter's lock, not the server's) and every core is used. A job that
misses its time limit is stopped by killing its process, which is replaced at once.

The work of each question is estimated from the request alone
(:func:`~fracas.web.jobs.work_estimate`) and the question goes to one of two lanes, each
with its own processes and its own queue:

* **cheap** (resolve, validate, forecast, odds that may take little work): ``workers``
  processes, ``queue`` questions waiting at most;
* **expensive** (advice, odds that may take much work, any question on a long text):
  ``workers`` more processes, at a lower scheduling priority (``nice``), so that they use
  the cores the cheap lane leaves idle and give way to it; as many waiting as running.

So a cheap question never waits behind an expensive one. A question that finds its lane
full is not queued: it gets :class:`Busy` with the seconds after which a worker of the
lane is sure to be free (the nearest deadline of the work it runs), for ``Retry-After``.

With a Dask scheduler address the lanes send the jobs to the cluster instead (the one
``fracas sweep --scheduler`` uses), cheap ones first, as many at once as the cluster has
threads; a Dask worker runs each job in a child process that it kills at the deadline
(:func:`run_killable`).
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Protocol

from fracas.web.jobs import CHEAP_WORK, Job, run
from fracas.web.operations import Limits

#: Scheduling priority (nice) of the cheap lane's processes: a little below the server's
#: own process, so that the event loop answers connections first.
CHEAP_NICE = 2
#: Scheduling priority (nice) of the expensive lane's processes: far below the cheap lane's.
EXPENSIVE_NICE = 12
#: Jobs a worker process runs before it is replaced by a fresh one, so that whatever a
#: long run of questions leaves behind in a process (caches, fragments) is given back.
JOBS_PER_PROCESS = 500
#: Seconds the server waits for a Dask scheduler.
CONNECT_TIMEOUT = 10.0


class Busy(Exception):
    """The lane is full: try again in ``retry_after`` seconds."""

    def __init__(self, lane: str, retry_after: int, message: str) -> None:
        super().__init__(message)
        self.lane = lane
        self.retry_after = retry_after


class TimedOut(Exception):
    """The job did not finish within its time limit (its work was stopped)."""


class Stopping(Exception):
    """The server is stopping: the job was dropped or its worker stopped."""


class Crashed(Exception):
    """The worker died while it ran the job (a bug, or the machine out of memory)."""


# ── where one job runs ─────────────────────────────────────────────────────────────────


class Backend(Protocol):
    """Runs one job at a time for a slot, within a number of seconds."""

    def run(self, job: Job, seconds: float) -> tuple[int, bytes]: ...

    def stop(self) -> None: ...

    def pid(self) -> int | None: ...


def _worker_main(connection: Any, nice: int) -> None:
    """A worker process: run the jobs that come through ``connection`` until it closes."""
    # Ctrl+C goes to the whole process group: the server decides, and kills its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    if nice >= EXPENSIVE_NICE and hasattr(os, "SCHED_IDLE"):
        # Below every ordinary priority (Linux): a core for this only when nothing else
        # of the machine wants it, so an expensive question never slows a cheap one.
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    while True:
        try:
            job = pickle.loads(connection.recv_bytes())
        except (EOFError, OSError):
            return
        status, body = run(job)
        connection.send_bytes(status.to_bytes(2, "big") + body)


_CONTEXT: Any = None


def _context() -> Any:
    """Processes start from a fork server that has fracas loaded: quick to start (no new
    interpreter), and never a fork of the server with its threads."""
    global _CONTEXT
    if _CONTEXT is None:
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        name = "forkserver" if "forkserver" in methods else "spawn"
        context = multiprocessing.get_context(name)
        if name == "forkserver":
            context.set_forkserver_preload(["fracas.web.warm"])
        _CONTEXT = context
    return _CONTEXT


class ProcessBackend:
    """One worker process of this machine, started when needed, killed past a deadline."""

    def __init__(self, nice: int) -> None:
        self.nice = nice
        self._lock = threading.Lock()
        self._process: Any = None
        self._connection: Any = None
        self._jobs = 0
        self._stopped = False

    def start(self) -> None:
        with self._lock:
            if self._stopped or self._process is not None:
                return
            context = _context()
            mine, theirs = context.Pipe(duplex=True)
            process = context.Process(
                target=_worker_main, args=(theirs, self.nice), daemon=True, name="fracas-worker"
            )
            process.start()
            theirs.close()
            self._process, self._connection, self._jobs = process, mine, 0

    def pid(self) -> int | None:
        process = self._process
        return None if process is None else int(process.pid)

    def _kill(self) -> None:
        with self._lock:
            process, connection = self._process, self._connection
            self._process = self._connection = None
        if process is not None:
            with contextlib.suppress(OSError, ValueError):
                process.kill()
            process.join(timeout=5)
        if connection is not None:
            connection.close()

    def run(self, job: Job, seconds: float) -> tuple[int, bytes]:
        self.start()
        connection = self._connection
        if connection is None:
            raise Stopping
        try:
            connection.send_bytes(pickle.dumps(job))
            ready = connection.poll(seconds)
            data = connection.recv_bytes() if ready else None
        except (EOFError, OSError):
            self._kill()
            if self._stopped:
                raise Stopping from None
            self.start()
            raise Crashed from None
        if data is None:
            self._kill()
            self.start()  # the next job finds a process ready
            raise TimedOut
        self._jobs += 1
        if self._jobs >= JOBS_PER_PROCESS:
            self._kill()
            self.start()
        return int.from_bytes(data[:2], "big"), data[2:]

    def stop(self) -> None:
        self._stopped = True
        self._kill()


#: A Dask worker's own killable process for each of its threads (see :func:`run_killable`).
_ON_DASK = threading.local()
#: The status a Dask task answers when its job ran out of time (and was killed there).
OUT_OF_TIME = 0


def run_killable(job: Job, seconds: float) -> tuple[int, bytes]:
    """Run ``job`` on a Dask worker in a process of its own, killed after ``seconds``.

    A Dask worker cannot kill the thread that runs a task, so the task hands the job to a
    child process it can kill. Where the worker may not start processes (a daemonic
    worker, under a nanny that makes it one), the job runs in the task's own thread and
    stops where its own work budget ends it.
    """
    backend = getattr(_ON_DASK, "backend", None)
    if backend is None:
        backend = _ON_DASK.backend = ProcessBackend(0)
    try:
        backend.start()
    except AssertionError:  # "daemonic processes are not allowed to have children"
        return run(job)
    try:
        return backend.run(job, seconds)
    except TimedOut:
        return OUT_OF_TIME, b""


class DaskBackend:
    """Jobs sent to a Dask cluster, each killed there at its deadline (see
    :func:`run_killable`); a job still waiting for a Dask worker then is cancelled."""

    def __init__(self, client: Any, priority: int) -> None:
        self.client = client
        self.priority = priority
        self._running: Any = None
        self._stopped = False

    def pid(self) -> int | None:
        return None

    def run(self, job: Job, seconds: float) -> tuple[int, bytes]:
        if self._stopped:
            raise Stopping
        deadline = time.monotonic() + seconds
        # The task's seconds start when it starts: it may wait for a Dask worker first.
        remote = self.client.submit(run_killable, job, seconds, pure=False, priority=self.priority)
        self._running = remote
        try:
            status, body = remote.result(timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            self.client.cancel([remote])
            raise TimedOut from None
        except Exception:
            if self._stopped:
                raise Stopping from None
            raise Crashed from None
        finally:
            self._running = None
        if status == OUT_OF_TIME:
            raise TimedOut
        return int(status), bytes(body)

    def stop(self) -> None:
        self._stopped = True
        remote = self._running
        if remote is not None:
            with contextlib.suppress(Exception):
                self.client.cancel([remote])


def connect(address: str) -> Any:
    """A client of the Dask scheduler at ``address``, or one line saying why not."""
    from fracas.core.errors import FracasError

    try:
        from distributed import Client  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise FracasError("--scheduler needs Dask: pip install 'fracas[dask]'") from None
    connector: Any = Client  # distributed is only partly typed
    client: Any = connector.__new__(connector)
    try:
        client.__init__(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except BaseException as exc:
        with contextlib.suppress(Exception):
            client.close()
        if not isinstance(exc, OSError | TimeoutError | ValueError):
            raise
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FracasError(f"cannot reach the Dask scheduler at {address}: {reason}") from None
    return client


# ── lanes ──────────────────────────────────────────────────────────────────────────────


@dataclass
class Task:
    job: Job
    deadline: float
    future: Future[tuple[int, bytes]] = field(default_factory=Future)


class Lane:
    """Slots that take the lane's waiting tasks in order of arrival, each on its backend."""

    def __init__(self, name: str, backends: list[Backend], waiting: int) -> None:
        self.name = name
        self.backends = backends
        self.waiting = waiting
        self._queue: deque[Task] = deque()
        self._running: dict[int, Task] = {}
        self._condition = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._stopped = False
        #: Seconds a job of this lane has lately taken (a moving mean), for Retry-After.
        self._mean = 1.0

    def start(self) -> None:
        with self._condition:
            if self._threads or self._stopped:
                return
            for index, backend in enumerate(self.backends):
                thread = threading.Thread(
                    target=self._serve,
                    args=(index, backend),
                    name=f"fracas-{self.name}-{index}",
                    daemon=True,
                )
                self._threads.append(thread)
        for backend in self.backends:
            if isinstance(backend, ProcessBackend):
                backend.start()
        for thread in self._threads:
            thread.start()

    def submit(self, job: Job, deadline: float) -> Future[tuple[int, bytes]]:
        self.start()
        with self._condition:
            if self._stopped:
                raise Stopping
            if len(self._running) + len(self._queue) >= len(self.backends) + self.waiting:
                raise Busy(
                    self.name,
                    self._retry_after(),
                    f"the server is busy: {len(self.backends)} {self.name} questions are "
                    f"being worked out and {len(self._queue)} more wait; try again shortly",
                )
            task = Task(job, deadline)
            self._queue.append(task)
            self._condition.notify()
            return task.future

    def _retry_after(self) -> int:
        """Seconds until a place in the lane is likely free: the jobs before it, at the
        pace of the lane's recent jobs, shared by its slots; never past the nearest
        deadline of a running job, by when a slot is sure to be free."""
        now = time.monotonic()
        ahead = len(self._queue) + 1
        likely = self._mean * ahead / len(self.backends)
        ends = [task.deadline - now for task in self._running.values()]
        return max(1, math.ceil(min([likely, *ends])))

    def _take(self, index: int) -> Task | None:
        with self._condition:
            while not self._queue and not self._stopped:
                self._condition.wait()
            if self._stopped:
                return None
            task = self._queue.popleft()
            self._running[index] = task
            return task

    def _serve(self, index: int, backend: Backend) -> None:
        while True:
            task = self._take(index)
            if task is None:
                return
            try:
                if not task.future.set_running_or_notify_cancel():
                    continue  # the client gave up while it waited
                began = time.monotonic()
                seconds = task.deadline - began
                try:
                    if seconds <= 0:
                        # It got no worker in time, and no work was done: the lane was
                        # busy, and trying again later may well be answered.
                        with self._condition:
                            retry = self._retry_after()
                        raise Busy(
                            self.name,
                            retry,
                            f"the server is busy: this question waited for one of the "
                            f"{len(self.backends)} {self.name} workers until its time limit "
                            "ran out; try again shortly",
                        )
                    result = backend.run(task.job, seconds)
                except BaseException as exc:
                    task.future.set_exception(exc)
                else:
                    task.future.set_result(result)
                with self._condition:
                    self._mean = 0.8 * self._mean + 0.2 * (time.monotonic() - began)
            finally:
                with self._condition:
                    self._running.pop(index, None)

    def stop(self) -> None:
        with self._condition:
            self._stopped = True
            waiting = list(self._queue)
            self._queue.clear()
            self._condition.notify_all()
        for task in waiting:
            if task.future.set_running_or_notify_cancel():
                task.future.set_exception(Stopping())
        for backend in self.backends:
            backend.stop()

    def pids(self) -> list[int]:
        return [pid for backend in self.backends if (pid := backend.pid()) is not None]

    def busy(self) -> int:
        with self._condition:
            return len(self._running)


class Pool:
    """The two lanes of a server, on local processes or on a Dask cluster.

    The lanes start with :meth:`start` or the first question. :meth:`stop` kills their
    workers; a later question starts new ones (an app's lifespan may start again), until
    :meth:`close`.
    """

    def __init__(self, limits: Limits, scheduler: str | None = None) -> None:
        self.limits = limits
        self.scheduler = scheduler
        self.client: Any = None
        self._lanes: tuple[Lane, Lane] | None = None
        self._lock = threading.Lock()
        self._closed = False
        if scheduler is not None:
            self.client = connect(scheduler)  # at once: an unreachable cluster is one line

    def _build(self) -> tuple[Lane, Lane]:
        make: Callable[[bool], Backend]
        limits = self.limits
        if self.scheduler is None:

            def make(cheap: bool) -> Backend:
                return ProcessBackend(CHEAP_NICE if cheap else EXPENSIVE_NICE)

            slots = limits.workers
        else:
            if self.client is None:
                self.client = connect(self.scheduler)
            client = self.client
            threads = sum(
                worker.get("nthreads", 1)
                for worker in client.scheduler_info().get("workers", {}).values()
            )
            slots = max(1, threads)

            def make(cheap: bool) -> Backend:
                # Dask runs the higher priority first: cheap questions go ahead.
                return DaskBackend(client, 10 if cheap else 0)

        cheap = Lane("cheap", [make(True) for _ in range(slots)], limits.queue)
        expensive = Lane("expensive", [make(False) for _ in range(slots)], slots)
        return cheap, expensive

    def lanes(self) -> tuple[Lane, Lane]:
        """The cheap lane and the expensive one, started."""
        with self._lock:
            if self._closed:
                raise Stopping
            if self._lanes is None:
                self._lanes = self._build()
            lanes = self._lanes
        for lane in lanes:
            lane.start()
        return lanes

    def start(self) -> None:
        self.lanes()

    def submit(self, job: Job, estimate: float) -> Future[tuple[int, bytes]]:
        """Run ``job`` in the lane its work estimate sorts it into, by its time limit."""
        deadline = time.monotonic() + self.limits.time_limit
        cheap, expensive = self.lanes()
        return (cheap if estimate <= CHEAP_WORK else expensive).submit(job, deadline)

    def stop(self) -> None:
        """Drop the waiting questions and kill every worker."""
        with self._lock:
            lanes, self._lanes = self._lanes, None
        for lane in lanes or ():
            lane.stop()

    def close(self) -> None:
        """Stop for good (the server is stopping), and let go of the cluster."""
        with self._lock:
            self._closed = True
        self.stop()
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close(timeout=2)

    def pids(self) -> list[int]:
        """The worker processes running now (none on a Dask cluster)."""
        lanes = self._lanes
        return [pid for lane in lanes or () for pid in lane.pids()]

    def busy(self) -> int:
        """The questions being worked out now."""
        lanes = self._lanes
        return sum(lane.busy() for lane in lanes or ())


__all__ = ["Busy", "Crashed", "Pool", "Stopping", "TimedOut"]
