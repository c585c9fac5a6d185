"""What the duel's odds put first, and the metric it derives: a win without a wound."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fracas.core.headline import Headline
from fracas.rulesets.base import DeriveMetrics, Summary
from fracas_duel.scenario import Duel

HEADLINES: tuple[Headline, ...] = (
    Headline(
        "values",
        "winner",
        "P({value} wins)",
        labels=(("none", "P(both still stand at the end)"),),
    ),
    Headline("probability", "flawless", "P(the winner took no wound)", values=(True,)),
    Headline("mean", "exchanges", "expected exchanges"),
    Headline("mean", "wounds.*", "expected wounds taken by {name}"),
)


def flawless(duel: Duel) -> DeriveMetrics:
    """Derive ``flawless``: someone won and took no wound on the way.

    >>> from fracas_duel.document import DuelParams, Fighter
    >>> duel = Duel((Fighter(name="A"), Fighter(name="B")), DuelParams(), "t")
    >>> derive = flawless(duel)
    >>> derive({"winner": "A", "wounds.A": 0})["flawless"], derive({"winner": "none"})
    (True, {'flawless': False})
    """
    names = {f.name for f in duel.fighters}

    def derive(summary: Mapping[str, Any]) -> Summary:
        winner = summary.get("winner")
        return {"flawless": winner in names and summary.get(f"wounds.{winner}") == 0}

    return derive
