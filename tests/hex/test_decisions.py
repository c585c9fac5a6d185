"""The gap decisions of docs/rules/hex.md ("Decisions where the rules are silent") that no
strike or combat test pins down, each on a small scenario with the numbers worked by hand.

Axial neighbours of (0, 0): (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1).
"""

from __future__ import annotations

import json
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fracas.cli import app
from fracas.core.errors import ScenarioError
from fracas.io.scenario import parse_scenario
from fracas.rulesets.hex import (
    Board,
    Hex,
    HexParams,
    HexScenario,
    Status,
    Unit,
    compute_strike,
    fight,
    gather_strike,
    play_turn,
)
from fracas.rulesets.hex.play import illegal_reason
from fracas.rulesets.hex.scenario import default_terrain
from fracas.rulesets.hex.strike import StrikeOutcome

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "hex"
PARAMS = HexParams()
runner = CliRunner()


def scenario(text: str) -> HexScenario:
    """A hex scenario from YAML text (the header lines are added here)."""
    model = parse_scenario("fracas: 1\nruleset: hex\n" + textwrap.dedent(text)).model
    assert isinstance(model, HexScenario)
    return model


def hit(board: Board, striker: str, target: str, params: HexParams = PARAMS) -> StrikeOutcome:
    return compute_strike(gather_strike(board, striker, target, params))


def test_distance_is_axial_and_every_hex_has_six_neighbours() -> None:
    origin = Hex(0, 0)
    # (|dq| + |dr| + |dq + dr|) / 2: to (1, -1) (1 + 1 + 0) / 2 = 1; to (1, 1) (1 + 1 + 2) / 2
    # = 2; to (2, -1) (2 + 1 + 1) / 2 = 2; to (3, -3) (3 + 3 + 0) / 2 = 3.
    assert origin.distance(Hex(1, -1)) == 1
    assert origin.distance(Hex(1, 1)) == 2
    assert origin.distance(Hex(2, -1)) == 2
    assert origin.distance(Hex(3, -3)) == 3
    assert set(origin.neighbours()) == {
        Hex(1, 0), Hex(1, -1), Hex(0, -1), Hex(-1, 0), Hex(-1, 1), Hex(0, 1),
    }  # fmt: skip
    assert all(origin.distance(h) == 1 for h in origin.neighbours())
    # On a board: a range-1 unit reaches (1, -1) but not (1, 1), two hexes away.
    board = Board(
        {h: default_terrain()["plains"] for h in [origin, Hex(1, -1), Hex(1, 1)]},
        (
            Unit.make("a", "blue", (0, 0), attack=10),
            Unit.make("near", "red", (1, -1)),
            Unit.make("far", "red", (1, 1)),
        ),
    )
    assert illegal_reason(board, "a", "near") is None
    assert "2 hexes away" in (illegal_reason(board, "a", "far") or "")


def test_map_rows_are_odd_r_and_spaces_in_them_are_ignored() -> None:
    spaced = scenario(
        """
        map: {rows: ["f . .", " . h .", "m . ."]}
        units: []
        """
    )
    packed = scenario(
        """
        map: {rows: ["f..", ".h.", "m.."]}
        units: []
        """
    )
    assert dict(spaced.board.hexes) == dict(packed.board.hexes)
    names = {h: t.name for h, t in packed.board.hexes.items()}
    # q = c − floor(r / 2): row 1, column 1 → q = 1 − 0 = 1; row 2, column 0 → q = 0 − 1 = −1;
    # row 2, column 2 → q = 2 − 1 = 1.
    assert names[Hex(0, 0)] == "forest"
    assert names[Hex(1, 1)] == "hills"
    assert names[Hex(-1, 2)] == "mountains"
    assert names[Hex(1, 2)] == "plains"
    assert Hex(2, 2) not in names  # column 3 of row 2 would be q = 3 − 1 = 2: no such column
    assert len(names) == 9


