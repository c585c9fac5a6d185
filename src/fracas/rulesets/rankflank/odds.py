"""What rankflank's odds put first, and the metric they derive: who holds the field.

``HEADLINES`` asks who wins the first round and the combat, who breaks, who is caught and
the expected casualties. :func:`decided` derives ``decided`` from each outcome.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fracas.core.headline import Headline
from fracas.rulesets.base import DeriveMetrics, Summary
from fracas.rulesets.rankflank.formation import initial_state, models_alive

if TYPE_CHECKING:
    from fracas.rulesets.rankflank.ruleset import RankflankScenario

HEADLINES: tuple[Headline, ...] = (
    Headline(
        "values",
        "winner",
        "P({value} wins round 1)",
        labels=(("draw", "P(draw in round 1)"), ("withdraw", "P(withdraw in round 1)")),
    ),
    Headline(
        "values",
        "decided",
        "P({value} wins the combat)",
        labels=(
            ("undecided", "P(combat undecided after the last round)"),
            ("draw", "P(both sides routed or destroyed)"),
        ),
    ),
    Headline("probability", "breaks.*", "P({name} breaks)", values=(True,)),
    Headline("probability", "caught.*", "P({name} is caught)", values=(True,)),
    Headline("mean", "casualties.*", "expected casualties of {name}"),
)


def decided(scenario: RankflankScenario) -> DeriveMetrics:
    """Derive ``decided``: who holds the field when the combat ends ("until decided").

    A side is out of the fight once each of its units has broken or been wiped out; the
    other side then wins the combat. ``undecided`` means both still stand after the last
    round played (``max_rounds``), ``draw`` that both sides are out.

    >>> from fracas.rulesets.rankflank.ruleset import RankflankScenario
    >>> from fracas.rulesets.rankflank.samples import two_blocks
    >>> scenario = RankflankScenario(two_blocks(max_rounds=1), "t")
    >>> names = [unit.name for unit in scenario.combat.units]
    >>> derive = decided(scenario)
    >>> derive({f"breaks.{names[0]}": False, f"breaks.{names[1]}": True})["decided"]
    'Empire'
    >>> derive({f"breaks.{names[0]}": False, f"breaks.{names[1]}": False})["decided"]
    'undecided'
    """
    combat = scenario.combat
    start = initial_state(combat)
    sides: dict[str, list[tuple[str, int]]] = {side: [] for side in combat.sides}
    for unit in combat.units:
        sides[unit.side].append((unit.name, models_alive(unit, start[unit.name])))

    def derive(summary: Mapping[str, Any]) -> Summary:
        out = [
            side
            for side, units in sides.items()
            if all(
                summary.get(f"breaks.{name}") is True
                or summary.get(f"casualties.{name}", 0) >= alive
                for name, alive in units
            )
        ]
        if not out:
            return {"decided": "undecided"}
        if len(out) == len(sides):
            return {"decided": "draw"}
        return {"decided": next(side for side in sides if side not in out)}

    return derive
