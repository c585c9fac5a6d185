"""Combats: counters, simultaneous losses, levels, legality, turns. Numbers worked by hand."""

from __future__ import annotations

import pytest

from fracas.core.errors import IllegalActionError
from fracas.rulesets.hex import Board, HexParams, Unit, fight, play_turn
from fracas.rulesets.hex.play import illegal_reason

PARAMS = HexParams()


def row(*units: Unit, rows: tuple[str, ...] = ("......",)) -> Board:
    return Board.from_rows(list(rows), list(units))


def test_even_brawl_grinds_both_sides_down() -> None:
    board = row(
        Unit.make("a", "blue", (0, 0), attack=10, defense=10),
        Unit.make("b", "red", (1, 0), attack=10, defense=10),
    )
    combat = fight(board, "a", "b", PARAMS)
    # Both strikes: 1000 against 1000 → half of 100 = 50 each.
    assert combat.losses == {"a": 50, "b": 50}
    assert combat.after.unit("a").strength == 50
    assert combat.after.unit("b").strength == 50
    # a +1 for fighting; b +1 for countering.
    assert (combat.after.unit("a").level, combat.after.unit("b").level) == (1, 1)


def test_both_strikes_use_the_strength_before_the_fight() -> None:
    board = row(
        Unit.make("a", "blue", (0, 0), attack=20, defense=10),
        Unit.make("b", "red", (1, 0), attack=10, defense=10),
    )
    combat = fight(board, "a", "b", PARAMS)
    # a takes 80 of b's 100, but b's counter still strikes with all 100: 1000 vs 1000 → 50.
    assert combat.losses == {"a": 50, "b": 80}
    assert combat.counter is not None
    assert combat.counter.effective_attack.rows[0].value == 100


def test_both_units_can_be_destroyed_in_one_fight() -> None:
    board = row(
        Unit.make("a", "blue", (0, 0), strength=10, attack=100, defense=1),
        Unit.make("b", "red", (1, 0), strength=10, attack=100, defense=1),
    )
    combat = fight(board, "a", "b", PARAMS)
    # 10 × 100 = 1000 against 10 × 1 = 10: r = 100, 10000/10001 × 10 + 0.5 → 10. Both ways.
    assert combat.losses == {"a": 10, "b": 10}
    assert combat.destroyed == ("a", "b")
    assert combat.after.units == ()


def test_attacks_from_two_hexes_are_never_countered() -> None:
    board = row(
        Unit.make("gun", "blue", (0, 0), attack=10, defense=10, range=(1, 2)),
        Unit.make("b", "red", (2, 0), attack=10, defense=10, range=(1, 3)),
    )
    combat = fight(board, "gun", "b", PARAMS)
    # b could reach 2 hexes, but only distance 1 is ever countered.
    assert combat.counter is None
    assert combat.losses == {"gun": 0, "b": 50}
    assert "2 hexes" in combat.counter_note


def test_a_unit_that_can_fire_at_distance_one_counters_it() -> None:
    board = row(
        Unit.make("a", "blue", (0, 0), attack=10, defense=10),
        Unit.make("b", "red", (1, 0), attack=10, defense=10, range=(1, 2)),
    )
    combat = fight(board, "a", "b", PARAMS)
    # b's range [1, 2] includes 1: it strikes back with 100 × 10 = 1000 against a's 1000.
    assert combat.counter is not None
    assert combat.counter.striker == "b"
    assert combat.losses == {"a": 50, "b": 50}
    # Having countered, b gains the fighting level too.
    assert combat.level_gain("b") == 1


def test_artillery_with_minimum_range_two_cannot_counter_an_adjacent_enemy() -> None:
    board = row(
        Unit.make("a", "blue", (0, 0), attack=10, defense=10),
        Unit.make("guns", "red", (1, 0), attack=10, defense=10, range=(2, 4)),
    )
    combat = fight(board, "a", "guns", PARAMS)
    assert combat.counter is None
    assert combat.losses["a"] == 0
    # The guns could not counter, so they gain nothing; a gains 1 for fighting.
    assert combat.after.unit("guns").level == 0
    assert combat.after.unit("a").level == 1


