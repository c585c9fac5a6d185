"""Playing one battle: the seed's seven steps, every roll asked of the injected dice.

Dice are consumed in a fixed, documented order (see ``docs/rules/d100.md``), so a
scripted test can fix every face and a seed always replays the same battle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, cast

from fracas.core.dice import D100, Dice, ScriptedDice, die
from fracas.rulesets.d100.params import D100Params
from fracas.rulesets.d100.rolls import (
    Bonus,
    Roll,
    d100_roller,
    die_roller,
    open_ended_faces,
    sampled_rolls,
)
from fracas.rulesets.d100.scenario import Battle, HeldEffect, Unit

FOUGHT = "fought"
KILLED = "killed"
FLED = "fled"
BOTTLED_OUT = "bottled_out"
DISBANDED = "disbanded"
DISBANDED_WITH_EQUIPMENT = "disbanded_with_equipment"
#: A unit's fate as a result tells, from its fate in play (``None``: still fighting).
_FATE_OF: dict[str | None, str] = {None: FOUGHT}
#: Fates whose unit counts towards the enemy's value of goods at its remaining PAX.
PARTIAL_FATES = frozenset({FLED, BOTTLED_OUT, DISBANDED, DISBANDED_WITH_EQUIPMENT})

# Stages of the battle, in order; an effect is in force from the stage its trigger names.
ASSESSMENT, ROLES, TOTALS, RANGED, MELEE = 1, 2, 3, 4, 5

_STAT_OF_ROLL = {
    "attack": "offense",
    "ranged_attack": "offense",
    "defense": "defense",
    "damage": "strength",
    "ranged_damage": "strength",
}
_HIT_AND_DAMAGE = {"ranged": ("ranged_attack", "ranged_damage"), "melee": ("attack", "damage")}
_STEP_3_TRIGGERS = frozenset({"assessment", "when_attacking", "when_defending"})
_START_TRIGGERS = frozenset({"start_of_combat"})
_ROUND_TRIGGERS = frozenset({"per_round"})
_NOTHING = Fraction(0)
_MORALE_ROLLS = frozenset({"morale", "flee", "morale_assessment"})
#: Most battle states whose bonus totals (or goods) sampling plays keep: a bound on memory.
_MAX_STATES = 10_000


@dataclass(frozen=True, slots=True)
class AssessmentEvent:
    """Step 1 for one unit: exempt, or its assessment roll and perhaps a loyalty check."""

    unit: str
    exempt: bool
    roll: Roll | None = None
    loyalty: Roll | None = None
    fate: str | None = None


@dataclass(frozen=True, slots=True)
class NullifyEvent:
    """Step 3: a unit loses its traits to an effect."""

    effect: str
    origin: str
    unit: str


@dataclass(frozen=True, slots=True)
class FleeRollEvent:
    """A flee roll forced by an effect (step 3, step 4 or the start of a melee round)."""

    stage: int
    round: int
    effect: str
    origin: str
    unit: str
    roll: Roll
    threshold: int
    fled: bool


@dataclass(frozen=True, slots=True)
class AttackEvent:
    """One attack: hit roll against defence, damage against reduction, morale check.

    ``target_roll`` is ``(face, candidates)`` when a die with one face per candidate (in
    scenario order) picked the target, or ``None`` when it was not chosen at random (a
    priority list, or a single candidate).
    """

    phase: str
    round: int
    speed: int
    attacker: str
    target: str
    target_roll: tuple[int, tuple[str, ...]] | None
    attack: Roll
    defence: Roll
    damage: Roll | None
    reduction: Roll | None
    morale: Roll | None
    pax_lost: int
    flees: bool

    @property
    def hit(self) -> bool:
        """The attack roll beat the defence roll (a tie goes to the defender)."""
        return self.attack.total > self.defence.total

    @property
    def wounded(self) -> bool:
        """The damage roll beat the damage-reduction roll, so the target checked morale."""
        return (
            self.damage is not None
            and self.reduction is not None
            and self.damage.total > self.reduction.total
        )


@dataclass(frozen=True, slots=True)
class CasualtyEvent:
    """The losses of one speed group, applied together once the group has struck."""

    phase: str
    round: int
    unit: str
    pax_lost: int
    pax: int
    fate: str | None


Event = AssessmentEvent | NullifyEvent | FleeRollEvent | AttackEvent | CasualtyEvent


@dataclass(frozen=True, slots=True)
class GoodsShare:
    """What one defeated enemy unit adds to the value of goods."""

    unit: str
    fate: str
    unit_value: int
    share: Fraction
    value: Fraction


@dataclass(frozen=True, slots=True)
class Loot:
    """The value of goods split by a loot-table row chosen with a plain d100."""

    face: int
    gold: Fraction
    resources: int
    items: int


@dataclass(frozen=True, slots=True)
class BattleResult:
    """Everything that happened, in order, and the final state of every unit."""

    events: tuple[Event, ...]
    pax: tuple[int, ...]
    fates: tuple[str, ...]
    nullified: frozenset[int]
    counts: tuple[int, int]
    overwhelm_side: int | None
    overwhelm: int
    rounds: int
    winner: int | None
    outcome: str
    goods: tuple[GoodsShare, ...]
    goods_value: Fraction
    loot: Loot | None


def value_of_goods(
    units: Sequence[Unit], pax: Sequence[int], fates: Sequence[str]
) -> tuple[GoodsShare, ...]:
    """Step 7: 100 % of Unit Value for a unit completely killed, remaining PAX % otherwise.

    ``pax`` and ``fates`` are the final PAX and fate of each of ``units``, in the same order.
    Units that are still fighting add nothing.

    >>> from fracas.rulesets.d100.scenario import Unit
    >>> def unit(name, pax, cost, upkeep):
    ...     return Unit(0, 1, name, "human", pax, 10, 0, 0, 0, 0, 0, 0, (), (), False, 0, 1,
    ...                 cost, upkeep)
    >>> shares = value_of_goods((unit("a", 10, 100, 20), unit("b", 10, 40, 10)),
    ...                         [0, 4], [KILLED, FLED])
    >>> [str(share.value) for share in shares]
    ['120', '20']
    """
    shares: list[GoodsShare] = []
    for unit, remaining, fate in zip(units, pax, fates, strict=True):
        if fate == KILLED:
            share = Fraction(1)
        elif fate in PARTIAL_FATES:
            share = Fraction(remaining, unit.max_pax)
        else:
            continue
        shares.append(GoodsShare(unit.name, fate, unit.unit_value, share, share * unit.unit_value))
    return tuple(shares)


def draw_loot(
    value: Fraction,
    params: D100Params,
    dice: Dice,
    *,
    split: Callable[[Fraction, D100Params, int], Loot] | None = None,
) -> Loot:
    """Split ``value`` by the loot-table row a plain d100 picks.

    Resources and items are whole numbers rounded down; gold takes the rest, so the parts
    always add up to the value exactly.

    >>> from fracas.core.dice import ScriptedDice
    >>> loot = draw_loot(Fraction(140), D100Params(), ScriptedDice([80]))
    >>> loot.gold, loot.resources, loot.items
    (Fraction(70, 1), 35, 35)
    """
    return (split or split_loot)(value, params, dice.roll(D100))


def split_loot(value: Fraction, params: D100Params, face: int) -> Loot:
    """The loot of ``value`` for the loot-table row of ``face`` (see :func:`draw_loot`)."""
    row = next(row for row in params.loot_table if face <= row.up_to)
    resources = int(value * row.resources / 100)
    items = int(value * row.items / 100)
    return Loot(face, value - resources - items, resources, items)


#: Standing-bonus totals of one state of a battle (see :meth:`_Tables.standing`).
StandingTable = dict[Any, Any]


#: One attack in a speed group: the unit striking, how many enemies it may strike, and for
#: each that enemy's index and what the five rolls of an attack on it need (see
#: ``_Play.strikes``).
Strike = tuple[Unit, int, tuple[tuple[Any, ...], ...]]

#: For each side, the enemies still fighting and the one it strikes without a roll.
Targets = tuple[tuple[list[Unit], list[Unit]], tuple[Unit | None, Unit | None]]


#: What :meth:`_Play.fight` gives: the rounds fought, the winner, the outcome, each unit's
#: fate, the goods, their value and the loot.
Fought = tuple[int, int | None, str, tuple[str, ...], tuple[GoodsShare, ...], Fraction, Loot | None]


class _Tables:
    """What every play of one battle can share: who holds effects, standing-bonus totals."""

    def __init__(self, battle: Battle) -> None:
        self.from_face = battle.params.open_ended_from
        self.limit = battle.params.open_ended_limit
        self.holders = frozenset(e.unit for e in battle.effects if e.unit is not None)
        self._standing: dict[tuple[int, int | None, int], StandingTable] = {}
        ranged = [(u, u.ranged_attacks) for u in battle.units if u.ranged and u.ranged_attacks]
        melee = [(u, u.melee_attacks) for u in battle.units if u.melee_attacks]
        #: The units that strike in each phase and their attacks, in groups of equal speed,
        #: fastest first.
        self.speed_groups = {
            phase: [
                tuple((u, attacks) for u, attacks in strikers if u.speed == speed)
                for speed in sorted({u.speed for u, _ in strikers}, reverse=True)
            ]
            for phase, strikers in (("ranged", ranged), ("melee", melee))
        }
        #: Every unit fighting: one bit per unit, by index.
        self.everyone = (1 << len(battle.units)) - 1
        #: Each unit's PAX as the battle begins.
        self.start_pax = tuple(unit.pax for unit in battle.units)
        #: The units with more dangerous missions than the morale assessment lets pass.
        self.assessed = tuple(
            unit
            for unit in battle.units
            if unit.dangerous_missions > battle.params.assessment_threshold
        )
        self._battle = battle
        self._present: dict[int, tuple[list[Unit], list[Unit]]] = {}
        #: :meth:`lineup` of each set of units still fighting, as far as looked up.
        self.lineups: dict[int, Targets | tuple[()]] = {}
        self.goods: dict[
            tuple[int, tuple[int, ...], tuple[str, ...]], tuple[tuple[GoodsShare, ...], Fraction]
        ] = {}
        self._loot: dict[tuple[Fraction, int], Loot] = {}
        #: :meth:`morale_band` of each total, as far as looked up.
        self.bands: dict[int, tuple[int, bool]] = {}
        self._acting: dict[frozenset[str], tuple[HeldEffect, ...]] = {}
        self._effects = battle.effects
        self._params = battle.params

    def acting(self, triggers: frozenset[str]) -> tuple[HeldEffect, ...]:
        """The effects that nullify or force flee rolls on one of ``triggers``, in order."""
        acting = self._acting.get(triggers)
        if acting is None:
            acting = self._acting[triggers] = tuple(
                effect
                for effect in self._effects
                if effect.spec.trigger in triggers
                and (effect.spec.nullify or effect.spec.flee_below is not None)
            )
        return acting

    def morale_band(self, total: int) -> tuple[int, bool]:
        """PAX lost and whether the unit flees, for a morale-check ``total`` (remembered)."""
        band = self.bands.get(total)
        if band is None:
            found = self._params.morale_band(total)
            band = (found.pax_lost, found.flees)
            if len(self.bands) < _MAX_STATES:
                self.bands[total] = band
        return band

    def present(self, alive: int) -> tuple[list[Unit], list[Unit]]:
        """The units of each side still fighting, when ``alive`` has a bit set for each
        unit still fighting (by index)."""
        present = self._present.get(alive)
        if present is None:
            first, second = (
                [u for u in side.units if alive >> u.index & 1] for side in self._battle.sides
            )
            present = (first, second)
            if len(self._present) >= _MAX_STATES:
                self._present.clear()
            self._present[alive] = present
        return present

    def lineup(self, alive: int) -> Targets | tuple[()]:
        """For each side, the enemies still fighting and the one it strikes without a roll
        (see :meth:`fixed_target`); ``()`` once a side has nobody left."""
        lineup = self.lineups.get(alive)
        if lineup is None:
            first, second = self.present(alive)
            lineup = ()
            if first and second:
                fixed = (self.fixed_target(0, second), self.fixed_target(1, first))
                lineup = ((second, first), fixed)
            if len(self.lineups) >= _MAX_STATES:
                self.lineups.clear()
            self.lineups[alive] = lineup
        return lineup

    def fixed_target(self, side: int, candidates: list[Unit]) -> Unit | None:
        """The enemy every unit of ``side`` strikes without a roll: the first of its
        priority list still fighting, or the only candidate; ``None`` when a die picks."""
        priority = self._battle.sides[side].targeting
        if priority:
            for name in priority:
                for candidate in candidates:
                    if candidate.name == name:
                        return candidate
        if len(candidates) == 1:
            return candidates[0]
        return None

    def split_loot(self, value: Fraction, params: D100Params, face: int) -> Loot:
        """:func:`split_loot`, remembered."""
        loot = self._loot.get((value, face))
        if loot is None:
            loot = split_loot(value, params, face)
            if len(self._loot) < _MAX_STATES:
                self._loot[(value, face)] = loot
        return loot

    def standing(self, gone: int, overwhelm_side: int | None, overwhelm: int) -> StandingTable:
        """Totals of standing bonuses in one state of the battle: of a roll by (unit, roll,
        stage, PAX), of an attack's five rolls by (stage, attacker, its PAX, target, its
        PAX)."""
        state = (gone, overwhelm_side, overwhelm)
        table = self._standing.get(state)
        if table is None:
            if len(self._standing) > _MAX_STATES:
                self._standing.clear()
            table = self._standing[state] = {}
        return table


class _Play:
    """The mutable state of one battle being played.

    A recording play (no ``tables`` given) keeps every roll and event for the battle log. A
    sampling play keeps only the totals the rules compare, and looks up each standing bonus
    in ``tables`` — shared by every play of one battle — instead of listing its rows again:
    Monte Carlo plays thousands of battles and reads only their outcome. Both run the very
    same steps below.
    """

    def __init__(self, battle: Battle, dice: Dice, tables: _Tables | None = None) -> None:
        self.battle = battle
        self.params = battle.params
        self.dice = dice
        self.units = battle.units
        self.record = tables is None
        self.tables = tables = _Tables(battle) if tables is None else tables
        self.pax = list(tables.start_pax)
        self.fate: list[str | None] = [None] * len(battle.units)
        self.nullified: set[int] = set()
        self.events: list[Event] = []
        #: Every roll of a recording play, in order (events pick theirs from the end).
        self.rolls: list[Roll] = []
        self.overwhelm_side: int | None = None
        self.overwhelm = 0
        self.counts = (0, 0)
        #: Rollers of the dice that pick a target among so many candidates.
        self.pickers: dict[int, Callable[[], int]] = {}
        #: How an attack rolls: one roll, and whether a roll beats another. A roll is asked
        #: with what the play's mode knows of its bonuses (see attack_rolls and
        #: attack_totals): the roll itself when recording, the bonus total when sampling.
        self.contest: tuple[Callable[[Any], int], Callable[[Any, Any], bool]]
        if self.record:
            self.d100 = d100_roller(dice)
            self.contest = (self.recorded_roll, self.recorded_beats)
        else:
            #: One open-ended roll plus a bonus total (and two of them compared): all a
            #: sampling play keeps of a roll.
            rolls = sampled_rolls(dice, tables.from_face, tables.limit)
            self.sampled_roll, self.sampled_beats, self.settle = rolls
            self.contest = (rolls.total, rolls.beats)
        # Bonuses change when a unit holding an effect leaves or loses its traits (one bit
        # per such unit in ``gone``) and when one side overwhelms the other.
        self.gone = 0
        #: One bit per unit still fighting, by index.
        self.alive = tables.everyone
        self.standing = tables.standing(0, None, 0)

    # Helpers ------------------------------------------------------------------------

    def present(self, side: int) -> list[Unit]:
        return self.tables.present(self.alive)[side]

    def both_present(self) -> bool:
        tables = self.tables
        lineup = tables.lineups.get(self.alive)
        return bool(tables.lineup(self.alive) if lineup is None else lineup)

    def leave(self, index: int, fate: str | None) -> None:
        """Set the fate of unit ``index`` (``None`` keeps it fighting)."""
        self.fate[index] = fate
        if fate is None:
            self.alive |= 1 << index
        else:
            self.alive &= ~(1 << index)
        if fate is not None and index in self.tables.holders:
            self.gone |= 1 << index
            self.restate()

    def nullify(self, index: int) -> None:
        self.nullified.add(index)
        if index in self.tables.holders:
            self.gone |= 1 << index
            self.restate()

    def restate(self) -> None:
        """Pick the standing-bonus totals of the current state (a sampling play's look-up)."""
        self.standing = self.tables.standing(self.gone, self.overwhelm_side, self.overwhelm)

    def roll(self, unit: Unit, name: str, stage: int, *extra: Bonus) -> int:
        """Roll ``name`` for ``unit`` with its standing bonuses and ``extra`` ones: the total."""
        if self.record:
            faces = open_ended_faces(self.d100, self.tables.from_face, self.tables.limit)
            roll = Roll(name, unit.name, faces, (*self.bonuses(unit, name, stage), *extra))
            self.rolls.append(roll)
            return roll.total
        key = (unit.index, name, stage, self.pax[unit.index])
        standing = self.standing.get(key)
        if standing is None:
            standing = sum(bonus.value for bonus in self.bonuses(unit, name, stage))
            self.standing[key] = standing
        if extra:
            standing += sum(bonus.value for bonus in extra)
        return self.sampled_roll(standing)

    def recorded_roll(self, roll: tuple[Unit, str, int]) -> int:
        """Make ``roll`` (unit, roll name, stage), keeping it for the log: the total."""
        unit, name, stage = roll
        faces = open_ended_faces(self.d100, self.tables.from_face, self.tables.limit)
        made = Roll(name, unit.name, faces, tuple(self.roll_bonuses(unit, name, stage)))
        self.rolls.append(made)
        return made.total

    def recorded_beats(self, first: tuple[Unit, str, int], second: tuple[Unit, str, int]) -> bool:
        """Make two rolls (see :meth:`recorded_roll`): whether the first beats the second."""
        return self.recorded_roll(first) > self.recorded_roll(second)

    def made(self, count: int) -> list[Roll | None]:
        """The last ``count`` rolls of a recording play, padded to five with ``None``."""
        rolls: list[Roll | None] = list(self.rolls[len(self.rolls) - count :])
        return rolls + [None] * (5 - count)

    def in_force(self, effect: HeldEffect, stage: int) -> bool:
        # An effect a unit holds (a trait, a leader's aura) goes with it when it leaves.
        if effect.unit is not None and (
            effect.unit in self.nullified or self.fate[effect.unit] is not None
        ):
            return False
        side = self.battle.sides[effect.side]
        if effect.lair_only and side.location != "lair":
            return False
        trigger = effect.spec.trigger
        if trigger == "assessment":
            return True
        if trigger == "when_attacking":
            return side.attacker and stage >= ROLES
        if trigger == "when_defending":
            return side.defender and stage >= ROLES
        if trigger == "start_of_combat":
            return stage >= RANGED
        return stage >= MELEE

    def bonuses(self, unit: Unit, name: str, stage: int) -> list[Bonus]:
        """Every standing bonus of ``unit`` to the roll ``name`` at ``stage``, in log order."""
        rows: list[Bonus] = []
        stat = _STAT_OF_ROLL.get(name)
        if stat is not None:
            points: int = getattr(unit, stat)
            if points:
                per_point = self.params.stat_point_value
                pax = self.pax[unit.index]
                value = points * per_point * pax // unit.max_pax
                source = f"{points} × {per_point} × {pax}/{unit.max_pax} PAX"
                detail = f"{points} × {per_point}"
                if pax != unit.max_pax:
                    detail += f" × {pax}/{unit.max_pax}"
                rows.append(Bonus(stat.capitalize(), value, source, detail))
        rows.extend(
            Bonus(item.label, item.value, "equipment")
            for item in unit.item_bonuses
            if item.roll == name
        )
        side = self.battle.sides[unit.side]
        if name in _MORALE_ROLLS:
            if unit.morale_bonus:
                rows.append(Bonus("Morale bonus", unit.morale_bonus, unit.name))
            if side.morale_bonus:
                rows.append(Bonus("Throne Room", side.morale_bonus, side.name))
        if name == "loyalty" and side.loyalty_bonus:
            rows.append(Bonus("Throne Room loyalty", side.loyalty_bonus, side.name))
        for effect in self.battle.effects:
            spec = effect.spec
            if (
                spec.roll == name
                and spec.bonus
                and self.in_force(effect, stage)
                and effect.reaches(unit)
            ):
                rows.append(Bonus(effect.label, spec.bonus, effect.origin))
        if (
            self.overwhelm
            and unit.side == self.overwhelm_side
            and stage >= TOTALS
            and name in self.params.overwhelm_rolls
        ):
            rows.append(Bonus("Overwhelm", self.overwhelm, f"{self.counts[0]} v {self.counts[1]}"))
        return rows

    # The seven steps ----------------------------------------------------------------

    def morale_assessment(self) -> None:
        params = self.params
        exempt = {race.lower() for race in params.assessment_exempt_races}
        for unit in self.tables.assessed:
            if unit.race.lower() in exempt:
                if self.record:
                    self.events.append(AssessmentEvent(unit.name, exempt=True))
                continue
            penalty = Bonus(
                "Dangerous missions",
                -params.assessment_penalty,
                f"{unit.dangerous_missions} penalties",
            )
            if self.roll(unit, "morale_assessment", ASSESSMENT, penalty) >= params.assessment_pass:
                if self.record:
                    self.events.append(AssessmentEvent(unit.name, False, self.rolls[-1]))
                continue
            loyalty = self.roll(unit, "loyalty", ASSESSMENT)
            equipment_read = loyalty
            if params.loyalty_equipment_reads == "die":
                bonus = sum(b.value for b in self.bonuses(unit, "loyalty", ASSESSMENT))
                equipment_read = loyalty - bonus
            if loyalty >= params.loyalty_pass:
                fate = BOTTLED_OUT
            elif equipment_read > params.loyalty_takes_equipment:
                fate = DISBANDED
            else:
                fate = DISBANDED_WITH_EQUIPMENT
            self.leave(unit.index, fate)
            if self.record:
                roll, loyalty_roll, *_ = self.made(2)
                self.events.append(AssessmentEvent(unit.name, False, roll, loyalty_roll, fate))

    def effect_actions(self, stage: int, round_no: int, triggers: frozenset[str]) -> None:
        """Nullify, then flee rolls, of every effect in force with one of ``triggers``."""
        acting = self.tables.acting(triggers)
        if not acting:
            return
        for effect in acting:
            spec = effect.spec
            if not spec.nullify or spec.trigger not in triggers or not self.in_force(effect, stage):
                continue
            for unit in self.units:
                if (
                    self.fate[unit.index] is None
                    and unit.index not in self.nullified
                    and effect.reaches(unit)
                ):
                    self.nullify(unit.index)
                    if self.record:
                        self.events.append(NullifyEvent(effect.label, effect.origin, unit.name))
        for effect in acting:
            spec = effect.spec
            threshold = spec.flee_below
            if threshold is None or spec.trigger not in triggers:
                continue
            if not self.in_force(effect, stage):
                continue
            for unit in self.units:
                if self.fate[unit.index] is not None or not effect.reaches(unit):
                    continue
                fled = self.roll(unit, "flee", stage) < threshold
                if fled:
                    self.leave(unit.index, FLED)
                if self.record:
                    self.events.append(
                        FleeRollEvent(
                            stage,
                            round_no,
                            effect.label,
                            effect.origin,
                            unit.name,
                            self.rolls[-1],
                            threshold,
                            fled,
                        )
                    )

    def total_bonuses(self) -> None:
        self.effect_actions(TOTALS, 0, _STEP_3_TRIGGERS)
        first, second = self.tables.present(self.alive)
        self.counts = (len(first), len(second))
        difference = abs(self.counts[0] - self.counts[1])
        if difference:
            self.overwhelm_side = 0 if self.counts[0] > self.counts[1] else 1
            self.overwhelm = self.params.overwhelm_bonus * difference
            self.restate()

    def attack_rolls(
        self, phase: str, unit: Unit, target: Unit, stage: int
    ) -> tuple[tuple[Unit, str, int], ...]:
        """The five rolls of an attack of ``unit`` on ``target`` as (unit, roll, stage):
        attack, defence, damage, damage reduction and the target's morale check."""
        hit_roll, damage_roll = _HIT_AND_DAMAGE[phase]
        return (
            (unit, hit_roll, stage),
            (target, "defense", stage),
            (unit, damage_roll, stage),
            (target, "damage_reduction", stage),
            (target, "morale", stage),
        )

    def attack_totals(
        self, key: tuple[int, ...], phase: str, unit: Unit, target: Unit, stage: int
    ) -> tuple[int, ...]:
        """The bonus totals of :meth:`attack_rolls`, kept in the state's table under ``key``."""
        totals = tuple(
            sum(bonus.value for bonus in self.roll_bonuses(*roll))
            for roll in self.attack_rolls(phase, unit, target, stage)
        )
        self.standing[key] = totals
        return totals

    def roll_bonuses(self, unit: Unit, name: str, stage: int) -> list[Bonus]:
        """The bonuses of one roll: the standing ones, and for a morale check after a
        wound, a penalty per PAX the unit has lost in this battle."""
        rows = self.bonuses(unit, name, stage)
        if name == "morale":
            lost = unit.pax - self.pax[unit.index]
            per_pax = self.params.morale_pax_penalty
            if lost and per_pax:
                rows.append(
                    Bonus("PAX lost", -per_pax * lost, f"{lost} lost", f"{lost} × {per_pax}")
                )
        return rows

    def picker(self, count: int) -> Callable[[], int]:
        """Rolls the die that picks a target among ``count`` candidates (in scenario order)."""
        pick = self.pickers.get(count)
        if pick is None:
            pick = self.pickers[count] = die_roller(self.dice, die(count))
        return pick

    def exchange(self, phase: str, round_no: int, stage: int) -> None:
        """Every unit of the phase strikes, fastest first; equal speeds strike together.

        One attack: the attack roll against the target's defence roll (a tie goes to the
        defender); on a hit, damage against damage reduction; on a wound, the target's
        morale check gives the PAX it loses and whether it flees. The losses of a speed
        group are applied once all of it has struck.
        """
        record, tables, pax, standing = self.record, self.tables, self.pax, self.standing
        roll, beats = self.contest
        bands, pickers = tables.bands, self.pickers
        for group, speed_group in enumerate(tables.speed_groups[phase]):
            # Nothing who strikes, or how, depends on changes while a speed group strikes
            # (its losses wait for the end of the group): a sampling play keeps it in the
            # state's table, by the units still fighting and their PAX.
            key = (stage, group, self.alive, tuple(pax))
            strikes = None if record else standing.get(key)
            if strikes is None:
                strikes = self.strikes(key, phase, speed_group)
            if not strikes:
                if strikes is False:  # a side has nobody left
                    return
                continue
            losses: dict[int, int] = {}
            fleeing: set[int] = set()
            for unit, count, options in strikes:
                if count == 1:
                    place, option = 0, options[0]
                else:
                    place = (pickers.get(count) or self.picker(count))() - 1
                    option = options[place]
                target, hit, defence, damage, reduction, morale = option
                band = None
                if beats(hit, defence) and beats(damage, reduction):
                    total = roll(morale)
                    band = bands.get(total) or tables.morale_band(total)
                    pax_lost, flees = band
                    if pax_lost:
                        losses[target] = losses.get(target, 0) + pax_lost
                    if flees:
                        fleeing.add(target)
                if record:
                    self.note_attack(phase, round_no, unit, target, count, place, options, band)
            if losses or fleeing:
                self.casualties(phase, round_no, losses, fleeing)
                standing = self.standing

    def strikes(
        self,
        key: tuple[int, int, int, tuple[int, ...]],
        phase: str,
        group: Sequence[tuple[Unit, int]],
    ) -> tuple[Strike, ...] | Literal[False]:
        """The attacks the speed ``group`` makes now, in order (see :data:`Strike`): one per
        attack of each unit still fighting, with the enemies it may strike (the one it
        strikes without a roll, or every candidate in scenario order when a die picks),
        each as its index and what the five rolls of an attack on it need (see
        :meth:`needs`). ``False`` once a side has nobody left. A sampling play keeps them
        under ``key``.
        """
        stage, alive = key[0], key[2]
        tables = self.tables
        lineup = tables.lineups.get(alive)
        if lineup is None:
            lineup = tables.lineup(alive)
        strikes: tuple[Strike, ...] | Literal[False] = False
        if lineup:
            strikes = tuple(
                strike
                for unit, attacks in group
                if alive >> unit.index & 1
                for targets in (self.targets_of(unit, lineup),)
                for strike in [
                    (
                        unit,
                        len(targets),
                        tuple((t.index, *self.needs(phase, unit, t, stage)) for t in targets),
                    )
                ]
                * attacks
            )
        if not self.record:
            self.standing[key] = strikes
        return strikes

    @staticmethod
    def targets_of(unit: Unit, lineup: Targets) -> list[Unit]:
        """The enemies ``unit`` may strike in ``lineup``: the one it strikes without a
        roll, or every candidate."""
        enemies, fixed = lineup
        target = fixed[unit.side]
        return enemies[unit.side] if target is None else [target]

    def needs(self, phase: str, unit: Unit, target: Unit, stage: int) -> tuple[Any, ...]:
        """What the five rolls of an attack of ``unit`` on ``target`` need in this play's
        mode: the rolls themselves when recording, their bonus totals when sampling."""
        if self.record:
            return self.attack_rolls(phase, unit, target, stage)
        pax = self.pax
        key = (stage, unit.index, pax[unit.index], target.index, pax[target.index])
        return self.standing.get(key) or self.attack_totals(key, phase, unit, target, stage)

    def note_attack(
        self,
        phase: str,
        round_no: int,
        unit: Unit,
        target: int,
        count: int,
        place: int,
        options: tuple[tuple[Any, ...], ...],
        band: tuple[int, bool] | None,
    ) -> None:
        """Log an attack on the unit of index ``target``, the option at ``place`` of
        ``options`` (picked by a die among ``count`` unless it is 1), whose rolls are the
        recording play's last ones: five with a morale check (its ``band``), four after
        damage against damage reduction, else two."""
        made = 5 if band is not None else 4 if self.rolls[-1].name == "damage_reduction" else 2
        attack, defence, damage, reduction, morale = self.made(made)
        assert attack is not None
        assert defence is not None
        target_roll = None
        if count > 1:
            target_roll = (place + 1, tuple(self.units[option[0]].name for option in options))
        pax_lost, flees = band or (0, False)
        self.events.append(
            AttackEvent(
                phase,
                round_no,
                unit.speed,
                unit.name,
                self.units[target].name,
                target_roll,
                attack,
                defence,
                damage,
                reduction,
                morale,
                pax_lost,
                flees,
            )
        )

    def casualties(
        self, phase: str, round_no: int, losses: dict[int, int], fleeing: set[int]
    ) -> None:
        """Apply a speed group's losses: a unit left with no PAX is killed, else one whose
        morale broke flees."""
        pax = self.pax
        for index in (
            sorted(losses.keys() | fleeing)
            if len(losses) + len(fleeing) > 1
            else (
                *losses,
                *fleeing,
            )
        ):
            before = pax[index]
            after = before - losses.get(index, 0)
            gone: str | None
            if after <= 0:
                after, gone = 0, KILLED
            else:
                gone = FLED if index in fleeing else None
            pax[index] = after
            if gone is not None:
                self.leave(index, gone)
            if self.record:
                self.events.append(
                    CasualtyEvent(
                        phase, round_no, self.units[index].name, before - after, after, gone
                    )
                )

    def play(self) -> BattleResult:
        rounds, winner, outcome, fates, goods, value, loot = self.fight()
        return BattleResult(
            events=tuple(self.events),
            pax=tuple(self.pax),
            fates=fates,
            nullified=frozenset(self.nullified),
            counts=self.counts,
            overwhelm_side=self.overwhelm_side,
            overwhelm=self.overwhelm,
            rounds=rounds,
            winner=winner,
            outcome=outcome,
            goods=goods,
            goods_value=value,
            loot=loot,
        )

    def fight(self, *, split: bool = True) -> Fought:
        """The seven steps: the rounds fought, the winner (``None`` unless the outcome is a
        win), the outcome, each unit's fate, the goods, their value and the loot (``None``
        without ``split``: its die is rolled, the value is not split)."""
        self.morale_assessment()
        self.total_bonuses()
        if self.both_present():
            # Combat begins only against an enemy: no start-of-combat rolls after a rout.
            self.effect_actions(RANGED, 0, _START_TRIGGERS)
            self.exchange("ranged", 0, RANGED)
        rounds = 0
        each_round = self.tables.acting(_ROUND_TRIGGERS)
        for round_no in range(1, self.params.round_limit + 1):
            if not self.both_present():
                break
            rounds = round_no
            if each_round:
                self.effect_actions(MELEE, round_no, _ROUND_TRIGGERS)
            self.exchange("melee", round_no, MELEE)
        first, second = self.tables.present(self.alive)
        winner: int | None = None
        if first and second:
            outcome = "withdraw"
        elif first or second:
            outcome, winner = "win", 0 if first else 1
        else:
            outcome = "draw"
        fates = cast(tuple[str, ...], tuple(map(_FATE_OF.get, self.fate, self.fate)))
        goods: tuple[GoodsShare, ...] = ()
        value = _NOTHING
        loot = None
        if winner is not None:
            losers = self.battle.sides[1 - winner].units
            start = losers[0].index
            pax = tuple(self.pax[start : start + len(losers)])
            key = (winner, pax, fates[start : start + len(losers)])
            cached = None if self.record else self.tables.goods.get(key)
            if cached is None:
                shares = value_of_goods(losers, pax, key[2])
                cached = (shares, sum((share.value for share in shares), _NOTHING))
                if not self.record and len(self.tables.goods) < _MAX_STATES:
                    self.tables.goods[key] = cached
            goods, value = cached
            if value and split:
                loot = draw_loot(value, self.params, self.dice, split=self.tables.split_loot)
            elif value:
                self.dice.roll(D100)  # the loot-table row, which an outcome alone leaves out
        return rounds, winner, outcome, fates, goods, value, loot


def play_battle(battle: Battle, dice: Dice) -> BattleResult:
    """Play ``battle`` with ``dice`` from the morale assessment to the loot.

    >>> from fracas.core.dice import ScriptedDice
    >>> from fracas.rulesets.d100 import D100Ruleset
    >>> battle = D100Ruleset().load({"fracas": 1, "ruleset": "d100", "sides": [
    ...     {"name": "A", "action": "raid",
    ...      "units": [{"name": "Scouts", "pax": 10, "dangerous_missions": 6}]},
    ...     {"name": "B", "action": "defend", "units": [{"name": "Guards", "pax": 10}]}]})
    >>> result = play_battle(battle, ScriptedDice([90, 30]))  # 90 − 25 = 65; loyalty 30
    >>> result.fates, result.outcome, battle.sides[result.winner].name
    (('disbanded', 'fought'), 'win', 'B')
    """
    return _Play(battle, dice).play()


def sampling_player(battle: Battle) -> Callable[[Dice], BattleResult]:
    """Play ``battle`` over and over for its outcome only: no events, no roll records.

    The result's ``events`` are empty; everything else is what :func:`play_battle` gives
    for the same dice. The standing bonuses are totalled once and shared by every play.

    >>> from fracas.core.dice import SeededDice
    >>> from fracas.rulesets.d100 import D100Ruleset
    >>> battle = D100Ruleset().load({"fracas": 1, "ruleset": "d100", "sides": [
    ...     {"name": "A", "action": "raid", "units": [{"name": "Scouts", "pax": 10}]},
    ...     {"name": "B", "action": "defend", "units": [{"name": "Guards", "pax": 10}]}]})
    >>> play = sampling_player(battle)
    >>> full, fast = play_battle(battle, SeededDice(5)), play(SeededDice(5))
    >>> (fast.pax, fast.fates, fast.winner) == (full.pax, full.fates, full.winner)
    True
    """
    tables = _Tables(battle)

    def play(dice: Dice) -> BattleResult:
        playing = _Play(battle, dice, tables)
        result = playing.play()
        playing.settle()
        return result

    return play


#: What a sampled battle comes to: the winner (``None`` unless the outcome is a win), the
#: outcome, the rounds fought, each unit's PAX and fate, and the value of goods.
Outcome = tuple[int | None, str, int, list[int], tuple[str, ...], Fraction]


def sampling_outcomes(battle: Battle) -> Callable[[Dice], Outcome]:
    """:func:`sampling_player`, for the outcome alone (see :data:`Outcome`).

    >>> from fracas.core.dice import SeededDice
    >>> from fracas.rulesets.d100 import D100Ruleset
    >>> battle = D100Ruleset().load({"fracas": 1, "ruleset": "d100", "sides": [
    ...     {"name": "A", "action": "raid", "units": [{"name": "Scouts", "pax": 10}]},
    ...     {"name": "B", "action": "defend", "units": [{"name": "Guards", "pax": 10}]}]})
    >>> full = play_battle(battle, SeededDice(5))
    >>> winner, outcome, rounds, pax, fates, value = sampling_outcomes(battle)(SeededDice(5))
    >>> (winner, rounds, tuple(pax), fates) == (full.winner, full.rounds, full.pax, full.fates)
    True
    """
    tables = _Tables(battle)

    def play(dice: Dice) -> Outcome:
        playing = _Play(battle, dice, tables)
        rounds, winner, outcome, fates, _, value, _ = playing.fight(split=False)
        playing.settle()
        return winner, outcome, rounds, playing.pax, fates, value

    return play


def standing_bonuses(battle: Battle, result: BattleResult, unit: Unit, roll: str) -> list[Bonus]:
    """The bonuses ``unit`` has to ``roll`` once step 3 has tallied them (at its starting PAX)."""
    play = _Play(battle, ScriptedDice(()))
    # Units gone by the end of step 3 take their own effects with them.
    index = {unit.name: unit.index for unit in battle.units}
    for event in result.events:
        if isinstance(event, AssessmentEvent) and event.fate:
            play.fate[index[event.unit]] = event.fate
        elif isinstance(event, FleeRollEvent) and event.stage == TOTALS and event.fled:
            play.fate[index[event.unit]] = FLED
    play.nullified = set(result.nullified)
    play.overwhelm_side = result.overwhelm_side
    play.overwhelm = result.overwhelm
    play.counts = result.counts
    return play.bonuses(unit, roll, TOTALS)