def test_default_terrain_and_a_scenario_changing_one_field() -> None:
    table = {name: (t.letter, t.attack, t.defense) for name, t in default_terrain().items()}
    assert table == {
        "plains": (".", 1, 1), "forest": ("f", 1, Fraction(5, 4)),
        "hills": ("h", Fraction(11, 10), Fraction(13, 10)), "mountains": ("m", 1, Fraction(3, 2)),
        "city": ("c", 1, Fraction(3, 2)), "swamp": ("s", Fraction(4, 5), Fraction(9, 10)),
        "river": ("~", Fraction(4, 5), Fraction(4, 5)), "road": ("=", 1, Fraction(9, 10)),
        "sea": ("w", 1, 1),
    }  # fmt: skip
    model = scenario(
        """
        parameters: {terrain: {forest: {defense: 2}, bog: {letter: b, attack: 0.5, defense: 1}}}
        map: {rows: ["sfb"]}
        units:
          - {id: a, side: blue, hex: [0, 0], strength: 100, attack: {land: 10}, defense: 10}
          - {id: b, side: red, hex: [1, 0], strength: 100, attack: {land: 10}, defense: 10}
          - {id: c, side: red, hex: [2, 0], strength: 100, attack: {land: 10}, defense: 10}
        """
    )
    forest = model.board.terrain_at(Hex(1, 0))
    assert (forest.letter, forest.attack, forest.defense) == ("f", Fraction(1), Fraction(2))
    outcome = hit(model.board, "a", "b", model.params)
    # a from the swamp: 100 × 10 × 0.8 = 800. b in the forest, its defence changed to 2 (the
    # letter and attack kept): 100 × 10 × 2 = 2000, + c's support 0.25 × 100 × 10 = 250 →
    # 2250. The added bog: c attacks from it at 100 × 10 × 0.5 = 500.
    assert outcome.effective_attack.total == 800
    assert outcome.effective_defense.total == 2000 + 250
    assert hit(model.board, "c", "b", model.params).effective_attack.total == 500
    with pytest.raises(ScenarioError, match="letter 'f' already stands for"):
        scenario(
            """
            parameters: {terrain: {thicket: {letter: f, attack: 1, defense: 1}}}
            map: {rows: ["."]}
            units: []
            """
        )


def test_terrain_counts_for_fliers_and_ships_on_any_hex() -> None:
    model = scenario(
        """
        map: {rows: ["hf"]}
        units:
          - {id: ship, side: blue, hex: [0, 0], domain: sea, strength: 100,
             attack: {air: 10}, defense: 10}
          - {id: jets, side: red, hex: [1, 0], domain: air, strength: 100,
             attack: {sea: 10}, defense: 10}
        """
    )
    outcome = hit(model.board, "ship", "jets", model.params)
    # A ship on the hills attacks at 100 × 10 × 1.1 = 1100; jets over the forest defend at
    # 100 × 10 × 1.25 = 1250.
    assert outcome.effective_attack.total == 1100
    assert outcome.effective_defense.total == 1250


def test_a_unit_left_mostly_unsaid_takes_the_defaults() -> None:
    model = scenario(
        """
        map: {rows: ["..."]}
        units:
          - {id: a, side: blue, hex: [0, 0], strength: 80, attack: {land: 10}, defense: 10}
          - {id: b, side: red, hex: [1, 0], strength: 100, attack: {land: 10}, defense: 10}
          - {id: c, side: red, hex: [2, 0], strength: 100, attack: {land: 10}, defense: 10}
        """
    )
    a = model.board.unit("a")
    assert (a.domain, a.range, a.level, a.max_strength) == ("land", (1, 1), 0, 80)
    assert a.pierce == 0
    assert a.attack_vs("air") == 0
    # Range [1, 1]: c, two hexes away, is out of reach. Level 0 and pierce 0: against b,
    # 80 × 10 × 1.00 = 800 against (100 × 10 + c's support 0.25 × 100 × 10) × (1 − 0) = 1250.
    assert "2 hexes away" in (illegal_reason(model.board, "a", "c") or "")
    outcome = hit(model.board, "a", "b", model.params)
    assert outcome.effective_attack.total == 800
    assert outcome.effective_defense.total == 1250


