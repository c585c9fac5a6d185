"""Fighting the combat: rounds of strikes, the combat result, break tests and pursuit.

>>> from fracas.core.dice import SeededDice
>>> from fracas.rulesets.rankflank.samples import two_blocks
>>> outcome = play_combat(two_blocks(), SeededDice(1))
>>> outcome.rounds[0].number
1
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from fracas.core.dice import Dice
from fracas.rulesets.rankflank.breaktest import (
    BreakTest,
    Pursuit,
    PursuitRoll,
    break_test,
    move_roll,
    passes_break_test,
    roll_dice,
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
from fracas.rulesets.rankflank.result import (
    CombatResult,
    OverkillCredit,
    WoundCredit,
    combat_result,
)
from fracas.rulesets.rankflank.scenario import Combat, Unit
from fracas.rulesets.rankflank.strikes import (
    StrikeRoll,
    challenge_opponent,
    initiative_steps,
    roll_strike,
    strike_records,
)


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


@dataclass(frozen=True, slots=True)
class CombatOutcome:
    """Every round fought, and the units as they started and as they ended."""

    rounds: tuple[Round, ...]
    initial: Mapping[str, UnitStatus]
    final: Mapping[str, UnitStatus]


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
        status = replace(status, rank_and_file_wounds=status.rank_and_file_wounds - taken)
    else:
        index = next(i for i, c in enumerate(unit.characters) if c.name == character)
        left = list(status.character_wounds)
        taken = min(wounds, left[index])
        left[index] -= taken
        status = replace(status, character_wounds=tuple(left))
    return {**state, unit.name: status}, taken


def fighting_pairs(combat: Combat, state: State) -> bool:
    """True while at least two enemy units in contact are both still in the combat."""
    return any(
        in_combat(unit, state[unit.name]) and engaged_enemies(combat, state, unit)
        for unit in combat.units
    )


def _strike_phase(
    combat: Combat, state: dict[str, UnitStatus], number: int, dice: Dice
) -> tuple[dict[str, UnitStatus], tuple[Step, ...], list[WoundCredit], tuple[OverkillCredit, ...]]:
    credits: list[WoundCredit] = []
    if number == 1:
        for other in combat.other_wounds:
            state, taken = apply_wounds(state, combat.unit(other.target), None, other.wounds)
            credits.append(WoundCredit(other.side, other.source, other.target, taken))
    duelists: dict[str, tuple[str, int]] = {}
    if combat.challenge is not None:
        for name in combat.challenge:
            opponent = challenge_opponent(combat, state, name)
            if opponent is not None:
                unit, character = opponent
                index = unit.characters.index(character)
                duelists[name] = (character.name, state[unit.name].character_wounds[index])
    scored: dict[str, int] = dict.fromkeys(duelists, 0)
    steps: list[Step] = []
    for initiative in initiative_steps(combat, state, number):
        records = strike_records(combat, state, number, initiative)
        rolls = tuple(roll_strike(record, dice) for record in records)
        for roll in rolls:
            record = roll.record
            target = combat.unit(record.target_unit)
            state, taken = apply_wounds(state, target, record.target_character, roll.unsaved)
            credits.append(WoundCredit(record.side, record.striker, target.name, taken))
            if (
                record.striker in duelists
                and record.target_character == duelists[record.striker][0]
            ):
                scored[record.striker] += roll.unsaved
        if rolls:
            steps.append(Step(initiative, rolls))
    overkill: list[OverkillCredit] = []
    for name, (rival, wounds_left) in duelists.items():
        winner_unit = combat.character_owner(name)
        loser_unit = combat.character_owner(rival)
        assert winner_unit is not None
        assert loser_unit is not None
        alive = {c.name for c in characters_alive(winner_unit, state[winner_unit.name])}
        slain = rival not in {c.name for c in characters_alive(loser_unit, state[loser_unit.name])}
        if name in alive and slain and scored[name] > wounds_left:
            overkill.append(OverkillCredit(winner_unit.side, name, scored[name] - wounds_left))
    return state, tuple(steps), credits, tuple(overkill)


def _pursuer_roll(
    combat: Combat, state: State, pursuer: Unit, dice: Dice
) -> tuple[tuple[int, ...], bool, tuple[int, ...]]:
    """``(restrain faces, restrained, pursuit faces)`` of one winning unit."""
    restrain_faces: tuple[int, ...] = ()
    if pursuer.restrain:
        restrain_faces = roll_dice(dice, 2)
        ld = leadership(pursuer, state[pursuer.name])
        if passes_break_test(restrain_faces, target=ld):
            return restrain_faces, True, ()
    return restrain_faces, False, move_roll(dice, pursuer)


def _pursue(
    combat: Combat,
    state: dict[str, UnitStatus],
    fleeing: Unit,
    winner: str,
    dice: Dice,
    pursuer_rolls: dict[str, tuple[tuple[int, ...], bool, tuple[int, ...]]],
) -> tuple[dict[str, UnitStatus], Pursuit]:
    """Flee ``fleeing``; each winning unit in contact rolls once per round, whoever it chases."""
    options = combat.options
    before = dict(state)
    flee_faces = move_roll(dice, fleeing)
    distance = sum(flee_faces)
    rolls: list[PursuitRoll] = []
    for contact in combat.contacts[fleeing.name]:
        pursuer = combat.unit(contact.enemy)
        if pursuer.side != winner or not in_combat(pursuer, state[pursuer.name]):
            continue
        if engaged_enemies(combat, state, pursuer):
            continue  # still held in combat by another enemy
        if pursuer.name not in pursuer_rolls:
            pursuer_rolls[pursuer.name] = _pursuer_roll(combat, state, pursuer, dice)
        restrain_faces, restrained, faces = pursuer_rolls[pursuer.name]
        caught = not restrained and sum(faces) >= distance
        rolls.append(
            PursuitRoll(pursuer.name, restrain_faces, restrained, faces, sum(faces), caught)
        )
    catchers = [r for r in rolls if r.caught]
    fate = "flees"
    if catchers:
        if options.caught == "destroyed":
            state = {
                **state,
                fleeing.name: replace(
                    state[fleeing.name],
                    rank_and_file_wounds=0,
                    character_wounds=tuple(0 for _ in fleeing.characters),
                ),
            }
            fate = "is caught and destroyed"
        else:
            strength = sum(unit_strength(combat.unit(r.unit), before[r.unit]) for r in catchers)
            wounds = options.caught_wounds_per_unit_strength * strength
            remaining = wounds
            while remaining and models_alive(fleeing, state[fleeing.name]):
                state, taken = apply_wounds(state, fleeing, None, remaining)
                remaining -= taken
            fate = f"is caught: {wounds} wounds without saves"
            if not models_alive(fleeing, state[fleeing.name]):
                fate += ", destroyed"
    return state, Pursuit(fleeing.name, flee_faces, distance, tuple(rolls), bool(catchers), fate)


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
    after, steps, credits, overkill = _strike_phase(combat, dict(state), number, dice)
    result = combat_result(combat, after, credits, round_number=number, overkill=overkill)
    tests: list[BreakTest] = []
    pursuits: list[Pursuit] = []
    aftermath: list[str] = []
    current = dict(after)
    if result.winner is None:
        aftermath.append(
            "A draw: the combat goes on next round."
            if not result.wiped_out
            else "Both sides are wiped out."
        )
    elif result.wiped_out:
        for unit in combat.side_units(result.winner):
            if not in_combat(unit, current[unit.name]):
                continue
            if combat.options.overrun and unit.charged and number == 1:
                aftermath.append(f"{unit.name} overruns.")
            else:
                aftermath.append(f"{unit.name} restrains pursuit and reforms.")
    else:
        loser = combat.enemy_of(result.winner)
        for unit in combat.side_units(loser):
            if not in_combat(unit, current[unit.name]):
                continue
            test = break_test(combat, current, unit, result.difference, dice)
            tests.append(test)
        for test in tests:
            if not test.passed:
                current[test.unit] = replace(current[test.unit], fled=True)
        pursuer_rolls: dict[str, tuple[tuple[int, ...], bool, tuple[int, ...]]] = {}
        for test in tests:
            if test.passed:
                aftermath.append(f"{test.unit} holds.")
                continue
            current, pursuit = _pursue(
                combat, current, combat.unit(test.unit), result.winner, dice, pursuer_rolls
            )
            pursuits.append(pursuit)
            aftermath.append(f"{test.unit} breaks and {pursuit.fate}.")
    return Round(
        number,
        steps,
        tuple(credits),
        overkill,
        result,
        tuple(tests),
        tuple(pursuits),
        tuple(aftermath),
        after,
        current,
    )


def play_combat(combat: Combat, dice: Dice) -> CombatOutcome:
    """Fight rounds until one side breaks or is destroyed, or the round limit is reached."""
    start = initial_state(combat)
    state: dict[str, UnitStatus] = dict(start)
    rounds: list[Round] = []
    for number in range(1, combat.options.max_rounds + 1):
        if not fighting_pairs(combat, state):
            break
        fought = fight_round(combat, state, number, dice)
        rounds.append(fought)
        state = dict(fought.state_after)
    return CombatOutcome(tuple(rounds), start, state)
