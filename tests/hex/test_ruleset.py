"""The ruleset as the engine sees it: registry, metadata, summary, advisor, report layout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fracas.core.dice import ScriptedDice
from fracas.core.errors import FracasError, ScenarioError
from fracas.io.render import render_text
from fracas.io.scenario import load_scenario, scenario_from_document
from fracas.rulesets import find_ruleset
from fracas.rulesets.hex import Board, HexParams, HexRuleset, HexScenario, Unit, advise, attacks
from fracas.rulesets.hex.strike import ROW_ORDER

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "hex"

DOCUMENT = {
    "fracas": 1,
    "ruleset": "hex",
    "map": {"hexes": [{"q": 0, "r": 0}, {"q": 1, "r": 0, "terrain": "forest"}]},
    "units": [
        {"id": "a", "side": "blue", "hex": [0, 0], "strength": 10, "attack": {"land": 100},
         "defense": 1},
        {"id": "b", "side": "red", "hex": [1, 0], "strength": 10, "attack": {"land": 5},
         "defense": 1},
    ],
    "orders": [{"attacker": "a", "target": "b"}],
}  # fmt: skip


def test_finding_hex_loads_no_other_ruleset() -> None:
    # A command on a hex scenario starts faster when d100 and rankflank stay unloaded; a
    # fresh interpreter, since this one may have loaded them for other tests.
    script = (
        "import sys\n"
        "from fracas.rulesets import find_ruleset\n"
        "assert find_ruleset('hex').name == 'hex'\n"
        "print(sorted({m.split('.')[2] for m in sys.modules if m.count('.') >= 2\n"
        "              and m.startswith('fracas.rulesets.')}))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "['base', 'hex']"


def test_registered_deterministic_and_documented() -> None:
    ruleset = find_ruleset("hex")
    assert isinstance(ruleset, HexRuleset)
    assert ruleset.deterministic
    names = [name for name, _, _ in ruleset.parameters()]
    assert {"loss_exponent", "encirclement", "support_share", "defense_support_cap"} <= set(names)
    assert {"level_percent", "level_gain_fight", "level_gain_kill", "level_cap"} <= set(names)
    assert {"terrain", "advisor_enemy_weight", "advisor_own_weight"} <= set(names)
    assert all(description for _, _, description in ruleset.parameters())


def test_play_never_rolls_a_die() -> None:
    scenario = scenario_from_document(DOCUMENT)
    model = scenario.model
    assert isinstance(model, HexScenario)
    dice = ScriptedDice([])  # any roll would raise DiceExhaustedError
    turn = HexRuleset().play(model, dice)
    assert len(turn.state.result.combats) == 1


def test_summary_is_flat_per_unit_metrics() -> None:
    scenario = scenario_from_document(DOCUMENT)
    ruleset = HexRuleset()
    model = scenario.model
    summary = ruleset.summarize(model, ruleset.play(model, ScriptedDice([])))
    # a: 10 × 100 = 1000 against b in forest 10 × 1 × 1.25 = 12.5: r = 80 → all 10 of b.
    # b: 10 × 5 = 50 against 10 × 1 = 10: r = 5, 25/26 × 10 = 9.6 → floor(10.1) = 10 of a.
    # A destroyed unit keeps the level it started the turn with.
    assert summary == {
        "losses.a": 10, "strength.a": 0, "level.a": 0, "destroyed.a": True,
        "losses.b": 10, "strength.b": 0, "level.b": 0, "destroyed.b": True,
    }  # fmt: skip


def test_explicit_hexes_carry_their_terrain() -> None:
    model = scenario_from_document(DOCUMENT).model
    assert isinstance(model, HexScenario)
    assert model.board.terrain_at(model.board.unit("b").hex).name == "forest"


def test_attacks_and_advice_ranking_with_a_level_tie_break() -> None:
    board = Board.from_rows(
        ["......"],
        [
            Unit.make("gun", "blue", (0, 0), attack=10, defense=10, range=(2, 2)),
            Unit.make("weak", "red", (2, 0), strength=1, attack=10, defense=1),
            Unit.make("tough", "red", (4, 0), strength=100, attack=10, defense=1000),
            Unit.make("jab", "blue", (5, 0), attack={"land": 2}, defense=1000),
        ],
    )
    assert attacks(board, "blue") == [("gun", "weak"), ("jab", "tough")]
    ranked = advise(board, "blue", HexParams())
    # gun → weak: 1000 against 1 → the 1 soldier; score 1 − 0 = 1, and a kill (+2 levels).
    # jab → tough: 200 against 100000 → 0 lost; the counter 1000 vs 100000 → 0: score 0.
    assert [(a.attacker, a.target, int(a.score), a.levels_gained) for a in ranked] == [
        ("gun", "weak", 1, 2),
        ("jab", "tough", 0, 1),
    ]
    # Equal scores: the attack that gains more levels ranks first. With the enemy weight at
    # 0 both score 0; gun still leads (2 levels against 1).
    tied = advise(board, "blue", HexParams(advisor_enemy_weight=0))
    assert [a.attacker for a in tied] == ["gun", "jab"]


def test_each_strike_table_keeps_the_rule_order() -> None:
    text = render_text(load_scenario(EXAMPLES / "river_crossing.yaml").resolve())
    table = text.split("howitzers strikes grenadiers", 1)[1]
    positions = [table.find("\n" + label) for label in ROW_ORDER if label != "Floor at 0"]
    assert all(p > 0 for p in positions)
    assert positions == sorted(positions)
    assert table.find("\nEffective value") > positions[-1]


def test_a_board_built_in_python_refuses_what_a_scenario_file_would() -> None:
    a = Unit.make("a", "blue", (0, 0))
    with pytest.raises(ScenarioError, match="share hex"):
        Board.from_rows(["..."], [a, Unit.make("b", "red", (0, 0))])
    with pytest.raises(ScenarioError, match="off the map"):
        Board.from_rows(["..."], [a, Unit.make("b", "red", (5, 0))])
    with pytest.raises(ScenarioError, match="two units have the id"):
        Board.from_rows(["..."], [a, Unit.make("a", "red", (1, 0))])
    # Still a ValueError for callers that catch the builtin, and a FracasError for the rest.
    with pytest.raises(ValueError, match="unknown terrain letter 'X' in row 0, column 1"):
        Board.from_rows([".X."], [a])
    with pytest.raises(FracasError):
        Board.from_rows([".X."], [a])
