"""Monte Carlo runs spread over local processes or a Dask cluster, with the numbers of one.

Repetition *i* of a question seeded with *s* is a pure function of (scenario, *s*, *i*):
its dice are the random stream of :func:`~fracas.core.streams.run_key` and nothing else is
shared between runs. So the runs can be cut into chunks, played anywhere in any order,
and their tallies merged in run order give the very counts, sums and stopping point of
one process playing them one after the other. Sums are taken from the counts (value ×
count, in value order), so even float metrics add up to the same bits however the runs
were split.

Where the work goes is set by :func:`running` for the code inside it: this process (the
default), ``workers`` local processes, or a Dask cluster at a scheduler address.

>>> from fracas.io.scenario import load_scenario
>>> from fracas.analysis.odds import odds
>>> lair = load_scenario("examples/d100/lair_raid.yaml")
>>> alone = odds(lair, method="mc", runs=400, seed=3)
>>> with running(workers=2):
...     shared = odds(lair, method="mc", runs=400, seed=3)
>>> shared == alone
True
"""

from __future__ import annotations

import math
import os
import signal
import socket
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from fracas.analysis.exact import collect_young, collecting_once_per_step
from fracas.analysis.sample import Sampler, block_sampler
from fracas.analysis.stats import wilson_interval
from fracas.core.budgets import PROCESSES_LIMIT
from fracas.core.errors import FracasError
from fracas.core.limits import check
from fracas.core.streams import run_keys
from fracas.rulesets.base import Summary

if TYPE_CHECKING:  # imported where used: start-up needs none of them
    from concurrent.futures import Future

#: One metric's value in one outcome (the same as :data:`fracas.analysis.odds.Value`).
Value = int | float | str | bool | None
Derive = Callable[[Mapping[str, Any]], Mapping[str, Any]]
T = TypeVar("T")

#: Fewest runs in one chunk sent to another process (smaller ones cost more than they save).
MIN_CHUNK = 250
#: Chunks per worker: enough for a lively progress bar and an even finish.
CHUNKS_PER_WORKER = 8
#: Runs played at once when everything runs in this process: between two progress
#: reports. Many runs at once share their steps (:class:`~.sample.Sampler`).
LOCAL_SLICE = 8192
#: Seconds to wait for a Dask scheduler before giving up.
CONNECT_TIMEOUT = 10.0


# ── tallies ────────────────────────────────────────────────────────────────────────────


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | Fraction) and not isinstance(value, bool)


@dataclass
class Tally:
    """Counts of every metric value over consecutive runs; merges in run order.

    An outcome without a metric counts as the value ``None`` for it.

    >>> first, second = Tally(), Tally()
    >>> first.add({"hits": 2})
    >>> second.add({"hits": 3, "dead": True})
    >>> first.merge(second)
    >>> first.runs, dict(first.counts["dead"]), first.sums["hits"]
    (2, {None: 1, True: 1}, 5.0)
    """

    counts: dict[str, Counter[Value]] = field(default_factory=dict)
    runs: int = 0

    def add(self, summary: Mapping[str, Value], times: int = 1) -> None:
        """Count ``times`` runs whose outcome is ``summary``."""
        counts = self.counts
        for metric, value in summary.items():  # in the summary's order, run after run
            counter = counts.get(metric)
            if counter is None:
                counter = counts[metric] = Counter({None: self.runs} if self.runs else {})
            counter[value] += times
        if len(counts) != len(summary):  # every metric of the summary is counted by now
            for metric, counter in counts.items():
                if metric not in summary:
                    counter[None] += times
        self.runs += times

    def merge(self, later: Tally) -> None:
        """Add the runs of ``later``, which come after this tally's runs."""
        if not later.runs:
            return
        for metric, counter in later.counts.items():
            mine = self.counts.get(metric)
            if mine is None:
                mine = self.counts[metric] = Counter({None: self.runs} if self.runs else {})
            mine.update(counter)
        for metric, mine in self.counts.items():
            if metric not in later.counts:
                mine[None] += later.runs
        self.runs += later.runs

    @property
    def sums(self) -> dict[str, float]:
        """Sum of each numeric metric over the runs that have it."""
        return self._moments(1)

    @property
    def squares(self) -> dict[str, float]:
        """Sum of squares of each numeric metric over the runs that have it."""
        return self._moments(2)

    def _moments(self, power: int) -> dict[str, float]:
        moments: dict[str, float] = {}
        for metric, counter in self.counts.items():
            numbers = sorted(
                (float(value), count)  # type: ignore[arg-type]
                for value, count in counter.items()
                if _is_number(value)
            )
            if numbers:
                moments[metric] = math.fsum(value**power * count for value, count in numbers)
        return moments

    def widest(self, confidence: float) -> float:
        """The largest half-width of the interval of any value of any metric."""
        widest = 0.0
        for counter in self.counts.values():
            for count in counter.values():
                low, high = wilson_interval(count, self.runs, confidence)
                widest = max(widest, (high - low) / 2)
        return widest


