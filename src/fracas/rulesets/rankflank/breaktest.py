"""The loser's break test, and the flight and pursuit that follow a failed one.

>>> break_test_target(leadership=8, difference=3, steady=False)
5
>>> passes_break_test((1, 1), target=-2), passes_break_test((3, 3), target=5)
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from itertools import product

from fracas.core.dice import D6, Dice, DiceGroup, draw
from fracas.rulesets.rankflank.formation import (
    State,
    charging,
    disrupting_enemy,
    engaged_enemies,
    in_combat,
    leadership,
    rank_bonus,
    ranks_of_width,
    unit_rows,
    unit_strength,
)
from fracas.rulesets.rankflank.result import battle_standard_carried
from fracas.rulesets.rankflank.scenario import Combat, Options, Unit


@dataclass(frozen=True, slots=True)
class BreakTest:
    """One unit's break test. ``faces`` is empty when no roll was needed (Unbreakable)."""

    unit: str
    leadership: int
    difference: int
    steadfast: bool
    stubborn: bool
    unbreakable: bool
    disrupted_by: str | None
    target: int
    faces: tuple[int, ...]
    passed: bool


@dataclass(frozen=True, slots=True)
class PursuitRoll:
    """One winning unit's answer to a fleeing enemy."""

    unit: str
    restrain_faces: tuple[int, ...]
    restrained: bool
    faces: tuple[int, ...]
    distance: int
    caught: bool


@dataclass(frozen=True, slots=True)
class Pursuit:
    """A broken unit's flight and the pursuit of it."""

    unit: str
    faces: tuple[int, ...]
    distance: int
    pursuers: tuple[PursuitRoll, ...]
    caught: bool
    fate: str


def break_test_target(*, leadership: int, difference: int, steady: bool) -> int:
    """The highest 2D6 total that passes: Leadership, less the difference unless steady."""
    return leadership if steady else leadership - difference


def passes_break_test(faces: tuple[int, ...], *, target: int) -> bool:
    """A double 1 always passes; otherwise the total must not exceed ``target``."""
    return faces == (1, 1) or sum(faces) <= target


def is_steadfast(combat: Combat, state: State, unit: Unit) -> bool:
    """Steadfast by the edition's rule; a disrupted unit never is, unless
    ``disrupted_can_be_steadfast`` (the ``eighth`` preset).

    ``unit_strength``: more Unit Strength than all the enemies it fights together, at least
    ``steadfast_unit_strength``, and a rank of ``rank_width`` models. ``ranks``: more ranks
    of ``rank_width`` than any enemy it fights.

    >>> from fracas.rulesets.rankflank.fight import apply_wounds
    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> state = initial_state(combat)
    >>> is_steadfast(combat, state, combat.unit("Spearmen"))  # US 20 against 20
    False
    >>> state, _ = apply_wounds(state, combat.unit("Orcs"), None, 7)
    >>> is_steadfast(combat, state, combat.unit("Spearmen"))  # US 20 against 13
    True
    """
    options = combat.options
    if options.steadfast == "none":
        return False
    disrupted = disrupting_enemy(combat, state, unit) is not None
    if disrupted and not options.disrupted_can_be_steadfast:
        return False
    enemies = engaged_enemies(combat, state, unit)
    mine = ranks_of_width(unit_rows(unit, state[unit.name]), rank_width=options.rank_width)
    if options.steadfast == "ranks":
        theirs = max(
            (
                ranks_of_width(unit_rows(e, state[e.name]), rank_width=options.rank_width)
                for e in enemies
            ),
            default=0,
        )
        return mine > theirs
    strength = unit_strength(unit, state[unit.name])
    against = sum(unit_strength(e, state[e.name]) for e in enemies)
    return strength > against and strength >= options.steadfast_unit_strength and mine >= 1


def roll_dice(dice: Dice, count: int, *, keep: int | None = None) -> tuple[int, ...]:
    """Roll ``count`` D6 and keep the ``keep`` highest (all by default), in rolled order."""
    faces = [dice.roll(D6) for _ in range(count)]
    if keep is None or keep >= count:
        return tuple(faces)
    dropped = sorted(faces)[: count - keep]
    for face in dropped:
        faces.remove(face)
    return tuple(faces)


