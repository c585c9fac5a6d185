"""Fighting the combat: rounds of strikes, the combat result, break tests and pursuit.

The combat is written once, as a :class:`~fracas.core.evaluate.Process`: a
:class:`CombatProcess` moves a hashable :class:`Fight` on by one step at a time (one
group of blows, the combat result, the break tests, one unit's flight). Seeded play runs
the steps with seeded dice and keeps a log of every face for the report; exact odds run
the very same steps through :func:`~fracas.core.evaluate.exact_states`, which merges equal
fights between steps and replaces each group of dice by its closed form.

>>> from fracas.core.dice import SeededDice
>>> from fracas.rulesets.rankflank.samples import two_blocks
>>> outcome = play_combat(two_blocks(), SeededDice(1))
>>> outcome.rounds[0].number
1
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, TypeVar

from fracas.core.dice import Dice, DiceGroup, draw
from fracas.core.evaluate import run
from fracas.core.record import SUMMING, KeepingRecorder, Recorder
from fracas.rulesets.rankflank.blows import Rolled
from fracas.rulesets.rankflank.breaktest import (
    BreakTest,
    BreakTests,
    ChaseRoll,
    LeadershipTest,
    Pursuit,
    PursuitRoll,
    Reach,
    break_stance,
)
from fracas.rulesets.rankflank.formation import (
    State,
    UnitStatus,
    characters_alive,
    engaged_enemies,
    in_combat,
    initial_state,
    leadership,
    models_alive,
    unit_strength,
)
from fracas.rulesets.rankflank.psychology import FearTest, fear_testers, lose_frenzy
from fracas.rulesets.rankflank.result import (
    CombatResult,
    OverkillCredit,
    WoundCredit,
    combat_result,
    decide,
    standing_units,
)
from fracas.rulesets.rankflank.scenario import Combat, Unit
from fracas.rulesets.rankflank.strikes import (
    Conditions,
    StrikeRecord,
    StrikeRoll,
    challenge_opponent,
    initiative_steps,
    strike_records,
)

Phase = Literal["begin", "fear", "strike", "result", "break", "flee", "end", "over"]
T = TypeVar("T")
#: Most results :meth:`CombatProcess._once` keeps before it starts afresh.
_KEPT_LIMIT = 400_000


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


_FIGHT_FIELD = {name: index for index, name in enumerate(Fight._fields)}
_UNITS, _PHASE, _PENDING, _CREDITS, _DUELS = (
    _FIGHT_FIELD[name] for name in ("units", "phase", "pending", "credits", "duels")
)


def _moved(fight: Fight, **changes: Any) -> Fight:
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
    >>> from fracas.rulesets.rankflank.samples import two_blocks
    >>> combat = two_blocks()
    >>> spearmen = combat.unit("Spearmen")
    >>> state, taken = apply_wounds(initial_state(combat), spearmen, None, 7)
    >>> taken, unit_rows(spearmen, state["Spearmen"])
    (7, (5, 5, 3))
    """
    status = state[unit.name]
    if character is None and status.rank_and_file_wounds == 0:
        standing = characters_alive(unit, status)
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


def unit_fate(unit: Unit, start: UnitStatus, status: UnitStatus, caught: bool) -> dict[str, Any]:
    """What became of ``unit``: broke, caught, destroyed, and the models it lost.

    >>> from fracas.rulesets.rankflank.samples import two_blocks
    >>> combat = two_blocks()
    >>> start = initial_state(combat)["Orcs"]
    >>> unit_fate(combat.unit("Orcs"), start, start._replace(rank_and_file_wounds=12), False)
    {'breaks.Orcs': False, 'caught.Orcs': False, 'destroyed.Orcs': False, 'casualties.Orcs': 8}
    """
    left = models_alive(unit, status)
    return {
        f"breaks.{unit.name}": status.fled,
        f"caught.{unit.name}": caught,
        f"destroyed.{unit.name}": left == 0,
        f"casualties.{unit.name}": models_alive(unit, start) - left,
    }


