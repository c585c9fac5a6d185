"""Playing a duel: each exchange, both fighters roll; the higher total wounds the other.

Every roll is a chance node asked of the injected dice, so the same code plays a seeded
bout, enumerates every bout for exact odds and samples bouts for Monte Carlo.
"""

from __future__ import annotations

from dataclasses import dataclass

from fracas.core.dice import Dice, die
from fracas.core.modifiers import Breakdown
from fracas_duel.scenario import Duel


@dataclass(frozen=True, slots=True)
class Exchange:
    """One exchange: both rolls as breakdowns, and who was wounded (``None``: a tie)."""

    rolls: tuple[Breakdown, Breakdown]
    wounded: int | None


@dataclass(frozen=True, slots=True)
class Bout:
    """Every exchange fought, the wounds each fighter took, and who fell first."""

    exchanges: tuple[Exchange, ...]
    wounds: tuple[int, int]
    fallen: int | None


def play_bout(duel: Duel, dice: Dice) -> Bout:
    """Fight exchanges until a fighter has taken its health in wounds, or the limit."""
    node = die(duel.params.die)
    wounds = [0, 0]
    exchanges: list[Exchange] = []
    fallen: int | None = None
    while fallen is None and len(exchanges) < duel.params.max_exchanges:
        first, second = (
            Breakdown.start(f.name, node.label, dice.roll(node)).plus(
                "skill", f.skill, source=f.name
            )
            for f in duel.fighters
        )
        wounded = None if first.total == second.total else (1 if first.total > second.total else 0)
        if wounded is not None:
            wounds[wounded] += 1
            if wounds[wounded] >= duel.fighters[wounded].health:
                fallen = wounded
        exchanges.append(Exchange((first, second), wounded))
    return Bout(tuple(exchanges), (wounds[0], wounds[1]), fallen)


def winner_name(duel: Duel, bout: Bout) -> str:
    """The fighter still standing when the other fell, or ``"none"``."""
    return "none" if bout.fallen is None else duel.fighters[1 - bout.fallen].name
