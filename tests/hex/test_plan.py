"""The turn planner: it beats following the single-attack ranking, and its numbers are
the numbers of the turn played combat by combat."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fracas.cli import app
from fracas.rulesets.hex import Board, HexParams, Unit, advise, play_turn
from fracas.rulesets.hex.plan import plan_turn

from .test_boards import random_board

runner = CliRunner()


def ring_board() -> Board:
    # b3 (0,1) touches a0 (1,0) and a2 (0,2); b1 (1,2) touches a2 only. a2 is ringed by b1
    # and b3 (×0.9); b3 by a0 and a2 (×0.9).
    return Board.from_rows(
        ["....", "....", "...."],
        [
            Unit.make("a0", "blue", (1, 0), attack=10, defense=10),
            Unit.make("b1", "red", (1, 2), strength=50, attack=5, defense=20),
            Unit.make("a2", "blue", (0, 2), attack=20, defense=10),
            Unit.make("b3", "red", (0, 1), strength=50, attack=10, defense=10),
        ],
    )


def test_the_plan_beats_following_the_single_attack_ranking() -> None:
    board = ring_board()
    params = HexParams()
    ranked = [(a.attacker, a.target, a.score) for a in advise(board, "blue", params)]
    # a0 → b3: 1000 + a2's support 0.25 × 100 × 20 = 500 → 1500 against 50 × 10 × 0.9 = 450:
    # r = 10/3, f = 100/109 → 45.87 → 46. Counter 450 against 1000 + a2's 250 = 1250:
    # r = 0.36, f = 0.1296 / 1.1296 → 11.47 → 11. Score 35.
    # a2 → b1: 100 × 20 × 0.9 = 1800 against 50 × 20 = 1000: r = 1.8, f = 3.24 / 4.24 → 38;
    # counter 250 against 900: f = 0.0772 / 1.0772 → 7.16 → 7. Score 31.
    assert ranked == [
        ("a0", "b3", Fraction(35)),
        ("a2", "b3", Fraction(35)),
        ("a2", "b1", Fraction(31)),
    ]
    plan = plan_turn(board, "blue", params, width=4)
    # The ranking sends a2 against b3 as well, which has 4 soldiers left by then: +4, and a2
    # has used its attack. The plan sends a2 against b1 instead: 35 + 31 = 66 against 39.
    assert plan.orders == (("a0", "b3"), ("a2", "b1"))
    assert plan.value == 66
    assert plan.ranking_value == 39
    assert plan.method.startswith("best found by beam search of width 4:")


@pytest.mark.parametrize("seed", range(4))
def test_the_plans_numbers_are_the_turn_played_combat_by_combat(seed: int) -> None:
    board = random_board(random.Random(seed), units=40)
    params = HexParams()
    side = board.sides()[0]
    plan = plan_turn(board, side, params, width=3)
    turn = play_turn(board, plan.orders, params)
    assert len({attacker for attacker, _ in plan.orders}) == len(plan.orders)
    value = Fraction(0)
    for planned, combat in zip(plan.attacks, turn.combats, strict=True):
        assert planned.enemy_lost == combat.losses[combat.target]
        assert planned.own_lost == combat.losses[combat.attacker]
        value += planned.value
    assert plan.value == value
    for index, unit in enumerate(board.units):
        after = turn.end.unit(unit.id).strength if turn.end.has_unit(unit.id) else 0
        assert plan.strength_after[index] == after
    # Width 1 is greedy; a wider beam never reports less than the best it has seen.
    greedy = plan_turn(board, side, params, width=1)
    assert "greedy" in greedy.method
    assert plan.value >= 0
    assert greedy.value >= 0


def test_a_width_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="width must be at least 1"):
        plan_turn(ring_board(), "blue", HexParams(), width=0)


def test_advise_plan_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "ring.yaml"
    board = ring_board()
    units = [
        {
            "id": u.id,
            "side": u.side,
            "hex": list(u.hex),
            "strength": u.strength,
            "attack": {"land": int(u.attack_vs("land"))},
            "defense": int(u.defense),
        }
        for u in board.units
    ]
    document = {"fracas": 1, "ruleset": "hex", "map": {"rows": ["....", "....", "...."]}}
    path.write_text(json.dumps({**document, "units": units}))
    result = runner.invoke(app, ["advise", str(path), "--side", "blue", "--plan", "-f", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["result"]
    assert data["kind"] == "plan"
    assert (data["value"], data["ranking_value"], data["width"]) == (66, 39, 4)
    assert [(a["attacker"], a["target"]) for a in data["attacks"]] == [("a0", "b3"), ("a2", "b1")]
    # Two attackers: the exact search proves the plan well within its budget.
    assert data["exact"] is True
    assert data["method"].startswith("best of all plans")
    text = runner.invoke(app, ["advise", str(path), "--side", "blue", "--plan", "--width", "1"])
    assert text.exit_code == 0, text.output
    assert "best found by beam search of width 1 (greedy)" in text.stdout
    assert "Board after the plan" in text.stdout
    for bad, message in (
        (["--plan", "--width", "0"], "--width: the width must be at least 1, not 0"),
        (["--width", "2"], "--width: only goes with --plan"),
        # width 4 × 2 attackers × 4 units = 32 steps: more than 31.
        (["--plan", "--limit", "budget.advise=31"], "the budget budget.advise of 31 steps"),
    ):
        failed = runner.invoke(app, ["advise", str(path), "--side", "blue", *bad])
        assert failed.exit_code == 2
        assert message in failed.stderr
        assert len(failed.stderr.strip().splitlines()) == 1


def plain_beam(board: Board, side: str, params: HexParams, width: int) -> tuple[int, ...]:
    """Beam search written plainly: every plan carries its whole rows, every node
    evaluates every open attack afresh, children are sorted by (value, levels, rows)."""
    import numpy as np

    from fracas.core.modifiers import to_fraction
    from fracas.rulesets.hex.boards import BoardState, SideAttacks, fought

    attacks = SideAttacks.gather(board, side, params)
    enemy = float(to_fraction(params.advisor_enemy_weight))
    own = float(to_fraction(params.advisor_own_weight))
    start = attacks.start
    Plan = tuple[float, int, tuple[int, ...], BoardState, Any]
    root: Plan = (0.0, 0, (), start, np.zeros(len(start.strength), np.bool_))
    best, beam = root, [root]
    while beam:
        children: list[tuple[float, int, tuple[int, ...], BoardState, Any, int, int, int]] = []
        for value, levels, rows, state, used in beam:
            open_rows = attacks.open_rows(state, used)
            if not open_rows.size:
                continue
            outcome = attacks.evaluate(state, open_rows)
            taken, given = outcome.target_losses, outcome.attacker_losses
            gain = outcome.attacker_level_gain
            score = enemy * taken - own * given
            for at in np.lexsort((open_rows, -gain, -score))[:width].tolist():
                row = int(open_rows[at])
                children.append(
                    (value + float(score[at]), levels + int(gain[at]), (*rows, row), state,
                     used, row, int(taken[at]), int(given[at]))
                )  # fmt: skip
        children.sort(key=lambda c: (-c[0], -c[1], c[2]))
        beam, seen = [], set()
        for value, levels, rows, state, used, row, lost, cost in children:
            after = fought(attacks, state, row, lost, cost)
            now_used = used.copy()
            now_used[attacks.attacker[row]] = True
            key = after.strength.tobytes() + after.level.tobytes() + now_used.tobytes()
            if key not in seen:
                seen.add(key)
                beam.append((value, levels, rows, after, now_used))
            if len(beam) == width:
                break
        if beam and beam[0][:2] > best[:2]:
            best = beam[0]
    return best[2]


@pytest.mark.parametrize("seed", range(16))
def test_the_beam_search_is_the_plain_beam_search(seed: int) -> None:
    # The planner's beam keeps outcomes from the parent, links rows instead of copying
    # them and orders children by their parent's place: the same plans as the plain one.
    from fracas.rulesets.hex.boards import SideAttacks
    from fracas.rulesets.hex.plan import _search

    rng = random.Random(seed)
    board = random_board(rng, units=rng.choice([8, 20, 40]), size=7)
    params = HexParams()
    for side in board.sides():
        attacks = SideAttacks.gather(board, side, params)
        for width in (1, 2, 3):
            node, _ = _search(attacks, width)
            assert node.rows == plain_beam(board, side, params, width)


@pytest.mark.parametrize("seed", range(6))
def test_a_childs_mark_is_the_mark_of_its_whole_board(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The beam tells equal boards apart by a mark kept up from the parent's (two units
    # swapped); it must be what summing every unit's mark afresh gives.
    from fracas.rulesets.hex import plan
    from fracas.rulesets.hex.boards import SideAttacks

    made: list[Any] = []
    child = plan._child

    def checked(*args: Any) -> Any:
        node = child(*args)
        made.append(node)
        return node

    monkeypatch.setattr(plan, "_child", checked)
    rng = random.Random(100 + seed)
    board = random_board(rng, units=rng.choice([8, 20, 40]), size=7)
    for side in board.sides():
        plan._search(SideAttacks.gather(board, side, HexParams()), 3)
    assert made
    for node in made:
        assert node.mark == plan._marked(node.state, node.used)
