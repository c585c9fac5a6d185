"""Numbers past what hex computes with: one clear error from every command, never a crash.

The advisor and the planner evaluate attacks in floats (``hex.batch``); past 1e12 or below
1e-12 a product can overflow or underflow, which their error bound cannot see. Scenario
files are bounded to that range, so every command accepts the same files, and inside it
the batch gives exactly the exact path's losses.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from fracas.cli import app
from fracas.core.errors import ScenarioError
from fracas.rulesets.hex import Board, HexParams, Status, Unit, fight
from fracas.rulesets.hex.advisor import advise
from fracas.rulesets.hex.plan import plan_turn

runner = CliRunner()

ROOT = Path(__file__).resolve().parents[2]
ENCIRCLEMENT = ROOT / "examples" / "hex" / "encirclement.yaml"

COMMANDS = [
    ["advise", "--side", "blue"],
    ["advise", "--side", "blue", "--plan"],
    ["resolve"],
    ["forecast", "--attacker", "lead", "--target", "holdout"],
    ["odds"],
    ["render", "-o", "board.svg"],
]


@pytest.mark.parametrize(
    ("setting", "key_path", "words"),
    [
        ("units[0].strength=9223372036854775808", "units[0].strength", "1000000000000"),
        ("units[0].attack.land=1.0e+308", "units[0].attack.land", "1e-12 to 1e12"),
        ("units[3].defense=1.0e-300", "units[3].defense", "1e-12 to 1e12"),
        ("parameters.level_gain_kill=9223372036854775808", "parameters.level_gain_kill", "99"),
    ],
)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_every_command_refuses_a_number_past_the_bound_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], setting: str,
    key_path: str, words: str,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    args = [command[0], str(ENCIRCLEMENT), *command[1:], "--set", "orders=[]", "--set", setting]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"fracas: error: {ENCIRCLEMENT}: {key_path}: "), lines[0]
    assert words in lines[0]


def test_advise_at_the_bound_warns_nothing_and_agrees_with_forecast(tmp_path: Path) -> None:
    document = yaml.safe_load(ENCIRCLEMENT.read_text(encoding="utf-8"))
    document["orders"] = []
    document["units"][0]["attack"] = {"land": 1e12}
    document["units"][0]["strength"] = 10**12
    document["units"][3]["defense"] = 1e-12
    path = tmp_path / "edge.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    advice = runner.invoke(app, ["advise", str(path), "--side", "blue", "-f", "json"])
    assert advice.exit_code == 0, advice.output
    assert advice.stderr == ""  # no numpy RuntimeWarning
    forecast = runner.invoke(
        app, ["forecast", str(path), "--attacker", "lead", "--target", "holdout", "-f", "json"]
    )
    assert forecast.exit_code == 0, forecast.output
    ranked = json.loads(advice.stdout)["result"]["attacks"]
    lead = next(a for a in ranked if (a["attacker"], a["target"]) == ("lead", "holdout"))
    combat = json.loads(forecast.stdout)["result"]["combat"]
    assert (lead["enemy_lost"], lead["own_lost"]) == (
        combat["losses"]["holdout"],
        combat["losses"]["lead"],
    )


EDGES = [0, 1e-12, 1, 7.5, 1e12]


def edge_board(rng: random.Random) -> Board:
    places = [(q, r) for r in range(3) for q in range(-(r // 2), 4 - r // 2)]
    rng.shuffle(places)
    units = []
    for number, place in enumerate(places[:7]):
        statuses = []
        if rng.random() < 0.5:
            statuses.append(
                Status.make(
                    "s",
                    "buff",
                    atk_mul=rng.choice([1e-12, 1, 1e12]),
                    def_mul=rng.choice([1e-12, 1, 1e12]),
                    atk_add=rng.choice([0, -1e12, 1e-12, 1e12]),
                    def_add=rng.choice([0, -1e12, 1e12]),
                )
            )
        units.append(
            Unit.make(
                f"u{number}",
                rng.choice(["a", "b"]),
                place,
                strength=rng.choice([1, 3, 10**12 - 1, 10**12]),
                attack={"land": rng.choice(EDGES[1:])},
                defense=rng.choice(EDGES),
                level=rng.choice([0, 99]),
                pierce=rng.choice([0, 1e-12, 0.999999999999]),
                statuses=statuses,
            )
        )
    return Board.from_rows(["....", "....", "...."], units)


@pytest.mark.parametrize("seed", range(3))
def test_inside_the_bound_the_batch_is_the_exact_path_without_a_warning(seed: int) -> None:
    rng = random.Random(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(40):
            board = edge_board(rng)
            params = HexParams(
                support_share=rng.choice([1e-12, 0.25, 1e12]),
                level_percent=rng.choice([1e-12, 1, 1e12]),
                loss_exponent=rng.choice([1e-12, 0.5, 2, 16]),
                defense_support_cap=rng.choice([1e-12, 2, 1e12]),
                advisor_enemy_weight=rng.choice([1e-12, 1, 1e12]),
            )
            for side in ("a", "b"):
                for attack in advise(board, side, params):
                    combat = fight(board, attack.attacker, attack.target, params)
                    assert (attack.enemy_lost, attack.own_lost) == (
                        combat.losses[attack.target],
                        combat.losses[attack.attacker],
                    )
                plan_turn(board, side, params, width=2)


def test_a_board_built_in_python_past_the_bound_is_refused_not_misjudged() -> None:
    # 1e-300 × 1e-30 underflows to 0 in floats: the batch would say the attack takes
    # nothing, where the rules (Effective Def 0) take everything.
    board = Board.from_rows(
        ["...."],
        [
            Unit.make(
                "a",
                "blue",
                (0, 0),
                strength=10,
                attack=1e-300,
                defense=1,
                statuses=[Status.make("s", "debuff", atk_mul=1e-30)],
            ),
            Unit.make("b", "red", (1, 0), strength=10, attack=1, defense=0),
        ],
    )
    assert fight(board, "a", "b", HexParams()).losses["b"] == 10
    with pytest.raises(ScenarioError, match=r"attack.land of 'a' is 1e-300, outside"):
        advise(board, "blue", HexParams())
    huge = Board.from_rows(
        ["...."],
        [
            Unit.make("a", "blue", (0, 0), strength=2**63, attack=1, defense=1),
            Unit.make("b", "red", (1, 0), strength=10, attack=1, defense=1),
        ],
    )
    with pytest.raises(ScenarioError, match=r"strength of 'a' is 9223372036854775808"):
        plan_turn(huge, "blue", HexParams())


def test_the_web_advisor_answers_a_number_past_the_bound_with_a_422() -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from fracas.web import create_app

    text = ENCIRCLEMENT.read_text(encoding="utf-8").replace(
        "strength: 100", "strength: 9223372036854775808", 1
    )
    request = {"scenario": text, "name": "big.yaml", "side": "blue"}
    # The server answers to its own address only (its Host check), not "testserver".
    client = TestClient(create_app(), base_url="http://127.0.0.1")
    response = client.post("/api/advise", json=request)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["path"] == "units[0].strength"
    assert "1000000000000" in error["message"]