@dataclass(frozen=True, slots=True)
class LeadershipTest(DiceGroup[bool, tuple[int, ...]]):
    """A Leadership test on 2D6: passed when the total is ``target`` or less, or a double 1.

    >>> dict(LeadershipTest(7).law())[True], dict(LeadershipTest(-5).law())[True]
    (Fraction(7, 12), Fraction(1, 36))
    """

    target: int
    label = "2D6 test"

    def roll(self, dice: Dice) -> tuple[bool, tuple[int, ...]]:
        faces = roll_dice(dice, 2)
        return passes_break_test(faces, target=self.target), faces

    def law(self) -> tuple[tuple[bool, Fraction], ...]:
        return _test_law(self.target)


@cache
def leadership_test(target: int) -> LeadershipTest:
    """The one test object for ``target``: exact odds find its law by identity.

    >>> leadership_test(7) is leadership_test(7)
    True
    """
    return LeadershipTest(target)


@cache
def _test_law(target: int) -> tuple[tuple[bool, Fraction], ...]:
    passing = sum(
        passes_break_test(faces, target=target) for faces in product(range(1, 7), repeat=2)
    )
    return ((True, Fraction(passing, 36)), (False, Fraction(36 - passing, 36)))


@dataclass(frozen=True, slots=True)
class MoveRoll(DiceGroup[int, tuple[int, ...]]):
    """A flee, fall-back or pursuit distance: ``count`` D6 keeping the ``keep`` highest,
    then ``extra`` D6 more added, then ``less`` taken off (see :func:`move_roll` for which
    roll a move makes).

    >>> dict(MoveRoll().law())[7], dict(MoveRoll(3, 2).law())[12]   # 2D6; 3D6 drop lowest
    (Fraction(1, 6), Fraction(2, 27))
    >>> dict(MoveRoll(2, 1).law())[6], dict(MoveRoll(2, 1, 1).law())[12]   # highest of 2D6
    (Fraction(11, 36), Fraction(11, 216))
    >>> dict(MoveRoll(less=1).law())[6]   # 2D6 - 1 (Resolute): a 7 rolled
    Fraction(1, 6)
    """

    count: int = 2
    keep: int = 2
    extra: int = 0
    less: int = 0
    label = "move roll"

    def roll(self, dice: Dice) -> tuple[int, tuple[int, ...]]:
        faces = roll_dice(dice, self.count, keep=self.keep)
        faces += tuple(dice.roll(D6) for _ in range(self.extra))
        return sum(faces) - self.less, faces

    def law(self) -> tuple[tuple[int, Fraction], ...]:
        return _move_law(self)


def move_roll(
    options: Options, swiftstride: bool, *, falling_back: bool = False, resolute: bool = False
) -> MoveRoll:
    """The roll of a move after the break tests: a flight or pursuit is 2D6, a Fall Back in
    Good Order the higher of 2D6 (``fbigo_roll``); Swiftstride rolls a third D6 and drops
    the lowest, or (``swiftstride_roll: add_d6``) adds it. Resolute takes
    ``resolute_penalty`` off a flight or pursuit (off a Fall Back too with
    ``resolute_fall_back``).

    >>> from fracas.rulesets.rankflank.scenario import Options
    >>> move_roll(Options(), True), move_roll(Options.for_edition("oldworld"), True)
    (MoveRoll(count=3, keep=2, extra=0, less=0), MoveRoll(count=2, keep=2, extra=1, less=0))
    >>> move_roll(Options.for_edition("oldworld"), False, falling_back=True, resolute=True)
    MoveRoll(count=2, keep=1, extra=0, less=0)
    >>> move_roll(Options.for_edition("oldworld"), False, resolute=True)
    MoveRoll(count=2, keep=2, extra=0, less=1)
    """
    keep = 1 if falling_back and options.fbigo_roll == "highest_of_2d6" else 2
    less = 0
    if resolute and (options.resolute_fall_back or not falling_back):
        less = options.resolute_penalty
    if not swiftstride:
        return MoveRoll(2, keep, 0, less)
    if options.swiftstride_roll == "add_d6":
        return MoveRoll(2, keep, 1, less)
    return MoveRoll(3, keep, 0, less)


