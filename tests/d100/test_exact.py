"""Exact odds of small battles: every dice group's law is its roll, and the walk over
merged states gives numbers worked out by hand and agrees with seeded Monte Carlo."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from fracas.analysis import odds, wilson_interval
from fracas.analysis.exact import exact_states
from fracas.analysis.odds import exact_outcomes
from fracas.analysis.sample import Sampler
from fracas.core.distribution import EnumerationBudgetError, check_group
from fracas.core.record import SUMMING
from fracas.core.streams import run_keys
from fracas.io.scenario import load_scenario
from fracas.rulesets.d100 import D100Ruleset, OpenEnded
from fracas.rulesets.d100.play import Assessment, Exchange, FleeRoll
from fracas.rulesets.d100.rolls import OPEN_END_CUT

from .conftest import document

RULESET = D100Ruleset()
#: The default morale table: 75+ holds, 50+ loses 1 PAX, 26+ loses 2, else 2 and flees.
BANDS = ((75, 0, False), (50, 1, False), (26, 2, False), (None, 2, True))


def test_open_ended_law_is_its_roll() -> None:
    assert check_group(OpenEnded(96, limit=1))
    assert check_group(OpenEnded(5, limit=2, sides=6))


def test_open_ended_law_without_a_limit_leaves_out_less_than_the_bound() -> None:
    roll = OpenEnded(96)
    # 96–100 roll again: 5/100 = 1/20 each time. (1/20)^9 = 1.95e-12 is not below 1e-12,
    # (1/20)^10 = 9.77e-14 is: the law allows 9 extra dice.
    assert roll.levels == 9
    assert roll.cut == Fraction(1, 20**10) < OPEN_END_CUT
    assert sum(p for _, p in roll.law()) == 1
    # It is the law of the roll stopped after 9 extra dice, which differs from the law
    # of one allowed 10 by exactly the cut mass moved (total variation).
    nine, ten = dict(roll.law()), dict(OpenEnded(96, limit=10).law())
    zero = Fraction(0)
    moved = (
        sum((abs(nine.get(t, zero) - ten.get(t, zero)) for t in nine.keys() | ten.keys()), zero) / 2
    )
    assert moved <= roll.cut


def test_beats_and_at_least_by_hand() -> None:
    plain = OpenEnded(96, limit=0)  # a plain d100
    # 100 × 99 / 2 = 4,950 of the 10,000 pairs have the first face higher.
    assert plain.beats(0) == Fraction(4950, 10_000)
    assert plain.beats(98) == Fraction(1, 10_000)  # only 100 against 1
    assert plain.at_least(75) == Fraction(26, 100)
    # With one extra die, 101 or more needs a first face f of 96–100 and a second of
    # 101 − f or more: f of the 100 faces. (96 + 97 + 98 + 99 + 100) / 10,000 = 490/10,000.
    one = OpenEnded(96, limit=1)
    assert one.at_least(101) == Fraction(490, 100 * 100)


def test_exchange_law_is_its_roll() -> None:
    # Three-sided dice, no reroll: few enough paths to enumerate every face.
    rolls = OpenEnded(4, limit=0, sides=3)
    bands = ((3, 0, False), (2, 1, False), (None, 2, True))
    # One attack picks one of two targets with a die; another always strikes unit 5.
    two_targets = ((4, 1, 0, 0, 1, 0), (5, 0, 0, 1, 0, -1))
    assert check_group(Exchange(rolls, (two_targets, ((5, 0, 1, 0, 0, 0),)), bands))
    # Open-ended three-sided dice, one attack.
    assert check_group(
        Exchange(OpenEnded(3, limit=1, sides=3), (((2, 0, 0, 0, 0, 1),),), bands),
        max_paths=1_000_000,
    )


@pytest.mark.parametrize("reads_die", [False, True])
def test_assessment_and_flee_laws_are_their_rolls(reads_die: bool) -> None:
    rolls = OpenEnded(5, limit=1, sides=6)
    assert check_group(Assessment(rolls, -1, 5, 2, 7, 3, reads_die))
    assert check_group(FleeRoll(rolls, 1, 5))


def duel(**parameters: Any) -> dict[str, Any]:
    """Wolves (speed 2) against Guards (speed 1), 1 PAX each, no bonuses at all."""
    return document(
        [{"name": "Wolves", "pax": 1, "speed": 2}],
        [{"name": "Guards", "pax": 1, "speed": 1}],
        parameters=parameters,
    )


def winners(answer: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for outcome, p in answer.outcomes.items():
        winner = dict(outcome)["winner"]
        found[winner] = found.get(winner, 0) + p
    return found


def test_one_unit_a_side_by_hand() -> None:
    battle = RULESET.load(duel(round_limit=3, open_ended_limit=0))
    answer = exact_outcomes(RULESET, battle, budget=10_000, fractions=True)[0]
    # Plain d100s and no bonus: an attack hits with P(X > Y) = 4950/10000 = 99/200, damages
    # with 99/200 again, and the morale check (a plain d100) costs the 1 PAX below 75:
    # 74/100. So each attack kills with k = (99/200)² × 74/100 = 725274/4000000. The
    # Wolves strike first each round; the Guards strike back only if alive. With
    # q = (1 − k)², after 3 rounds: Wolves win k(1 + q + q²), Guards (1 − k)k(1 + q + q²),
    # nobody (1 − k)^6 and the raiders withdraw.
    k = Fraction(725274, 4_000_000)
    q = (1 - k) ** 2
    assert winners(answer) == {
        "Raiders": k * (1 + q + q * q),
        "Keep": (1 - k) * k * (1 + q + q * q),
        "withdraw": (1 - k) ** 6,
    }
    # k = 0.1813185, q = 0.8186815² = 0.670240, 1 + q + q² = 2.119461: 0.38430.
    assert float(winners(answer)["Raiders"]) == pytest.approx(0.38430, abs=1e-5)


def test_exact_agrees_with_seeded_monte_carlo() -> None:
    # Open-ended without a limit, 3 PAX a side, bonuses on both sides, two rounds.
    battle = RULESET.load(
        document(
            [{"name": "Wolves", "pax": 3, "max_pax": 3, "offense": 2, "strength": 1}],
            [{"name": "Guards", "pax": 3, "max_pax": 3, "defense": 1, "equipment": ["shield"]}],
            parameters={"round_limit": 2},
        )
    )
    exact = odds(battle, ruleset=RULESET, method="exact")
    sampled = odds(battle, ruleset=RULESET, method="mc", runs=4000, seed=5)
    assert exact.exact
    for winner in ("Raiders", "Keep", "withdraw"):
        low, high = sampled.interval("winner", winner)
        assert low <= float(exact.probability("winner", winner)) <= high, winner


def test_a_big_battle_is_refused_within_its_budget() -> None:
    lair = load_scenario("examples/d100/lair_raid.yaml").model
    with pytest.raises(EnumerationBudgetError):
        exact_outcomes(RULESET, lair, budget=20_000, fractions=False)[0]


class Stepping:
    """A process seen only through its steps: exact odds must replay every step."""

    def __init__(self, process: Any) -> None:
        self.process = process

    def start(self) -> Any:
        return self.process.start()

    def step(self, state: Any, dice: Any) -> Any:
        return self.process.step(state, dice)

    def finished(self, state: Any) -> bool:
        return bool(self.process.finished(state))


def test_branching_walk_is_the_walk_of_the_steps() -> None:
    # branch() and step() are two ways into the same rules: the walks must agree exactly.
    battle = RULESET.load(
        document(
            [{"name": "Wolves", "pax": 2, "max_pax": 2, "offense": 1},
             {"name": "Bows", "pax": 1, "ranged_attacks": 1, "equipment": ["ranged_weapon"]}],
            [{"name": "Guards", "pax": 2, "max_pax": 2, "dangerous_missions": 6}],
            parameters={"round_limit": 2, "open_ended_limit": 1},
        )
    )  # fmt: skip
    process = RULESET.process(battle, SUMMING)
    branching = exact_states(process, budget=200_000)
    stepping = exact_states(Stepping(process), budget=200_000)
    assert branching.states == stepping.states
    assert sum(branching.states.values()) == 1


def test_sampling_from_the_laws_agrees_with_exact() -> None:
    # What a sampler drawing each group from its law finds, within its interval.
    battle = RULESET.load(duel(round_limit=3))
    exact = winners(exact_outcomes(RULESET, battle, budget=10_000, fractions=False)[0])
    process = RULESET.process(battle, SUMMING)
    sampler = Sampler(process, lambda state, _: str(RULESET.metrics(battle, state)["winner"]))
    runs = 4000
    found, _ = sampler.play(run_keys(0, 0, runs))
    counts: dict[str, int] = {}
    for winner, times in found:  # the same winner may end several distinct states
        counts[winner] = counts.get(winner, 0) + times
    for winner, p in exact.items():
        low, high = wilson_interval(counts.get(winner, 0), runs, 0.999)
        assert low <= p <= high, winner


def test_a_speed_group_too_wide_for_a_closed_form_is_refused_at_once() -> None:
    # 30 units a side at one speed, each striking a random one of 30 enemies: the first
    # speed group's 60 attacks have more casualty patterns than a law could combine, so no
    # budget is spent before the refusal (a budget of a billion steps is never reached).
    def unit(side: str, index: int) -> dict[str, Any]:
        return {"name": f"{side} {index}", "pax": 10, "offense": 1}

    battle = RULESET.load(
        document([unit("North", i) for i in range(30)], [unit("South", i) for i in range(30)])
    )
    with pytest.raises(EnumerationBudgetError, match="too many casualty patterns"):
        exact_outcomes(RULESET, battle, budget=10**9, fractions=False)


def test_a_battle_too_wide_for_exact_odds_is_still_sampled() -> None:
    # The same thirty units a side: the first speed group's law is too wide to combine, so
    # sampling rolls that group die by die instead of drawing it from its law.
    def unit(side: str, index: int) -> dict[str, Any]:
        return {"name": f"{side} {index}", "pax": 10, "offense": 1}

    battle = RULESET.load(
        document(
            [unit("North", i) for i in range(30)],
            [unit("South", i) for i in range(30)],
            parameters={"round_limit": 1},
        )
    )
    sampled = odds(battle, ruleset=RULESET, runs=20, seed=1)
    assert sampled.method == "monte-carlo"
    assert sampled.runs == 20
    assert "too many casualty patterns" in sampled.fallback
    assert "than any budget allows" in sampled.fallback
