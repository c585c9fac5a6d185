"""The duel's report: every exchange's two rolls, row by row, then the outcome."""

from __future__ import annotations

from typing import Any

from fracas.core.report import Report, Section, Table, Text, breakdown_data, fmt
from fracas_duel.play import Bout, winner_name
from fracas_duel.scenario import Duel


def build_report(duel: Duel, bout: Bout, ruleset: str) -> Report:
    """One table per exchange (die, skill, total for each fighter) and the verdict."""
    names = tuple(f.name for f in duel.fighters)
    sections = []
    for number, exchange in enumerate(bout.exchanges, start=1):
        rows = tuple(
            (name, fmt(roll.rows[0].value), fmt(roll.rows[1].value), fmt(roll.total))
            for name, roll in zip(names, exchange.rolls, strict=True)
        )
        table = Table(("fighter", "die", "skill", "total"), rows)
        result = (
            "tie: no wound" if exchange.wounded is None else f"{names[exchange.wounded]} is wounded"
        )
        sections.append(Section(f"Exchange {number}", (table, Text(result))))
    winner = winner_name(duel, bout.fallen)
    verdict = (
        f"Both still stand after {len(bout.exchanges)} exchanges."
        if winner == "none"
        else f"{winner} wins: {names[bout.fallen or 0]} falls."
    )
    sections.append(Section("Outcome", (Text(verdict, strong=True),)))
    data: dict[str, Any] = {
        "winner": winner,
        "wounds": dict(zip(names, bout.wounds, strict=True)),
        "exchanges": [
            {
                "rolls": [breakdown_data(roll) for roll in exchange.rolls],
                "wounded": None if exchange.wounded is None else names[exchange.wounded],
            }
            for exchange in bout.exchanges
        ],
    }
    return Report(ruleset, duel.title, tuple(sections), data)