@cache
def _move_law(move: MoveRoll) -> tuple[tuple[int, Fraction], ...]:
    dice = move.count + move.extra
    totals: dict[int, int] = {}
    for faces in product(range(1, 7), repeat=dice):
        rolled, added = faces[: move.count], faces[move.count :]
        total = sum(sorted(rolled)[-move.keep :]) + sum(added) - move.less
        totals[total] = totals.get(total, 0) + 1
    return tuple((total, Fraction(n, 6**dice)) for total, n in sorted(totals.items()))


#: One pursuer's answer: (restrain faces, restrained, move faces, distance).
PursuerFaces = tuple[tuple[int, ...], bool, tuple[int, ...], int]
#: A pursuer's roll of the round as later flights need it: (restrained, distance).
Reach = tuple[bool, int]
#: Which pursuers catch the unit, and the reach of each fresh pursuer that is ``kept``.
ChaseKey = tuple[tuple[bool, ...], tuple[Reach, ...]]


@dataclass(frozen=True, slots=True)
class ChaseRoll(DiceGroup[ChaseKey, tuple[int, tuple[int, ...], tuple[PursuerFaces, ...]]]):
    """A broken unit's flight (or a Fall Back in Good Order) and the pursuit of it.

    ``pursuers`` roll now: rolled in play order, the ``flight``, then each one's restraint
    test (``restrain`` is its Leadership, or ``None`` when it pursues without a test) and
    its move. ``known`` pursuers rolled earlier in the round (once a round, whoever they
    chase): their ``(restrained, distance)`` is given. The key is which pursuers catch the
    unit (those rolling now, then the known ones): a pursuer that is not restrained
    catches it when its move is at least the flight's distance. A pursuer marked in
    ``keep`` chases another unit later in the round, so its roll is part of the key too;
    the flight's own distance never is (nothing after this flight depends on it).

    >>> chase = ChaseRoll(MoveRoll(), ((None, MoveRoll()),))
    >>> dict(chase.law())[((True,), ())]   # 2D6 ≥ 2D6: (1 + P(tie) 146/1296) / 2
    Fraction(721, 1296)
    >>> known = ChaseRoll(MoveRoll(), (), known=((False, 7),))
    >>> dict(known.law())[((True,), ())]   # a flight of 7 or less: 21/36
    Fraction(7, 12)
    """

    flight: MoveRoll
    pursuers: tuple[tuple[int | None, MoveRoll], ...]
    keep: tuple[bool, ...] = ()
    known: tuple[Reach, ...] = ()
    label = "flight and pursuit"

    def _kept(self, index: int) -> bool:
        return index < len(self.keep) and self.keep[index]

    def roll(
        self, dice: Dice
    ) -> tuple[ChaseKey, tuple[int, tuple[int, ...], tuple[PursuerFaces, ...]]]:
        distance, flee_faces = self.flight.roll(dice)
        answers: list[PursuerFaces] = []
        for restrain, move in self.pursuers:
            restrained, restrain_faces = False, tuple[int, ...]()
            if restrain is not None:
                restrained, restrain_faces = LeadershipTest(restrain).roll(dice)
            reach, faces = (0, tuple[int, ...]()) if restrained else move.roll(dice)
            answers.append((restrain_faces, restrained, faces, reach))
        reaches = [(a[1], a[3]) for a in answers] + list(self.known)
        caught = tuple(not restrained and reach >= distance for restrained, reach in reaches)
        kept = tuple((a[1], a[3]) for i, a in enumerate(answers) if self._kept(i))
        return (caught, kept), (distance, flee_faces, tuple(answers))

    def law(self) -> tuple[tuple[ChaseKey, Fraction], ...]:
        return _chase_law(self)


#: One pursuer's possible answers to one flight distance: (caught, kept reach, chance).
_Answer = tuple[bool, tuple[Reach, ...], Fraction]


