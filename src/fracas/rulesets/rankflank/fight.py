"""Where a combat stands between two steps, and what a played round leaves for the report.

A :class:`Fight` is a value (a named tuple), so that exact odds merge equal fights; the
records :class:`Step`, :class:`Round` and :class:`CombatOutcome` are what seeded play
keeps of each round. The helpers here read a fight's units: wounds taken, what became of
a unit, round 1's scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from fracas.rulesets.rankflank.breaktest import BreakTest, OutcomeTest, Pursuit
from fracas.rulesets.rankflank.formation import (
    State,
    UnitStatus,
    engaged_enemies,
    fighting_characters,
    in_combat,
    models_alive,
)
from fracas.rulesets.rankflank.psychology import FearTest
from fracas.rulesets.rankflank.result import CombatResult, OverkillCredit, WoundCredit
from fracas.rulesets.rankflank.scenario import Combat, Unit
from fracas.rulesets.rankflank.strikes import StrikeRecord, StrikeRoll

Phase = Literal["begin", "fear", "strike", "result", "break", "flee", "end", "over"]


class Duel(NamedTuple):
    """A character fighting a challenge this round, and the wounds he has dealt in it."""

    character: str
    rival: str
    rival_wounds: int
    scored: int = 0


class Fight(NamedTuple):
    """Where the combat stands between two steps: a value, so equal fights merge.

    A tuple, so that hashing and comparing it is fast. ``units`` follows the scenario's
    unit order. The fields from ``initiatives`` to
    ``chases`` belong to the round being fought; ``first``, ``broken`` and ``caught``
    are the history a summary needs.
    """

    units: tuple[UnitStatus, ...]
    round: int = 0
    phase: Phase = "begin"
    initiatives: tuple[int, ...] = ()
    pending: tuple[StrikeRecord, ...] = ()
    #: Unsaved wounds on the enemy this round, per side: all the combat result needs
    #: (the log keeps them per source for the report's rows).
    credits: tuple[tuple[str, int], ...] = ()
    duels: tuple[Duel, ...] = ()
    winner: str | None = None
    difference: int = 0
    testers: tuple[str, ...] = ()
    fleeing: tuple[str, ...] = ()
    #: Each winning unit's one pursuit roll of the round: (unit, restrained, distance).
    chases: tuple[tuple[str, bool, int], ...] = ()
    #: Round 1's result: winner ("draw" when none), both scores, the difference; ``()``
    #: once exact odds have settled its odds (:meth:`CombatProcess.settle`).
    first: tuple[str, tuple[int, ...], int] | tuple[()] | None = None
    caught: frozenset[str] = frozenset()
    #: Units that failed this round's fear test (they fight at WS 1 until the result).
    afraid: frozenset[str] = frozenset()
    #: Frenzied units that lost a round, and with it their frenzy.
    calmed: frozenset[str] = frozenset()
    #: Units whose flight has ended (they are out of the combat for good) and whose fates
    #: exact odds have not yet counted apart (:meth:`CombatProcess.settle`); play keeps
    #: them here.
    leaving: tuple[str, ...] = ()
    #: Units whose fates exact odds counted apart: their statuses here no longer tell them.
    gone: frozenset[str] = frozenset()
    #: Units that Fell Back in Good Order, and that Gave Ground (three-outcome tests).
    fell_back: frozenset[str] = frozenset()
    gave_ground: frozenset[str] = frozenset()
    #: The units as the round began, while models slain before they strike cost their
    #: attacks (``stepping_forward``); ``()`` otherwise, so that nothing splits fights.
    round_start: tuple[UnitStatus, ...] = ()
    #: Units that left the combat without breaking: a Fall Back in Good Order that got
    #: away, a Give Ground not followed up. Their statuses say ``fled`` (out of the fight).
    withdrawn: frozenset[str] = frozenset()


_FIGHT_FIELD = {name: index for index, name in enumerate(Fight._fields)}
UNITS, PHASE, PENDING, CREDITS, DUELS, ROUND_START = (
    _FIGHT_FIELD[name] for name in ("units", "phase", "pending", "credits", "duels", "round_start")
)


def moved(fight: Fight, **changes: Any) -> Fight:
    """``fight._replace(**changes)`` at about half its cost: exact odds move hundreds of
    thousands of fights on, and this is where they do it."""
    values = list(fight)
    for name, value in changes.items():
        values[_FIGHT_FIELD[name]] = value
    return tuple.__new__(Fight, values)


@dataclass(frozen=True, slots=True)
class Step:
    """One initiative step: every group striking at that Initiative, rolled together."""

    initiative: int
    rolls: tuple[StrikeRoll, ...]


@dataclass(frozen=True, slots=True)
class Round:
    """One round of combat from the first blow to the last pursuit roll."""

    number: int
    steps: tuple[Step, ...]
    credits: tuple[WoundCredit, ...]
    overkill: tuple[OverkillCredit, ...]
    result: CombatResult
    break_tests: tuple[BreakTest, ...]
    pursuits: tuple[Pursuit, ...]
    aftermath: tuple[str, ...]
    state_after_blows: Mapping[str, UnitStatus]
    state_after: Mapping[str, UnitStatus]
    fear_tests: tuple[FearTest, ...] = ()
    #: The break tests of three outcomes (the oldworld preset), in place of ``break_tests``.
    outcome_tests: tuple[OutcomeTest, ...] = ()


@dataclass(frozen=True, slots=True)
class CombatOutcome:
    """Every round fought, the units as they started and ended, and the final fight."""

    rounds: tuple[Round, ...]
    initial: Mapping[str, UnitStatus]
    final: Mapping[str, UnitStatus]
    end: Fight | None = None


def apply_wounds(
    state: State, unit: Unit, character: str | None, wounds: int
) -> tuple[dict[str, UnitStatus], int]:
    """Take ``wounds`` from a character, or from the rank and file (rear rank first).

    Blows at the rank and file of a unit that has none left fall on its first standing
    character. Returns the new state and how many wounds took effect (a slain model's
    surplus wounds are lost).

    >>> from fracas.rulesets.rankflank.formation import initial_state, unit_rows
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> spearmen = combat.unit("Spearmen")
    >>> state, taken = apply_wounds(initial_state(combat), spearmen, None, 7)
    >>> taken, unit_rows(spearmen, state["Spearmen"])
    (7, (5, 5, 3))
    """
    status = state[unit.name]
    if character is None and status.rank_and_file_wounds == 0:
        standing = fighting_characters(unit, status)
        character = standing[0].name if standing else None
    if character is None:
        taken = min(wounds, status.rank_and_file_wounds)
        status = status._replace(rank_and_file_wounds=status.rank_and_file_wounds - taken)
    else:
        index = next(i for i, c in enumerate(unit.characters) if c.name == character)
        left = list(status.character_wounds)
        taken = min(wounds, left[index])
        left[index] -= taken
        status = status._replace(character_wounds=tuple(left))
    return {**state, unit.name: status}, taken


def unit_fate(
    unit: Unit,
    start: UnitStatus,
    status: UnitStatus,
    caught: bool,
    outcomes: tuple[bool, bool] | None = None,
    withdrawn: bool = False,
) -> dict[str, Any]:
    """What became of ``unit``: broke, caught, destroyed, and the models it lost.

    ``outcomes``, with three-outcome break tests: whether it Fell Back in Good Order and
    whether it Gave Ground, at any time in the combat (``falls_back``, ``gives_ground``,
    after ``breaks``). A ``withdrawn`` unit left the fight without breaking.

    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> start = initial_state(combat)["Orcs"]
    >>> unit_fate(combat.unit("Orcs"), start, start._replace(rank_and_file_wounds=12), False)
    {'breaks.Orcs': False, 'caught.Orcs': False, 'destroyed.Orcs': False, 'casualties.Orcs': 8}
    """
    left = models_alive(unit, status)
    if outcomes is not None:
        return {
            f"breaks.{unit.name}": status.fled and not withdrawn,
            f"falls_back.{unit.name}": outcomes[0],
            f"gives_ground.{unit.name}": outcomes[1],
            f"caught.{unit.name}": caught,
            f"destroyed.{unit.name}": left == 0,
            f"casualties.{unit.name}": models_alive(unit, start) - left,
        }
    return {
        f"breaks.{unit.name}": status.fled,
        f"caught.{unit.name}": caught,
        f"destroyed.{unit.name}": left == 0,
        f"casualties.{unit.name}": models_alive(unit, start) - left,
    }


def round_one_metrics(combat: Combat, first: tuple[str, tuple[int, ...], int]) -> dict[str, Any]:
    """Round 1's winner (``"draw"`` when none), each side's combat result, the difference.

    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> round_one_metrics(RankflankRuleset().load(EXAMPLE).combat, ("Greenskins", (4, 8), 4))
    {'round_winner': 'Greenskins', 'cr.Empire': 4, 'cr.Greenskins': 8, 'cr.difference': 4}
    """
    winner, scores, difference = first
    metrics: dict[str, Any] = {"round_winner": winner}
    for side, score in zip(combat.sides, scores, strict=True):
        metrics[f"cr.{side}"] = score
    metrics["cr.difference"] = difference
    return metrics


def fighting_pairs(combat: Combat, state: State) -> bool:
    """True while at least two enemy units in contact are both still in the combat."""
    return any(
        in_combat(unit, state[unit.name]) and engaged_enemies(combat, state, unit)
        for unit in combat.units
    )