def round_one_metrics(combat: Combat, first: tuple[str, tuple[int, ...], int]) -> dict[str, Any]:
    """Round 1's winner (``"draw"`` when none), each side's combat result, the difference.

    >>> from fracas.rulesets.rankflank.samples import two_blocks
    >>> round_one_metrics(two_blocks(), ("Greenskins", (4, 8), 4))
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


@dataclass
class _Log:
    """What seeded play keeps for the report; exact odds keep none of it."""

    steps: list[Step] = field(default_factory=list)
    blows: list[StrikeRoll] = field(default_factory=list)
    initiative: int | None = None
    credits: list[WoundCredit] = field(default_factory=list)
    overkill: tuple[OverkillCredit, ...] = ()
    result: CombatResult | None = None
    tests: list[BreakTest] = field(default_factory=list)
    fear: list[FearTest] = field(default_factory=list)
    pursuits: list[Pursuit] = field(default_factory=list)
    aftermath: list[str] = field(default_factory=list)
    after_blows: Mapping[str, UnitStatus] = field(default_factory=dict)
    #: The faces of each pursuer's one roll this round, shown again for every unit it chases.
    chase_faces: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=dict)

    def close_step(self) -> None:
        if self.blows and self.initiative is not None:
            self.steps.append(Step(self.initiative, tuple(self.blows)))
        self.blows = []


class CombatProcess:
    """The combat as steps over :class:`Fight` values (a :class:`~fracas.core.evaluate.Process`).

    Each step rolls at most one group of dice per unit involved: one record's blows, the
    losers' break tests, or one broken unit's flight and the pursuit of it. With a log,
    every face and every table is kept for the report; without one, the steps compute
    only what the next state needs.

    Exact odds and sampling meet the same units in thousands of fights, so what depends
    only on the combat, the units' statuses and the round (who strikes at which
    Initiative, with which records; whether anyone still fights; who may pursue) is
    computed once per such key and kept (:meth:`_once`).
    """

    def __init__(self, combat: Combat, recorder: Recorder) -> None:
        self.combat = combat
        self.names = tuple(unit.name for unit in combat.units)
        self._index = {name: index for index, name in enumerate(self.names)}
        self._initial = self.key(initial_state(combat))
        #: The status every unit shares once its fate is counted apart (fled, no models).
        self._gone = tuple(
            UnitStatus(0, tuple(0 for _ in unit.characters), fled=True) for unit in combat.units
        )
        #: The frenzied units of each side, who lose their frenzy when their side loses.
        self._frenzied = {side: lose_frenzy(combat, side) for side in combat.sides}
        #: States every explained number and event: a keeping recorder gets each round
        #: (:class:`Round`) as a note; the summing one gets nothing built at all.
        self.recorder = recorder
        self.log: _Log | None = _Log() if recorder.keeps else None
        #: Fixed for the combat: without a fear-causing model, no round looks for testers.
        self.fear = any(
            "fear" in unit.kit.rules or any("fear" in c.kit.rules for c in unit.characters)
            for unit in combat.units
        )
        self._bonuses: dict[
            tuple[tuple[UnitStatus, ...], bool, tuple[OverkillCredit, ...]],
            tuple[dict[str, int], tuple[str, ...], dict[str, tuple[str, ...]]],
        ] = {}
        self._kept: dict[Hashable, Any] = {}
        #: What a step worked out for the fight seen last, by kind (see :meth:`_of_fight`).
        self._last: dict[str, tuple[Fight, Any]] = {}
        self._wounded: dict[Hashable, tuple[UnitStatus, int]] = {}
        self._credited: dict[Hashable, tuple[tuple[str, int], ...]] = {}

    def _of_fight(self, kind: str, fight: Fight, compute: Callable[[], T]) -> T:
        """``compute()`` for ``fight``, kept for the last fight of each ``kind``: exact odds
        and sampling replay a step once per branch of its dice from the same fight object."""
        last = self._last.get(kind)
        if last is not None and last[0] is fight:
            found: T = last[1]
            return found
        found = compute()
        self._last[kind] = (fight, found)
        return found

    def _once(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, kept under ``key`` (a pure function of the combat and ``key``)."""
        kept = self._kept
        try:
            found: T = kept[key]
        except KeyError:
            if len(kept) >= _KEPT_LIMIT:
                kept.clear()
            found = kept[key] = compute()
        return found

    # The Process protocol ---------------------------------------------------------

    def start(self) -> Fight:
        state = initial_state(self.combat)
        return self._next_round(Fight(self.key(state)), state)

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
        if not fight.first and not leaving:
            return None
        metrics: dict[str, Any] = {}
        if fight.first:
            metrics.update(round_one_metrics(self.combat, fight.first))
            fight = _moved(fight, first=())
        if leaving:
            units = list(fight.units)
            for name in leaving:
                index = self._index[name]
                unit = self.combat.units[index]
                metrics.update(
                    unit_fate(unit, self._initial[index], units[index], name in fight.caught)
                )
                units[index] = self._gone[index]
            fight = _moved(
                fight,
                units=tuple(units),
                caught=fight.caught.difference(leaving),
                leaving=(),
                gone=fight.gone.union(leaving),
            )
        return fight, metrics

    def step(self, fight: Fight, dice: Dice) -> Fight:
        return self._ready(self._step(fight, dice))

    def branch(self, fight: Fight) -> tuple[DiceGroup[Any, Any], Callable[[Any], Fight]] | None:
        """A group of blows as one dice group and where each number of wounds leads
        (a :class:`~fracas.core.evaluate.Branching` process); other steps replay."""
        if self.log is not None:
            return None
        if fight.phase == "strike":
            blows = self._blows_for(fight)
            return blows[3], self._landing(fight, blows)
        if fight.phase == "flee":
            chase = self._chase_for(fight)
            return chase[3], lambda key: self._ready(self._chased(fight, chase, key, None))
        if fight.phase == "result":
            scored = self._scored(fight)
            if scored.phase == "break":
                tests = self._break_tests(scored)
                return tests, lambda held: self._ready(
                    self._broken(scored, self._failed(tests, held))
                )
        return None

    def _scored(self, fight: Fight) -> Fight:
        """The fight after the combat result (kept without a log: exact odds take every
        branch of the break tests from the same fight)."""
        if self.log is not None:
            return self._result(fight)
        return self._of_fight("result", fight, lambda: self._result(fight))

    def _ready(self, after: Fight) -> Fight:
        if after.phase == "strike" and not after.pending:
            # The next initiative step's records are gathered at once (no dice), so that
            # the fight waits between steps with its blows ready to roll.
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

    # States ------------------------------------------------------------------------

    def key(self, state: State) -> tuple[UnitStatus, ...]:
        return tuple(state[name] for name in self.names)

    def state(self, fight: Fight) -> dict[str, UnitStatus]:
        return dict(zip(self.names, fight.units, strict=True))

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

    # Steps -------------------------------------------------------------------------

    def _next_round(self, fight: Fight, state: State) -> Fight:
        if fight.round >= self.combat.options.max_rounds or not self._once(
            ("pairs", fight.units), lambda: fighting_pairs(self.combat, state)
        ):
            return _moved(fight, phase="over")
        return _moved(fight, phase="begin")

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
        units = self.key(state)
        return _moved(
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
        )

    def _gather(self, fight: Fight) -> Fight:
        """The records of the next initiative step that has any; the result after the last."""
        combat = self.combat
        initiatives = fight.initiatives
        conditions = (
            Conditions(fight.afraid, fight.calmed) if fight.afraid or fight.calmed else None
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
                return _moved(fight, initiatives=initiatives, pending=records)
        if self.log is not None:
            self.log.close_step()
        return _moved(fight, phase="result", initiatives=(), pending=())

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
        in_duel = any(duel.character == record.striker for duel in fight.duels)
        left = self._wound(target, status, record.target_character, 1 << 30)[1]
        group = record.blows(left=left, duel=in_duel)
        phase = "result" if not pending and not fight.initiatives else "strike"
        return record, pending, target, group, index, phase

    def _land(
        self, fight: Fight, blows: tuple[Any, ...], unsaved: int, rolled: Rolled | None
    ) -> Fight:
        """The fight once ``unsaved`` wounds of the record's blows have landed."""
        record, _, target, _, index, phase = blows
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
        """The fight once ``unsaved`` wounds have landed, the next step's records gathered."""
        record, pending, target, _, index, phase = blows
        values = list(fight)
        values[_PHASE], values[_PENDING] = phase, pending
        if unsaved:
            units = fight.units
            hurt, taken = self._wound(target, units[index], record.target_character, unsaved)
            values[_UNITS] = (*units[:index], hurt, *units[index + 1 :])
            values[_CREDITS] = self._credit(fight.credits, record.side, target, taken, fight.round)
            if fight.duels:
                # Wounds a character scores on his rival count in the challenge.
                values[_DUELS] = tuple(
                    duel._replace(scored=duel.scored + unsaved)
                    if duel.character == record.striker and record.target_character == duel.rival
                    else duel
                    for duel in fight.duels
                )
        landed = tuple.__new__(Fight, values)
        return self._gather(landed) if phase == "strike" and not pending else landed

    def _wound(
        self, unit: Unit, status: UnitStatus, character: str | None, wounds: int
    ) -> tuple[UnitStatus, int]:
        """:func:`apply_wounds` on one unit's status, kept: fights share their units' states."""
        key = (unit.name, status, character, wounds)
        found = self._wounded.get(key)
        if found is None:
            if len(self._wounded) >= _KEPT_LIMIT:
                self._wounded.clear()
            state, taken = apply_wounds({unit.name: status}, unit, character, wounds)
            found = self._wounded[key] = (state[unit.name], taken)
        return found

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
        return _moved(fight, phase="strike", afraid=frozenset(afraid))

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

        In full with a log. Without one, a combat result is its bonuses (a function of the
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
                combat, state, (), round_number=fight.round, overkill=overkill, record=SUMMING
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
        if self.log is not None:
            assert result is not None
            state = self.state(fight)
            self.log.overkill = overkill
            self.log.result = result
            self.log.after_blows = state
            self.log.aftermath.extend(self._aftermath(state, winner, wiped, number))
        return _moved(
            fight,
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

    def _break(self, fight: Fight, dice: Dice) -> Fight:
        group = self._break_tests(fight)
        held, tests = draw(dice, group)
        if self.log is not None and tests is not None:
            self.log.tests.extend(tests)
        return self._broken(fight, self._failed(group, held))

    @staticmethod
    def _failed(tests: BreakTests, held: tuple[bool, ...]) -> tuple[str, ...]:
        return tuple(unit for unit, ok in zip(tests.units, held, strict=True) if not ok)

    def _break_tests(self, fight: Fight) -> BreakTests:
        """The losers' break tests but their rolls (kept: they depend on the state alone)."""
        combat = self.combat
        difference = fight.difference
        return self._once(
            ("break", fight.units, fight.testers, difference),
            lambda: BreakTests.of(
                tuple(
                    self._once(
                        ("stance", fight.units, name),
                        lambda name=name: break_stance(  # type: ignore[misc]
                            combat, self.state(fight), combat.unit(name)
                        ),
                    )
                    for name in fight.testers
                ),
                difference,
            ),
        )

    def _broken(self, fight: Fight, fleeing: tuple[str, ...]) -> Fight:
        """The fight once the units in ``fleeing`` have failed their break tests."""
        if not fleeing:
            return self._end(fight)
        units = list(fight.units)
        for name in fleeing:
            index = self._index[name]
            units[index] = units[index]._replace(fled=True)
        # The difference has done its work: fights that differ only by it merge.
        return _moved(
            fight, units=tuple(units), phase="flee", difference=0, testers=(), fleeing=fleeing
        )

    def _flee(self, fight: Fight, dice: Dice) -> Fight:
        """The first broken unit flees; each winning unit rolls once a round, whoever it chases."""
        chase = self._chase_for(fight)
        key, rolled = draw(dice, chase[3])
        return self._chased(fight, chase, key, rolled)

    def _chase_for(self, fight: Fight) -> tuple[Any, ...]:
        """The flight of the first broken unit: its pursuers (all, those rolling now, those
        that rolled earlier this round) and the chase's dice."""
        return self._of_fight("chase", fight, lambda: self._ready_chase(fight, self.state(fight)))

    def _ready_chase(self, fight: Fight, state: State) -> tuple[Any, ...]:
        combat = self.combat
        fleeing = combat.unit(fight.fleeing[0])
        winner = fight.winner
        assert winner is not None
        rolled_before = {name for name, _, _ in fight.chases}
        pursuers = self._once(
            ("pursuers", fleeing.name, winner, fight.units),
            lambda: self._pursuers(fleeing, winner, state),
        )
        later = {c.enemy for name in fight.fleeing[1:] for c in combat.contacts[name]}
        fresh = [p for p in pursuers if p.name not in rolled_before]
        known = [p for p in pursuers if p.name in rolled_before]
        chase = ChaseRoll(
            "swiftstride" in fleeing.rules,
            tuple(
                (self._restrain(p, state, fight.calmed), "swiftstride" in p.rules) for p in fresh
            ),
            keep=tuple(p.name in later for p in fresh),
            known=tuple((r, d) for p in known for name, r, d in fight.chases if name == p.name),
        )
        # What the dice do not change, worked out once for every way the chase can end:
        # whose answers the key lists, in its order, and whose reaches it keeps.
        answering = tuple(p.name for p in fresh + known)
        keeping = tuple(p.name for p, keep in zip(fresh, chase.keep, strict=True) if keep)
        chases = {name: (r, d) for name, r, d in fight.chases}
        # Where in the key each pursuer's answer is; and the units once the catchers named
        # have caught the unit, kept for the keys that name the same catchers.
        slots = tuple(answering.index(p.name) for p in pursuers)
        caught_by: dict[tuple[str, ...], tuple[UnitStatus, ...]] = {}
        return pursuers, fresh, known, chase, answering, keeping, chases, slots, caught_by

    def _chased(self, fight: Fight, prepared: tuple[Any, ...], key: Any, rolled: Any) -> Fight:
        """The fight once the chase's dice have said who catches the fleeing unit."""
        fleeing = self.combat.units[self._index[fight.fleeing[0]]]
        pursuers, _, _, _, answering, keeping, chases, slots, caught_by = prepared
        caught, kept = key
        rolls = fight.chases
        if kept:
            chases = {**chases, **dict(zip(keeping, kept, strict=True))}
            rolls = tuple((name, r, d) for name, (r, d) in chases.items())
        catchers = [p for p, slot in zip(pursuers, slots, strict=True) if caught[slot]]
        units, wounds = fight.units, None
        if catchers:
            names = tuple(p.name for p in catchers)
            found = caught_by.get(names)
            if found is None:
                found = caught_by[names] = self._caught(fight, fleeing, catchers)
            units, wounds = found
        if self.log is not None:
            hits = dict(zip(answering, caught, strict=True))
            self._log_pursuit(fight, prepared, hits, chases, rolled, catchers, units, wounds)
        rest = fight.fleeing[1:]
        fight = _moved(
            fight,
            units=units,
            fleeing=rest,
            chases=rolls,
            caught=fight.caught | {fleeing.name} if catchers else fight.caught,
            leaving=(*fight.leaving, fleeing.name),
        )
        return fight if rest else self._end(fight)

    def _caught(
        self, fight: Fight, fleeing: Unit, catchers: list[Unit]
    ) -> tuple[tuple[UnitStatus, ...], int | None]:
        """The units once ``catchers`` have caught ``fleeing``, and the wounds dealt: the
        unit destroyed (``None``), or wounds without saves for each point of the catchers'
        Unit Strength, as the edition says."""
        options = self.combat.options
        state = self.state(fight)
        if options.caught == "destroyed":
            state[fleeing.name] = state[fleeing.name]._replace(
                rank_and_file_wounds=0,
                character_wounds=tuple(0 for _ in fleeing.characters),
            )
            return self.key(state), None
        strength = sum(unit_strength(p, state[p.name]) for p in catchers)
        wounds = remaining = options.caught_wounds_per_unit_strength * strength
        while remaining and models_alive(fleeing, state[fleeing.name]):
            state, taken = apply_wounds(state, fleeing, None, remaining)
            remaining -= taken
        return self.key(state), wounds

    def _log_pursuit(
        self,
        fight: Fight,
        prepared: tuple[Any, ...],
        hits: dict[str, bool],
        chases: dict[str, Reach],
        rolled: Any,
        catchers: list[Unit],
        after: tuple[UnitStatus, ...],
        wounds: int | None,
    ) -> None:
        """The report's record of one flight and its pursuit, every face shown."""
        log = self.log
        assert log is not None
        fleeing = self.combat.unit(fight.fleeing[0])
        pursuers, fresh, known = prepared[:3]
        distance, flee_faces = (rolled[0], rolled[1]) if rolled is not None else (0, ())
        rolls: dict[str, PursuitRoll] = {}
        for index, pursuer in enumerate(fresh):
            if rolled is None:
                rolls[pursuer.name] = PursuitRoll(
                    pursuer.name, (), False, (), 0, hits[pursuer.name]
                )
                continue
            restrain_faces, restrained, faces, reach = rolled[2][index]
            log.chase_faces[pursuer.name] = (restrain_faces, faces)
            rolls[pursuer.name] = PursuitRoll(
                pursuer.name, restrain_faces, restrained, faces, reach, hits[pursuer.name]
            )
        for pursuer in known:
            restrained, reach = chases[pursuer.name]
            restrain_faces, faces = log.chase_faces[pursuer.name]
            rolls[pursuer.name] = PursuitRoll(
                pursuer.name, restrain_faces, restrained, faces, reach, hits[pursuer.name]
            )
        ordered = tuple(rolls[p.name] for p in pursuers)
        fate = "flees"
        if catchers:
            if wounds is None:
                fate = "is caught and destroyed"
            else:
                fate = f"is caught: {wounds} wounds without saves"
                if not models_alive(fleeing, after[self._index[fleeing.name]]):
                    fate += ", destroyed"
        log.pursuits.append(
            Pursuit(fleeing.name, flee_faces, distance, ordered, bool(catchers), fate)
        )

    def _pursuers(self, fleeing: Unit, winner: str, state: State) -> list[Unit]:
        """Winning units in contact with ``fleeing`` that are free to pursue it."""
        combat = self.combat
        pursuers = []
        for contact in combat.contacts[fleeing.name]:
            pursuer = combat.unit(contact.enemy)
            if pursuer.side != winner or not in_combat(pursuer, state[pursuer.name]):
                continue
            if engaged_enemies(combat, state, pursuer):
                continue  # still held in combat by another enemy
            pursuers.append(pursuer)
        return pursuers

    def _restrain(self, pursuer: Unit, state: State, calmed: frozenset[str]) -> int | None:
        if "frenzy" in pursuer.kit.rules and pursuer.name not in calmed:
            return None  # a frenzied unit must pursue
        return leadership(pursuer, state[pursuer.name]) if pursuer.restrain else None

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
        )
        return self._once(
            ("end", lasting), lambda: self._ready(self._following(fight, self.state(fight)))
        )

    def _following(self, fight: Fight, state: dict[str, UnitStatus]) -> Fight:
        """The fight once the round is over: the next round begun, or the combat over."""
        ended = _moved(
            fight,
            winner=None,
            difference=0,
            testers=(),
            fleeing=(),
            chases=(),
            afraid=frozenset(),
            initiatives=(),
            pending=(),
            credits=(),
            duels=(),
            phase="end",
        )
        following = self._next_round(ended, state)
        return self._begin(following, state) if following.phase == "begin" else following

    def _close_round(self, fight: Fight, state: State) -> None:
        log = self.log
        assert log is not None
        assert log.result is not None
        aftermath = list(log.aftermath)
        pursuits = {p.unit: p for p in log.pursuits}
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
            )
        )
        self.log = _Log()


def fight_round(combat: Combat, state: State, number: int, dice: Dice) -> Round:
    """Fight round ``number`` from ``state``: strikes, combat result, break tests, pursuit.

    >>> from fracas.core.dice import SeededDice
    >>> from fracas.rulesets.rankflank.samples import two_blocks
    >>> combat = two_blocks()
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