@cache
def _chase_law(chase: ChaseRoll) -> tuple[tuple[ChaseKey, Fraction], ...]:
    catches: dict[ChaseKey, Fraction] = {}
    for distance, p_distance in _move_law(chase.flight):
        choices: list[list[_Answer]] = []
        for index, (restrain, move) in enumerate(chase.pursuers):
            held = dict(_test_law(restrain))[True] if restrain is not None else Fraction(0)
            moves = _move_law(move)
            if chase._kept(index):
                answers: list[_Answer] = [(False, ((True, 0),), held)] if held else []
                answers += [(d >= distance, ((False, d),), (1 - held) * q) for d, q in moves]
            else:
                reach = (1 - held) * sum((q for d, q in moves if d >= distance), Fraction(0))
                answers = [(True, (), reach), (False, (), 1 - reach)]
            choices.append(answers)
        for restrained, distance_reached in chase.known:
            caught = not restrained and distance_reached >= distance
            choices.append([(caught, (), Fraction(1))])
        for combination in product(*choices):
            chance: Fraction = p_distance
            for _, _, p in combination:
                chance *= p
            if chance:
                hits = tuple(hit for hit, _, _ in combination)
                kept = tuple(r for _, reaches, _ in combination for r in reaches)
                key = (hits, kept)
                catches[key] = catches.get(key, Fraction(0)) + chance
    return tuple(catches.items())


def break_test(combat: Combat, state: State, unit: Unit, difference: int, dice: Dice) -> BreakTest:
    """Test ``unit``'s nerve after losing by ``difference``.

    >>> from fracas.core.dice import ScriptedDice
    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> test = break_test(combat, initial_state(combat), combat.unit("Spearmen"), 3,
    ...                   ScriptedDice([2, 3]))
    >>> test.target, test.passed
    (4, False)
    """
    return take_break_test(plan_break_test(combat, state, unit, difference), dice)


def plan_break_test(combat: Combat, state: State, unit: Unit, difference: int) -> BreakTest:
    """Everything about ``unit``'s break test but the roll: its target and why.

    The plan is a :class:`BreakTest` without faces (``passed`` only for an Unbreakable
    unit); :func:`take_break_test` rolls it. Exact odds keep plans, which depend on the
    state alone, and roll them once per branch.

    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> plan = plan_break_test(combat, initial_state(combat), combat.unit("Spearmen"), 3)
    >>> plan.leadership, plan.target, plan.faces   # Leadership 7 less 3
    (7, 4, ())
    """
    return break_stance(combat, state, unit).plan(difference)


@dataclass(frozen=True, slots=True)
class BreakStance:
    """What a unit's break test takes from the state, whatever the difference it lost by."""

    unit: str
    leadership: int
    steadfast: bool
    stubborn: bool
    unbreakable: bool
    disrupted_by: str | None
    #: Tests on its Leadership unmodified (Steadfast, or Stubborn where it may be).
    steady: bool

    def target(self, difference: int) -> int:
        """The highest 2D6 total that holds after losing by ``difference``."""
        return break_test_target(
            leadership=self.leadership, difference=difference, steady=self.steady
        )

    def plan(self, difference: int) -> BreakTest:
        """The break test after losing by ``difference``, but its roll."""
        return BreakTest(
            self.unit,
            self.leadership,
            difference,
            self.steadfast,
            self.stubborn,
            self.unbreakable,
            self.disrupted_by,
            self.target(difference),
            (),
            self.unbreakable,
        )


def break_stance(combat: Combat, state: State, unit: Unit) -> BreakStance:
    """``unit``'s Leadership, Steadfast, Stubborn, Unbreakable and disruption now.

    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> stance = break_stance(combat, initial_state(combat), combat.unit("Spearmen"))
    >>> stance.leadership, stance.steady, stance.plan(2).target   # 7 less 2
    (7, False, 5)
    """
    disruptor = disrupting_enemy(combat, state, unit)
    unbreakable = unit.has_rule("unbreakable")
    # ``stubborn: never`` leaves the rule unused; with a pass-or-flee test, using it is
    # never worse, so ``best`` uses it as ``always`` does.
    stubborn = unit.has_rule("stubborn") and combat.options.stubborn != "never"
    steadfast = is_steadfast(combat, state, unit)
    # Stubborn means always Steadfast, and (unless the edition says otherwise) a disrupted
    # unit cannot be Steadfast.
    can_be_steady = disruptor is None or combat.options.disrupted_can_be_steadfast
    steady = steadfast or (stubborn and can_be_steady)
    ld = leadership(unit, state[unit.name])
    return BreakStance(unit.name, ld, steadfast, stubborn, unbreakable, disruptor, steady)


