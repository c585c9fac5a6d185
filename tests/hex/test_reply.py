"""Threats, the enemy's reply and the focused order: worked by hand on small boards,
against brute force on random ones, and on the command line."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from fracas.cli import app
from fracas.core.errors import IllegalActionError
from fracas.core.modifiers import to_fraction
from fracas.rulesets.hex import Board, HexParams, Unit, play_turn
from fracas.rulesets.hex.advisor import advise, attacks
from fracas.rulesets.hex.boards import fought
from fracas.rulesets.hex.reply import focus, replies, threats

from .test_boards import random_board
from .test_exact_plan import brute_force

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "hex"


def duel() -> Board:
    # a (blue) and b (red) side by side; b hits twice as hard.
    return Board.from_rows(
        ["...."],
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10),
            Unit.make("b", "red", (1, 0), attack=20, defense=10),
        ],
    )


def test_threat_and_reply_values_worked_by_hand() -> None:
    params = HexParams()
    # Threat: b strikes 100 × 20 = 2000 against a's 100 × 10 = 1000: r = 2, fraction
    # 4 / (1 + 4) = 0.8 of 100 → 80. a counters 1000 against 1000: 0.5 of 100 → 50.
    (threat,) = threats(duel(), "blue", params)
    assert (threat.attacker, threat.target, threat.distance) == ("b", "a", 1)
    assert (threat.target_lost, threat.attacker_lost, threat.destroys) == (80, 50, False)
    # Our attack a → b: 1000 against 1000 takes 50; b's counter 2000 against 1000 costs 80:
    # value 50 − 80 = −30; both fought and survived: Lv 1 each, a 20 left, b 50.
    # Their reply b → a: 50 × 20 × 1.01 = 1010 against 20 × 10 × 1.01 = 202: r = 5,
    # 25/26 of 20 = 19.23 → 19; a's counter 202 against 50 × 10 × 1.01 = 505: r = 0.4,
    # 0.16/1.16 of 50 = 6.90 → 7. Their value 19 − 7 = 12; net −30 − 12 = −42.
    (reply,) = replies(duel(), "blue", params)
    assert reply.orders == (("a", "b"),)
    assert (reply.our_value, reply.their_value, reply.net) == (
        Fraction(-30),
        Fraction(12),
        Fraction(-42),
    )
    assert reply.their_orders == (("b", "a"),)
    assert (reply.theirs[0].enemy_lost, reply.theirs[0].own_lost) == (19, 7)
    end = reply.end()
    assert (end.unit("a").strength, end.unit("b").strength) == (1, 43)
    assert (end.unit("a").level, end.unit("b").level) == (2, 2)


def test_the_focused_order_on_the_encirclement_example_worked_by_hand() -> None:
    from fracas.io.scenario import load_scenario

    scenario = load_scenario(EXAMPLES / "encirclement.yaml")
    board, params = scenario.model.board, scenario.model.params
    found = focus(board, "blue", "holdout", params)
    # lead first: 1000 + left's and right's support 2 × 0.25 × 100 × 10 = 1500 against the
    # ringed holdout's 100 × 10 × 0.8 = 800: r = 1.875, 3.516/4.516 of 100 = 77.9 → 78;
    # counter 800 against 1000 + 500 = 1500: r = 0.533, 0.284/1.284 of 100 = 22.1 → 22.
    # Then left: 1000 + lead's 0.25 × 78 × 10 = 195 + right's 250 = 1445 against
    # 22 × 10 × 1.01 × 0.8 = 177.76: r = 8.13, 0.985 of 22 = 21.7 → 22, destroyed;
    # counter 177.76 against 1445: r = 0.123, 0.0149 of 100 = 1.49 → 1. 23 of ours in all.
    assert found.attackers == ("lead", "left", "right")
    assert [(s.attack.attacker, s.attack.enemy_lost, s.attack.own_lost) for s in found.steps] == [
        ("lead", 78, 22),
        ("left", 22, 1),
    ]
    assert [(s.target_left, s.attacker_left) for s in found.steps] == [(22, 78), (0, 99)]
    assert found.destroyed
    assert found.own_lost == 23
    # Continue the fight: the board after each attack is the one the next fights on. Both
    # units of a fight gain a level (lead and holdout: Lv 0 → 1); left's kill gains it a
    # second (Lv 0 → 2, as in the board table of the command's report), and holdout's
    # second fight takes it to Lv 2 as it falls.
    assert [s.changed for s in found.steps] == [
        (("lead", 78, 1), ("holdout", 22, 1)),
        (("left", 99, 2), ("holdout", 0, 2)),
    ]
    first = found.after(1)
    assert (first.unit("lead").strength, first.unit("lead").level) == (78, 1)
    assert first.unit("holdout").strength == 22
    assert first.unit("left").strength == 100
    # The second attack forecast on the board the first left is the step's own numbers.
    combat = play_turn(first, [("left", "holdout")], params).combats[0]
    assert (combat.losses["holdout"], combat.losses["left"]) == (22, 1)
    assert found.after(2) == found.end()
    assert found.after(0) == board


def small_board(seed: int, units: int) -> Board:
    return random_board(random.Random(seed), units=units, size=4)


def few_attackers(board: Board, side: str) -> bool:
    return len({a for a, _ in attacks(board, side)}) <= 6


@given(st.integers(0, 10**6), st.integers(3, 8))
def test_the_reply_planner_equals_brute_force(seed: int, units: int) -> None:
    board = small_board(seed, units)
    params = HexParams()
    enemy_weight = to_fraction(params.advisor_enemy_weight)
    own_weight = to_fraction(params.advisor_own_weight)
    for side in board.sides():
        others = [s for s in board.sides() if s != side]
        if not all(few_attackers(board, s) for s in others):
            continue
        found = replies(board, side, params, top=None)
        assert len(found) == len(attacks(board, side))
        for reply in found:
            (attack,) = reply.ours
            combat = play_turn(board, reply.orders, params).combats[0]
            assert reply.our_value == (
                enemy_weight * combat.losses[attack.target]
                - own_weight * combat.losses[attack.attacker]
            )
            best = max((brute_force(combat.after, s, params) for s in others), default=0)
            assert reply.their_value == best
            assert reply.net == reply.our_value - reply.their_value
            assert reply.their_exact
        assert [r.net for r in found] == sorted((r.net for r in found), reverse=True)


@given(
    st.integers(0, 10**6),
    st.integers(3, 12),
    st.sampled_from([(None, 200_000), (None, 40), (1, 0), (2, 0), (3, 0)]),
)
def test_shared_outcomes_give_the_replies_worked_out_one_by_one(
    seed: int, units: int, search: tuple[int | None, int]
) -> None:
    # The fast path (every enemy outcome kept for the next reply's search) against each
    # reply searched on its own: the exact search, one cut short by its budget (beam
    # search takes over part way through the candidates), and beam searches of widths 1-3.
    width, budget = search
    board = small_board(seed, units)
    params = HexParams()
    for side in board.sides():
        for plan in (False, True):
            fast = replies(board, side, params, plan=plan, top=None, width=width, budget=budget)
            plain = replies(
                board, side, params, plan=plan, top=None, width=width, budget=budget, shared=False
            )
            assert fast == plain


@given(st.integers(0, 10**6), st.integers(4, 12), st.integers(1, 4))
def test_searches_sharing_outcomes_find_the_plans_they_find_alone(
    seed: int, units: int, width: int
) -> None:
    # One Recall across beam and exact searches from many states of the same board (the
    # replies' use, and then some): every search finds what it finds with nothing shared.
    from fracas.rulesets.hex.boards import Recall, SideAttacks
    from fracas.rulesets.hex.plan import Weights, _search, exact_search

    board = small_board(seed, units)
    params = HexParams()
    for side in board.sides():
        attacks_of = SideAttacks.gather(board, side, params)
        recall = Recall(attacks_of, limit=64)  # small: starting afresh is exercised too
        for other in board.sides():
            if other == side:
                continue
            ours = SideAttacks.gather(board, other, params)
            for row in range(len(ours)):
                one = np.array([row], dtype=np.int64)
                outcome = ours.evaluate(ours.start, one)
                state = fought(
                    ours,
                    ours.start,
                    row,
                    int(outcome.target_losses[0]),
                    int(outcome.attacker_losses[0]),
                )
                alone, _ = _search(attacks_of, width, state)
                shared, _ = _search(attacks_of, width, state, recall)
                assert shared.rows == alone.rows
                weights = Weights.of(params)
                assert exact_search(attacks_of, weights, start=state, budget=5_000) == (
                    exact_search(attacks_of, weights, start=state, budget=5_000, recall=recall)
                )


def focus_brute_force(board: Board, side: str, target: str, params: HexParams) -> tuple[int, int]:
    """(soldiers taken, −own lost) at best over every order of every subset of attackers."""
    reach = sorted({a for a, t in attacks(board, side) if t == target})
    best = (0, 0)
    for size in range(1, len(reach) + 1):
        for order in itertools.permutations(reach, size):
            try:
                turn = play_turn(board, [(a, target) for a in order], params)
            except IllegalActionError:
                continue  # the target fell earlier: a shorter order says the same
            taken = sum(c.losses[target] for c in turn.combats)
            lost = sum(c.losses[c.attacker] for c in turn.combats)
            best = max(best, (taken, -lost))
    return best


@given(st.integers(0, 10**6), st.integers(4, 10))
def test_the_focused_order_equals_every_permutation_and_subset(seed: int, units: int) -> None:
    board = small_board(seed, units)
    params = HexParams()
    for side in board.sides():
        targets = sorted({t for _, t in attacks(board, side)})
        for target in targets:
            reach = {a for a, t in attacks(board, side) if t == target}
            if len(reach) > 6:
                continue
            found = focus(board, side, target, params)
            assert (found.taken, -found.own_lost) == focus_brute_force(board, side, target, params)
            turn = play_turn(board, [(s.attack.attacker, target) for s in found.steps], params)
            assert [c.losses[target] for c in turn.combats] == [
                s.attack.enemy_lost for s in found.steps
            ]


def test_threats_list_every_enemy_attack_on_the_side_worst_first() -> None:
    board = random_board(random.Random(3), units=30)
    params = HexParams()
    for side in board.sides():
        found = threats(board, side, params)
        expected = {
            (a, t) for enemy in board.sides() if enemy != side for a, t in attacks(board, enemy)
        }
        expected = {(a, t) for a, t in expected if board.unit(t).side == side}
        assert {(x.attacker, x.target) for x in found} == expected
        assert [x.target_lost for x in found] == sorted(
            (x.target_lost for x in found), reverse=True
        )
        for x in found[:5]:
            combat = play_turn(board, [(x.attacker, x.target)], params).combats[0]
            assert (x.target_lost, x.attacker_lost) == (
                combat.losses[x.target],
                combat.losses[x.attacker],
            )


def test_the_commands_in_every_format() -> None:
    path = str(EXAMPLES / "encirclement.yaml")
    text = runner.invoke(app, ["threats", path, "--side", "blue"])
    assert text.exit_code == 0, text.output
    assert "Threats to blue" in text.stdout
    data = json.loads(runner.invoke(app, ["threats", path, "--side", "blue", "-f", "json"]).stdout)
    assert data["result"]["kind"] == "threats"
    # The holdout, ringed by three (×0.8), strikes right at 800 against 1000 + lead's and
    # left's 2 × 250 = 1500 ... each blue unit is attacked by the holdout alone.
    assert {t["target"] for t in data["result"]["threats"]} == {"lead", "left", "right"}
    markdown = runner.invoke(app, ["advise", path, "--side", "blue", "--reply", "-f", "markdown"])
    assert markdown.exit_code == 0, markdown.output
    assert "## Replies to blue" in markdown.stdout
    planned = runner.invoke(
        app, ["advise", path, "--side", "blue", "--reply", "--plan", "-f", "json"]
    )
    result = json.loads(planned.stdout)["result"]
    assert (result["kind"], result["plan"], len(result["replies"])) == ("reply", True, 1)
    # The plan of test_the_focused_order...: 78 − 22 + 22 − 1 = 77, no reply worth making.
    assert (result["replies"][0]["value"], result["replies"][0]["net"]) == (77, 77)
    focused = runner.invoke(app, ["advise", path, "--side", "blue", "--focus", "holdout"])
    assert focused.exit_code == 0, focused.output
    assert "The order destroys holdout for 23 of ours." in focused.stdout


def test_advise_shows_the_best_top_and_the_json_keeps_every_attack() -> None:
    path = str(EXAMPLES / "encirclement.yaml")
    text = runner.invoke(app, ["advise", path, "--side", "blue", "--top", "1"])
    assert text.exit_code == 0, text.output
    assert "The best 1 of 3 legal attacks are shown." in text.stdout
    assert "\n2   " not in text.stdout
    none = runner.invoke(app, ["advise", path, "--side", "blue", "--top", "0", "--reply"])
    assert "None of the 3 legal attacks is answered (top 0)." in none.stdout
    every = runner.invoke(app, ["advise", path, "--side", "blue", "--all"])
    assert "3 legal attacks in all." in every.stdout
    data = json.loads(
        runner.invoke(app, ["advise", path, "--side", "blue", "--top", "1", "-f", "json"]).stdout
    )
    assert data["result"]["total"] == 3
    assert len(data["result"]["attacks"]) == 3


#: Every blue unit of encirclement.yaml with no soldiers, and no orders left to give.
NO_BLUE = [
    *("--set", "units[0].strength=0", "--set", "units[1].strength=0"),
    *("--set", "units[2].strength=0", "--set", "orders=[]"),
]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["threats", "{hex}", "--side", "green"], "--side: no side 'green' (sides: blue, red)"),
        (["advise", "{hex}", "--side", "green", "--reply"], "--side: no side 'green'"),
        (["advise", "{hex}", "--side", "green"], "--side: no side 'green'"),
        (["advise", "{hex}", "--side", "green", "--plan"], "--side: no side 'green'"),
        (["advise", "{hex}", "--side", "blue", *NO_BLUE], "side 'blue' has no unit with soldiers"),
        (
            ["advise", "{hex}", "--side", "blue", "--plan", *NO_BLUE],
            "side 'blue' has no unit with soldiers",
        ),
        (
            ["advise", "{hex}", "--side", "blue", "--reply", *NO_BLUE],
            "side 'blue' has no unit with soldiers",
        ),
        (
            [
                "threats",
                "{hex}",
                "--side",
                "blue",
                "--set",
                "units[0].strength=0",
                "--set",
                "units[1].strength=0",
                "--set",
                "units[2].strength=0",
                "--set",
                "orders=[]",
            ],
            "--side: side 'blue' has no unit with soldiers",
        ),
        (["advise", "{d100}", "--side", "A", "--reply"], "ruleset 'd100' has no reply"),
        (["threats", "{d100}", "--side", "A"], "ruleset 'd100' has no threats"),
        (["advise", "{hex}", "--side", "blue", "--focus", "x"], "--focus: no unit with id 'x'"),
        (["advise", "{hex}", "--side", "blue", "--focus", "lead"], "no unit of 'blue' can attack"),
        (["advise", "{hex}", "--side", "blue", "--top", "-1"], "--top: must be 0 or more"),
        (["advise", "{hex}", "--side", "blue", "--width", "2"], "--width: only goes with --plan"),
        # The side is named by the option the user gave.
        (["render", "{hex}", "--threats", "nobody", "-o", "-"], "--threats: no side 'nobody'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(arguments: list[str], message: str) -> None:
    files = {
        "hex": str(EXAMPLES / "encirclement.yaml"),
        "d100": str(EXAMPLES.parent / "d100" / "lair_raid.yaml"),
    }
    result = runner.invoke(app, [a.format(**files) for a in arguments])
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_the_value_rule_is_the_plans() -> None:
    # The reply's values are the advisor's scores: one attack's value is its score.
    board = duel()
    (advice,) = advise(board, "blue", HexParams())
    (reply,) = replies(board, "blue", HexParams())
    assert reply.our_value == advice.score == Fraction(-30)


def test_the_picture_draws_the_reply_and_the_threats() -> None:
    import xml.etree.ElementTree as ET

    from fracas.rulesets import find_ruleset
    from fracas.rulesets.hex.scenario import HexScenario

    hexes = find_ruleset("hex")
    svg = hexes.picture(
        HexScenario(duel(), (), HexParams()), attacker="a", target="b", reply=True, threats="blue"
    )
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    # The reply of test_threat_and_reply_values_worked_by_hand: b → a takes 19.
    arrows = [e for e in root.iter(f"{ns}line") if e.get("class") == "reply-arrow"]
    assert [(e.get("data-attacker"), e.get("data-target")) for e in arrows] == [("b", "a")]
    # Drawn in the enemy's colour (red's), the one its unit is drawn in, not ours.
    from fracas.rulesets.hex.svg import side_colours

    colours = side_colours(duel())
    assert colours["red"] != colours["blue"]
    assert [e.get("stroke") for e in arrows] == [colours["red"]]
    bodies = {e.get("fill") for e in root.iter(f"{ns}circle") if e.get("class") == "unit-body"}
    assert colours["red"] in bodies
    texts = {e.get("class"): e.text for e in root.iter(f"{ns}text") if e.get("data-id") == "a"}
    assert texts["reply-loss"] == "−19"
    # The threat on a now: b would take 80.
    assert texts["threat-loss"] == "⚠80"


def test_render_reply_needs_an_attack(tmp_path: Path) -> None:
    path = str(EXAMPLES / "encirclement.yaml")
    result = runner.invoke(app, ["render", path, "-o", str(tmp_path / "x.svg"), "--reply"])
    assert result.exit_code == 2
    assert "--reply: needs --attacker and --target" in result.stderr
    assert not (tmp_path / "x.svg").exists()
    drawn = runner.invoke(
        app,
        ["render", path, "-o", str(tmp_path / "y.svg"), "--attacker", "holdout", "--target",
         "lead", "--reply", "--threats", "red"],
    )  # fmt: skip
    assert drawn.exit_code == 0, drawn.output
    assert 'class="reply-arrow"' in (tmp_path / "y.svg").read_text(encoding="utf-8")


def test_every_reply_says_which_search_found_it() -> None:
    # Never unlabelled: the exact search's "best of all plans", or the beam's width, and
    # why the exact search gave way (its budget) when it was tried.
    path = EXAMPLES / "river_crossing.yaml"
    from fracas.io.scenario import load_scenario

    board = load_scenario(path).model.board
    params = HexParams()
    proven = replies(board, "blue", params, top=None)
    assert all(r.their_exact for r in proven)
    assert all(r.their_method.startswith("best of all plans, proven") for r in proven)
    assert {r.our_method for r in proven} == {"one attack of the ranking"}
    beam = replies(board, "blue", params, top=None, width=2)
    assert all(r.their_method.startswith("best found by beam search of width 2:") for r in beam)
    short = replies(board, "blue", params, top=None, budget=1)
    width = params.planner_width
    told = f"best found by beam search of width {width} (the exact search did not fit the budget"
    assert all(r.their_method.startswith(told) for r in short)
    planned = replies(board, "blue", params, plan=True)
    assert planned[0].our_method.startswith("best of all plans, proven")
    # The command says the same in text and JSON.
    text = runner.invoke(app, ["advise", str(path), "--side", "blue", "--reply"]).stdout
    assert "Their replies: best of all plans, proven by an exact search" in text
    assert f"for #1–#{len(proven)}." in " ".join(text.split())
    data = json.loads(
        runner.invoke(
            app, ["advise", str(path), "--side", "blue", "--reply", "--width", "2", "-f", "json"]
        ).stdout
    )
    methods = {r["reply_method"].split(":")[0] for r in data["result"]["replies"]}
    assert methods == {"best found by beam search of width 2"}
    text = runner.invoke(
        app, ["advise", str(path), "--side", "blue", "--reply", "--plan", "--width", "1"]
    ).stdout
    assert "Our turn: best found by beam search of width 1 (greedy)" in " ".join(text.split())


def test_the_reply_table_lists_the_first_attacks_of_a_long_turn_and_the_changed_units() -> None:
    # A row of four red units, each beside a blue one: red's reply is four attacks. With
    # reply_attacks_shown 2 the cell lists two and counts 4 − 2 = 2 more; the JSON keeps 4.
    from fracas.core.report import Table, Text
    from fracas.rulesets.hex.report import reply_report

    units = [Unit.make(f"b{i}", "blue", (2 * i, 0), attack=10, defense=10) for i in range(4)]
    units += [Unit.make(f"r{i}", "red", (2 * i, 1), attack=20, defense=10) for i in range(4)]
    board = Board.from_rows(["........", "........"], units)
    found = replies(board, "blue", HexParams(), top=1)
    assert len(found[0].theirs) == 4
    report = reply_report("blue", found, "t", "v", plan=False, total=1, shown=2)
    (table, *_) = [b for b in report.sections[0].blocks if hasattr(b, "rows")]
    their_cell = table.rows[0][3]
    assert their_cell.count("→") == 2
    assert their_cell.endswith("and 2 more")
    assert len(report.data["replies"][0]["reply"]) == 4
    # Each fight changes its two units: listed are the units whose strength or level
    # moved, the others are counted, and both add up to the 8 units of the board.
    changed, *rest = report.sections[1].blocks
    assert isinstance(changed, Table)
    moved = {row[0] for row in changed.rows}
    end = found[0].end()
    assert moved == {
        u.id
        for u in board.units
        if not end.has_unit(u.id)
        or (end.unit(u.id).strength, end.unit(u.id).level) != (u.strength, u.level)
    }
    unchanged = 8 - len(moved)
    assert [b.text for b in rest if isinstance(b, Text)] == (
        [f"{unchanged} other unit{' stands' if unchanged == 1 else 's stand'} as before."]
        if unchanged
        else []
    )
    # Everything listed (None) is the old cell: every attack, no count.
    full = reply_report("blue", found, "t", "v", plan=False, total=1, shown=None)
    cell = next(b for b in full.sections[0].blocks if hasattr(b, "rows")).rows[0][3]
    assert cell.count("→") == 4
    assert "more" not in cell


@pytest.mark.parametrize("plan", [[], ["--plan"]])
def test_a_reply_width_asked_for_counts_against_the_advise_budget(
    tmp_path: Path, plan: list[str]
) -> None:
    # 16 units, 8 a side, each beside enemies: a width of 10^6 would search for minutes
    # and gigabytes. Like --plan's, it is counted first: 10^6 × 16 units × (8 attackers
    # with --plan + 1 turn × 8 enemies) = 2.56 × 10^8 steps, or without --plan 20 attacks
    # answered × 8 enemies × 16 × 10^6, both above budget.advise's 5,000,000.
    rows = [" ".join("." * 4)] * 4
    units = [
        {"id": f"u{q}{r}", "side": "blue" if (q + r) % 2 else "red", "hex": [q - r // 2, r],
         "strength": 40 + 3 * q + 7 * r, "attack": {"land": 5 + q + r}, "defense": 5 + r}
        for r in range(4) for q in range(4)
    ]  # fmt: skip
    path = tmp_path / "grid.json"
    path.write_text(
        json.dumps({"fracas": 1, "ruleset": "hex", "map": {"rows": rows}, "units": units})
    )
    command = ["advise", str(path), "--side", "blue", "--reply", *plan, "--width", "1000000"]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 2, result.output
    assert "the budget budget.advise of 5,000,000 steps is spent" in result.stderr
    # A small width still answers.
    small = CliRunner().invoke(app, [*command[:-1], "2"])
    assert small.exit_code == 0, small.output
