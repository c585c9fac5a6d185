"""Exact odds of a rank-and-flank combat by dynamic programming over merged states.

Rolling every die of a 25-attack round one path at a time is hopeless (6²⁵ paths for the
hit rolls alone). The ruleset freezes the numbers of each group of blows into a
:class:`~fracas.rulesets.rankflank.strikes.StrikeRecord` before any die is rolled, and the
unsaved wounds of one record follow a binomial law. So the solver keeps a distribution
over *combat states* (what is left of every unit, the wounds credited so far) and, for
each record, spreads every state over the binomial's outcomes, merging equal states.
The combat result, break tests and pursuits are then played on each distinct state, with
the 2D6 rolls replaced by their exact distributions.

The ruleset's own pieces do the rules (strike records, wound allocation, the combat
result, the break-test target); this module only replaces dice by distributions. Its
answers are checked against enumeration of every path and against seeded play.

>>> from fracas.rulesets.rankflank import RankflankRuleset
>>> from fracas.rulesets.rankflank.ruleset import RankflankScenario
>>> from fracas.rulesets.rankflank.samples import two_blocks
>>> answer = solve(RankflankRuleset(), RankflankScenario(two_blocks(max_rounds=1), "t"),
...                300_000, True)
>>> sum(answer.outcomes.values())
Fraction(1, 1)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any, cast

import numpy as np

from fracas.analysis.odds import ExactAnswer, Outcome, Probability
from fracas.core.dice import ScriptedDice
from fracas.core.distribution import EnumerationBudgetError
from fracas.rulesets.base import Ruleset
from fracas.rulesets.rankflank.breaktest import break_test
from fracas.rulesets.rankflank.formation import (
    UnitStatus,
    characters_alive,
    engaged_enemies,
    in_combat,
    initial_state,
    leadership,
    models_alive,
    unit_strength,
)
from fracas.rulesets.rankflank.play import CombatOutcome, apply_wounds, fighting_pairs
from fracas.rulesets.rankflank.result import (
    CombatResult,
    OverkillCredit,
    WoundCredit,
    combat_result,
)
from fracas.rulesets.rankflank.scenario import Combat, Unit
from fracas.rulesets.rankflank.strikes import (
    challenge_opponent,
    initiative_steps,
    strike_records,
    unsaved_wound_chance,
)

StateKey = tuple[UnitStatus, ...]
CreditKey = tuple[tuple[tuple[str, str, str], int], ...]


# ── probabilities: exact fractions or floats ───────────────────────────────────────────


def binomial_pmf(n: int, p: Fraction, *, fractions: bool) -> list[Probability]:
    """P(k successes in n trials) for k = 0..n, exact or in floats.

    Floats go through logarithms, so 10,000 trials neither overflow nor underflow into
    nonsense; terms below 1e-300 are dropped as zero.

    >>> binomial_pmf(2, Fraction(1, 3), fractions=True)
    [Fraction(4, 9), Fraction(4, 9), Fraction(1, 9)]
    """
    terms: list[Probability] = []
    if fractions:
        q = 1 - p
        terms.extend(math.comb(n, k) * p**k * q ** (n - k) for k in range(n + 1))
        return terms
    if p == 0 or p == 1:
        terms.extend(0.0 for _ in range(n + 1))
        terms[0 if p == 0 else n] = 1.0
        return terms
    log_p, log_q = math.log(p), math.log1p(-float(p))
    base = math.lgamma(n + 1)
    for k in range(n + 1):
        log_term = base - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * log_p
        log_term += (n - k) * log_q
        terms.append(math.exp(log_term) if log_term > -690 else 0.0)
    return terms


def _two_d6_totals() -> dict[tuple[int, int], int]:
    return {(a, b): a + b for a in range(1, 7) for b in range(1, 7)}


@cache
def pass_chance(target: int) -> Fraction:
    """P(a 2D6 test passes): total ≤ ``target``, and a double 1 always passes.

    >>> pass_chance(7), pass_chance(-5)
    (Fraction(7, 12), Fraction(1, 36))
    """
    passing = sum(
        1 for faces, total in _two_d6_totals().items() if total <= target or faces == (1, 1)
    )
    return Fraction(passing, 36)


@cache
def move_distribution(swiftstride: bool) -> dict[int, Fraction]:
    """Flee or pursuit distance: 2D6, or 3D6 keeping the two highest with Swiftstride."""
    counts: dict[int, int] = {}
    dice = 3 if swiftstride else 2
    for faces in product(range(1, 7), repeat=dice):
        total = sum(sorted(faces)[-2:])
        counts[total] = counts.get(total, 0) + 1
    total_count = 6**dice
    return {d: Fraction(c, total_count) for d, c in sorted(counts.items())}


# ── the solver ─────────────────────────────────────────────────────────────────────────


#: What one merged-state step costs against the work budget, in dice decisions: a step
#: moves whole unit states and takes about as long as this many decisions of plain
#: enumeration, so one budget bounds the time of either method alike.
STEP_COST = 25


class _Work:
    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.steps = 0

    def spend(self) -> None:
        self.steps += 1
        if self.steps * STEP_COST > self.budget:
            raise EnumerationBudgetError(
                f"more than {self.budget // STEP_COST:,} merged-state steps, at {STEP_COST} each"
            )


@dataclass(frozen=True)
class _History:
    """What the summary needs from the rounds already fought."""

    first: tuple[Any, ...] | None
    broken: frozenset[str]
    caught: frozenset[str]
    rounds: int


@dataclass(frozen=True, slots=True)
class _StubTest:
    unit: str
    passed: bool


@dataclass(frozen=True, slots=True)
class _StubPursuit:
    unit: str
    caught: bool


@dataclass(frozen=True, slots=True)
class _StubRound:
    result: CombatResult | None
    break_tests: tuple[_StubTest, ...]
    pursuits: tuple[_StubPursuit, ...]


class _Solver:
    def __init__(self, combat: Combat, work: _Work, fractions: bool) -> None:
        self.combat = combat
        self.work = work
        self.fractions = fractions
        self.names = tuple(unit.name for unit in combat.units)
        self.results: dict[tuple[Any, ...], CombatResult] = {}
        self.catchers: dict[tuple[str, Any], dict[tuple[str, ...], Fraction]] = {}

    def p(self, value: Fraction) -> Probability:
        return value if self.fractions else float(value)

    def zero(self) -> Probability:
        return Fraction(0) if self.fractions else 0.0

    def key(self, state: Mapping[str, UnitStatus]) -> StateKey:
        return tuple(state[name] for name in self.names)

    def state(self, key: StateKey) -> dict[str, UnitStatus]:
        return dict(zip(self.names, key, strict=True))

    # Strikes ------------------------------------------------------------------------

    def strike_phase(
        self, start: StateKey, number: int
    ) -> dict[tuple[StateKey, CreditKey, tuple[OverkillCredit, ...]], Probability]:
        combat = self.combat
        state = self.state(start)
        credits: dict[tuple[str, str, str], int] = {}
        if number == 1:
            for other in combat.other_wounds:
                state, taken = apply_wounds(state, combat.unit(other.target), None, other.wounds)
                credit = (other.side, other.source, other.target)
                credits[credit] = credits.get(credit, 0) + taken
        duelists: dict[str, tuple[str, int]] = {}
        if combat.challenge is not None:
            for name in combat.challenge:
                opponent = challenge_opponent(combat, state, name)
                if opponent is not None:
                    unit, character = opponent
                    index = unit.characters.index(character)
                    duelists[name] = (character.name, state[unit.name].character_wounds[index])
        scored0 = tuple(0 for _ in duelists)
        duel_names = tuple(duelists)
        Layer = dict[tuple[StateKey, CreditKey, tuple[int, ...]], Probability]
        layer: Layer = {(self.key(state), _credit_key(credits), scored0): self.p(Fraction(1))}
        for initiative in initiative_steps(combat, state, number):
            merged: Layer = {}
            for (key, credit_key, scored), probability in layer.items():
                here = self.state(key)
                records = strike_records(combat, here, number, initiative)
                branches: Layer = {(key, credit_key, scored): probability}
                for record in records:
                    pmf = binomial_pmf(
                        record.attacks, unsaved_wound_chance(record), fractions=self.fractions
                    )
                    target = combat.unit(record.target_unit)
                    spread: Layer = {}
                    for (b_key, b_credits, b_scored), b_p in branches.items():
                        for unsaved, q in enumerate(pmf):
                            if not q:
                                continue
                            self.work.spend()
                            after, taken = apply_wounds(
                                self.state(b_key), target, record.target_character, unsaved
                            )
                            new_credits = dict(b_credits)
                            credit = (record.side, record.striker, target.name)
                            new_credits[credit] = new_credits.get(credit, 0) + taken
                            new_scored = b_scored
                            if (
                                record.striker in duelists
                                and record.target_character == duelists[record.striker][0]
                            ):
                                index = duel_names.index(record.striker)
                                new_scored = (
                                    *b_scored[:index],
                                    b_scored[index] + unsaved,
                                    *b_scored[index + 1 :],
                                )
                            entry = (self.key(after), _credit_key(new_credits), new_scored)
                            spread[entry] = spread.get(entry, self.zero()) + b_p * q
                    branches = spread
                for entry, q in branches.items():
                    merged[entry] = merged.get(entry, self.zero()) + q
            layer = merged
        finished: dict[tuple[StateKey, CreditKey, tuple[OverkillCredit, ...]], Probability] = {}
        for (key, credit_key, scored), probability in layer.items():
            overkill = self.overkill(
                self.state(key), duelists, dict(zip(duel_names, scored, strict=True))
            )
            final = (key, credit_key, overkill)
            finished[final] = finished.get(final, self.zero()) + probability
        return finished

    def overkill(
        self,
        state: dict[str, UnitStatus],
        duelists: dict[str, tuple[str, int]],
        scored: dict[str, int],
    ) -> tuple[OverkillCredit, ...]:
        combat = self.combat
        credits: list[OverkillCredit] = []
        for name, (rival, wounds_left) in duelists.items():
            winner_unit = combat.character_owner(name)
            loser_unit = combat.character_owner(rival)
            assert winner_unit is not None
            assert loser_unit is not None
            alive = {c.name for c in characters_alive(winner_unit, state[winner_unit.name])}
            standing = {c.name for c in characters_alive(loser_unit, state[loser_unit.name])}
            if name in alive and rival not in standing and scored[name] > wounds_left:
                credits.append(OverkillCredit(winner_unit.side, name, scored[name] - wounds_left))
        return tuple(credits)

    # Break tests and pursuit -------------------------------------------------------

    def aftermath(
        self, after: dict[str, UnitStatus], result: CombatResult
    ) -> dict[tuple[StateKey, frozenset[str], frozenset[str]], Probability]:
        combat = self.combat
        empty: frozenset[str] = frozenset()
        if result.winner is None or result.wiped_out:
            return {(self.key(after), empty, empty): self.p(Fraction(1))}
        loser = combat.enemy_of(result.winner)
        testers: list[tuple[str, Fraction]] = []
        for unit in combat.side_units(loser):
            if not in_combat(unit, after[unit.name]):
                continue
            # The ruleset computes the target (Leadership, steadfast, stubborn…); a scripted
            # roll only lets it finish, and the 2D6 odds replace that roll.
            test = break_test(combat, after, unit, result.difference, ScriptedDice([6, 6]))
            passing = Fraction(1) if test.unbreakable else pass_chance(test.target)
            testers.append((unit.name, passing))
        outcomes: dict[tuple[StateKey, frozenset[str], frozenset[str]], Probability] = {}
        for passes in product((True, False), repeat=len(testers)):
            chance = Fraction(1)
            for (_, passing), passed in zip(testers, passes, strict=True):
                chance *= passing if passed else 1 - passing
            if not chance:
                continue
            broken = [name for (name, _), passed in zip(testers, passes, strict=True) if not passed]
            current = dict(after)
            for name in broken:
                current[name] = replace(current[name], fled=True)
            states: dict[tuple[StateKey, frozenset[str]], Fraction] = {
                (self.key(current), empty): Fraction(1)
            }
            for name in broken:
                states = self.pursue_all(states, combat.unit(name), result.winner)
            for (key, caught), q in states.items():
                entry = (key, frozenset(broken), caught)
                outcomes[entry] = outcomes.get(entry, self.zero()) + self.p(chance * q)
        return outcomes

    def pursue_all(
        self, states: dict[tuple[StateKey, frozenset[str]], Fraction], fleeing: Unit, winner: str
    ) -> dict[tuple[StateKey, frozenset[str]], Fraction]:
        spread: dict[tuple[StateKey, frozenset[str]], Fraction] = {}
        for (key, caught), probability in states.items():
            for (new_key, was_caught), q in self.pursue(self.state(key), fleeing, winner).items():
                entry = (new_key, caught | {fleeing.name} if was_caught else caught)
                spread[entry] = spread.get(entry, Fraction(0)) + probability * q
        return spread

    def pursue(
        self, state: dict[str, UnitStatus], fleeing: Unit, winner: str
    ) -> dict[tuple[StateKey, bool], Fraction]:
        combat = self.combat
        options = combat.options
        pursuers: list[tuple[Unit, Fraction, dict[int, Fraction]]] = []
        for contact in combat.contacts[fleeing.name]:
            pursuer = combat.unit(contact.enemy)
            if pursuer.side != winner or not in_combat(pursuer, state[pursuer.name]):
                continue
            if engaged_enemies(combat, state, pursuer):
                continue
            restrains = Fraction(0)
            if pursuer.restrain:
                restrains = pass_chance(leadership(pursuer, state[pursuer.name]))
            moves = move_distribution("swiftstride" in pursuer.rules)
            pursuers.append((pursuer, restrains, moves))
        signature = tuple((p.name, restrains) for p, restrains, _ in pursuers)
        by_catchers = self.catchers.get((fleeing.name, signature))
        if by_catchers is None:
            by_catchers = _catchers(fleeing, pursuers)
            self.catchers[(fleeing.name, signature)] = by_catchers
        outcomes: dict[tuple[StateKey, bool], Fraction] = {}
        for catchers, chance in by_catchers.items():
            self.work.spend()
            after = dict(state)
            if catchers and options.caught == "destroyed":
                after[fleeing.name] = replace(
                    after[fleeing.name],
                    rank_and_file_wounds=0,
                    character_wounds=tuple(0 for _ in fleeing.characters),
                )
            elif catchers:
                strength = sum(unit_strength(combat.unit(n), state[n]) for n in catchers)
                remaining = options.caught_wounds_per_unit_strength * strength
                while remaining and models_alive(fleeing, after[fleeing.name]):
                    after, taken = apply_wounds(after, fleeing, None, remaining)
                    remaining -= taken
            entry = (self.key(after), bool(catchers))
            outcomes[entry] = outcomes.get(entry, Fraction(0)) + chance
        return outcomes

    # Rounds ------------------------------------------------------------------------

    def play(self) -> dict[tuple[StateKey, _History], Probability]:
        combat = self.combat
        start = self.key(initial_state(combat))
        history = _History(None, frozenset(), frozenset(), 0)
        frontier: dict[tuple[StateKey, _History], Probability] = {
            (start, history): self.p(Fraction(1))
        }
        done: dict[tuple[StateKey, _History], Probability] = {}
        for number in range(1, combat.options.max_rounds + 1):
            following: dict[tuple[StateKey, _History], Probability] = {}
            phases: dict[StateKey, Any] = {}
            for (key, history), probability in frontier.items():
                if not fighting_pairs(combat, self.state(key)):
                    done[(key, history)] = done.get((key, history), self.zero()) + probability
                    continue
                if key not in phases:
                    phases[key] = self.strike_phase(key, number)
                for (after_key, credit_key, overkill), q in phases[key].items():
                    self.work.spend()
                    after = self.state(after_key)
                    result = combat_result(
                        combat,
                        after,
                        _credits(credit_key),
                        round_number=number,
                        overkill=overkill,
                    )
                    first = history.first
                    if first is None:
                        first = _result_key(result)
                        self.results.setdefault(first, result)
                    for (end_key, broken, caught), r in self.aftermath(after, result).items():
                        entry = (
                            end_key,
                            _History(
                                first, history.broken | broken, history.caught | caught, number
                            ),
                        )
                        following[entry] = following.get(entry, self.zero()) + probability * q * r
            frontier = following
        for entry, probability in frontier.items():
            done[entry] = done.get(entry, self.zero()) + probability
        return done


def _catchers(
    fleeing: Unit, pursuers: list[tuple[Unit, Fraction, dict[int, Fraction]]]
) -> dict[tuple[str, ...], Fraction]:
    """P(exactly these pursuers catch the fleeing unit), over flee and pursuit rolls."""
    flee = move_distribution("swiftstride" in fleeing.rules)
    by_catchers: dict[tuple[str, ...], Fraction] = {}
    for distance, p_distance in flee.items():
        chances = []
        for _, restrains, moves in pursuers:
            reach = sum((q for d, q in moves.items() if d >= distance), Fraction(0))
            chances.append((1 - restrains) * reach)
        for catches in product((True, False), repeat=len(pursuers)):
            chance = p_distance
            for hit, c in zip(catches, chances, strict=True):
                chance *= c if hit else 1 - c
            if chance:
                names = tuple(
                    p.name for (p, _, _), hit in zip(pursuers, catches, strict=True) if hit
                )
                by_catchers[names] = by_catchers.get(names, Fraction(0)) + chance
    return by_catchers


def _credit_key(credits: Mapping[tuple[str, str, str], int]) -> CreditKey:
    return tuple(sorted(credits.items()))


def _credits(key: CreditKey) -> list[WoundCredit]:
    return [WoundCredit(side, source, target, wounds) for (side, source, target), wounds in key]


def _result_key(result: CombatResult) -> tuple[Any, ...]:
    return (
        result.winner,
        tuple(sorted((side, int(score)) for side, score in result.scores.items())),
        result.difference,
        result.wiped_out,
    )


def solve(
    ruleset: Ruleset[Any, Any, Any], scenario: Any, budget: int, fractions: bool
) -> ExactAnswer:
    """Exact distribution of ``ruleset.summarize`` over every way the combat can go."""
    combat: Combat = scenario.combat
    work = _Work(budget)
    solver = _Solver(combat, work, fractions)
    finals = solver.play()
    initial = initial_state(combat)
    outcomes: dict[Outcome, Probability] = {}
    order: tuple[str, ...] = ()
    for (key, history), probability in finals.items():
        outcome_stub = _outcome(solver, key, history, initial)
        summary = ruleset.summarize(scenario, outcome_stub)
        if not order:
            order = tuple(summary)
        outcome = tuple(summary.items())
        outcomes[outcome] = outcomes.get(outcome, solver.zero()) + probability
    return ExactAnswer(
        outcomes, work.steps, "merged-state steps", "rank-and-flank state solver", order
    )


def _outcome(
    solver: _Solver, key: StateKey, history: _History, initial: Mapping[str, UnitStatus]
) -> CombatOutcome:
    """A combat outcome holding just what ``summarize`` reads (results, breaks, captures)."""
    rounds: list[_StubRound] = []
    for number in range(1, history.rounds + 1):
        first = number == 1
        result = solver.results[history.first] if first and history.first else None
        tests = tuple(_StubTest(name, False) for name in sorted(history.broken)) if first else ()
        pursuits = (
            tuple(_StubPursuit(name, True) for name in sorted(history.caught)) if first else ()
        )
        rounds.append(_StubRound(result, tests, pursuits))
    return CombatOutcome(cast(Any, tuple(rounds)), initial, solver.state(key))


def wound_distribution(
    attacks: int, chance: Fraction, *, fractions: bool = False
) -> list[Probability]:
    """Unsaved wounds of ``attacks`` blows that each wound with ``chance`` (a binomial)."""
    return binomial_pmf(attacks, chance, fractions=fractions)


# ── the round-and-break question, vectorised ───────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class RoundQuestion:
    """One round between two sides with fixed bonuses, blows struck simultaneously.

    Each side makes ``attacks`` blows that each become an unsaved wound with ``chance``
    (see :func:`~fracas.rulesets.rankflank.strikes.unsaved_wound_chance`), adds its static
    combat-result ``bonus`` (charge, ranks, standards…), and tests on ``leadership`` if it
    loses: 2D6 ≤ leadership − difference, a double 1 always passing.
    """

    attacks: tuple[int, int]
    chance: tuple[Fraction, Fraction]
    bonus: tuple[int, int]
    leadership: tuple[int, int]


@dataclass(frozen=True, slots=True)
class RoundAnswer:
    """P(first side wins), P(draw), P(second wins), P(each side breaks), and the difference.

    ``difference`` maps first-side score minus second-side score to its probability.
    """

    first_wins: float
    draw: float
    second_wins: float
    breaks: tuple[float, float]
    difference: Mapping[int, float]


def round_and_break(question: RoundQuestion) -> RoundAnswer:
    """Answer a :class:`RoundQuestion` with array arithmetic (floats).

    The difference of two binomials is one convolution; the break chance of every
    difference is one lookup into the 36 outcomes of 2D6.

    >>> q = RoundQuestion((1, 1), (Fraction(1, 2), Fraction(1, 2)), (0, 0), (7, 7))
    >>> answer = round_and_break(q)
    >>> answer.first_wins, answer.draw   # wound vs no wound: 1/4; both or neither: 1/2
    (0.25, 0.5)
    >>> round(answer.breaks[1], 6)   # loses by 1 → 2D6 ≤ 6 passes (15/36): fails 21/36 × 1/4
    0.145833
    """
    first = np.array(binomial_pmf(question.attacks[0], question.chance[0], fractions=False))
    second = np.array(binomial_pmf(question.attacks[1], question.chance[1], fractions=False))
    # wounds₁ − wounds₂ runs from −attacks₂ to attacks₁; the reversed array is −wounds₂.
    spread = np.convolve(first, second[::-1])
    offset = question.bonus[0] - question.bonus[1] - question.attacks[1]
    differences = np.arange(spread.size) + offset
    wins = float(spread[differences > 0].sum())
    losses = float(spread[differences < 0].sum())
    draw = float(spread[differences == 0].sum())
    fail = _fail_table()
    # A side losing by d tests on leadership − d; targets beyond ±13 all behave alike.
    second_target = np.clip(question.leadership[1] - differences, -1, 13)
    first_target = np.clip(question.leadership[0] + differences, -1, 13)
    second_breaks = float((spread * (differences > 0) * fail[second_target + 1]).sum())
    first_breaks = float((spread * (differences < 0) * fail[first_target + 1]).sum())
    table = {int(d): float(p) for d, p in zip(differences, spread, strict=True) if p > 0}
    return RoundAnswer(wins, draw, losses, (first_breaks, second_breaks), table)


@cache
def _fail_table() -> Any:
    """P(failing a 2D6 test) for targets −1..13, as an array indexed by target + 1."""
    return np.array([float(1 - pass_chance(target)) for target in range(-1, 14)])
