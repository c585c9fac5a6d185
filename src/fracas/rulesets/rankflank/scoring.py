"""The step of the combat result: both sides' scores, the winner, who must test."""

from __future__ import annotations

from fracas.core.record import SUMMING
from fracas.rulesets.rankflank.fight import Fight, apply_wounds, moved
from fracas.rulesets.rankflank.formation import (
    State,
    UnitStatus,
    characters_alive,
    in_combat,
    models_alive,
)
from fracas.rulesets.rankflank.result import (
    CombatResult,
    OverkillCredit,
    combat_result,
    decide,
    musician_tie,
    standing_units,
)
from fracas.rulesets.rankflank.steps import Steps


class Scoring(Steps):
    """The combat result once the blows are over, and what the report says of it."""

    def _scored(self, fight: Fight) -> Fight:
        """The fight after the combat result (kept without a keeping recorder: exact odds take every
        branch of the break tests from the same fight)."""
        if self.log is not None:
            return self._result(fight)
        return self._of_fight("result", fight, lambda: self._result(fight))

    def _overkill(self, fight: Fight) -> tuple[OverkillCredit, ...]:
        combat = self.combat
        overkill: list[OverkillCredit] = []
        for duel in fight.duels:
            if duel.scored <= duel.rival_wounds:
                continue  # no wounds beyond the rival's: nothing to carry over
            state = self.state(fight)
            winner_unit = combat.character_owner(duel.character)
            loser_unit = combat.character_owner(duel.rival)
            assert winner_unit is not None
            assert loser_unit is not None
            alive = {c.name for c in characters_alive(winner_unit, state[winner_unit.name])}
            standing = {c.name for c in characters_alive(loser_unit, state[loser_unit.name])}
            survived = duel.character in alive or not combat.options.overkill_needs_survivor
            if survived and duel.rival not in standing:
                excess = duel.scored - duel.rival_wounds
                overkill.append(OverkillCredit(winner_unit.side, duel.character, excess))
        return tuple(overkill)

    def _scores(
        self, fight: Fight, overkill: tuple[OverkillCredit, ...]
    ) -> tuple[CombatResult | None, dict[str, int], tuple[str, ...], dict[str, tuple[str, ...]]]:
        """Both sides' combat results, who was wiped out, and who tests if each side loses.

        In full for a keeping recorder. Otherwise a combat result is its bonuses (a function of the
        units after the blows) plus the wounds each side caused: the bonuses, and who is
        still there to test, are computed once per fight after the blows and kept.
        """
        combat = self.combat
        if self.log is not None:
            state = self.state(fight)
            result = combat_result(
                combat,
                state,
                self.log.credits,
                round_number=fight.round,
                overkill=overkill,
                record=self.recorder,
            )
            totals = {side: result.score(side) for side in combat.sides}
            return result, totals, result.wiped_out, self._testers(state)
        key = (fight.units, fight.round == 1, overkill)
        kept = self._bonuses.get(key)
        if kept is None:
            state = self.state(fight)
            plain = combat_result(
                combat,
                state,
                (),
                round_number=fight.round,
                overkill=overkill,
                record=SUMMING,
                tie_break=False,
            )
            kept = (
                {side: plain.score(side) for side in combat.sides},
                plain.wiped_out,
                self._testers(state),
            )
            self._bonuses[key] = kept
        bonuses, wiped, testers = kept
        if fight.credits:
            wounds = dict(fight.credits)
            bonuses = {side: score + wounds.get(side, 0) for side, score in bonuses.items()}
        if combat.options.musician_tie:
            tie_breaker = musician_tie(combat, self.state(fight), bonuses, wiped)
            if tie_breaker is not None:
                bonuses = {**bonuses, tie_breaker[0]: bonuses[tie_breaker[0]] + 1}
        return None, bonuses, wiped, testers

    def _testers(self, state: State) -> dict[str, tuple[str, ...]]:
        """The units of each side that test if their side loses: those still fighting."""
        combat = self.combat
        return {
            side: tuple(unit.name for unit in standing_units(combat, state, side))
            for side in combat.sides
        }

    def _result(self, fight: Fight) -> Fight:
        combat = self.combat
        number = fight.round
        overkill = self._overkill(fight) if fight.duels else ()
        result, totals, wiped, would_test = self._scores(fight, overkill)
        winner, difference = decide(combat, totals, wiped)
        first = fight.first
        if number == 1:
            scores = tuple(totals[side] for side in combat.sides)
            first = (winner or "draw", scores, difference)
        testers: tuple[str, ...] = ()
        calmed = fight.calmed
        if winner is not None and not wiped:
            loser = combat.enemy_of(winner)
            testers = would_test[loser]
            if self._frenzied[loser]:
                calmed = calmed | self._frenzied[loser]
        units: tuple[UnitStatus, ...] = fight.units
        crumbled: tuple[tuple[str, int], ...] = ()
        if testers and self._unstable:
            units, testers, crumbled = self._crumble(fight, testers, difference)
        if self.log is not None:
            assert result is not None
            state = self.state(fight)
            self.log.overkill = overkill
            self.log.result = result
            self.log.after_blows = state
            self.log.aftermath.extend(self._aftermath(state, winner, wiped, number))
            self.log.aftermath.extend(
                f"{name} is Unstable: loses {lost} wounds, 1 for each point it lost by."
                for name, lost in crumbled
            )
        return moved(
            fight,
            units=units,
            afraid=frozenset(),
            calmed=calmed,
            phase="break" if testers else "end",
            pending=(),
            credits=(),
            duels=(),
            winner=winner,
            difference=difference,
            testers=testers,
            first=first,
        )

    def _crumble(
        self, fight: Fight, testers: tuple[str, ...], difference: int
    ) -> tuple[tuple[UnitStatus, ...], tuple[str, ...], tuple[tuple[str, int], ...]]:
        """Unstable losers lose 1 Wound per point they lost by, before the test, without
        saves or Regeneration; a unit left with no models does not test. Returns the
        units, who still tests, and the wounds each Unstable unit lost."""
        combat = self.combat
        state = self.state(fight)
        crumbled: list[tuple[str, int]] = []
        for name in testers:
            unit = combat.unit(name)
            if "unstable" not in unit.rules:
                continue
            remaining, lost = difference, 0
            while remaining and models_alive(unit, state[name]):
                state, taken = apply_wounds(state, unit, None, remaining)
                remaining -= taken
                lost += taken
            crumbled.append((name, lost))
        if not crumbled:
            return fight.units, testers, ()
        standing = tuple(n for n in testers if in_combat(combat.unit(n), state[n]))
        return self.key(state), standing, tuple(crumbled)

    def _aftermath(
        self, state: State, winner: str | None, wiped: tuple[str, ...], number: int
    ) -> list[str]:
        """What the report says of a round won without break tests (or drawn)."""
        combat = self.combat
        if winner is None:
            return [
                "A draw: the combat goes on next round."
                if not wiped
                else "Both sides are wiped out."
            ]
        aftermath: list[str] = []
        if wiped:
            for unit in combat.side_units(winner):
                if not in_combat(unit, state[unit.name]):
                    continue
                if combat.options.overrun and unit.charged and number == 1:
                    aftermath.append(f"{unit.name} overruns.")
                else:
                    aftermath.append(f"{unit.name} restrains pursuit and reforms.")
        return aftermath
