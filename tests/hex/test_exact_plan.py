"""The exact plan search: it equals brute force over every plan, and says so."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fracas.core.modifiers import to_fraction
from fracas.io.scenario import load_scenario
from fracas.rulesets.hex import Board, HexParams, play_turn
from fracas.rulesets.hex.advisor import attacks
from fracas.rulesets.hex.plan import EXACT_BUDGET, plan_turn

from .test_boards import random_board
from .test_plan import ring_board


def brute_force(board: Board, side: str, params: HexParams) -> Fraction:
    """The best value over every plan: every order of every subset of attacks, each unit
    once, each attack played by play_turn on the board the earlier ones left."""
    enemy = to_fraction(params.advisor_enemy_weight)
    own = to_fraction(params.advisor_own_weight)

    def best(now: Board, used: frozenset[str]) -> Fraction:
        found = Fraction(0)  # stopping is always allowed
        for attacker, target in attacks(now, side):
            if attacker in used:
                continue
            combat = play_turn(now, [(attacker, target)], params).combats[0]
            value = enemy * combat.losses[target] - own * combat.losses[attacker]
            found = max(found, value + best(combat.after, used | {attacker}))
        return found

    return best(board, frozenset())


def small_board(seed: int, units: int) -> Board:
    return random_board(random.Random(seed), units=units, size=4)


@given(st.integers(0, 10**6), st.integers(3, 9), st.sampled_from([1, 0.5, 2]))
def test_the_exact_search_equals_brute_force_on_random_boards(
    seed: int, units: int, own_weight: float
) -> None:
    board = small_board(seed, units)
    params = HexParams(advisor_own_weight=own_weight)
    for side in board.sides():
        attackers = {a for a, _ in attacks(board, side)}
        if len(attackers) > 6:
            continue
        plan = plan_turn(board, side, params)
        assert plan.exact, plan.method
        assert plan.value == brute_force(board, side, params)
        # Its numbers are the turn played.
        turn = play_turn(board, plan.orders, params)
        assert [c.losses[c.target] for c in turn.combats] == [a.enemy_lost for a in plan.attacks]


def test_the_method_says_whether_the_plan_is_proven() -> None:
    board = ring_board()
    proven = plan_turn(board, "blue", HexParams())
    # The ring board of test_plan: a0 → b3 (35) then a2 → b1 (31) is the best of all.
    assert proven.exact
    assert proven.value == 66
    assert proven.method.startswith("best of all plans, proven by an exact search")
    assert f"{proven.plans_evaluated:,} plans evaluated" in proven.method
    beam = plan_turn(board, "blue", HexParams(), width=2)
    assert not beam.exact
    assert beam.method.startswith("best found by beam search of width 2:")
    # A budget too small to prove anything: beam search of the ruleset's width, and the
    # method says why.
    short = plan_turn(board, "blue", HexParams(), budget=1)
    assert not short.exact
    width = HexParams().planner_width
    assert short.method.startswith(
        f"best found by beam search of width {width} (the exact search did not fit the "
        "budget of 1 attacks)"
    )
    assert short.value == 66


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples" / "hex").glob("*.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_is_proven_within_the_default_budget(path: Path) -> None:
    # The floor of the issue: each side of each example gets its best plan proven (not a
    # beam's), within EXACT_BUDGET, and that plan is worth what brute force finds.
    scenario = load_scenario(path)
    board, params = scenario.model.board, scenario.model.params
    for side in board.sides():
        plan = plan_turn(board, side, params)
        assert plan.exact, (side, plan.method)
        assert plan.budget == EXACT_BUDGET
        assert plan.value == brute_force(board, side, params)


@given(st.integers(0, 10**6), st.lists(st.integers(0, 10**6), min_size=1, max_size=6))
def test_evaluating_only_the_rows_a_fight_touches_gives_every_rows_outcome(
    seed: int, picks: list[int]
) -> None:
    # The beam search keeps a parent's outcome and evaluates again only the rows reading
    # the two units of the last fight: that must be what evaluating every row gives.
    from fracas.rulesets.hex.boards import SideAttacks, fought

    board = random_board(random.Random(seed), units=30, size=7)
    params = HexParams()
    for side in board.sides():
        side_attacks = SideAttacks.gather(board, side, params)
        state = side_attacks.start
        used = np.zeros(len(state.strength), dtype=np.bool_)
        known = side_attacks.evaluate_all(state, side_attacks.open_rows(state, used))
        mask = side_attacks.open_mask(state, used)
        for pick in picks:
            rows = side_attacks.open_rows(state, used)
            if not rows.size:
                break
            row = int(rows[pick % rows.size])
            state = fought(side_attacks, state, row, int(known[0][row]), int(known[1][row]))
            used[side_attacks.attacker[row]] = True
            changed = (int(side_attacks.attacker[row]), int(side_attacks.target[row]))
            rows = side_attacks.open_rows(state, used)
            # The searches close a parent's open rows after its fight rather than look
            # at every row of the new board: the same rows.
            mask = side_attacks.close_after(mask, row, state)
            assert (mask == side_attacks.open_mask(state, used)).all()
            known = side_attacks.evaluate_after(known, state, changed, mask)
            again = side_attacks.evaluate_all(state, rows)
            for mine, fresh in zip(known, again, strict=True):
                assert mine[rows].tolist() == fresh[rows].tolist()


@given(st.integers(0, 10**6), st.integers(3, 14))
def test_the_least_work_never_exceeds_what_the_search_does(seed: int, units: int) -> None:
    # least_work must be a floor of the work counted, or the search would be refused
    # where it fits its budget: on random boards, every search that finishes counts at
    # least that many attacks evaluated.
    from fracas.rulesets.hex.boards import SideAttacks
    from fracas.rulesets.hex.plan import Weights, exact_search, least_work

    board = random_board(random.Random(seed), units=units, size=5)
    params = HexParams()
    for side in board.sides():
        side_attacks = SideAttacks.gather(board, side, params)
        proven = exact_search(side_attacks, Weights.of(params), budget=10**9)
        assert proven is not None
        assert proven.attacks_evaluated >= least_work(side_attacks)


def test_a_search_that_cannot_fit_is_refused_before_any_attack_is_evaluated() -> None:
    # 30 units on a 6 × 6 board, and a budget of just the root's open attacks: the root
    # fits, its children cannot, so the search says no without evaluating anything (it
    # used to evaluate the root first), and the plan is the beam's.
    from fracas.rulesets.hex.boards import SideAttacks
    from fracas.rulesets.hex.plan import Weights, exact_search, least_work

    board = random_board(random.Random(5), units=30, size=6)
    params = HexParams()
    side = board.sides()[0]
    side_attacks = SideAttacks.gather(board, side, params)
    budget = int(side_attacks.open_rows(side_attacks.start).size)
    assert least_work(side_attacks) > budget > 0
    calls: list[int] = []
    original = SideAttacks.evaluate

    def counted(self: SideAttacks, *args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    SideAttacks.evaluate = counted  # type: ignore[method-assign, assignment]
    try:
        assert exact_search(side_attacks, Weights.of(params), budget=budget) is None
    finally:
        SideAttacks.evaluate = original  # type: ignore[method-assign]
    assert calls == []
    plan = plan_turn(board, side, params, budget=budget)
    assert not plan.exact
    assert f"(the exact search did not fit the budget of {budget} attacks)" in plan.method
