"""The round's strikes in two phases: gather frozen records, then roll dice from them.

Phase one (:func:`initiative_steps`, :func:`strike_records`) reads the combat and its
current state and returns :class:`StrikeRecord` values holding every number the dice need:
how many attacks, and the D6 target of each roll. Phase two (:func:`roll_strike`) rolls
from a record alone. The odds analysis uses the same records with
:func:`unsaved_wound_chance`: the unsaved wounds of one record follow a binomial law of
``record.attacks`` trials.

>>> record = StrikeRecord(round=1, initiative=3, side="a", attacker_unit="u", striker="u",
...     target_unit="v", target_character=None, attacks=10, weapon_skill=3,
...     target_weapon_skill=3, strength=3, toughness=3, to_hit=4, to_wound=4, armour=5,
...     ward=None)
>>> unsaved_wound_chance(record)
Fraction(1, 6)
>>> from fracas.core.dice import ScriptedDice
>>> roll_strike(record, ScriptedDice([6, 6, 1] + [1] * 7 + [4, 6] + [5, 2])).unsaved
1
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from fracas.core.dice import D6, Dice, DiceGroup
from fracas.core.distribution import Distribution
from fracas.rulesets.rankflank.formation import (
    State,
    characters_alive,
    engaged_enemies,
    in_combat,
    rank_and_file,
)
from fracas.rulesets.rankflank.scenario import Character, Combat, Unit
from fracas.rulesets.rankflank.tables import (
    armour_save_target,
    d6_success,
    passes,
    to_hit_target,
    to_wound_target,
)


@dataclass(frozen=True, slots=True)
class StrikeRecord:
    """Everything the dice of one group of attacks need, frozen before any die is rolled.

    ``striker`` is the attacking unit's name for its rank and file, or a character's name.
    ``target_character`` is set when the blows land on a character (whose wounds are his
    own). The four targets are D6 scores; ``None`` means the roll cannot succeed
    (``to_wound``) or is not taken (``armour``, ``ward``).
    """

    round: int
    initiative: int
    side: str
    attacker_unit: str
    striker: str
    target_unit: str
    target_character: str | None
    attacks: int
    weapon_skill: int
    target_weapon_skill: int
    strength: int
    toughness: int
    to_hit: int
    to_wound: int | None
    armour: int | None
    ward: int | None


@dataclass(frozen=True, slots=True)
class StrikeRoll:
    """The faces rolled for one record and what came of them."""

    record: StrikeRecord
    hit_faces: tuple[int, ...]
    wound_faces: tuple[int, ...]
    armour_faces: tuple[int, ...]
    ward_faces: tuple[int, ...]
    hits: int
    wounds: int
    unsaved: int


def unsaved_wound_chance(record: StrikeRecord) -> Fraction:
    """Chance that one attack of ``record`` becomes an unsaved wound."""
    return (
        d6_success(record.to_hit)
        * d6_success(record.to_wound)
        * (1 - d6_success(record.armour))
        * (1 - d6_success(record.ward))
    )


def _count(faces: tuple[int, ...], target: int | None) -> int:
    return sum(1 for face in faces if passes(face, target))


def _roll(dice: Dice, count: int) -> tuple[int, ...]:
    return tuple(dice.roll(D6) for _ in range(count))


def roll_strike(record: StrikeRecord, dice: Dice) -> StrikeRoll:
    """Roll to hit, to wound, armour and ward saves for one record, in that order."""
    hit_faces = _roll(dice, record.attacks)
    hits = _count(hit_faces, record.to_hit)
    wound_faces = _roll(dice, hits) if record.to_wound is not None else ()
    wounds = _count(wound_faces, record.to_wound)
    armour_faces = _roll(dice, wounds) if record.armour is not None else ()
    failed_armour = wounds - _count(armour_faces, record.armour)
    ward_faces = _roll(dice, failed_armour) if record.ward is not None else ()
    unsaved = failed_armour - _count(ward_faces, record.ward)
    return StrikeRoll(
        record, hit_faces, wound_faces, armour_faces, ward_faces, hits, wounds, unsaved
    )


@dataclass(frozen=True, slots=True)
class StrikeDice(DiceGroup[int, StrikeRoll]):
    """The dice of one record: rolled face by face in play, a binomial for exact odds.

    >>> record = StrikeRecord(round=1, initiative=3, side="a", attacker_unit="u",
    ...     striker="u", target_unit="v", target_character=None, attacks=2, weapon_skill=3,
    ...     target_weapon_skill=3, strength=3, toughness=3, to_hit=4, to_wound=4, armour=None,
    ...     ward=None)
    >>> dict(StrikeDice(record).law())[2]   # both blows hit (1/2) and wound (1/2)
    Fraction(1, 16)
    """

    record: StrikeRecord
    #: Unsaved wounds beyond this many change nothing (the target has no more to lose),
    #: so exact odds count them as this many; ``None`` for no such limit.
    cap: int | None = None
    label = "blows"

    def roll(self, dice: Dice) -> tuple[int, StrikeRoll]:
        rolled = roll_strike(self.record, dice)
        key = rolled.unsaved if self.cap is None else min(rolled.unsaved, self.cap)
        return key, rolled

    def law(self) -> tuple[tuple[int, Fraction], ...]:
        law = Distribution.binomial(self.record.attacks, unsaved_wound_chance(self.record))
        if self.cap is None or self.cap >= self.record.attacks:
            return tuple(law.items())
        kept = [(k, p) for k, p in law.items() if k < self.cap]
        return (*kept, (self.cap, law.probability(lambda k: k >= self.cap)))  # type: ignore[operator]

    def float_law(self) -> tuple[tuple[int, float], ...]:
        terms = Distribution.binomial_floats(self.record.attacks, unsaved_wound_chance(self.record))
        if self.cap is None or self.cap >= self.record.attacks:
            return tuple(enumerate(terms))
        return (*enumerate(terms[: self.cap]), (self.cap, math.fsum(terms[self.cap :])))


@dataclass(frozen=True, slots=True)
class _Striker:
    unit: Unit
    character: Character | None
    initiative: int


def effective_initiative(combat: Combat, unit: Unit, base: int, round_number: int) -> int:
    """Initiative in this round: chargers add the edition's bonus in the first round."""
    bonus = combat.options.charger_initiative_bonus if unit.charged and round_number == 1 else 0
    return base + bonus


