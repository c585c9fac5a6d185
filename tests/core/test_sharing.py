"""Exact walks shared with a forked helper process give the one-process answer, to the bit.

Every test that means to share checks that a helper was really forked (a walk that cannot
fork stays in its process, with the same numbers, and would pass for the wrong reason);
where other tests left a thread behind, :func:`test_in_a_fresh_process` runs them
again in a fresh process (:mod:`.forked`).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.analysis.exact import COLLECT_AFTER, ExactStates, exact_states, sharing_work
from fracas.analysis.odds import odds
from fracas.analysis.parallel import running
from fracas.cli.progress import Tracker
from fracas.core import helper as forking
from fracas.core.budgets import EXACT_TOLERANCE
from fracas.core.dice import D6, Dice, DiceGroup, die, draw
from fracas.core.distribution import Distribution, EnumerationBudgetError
from fracas.core.process import watching_work
from fracas.core.record import SUMMING
from fracas.io.scenario import load_scenario

from .forked import FORKS, alone_or_again, counting_forks, reaped

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rankflank"
RANKFLANK = ["frontal_charge", "shared_arc", "flank_charge", "challenge_overkill"]
PARENT = os.getpid()

pytestmark = FORKS
alone_in_this_process, test_in_a_fresh_process = alone_or_again(__file__)


def same(one: ExactStates[Any], two: ExactStates[Any]) -> None:
    """Equal to the bit, in the same order."""
    assert list(two.states.items()) == list(one.states.items())
    assert {m: list(v.items()) for m, v in two.settled.items()} == {
        m: list(v.items()) for m, v in one.settled.items()
    }
    assert (two.dropped, two.work, two.steps, two.peak) == (
        one.dropped,
        one.work,
        one.steps,
        one.peak,
    )


def both(walk: Callable[[], ExactStates[Any]]) -> tuple[ExactStates[Any], ExactStates[Any]]:
    """``walk()`` in one process, then shared from its first step; the helper is gone."""
    alone = walk()
    with counting_forks() as forked, sharing_work(2, from_states=1, even_when_busy=True):
        shared = walk()
    assert len(forked) == 1
    assert reaped(forked[0])
    return alone, shared


# ── a small random process ──────────────────────────────────────────────────────────────


class Blows(DiceGroup[int, None]):
    """``n`` blows, each landing with chance ``p``: a binomial, drawn at once."""

    def __init__(self, n: int, p: Fraction) -> None:
        self.n, self.p = n, p

    def __hash__(self) -> int:
        return hash((self.n, self.p))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Blows) and (self.n, self.p) == (other.n, other.p)

    def roll(self, dice: Dice) -> tuple[int, None]:  # the chances are sixths
        return sum(dice.roll(D6) <= 6 * self.p for _ in range(self.n)), None

    def law(self) -> tuple[tuple[int, Fraction], ...]:
        return tuple(Distribution.binomial(self.n, self.p).items())


#: A skirmish state: (round, my wounds, your wounds, round 1's winner or "").
Skirmish = tuple[int, int, int, str]


class Skirmishes:
    """Two sides trade blows each round: a die roll for who strikes harder, then a group
    of blows; round 1's winner is handed over (:class:`~fracas.core.process.Settling`)
    and the steps that are one group branch (:class:`~fracas.core.process.Branching`)."""

    def __init__(self, blows: tuple[int, int], chance: Fraction, rounds: int, wounds: int) -> None:
        self.blows, self.chance, self.rounds, self.wounds = blows, chance, rounds, wounds
        self.die = die(3)

    def start(self) -> Skirmish:
        return (0, 0, 0, "")

    def finished(self, state: Skirmish) -> bool:
        number, mine, yours, _ = state
        return number >= self.rounds or max(mine, yours) >= self.wounds

    def step(self, state: Skirmish, dice: Dice) -> Skirmish:
        bonus = dice.roll(self.die) if state[0] % 2 else 0
        hits, _ = draw(dice, Blows(self.blows[state[0] % 2] + bonus, self.chance))
        return self._after(state, hits)

    def branch(self, state: Skirmish) -> tuple[Blows, Callable[[int], Skirmish]] | None:
        if state[0] % 2:
            return None  # a step with a die before its blows: replayed
        group = Blows(self.blows[0], self.chance)
        return group, lambda hits: self._after(state, hits)

    def settle(self, state: Skirmish) -> tuple[Skirmish, Mapping[str, Hashable]] | None:
        if not state[3]:
            return None
        return (*state[:3], ""), {"first": state[3]}

    def _after(self, state: Skirmish, hits: int) -> Skirmish:
        number, mine, yours, _ = state
        if number % 2:
            mine += hits
        else:
            yours += hits
        first = ("me" if yours > mine else "you" if mine > yours else "draw") if number == 1 else ""
        return (number + 1, min(mine, self.wounds), min(yours, self.wounds), first)


skirmishes = st.builds(
    Skirmishes,
    blows=st.tuples(st.integers(0, 6), st.integers(0, 6)),
    chance=st.sampled_from([Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]),
    rounds=st.integers(1, 7),
    wounds=st.integers(1, 15),
)


@settings(max_examples=25, deadline=None)
@given(process=skirmishes, tolerance=st.sampled_from([0.0, 1e-9, 1e-4]))
def test_a_shared_walk_is_the_walk_of_one_process_in_floats(
    process: Skirmishes, tolerance: float
) -> None:
    same(*both(lambda: exact_states(process, budget=10**6, fractions=False, tolerance=tolerance)))


@settings(max_examples=10, deadline=None)
@given(process=skirmishes)
def test_a_shared_walk_is_the_walk_of_one_process_in_fractions(process: Skirmishes) -> None:
    alone, shared = both(lambda: exact_states(process, budget=10**6))
    same(alone, shared)
    assert sum(shared.states.values()) == 1


def test_halves_by_hand() -> None:
    # Three blows at 1/2, then three more; no wound limit. Step 1 from the one start state:
    # 0..3 hits with 1/8, 3/8, 3/8, 1/8 (the first half holds the start, the second none).
    # Step 2 cuts those four states in two halves of two; a die of 1..3 adds as many blows.
    # Whatever the halves, the answer is one distribution of the total: its mean is
    # 3/2 for the first round plus (3 + 2) / 2 for the second.
    process = Skirmishes((3, 3), Fraction(1, 2), rounds=2, wounds=100)
    alone, shared = both(lambda: exact_states(process, budget=1_000))
    same(alone, shared)
    assert shared.steps == 3  # the last step only finds every state finished
    assert shared.settled["first"] == alone.settled["first"]
    mean = sum(p * (state[1] + state[2]) for state, p in shared.states.items())
    assert mean == Fraction(3, 2) + Fraction(5, 2)


# ── the rank-and-flank examples ───────────────────────────────────────────────────────


def walk_example(name: str, rounds: int) -> Callable[[], ExactStates[Any]]:
    scenario = load_scenario(
        EXAMPLES / f"{name}.yaml", overrides=[("parameters.max_rounds", rounds)]
    )

    def walk() -> ExactStates[Any]:
        process = scenario.ruleset.process(scenario.model, SUMMING)
        return exact_states(process, budget=10**7, fractions=False, tolerance=EXACT_TOLERANCE)

    return walk


@pytest.mark.parametrize("name", RANKFLANK)
def test_rankflank_examples_shared_are_walked_as_in_one_process(name: str) -> None:
    # One round keeps the test quick; its steps still meet thousands of live states.
    same(*both(walk_example(name, rounds=1)))


def test_a_rankflank_combat_over_two_rounds_shared_is_walked_as_in_one_process() -> None:
    same(*both(walk_example("frontal_charge", rounds=2)))


# ── the helper's life ─────────────────────────────────────────────────────────────────


class Failing(Skirmishes):
    """Fails at the step of round ``at``: in the walk's own process, or where ``marker``
    names a file that exists (the helper makes it as it fails, so that the half it
    failed on fails again wherever it is walked, as a broken rule would)."""

    def __init__(
        self, at: int, error: Callable[[], BaseException], marker: Path | None = None
    ) -> None:
        super().__init__((4, 4), Fraction(1, 2), rounds=6, wounds=30)
        self.at, self.error, self.marker = at, error, marker

    def step(self, state: Skirmish, dice: Dice) -> Skirmish:
        if state[0] == self.at:
            if self.marker is None:
                if os.getpid() == PARENT:
                    raise self.error()
            elif os.getpid() != PARENT:
                self.marker.touch()
                raise self.error()
            elif self.marker.exists():
                raise self.error()
        return super().step(state, dice)

    branch = None  # type: ignore[assignment]  # every step replayed, so ``step`` runs


def test_an_error_in_the_walks_half_is_raised_and_the_helper_is_gone() -> None:
    process = Failing(at=3, error=lambda: ValueError("broken rule"))
    with (
        counting_forks() as forked,
        sharing_work(2, from_states=1, even_when_busy=True),
        pytest.raises(ValueError, match="broken rule"),
    ):
        exact_states(process, budget=10**6)
    assert len(forked) == 1
    assert reaped(forked[0])


def test_an_error_in_the_helpers_half_is_raised_here_and_the_helper_is_gone(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "failed"
    process = Failing(at=3, error=lambda: ValueError("broken rule"), marker=marker)
    with (
        counting_forks() as forked,
        sharing_work(2, from_states=1, even_when_busy=True),
        pytest.raises(ValueError, match="broken rule") as raised,
    ):
        exact_states(process, budget=10**6)
    assert marker.exists()  # the helper met it first
    # Raised again where the walk runs, with the traceback of the rule that broke.
    assert raised.traceback[-1].name == "step"
    assert len(forked) == 1
    assert reaped(forked[0])


def test_ctrl_c_during_a_shared_walk_leaves_no_helper() -> None:
    process = Failing(at=3, error=KeyboardInterrupt)
    with (
        counting_forks() as forked,
        sharing_work(2, from_states=1, even_when_busy=True),
        pytest.raises(KeyboardInterrupt),
    ):
        exact_states(process, budget=10**6)
    assert len(forked) == 1
    assert reaped(forked[0])


class Dying(Skirmishes):
    """The helper dies (as if killed) at its first step of round 2."""

    def step(self, state: Skirmish, dice: Dice) -> Skirmish:
        if state[0] == 2 and os.getpid() != PARENT:
            os._exit(9)
        return super().step(state, dice)

    branch = None  # type: ignore[assignment]


def test_a_helper_that_dies_leaves_its_half_to_the_walk() -> None:
    process = Dying((4, 4), Fraction(1, 2), rounds=5, wounds=30)
    alone = exact_states(Skirmishes((4, 4), Fraction(1, 2), rounds=5, wounds=30), budget=10**6)
    with counting_forks() as forked, sharing_work(2, from_states=1, even_when_busy=True):
        shared = exact_states(process, budget=10**6)
    same(alone, shared)
    assert len(forked) == 1
    assert reaped(forked[0])


def test_the_budget_runs_out_at_the_same_step_with_the_same_error() -> None:
    process = Skirmishes((6, 6), Fraction(1, 2), rounds=7, wounds=30)
    needed = exact_states(process, budget=10**6, fractions=False).work
    seen: dict[int, list[int]] = {1: [], 2: []}
    errors: dict[int, str] = {}
    for processes in (1, 2):
        with (
            counting_forks() as forked,
            sharing_work(processes, from_states=1, even_when_busy=True),
            watching_work(seen[processes].append),
            pytest.raises(EnumerationBudgetError) as raised,
        ):
            exact_states(process, budget=needed - 1, fractions=False)
        errors[processes] = str(raised.value)
        assert len(forked) == processes - 1
        assert all(reaped(pid) for pid in forked)
    assert errors[1] == errors[2] == f"more than {needed - 1:,} step plays"
    # The progress display was told the same totals after each step, up to the last.
    assert seen[1] == seen[2]
    assert seen[2][-1] <= needed - 1


def test_no_helper_while_another_thread_runs() -> None:
    process = Skirmishes((4, 4), Fraction(1, 2), rounds=5, wounds=30)
    alone = exact_states(process, budget=10**6)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with counting_forks() as forked, sharing_work(2, from_states=1, even_when_busy=True):
            shared = exact_states(process, budget=10**6)
    finally:
        stop.set()
        other.join()
    assert forked == []
    same(alone, shared)


def test_small_walks_and_one_process_fork_nothing() -> None:
    process = Skirmishes((4, 4), Fraction(1, 2), rounds=5, wounds=30)
    with counting_forks() as forked:
        with sharing_work(2, even_when_busy=True):  # no step here is that big
            exact_states(process, budget=10**6)
        with sharing_work(1, from_states=1, even_when_busy=True):
            exact_states(process, budget=10**6)
    assert forked == []


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_exact_odds_with_a_shown_bar_share_the_walk_as_workers_allow(workers: int) -> None:
    # Two rounds: steps of thousands of live states, above the threshold for a helper.
    scenario = load_scenario(
        EXAMPLES / "frontal_charge.yaml", overrides=[("parameters.max_rounds", 2)]
    )
    alone = odds(scenario, method="exact")
    tracker = Tracker(show=True)  # as on a terminal: it must start no thread
    with (
        counting_forks() as forked,
        mock.patch.object(forking, "a_core_is_free", return_value=True),  # other work aside
        running(workers=workers, progress=tracker),
    ):
        shared = odds(scenario, method="exact")
    tracker.stop()
    assert shared == alone
    # --workers 1 walks in this process; more share the walk with one helper at most.
    assert len(forked) == min(workers, 2) - 1
    assert all(reaped(pid) for pid in forked)
    assert tracker.done["step plays"] == shared.work


@pytest.mark.parametrize("busy", [True, False])
def test_no_helper_while_every_core_is_busy(busy: bool) -> None:
    process = Skirmishes((4, 4), Fraction(1, 2), rounds=5, wounds=30)
    alone = exact_states(process, budget=10**6)
    with (
        counting_forks() as forked,
        mock.patch.object(forking, "a_core_is_free", return_value=not busy),
    ):
        with sharing_work(2, from_states=1):
            shared = exact_states(process, budget=10**6)
        with sharing_work(2, from_states=1, even_when_busy=True):
            forced = exact_states(process, budget=10**6)
    # A busy machine keeps the walk here unless told otherwise; the numbers never change.
    assert len(forked) == (1 if busy else 2)
    assert all(reaped(pid) for pid in forked)
    same(alone, shared)
    same(alone, forced)


def test_a_free_core_is_seen_in_the_ready_threads(tmp_path: Path) -> None:
    # /proc/loadavg's fourth field: threads ready to run / all threads. This process
    # looking is one of the ready ones: with 2 cores, 1 ready leaves one free, 2 none.
    if not Path("/proc/loadavg").exists() or not hasattr(os, "sched_getaffinity"):
        pytest.skip("the platform does not tell")
    seen = {"1/90": True, "2/90": False, "3/90": False}
    real = open

    for field, free in seen.items():
        sample = tmp_path / "loadavg"
        sample.write_text(f"0.50 0.40 0.30 {field} 4242\n")

        def fake_open(path: Any, *args: Any, _sample: Path = sample, **kwargs: Any) -> Any:
            return real(_sample if path == "/proc/loadavg" else path, *args, **kwargs)

        with (
            mock.patch("builtins.open", fake_open),
            mock.patch.object(os, "sched_getaffinity", return_value={0, 1}),
        ):
            assert forking.a_core_is_free() is free


def test_at_least_one_process() -> None:
    with pytest.raises(ValueError, match="at least 1 process"), sharing_work(0):
        pass


class Knot:
    """An object that refers to itself: only the garbage collector frees it."""

    def __init__(self) -> None:
        self.me = self


class Knotting(Skirmishes):
    """Leaves four reference cycles behind at every step play."""

    def __init__(self) -> None:
        super().__init__((8, 8), Fraction(1, 2), rounds=9, wounds=60)
        self.made = 0
        self.freed = 0

    def step(self, state: Skirmish, dice: Dice) -> Skirmish:
        for _ in range(4):
            weakref.finalize(Knot(), self._free)
        self.made += 4
        return super().step(state, dice)

    def _free(self) -> None:
        self.freed += 1

    branch = None  # type: ignore[assignment]


def test_cycles_left_by_the_steps_are_collected_during_the_walk() -> None:
    process = Knotting()
    left: list[int] = []
    with watching_work(lambda _: left.append(process.made - process.freed)):
        # The look ahead plays steps it does not count as work; this test counts knots.
        answer = exact_states(process, budget=10**7, fractions=False, look_ahead=False)
    # Each knot is two objects the collector counts (itself and its attributes): after a
    # step the walk collects if more than 100,000 have piled up, so fewer than 50,000
    # knots are left after any step, however many the walk made.
    assert process.made == 4 * answer.work > 3 * COLLECT_AFTER
    assert process.freed > 0
    assert max(left) < COLLECT_AFTER // 2