def take_break_test(plan: BreakTest, dice: Dice) -> BreakTest:
    """Roll a planned break test (an Unbreakable unit rolls nothing and holds)."""
    if plan.unbreakable:
        return plan
    passed, faces = draw(dice, leadership_test(plan.target))
    return BreakTest(
        plan.unit,
        plan.leadership,
        plan.difference,
        plan.steadfast,
        plan.stubborn,
        False,
        plan.disrupted_by,
        plan.target,
        faces or (),
        passed,
    )


@dataclass(frozen=True, slots=True)
class BreakTests(DiceGroup[tuple[bool, ...], tuple[BreakTest, ...]]):
    """The losers' break tests after losing by ``difference``, taken in order; the key
    says which of them held.

    Compared by ``targets`` alone (``None`` for an Unbreakable unit, which rolls nothing
    and holds), the only thing the law depends on; the stances give the records a roll
    returns.

    >>> stances = (BreakStance("A", 7, False, False, False, None, False),
    ...            BreakStance("B", 8, True, False, True, None, True))
    >>> tests = BreakTests.of(stances, 2)
    >>> tests.targets, dict(tests.law())[(True, True)]   # 2D6 of 7 - 2 or less: 10/36
    ((5, None), Fraction(5, 18))
    """

    targets: tuple[int | None, ...]
    stances: tuple[BreakStance, ...] = field(default=(), compare=False)
    difference: int = field(default=0, compare=False)
    label = "break tests"

    @classmethod
    def of(cls, stances: tuple[BreakStance, ...], difference: int) -> BreakTests:
        """The tests of units in ``stances`` that lost by ``difference``."""
        targets = tuple(None if s.unbreakable else s.target(difference) for s in stances)
        return cls(targets, stances, difference)

    @property
    def units(self) -> tuple[str, ...]:
        """The units that test, in order."""
        return tuple(stance.unit for stance in self.stances)

    def roll(self, dice: Dice) -> tuple[tuple[bool, ...], tuple[BreakTest, ...]]:
        tests = tuple(take_break_test(s.plan(self.difference), dice) for s in self.stances)
        return tuple(test.passed for test in tests), tests

    def law(self) -> tuple[tuple[tuple[bool, ...], Fraction], ...]:
        return _break_tests_law(self.targets)


@cache
def _break_tests_law(
    targets: tuple[int | None, ...],
) -> tuple[tuple[tuple[bool, ...], Fraction], ...]:
    laws = [((True, Fraction(1)),) if target is None else _test_law(target) for target in targets]
    law: dict[tuple[bool, ...], Fraction] = {}
    for outcome in product(*laws):
        held = tuple(passed for passed, _ in outcome)
        chance = Fraction(1)
        for _, p in outcome:
            chance *= p
        if chance:
            law[held] = law.get(held, Fraction(0)) + chance
    return tuple(law.items())


#: The three outcomes of the oldworld preset's break test, best for the tester last.
OUTCOMES = ("break", "fall_back", "give_ground")
#: How the report names each outcome.
OUTCOME_NAMES = {
    "break": "Break",
    "fall_back": "Fall Back in Good Order",
    "give_ground": "Give Ground",
}


