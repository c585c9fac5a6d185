"""The ``hex`` ruleset: deterministic combat on a hex grid, explained row by row.

No dice: the same board and the same orders always give the same result. A strike's
losses come from the ratio of Effective Atk to Effective Def, each built from Strength
and the printed number, then Lv, Encircled, Terrain and Status multipliers, then Support
and Status additions, then Pierce on the defence. See ``docs/rules/hex.md``.

>>> from fracas.rulesets.hex import Board, HexParams, Unit, fight
>>> board = Board.from_rows(["...."], [
...     Unit.make("tanks", "blue", (0, 0), strength=100, attack=2, defense=2),
...     Unit.make("mg", "red", (1, 0), strength=100, attack=1, defense=1)])
>>> combat = fight(board, "tanks", "mg", HexParams())
>>> combat.losses   # ratio 2 → 80 % of mg; mg's counter at ratio 1/2 → 20 % of tanks
{'tanks': 20, 'mg': 80}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fracas._lazy import load

if TYPE_CHECKING:
    from fracas.rulesets.hex import batch
    from fracas.rulesets.hex.advisor import Advice, advise, attacks
    from fracas.rulesets.hex.boards import SideAttacks
    from fracas.rulesets.hex.document import HexDocument, HexParams
    from fracas.rulesets.hex.plan import Plan, plan_turn
    from fracas.rulesets.hex.play import (
        Combat,
        Turn,
        check_legal,
        fight,
        forecast,
        play_turn,
    )
    from fracas.rulesets.hex.ruleset import HexRuleset
    from fracas.rulesets.hex.scenario import Board, Hex, HexScenario, Status, Terrain, Unit
    from fracas.rulesets.hex.strike import (
        StrikeInputs,
        StrikeOutcome,
        compute_strike,
        gather_strike,
    )
    from fracas.rulesets.hex.svg import board_svg

# Imported on first use: listing the rulesets needs the ruleset class, not the rules.
_HOMES = {
    "Advice": "fracas.rulesets.hex.advisor",
    "Board": "fracas.rulesets.hex.scenario",
    "Combat": "fracas.rulesets.hex.play",
    "Hex": "fracas.rulesets.hex.scenario",
    "HexDocument": "fracas.rulesets.hex.document",
    "HexParams": "fracas.rulesets.hex.document",
    "HexRuleset": "fracas.rulesets.hex.ruleset",
    "HexScenario": "fracas.rulesets.hex.scenario",
    "Plan": "fracas.rulesets.hex.plan",
    "SideAttacks": "fracas.rulesets.hex.boards",
    "Status": "fracas.rulesets.hex.scenario",
    "StrikeInputs": "fracas.rulesets.hex.strike",
    "StrikeOutcome": "fracas.rulesets.hex.strike",
    "compute_strike": "fracas.rulesets.hex.strike",
    "gather_strike": "fracas.rulesets.hex.strike",
    "Terrain": "fracas.rulesets.hex.scenario",
    "Turn": "fracas.rulesets.hex.play",
    "Unit": "fracas.rulesets.hex.scenario",
    "advise": "fracas.rulesets.hex.advisor",
    "attacks": "fracas.rulesets.hex.advisor",
    "batch": "fracas.rulesets.hex.batch",
    "board_svg": "fracas.rulesets.hex.svg",
    "check_legal": "fracas.rulesets.hex.play",
    "fight": "fracas.rulesets.hex.play",
    "forecast": "fracas.rulesets.hex.play",
    "plan_turn": "fracas.rulesets.hex.plan",
    "play_turn": "fracas.rulesets.hex.play",
}


def __getattr__(name: str) -> Any:
    return load(__name__, _HOMES, name)


__all__ = [
    "Advice",
    "Board",
    "Combat",
    "Hex",
    "HexDocument",
    "HexParams",
    "HexRuleset",
    "HexScenario",
    "Plan",
    "SideAttacks",
    "Status",
    "StrikeInputs",
    "StrikeOutcome",
    "Terrain",
    "Turn",
    "Unit",
    "advise",
    "attacks",
    "batch",
    "board_svg",
    "check_legal",
    "compute_strike",
    "fight",
    "forecast",
    "gather_strike",
    "plan_turn",
    "play_turn",
]