# ── one chunk of runs ──────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Question:
    """Everything a process needs to play repetitions of one question (it is pickled).

    ``seed`` is the question's seed: run ``i`` plays with the random stream of
    :func:`~fracas.core.streams.run_key` of (``seed``, ``i``). ``derive`` makes the
    function that adds derived metrics to an outcome (``None``: none).
    """

    ruleset: Any
    model: Any
    seed: int
    derive: Callable[[], Derive | None] | None = None
    #: Tells a worker process that a chunk belongs to a question it has set up already.
    key: str = field(default_factory=lambda: os.urandom(16).hex(), compare=False)


@dataclass(frozen=True)
class Chunk:
    """The runs ``start`` up to (not including) ``stop``, in parts: each part as the run it
    stops before, the tally of its runs and the dice they rolled. One part, or with
    ``every`` asked for (:func:`play_chunk`, :func:`sample`) one ending at each multiple of
    it and one at ``stop``.

    ``over`` means the dice limit was reached: ``stop`` is the run that would have passed
    it, and ``rolls`` counts only the runs before.
    """

    start: int
    parts: tuple[Part, ...]
    over: bool

    @property
    def stop(self) -> int:
        return self.parts[-1][0]

    @property
    def rolls(self) -> int:
        return sum(rolls for _, _, rolls in self.parts)

    @property
    def tally(self) -> Tally:
        """The tally of every part's runs."""
        if len(self.parts) == 1:
            return self.parts[0][1]
        return _merged(tally for _, tally, _ in self.parts)


#: A part of a chunk: the run it stops before, the tally of its runs and their dice rolls.
Part = tuple[int, Tally, int]


Prepared = tuple["Sampler[Any, Summary]", Derive | None]


_PREPARED: dict[str, Prepared] = {}


def _prepare(question: Question) -> Prepared:
    """The set-up of a question, done once per process: its sampler and derived metrics."""
    prepared = _PREPARED.get(question.key)
    if prepared is None:
        derive = question.derive() if question.derive is not None else None
        prepared = (block_sampler(question.ruleset, question.model), derive)
        if len(_PREPARED) >= 4:  # a worker serves one question at a time, or a few
            _PREPARED.pop(next(iter(_PREPARED)))
        _PREPARED[question.key] = prepared
    return prepared


def play_chunk(
    question: Question,
    start: int,
    stop: int,
    limit: int,
    prepared: Prepared | None = None,
    every: int = 0,
) -> Chunk:
    """Play repetitions ``start`` … ``stop − 1`` in this process, at most ``limit`` dice rolls
    (with ``every``, the chunk's parts are cut at each multiple of it: see :class:`Chunk`).

    >>> from fracas.io.scenario import load_scenario
    >>> lair = load_scenario("examples/d100/lair_raid.yaml")
    >>> question = Question(lair.ruleset, lair.model, 0)
    >>> chunk = play_chunk(question, 0, 10, 10**6)
    >>> chunk.tally.runs, chunk.over
    (10, False)
    """
    sample, derive = _prepare(question) if prepared is None else prepared
    cuts = range(start - start % every + every, stop, every) if every else range(0)
    # The sampler's graph outlives the chunk: left to the collector, the tally's and the
    # next chunk's allocations set off full passes over it (a sixth of a long question).
    with collecting_once_per_step():
        keys = run_keys(question.seed, start, stop)
        found, used = sample.play_parts(keys, limit, [cut - start for cut in cuts])
        parts: list[Part] = []
        first = 0
        for summaries, end in zip(found, [*cuts, stop], strict=False):
            end = min(end - start, len(used))
            tally = Tally()
            # Each summary stands for the runs that ended alike: derived once for them all.
            for summary, times in summaries:
                tally.add(summary if derive is None else {**summary, **derive(summary)}, times)
            parts.append((start + end, tally, sum(used[first:end])))
            first = end
        collect_young()
    return Chunk(start, tuple(parts), len(used) < stop - start)