def three_outcomes(
    faces: tuple[int, ...],
    *,
    leadership: int,
    difference: int,
    overwhelmed: bool,
    shieldwall: bool = False,
) -> str:
    """The outcome of a ``break_test: three_outcomes`` roll (../shared/spec/oldworld.md §3).

    A natural total above Leadership Breaks; at most Leadership but above it once the
    difference is added, Falls Back in Good Order (a Break when ``overwhelmed``; a Give
    Ground with ``shieldwall``, which the unit then uses); otherwise, and on any double 1,
    the unit Gives Ground.

    >>> [three_outcomes(f, leadership=7, difference=1, overwhelmed=False)
    ...  for f in ((4, 4), (3, 4), (3, 3), (1, 1))]
    ['break', 'fall_back', 'give_ground', 'give_ground']
    >>> three_outcomes((3, 4), leadership=7, difference=1, overwhelmed=True, shieldwall=True)
    'give_ground'
    """
    total = sum(faces)
    if faces == (1, 1):
        return "give_ground"
    if total > leadership:
        return "break"
    if total + difference > leadership:
        if shieldwall:
            return "give_ground"
        return "break" if overwhelmed else "fall_back"
    return "give_ground"


@cache
def outcome_counts(
    leadership: int, difference: int, overwhelmed: bool, shieldwall: bool = False
) -> tuple[int, int, int]:
    """How many of the 36 rolls of 2D6 give each outcome, in :data:`OUTCOMES` order.

    >>> outcome_counts(7, 1, False)   # 8-12 Break, 7 Falls Back, 2-6 Gives Ground
    (15, 6, 15)
    """
    counts = dict.fromkeys(OUTCOMES, 0)
    for faces in product(range(1, 7), repeat=2):
        counts[
            three_outcomes(
                faces,
                leadership=leadership,
                difference=difference,
                overwhelmed=overwhelmed,
                shieldwall=shieldwall,
            )
        ] += 1
    return counts["break"], counts["fall_back"], counts["give_ground"]


@dataclass(frozen=True, slots=True)
class OutcomeTest:
    """One unit's break test of three outcomes (``break_test: three_outcomes``).

    ``counts`` are the rolls of 36 that would give each outcome (Break, Fall Back, Give
    Ground) had it rolled; ``faces`` is empty when it rolled nothing: Unbreakable (it Gives
    Ground) or Stubborn used (it Falls Back in Good Order). ``stubborn_used`` says which
    way the ``stubborn`` parameter went.
    """

    unit: str
    leadership: int
    difference: int
    overwhelmed: bool
    stubborn: bool
    stubborn_used: bool
    unbreakable: bool
    disrupted_by: str | None
    counts: tuple[int, int, int]
    faces: tuple[int, ...]
    outcome: str
    #: Shieldwall: a rolled Fall Back becomes a Give Ground.
    shieldwall: bool = False
    #: What changed the unit's Leadership for this test ("warband +1", "terror -1").
    leadership_notes: tuple[str, ...] = ()
    #: The outcomes its Battle Standard re-rolls (empty: none in range, or none chosen).
    rerolled: tuple[str, ...] = ()
    #: The first roll, when it was re-rolled (``faces`` is the second, which stands).
    first_faces: tuple[int, ...] = ()


#: A roll's law as a tuple: (leadership, difference, overwhelmed, shieldwall, re-rolled).
RollLaw = tuple[int, int, bool, bool, tuple[str, ...]]


def rerolled_outcomes(counts: tuple[int, int, int], choice: str) -> tuple[str, ...]:
    """The outcomes a Battle Standard re-roll takes, by ``battle_standard_reroll``.

    A Break is always worth re-rolling (nothing is worse). ``best`` also re-rolls a Fall
    Back when a new roll Gives Ground more often than it Breaks: the same measure as
    Stubborn's ``best``, Falling Back being the middle outcome.

    >>> rerolled_outcomes((15, 6, 15), "break"), rerolled_outcomes((6, 4, 26), "best")
    (('break',), ('break', 'fall_back'))
    >>> rerolled_outcomes((21, 5, 10), "best"), rerolled_outcomes((21, 5, 10), "never")
    (('break',), ())
    """
    if choice == "never":
        return ()
    if choice == "best" and counts[2] > counts[0]:
        return ("break", "fall_back")
    return ("break",)


