"""The steps of the blows: fear tests, then each initiative step's groups of blows.

Each group is one record's :class:`~.blows.Blows`: play rolls it die by die, exact odds
branch on its law (:meth:`Striking._landing`), and the wounds it removes land on the
target and count for the combat result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fracas.core.dice import Dice, draw
from fracas.rulesets.rankflank.blows import Rolled
from fracas.rulesets.rankflank.breaktest import LeadershipTest
from fracas.rulesets.rankflank.fight import (
    CREDITS,
    DUELS,
    PENDING,
    PHASE,
    ROUND_START,
    UNITS,
    Fight,
    moved,
)
from fracas.rulesets.rankflank.formation import UnitStatus, leadership, rank_and_file
from fracas.rulesets.rankflank.psychology import FearTest, fear_testers
from fracas.rulesets.rankflank.result import WoundCredit
from fracas.rulesets.rankflank.scenario import Unit
from fracas.rulesets.rankflank.steps import _KEPT_LIMIT, Steps
from fracas.rulesets.rankflank.strikes import Conditions, StrikeRoll, strike_records


class Striking(Steps):
    """Fear tests and blows: gathering each step's records, rolling them, landing them."""

    def _fear(self, fight: Fight, state: dict[str, UnitStatus], dice: Dice) -> Fight:
        """Each unit facing a fear-causing enemy tests Leadership; who fails fights at WS 1."""
        afraid: set[str] = set()
        for unit in fear_testers(self.combat, state):
            target = leadership(unit, state[unit.name])
            passed, faces = draw(dice, LeadershipTest(target))
            if not passed:
                afraid.add(unit.name)
            if self.log is not None:
                self.log.fear.append(FearTest(fight.round, unit.name, target, faces or (), passed))
        return moved(fight, phase="strike", afraid=frozenset(afraid))

    def _gather(self, fight: Fight) -> Fight:
        """The records of the next initiative step that has any; the result after the last."""
        combat = self.combat
        initiatives = fight.initiatives
        slain = self._slain_this_round(fight)
        conditions = (
            Conditions(fight.afraid, fight.calmed, slain)
            if fight.afraid or fight.calmed or slain
            else None
        )
        while initiatives:
            if self.log is not None:
                self.log.close_step()
            initiative, initiatives = initiatives[0], initiatives[1:]
            if self.log is not None:
                self.log.initiative = initiative
            records = self._once(
                ("records", fight.units, fight.round, initiative, conditions),
                lambda at=initiative: strike_records(  # type: ignore[misc]
                    combat, self.state(fight), fight.round, at, conditions, self.recorder
                ),
            )
            if records:
                return moved(fight, initiatives=initiatives, pending=records)
        if self.log is not None:
            self.log.close_step()
        return moved(fight, phase="result", initiatives=(), pending=(), round_start=())

    def _slain_this_round(self, fight: Fight) -> tuple[tuple[str, int], ...]:
        """Rank-and-file models each unit lost since the round began (stepping forward)."""
        if not fight.round_start:
            return ()
        lost = []
        for unit, start, now in zip(self.combat.units, fight.round_start, fight.units, strict=True):
            slain = rank_and_file(unit, start) - rank_and_file(unit, now)
            if slain > 0:
                lost.append((unit.name, slain))
        return tuple(lost)

    def _strike(self, fight: Fight, dice: Dice) -> Fight:
        blows = self._blows_for(fight)
        unsaved, rolled = draw(dice, blows[3])
        return self._land(fight, blows, unsaved, rolled)

    def _blows_for(self, fight: Fight) -> tuple[Any, ...]:
        """The next record's blows: the record, those after it, its target, its dice."""
        return self._of_fight("blows", fight, lambda: self._ready_blows(fight))

    def _ready_blows(self, fight: Fight) -> tuple[Any, ...]:
        record, pending = fight.pending[0], fight.pending[1:]
        target = self.combat.unit(record.target_unit)
        index = self._index[target.name]
        status = fight.units[index]
        # Blows in a challenge count in full (overkill); others beyond what the target
        # can lose change nothing, which exact odds use to merge them.
        in_duel = any(duel.character in (record.striker, record.rider) for duel in fight.duels)
        left = self._wound(target, status, record.target_character, 1 << 30)[1]
        group = record.blows(left=left, duel=in_duel)
        phase = "result" if not pending and not fight.initiatives else "strike"
        # What every landing shares, worked out once for all the numbers of wounds: the
        # fight's fields with the step moved on, and the units beside the target.
        landed = list(fight)
        landed[PHASE], landed[PENDING] = phase, pending
        if phase == "result":
            # Stepping forward is done for the round: its start, kept, would split equal fights.
            landed[ROUND_START] = ()
        units = fight.units
        return (
            record,
            pending,
            target,
            group,
            index,
            phase,
            landed,
            units[:index],
            units[index + 1 :],
        )

    def _land(
        self, fight: Fight, blows: tuple[Any, ...], unsaved: int, rolled: Rolled | None
    ) -> Fight:
        """The fight once ``unsaved`` wounds of the record's blows have landed."""
        record, _, target, _, index, phase = blows[:6]
        if self.log is not None:
            taken = self._wound(target, fight.units[index], record.target_character, unsaved)[1]
            if rolled is not None:
                self.log.blows.append(StrikeRoll(record, rolled))
                credit = WoundCredit(record.side, record.striker, target.name, taken)
                self.log.credits.append(credit)
            if phase == "result":
                self.log.close_step()
        return self._landed(fight, blows, unsaved)

    def _landing(self, fight: Fight, blows: tuple[Any, ...]) -> Callable[[int], Fight]:
        """Where each number of unsaved wounds of the record's blows leads (exact odds
        follow every number from the same fight; Monte Carlo keeps the function for every
        fight it meets, so it holds no more than the fight and its blows)."""
        return lambda unsaved: self._landed(fight, blows, unsaved)

    def _landed(self, fight: Fight, blows: tuple[Any, ...], unsaved: int) -> Fight:
        """The fight once ``unsaved`` wounds have landed.

        The next initiative step's records are gathered when the fight takes its next
        step (:meth:`~.play.CombatProcess._ready`): exact odds merge the fights first, so
        fights that landed alike gather once."""
        record, _, target, _, index, _, landed, before, after = blows
        values = landed.copy()
        if unsaved:
            hurt, taken = self._wound(target, fight.units[index], record.target_character, unsaved)
            values[UNITS] = (*before, hurt, *after)
            values[CREDITS] = self._credit(fight.credits, record.side, target, taken, fight.round)
            if fight.duels:
                # Wounds a character (or his mount) scores on his rival count in the
                # challenge.
                values[DUELS] = tuple(
                    duel._replace(scored=duel.scored + unsaved)
                    if duel.character in (record.striker, record.rider)
                    and record.target_character == duel.rival
                    else duel
                    for duel in fight.duels
                )
        return tuple.__new__(Fight, values)

    def _credit(
        self,
        credits: tuple[tuple[str, int], ...],
        side: str,
        target: Unit,
        wounds: int,
        number: int,
    ) -> tuple[tuple[str, int], ...]:
        """Add wounds that count for ``side``: wounds on its own models never do.

        After round 1 only the gap between the sides is kept: the winner and the
        difference depend on nothing else, and only round 1's scores are reported, so
        fights that differ by the same wounds on both sides merge.
        """
        if target.side == side or not wounds:
            return credits
        if not credits:
            return ((side, wounds),)
        key = (credits, side, wounds, number > 1)
        found = self._credited.get(key)
        if found is None:
            if len(self._credited) >= _KEPT_LIMIT:
                self._credited.clear()
            found = self._credited[key] = self._add_credit(credits, side, wounds, number)
        return found

    def _add_credit(
        self, credits: tuple[tuple[str, int], ...], side: str, wounds: int, number: int
    ) -> tuple[tuple[str, int], ...]:
        totals = dict(credits)
        totals[side] = totals.get(side, 0) + wounds
        if number > 1:
            least = min(totals.get(s, 0) for s in self.combat.sides)
            totals = {s: n - least for s, n in totals.items() if n > least}
        return tuple(sorted(totals.items()))