def _merged(tallies: Iterable[Tally]) -> Tally:
    whole = Tally()
    for tally in tallies:
        whole.merge(tally)
    return whole


def _joined(parts: Iterable[Part], every: int, stop: int) -> tuple[Part, ...]:
    """``parts`` of consecutive chunks, those that a chunk's end cut short of a multiple of
    ``every`` (or of ``stop``; with ``every`` 0, all of them) joined to the next."""
    joined: list[Part] = []
    pending: Part | None = None
    for part in parts:
        if pending is not None:
            merged = _merged((pending[1], part[1]))
            part = (part[0], merged, pending[2] + part[2])
        if part[0] != stop and not (every and part[0] % every == 0):
            pending = part
        else:
            joined.append(part)
            pending = None
    if pending is not None:
        joined.append(pending)
    return tuple(joined)


def _play_chunk_alone(
    question: Question, start: int, stop: int, limit: int, every: int = 0
) -> Chunk:
    """:func:`play_chunk` in a worker process or on a Dask worker: nothing spreads further."""
    token = _RUNNER.set(Runner())
    try:
        return play_chunk(question, start, stop, limit, every=every)
    finally:
        _RUNNER.reset(token)


# ── where the work runs ────────────────────────────────────────────────────────────────


class ProgressSink(Protocol):
    """Told how much work is done; a display decides what to show."""

    def start(self, total: int, unit: str, label: str) -> None:
        """New work of ``total`` ``unit`` (runs, cells) begins."""

    def advance(self, done: int, unit: str = "runs") -> None:
        """``done`` more ``unit`` have finished."""


class Pool(Protocol):
    """Runs a function call somewhere else and hands back a future of its result."""

    workers: int

    def submit(self, function: Callable[..., T], *args: Any) -> Future[T]: ...

    def forget(self) -> None:
        """Stop every task not finished yet (its result will not be read)."""

    def close(self, *, abandon: bool) -> None: ...


@dataclass
class Runner:
    """Where :func:`sample` plays its runs and what it tells about its progress.

    Local processes start when work first needs them (an exact answer needs none).
    """

    connected: Pool | None = None
    progress: ProgressSink | None = None
    local_workers: int = 1

    @property
    def workers(self) -> int:
        if self.connected is not None:
            return self.connected.workers
        return self.local_workers

    @property
    def pool(self) -> Pool | None:
        """Where work goes: ``None`` for this process."""
        if self.connected is None and self.local_workers > 1:
            self.connected = _LocalPool(self.local_workers)
        return self.connected


_RUNNER: ContextVar[Runner] = ContextVar("fracas_runner", default=Runner())  # noqa: B039


def current() -> Runner:
    """The runner set by the innermost :func:`running` (this process when none)."""
    return _RUNNER.get()


def _deliver(future: Future[T], value: T) -> None:
    # A callback runs in the pool's own thread and must never raise (that thread would
    # die and the pool hang), so a future given up meanwhile is simply left alone.
    from concurrent.futures import InvalidStateError

    with suppress(InvalidStateError):
        future.set_result(value)


def _fail(future: Future[Any], error: BaseException) -> None:
    from concurrent.futures import InvalidStateError

    with suppress(InvalidStateError):
        future.set_exception(error)