def fighting_models(combat: Combat, state: State, unit: Unit) -> tuple[int, int]:
    """``(fighting, supporting)`` rank-and-file models of ``unit`` now.

    Engaged in front, its fighting rank fights (characters stand in it first) and the next
    rank supports; engaged only in flank or rear, as many models fight as the unit has
    ranks, with no support. The scenario's ``fighting_models`` / ``supporting_models``
    replace those counts (never above the models left).
    """
    status = state[unit.name]
    rnf = rank_and_file(unit, status)
    characters = len(characters_alive(unit, status))
    total = rnf + characters
    front = any(
        c.own_arc == "front" and in_combat(combat.unit(c.enemy), state[c.enemy])
        for c in combat.contacts[unit.name]
    )
    if front:
        fighting = max(0, min(unit.files, total) - characters)
        supporting = min(unit.files, max(0, total - unit.files))
    else:
        fighting = min(rnf, -(-total // unit.files))
        supporting = 0
    if unit.fighting_models is not None:
        fighting = unit.fighting_models
    fighting = min(fighting, rnf)
    if unit.supporting_models is not None:
        supporting = unit.supporting_models
    return fighting, max(0, min(supporting, rnf - fighting))


def _strikers(combat: Combat, state: State, round_number: int) -> Iterator[_Striker]:
    for unit in combat.units:
        status = state[unit.name]
        if not in_combat(unit, status) or not engaged_enemies(combat, state, unit):
            continue
        if rank_and_file(unit, status):
            yield _Striker(
                unit, None, effective_initiative(combat, unit, unit.profile.I, round_number)
            )
        for character in characters_alive(unit, status):
            initiative = effective_initiative(combat, unit, character.profile.I, round_number)
            yield _Striker(unit, character, initiative)


def initiative_steps(combat: Combat, state: State, round_number: int) -> tuple[int, ...]:
    """The initiative values that strike this round, highest first."""
    steps = {s.initiative for s in _strikers(combat, state, round_number)}
    return tuple(sorted(steps, reverse=True))


def challenge_opponent(combat: Combat, state: State, name: str) -> tuple[Unit, Character] | None:
    """The standing opponent of character ``name`` in the challenge, if any."""
    if combat.challenge is None or name not in combat.challenge:
        return None
    other = combat.challenge[1] if name == combat.challenge[0] else combat.challenge[0]
    unit = combat.character_owner(other)
    if unit is None:
        return None
    for character in characters_alive(unit, state[unit.name]):
        if character.name == other and not state[unit.name].fled:
            mine = combat.character_owner(name)
            if mine is not None and any(
                c.name == name for c in characters_alive(mine, state[mine.name])
            ):
                return unit, character
    return None


def _in_challenge(combat: Combat, state: State, name: str) -> bool:
    return challenge_opponent(combat, state, name) is not None


def target_unit(combat: Combat, state: State, unit: Unit) -> Unit | None:
    """The enemy unit that ``unit`` attacks: its chosen one while it fights, else the first."""
    enemies = engaged_enemies(combat, state, unit)
    for enemy in enemies:
        if enemy.name == unit.attacks_target:
            return enemy
    return enemies[0] if enemies else None


def _target_character(combat: Combat, state: State, enemy: Unit) -> Character | None:
    """The character blows land on once no rank and file are left."""
    standing = characters_alive(enemy, state[enemy.name])
    free = [c for c in standing if not _in_challenge(combat, state, c.name)]
    chosen = free or list(standing)
    return chosen[0] if chosen else None


def _record(
    combat: Combat, state: State, striker: _Striker, round_number: int
) -> StrikeRecord | None:
    unit, character = striker.unit, striker.character
    profile = unit.profile if character is None else character.profile
    target: Unit | None
    victim: Character | None = None
    duel = challenge_opponent(combat, state, character.name) if character else None
    if duel is not None:
        target, victim = duel
    else:
        target = target_unit(combat, state, unit)
        if target is None:
            return None
        if not rank_and_file(target, state[target.name]):
            victim = _target_character(combat, state, target)
    if character is None:
        fighting, supporting = fighting_models(combat, state, unit)
        attacks = fighting * profile.A + supporting * combat.options.supporting_attacks
    else:
        attacks = profile.A
    defence = target.profile if victim is None else victim.profile
    armour = target.armour if victim is None else victim.armour
    ward = target.ward if victim is None else victim.ward
    return StrikeRecord(
        round=round_number,
        initiative=striker.initiative,
        side=unit.side,
        attacker_unit=unit.name,
        striker=unit.name if character is None else character.name,
        target_unit=target.name,
        target_character=None if victim is None else victim.name,
        attacks=attacks,
        weapon_skill=profile.WS,
        target_weapon_skill=defence.WS,
        strength=profile.S,
        toughness=defence.T,
        to_hit=to_hit_target(profile.WS, defence.WS),
        to_wound=to_wound_target(profile.S, defence.T),
        armour=armour_save_target(armour, profile.S),
        ward=ward,
    )


def strike_records(
    combat: Combat, state: State, round_number: int, initiative: int | None = None
) -> tuple[StrikeRecord, ...]:
    """Records of every group that strikes now (at ``initiative``, or at every step).

    Counts come from ``state``: models slain at an earlier step do not strike.

    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.samples import two_blocks
    >>> combat = two_blocks()
    >>> [(r.striker, r.initiative, r.attacks, r.to_hit, r.to_wound, r.armour)
    ...  for r in strike_records(combat, initial_state(combat), 1)]
    [('Spearmen', 3, 10, 4, 5, 6), ('Orcs', 3, 10, 4, 4, 5)]
    """
    records = []
    for striker in _strikers(combat, state, round_number):
        if initiative is not None and striker.initiative != initiative:
            continue
        record = _record(combat, state, striker, round_number)
        if record is not None and record.attacks > 0:
            records.append(record)
    return tuple(records)