def test_every_other_side_is_an_enemy_and_the_ring_table_is_a_parameter() -> None:
    units = [
        Unit.make("g", "green", (0, 0), attack=10, defense=10),  # a third side, next to a
        Unit.make("a", "blue", (1, 0), attack=10, defense=10),
        Unit.make("b", "red", (2, 0), attack=10, defense=10),
    ]
    board = Board.from_rows(["...."], units)
    # Two enemies next to a (red b, green g): × 0.9 → 100 × 10 × 0.9 = 900.
    assert hit(board, "a", "b").effective_attack.total == 900
    # A table that takes 40 % off for two: 100 × 10 × 0.6 = 600.
    table = HexParams(encirclement=(1, 1, 0.6, 0.5, 0.4, 0.3, 0.2))
    assert hit(board, "a", "b", table).effective_attack.total == 600


def test_several_statuses_multiply_together_and_add_up() -> None:
    rally = Status.make("Rally", "buff", atk_mul=1.2, atk_add=30)
    shaken = Status.make("Shaken", "debuff", atk_mul=0.5, atk_add=20)
    board = Board.from_rows(
        [".."],
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10, statuses=[rally, shaken]),
            Unit.make("b", "red", (1, 0), attack=10, defense=10),
        ],
    )
    rows = {row.label: row for row in hit(board, "a", "b").effective_attack.rows}
    # × 1.2 × 0.5 = × 0.6: 100 × 10 × 0.6 = 600; + 30 + 20 = + 50 → 650.
    assert rows["Status (×)"].value == Fraction(3, 5)
    assert rows["Status (+)"].value == 50
    assert hit(board, "a", "b").effective_attack.total == 650
    for label in ("Status (×)", "Status (+)"):
        assert "Rally" in rows[label].source
        assert "Shaken" in rows[label].source


def test_loss_exponent_stops_at_sixteen() -> None:
    text = """
        parameters: {loss_exponent: %s}
        map: {rows: [".."]}
        units:
          - {id: a, side: blue, hex: [0, 0], strength: 100, attack: {land: 20}, defense: 10}
          - {id: b, side: red, hex: [1, 0], strength: 100, attack: {land: 10}, defense: 10}
        """
    model = scenario(text % 16)
    outcome = hit(model.board, "a", "b", model.params)
    # r = 2000 / 1000 = 2, k = 16: 65536 / 65537 exactly, × 100 = 99.998 → 100.
    assert outcome.fraction == Fraction(65536, 65537)
    assert outcome.losses == 100
    with pytest.raises(ScenarioError, match="loss_exponent"):
        scenario(text % 17)


def test_on_a_board_built_in_python_the_cap_never_lowers_a_level() -> None:
    board = Board.from_rows(
        [".."],
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10, level=60),
            Unit.make("b", "red", (1, 0), attack=10, defense=10),
        ],
    )
    combat = fight(board, "a", "b", HexParams(level_cap=50))
    # a: 100 × 10 × 1.60 = 1600 against 1000: r = 1.6, 2.56 / 3.56 = 0.719 → 72 of b.
    # b's counter: 1000 against 1600: r = 0.625, 0.390625 / 1.390625 = 0.281 → 28 of a.
    assert combat.losses == {"a": 28, "b": 72}
    # 60 + 1 for fighting is above the cap of 50: a stays at 60, neither 61 nor 50.
    assert combat.after.unit("a").level == 60
    assert combat.after.unit("b").level == 1


def test_a_destroyed_unit_no_longer_supports_or_encircles() -> None:
    board = Board.from_rows(
        ["...."],
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10),
            Unit.make("t", "red", (1, 0), attack=10, defense=10),
            Unit.make("s", "blue", (2, 0), strength=1, attack=10, defense=1),
            Unit.make("k", "red", (3, 0), attack=10, defense=10),
        ],
    )
    # Before any order, s stands next to t: it encircles t (a and s: × 0.9) and supports a
    # (0.25 × 1 × 10 = 2.5): 1002.5 against 900.
    before = hit(board, "a", "t")
    assert before.effective_attack.total == Fraction(2005, 2)
    assert before.effective_defense.total == 900
    # Order 1: k destroys s (1250 against 0.9). Order 2: a attacks t with s gone: 100 × 10 =
    # 1000 against 100 × 10 = 1000, r = 1 → 50 of 100.
    turn = play_turn(board, [("k", "s"), ("a", "t")], PARAMS)
    first, second = turn.combats
    assert first.destroyed == ("s",)
    assert second.strike.effective_attack.total == 1000
    assert second.strike.effective_defense.total == 1000
    assert second.losses == {"a": 50, "t": 50}