class _LocalPool:
    """``workers`` processes of this machine (forked where the platform can)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._tasks = 0
        #: Tasks sent whose result has not come back (given up on or not).
        self._outstanding: set[int] = set()
        self._pool = self._start()

    def _start(self) -> Any:
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        # All processes start here, before any progress display starts a thread.
        return context.Pool(self.workers, initializer=_worker_started)

    def submit(self, function: Callable[..., T], *args: Any) -> Future[T]:
        from concurrent.futures import Future

        future: Future[T] = Future()
        self._tasks += 1
        task = self._tasks
        self._outstanding.add(task)

        def delivered(value: T) -> None:
            self._outstanding.discard(task)
            _deliver(future, value)

        def failed(error: BaseException) -> None:
            self._outstanding.discard(task)
            _fail(future, error)

        self._pool.apply_async(function, args, callback=delivered, error_callback=failed)
        return future

    def forget(self) -> None:
        """Stop the work still queued or running: its results are no longer wanted."""
        if self._outstanding:
            self._pool.terminate()
            self._pool.join()
            self._outstanding.clear()
            self._pool = self._start()

    def close(self, *, abandon: bool) -> None:
        if abandon or self._outstanding:
            self._pool.terminate()
        else:
            self._pool.close()
        self._pool.join()


def _worker_started() -> None:
    # Ctrl-C is the parent's to handle: it stops the workers itself, with no tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _RUNNER.set(Runner())


def _refuse_unreachable(address: str) -> None:
    """Refuse at once a TCP scheduler address nothing listens on: Dask's client would
    retry it until its timeout, seconds for what the first try already knew.

    >>> import socket
    >>> with socket.socket() as free:
    ...     free.bind(("127.0.0.1", 0))
    ...     port = free.getsockname()[1]
    >>> try:
    ...     _refuse_unreachable(f"tcp://127.0.0.1:{port}")
    ... except FracasError as error:
    ...     print(str(error).replace(str(port), "PORT"))
    cannot reach the Dask scheduler at tcp://127.0.0.1:PORT: connection refused
    """
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return  # tls:// and others: Dask's own client knows how to reach them
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        return  # not host:port: Dask's client says what is wrong with it
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except ConnectionRefusedError:
        raise FracasError(
            f"cannot reach the Dask scheduler at {address}: connection refused"
        ) from None
    except OSError:
        return  # unresolvable, unreachable: Dask's client tries and names the reason


class _DaskPool:
    """The workers of a Dask distributed cluster, reached through its scheduler."""

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            raise FracasError("--scheduler needs Dask: pip install 'fracas[dask]'") from None
        # Made in two steps to keep hold of a client whose connecting fails: left to the
        # garbage collector, it closes itself at exit, 20 s after the error line, with a
        # traceback. Closed here, at once, while its event loop still runs.
        _refuse_unreachable(address)
        connect: Any = Client  # distributed is only partly typed
        self._client: Any = connect.__new__(connect)
        try:
            self._client.__init__(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except BaseException as exc:
            with suppress(Exception):
                self._client.close()
            if not isinstance(exc, OSError | TimeoutError | ValueError):
                raise
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise FracasError(f"cannot reach the Dask scheduler at {address}: {reason}") from None
        threads = sum(
            worker.get("nthreads", 1)
            for worker in self._client.scheduler_info().get("workers", {}).values()
        )
        self.workers = max(1, threads)
        self._remote: dict[Future[Any], Any] = {}

    def submit(self, function: Callable[..., T], *args: Any) -> Future[T]:
        from concurrent.futures import Future

        future: Future[T] = Future()
        remote: Any = self._client.submit(function, *args, pure=False)
        self._remote[future] = remote
        future.add_done_callback(lambda done: self._remote.pop(done, None))

        def settle(done: Any) -> None:
            try:
                value = done.result()
            except BaseException as exc:  # the task's own error, or its cancellation
                _fail(future, exc)
            else:
                _deliver(future, value)

        remote.add_done_callback(settle)
        return future

    def forget(self) -> None:
        """Cancel the tasks whose results are no longer wanted."""
        remote = list(self._remote.values())
        self._remote.clear()
        if remote:
            self._client.cancel(remote)

    def close(self, *, abandon: bool) -> None:
        self.forget()
        self._client.close()


def check_processes(workers: int) -> None:
    """Refuse ``--workers`` above ``work.processes``: a typo (``--workers 100000``) would
    fork a process per battle, per cell, or per server lane slot until memory ran out."""
    check(PROCESSES_LIMIT.name, workers, path=("--workers",))


def usable_processes() -> int:
    """The processes a command starts when ``--workers`` is not given: every core, within
    ``work.processes``."""
    from fracas.core.helper import cores
    from fracas.core.limits import value

    return min(cores(), value(PROCESSES_LIMIT.name))


@contextmanager
def running(
    *,
    workers: int = 1,
    scheduler: str | None = None,
    progress: ProgressSink | None = None,
) -> Iterator[Runner]:
    """Run the Monte Carlo sampling (and sweeps) inside on ``workers`` processes, or on the
    Dask cluster whose scheduler is at ``scheduler``; tell ``progress`` how it goes.

    The numbers are the same whichever is chosen. Leaving the block stops the processes
    (at once when it is left by an error or Ctrl-C).
    """
    if workers < 1:
        raise FracasError(f"--workers must be at least 1, not {workers}")
    if scheduler is None:
        check_processes(workers)
    runner = Runner(
        _DaskPool(scheduler) if scheduler is not None else None, progress, local_workers=workers
    )
    token = _RUNNER.set(runner)
    abandon = True
    try:
        yield runner
        abandon = False
    finally:
        _RUNNER.reset(token)
        if runner.connected is not None:
            runner.connected.close(abandon=abandon)


def gather_in_order(
    pool: Pool | None,
    calls: Sequence[tuple[Callable[..., T], tuple[Any, ...]]],
    *,
    done: Callable[[int, T], bool] | None = None,
) -> list[T]:
    """Results of ``calls`` in their order, run on ``pool`` (or here, one after another).

    ``done(index, result)`` is told of each result as soon as it is in; when it returns
    True no call after ``index`` is needed: those are cancelled, the ones before it are
    still awaited, and the results up to the stopping one are returned in order.
    """
    if pool is None:
        results: list[T] = []
        for index, (function, args) in enumerate(calls):
            result = function(*args)
            results.append(result)
            if done is not None and done(index, result):
                break
        return results
    futures = [pool.submit(function, *args) for function, args in calls]
    index_of = {id(future): index for index, future in enumerate(futures)}
    finished: dict[int, T] = {}
    pending = set(futures)
    # Calls finish in any order: a stop at call 5 must still wait for calls 0 to 4.
    last = len(calls) - 1
    from concurrent.futures import FIRST_COMPLETED, wait

    abandoned: set[Future[T]] = set()
    try:
        while pending:
            ready, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in ready:
                index = index_of[id(future)]
                if index > last:
                    continue
                finished[index] = future.result()
                if done is not None and done(index, finished[index]):
                    last = min(last, index)
            unneeded = {future for future in pending if index_of[id(future)] > last}
            if unneeded:
                abandoned |= unneeded
                pending -= unneeded
    finally:
        abandoned |= pending
        if abandoned:
            for future in abandoned:
                future.cancel()
            pool.forget()
    return [finished[index] for index in range(last + 1)]


# ── sampling ───────────────────────────────────────────────────────────────────────────


def plan(start: int, stop: int, workers: int) -> list[tuple[int, int]]:
    """Cut runs ``start`` … ``stop − 1`` into consecutive chunks for ``workers``.

    >>> plan(0, 1000, 1)
    [(0, 1000)]
    >>> plan(0, 1000, 2)
    [(0, 250), (250, 500), (500, 750), (750, 1000)]
    """
    runs = stop - start
    if workers <= 1:
        return [(start, stop)] if runs > 0 else []
    size = max(MIN_CHUNK, math.ceil(runs / (workers * CHUNKS_PER_WORKER)))
    return [(first, min(stop, first + size)) for first in range(start, stop, size)]


def sample(question: Question, start: int, stop: int, limit: int, every: int = 0) -> Chunk:
    """Play runs ``start`` … ``stop − 1`` where :func:`current` says, at most ``limit`` dice
    rolls in all: the same chunk, to the bit, as :func:`play_chunk` in one process (its
    parts too, with ``every``).
    """
    runner = current()
    progress = runner.progress
    prepared: Prepared | None = None
    rolls = 0
    parts: list[Part] = []

    def ending(stopped: int, over: bool) -> Chunk:
        return Chunk(start, _joined(parts, every, stopped) or ((stopped, Tally(), 0),), over)

    if runner.pool is None:
        # Here the runs go in slices too, so that a progress display keeps moving.
        prepared = _prepare(question)
        for first in range(start, stop, LOCAL_SLICE):
            chunk = play_chunk(
                question, first, min(stop, first + LOCAL_SLICE), limit - rolls, prepared, every
            )
            rolls += chunk.rolls
            parts.extend(chunk.parts)
            if progress is not None:
                progress.advance(chunk.stop - chunk.start)
            if chunk.over:
                return ending(chunk.stop, True)
        return ending(stop, False)
    calls: list[tuple[Callable[..., Chunk], tuple[Any, ...]]] = [
        (_play_chunk_alone, (question, first, last, limit, every))
        for first, last in plan(start, stop, runner.workers)
    ]

    def tell(_index: int, chunk: Chunk) -> bool:
        if progress is not None:
            progress.advance(chunk.stop - chunk.start)
        return chunk.over

    chunks = gather_in_order(runner.pool, calls, done=tell)
    for chunk in chunks:
        if chunk.over or rolls + chunk.rolls > limit:
            # The limit falls inside this chunk: replay it here with what is left, which
            # stops at the very run one process would have stopped at.
            last = play_chunk(question, chunk.start, chunk.stop, limit - rolls, prepared, every)
            parts.extend(last.parts)
            return ending(last.stop, True)
        rolls += chunk.rolls
        parts.extend(chunk.parts)
    return ending(stop, False)
