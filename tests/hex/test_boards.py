"""Board-level batches against the exact path: every attack, on every state of a turn."""

from __future__ import annotations

import random

import numpy as np
import pytest

from fracas.rulesets.hex import Board, HexParams, Status, Unit, fight
from fracas.rulesets.hex.boards import SideAttacks, apply, attack_pairs
from fracas.rulesets.hex.play import illegal_reason

LETTERS = ".fhmcs~="


def random_board(rng: random.Random, units: int = 40, size: int = 8) -> Board:
    rows = ["".join(rng.choice(LETTERS) for _ in range(size)) for _ in range(size)]
    places = [(c - r // 2, r) for r in range(size) for c in range(size)]
    rng.shuffle(places)
    made = []
    for number, place in enumerate(places[:units]):
        statuses = []
        if rng.random() < 0.3:
            statuses.append(
                Status.make(
                    "s",
                    rng.choice(["buff", "debuff"]),
                    atk_mul=rng.choice([1, 1.2, 0.8, 1.15]),
                    def_mul=rng.choice([1, 1.1, 0.9]),
                    atk_add=rng.choice([0, 50, -30]),
                    def_add=rng.choice([0, 40, -60]),
                )
            )
        low = rng.choice([1, 1, 1, 2])
        made.append(
            Unit.make(
                f"u{number}",
                rng.choice(["blue", "red", "green"]),
                place,
                strength=rng.choice([1, 7, 33, 50, 99, 100, 100, 120]),
                attack={"land": rng.choice([0, 3, 7.5, 10, 10, 12]), "air": rng.choice([0, 4])},
                defense=rng.choice([0, 5, 10, 10, 11.5]),
                domain=rng.choice(["land", "land", "land", "air"]),
                range=(low, low + rng.choice([0, 0, 1, 2])),
                level=rng.choice([0, 0, 3, 50, 98, 99]),
                pierce=rng.choice([0, 0, 0.1, 0.25]),
                statuses=statuses,
            )
        )
    return Board.from_rows(rows, made)


def slow_attacks(board: Board, side: str) -> list[tuple[str, str]]:
    return [
        (a.id, t.id)
        for a in board.units
        if a.side == side
        for t in board.units
        if illegal_reason(board, a.id, t.id) is None
    ]


@pytest.mark.parametrize("seed", range(6))
def test_every_attack_of_a_side_is_what_fight_gives(seed: int) -> None:
    rng = random.Random(seed)
    board = random_board(rng)
    params = HexParams(counter_support=rng.choice(["target", "attacker"]))
    for side in board.sides():
        assert attack_pairs(board, side) == slow_attacks(board, side)
        attacks = SideAttacks.gather(board, side, params)
        outcome = attacks.evaluate(attacks.start)
        for row, (attacker, target) in enumerate(attacks.pairs):
            combat = fight(board, attacker, target, params)
            assert outcome.target_losses[row] == combat.losses[target]
            assert outcome.attacker_losses[row] == combat.losses[attacker]
            assert outcome.attacker_level_gain[row] == combat.level_gain(attacker)


@pytest.mark.parametrize("seed", range(4))
def test_on_a_board_changed_by_earlier_attacks_too(seed: int) -> None:
    rng = random.Random(100 + seed)
    board = random_board(rng, units=48)
    params = HexParams()
    side = board.sides()[0]
    attacks = SideAttacks.gather(board, side, params)
    state = attacks.start
    used = np.zeros(len(board.units) + 1, dtype=bool)
    current = board
    while True:
        rows = attacks.open_rows(state, used)
        if not rows.size:
            break
        outcome = attacks.evaluate(state, rows)
        # Every open attack on this state is what fight gives on the board of this state.
        for at, row in enumerate(rows.tolist()):
            attacker, target = attacks.pairs[row]
            combat = fight(current, attacker, target, params)
            assert outcome.target_losses[at] == combat.losses[target], (attacker, target)
            assert outcome.attacker_losses[at] == combat.losses[attacker], (attacker, target)
        at = rng.randrange(len(rows))
        row = int(rows[at])
        attacker, target = attacks.pairs[row]
        state = apply(attacks, state, row, outcome, at)
        current = fight(current, attacker, target, params).after
        used[attacks.attacker[row]] = True
        for index, unit in enumerate(board.units):
            if current.has_unit(unit.id):
                assert state.strength[index] == current.unit(unit.id).strength
                assert state.level[index] == current.unit(unit.id).level
            else:
                assert state.strength[index] == 0


def test_identical_units_give_exact_halves_and_the_batch_rounds_them_up() -> None:
    # 99 against 99 on hills, both level 7: an even fight, 49.5 each way → 50 and 50.
    board = Board.from_rows(
        ["hh"],
        [
            Unit.make("a", "blue", (0, 0), strength=99, attack=10, defense=10, level=7),
            Unit.make("b", "red", (1, 0), strength=99, attack=10, defense=10, level=7),
        ],
    )
    attacks = SideAttacks.gather(board, "blue", HexParams())
    outcome = attacks.evaluate(attacks.start)
    # Effective Atk 99 × 10 × 1.07 × 1.1 against Effective Def 99 × 10 × 1.07 × 1.3: not even.
    # r = 1.1 / 1.3 = 11/13, r² = 121/169, 121/290 × 99 = 41.31 → 41; the counter likewise.
    assert outcome.target_losses.tolist() == [41]
    assert outcome.attacker_losses.tolist() == [41]
    plains = Board.from_rows([".."], board.units)
    attacks = SideAttacks.gather(plains, "blue", HexParams())
    outcome = attacks.evaluate(attacks.start)
    # On plains: 1059.3 against 1059.3 → 1/2 × 99 = 49.5 → 50 both ways.
    assert outcome.target_losses.tolist() == [50]
    assert outcome.attacker_losses.tolist() == [50]


def _with_extras(board: Board, rng: random.Random) -> Board:
    """Some units with a second status (their product and sum are what count) and some
    with no soldiers left (they neither encircle nor lend support)."""
    from dataclasses import replace

    changed = []
    for unit in board.units:
        if rng.random() < 0.2:
            extra = Status.make("t", "debuff", atk_mul=0.9, def_mul=1.25, atk_add=-5, def_add=7)
            unit = replace(unit, statuses=(*unit.statuses, extra))
        if rng.random() < 0.1:
            unit = replace(unit, strength=0)
        changed.append(unit)
    return board.with_units(changed)


@pytest.mark.parametrize("seed", range(12))
def test_gathering_all_pairs_at_once_gives_the_lists_of_gather_strike(seed: int) -> None:
    # The arrays phase 1 builds for every pair at once against the plain path: each pair
    # gathered by gather_strike, as a report does, and its lists laid out one by one.
    from fracas.rulesets.hex.boards import _gathered, _gathered_one_by_one

    rng = random.Random(seed)
    board = _with_extras(random_board(rng, units=rng.choice([10, 30, 50])), rng)
    for counter_support in ("target", "attacker"):
        params = HexParams(counter_support=counter_support)
        for side in board.sides():
            pairs = attack_pairs(board, side)
            index = {unit.id: i for i, unit in enumerate(board.units)}
            attacker = np.array([index[a] for a, _ in pairs], dtype=np.int64)
            target = np.array([index[t] for _, t in pairs], dtype=np.int64)
            fast = _gathered(board, attacker, target, params)
            plain = _gathered_one_by_one(board, pairs, params)
            assert fast[2].tolist() == plain[2].tolist()
            for mine, theirs in zip(fast[:2], plain[:2], strict=True):
                assert mine.pierce_floats.tolist() == theirs.pierce_floats.tolist()
                assert list(mine.pierce) == list(theirs.pierce)
                for one, other in ((mine.striker, theirs.striker), (mine.target, theirs.target)):
                    for name in ("unit", "supporters", "encirclers"):
                        assert getattr(one, name).tolist() == getattr(other, name).tolist()
                    for name in ("printed", "terrain", "status_mul", "status_add", "lent"):
                        assert getattr(one, name).tolist() == getattr(other, name).tolist()
                    for name in ("printed", "terrain", "status_mul", "status_add", "lent"):
                        assert list(one.exact[name]) == list(other.exact[name]), name


@pytest.mark.parametrize("seed", range(12))
def test_the_pairs_found_with_arrays_are_attack_pairs(seed: int) -> None:
    # Every legal pair by illegal_reason (attack_pairs, in scenario order), against the
    # grid look-up of pair_rows; ranges up to 3 and units with no soldiers included.
    from fracas.rulesets.hex.boards import pair_rows

    rng = random.Random(seed)
    board = _with_extras(random_board(rng, units=rng.choice([5, 20, 50]), size=9), rng)
    ids = [unit.id for unit in board.units]
    for side in (*board.sides(), "nobody"):
        attacker, target = pair_rows(board, side)
        found = [(ids[a], ids[t]) for a, t in zip(attacker.tolist(), target.tolist(), strict=True)]
        assert found == attack_pairs(board, side)


def _far_reaching(board: Board, rng: random.Random, spread: int) -> Board:
    """``board`` with its units moved ``spread`` times apart on a map of their own hexes
    (a map may list its hexes one by one), some with ranges far beyond the board."""
    from dataclasses import replace

    from fracas.rulesets.hex import Hex
    from fracas.rulesets.hex.scenario import default_terrain

    plains = default_terrain()["plains"]
    moved = []
    for unit in board.units:
        q, r = unit.hex
        low, high = unit.range
        if rng.random() < 0.4:
            high = rng.choice([10, 10**6, 10**12, 10**19])
        moved.append(replace(unit, hex=Hex(q * spread, r * spread), range=(low, high)))
    return Board({u.hex: plains for u in moved}, tuple(moved))


@pytest.mark.parametrize(("seed", "spread"), [(0, 1), (1, 1), (2, 7), (3, 10**9), (4, 10**18)])
def test_reaches_wider_than_the_board_and_sparse_maps_find_the_attack_pairs(
    seed: int, spread: int
) -> None:
    # A reach past the board's width, and a map whose few hexes lie far apart (a grid of
    # it would not fit in memory), against the rule pair by pair; and the counters of the
    # pairs found against counter_reason, as the plain path finds them.
    from fracas.rulesets.hex.boards import _gathered, _gathered_one_by_one, pair_rows

    rng = random.Random(seed)
    board = _far_reaching(random_board(rng, units=rng.choice([5, 20, 40]), size=7), rng, spread)
    ids = [unit.id for unit in board.units]
    for side in board.sides():
        attacker, target = pair_rows(board, side)
        found = [(ids[a], ids[t]) for a, t in zip(attacker.tolist(), target.tolist(), strict=True)]
        assert found == attack_pairs(board, side)
        assert set(found) == set(slow_attacks(board, side))
        countered = _gathered(board, attacker, target, HexParams())[2]
        assert countered.tolist() == _gathered_one_by_one(board, found, HexParams())[2].tolist()


def test_a_number_out_of_range_is_still_named_with_its_unit() -> None:
    from fracas.core.errors import ScenarioError
    from fracas.rulesets.hex.boards import check_range

    board = Board.from_rows(
        ["...."],
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10),
            Unit.make("b", "red", (1, 0), attack=10, defense=10**13),
        ],
    )
    with pytest.raises(ScenarioError, match=r"defense of 'b' is 10000000000000, outside"):
        check_range(board)
