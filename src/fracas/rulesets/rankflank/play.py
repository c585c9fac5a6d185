"""Fighting the combat: the round loop over strikes, combat result, break tests, pursuit.

The combat is written once, as a :class:`~fracas.core.process.Process`: a
:class:`CombatProcess` moves a hashable :class:`~.fight.Fight` on by one step at a time
(one group of blows, the combat result, the break tests, one unit's flight). Each concern
is a module of its own (:mod:`.striking`, :mod:`.scoring`, :mod:`.fleeing`); this one
starts and ends rounds and says which step comes next. Seeded play runs the steps with
seeded dice and a keeping recorder, which gets every round with every face for the
report; exact odds run the very same steps with the summing recorder through
:func:`~fracas.analysis.exact.exact_states`, which merges equal fights between steps and
replaces each group of dice by its closed form.

>>> from fracas.core.dice import SeededDice
>>> from fracas.rulesets.rankflank.document import EXAMPLE
>>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
>>> outcome = play_combat(RankflankRuleset().load(EXAMPLE).combat, SeededDice(1))
>>> outcome.rounds[0].number
1
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fracas.core.dice import Dice, DiceGroup
from fracas.core.process import run
from fracas.core.record import KeepingRecorder
from fracas.rulesets.rankflank.fight import (
    CombatOutcome,
    Duel,
    Fight,
    Phase,
    Round,
    apply_wounds,
    fighting_pairs,
    moved,
    round_one_metrics,
    unit_fate,
)
from fracas.rulesets.rankflank.fleeing import Fleeing
from fracas.rulesets.rankflank.formation import State, UnitStatus, initial_state
from fracas.rulesets.rankflank.psychology import fear_testers
from fracas.rulesets.rankflank.result import WoundCredit
from fracas.rulesets.rankflank.scenario import Combat
from fracas.rulesets.rankflank.scoring import Scoring
from fracas.rulesets.rankflank.steps import RoundLog
from fracas.rulesets.rankflank.strikes import challenge_opponent, initiative_steps
from fracas.rulesets.rankflank.striking import Striking


class CombatProcess(Striking, Scoring, Fleeing):
    """The combat as steps over :class:`Fight` values (a :class:`~fracas.core.process.Process`).

    Each step rolls at most one group of dice per unit involved: one record's blows, the
    losers' break tests, or one broken unit's flight and the pursuit of it. With a keeping
    recorder, every face and every table is kept for the report; with the summing one, the
    steps compute only what the next state needs.
    """

    def start(self) -> Fight:
        state = initial_state(self.combat)
        units = self.key(state)
        return Fight(units, phase=self._next_phase(0, units, state))

    def finished(self, fight: Fight) -> bool:
        return fight.phase == "over"

    def settle(self, fight: Fight) -> tuple[Fight, dict[str, Any]] | None:
        """Metrics that are final leave the fight: exact odds count them apart.

        Round 1's, once known: carrying its scores through every later round would split
        fights that are otherwise equal, by as many ways as round 1 could end. And the
        fate of a unit whose flight has ended: it is out for good, and the models it lost
        would split the fights of the rest of the combat as much. Its status is replaced
        by one that every such unit shares (fled, no models): the rules only ever ask a
        fled unit whether it fled.
        """
        leaving = fight.leaving
        happened = self.events and (fight.caught or fight.fell_back or fight.gave_ground)
        if not fight.first and not leaving and not happened:
            return None
        metrics: dict[str, Any] = {}
        if happened:
            # Handed over as they happen, then forgotten; nothing else reports them.
            metrics.update({f"falls_back.{name}": True for name in fight.fell_back})
            metrics.update({f"gives_ground.{name}": True for name in fight.gave_ground})
            metrics.update({f"caught.{name}": True for name in fight.caught})
            fight = moved(fight, caught=frozenset(), fell_back=frozenset(), gave_ground=frozenset())
        if fight.first:
            metrics.update(round_one_metrics(self.combat, fight.first))
            fight = moved(fight, first=())
        if leaving:
            units = list(fight.units)
            for name in leaving:
                index = self._index[name]
                unit = self.combat.units[index]
                outcomes = (name in fight.fell_back, name in fight.gave_ground)
                fate = unit_fate(
                    unit,
                    self._initial[index],
                    units[index],
                    name in fight.caught,
                    outcomes if self._three_outcomes else None,
                    name in fight.withdrawn,
                )
                metrics.update({k: v for k, v in fate.items() if k not in self.event_set})
                units[index] = self._gone[index]
            fight = moved(
                fight,
                units=tuple(units),
                caught=fight.caught.difference(leaving),
                leaving=(),
                gone=fight.gone.union(leaving),
                fell_back=fight.fell_back.difference(leaving),
                gave_ground=fight.gave_ground.difference(leaving),
                withdrawn=fight.withdrawn.difference(leaving),
            )
        return fight, metrics

    def step(self, fight: Fight, dice: Dice) -> Fight:
        return self._ready(self._step(self._ready(fight), dice))

    def branch(self, fight: Fight) -> tuple[DiceGroup[Any, Any], Callable[[Any], Fight]] | None:
        """A group of blows as one dice group and where each number of wounds leads
        (a :class:`~fracas.core.process.Branching` process); other steps replay."""
        if self.log is not None:
            return None
        fight = self._ready(fight)
        if fight.phase == "strike":
            blows = self._blows_for(fight)
            return blows[3], self._landing(fight, blows)
        if fight.phase == "flee":
            chase = self._chase_for(fight)
            return chase[3], lambda key: self._ready(self._chased(fight, chase, key, None))
        if fight.phase == "result":
            scored = self._scored(fight)
            if scored.phase == "break":
                tests = self._break_group(scored)
                return tests, lambda key: self._ready(self._tested(scored, tests, key))
        return None

    def _ready(self, after: Fight) -> Fight:
        """``after`` with the records of its next initiative step gathered (no dice),
        when it has none left to roll."""
        if after.phase == "strike" and not after.pending:
            return self._gather(after)
        return after

    def _step(self, fight: Fight, dice: Dice) -> Fight:
        if fight.phase == "strike":
            return self._strike(fight, dice)
        if fight.phase == "begin":
            return self._begin(fight, self.state(fight))
        if fight.phase == "fear":
            return self._fear(fight, self.state(fight), dice)
        if fight.phase == "result":
            # The result has no dice: the losers test at once, in the same step, and a
            # round with nobody to test ends there too.
            fight = self._scored(fight)
            if fight.phase == "break":
                return self._break(fight, dice)
            return self._end(fight)
        if fight.phase == "flee":
            return self._flee(fight, dice)
        return self._end(fight)

    def _next_phase(self, fought: int, units: tuple[UnitStatus, ...], state: State) -> Phase:
        """After ``fought`` rounds: another begins while enemies still fight, or it is over."""
        if fought >= self.combat.options.max_rounds or not self._once(
            ("pairs", units), lambda: fighting_pairs(self.combat, state)
        ):
            return "over"
        return "begin"

    def _begin(self, fight: Fight, state: dict[str, UnitStatus]) -> Fight:
        combat = self.combat
        number = fight.round + 1
        credits: tuple[tuple[str, int], ...] = ()
        if number == 1:
            for other in combat.other_wounds:
                target = combat.unit(other.target)
                state, taken = apply_wounds(state, target, None, other.wounds)
                credits = self._credit(credits, other.side, target, taken, number)
                if self.log is not None:
                    self.log.credits.append(
                        WoundCredit(other.side, other.source, other.target, taken)
                    )
        duels: list[Duel] = []
        if combat.challenge is not None:
            for name in combat.challenge:
                opponent = challenge_opponent(combat, state, name)
                if opponent is not None:
                    unit, character = opponent
                    index = unit.characters.index(character)
                    wounds = state[unit.name].character_wounds[index]
                    duels.append(Duel(name, character.name, wounds))
        for name, status in state.items():
            if (status.charging_round or status.followed_up_round) and max(
                status.charging_round, status.followed_up_round
            ) < number:
                # Counted as charging in a round now over: nothing left to split fights by.
                state[name] = status._replace(charging_round=0, followed_up_round=0)
        units = self.key(state)
        return moved(
            fight,
            units=units,
            round=number,
            phase="fear" if self.fear and fear_testers(combat, state) else "strike",
            initiatives=self._once(
                ("initiatives", units, number), lambda: initiative_steps(combat, state, number)
            ),
            pending=(),
            credits=credits,
            duels=tuple(duels),
            round_start=units if combat.options.stepping_forward else (),
        )

    def _end(self, fight: Fight) -> Fight:
        if self.log is not None:
            state = self.state(fight)
            self._close_round(fight, state)
            return self._following(fight, state)
        # What comes next depends only on what outlasts the round (kept: many fights end
        # their rounds alike).
        # The next round's first records are gathered with it.
        lasting = (
            fight.units,
            fight.round,
            fight.first,
            fight.caught,
            fight.calmed,
            fight.leaving,
            fight.gone,
            fight.fell_back,
            fight.gave_ground,
            fight.withdrawn,
        )
        return self._once(
            ("end", lasting), lambda: self._ready(self._following(fight, self.state(fight)))
        )

    def _following(self, fight: Fight, state: dict[str, UnitStatus]) -> Fight:
        """The fight once the round is over: the next round begun, or the combat over."""
        # Only what outlasts the round is kept (the fields of ``_end``'s key).
        following = Fight(
            fight.units,
            fight.round,
            self._next_phase(fight.round, fight.units, state),
            first=fight.first,
            caught=fight.caught,
            calmed=fight.calmed,
            leaving=fight.leaving,
            gone=fight.gone,
            fell_back=fight.fell_back,
            gave_ground=fight.gave_ground,
            withdrawn=fight.withdrawn,
        )
        return self._begin(following, state) if following.phase == "begin" else following

    def _close_round(self, fight: Fight, state: State) -> None:
        log = self.log
        assert log is not None
        assert log.result is not None
        aftermath = list(log.aftermath)
        pursuits = {p.unit: p for p in log.pursuits}
        for outcome in log.outcome_tests:
            if outcome.outcome == "break":
                aftermath.append(f"{outcome.unit} breaks and {pursuits[outcome.unit].fate}.")
            elif outcome.outcome == "fall_back":
                pursuit = pursuits.get(outcome.unit)
                fate = pursuit.fate if pursuit is not None else "gets away"
                aftermath.append(f"{outcome.unit} falls back in good order and {fate}.")
            elif outcome.unit in fight.withdrawn:
                aftermath.append(f"{outcome.unit} gives ground and is not followed up.")
            else:
                aftermath.append(f"{outcome.unit} gives ground and is followed up.")
        for test in log.tests:
            if test.passed:
                aftermath.append(f"{test.unit} holds.")
            else:
                aftermath.append(f"{test.unit} breaks and {pursuits[test.unit].fate}.")
        self.recorder.note(
            Round(
                fight.round,
                tuple(log.steps),
                tuple(log.credits),
                log.overkill,
                log.result,
                tuple(log.tests),
                tuple(log.pursuits),
                tuple(aftermath),
                log.after_blows,
                dict(state),
                tuple(log.fear),
                tuple(log.outcome_tests),
            )
        )
        self.log = RoundLog()


def fight_round(combat: Combat, state: State, number: int, dice: Dice) -> Round:
    """Fight round ``number`` from ``state``: strikes, combat result, break tests, pursuit.

    >>> from fracas.core.dice import SeededDice
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> fought = fight_round(combat, initial_state(combat), 1, SeededDice(3))
    >>> [step.initiative for step in fought.steps]  # the charging orcs' I2 + 1 ties I3
    [3]
    >>> fought.result.winner, fought.aftermath
    ('Greenskins', ('Spearmen breaks and flees.',))
    """
    recorder = KeepingRecorder()
    process = CombatProcess(combat, recorder)
    fight = Fight(process.key(state), round=number - 1, phase="begin")
    while not recorder.notes:
        fight = process.step(fight, dice)
    fought = recorder.notes[0]
    assert isinstance(fought, Round)
    return fought


def play_combat(combat: Combat, dice: Dice) -> CombatOutcome:
    """Fight rounds until one side breaks or is destroyed, or the round limit is reached."""
    recorder = KeepingRecorder()
    process = CombatProcess(combat, recorder)
    end = run(process, dice)
    rounds = tuple(note for note in recorder.notes if isinstance(note, Round))
    return CombatOutcome(rounds, initial_state(combat), process.state(end), end)
