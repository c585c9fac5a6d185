"""Playing one battle: the seed's seven steps as a process over small hashable states.

:class:`BattleProcess` is the one definition of the rules. A :class:`State` holds what
the rest of a battle depends on (the step it is at, the round, each unit's PAX and fate,
who lost their traits, the Overwhelm bonus) and nothing of its log; a step moves it on,
asking the injected dice for every random event. Each random step is one dice group
(:meth:`BattleProcess.branch`) with a closed-form law: a speed group's attacks, one
unit's morale assessment, the loot die. Seeded play hands the process a
:class:`~fracas.core.record.KeepingRecorder`, which keeps every roll's rows and every
event for the battle log; odds hand it :data:`~fracas.core.record.SUMMING`.

Dice are consumed in a fixed, documented order (see ``docs/rules/d100.md``), so a
scripted test can fix every face and a seed always replays the same battle.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache, partial
from typing import Any, NamedTuple, cast
from weakref import proxy

from fracas.core.dice import D100, Dice, DiceGroup, die, draw
from fracas.core.distribution import EnumerationBudgetError
from fracas.core.process import run
from fracas.core.record import SUMMING, KeepingRecorder, Recorder
from fracas.rulesets.d100.params import ROLL_LABELS, D100Params
from fracas.rulesets.d100.rolls import OpenEnded, Probability, Roll, Rows, number, rolling
from fracas.rulesets.d100.scenario import Battle, HeldEffect, Unit

FOUGHT = "fought"
KILLED = "killed"
FLED = "fled"
BOTTLED_OUT = "bottled_out"
DISBANDED = "disbanded"
DISBANDED_WITH_EQUIPMENT = "disbanded_with_equipment"
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
#: The most products of probabilities the law of one speed group may take to combine.
_MOST_LAW_WORK = 1_000_000
#: The most casualty patterns (bounded from above) a speed group may have for sampling
#: to draw it from its law.
_MOST_SAMPLED_KEYS = 4096
#: Most states (and bonus rows) a process remembers before it starts afresh: a bound on memory.
_MAX_REMEMBERED = 200_000


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


def draw_loot(value: Fraction, params: D100Params, dice: Dice) -> Loot:
    """Split ``value`` by the loot-table row the loot die (:class:`LootDie`) picks.

    Resources and items are whole numbers rounded down; gold takes the rest, so the parts
    always add up to the value exactly.

    >>> from fracas.core.dice import ScriptedDice
    >>> loot = draw_loot(Fraction(140), D100Params(), ScriptedDice([80]))
    >>> loot.gold, loot.resources, loot.items
    (Fraction(70, 1), 35, 35)
    """
    _, face = LootDie().roll(dice)
    return split_loot(value, params, face)


def split_loot(value: Fraction, params: D100Params, face: int) -> Loot:
    """The loot of ``value`` for the loot-table row of ``face`` (see :func:`draw_loot`)."""
    row = next(row for row in params.loot_table if face <= row.up_to)
    resources = int(value * row.resources / 100)
    items = int(value * row.items / 100)
    return Loot(face, value - resources - items, resources, items)


class State(NamedTuple):
    """Where a battle stands between two steps: all the rest of it depends on.

    ``step`` is the index of the next step in the battle's program (see
    :class:`BattleProcess`); ``round`` the melee rounds begun so far; ``pax`` and ``fate``
    are per unit, in unit order (``None``: still fighting); ``nullified`` has one bit per
    unit that lost its traits; ``counts`` are the units present on each side once step 3
    counted them, and ``overwhelm`` the bonus the bigger side (``overwhelm_side``) got.
    """

    step: int
    round: int
    pax: tuple[int, ...]
    fate: tuple[str | None, ...]
    nullified: int = 0
    counts: tuple[int, int] = (0, 0)
    overwhelm_side: int | None = None
    overwhelm: int = 0


#: A :class:`State` from a tuple of its fields, without the keyword handling of its
#: constructor (a state is made for every path of every step).
_state: Callable[[tuple[Any, ...]], State] = partial(tuple.__new__, State)

#: The kinds of step in a battle's program.
_ASSESS, _NULLIFY, _FLEE, _TOTALS, _GATE, _STRIKE, _ROUND, _END = range(8)

#: What the five rolls of one attack on one target add: the target's index, then the
#: bonus totals of attack, defence, damage, damage reduction and the target's morale.
Option = tuple[int, int, int, int, int, int]
#: A speed group's casualties: ``(unit, PAX lost, flees)`` of each unit hit, by index.
Casualties = tuple[tuple[int, int, bool], ...]
#: What one attack rolled: the place of its target among the candidates (0 when none was
#: rolled for) and the faces of each roll it made (two, four or five rolls).
Struck = tuple[int, tuple[tuple[int, ...], ...]]


@dataclass(frozen=True, slots=True)
class Exchange(DiceGroup[Casualties, tuple[Struck, ...]]):
    """One speed group's attacks, struck together: the key is the casualties they cause.

    ``strikes`` holds each attack's options (one per candidate target, a die picking among
    several; see :data:`Option`). An attack hits when its attack roll beats the defence
    roll, wounds when its damage roll then beats the damage reduction roll (ties go to the
    defender), and a wound makes the target roll morale, read on ``bands`` (``(lowest
    total or None, PAX lost, flees)``, highest first). Nothing an attack of the group does
    changes another's rolls, so the law is the attacks' laws combined.
    """

    rolls: OpenEnded
    strikes: tuple[tuple[Option, ...], ...]
    bands: tuple[tuple[int | None, int, bool], ...]
    label: str = field(default="speed group", init=False, compare=False, repr=False)

    def roll(self, dice: Dice) -> tuple[Casualties, tuple[Struck, ...]]:
        """Every attack in order: its target die, then attack and defence, on a hit damage
        and damage reduction, on a wound morale."""
        rolled, d100 = self.rolls.rolled, rolling(dice, die(self.rolls.sides))
        bands = self.bands
        struck: list[Struck] = []
        losses: dict[int, tuple[int, bool]] = {}
        pickers: dict[int, Callable[[], int]] = {}
        for options in self.strikes:
            place = 0
            if len(options) > 1:
                pick = pickers.get(len(options))
                if pick is None:
                    pick = pickers[len(options)] = rolling(dice, die(len(options)))
                place = pick() - 1
            target, hit, defence, damage, reduction, morale = options[place]
            attack_total, attack = rolled(d100)
            defence_total, defended = rolled(d100)
            if attack_total + hit <= defence_total + defence:
                struck.append((place, (attack, defended)))
                continue
            damage_total, damaged = rolled(d100)
            reduction_total, reduced = rolled(d100)
            if damage_total + damage <= reduction_total + reduction:
                struck.append((place, (attack, defended, damaged, reduced)))
                continue
            morale_total, steadied = rolled(d100)
            struck.append((place, (attack, defended, damaged, reduced, steadied)))
            lost, flees = band_of(bands, morale_total + morale)
            if lost or flees:
                before, fled = losses.get(target, (0, False))
                losses[target] = (before + lost, fled or flees)
        if not losses:
            return (), tuple(struck)
        return tuple((t, *losses[t]) for t in sorted(losses)), tuple(struck)

    def law(self) -> tuple[tuple[Casualties, Fraction], ...]:
        return self._law(True)  # type: ignore[return-value]

    def float_law(self) -> tuple[tuple[Casualties, float], ...]:
        return self._law(False)  # type: ignore[return-value]

    def law_pays(self) -> bool:
        """A law of few casualty patterns: at most :data:`_MOST_SAMPLED_KEYS` by a bound
        found from the shape alone (an attack ends in no loss or in one morale band of one
        of its targets). Wider laws cost more to build than die-by-die rolling saves, since
        in a big battle the runs seldom meet at the same state twice.

        >>> from fracas.rulesets.d100.rolls import OpenEnded
        >>> one = ((0, 0, 0, 0, 0, 0),)  # one attack on unit 0, every bonus 0
        >>> Exchange(OpenEnded(100, limit=0), (one,), ((None, 1, False),)).law_pays()
        True
        >>> Exchange(OpenEnded(100, limit=0), (one,) * 20, ((None, 1, False),)).law_pays()
        False
        """
        bound, bands = 1, len(self.bands)
        for options in self.strikes:
            bound *= 1 + len(options) * bands
            if bound > _MOST_SAMPLED_KEYS:
                return False
        return True

    def _law(self, fractions: bool) -> tuple[tuple[Casualties, Probability], ...]:
        together: dict[Casualties, Probability] = {(): number(Fraction(1), fractions)}
        work = 0
        for options in self.strikes:
            outcomes = attack_law(self.rolls, options, self.bands, fractions)
            # Many attacks on many targets have more casualty patterns than any walk
            # could follow: refused at once, as a budget refuses (sampling rolls them).
            work += len(together) * len(outcomes)
            if work > _MOST_LAW_WORK:
                raise EnumerationBudgetError(
                    f"a speed group of {len(self.strikes)} attacks has too many casualty "
                    f"patterns for a closed form (more than {_MOST_LAW_WORK:,} to combine)"
                )
            combined: dict[Casualties, Probability] = {}
            for before, p in together.items():
                for outcome, q in outcomes:
                    key = before if outcome is None else _add_casualty(before, *outcome)
                    combined[key] = combined.get(key, 0) + p * q
            together = combined
        return tuple((key, p) for key, p in together.items() if p)


@lru_cache(maxsize=1 << 16)
def attack_law(
    rolls: OpenEnded,
    options: tuple[Option, ...],
    bands: tuple[tuple[int | None, int, bool], ...],
    fractions: bool,
) -> tuple[tuple[tuple[int, int, bool] | None, Probability], ...]:
    """The law of one attack of an :class:`Exchange`: ``(target, PAX lost, flees)``, or
    ``None`` for an attack that costs nobody anything (a miss, no damage, or a morale
    check that holds). A die picks the target among several ``options`` evenly."""
    outcomes: dict[tuple[int, int, bool] | None, Fraction] = {}
    pick = Fraction(1, len(options))
    for target, hit, defence, damage, reduction, morale in options:
        wounds = pick * rolls.beats(defence - hit) * rolls.beats(reduction - damage)
        outcomes[None] = outcomes.get(None, 0) + pick - wounds
        for (lost, flees), chance in band_law(rolls, bands, morale):
            hurt = (target, lost, flees) if lost or flees else None
            outcomes[hurt] = outcomes.get(hurt, 0) + wounds * chance
    return tuple((outcome, number(p, fractions)) for outcome, p in outcomes.items() if p)


def _add_casualty(before: Casualties, target: int, lost: int, flees: bool) -> Casualties:
    """``before`` with one more casualty of ``target`` (the units stay in index order)."""
    for place, (unit, had, fled) in enumerate(before):
        if unit == target:
            return (*before[:place], (unit, had + lost, fled or flees), *before[place + 1 :])
        if unit > target:
            return (*before[:place], (target, lost, flees), *before[place:])
    return (*before, (target, lost, flees))


def band_of(bands: tuple[tuple[int | None, int, bool], ...], total: int) -> tuple[int, bool]:
    """PAX lost and whether the unit flees, for a morale-check ``total``."""
    for at_least, lost, flees in bands:
        if at_least is None or total >= at_least:
            return lost, flees
    raise AssertionError("the last band catches every total")  # checked by the scenario


@lru_cache(maxsize=1 << 12)
def band_law(
    rolls: OpenEnded, bands: tuple[tuple[int | None, int, bool], ...], bonus: int
) -> tuple[tuple[tuple[int, bool], Fraction], ...]:
    """The chance of each morale band for a roll with ``bonus`` (see :func:`band_of`)."""
    found: list[tuple[tuple[int, bool], Fraction]] = []
    reached = Fraction(0)
    for at_least, lost, flees in bands:
        here = Fraction(1) if at_least is None else rolls.at_least(at_least - bonus)
        if here > reached:
            found.append(((lost, flees), here - reached))
            reached = here
        if at_least is None:
            break
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Assessment(DiceGroup[str | None, tuple[tuple[int, ...], tuple[int, ...] | None]]):
    """Step 1 for one unit: the morale assessment, and after a failure the loyalty check.

    The key is the unit's fate (``None``: it passed and fights on). It passes with a
    total of ``passes`` or more (``bonus`` added); a failed unit's loyalty (``loyalty``
    added) of ``loyalty_pass`` or more keeps it loyal, else it disbands, taking its
    equipment when the loyalty read (the total, or with ``reads_die`` the dice alone) is
    ``takes`` or less.
    """

    rolls: OpenEnded
    bonus: int
    passes: int
    loyalty: int
    loyalty_pass: int
    takes: int
    reads_die: bool
    label: str = field(default="morale assessment", init=False, compare=False, repr=False)

    def roll(self, dice: Dice) -> tuple[str | None, tuple[tuple[int, ...], tuple[int, ...] | None]]:
        total, faces = self.rolls.roll(dice)
        if total + self.bonus >= self.passes:
            return None, (faces, None)
        loyal, loyalty = self.rolls.roll(dice)
        read = loyal if self.reads_die else loyal + self.loyalty
        if loyal + self.loyalty >= self.loyalty_pass:
            fate = BOTTLED_OUT
        elif read > self.takes:
            fate = DISBANDED
        else:
            fate = DISBANDED_WITH_EQUIPMENT
        return fate, (faces, loyalty)

    def law(self) -> tuple[tuple[str | None, Fraction], ...]:
        rolls = self.rolls
        held = rolls.at_least(self.passes - self.bonus)
        loyal = rolls.at_least(self.loyalty_pass - self.loyalty)
        # Disbanded: below the pass, and read above ``takes``.
        lowest = self.takes + 1 - (0 if self.reads_die else self.loyalty)
        below = self.loyalty_pass - self.loyalty
        disbands = rolls.at_least(lowest) - rolls.at_least(below) if below > lowest else 0
        failed = 1 - held
        law = (
            (None, held),
            (BOTTLED_OUT, failed * loyal),
            (DISBANDED, failed * disbands),
            (DISBANDED_WITH_EQUIPMENT, failed * (1 - loyal - disbands)),
        )
        return tuple((key, Fraction(p)) for key, p in law if p)


@dataclass(frozen=True, slots=True)
class FleeRoll(DiceGroup[bool, tuple[int, ...]]):
    """A flee roll: the unit flees when the roll plus ``bonus`` is below ``threshold``."""

    rolls: OpenEnded
    bonus: int
    threshold: int
    label: str = field(default="flee roll", init=False, compare=False, repr=False)

    def roll(self, dice: Dice) -> tuple[bool, tuple[int, ...]]:
        total, faces = self.rolls.roll(dice)
        return total + self.bonus < self.threshold, faces

    def law(self) -> tuple[tuple[bool, Fraction], ...]:
        stays = self.rolls.at_least(self.threshold - self.bonus)
        return tuple((key, p) for key, p in ((False, stays), (True, 1 - stays)) if p)


@dataclass(frozen=True, slots=True)
class LootDie(DiceGroup[None, int]):
    """The plain d100 that picks the loot-table row. No metric reads the row, so the law
    has one key: odds take no branch for it (the log shows the face)."""

    label: str = field(default="loot die", init=False, compare=False, repr=False)

    def roll(self, dice: Dice) -> tuple[None, int]:
        return None, dice.roll(D100)

    def law(self) -> tuple[tuple[None, Fraction], ...]:
        return ((None, Fraction(1)),)


_LOOT_DIE = LootDie()


#: What a finished battle comes to: the winner (``None`` unless the outcome is a win),
#: the outcome, each unit's fate, the goods and their value.
Ending = tuple[int | None, str, tuple[str, ...], tuple[GoodsShare, ...], Fraction]

#: A step's plan, remembered per state: its dice group, what each key leads to and the
#: states reached so far (``None`` for a step without dice: the state it leads to).
_Plan = tuple[DiceGroup[Any, Any] | None, Any, dict[Hashable, State] | None]


class BattleProcess:
    """The battle as a :class:`~fracas.core.process.Process` over :class:`State` values.

    The battle's program is a list of steps: each assessed unit's morale assessment,
    step 3 (nullifying, the flee rolls of each flee effect, the count and Overwhelm), the
    start of combat and each ranged speed group, then for every melee round its start,
    its flee rolls and each melee speed group, and the end (the winner and the loot die).
    A state's ``step`` is its place in that list. Every random step but a flee effect's
    rolls is one dice group (:meth:`branch`).

    ``record`` states the rolls' rows and the events of the log: a
    :class:`~fracas.core.record.KeepingRecorder` for a seeded play, which then plays once;
    :data:`~fracas.core.record.SUMMING` for odds, whose process remembers each state's
    step (its group, and the state each key led to), so a state met again costs a lookup.
    """

    def __init__(self, battle: Battle, record: Recorder = SUMMING) -> None:
        self.battle = battle
        self.params = params = battle.params
        self.units = battle.units
        self.record = record
        self.rolls = OpenEnded(params.open_ended_from, params.open_ended_limit)
        self.bands = tuple((b.at_least, b.pax_lost, b.flees) for b in params.morale_table)
        self.holders = tuple(sorted({e.unit for e in battle.effects if e.unit is not None}))
        assessed = [u for u in battle.units if u.dangerous_missions > params.assessment_threshold]
        program: list[tuple[Any, ...]] = [(_ASSESS, unit) for unit in assessed]
        program += self._effect_steps(TOTALS, _STEP_3_TRIGGERS)
        program += [(_TOTALS,), (_GATE,)]
        program += self._effect_steps(RANGED, _START_TRIGGERS)
        program += self._strike_steps("ranged", RANGED)
        #: The step that begins a melee round, and the end.
        self.round_start = len(program)
        program.append((_ROUND,))
        program += self._effect_steps(MELEE, _ROUND_TRIGGERS)
        program += self._strike_steps("melee", MELEE)
        self.end = len(program)
        program.append((_END,))
        self.program = tuple(program)
        #: The step of a finished battle.
        self.done = len(program)
        # Caches of a process that remembers (see the class's docstring).
        self._remember = not record.keeps
        self._plans: dict[State, _Plan] = {}
        self._start: State | None = None
        self._rows: dict[tuple[Any, ...], Rows] = {}
        self._options: dict[tuple[Any, ...], Option] = {}
        self._lineups: dict[tuple[str | None, ...], tuple[Any, ...]] = {}
        self._endings: dict[State, Ending] = {}
        # The plans remembered hold closures that go on to the next state. Through a weak
        # reference to the process they close no cycle, so the process and everything it
        # remembered (on a large battle, hundreds of thousands of objects) is freed as soon
        # as an evaluator lets go of it, not by a full garbage collection some time later.
        self._weakly: BattleProcess = cast("BattleProcess", proxy(self))

    def _effect_steps(self, stage: int, triggers: frozenset[str]) -> list[tuple[Any, ...]]:
        """Nullifying, then each flee effect's rolls, of the effects acting on ``triggers``."""
        acting = [
            effect
            for effect in self.battle.effects
            if effect.spec.trigger in triggers
            and (effect.spec.nullify or effect.spec.flee_below is not None)
        ]
        if not acting:
            return []
        steps: list[tuple[Any, ...]] = [(_NULLIFY, stage, tuple(acting))]
        steps += [(_FLEE, stage, e) for e in acting if e.spec.flee_below is not None]
        return steps

    def _strike_steps(self, phase: str, stage: int) -> list[tuple[Any, ...]]:
        """One step per speed group of ``phase``, fastest first: each unit that strikes in
        it with its number of attacks."""
        if phase == "ranged":
            strikers = [(u, u.ranged_attacks) for u in self.units if u.ranged and u.ranged_attacks]
        else:
            strikers = [(u, u.melee_attacks) for u in self.units if u.melee_attacks]
        speeds = sorted({u.speed for u, _ in strikers}, reverse=True)
        return [
            (_STRIKE, phase, stage, tuple((u, n) for u, n in strikers if u.speed == speed))
            for speed in speeds
        ]

    # The process ---------------------------------------------------------------------

    def start(self) -> State:
        """The first state whose step rolls dice: every unit at its starting PAX, those of
        step 1's steps without dice (exempt units) and so on done."""
        start = self._start
        if start is None:
            units = self.units
            start = self._onward(State(0, 0, tuple(u.pax for u in units), (None,) * len(units)))
            if self._remember:
                self._start = start
        return start

    def finished(self, state: State) -> bool:
        """After the end: the winner is known and the loot die rolled."""
        return state.step == self.done

    def branch(self, state: State) -> tuple[DiceGroup[Any, Any], Callable[[Any], State]] | None:
        """The dice group the step from ``state`` draws and what each key leads to, or
        ``None`` for a step with several groups (a flee effect's rolls)."""
        group, then, reached = self._plan(state)
        if group is None:
            return None

        def follow(key: Any) -> State:
            if reached is None:
                return self._onward(then(key))
            following = reached.get(key)
            if following is None:
                following = reached[key] = self._onward(then(key))
            return following

        return group, follow

    def step(self, state: State, dice: Dice) -> State:
        """The next state whose step rolls dice (or the end), every random event asked of
        ``dice``."""
        plan = self._plans.get(state) if self._remember else None
        if plan is None:
            plan = self._plan(state)
        group, then, reached = plan
        if group is None:
            if then is None:  # a flee effect's rolls: several groups, one after another
                return self._onward(self._flee(state, dice))
            return self._onward(then)
        key, detail = draw(dice, group)
        if reached is not None:
            following: State | None = reached.get(key)
            if following is None:
                following = reached[key] = self._onward(then(key))
            return following
        following = then(key)
        if detail is not None and self.record.keeps:
            self._note(state, group, key, detail, following)
        return self._onward(following)

    def _onward(self, state: State) -> State:
        """``state``, or past the steps without dice from it (their events noted on the
        way): a state a play rests in rolls dice next, or is the end."""
        while state.step != self.done:
            group, then, _ = self._plan(state)
            if group is not None or then is None:
                break
            state = then
        return state

    def _plan(self, state: State) -> _Plan:
        """The plan of the step from ``state``, remembered when the process remembers."""
        plans = self._plans
        plan = plans.get(state)
        if plan is not None:
            return plan
        kind, *what = self.program[state.step]
        group: DiceGroup[Any, Any] | None = None
        then: Any = None
        if kind == _ASSESS:
            group, then = self._assess(state, what[0])
        elif kind == _STRIKE:
            group, then = self._strikes(state, *what)
        elif kind == _END:
            group, then = self._ending_step(state)
        elif kind == _NULLIFY:
            then = self._nullify(state, *what)
        elif kind == _TOTALS:
            then = self._totals(state)
        elif kind == _GATE:
            then = self._next(state) if self._lineup(state.fate) else self._at_round(state, 0)
        elif kind == _ROUND:
            then = self._round(state)
        plan = (group, then, {} if group is not None and self._remember else None)
        if self._remember:
            if len(plans) >= _MAX_REMEMBERED:
                plans.clear()
                self._start = None
            plans[state] = plan
        return plan

    # Moving on -------------------------------------------------------------------------

    def _next(
        self,
        state: State,
        *,
        pax: tuple[int, ...] | None = None,
        fate: tuple[str | None, ...] | None = None,
        round: int | None = None,
        **changes: Any,
    ) -> State:
        """The state at the step after ``state``'s (a round's last step: its next round)."""
        step = state.step + 1
        if step == self.end:
            step = self.round_start
        # Built field by field: NamedTuple._replace costs several times more, and the
        # steps of a speed group go through here once per casualty pattern met.
        moved = _state(
            (
                step,
                state.round if round is None else round,
                state.pax if pax is None else pax,
                state.fate if fate is None else fate,
                *state[4:],
            )
        )
        return moved._replace(**changes) if changes else moved

    def _at_round(self, state: State, rounds: int) -> State:
        """The state at the start of the melee round after ``rounds``."""
        return _state((self.round_start, rounds, *state[2:]))

    def _round(self, state: State) -> State:
        """A melee round begins while both sides have a unit, up to the round limit."""
        if state.round >= self.params.round_limit or not self._lineup(state.fate):
            return _state((self.end, *state[1:]))
        return self._next(state, round=state.round + 1)

    # Bonuses ---------------------------------------------------------------------------

    def in_force(self, effect: HeldEffect, stage: int, state: State) -> bool:
        """True when ``effect`` adds to rolls (or acts) at ``stage`` in ``state``."""
        # An effect a unit holds (a trait, a leader's aura) goes with it when it leaves.
        if effect.unit is not None and (
            state.nullified >> effect.unit & 1 or state.fate[effect.unit] is not None
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

    def bonuses(
        self, unit: Unit, name: str, stage: int, state: State, gone: int | None = None
    ) -> Rows:
        """Every bonus of ``unit`` to the roll ``name`` at ``stage`` in ``state``, in log
        order, stated through the process's recorder (remembered). ``gone`` is
        :meth:`gone` of ``state``, when known."""
        if gone is None:
            gone = self.gone(state)
        key = (unit.index, name, stage, state.pax[unit.index], gone, state.counts, state.overwhelm)
        rows = self._rows.get(key)
        if rows is None:
            rows = self._bonuses(unit, name, stage, state)
            if len(self._rows) >= _MAX_REMEMBERED:
                self._rows.clear()
            self._rows[key] = rows
        return rows

    def gone(self, state: State) -> int:
        """One bit for each unit holding an effect that has left or lost its traits: what
        a roll's bonuses depend on besides its unit's PAX, the stage and Overwhelm."""
        fate, nullified = state.fate, state.nullified
        gone = 0
        for holder in self.holders:
            if fate[holder] is not None or nullified >> holder & 1:
                gone |= 1 << holder
        return gone

    def option(self, phase: str, stage: int, unit: Unit, target: Unit, state: State) -> Option:
        """What the five rolls of an attack of ``unit`` on ``target`` add (see
        :data:`Option`), remembered."""
        pax = state.pax
        gone = self.gone(state)
        key = (
            stage,
            unit.index,
            pax[unit.index],
            target.index,
            pax[target.index],
            gone,
            state.counts,
            state.overwhelm,
        )
        option = self._options.get(key)
        if option is None:
            if len(self._options) >= _MAX_REMEMBERED:
                self._options.clear()
            hit_roll, damage_roll = _HIT_AND_DAMAGE[phase]
            option = self._options[key] = (
                target.index,
                self.bonuses(unit, hit_roll, stage, state, gone).total,
                self.bonuses(target, "defense", stage, state, gone).total,
                self.bonuses(unit, damage_roll, stage, state, gone).total,
                self.bonuses(target, "damage_reduction", stage, state, gone).total,
                self.bonuses(target, "morale", stage, state, gone).total,
            )
        return option

    def _bonuses(self, unit: Unit, name: str, stage: int, state: State) -> Rows:
        params = self.params
        label = ROLL_LABELS.get(name, name)
        rows = Rows(self.record.start(label, "d100", 0))
        stat = _STAT_OF_ROLL.get(name)
        pax = state.pax[unit.index]
        if stat is not None:
            points: int = getattr(unit, stat)
            if points:
                per_point = params.stat_point_value
                value = points * per_point * pax // unit.max_pax
                source = f"{points} × {per_point} × {pax}/{unit.max_pax} PAX"
                detail = f"{points} × {per_point}"
                if pax != unit.max_pax:
                    detail += f" × {pax}/{unit.max_pax}"
                rows.add(stat.capitalize(), value, source, detail)
        for item in unit.item_bonuses:
            if item.roll == name:
                rows.add(item.label, item.value, "equipment")
        side = self.battle.sides[unit.side]
        if name in _MORALE_ROLLS:
            if unit.morale_bonus:
                rows.add("Morale bonus", unit.morale_bonus, unit.name)
            if side.morale_bonus:
                rows.add("Throne Room", side.morale_bonus, side.name)
        if name == "loyalty" and side.loyalty_bonus:
            rows.add("Throne Room loyalty", side.loyalty_bonus, side.name)
        for effect in self.battle.effects:
            spec = effect.spec
            if (
                spec.roll == name
                and spec.bonus
                and self.in_force(effect, stage, state)
                and effect.reaches(unit)
            ):
                rows.add(effect.label, spec.bonus, effect.origin)
        if (
            state.overwhelm
            and unit.side == state.overwhelm_side
            and stage >= TOTALS
            and name in params.overwhelm_rolls
        ):
            counts = state.counts
            rows.add("Overwhelm", state.overwhelm, f"{counts[0]} v {counts[1]}")
        if name == "morale":
            # A morale check after a wound: a penalty per PAX lost in this battle.
            lost = unit.pax - pax
            per_pax = params.morale_pax_penalty
            if lost and per_pax:
                rows.add("PAX lost", -per_pax * lost, f"{lost} lost", f"{lost} × {per_pax}")
        if name == "morale_assessment":
            penalty = params.assessment_penalty
            rows.add("Dangerous missions", -penalty, f"{unit.dangerous_missions} penalties")
        return rows

    def made(self, name: str, unit: Unit, faces: Sequence[int], bonuses: Rows) -> Roll:
        """The log's record of one roll (a process whose recorder keeps rows)."""
        return Roll.made(self.record, name, unit.name, faces, bonuses)

    # Step 1 ----------------------------------------------------------------------------

    def _assess(self, state: State, unit: Unit) -> tuple[DiceGroup[Any, Any] | None, Any]:
        params = self.params
        exempt = {race.lower() for race in params.assessment_exempt_races}
        if unit.race.lower() in exempt:
            self.record.note(AssessmentEvent(unit.name, exempt=True))
            return None, self._next(state)
        group = Assessment(
            self.rolls,
            self.bonuses(unit, "morale_assessment", ASSESSMENT, state).total,
            params.assessment_pass,
            self.bonuses(unit, "loyalty", ASSESSMENT, state).total,
            params.loyalty_pass,
            params.loyalty_takes_equipment,
            params.loyalty_equipment_reads == "die",
        )

        process = self._weakly

        def then(fate: str | None) -> State:
            if fate is None:
                return process._next(state)
            fates = list(state.fate)
            fates[unit.index] = fate
            return process._next(state, fate=tuple(fates))

        return group, then

    # Step 3 and the effects of steps 4 and 6 -------------------------------------------

    def _nullify(self, state: State, stage: int, acting: tuple[HeldEffect, ...]) -> State:
        """Each nullifying effect in force takes the traits of every unit in its scope."""
        nullified = state.nullified
        for effect in acting:
            if not effect.spec.nullify:
                continue
            if not self.in_force(effect, stage, state._replace(nullified=nullified)):
                continue
            for unit in self.units:
                if (
                    state.fate[unit.index] is None
                    and not nullified >> unit.index & 1
                    and effect.reaches(unit)
                ):
                    nullified |= 1 << unit.index
                    self.record.note(NullifyEvent(effect.label, effect.origin, unit.name))
        return self._next(state, nullified=nullified)

    def _flee(self, state: State, dice: Dice) -> State:
        """Every unit in the scope of a flee effect in force rolls; below its threshold the
        unit flees at once (so later rolls go without the effects it held)."""
        _, stage, effect = self.program[state.step]
        threshold = effect.spec.flee_below
        if not self.in_force(effect, stage, state):
            return self._next(state)
        for unit in self.units:
            if state.fate[unit.index] is not None or not effect.reaches(unit):
                continue
            bonuses = self.bonuses(unit, "flee", stage, state)
            fled, faces = draw(dice, FleeRoll(self.rolls, bonuses.total, threshold))
            if fled:
                fates = list(state.fate)
                fates[unit.index] = FLED
                state = state._replace(fate=tuple(fates))
            if faces is not None and self.record.keeps:
                roll = self.made("flee", unit, faces, bonuses)
                event = FleeRollEvent(
                    stage,
                    state.round,
                    effect.label,
                    effect.origin,
                    unit.name,
                    roll,
                    threshold,
                    fled,
                )
                self.record.note(event)
        return self._next(state)

    def _totals(self, state: State) -> State:
        """Step 3: the units present are counted; the bigger side gets Overwhelm."""
        first, second = self._present(state.fate)
        counts = (len(first), len(second))
        difference = abs(counts[0] - counts[1])
        if not difference:
            return self._next(state, counts=counts)
        side = 0 if counts[0] > counts[1] else 1
        bonus = self.params.overwhelm_bonus * difference
        return self._next(state, counts=counts, overwhelm_side=side, overwhelm=bonus)

    # Steps 5 and 6: speed groups -------------------------------------------------------

    def _present(self, fate: tuple[str | None, ...]) -> tuple[list[Unit], list[Unit]]:
        first, second = (
            [u for u in side.units if fate[u.index] is None] for side in self.battle.sides
        )
        return first, second

    def _lineup(self, fate: tuple[str | None, ...]) -> tuple[Any, ...]:
        """For each side, the enemies still fighting and the one it strikes without a roll
        (see :meth:`fixed_target`); ``()`` once a side has nobody left (remembered)."""
        lineup = self._lineups.get(fate)
        if lineup is None:
            first, second = self._present(fate)
            lineup = ()
            if first and second:
                lineup = (
                    (second, first),
                    (self.fixed_target(0, second), self.fixed_target(1, first)),
                )
            if len(self._lineups) >= _MAX_REMEMBERED:
                self._lineups.clear()
            self._lineups[fate] = lineup
        return lineup

    def fixed_target(self, side: int, candidates: list[Unit]) -> Unit | None:
        """The enemy every unit of ``side`` strikes without a roll: the first of its
        priority list still fighting, or the only candidate; ``None`` when a die picks."""
        priority = self.battle.sides[side].targeting
        if priority:
            for name in priority:
                for candidate in candidates:
                    if candidate.name == name:
                        return candidate
        if len(candidates) == 1:
            return candidates[0]
        return None

    def _strikes(
        self, state: State, phase: str, stage: int, speed_group: tuple[tuple[Unit, int], ...]
    ) -> tuple[DiceGroup[Any, Any] | None, Any]:
        """The speed group's attacks as one :class:`Exchange`; none when nobody of it is
        fighting, and the phase is over when a side has nobody left."""
        lineup = self._lineup(state.fate)
        if not lineup:  # the phase is over: ranged goes on to melee, a round to the next
            return None, self._at_round(state, state.round)
        enemies, fixed = lineup
        strikes: list[tuple[Option, ...]] = []
        for unit, attacks in speed_group:
            if state.fate[unit.index] is not None:
                continue
            target = fixed[unit.side]
            targets = enemies[unit.side] if target is None else [target]
            options = tuple(self.option(phase, stage, unit, t, state) for t in targets)
            strikes += [options] * attacks
        # A speed group with nobody left to strike is still a step (of one key, no dice):
        # exact odds merge the states of a round only if every path takes as many steps.
        group = Exchange(self.rolls, tuple(strikes), self.bands)
        process = self._weakly

        def then(casualties: Casualties) -> State:
            if not casualties:
                return process._next(state)
            pax, fate = list(state.pax), list(state.fate)
            for index, lost, flees in casualties:
                after = pax[index] - lost
                if after <= 0:
                    pax[index], fate[index] = 0, KILLED
                else:
                    pax[index] = after
                    if flees:
                        fate[index] = FLED
            return process._next(state, pax=tuple(pax), fate=tuple(fate))

        return group, then

    def _ending_step(self, state: State) -> tuple[DiceGroup[Any, Any] | None, Any]:
        """Step 7: with goods to split, the loot die; then the battle is over."""
        done = State(self.done, *state[1:])
        if not self.ending(state)[4]:
            return None, done
        return _LOOT_DIE, lambda _: done

    def ending(self, state: State) -> Ending:
        """The winner, the outcome, each unit's fate, the goods and their value of a battle
        at its end (remembered)."""
        known = self._endings.get(state)
        if known is not None:
            return known
        first, second = self._present(state.fate)
        winner: int | None = None
        if first and second:
            outcome = "withdraw"
        elif first or second:
            outcome, winner = "win", 0 if first else 1
        else:
            outcome = "draw"
        fates = tuple(FOUGHT if fate is None else fate for fate in state.fate)
        goods: tuple[GoodsShare, ...] = ()
        value = _NOTHING
        if winner is not None:
            losers = self.battle.sides[1 - winner].units
            start = losers[0].index
            end = start + len(losers)
            goods = value_of_goods(losers, state.pax[start:end], fates[start:end])
            value = sum((share.value for share in goods), _NOTHING)
        ending: Ending = (winner, outcome, fates, goods, value)
        if len(self._endings) >= _MAX_REMEMBERED:
            self._endings.clear()
        self._endings[State(self.end, *state[1:])] = ending
        self._endings[State(self.done, *state[1:])] = ending
        return ending

    # The log ---------------------------------------------------------------------------

    def _note(
        self, state: State, group: DiceGroup[Any, Any], key: Any, detail: Any, following: State
    ) -> None:
        """The events of a step that drew ``group``, with its faces, for the log."""
        record = self.record
        kind, *what = self.program[state.step]
        if kind == _ASSESS:
            unit: Unit = what[0]
            faces, loyalty_faces = detail
            roll = self.made(
                "morale_assessment",
                unit,
                faces,
                self.bonuses(unit, "morale_assessment", ASSESSMENT, state),
            )
            loyalty = None
            if loyalty_faces is not None:
                loyalty = self.made(
                    "loyalty", unit, loyalty_faces, self.bonuses(unit, "loyalty", ASSESSMENT, state)
                )
            record.note(AssessmentEvent(unit.name, False, roll, loyalty, key))
        elif kind == _STRIKE:
            exchange = cast(Exchange, group)
            self._note_strikes(state, what[0], what[1], exchange, key, detail, following)
        elif kind == _END:
            record.note(split_loot(self.ending(state)[4], self.params, detail))

    def _note_strikes(
        self,
        state: State,
        phase: str,
        stage: int,
        group: Exchange,
        casualties: Casualties,
        struck: tuple[Struck, ...],
        following: State,
    ) -> None:
        speed_group = self.program[state.step][3]
        attackers = [
            unit
            for unit, attacks in speed_group
            if state.fate[unit.index] is None
            for _ in range(attacks)
        ]
        hit_roll, damage_roll = _HIT_AND_DAMAGE[phase]
        names = (hit_roll, "defense", damage_roll, "damage_reduction", "morale")
        units = self.units
        for unit, options, (place, faces) in zip(attackers, group.strikes, struck, strict=True):
            target = units[options[place][0]]
            # The attacker rolls attack and damage, its target the other three.
            made: list[Roll | None] = [None] * 5
            for place_of, (name, rolled) in enumerate(zip(names, faces, strict=False)):
                who = unit if place_of in (0, 2) else target
                made[place_of] = self.made(name, who, rolled, self.bonuses(who, name, stage, state))
            attack, defence, damage, reduction, morale = made
            assert attack is not None
            assert defence is not None
            lost, flees = band_of(self.bands, morale.total) if morale is not None else (0, False)
            target_roll = None
            if len(options) > 1:
                target_roll = (place + 1, tuple(units[option[0]].name for option in options))
            self.record.note(
                AttackEvent(
                    phase,
                    state.round,
                    unit.speed,
                    unit.name,
                    target.name,
                    target_roll,
                    attack,
                    defence,
                    damage,
                    reduction,
                    morale,
                    lost,
                    flees,
                )
            )
        for index, _, _ in casualties:
            before, after = state.pax[index], following.pax[index]
            self.record.note(
                CasualtyEvent(
                    phase,
                    state.round,
                    units[index].name,
                    before - after,
                    after,
                    following.fate[index],
                )
            )


def battle_result(process: BattleProcess, state: State, notes: Sequence[object]) -> BattleResult:
    """The result of a battle played to ``state``, with the events its recorder kept."""
    winner, outcome, fates, goods, value = process.ending(state)
    events = tuple(note for note in notes if not isinstance(note, Loot))
    loot = next((note for note in notes if isinstance(note, Loot)), None)
    return BattleResult(
        events=events,  # type: ignore[arg-type]
        pax=state.pax,
        fates=fates,
        nullified=frozenset(i for i in range(len(state.pax)) if state.nullified >> i & 1),
        counts=state.counts,
        overwhelm_side=state.overwhelm_side,
        overwhelm=state.overwhelm,
        rounds=state.round,
        winner=winner,
        outcome=outcome,
        goods=goods,
        goods_value=value,
        loot=loot,
    )


def play_battle(battle: Battle, dice: Dice) -> BattleResult:
    """Play ``battle`` with ``dice`` from the morale assessment to the loot, keeping the log.

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
    record = KeepingRecorder()
    process = BattleProcess(battle, record)
    return battle_result(process, run(process, dice), record.notes)


def standing_total(battle: Battle, result: BattleResult, unit: Unit, roll: str) -> int:
    """The bonuses ``unit`` has to ``roll`` once step 3 has tallied them (at its starting
    PAX), added up."""
    process = BattleProcess(battle)
    # Units gone by the end of step 3 take their own effects with them.
    index = {unit.name: unit.index for unit in battle.units}
    fate: list[str | None] = [None] * len(battle.units)
    for event in result.events:
        if isinstance(event, AssessmentEvent) and event.fate:
            fate[index[event.unit]] = event.fate
        elif isinstance(event, FleeRollEvent) and event.stage == TOTALS and event.fled:
            fate[index[event.unit]] = FLED
    state = State(
        process.round_start,
        0,
        tuple(u.pax for u in battle.units),
        tuple(fate),
        sum(1 << i for i in result.nullified),
        result.counts,
        result.overwhelm_side,
        result.overwhelm,
    )
    return process.bonuses(unit, roll, TOTALS, state).total
