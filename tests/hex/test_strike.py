"""One strike, formula line by formula line, each number worked out by hand.

Most boards are open plains (every factor 1) so a test changes one thing at a time.
Axial neighbours of (0, 0): (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1).
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType

from fracas.rulesets.hex import (
    Board,
    Hex,
    HexParams,
    HexRuleset,
    Status,
    Unit,
    compute_strike,
    fight,
    gather_strike,
)
from fracas.rulesets.hex.scenario import default_terrain
from fracas.rulesets.hex.strike import (
    ROW_FLOOR,
    StrikeOutcome,
    encirclement_factor,
    loss_fraction,
    losses_from,
)

PARAMS = HexParams()


def plains(units: list[Unit], radius: int = 3) -> Board:
    """Every hex within ``radius`` of (0, 0), all plains."""
    flat = default_terrain()["plains"]
    hexes = {
        Hex(q, r): flat
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if Hex(0, 0).distance(Hex(q, r)) <= radius
    }
    return Board(MappingProxyType(hexes), tuple(units))


def hit(board: Board, striker: str, target: str, params: HexParams = PARAMS) -> StrikeOutcome:
    return compute_strike(gather_strike(board, striker, target, params))


def labels(outcome: StrikeOutcome) -> tuple[list[str], list[str]]:
    return (
        [row.label for row in outcome.effective_attack.rows],
        [row.label for row in outcome.effective_defense.rows],
    )


def test_even_fight_takes_half() -> None:
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), strength=100, attack=10, defense=10),
            Unit.make("b", "red", (1, 0), strength=100, attack=10, defense=10),
        ]
    )
    outcome = hit(board, "a", "b")
    # 100 × 10 = 1000 against 100 × 10 = 1000: r = 1, 1²/(1 + 1²) = 1/2, floor(50 + 0.5) = 50.
    assert outcome.effective_attack.total == 1000
    assert outcome.effective_defense.total == 1000
    assert outcome.ratio == 1
    assert outcome.fraction == Fraction(1, 2)
    assert outcome.losses == 50


def test_double_attack_takes_eighty_percent_and_half_takes_twenty() -> None:
    board = plains(
        [
            Unit.make("strong", "blue", (0, 0), strength=100, attack=20, defense=10),
            Unit.make("weak", "blue", (0, 2), strength=100, attack=5, defense=10),
            Unit.make("b", "red", (0, 1), strength=100, attack=10, defense=10),
        ]
    )
    # The two blue units both stand next to b, so each supports the other's strike:
    # strong: 100 × 20 + 0.25 × 100 × 5 = 2125; weak: 100 × 5 + 0.25 × 100 × 20 = 1000.
    assert hit(board, "strong", "b").effective_attack.total == 2125
    alone = plains(
        [
            Unit.make("strong", "blue", (0, 0), strength=100, attack=20, defense=10),
            Unit.make("b", "red", (1, 0), strength=100, attack=10, defense=10),
            Unit.make("weak", "blue", (3, -3), strength=100, attack=5, defense=10),
            Unit.make("c", "red", (3, -2), strength=100, attack=10, defense=10),
        ]
    )
    double = hit(alone, "strong", "b")
    # 2000 / 1000 = 2: 4 / (1 + 4) = 4/5 → floor(80 + 0.5) = 80.
    assert (double.ratio, double.fraction, double.losses) == (Fraction(2), Fraction(4, 5), 80)
    half = hit(alone, "weak", "c")
    # 500 / 1000 = 1/2: (1/4) / (1 + 1/4) = 1/5 → floor(20 + 0.5) = 20.
    assert (half.ratio, half.fraction, half.losses) == (Fraction(1, 2), Fraction(1, 5), 20)


def test_loss_exponent_is_a_parameter() -> None:
    # k = 3 at r = 2: 8 / (1 + 8) = 8/9; with 100 soldiers floor(88.89 + 0.5) = 89.
    assert loss_fraction(Fraction(2), Fraction(1), Fraction(3)) == Fraction(8, 9)
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=20, defense=10),
            Unit.make("b", "red", (1, 0), attack=10, defense=10),
        ]
    )
    assert hit(board, "a", "b", HexParams(loss_exponent=3)).losses == 89


def test_a_wider_gap_bites_sharper() -> None:
    # k = 2: r = 3 → 9/10, r = 4 → 16/17; r = 1/3 → 1/10.
    assert loss_fraction(Fraction(3), Fraction(1), Fraction(2)) == Fraction(9, 10)
    assert loss_fraction(Fraction(4), Fraction(1), Fraction(2)) == Fraction(16, 17)
    assert loss_fraction(Fraction(1), Fraction(3), Fraction(2)) == Fraction(1, 10)


def test_fractional_loss_exponent_is_close_to_the_formula() -> None:
    # k = 1.5 at r = 4: 4^1.5 = 8 → 8/9.
    assert abs(loss_fraction(Fraction(4), Fraction(1), Fraction(3, 2)) - Fraction(8, 9)) < 1e-12


def test_losses_round_half_up_and_stay_within_strength() -> None:
    # floor(1/2 × 3 + 0.5) = floor(2.0) = 2; floor(1/5 × 7 + 0.5) = floor(1.9) = 1.
    assert losses_from(Fraction(1, 2), 3) == 2
    assert losses_from(Fraction(1, 5), 7) == 1
    assert losses_from(Fraction(1), 7) == 7
    assert losses_from(Fraction(0), 7) == 0


def test_no_attack_takes_nothing_and_no_defence_loses_everything() -> None:
    jammed = Status.make("Jammed", "debuff", atk_mul=0)
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10, statuses=[jammed]),
            Unit.make("b", "red", (1, 0), attack=10, defense=0),
        ]
    )
    # a: 100 × 10 × 0 = 0 → fraction 0. b strikes a: 1000 against 100 × 10 = 1000.
    outcome = hit(board, "a", "b")
    assert (outcome.effective_attack.total, outcome.fraction, outcome.losses) == (
        Fraction(0),
        Fraction(0),
        0,
    )
    # The other way round: b's defence is 100 × 0 = 0 and a's attack positive → all 100.
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10),
            Unit.make("b", "red", (1, 0), attack=10, defense=0),
        ]
    )
    outcome = hit(board, "a", "b")
    assert outcome.ratio is None
    assert (outcome.fraction, outcome.losses) == (Fraction(1), 100)


def test_level_adds_one_percent_per_level() -> None:
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10, level=5),
            Unit.make("b", "red", (1, 0), attack=10, defense=10, level=20),
        ]
    )
    outcome = hit(board, "a", "b")
    # 100 × 10 × (1 + 5/100) = 1050; 100 × 10 × (1 + 20/100) = 1200.
    assert outcome.effective_attack.total == 1050
    assert outcome.effective_defense.total == 1200
    # level_percent = 2: 100 × 10 × 1.10 = 1100.
    assert hit(board, "a", "b", HexParams(level_percent=2)).effective_attack.total == 1100


def test_terrain_attacker_uses_its_hex_attack_factor_defender_its_hex_defence_factor() -> None:
    board = Board.from_rows(
        ["hf"],
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10),  # hills: atk 1.1, def 1.3
            Unit.make("b", "red", (1, 0), attack=10, defense=10),  # forest: atk 1.0, def 1.25
        ],
    )
    outcome = hit(board, "a", "b")
    # 100 × 10 × 1.1 = 1100 against 100 × 10 × 1.25 = 1250 (not the hills' 1.3, not forest 1.0).
    assert outcome.effective_attack.total == 1100
    assert outcome.effective_defense.total == 1250
    # r = 0.88, r² = 0.7744, 0.7744 / 1.7744 = 0.43643 → floor(43.64 + 0.5) = 44.
    assert outcome.losses == 44
    counter = hit(board, "b", "a")
    # 100 × 10 × 1.0 (forest attack) = 1000 against 100 × 10 × 1.3 (hills defence) = 1300.
    assert (counter.effective_attack.total, counter.effective_defense.total) == (
        Fraction(1000),
        Fraction(1300),
    )
    # r = 10/13, r² = 100/169, 100/269 = 0.3717 → floor(37.17 + 0.5) = 37.
    assert counter.losses == 37


def test_custom_terrain_factors() -> None:
    params = HexParams(terrain={"bunker": {"letter": "B", "attack": 0.5, "defense": 3}})
    scenario = HexRuleset().load(
        {
            "fracas": 1,
            "ruleset": "hex",
            "parameters": params.model_dump(),
            "map": {"rows": [".B"]},
            "units": [
                {
                    "id": "a",
                    "side": "x",
                    "hex": [0, 0],
                    "strength": 10,
                    "attack": {"land": 3},
                    "defense": 1,
                },
                {
                    "id": "b",
                    "side": "y",
                    "hex": [1, 0],
                    "strength": 10,
                    "attack": {"land": 3},
                    "defense": 1,
                },
            ],
        }
    )
    # b in the bunker: defence 10 × 1 × 3 = 30; b attacking from it: 10 × 3 × 0.5 = 15.
    assert hit(scenario.board, "a", "b").effective_defense.total == 30
    assert hit(scenario.board, "b", "a").effective_attack.total == 15


def test_multiplying_rows_come_first_then_additions() -> None:
    rally = Status.make("Rally", "buff", atk_mul=1.2, atk_add=50)
    shaken = Status.make("Shaken", "debuff", def_mul=0.5, def_add=-100)
    dug_in = Status.make("Dug in", "buff", def_add=200)
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10, level=10, statuses=[rally]),
            Unit.make("b", "red", (1, 0), attack=10, defense=10, statuses=[shaken, dug_in]),
            Unit.make("c", "blue", (2, 0), strength=40, attack=10, defense=10),
        ]
    )
    outcome = hit(board, "a", "b")
    # Atk: 100 × 10 × 1.1 (Lv 10) × 1.2 (Rally) = 1320, + support 0.25 × 40 × 10 = 100,
    # + 50 (Rally) = 1470. Adding before multiplying would give a different number.
    assert outcome.effective_attack.total == 1470
    # Def: b has two enemies next to it (a and c): ×0.9. 100 × 10 × 0.9 × 0.5 = 450,
    # no ally next to b, −100 + 200 = +100 → 550.
    assert outcome.effective_defense.total == 550
    atk_rows, def_rows = labels(outcome)
    assert atk_rows == [
        "Strength", "Attack", "Lv", "Encircled", "Terrain", "Status (×)", "Support", "Status (+)",
    ]  # fmt: skip
    assert def_rows == [
        "Strength", "Defense", "Lv", "Encircled", "Terrain", "Status (×)", "Support", "Status (+)",
        "Pierce",
    ]  # fmt: skip
    status_rows = [r for r in outcome.effective_defense.rows if r.label.startswith("Status")]
    assert [r.value for r in status_rows] == [Fraction(1, 2), 100]
    assert "Shaken" in status_rows[0].source
    assert "Dug in" in status_rows[1].source


def test_negative_additions_stop_at_zero_with_a_row_that_says_so() -> None:
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10,
                      statuses=[Status.make("Routed", "debuff", atk_add=-5000)]),
            Unit.make("b", "red", (1, 0), attack=10, defense=10),
        ]
    )  # fmt: skip
    outcome = hit(board, "a", "b")
    # 1000 − 5000 = −4000; the floor row adds 4000 back to 0.
    assert outcome.effective_attack.rows[-1].label == ROW_FLOOR
    assert outcome.effective_attack.rows[-1].value == 4000
    assert outcome.effective_attack.total == 0
    assert outcome.losses == 0


def test_encirclement_table() -> None:
    # n = 0..6 → 1, 1, 0.9, 0.8, 0.7, 0.6, 0.5.
    assert [encirclement_factor(n, PARAMS) for n in range(7)] == [
        1, 1, Fraction(9, 10), Fraction(4, 5), Fraction(7, 10), Fraction(3, 5), Fraction(1, 2),
    ]  # fmt: skip


def test_encircled_attacker_fights_weaker_and_its_encircler_supports_attacks_on_it() -> None:
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10),
            Unit.make("b", "red", (1, 0), attack=10, defense=10),
            # d touches a but not b: it encircles a without supporting b's defence.
            Unit.make("d", "red", (-1, 0), strength=40, attack=10, defense=10),
        ]
    )
    outcome = hit(board, "a", "b")
    # a has two enemies next to it (b, d): ×0.9 → 100 × 10 × 0.9 = 900 against 1000.
    assert outcome.effective_attack.total == 900
    assert outcome.effective_defense.total == 1000
    # r = 0.9, 0.81 / 1.81 = 0.4475 → floor(44.75 + 0.5) = 45.
    assert outcome.losses == 45
    turned = hit(board, "b", "a")
    # When b attacks a (a combat of its own, a the unit attacked): 1000 + d's support
    # 0.25 × 40 × 10 = 100 → 1100 (d stands next to a and encircles it);
    # a's defence also suffers the ring: 100 × 10 × 0.9 = 900.
    assert turned.effective_attack.total == 1100
    assert turned.effective_defense.total == 900
    # r = 11/9, r² = 121/81, 121/202 = 0.599 → floor(59.9 + 0.5) = 60.
    assert turned.losses == 60
    # In the combat a → b, b's counter gets nothing from d: d is not next to b, the unit
    # attacked. 1000 against 900: r = 10/9, r² = 100/81, 100/181 = 0.5525 → 55.
    counter = fight(board, "a", "b", PARAMS).counter
    assert counter is not None
    assert (counter.effective_attack.total, counter.effective_defense.total) == (
        Fraction(1000),
        Fraction(900),
    )
    assert counter.losses == 55


def test_encirclement_counts_at_range_and_deeper_rings_cost_more() -> None:
    ring = [(1, -1), (0, -1), (-1, 0)]
    units = [Unit.make("t", "red", (0, 0), attack=10, defense=10)]
    units += [Unit.make(f"e{i}", "blue", h, attack=0, defense=1) for i, h in enumerate(ring)]
    units.append(Unit.make("gun", "blue", (0, 3), attack=10, defense=1, range=(2, 3)))
    outcome = hit(plains(units), "gun", "t")
    # Three enemies next to t: ×0.8 even against a strike from 3 hexes away → 800.
    assert outcome.effective_defense.total == 800
    # The ring's members have no attack, so they add 0.25 × 100 × 0 each.
    assert outcome.effective_attack.total == 1000


def test_support_is_capped_at_twice_the_defence_before_support() -> None:
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=3, defense=10),
            Unit.make("b", "red", (1, 0), strength=10, attack=10, defense=10),
            Unit.make("c", "red", (2, 0), strength=100, attack=10, defense=10),
        ]
    )
    outcome = hit(board, "a", "b")
    # DefBase = 10 × 10 = 100; c offers 0.25 × 100 × 10 = 250, capped at 2 × 100 = 200 → 300.
    support = next(r for r in outcome.effective_defense.rows if r.label == "Support")
    assert support.value == 200
    assert "capped" in support.source
    assert outcome.effective_defense.total == 300
    # a: 100 × 3 = 300 → r = 1 → b loses floor(0.5 × 10 + 0.5) = 5.
    assert outcome.losses == 5
    # defense_support_cap = 1: 100 + 100 = 200.
    tighter = hit(board, "a", "b", HexParams(defense_support_cap=1))
    assert tighter.effective_defense.total == 200


def test_support_ignores_level_and_terrain_and_scales_with_strength() -> None:
    board = Board.from_rows(
        ["..", "hh"],
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10),
            Unit.make("b", "red", (1, 0), attack=10, defense=10),
            # On hills (row 1 of odd-r: q = column) at level 50, worn down to 20 soldiers.
            Unit.make("ally", "blue", (0, 1), strength=20, attack=10, defense=10, level=50),
        ],
    )
    outcome = hit(board, "a", "b")
    support = next(r for r in outcome.effective_attack.rows if r.label == "Support")
    # 0.25 × 20 × 10 = 50: no ×1.5 for Lv 50, no ×1.1 for the hills.
    assert support.value == 50
    assert support.source == "ally 50"
    # support_share = 0.5: 0.5 × 20 × 10 = 100.
    assert hit(board, "a", "b", HexParams(support_share=0.5)).effective_attack.total == 1100


def test_only_allies_next_to_the_unit_struck_support_even_at_range() -> None:
    board = plains(
        [
            Unit.make("gun", "blue", (-2, 0), attack=10, defense=1, range=(2, 3)),
            Unit.make("near", "blue", (1, -1), strength=40, attack=10, defense=10),
            Unit.make("far", "blue", (0, -2), strength=40, attack=10, defense=10),
            Unit.make("t", "red", (0, 0), attack=10, defense=10),
            Unit.make("t_friend", "red", (0, 1), strength=80, attack=10, defense=5),
            Unit.make("gun_friend", "red", (-3, 0), strength=80, attack=10, defense=5),
        ]
    )
    outcome = hit(board, "gun", "t")
    # Attack: 100 × 10 + near 0.25 × 40 × 10 = 1100 (far is two hexes from t).
    assert outcome.effective_attack.total == 1100
    # Defence: 1000 + t_friend 0.25 × 80 × 5 = 100 → 1100 (gun_friend is not next to t).
    assert outcome.effective_defense.total == 1100


def test_pierce_comes_last_and_cuts_support_too() -> None:
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=5.5, defense=10, pierce=0.5),
            Unit.make("b", "red", (1, 0), attack=10, defense=10),
            Unit.make("c", "red", (2, 0), strength=40, attack=10, defense=10),
        ]
    )
    outcome = hit(board, "a", "b")
    # (100 × 10 + 0.25 × 40 × 10) × (1 − 0.5) = 1100 × 0.5 = 550, not 1000 × 0.5 + 100 = 600.
    assert outcome.effective_defense.total == 550
    assert outcome.effective_defense.rows[-1].label == "Pierce"
    # 100 × 5.5 = 550 → r = 1 → 50.
    assert outcome.losses == 50
    # Pierce is the attacker's, on the defence only: the counter ignores it.
    counter = hit(board, "b", "a")
    assert counter.effective_defense.rows[-1].value == 1


def test_pierce_pays_off_more_against_a_harder_target() -> None:
    def pierced_away(defense: int) -> Fraction:
        board = plains(
            [
                Unit.make("a", "blue", (0, 0), attack=10, defense=10, pierce=0.3),
                Unit.make("b", "red", (1, 0), attack=10, defense=defense),
            ]
        )
        total = hit(board, "a", "b").effective_defense.total
        return 100 * defense - total

    # 30 % of 100 × 10 = 300 ignored; 30 % of 100 × 40 = 1200 ignored.
    assert pierced_away(10) == 300
    assert pierced_away(40) == 1200


def test_a_unit_without_soldiers_does_not_encircle() -> None:
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10),
            Unit.make("b", "red", (1, 0), attack=10, defense=10),
            Unit.make("husk", "red", (-1, 0), strength=0, attack=10, defense=10),
        ]
    )
    # Only b counts around a: factor 1, so 100 × 10 = 1000.
    assert hit(board, "a", "b").effective_attack.total == 1000


def test_attack_support_uses_each_allys_attack_against_the_targets_domain() -> None:
    board = plains(
        [
            Unit.make("flak", "blue", (0, 0), attack={"land": 2, "air": 10}, defense=5),
            Unit.make("rifles", "blue", (0, 1), attack={"land": 12, "air": 4}, defense=10),
            Unit.make("tanks", "blue", (1, 1), strength=50, attack={"land": 20}, defense=10),
            Unit.make("jets", "red", (1, 0), domain="air", attack={"land": 10}, defense=8),
        ]
    )
    outcome = hit(board, "flak", "jets")
    # Printed: flak's Atk vs Air 10 → 100 × 10 = 1000. Support vs an air target: rifles
    # 0.25 × 100 × 4 = 100 (not its land 12); tanks have no Atk vs Air: 0.25 × 50 × 0 = 0.
    assert outcome.effective_attack.rows[1].value == 10
    assert outcome.effective_attack.total == 1100
    # jets have three enemies next to them (flak, rifles, tanks): 100 × 8 × 0.8 = 640.
    # r = 1100/640 = 55/32, r² = 3025/1024, 3025/4049 = 0.7471 → floor(74.71 + 0.5) = 75.
    assert outcome.effective_defense.total == 640
    assert outcome.losses == 75


def test_pierce_also_cuts_the_status_additions() -> None:
    walls = Status.make("Walls", "buff", def_add=200)
    board = plains(
        [
            Unit.make("a", "blue", (0, 0), attack=6, defense=10, pierce=0.25),
            Unit.make("b", "red", (1, 0), attack=10, defense=10, statuses=[walls]),
        ]
    )
    outcome = hit(board, "a", "b")
    # (100 × 10 + 200) × (1 − 0.25) = 1200 × 0.75 = 900, not 1000 × 0.75 + 200 = 950.
    assert outcome.effective_defense.total == 900
    # 100 × 6 = 600 against 900: r = 2/3, r² = 4/9, 4/13 = 0.3077 → floor(30.77 + 0.5) = 31.
    assert outcome.losses == 31