@dataclass(frozen=True, slots=True)
class OutcomeStance:
    """What a unit's three-outcome test takes from the state, whatever the difference."""

    unit: str
    leadership: int
    stubborn: bool
    unbreakable: bool
    overwhelmed: bool
    disrupted_by: str | None
    shieldwall: bool = False
    leadership_notes: tuple[str, ...] = ()
    #: A Battle Standard in range lets it re-roll the test.
    battle_standard: bool = False

    def plan(
        self, difference: int, use_stubborn: str, battle_standard_reroll: str = "break"
    ) -> OutcomeTest:
        """The test after losing by ``difference``, but its roll; ``outcome`` is set only
        when no roll is needed.

        ``use_stubborn`` (the ``stubborn`` parameter): ``always`` Falls Back in Good Order
        without a roll, ``never`` tests, ``best`` Falls Back only when the test would Break
        the unit more often than it Gives Ground (Falling Back is the middle outcome, so it
        is worth more exactly then).

        >>> stance = OutcomeStance("Guard", 9, True, False, False, None)
        >>> stance.plan(1, "best").stubborn_used   # the test: Break 6/36, Give Ground 26/36
        False
        >>> stance.plan(6, "best").stubborn_used   # Break 6/36, Give Ground 1/36 (double 1)
        True
        """
        counts = outcome_counts(self.leadership, difference, self.overwhelmed, self.shieldwall)
        used = (
            self.stubborn
            and not self.unbreakable
            and (use_stubborn == "always" or (use_stubborn == "best" and counts[0] > counts[2]))
        )
        outcome = "give_ground" if self.unbreakable else "fall_back" if used else ""
        rerolled = (
            rerolled_outcomes(counts, battle_standard_reroll)
            if self.battle_standard and not outcome
            else ()
        )
        return OutcomeTest(
            self.unit,
            self.leadership,
            difference,
            self.overwhelmed,
            self.stubborn,
            used,
            self.unbreakable,
            self.disrupted_by,
            counts,
            (),
            outcome,
            self.shieldwall,
            self.leadership_notes,
            rerolled,
        )


def outcome_stance(
    combat: Combat, state: State, unit: Unit, round_number: int = 1
) -> OutcomeStance:
    """``unit``'s Leadership, Stubborn (its own: characters do not lend it), Unbreakable,
    disruption (shown) and whether the winners overwhelm it: their Unit Strength together
    above ``overwhelmed_ratio`` times its own.

    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load({**EXAMPLE, "parameters": {"edition": "oldworld"}}
    ...                                  ).combat
    >>> outcome_stance(combat, initial_state(combat), combat.unit("Spearmen")).overwhelmed
    False
    """
    options = combat.options
    status = state[unit.name]
    winners = combat.side_units(combat.enemy_of(unit.side))
    fighting = [u for u in winners if in_combat(u, state[u.name])]
    theirs = sum(unit_strength(u, state[u.name]) for u in fighting)
    overwhelmed = options.overwhelmed and theirs > options.overwhelmed_ratio * unit_strength(
        unit, status
    )
    disrupted_by = disrupting_enemy(combat, state, unit)
    target = leadership(unit, status)
    notes: list[str] = []
    if "warband" in unit.rules:
        # The rank bonus it counts now: none while Disrupted.
        bonus = 0 if disrupted_by else rank_bonus(options, unit, status)
        if bonus:
            raised = min(10, target + bonus)
            notes.append(f"warband +{raised - target}")
            target = raised
    general = unit.general_leadership
    if general is not None and general > target:
        notes.append(f"general's Ld {general}")
        target = general
    terror = [u.name for u in fighting if u.has_rule("terror")]
    if terror and options.terror_leadership and not unit.has_rule("terror"):
        target -= options.terror_leadership
        notes.append(f"terror -{options.terror_leadership} ({terror[0]})")
    return OutcomeStance(
        unit.name,
        target,
        "stubborn" in unit.rules and options.stubborn != "never",
        unit.has_rule("unbreakable"),
        overwhelmed,
        disrupted_by,
        shieldwall=_shieldwall(combat, state, unit, round_number),
        leadership_notes=tuple(notes),
        battle_standard=(unit.battle_standard_in_range or battle_standard_carried(unit, status))
        and not unit.has_rule("undisciplined"),
    )


def _shieldwall(combat: Combat, state: State, unit: Unit, round_number: int) -> bool:
    """Shieldwall holds in a round the unit was charged, its models carrying shields."""
    charged = any(
        charging(combat.unit(c.enemy), state[c.enemy], round_number)
        for c in combat.contacts[unit.name]
    )
    return "shieldwall" in unit.rules and unit.kit.shield and charged and unit.close_order