def test_a_flier_is_not_countered_by_a_unit_without_attack_vs_air() -> None:
    board = row(
        Unit.make("jets", "blue", (0, 0), domain="air", attack={"land": 10}, defense=10),
        Unit.make("tanks", "red", (1, 0), attack={"land": 30}, defense=10),
    )
    combat = fight(board, "jets", "tanks", PARAMS)
    assert combat.counter is None
    assert "no attack against air" in combat.counter_note
    assert combat.losses == {"jets": 0, "tanks": 50}
    assert combat.after.unit("tanks").level == 0


def test_a_flak_unit_does_counter_a_flier() -> None:
    board = row(
        Unit.make("jets", "blue", (0, 0), domain="air", attack={"land": 10}, defense=10),
        Unit.make("flak", "red", (1, 0), attack={"land": 2, "air": 10}, defense=10),
    )
    combat = fight(board, "jets", "flak", PARAMS)
    # The counter uses flak's Atk vs Air: 100 × 10 = 1000 against 1000 → 50.
    assert combat.losses == {"jets": 50, "flak": 50}


def support_board() -> Board:
    # d stands behind a (next to a, not to b); e stands behind b (next to b, not to a).
    return row(
        Unit.make("d", "blue", (0, 0), attack=10, defense=10),
        Unit.make("a", "blue", (1, 0), attack=10, defense=10),
        Unit.make("b", "red", (2, 0), attack=10, defense=10),
        Unit.make("e", "red", (3, 0), attack=10, defense=10),
    )


def test_in_both_strikes_the_supporters_stand_next_to_the_unit_attacked() -> None:
    combat = fight(support_board(), "a", "b", PARAMS)
    # a's attack: 100 × 10 = 1000, no blue unit next to b. b's defence: 100 × 10 = 1000
    # + e's support 0.25 × 100 × 10 = 250 → 1250. r = 0.8, r² = 0.64, 0.64 / 1.64 = 0.3902
    # → floor(39.02 + 0.5) = 39.
    assert combat.strike.effective_attack.total == 1000
    assert combat.strike.effective_defense.total == 1250
    assert combat.losses["b"] == 39
    # b's counter: 1000 + e's 250 (e stands next to b, the unit attacked) = 1250 against
    # a's 1000: d stands next to a only, so it supports nobody. r = 1.25, r² = 1.5625,
    # 1.5625 / 2.5625 = 0.6098 → floor(60.98 + 0.5) = 61.
    assert combat.counter is not None
    assert combat.counter.effective_attack.total == 1250
    assert combat.counter.effective_defense.total == 1000
    assert [s.unit for s in combat.counter.inputs.attacker.supporters] == ["e"]
    assert combat.counter.inputs.defender.supporters == ()
    assert combat.losses["a"] == 61


def test_counter_support_attacker_takes_the_counters_supporters_next_to_the_attacker() -> None:
    combat = fight(support_board(), "a", "b", HexParams(counter_support="attacker"))
    # The attack is unchanged: 1000 against 1250 → 39.
    assert combat.losses["b"] == 39
    # b's counter: 1000 (no red unit next to a) against a's 1000 + d's 250 = 1250:
    # r = 0.8 → 39 of a's 100, the mirror image of the attack.
    assert combat.counter is not None
    assert combat.counter.effective_attack.total == 1000
    assert combat.counter.effective_defense.total == 1250
    assert combat.losses["a"] == 39


def test_a_kill_gives_two_levels_and_the_cap_is_99() -> None:
    board = row(
        Unit.make("a", "blue", (0, 0), attack=10, defense=10, level=5),
        Unit.make("b", "red", (1, 0), strength=1, attack=10, defense=1),
        Unit.make("veteran", "blue", (3, 0), attack=10, defense=10, level=98),
        Unit.make("c", "red", (4, 0), strength=1, attack=10, defense=1),
    )
    # a: 100 × 10 × 1.05 = 1050 against 1 × 1 = 1 → b loses floor(0.999999 + 0.5) = 1 of 1.
    combat = fight(board, "a", "b", PARAMS)
    assert combat.destroyed == ("b",)
    assert combat.after.unit("a").level == 5 + 1 + 1
    # 98 + 1 + 1 = 100, capped at 99.
    veteran = fight(board, "veteran", "c", PARAMS)
    assert veteran.after.unit("veteran").level == 99
    assert "capped at 99" in veteran.levels[0].reason