def test_a_unit_may_attack_twice_and_be_attacked_twice() -> None:
    board = Board.from_rows(
        [".."],
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10),
            Unit.make("b", "red", (1, 0), attack=10, defense=10),
        ],
    )
    first, second = play_turn(board, [("a", "b"), ("a", "b")], PARAMS).combats
    # 1st: 1000 against 1000 → 50 each; both gain a level. 2nd: 50 × 10 × 1.01 = 505
    # against 505 → 25 each.
    assert first.losses == {"a": 50, "b": 50}
    assert second.strike.effective_attack.total == 505
    assert second.losses == {"a": 25, "b": 25}
    assert (second.after.unit("a").strength, second.after.unit("b").strength) == (25, 25)


def test_a_decimal_in_a_file_is_read_as_written() -> None:
    model = scenario(
        """
        map: {rows: [".."]}
        units:
          - {id: a, side: blue, hex: [0, 0], strength: 30, attack: {land: 0.1}, defense: 1}
          - {id: b, side: red, hex: [1, 0], strength: 10, attack: {land: 1}, defense: 0.3}
        """
    )
    outcome = hit(model.board, "a", "b", model.params)
    # 30 × 1/10 = 3 and 10 × 3/10 = 3 exactly (as binary floats they miss 3 both ways), so
    # r = 1, the fraction is exactly 1/2 and b loses floor(5 + 0.5) = 5.
    assert outcome.effective_attack.total == 3
    assert outcome.effective_defense.total == 3
    assert outcome.ratio == 1
    assert (outcome.fraction, outcome.losses) == (Fraction(1, 2), 5)


def test_forecast_and_advise_read_the_board_before_the_orders(tmp_path: Path) -> None:
    path = tmp_path / "orders.yaml"
    path.write_text(
        textwrap.dedent(
            """
            fracas: 1
            ruleset: hex
            map: {rows: ["..."]}
            units:
              - {id: a, side: blue, hex: [0, 0], strength: 100, attack: {land: 1000}, defense: 1}
              - {id: b, side: red, hex: [1, 0], strength: 5, attack: {land: 1}, defense: 1}
              - {id: c, side: blue, hex: [2, 0], strength: 100, attack: {land: 10}, defense: 10}
            orders: [{attacker: a, target: b}]
            """
        ),
        encoding="utf-8",
    )
    # The order destroys b, yet c → b is forecast on the board as loaded: 100 × 10 = 1000
    # + a's support 0.25 × 100 × 1000 = 25000 → 26000 against 5 × 1 = 5 → all 5.
    result = runner.invoke(
        app, ["forecast", str(path), "--attacker", "c", "--target", "b", "-f", "json"]
    )
    assert result.exit_code == 0, result.output
    combat = json.loads(result.stdout)["result"]["combat"]
    assert combat["strike"]["effective_attack"]["total"] == 26000
    assert combat["losses"]["b"] == 5
    result = runner.invoke(app, ["advise", str(path), "--side", "blue", "-f", "json"])
    assert result.exit_code == 0, result.output
    ranked = json.loads(result.stdout)["result"]["attacks"]
    assert {(x["attacker"], x["target"]) for x in ranked} == {("a", "b"), ("c", "b")}


def test_a_report_records_no_seed_even_when_one_is_given() -> None:
    example = str(EXAMPLES / "river_crossing.yaml")
    for extra in ([], ["--seed", "5"]):
        result = runner.invoke(app, ["resolve", example, "-f", "json", *extra])
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        assert "seed" in document
        assert document["seed"] is None
        text = runner.invoke(app, ["resolve", example, *extra])
        assert text.exit_code == 0, text.output
        assert "seed" not in text.stdout.splitlines()[-1]