@dataclass(frozen=True, slots=True)
class OutcomeTests(DiceGroup[tuple[str, ...], tuple[OutcomeTest, ...]]):
    """The losers' three-outcome tests, taken in order; the key is each one's outcome.

    Compared by ``laws`` alone: per unit, its fixed outcome (Unbreakable, Stubborn used)
    or the ``(leadership, difference, overwhelmed)`` of its roll.

    >>> tests = OutcomeTests.of((OutcomeStance("Orcs", 7, False, False, False, None),), 1,
    ...                         "best")
    >>> dict(tests.law())[("fall_back",)]   # a natural 7 of Ld 7, lost by 1: 6/36
    Fraction(1, 6)
    """

    laws: tuple[str | RollLaw, ...]
    plans: tuple[OutcomeTest, ...] = field(default=(), compare=False)
    label = "break tests"

    @classmethod
    def of(
        cls,
        stances: tuple[OutcomeStance, ...],
        difference: int,
        use_stubborn: str,
        battle_standard_reroll: str = "break",
    ) -> OutcomeTests:
        """The tests of units in ``stances`` that lost by ``difference``."""
        plans = tuple(s.plan(difference, use_stubborn, battle_standard_reroll) for s in stances)
        laws = tuple(
            plan.outcome
            or (
                plan.leadership,
                plan.difference,
                plan.overwhelmed,
                plan.shieldwall,
                plan.rerolled,
            )
            for plan in plans
        )
        return cls(laws, plans)

    @property
    def units(self) -> tuple[str, ...]:
        """The units that test, in order."""
        return tuple(plan.unit for plan in self.plans)

    def roll(self, dice: Dice) -> tuple[tuple[str, ...], tuple[OutcomeTest, ...]]:
        tests = tuple(take_outcome_test(plan, dice) for plan in self.plans)
        return tuple(test.outcome for test in tests), tests

    def law(self) -> tuple[tuple[tuple[str, ...], Fraction], ...]:
        return _outcome_tests_law(self.laws)


def take_outcome_test(plan: OutcomeTest, dice: Dice) -> OutcomeTest:
    """Roll a planned three-outcome test (one with its outcome set rolls nothing); an
    outcome the Battle Standard re-rolls is rolled again, and the second roll stands."""
    if plan.outcome:
        return plan

    def roll() -> tuple[tuple[int, ...], str]:
        faces = roll_dice(dice, 2)
        outcome = three_outcomes(
            faces,
            leadership=plan.leadership,
            difference=plan.difference,
            overwhelmed=plan.overwhelmed,
            shieldwall=plan.shieldwall,
        )
        return faces, outcome

    faces, outcome = roll()
    if outcome not in plan.rerolled:
        return replace(plan, faces=faces, outcome=outcome)
    first = faces
    faces, outcome = roll()
    return replace(plan, faces=faces, outcome=outcome, first_faces=first)


@cache
def _outcome_tests_law(
    laws: tuple[str | RollLaw, ...],
) -> tuple[tuple[tuple[str, ...], Fraction], ...]:
    each: list[tuple[tuple[str, Fraction], ...]] = []
    for law in laws:
        if isinstance(law, str):
            each.append(((law, Fraction(1)),))
            continue
        *rolled, rerolled = law
        counts = outcome_counts(*rolled)
        once = {o: Fraction(n, 36) for o, n in zip(OUTCOMES, counts, strict=True)}
        # A re-rolled outcome's chance goes to a second roll, which stands.
        again = sum((once[o] for o in rerolled), Fraction(0))
        chances = {o: (0 if o in rerolled else p) + again * p for o, p in once.items()}
        each.append(tuple((o, p) for o, p in chances.items() if p))
    joint: dict[tuple[str, ...], Fraction] = {}
    for combination in product(*each):
        key = tuple(outcome for outcome, _ in combination)
        chance = Fraction(1)
        for _, p in combination:
            chance *= p
        joint[key] = joint.get(key, Fraction(0)) + chance
    return tuple(joint.items())