def test_a_counter_that_destroys_the_attacker_gives_two_levels() -> None:
    board = row(
        Unit.make("a", "blue", (0, 0), strength=2, attack=1, defense=1),
        Unit.make("b", "red", (1, 0), attack=10, defense=10, level=3),
    )
    combat = fight(board, "a", "b", PARAMS)
    # a: 2 × 1 = 2 against 1030 → 0 losses; b: 1030 against 2 → all 2 of a.
    assert combat.losses == {"a": 2, "b": 0}
    assert combat.after.unit("b").level == 3 + 2
    assert not combat.after.has_unit("a")


def test_level_gains_are_parameters() -> None:
    params = HexParams(level_gain_fight=2, level_gain_kill=5, level_cap=50)
    board = row(
        Unit.make("a", "blue", (0, 0), attack=10, defense=10, level=40),
        Unit.make("b", "red", (1, 0), strength=1, attack=10, defense=1),
    )
    # 40 + 2 + 5 = 47 (below the cap of 50).
    assert fight(board, "a", "b", params).after.unit("a").level == 47


@pytest.mark.parametrize(
    ("attacker", "target", "why"),
    [
        ("a", "friend", "both on side 'blue'"),
        ("a", "far", "3 hexes away"),
        ("a", "jets", "no attack against air"),
        ("a", "ghost", "no strength left"),
        ("a", "nobody", "not on the board"),
    ],
)
def test_illegal_attacks_are_errors(attacker: str, target: str, why: str) -> None:
    board = row(
        Unit.make("a", "blue", (0, 0), attack={"land": 10}, defense=10),
        Unit.make("friend", "blue", (1, 0), attack=10, defense=10),
        Unit.make("far", "red", (3, 0), attack=10, defense=10),
        Unit.make("jets", "red", (0, 1), domain="air", attack=10, defense=10),
        Unit.make("ghost", "red", (5, 1), strength=0, attack=10, defense=10),
        rows=("......", "......"),
    )
    reason = illegal_reason(board, attacker, target)
    assert reason is not None
    assert why in reason
    with pytest.raises(IllegalActionError, match=why):
        fight(board, attacker, target, PARAMS)


def test_a_turn_resolves_orders_on_the_evolving_board() -> None:
    board = row(
        Unit.make("a", "blue", (0, 0), attack=10, defense=10),
        Unit.make("b", "red", (1, 0), attack=10, defense=10),
        Unit.make("c", "blue", (2, 0), attack=10, defense=10),
    )
    turn = play_turn(board, [("a", "b"), ("c", "b")], PARAMS)
    first, second = turn.combats
    # 1st: b is encircled by a and c (×0.9), and a is supported by c (0.25 × 100 × 10 = 250):
    # 1250 against 900 → r = 25/18, r² = 625/324, 625/949 × 100 = 65.86 → 66.
    assert first.losses["b"] == 66
    # b's counter: 100 × 10 × 0.9 = 900 against a's 1000 + c's support 250 (c stands next to
    # b, the unit attacked) = 1250 → r = 0.72, r² = 0.5184, 0.5184 / 1.5184 = 0.3414 → 34.
    assert first.losses["a"] == 34
    # 2nd: b has 34 soldiers left; c strikes with 1000 + a's support 0.25 × 66 × 10 = 1165.
    assert second.strike.effective_attack.total == 1165
    assert second.strike.inputs.defender.strength == 34
    assert turn.end.unit("b").strength == 34 - second.losses["b"]
    assert board.unit("b").strength == 100


def test_an_order_made_illegal_by_an_earlier_one_names_its_key_path() -> None:
    board = row(
        Unit.make("a", "blue", (0, 0), strength=10, attack=100, defense=10),
        Unit.make("b", "red", (1, 0), strength=5, attack=1, defense=1),
        Unit.make("c", "blue", (2, 0), attack=10, defense=10),
    )
    with pytest.raises(IllegalActionError) as caught:
        play_turn(board, [("a", "b"), ("c", "b")], PARAMS)
    assert caught.value.path == ("orders", 1)
    assert "not on the board" in caught.value.problem
