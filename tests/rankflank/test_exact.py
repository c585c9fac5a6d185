"""Exact odds run the ruleset's own steps: checked against every face, play and sampling.

* Each dice group's closed form equals the enumeration of its faces (``check_group``).
* On a small one-round combat of unbreakable units, the core evaluator over merged states
  gives every metric exactly the law (in fractions) that plain path enumeration of
  ``play`` gives (an independent method: no merging, no closed forms), metric by metric.
* With two broken units chased by one pursuer, the joint outcome (both caught, neither)
  agrees with seeded play: a winning unit rolls once a round, whoever it chases.
* The fates exact odds hand over on the way keep every metric's law.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from fracas.analysis import odds
from fracas.analysis.exact import exact_states
from fracas.analysis.odds import exact_outcomes
from fracas.analysis.stats import wilson_interval
from fracas.core.dice import SeededDice
from fracas.core.distribution import check_group, enumerate_outcomes
from fracas.core.modifiers import Breakdown
from fracas.core.record import SUMMING
from fracas.io.scenario import load_scenario
from fracas.rulesets.rankflank.blows import Blow
from fracas.rulesets.rankflank.breaktest import ChaseRoll, LeadershipTest, MoveRoll
from fracas.rulesets.rankflank.fight import Fight
from fracas.rulesets.rankflank.play import CombatProcess, play_combat
from fracas.rulesets.rankflank.ruleset import RankflankRuleset, RankflankScenario
from fracas.rulesets.rankflank.strikes import StrikeRecord

from .conftest import combat_from, engage, unit_doc

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rankflank"
RULESET = RankflankRuleset()


def record(attacks: int, to_hit: int, to_wound: int | None, armour: int | None) -> StrikeRecord:
    return StrikeRecord(
        round=1, initiative=3, side="a", attacker_unit="u", striker="u", target_unit="v",
        target_character=None, attacks=attacks, weapon_skill=3, target_weapon_skill=3,
        strength=3, toughness=3,
        blow=Blow(to_hit=to_hit, to_wound=to_wound, armour=armour, ward=None),
    )  # fmt: skip


#: A 2D6 move, and a Swiftstride one of the older presets (3D6, the lowest dropped).
M2, SWIFT = MoveRoll(), MoveRoll(3, 2)


@pytest.mark.parametrize(
    "group",
    [
        record(2, 4, 4, 5).blows(left=2, duel=False),
        record(3, 3, 5, None).blows(left=3, duel=True),
        record(2, 4, 4, 6).blows(left=1, duel=False),
        record(2, 2, None, None).blows(left=2, duel=False),
        LeadershipTest(7),
        LeadershipTest(-3),
        LeadershipTest(12),
        MoveRoll(),
        MoveRoll(3, 2),
        MoveRoll(2, 1),
        MoveRoll(2, 1, 1),
        MoveRoll(2, 2, 1),
        ChaseRoll(M2, ((None, M2),)),
        ChaseRoll(SWIFT, ((None, M2),)),
        ChaseRoll(M2, ((12, M2), (None, M2))),
        ChaseRoll(M2, ((7, M2),), keep=(True,)),
        ChaseRoll(SWIFT, ((None, M2),), keep=(True,), known=((False, 6), (True, 0))),
        ChaseRoll(M2, (), known=((False, 9),)),
        ChaseRoll(MoveRoll(2, 1), ((None, MoveRoll(2, 2, 1)),)),
    ],
    ids=repr,
)
def test_closed_form_equals_every_face(group: Any) -> None:
    assert check_group(group)


def test_strike_dice_law_by_hand() -> None:
    # 2 blows, hit on 4+ (1/2), wound on 4+ (1/2), armour 5+ saves 1/3: each blow is an
    # unsaved wound with 1/2 × 1/2 × 2/3 = 1/6. Two: 1/36; none: 25/36; one: 10/36.
    law = dict(record(2, 4, 4, 5).blows(left=2, duel=False).law())
    assert law == {0: Fraction(25, 36), 1: Fraction(10, 36), 2: Fraction(1, 36)}
    # Capped at 1 (the target has one wound left): 1 or more is 11/36.
    capped = dict(record(2, 4, 4, 5).blows(left=1, duel=False).law())
    assert capped == {0: Fraction(25, 36), 1: Fraction(11, 36)}


def test_chase_law_by_hand() -> None:
    # Flee 2D6 against a pursuer's 2D6: caught when pursuit ≥ flight. A tie has chance
    # Σ P(total)² = (1² + 2² + 3² + 4² + 5² + 6² + 5² + 4² + 3² + 2² + 1²) / 36² = 146/1296;
    # otherwise each side is ahead half the time: (1 + 146/1296) / 2 = 721/1296.
    law = dict(ChaseRoll(M2, ((None, M2),)).law())
    assert law[((True,), ())] == Fraction(721, 1296)
    # A pursuer on Leadership 7 must first fail to restrain itself (2D6 > 7: 15/36):
    # 15/36 × 721/1296 = 10815/46656.
    law = dict(ChaseRoll(M2, ((7, M2),)).law())
    assert law[((True,), ())] == Fraction(10815, 46656)


def test_chase_law_keeps_the_reach_a_later_flight_needs() -> None:
    # A pursuer that chases another unit later keeps its roll in the key. Pursuer rolls
    # 7 (6/36) against a 2D6 flight: caught when the flight is 7 or less (21/36), so
    # P(caught, reach 7) = 6/36 × 21/36 = 126/1296; missed with reach 7 = 6/36 × 15/36.
    law = dict(ChaseRoll(M2, ((None, M2),), keep=(True,)).law())
    assert law[((True,), ((False, 7),))] == Fraction(126, 1296)
    assert law[((False,), ((False, 7),))] == Fraction(90, 1296)
    # A roll made earlier in the round is given: reach 4 catches a flight of 2 to 4
    # (1 + 2 + 3)/36 = 1/6; a restrained pursuer catches nothing.
    law = dict(ChaseRoll(M2, (), known=((False, 4), (True, 0))).law())
    assert law == {((True, False), ()): Fraction(1, 6), ((False, False), ()): Fraction(5, 6)}


def tiny(**parameters: Any) -> RankflankScenario:
    """One model a side, one attack each, three rounds: every face can be enumerated."""
    combat = combat_from(
        {
            "parameters": {"max_rounds": 3, **parameters},
            "units": [
                unit_doc("Ones", "A", models=1, files=1, profile="4 3 3 3 3 1 3 1 7"),
                unit_doc(
                    "Twos",
                    "B",
                    models=1,
                    files=1,
                    profile="4 3 3 3 3 1 3 1 7",
                    armour=6,
                    charged=True,
                ),
            ],
            "engagements": [engage("Twos", "Ones")],
        }
    )
    return RankflankScenario(combat, "tiny")


def joint_and_settled(
    scenario: RankflankScenario, *, closed_forms: bool
) -> tuple[dict[Any, Fraction], dict[str, dict[Any, Fraction]]]:
    process = RULESET.process(scenario, SUMMING)
    answer = exact_states(process, budget=5_000_000, closed_forms=closed_forms)
    joint: dict[Any, Fraction] = {}
    for state, p in answer.states.items():
        assert isinstance(p, Fraction)
        key = tuple(RULESET.metrics(scenario, state).items())
        joint[key] = joint.get(key, Fraction(0)) + p
    settled = {
        m: {v: Fraction(p) for v, p in values.items()} for m, values in answer.settled.items()
    }
    return joint, settled


@pytest.mark.parametrize("edition", ["ninth", "eighth"])
def test_closed_forms_equal_every_face_over_whole_combats(edition: str) -> None:
    # The same steps, once with each group's closed form and once branching on every
    # die: the joint law of every metric must be the same fractions.
    scenario = tiny(edition=edition)
    fast = joint_and_settled(scenario, closed_forms=True)
    slow = joint_and_settled(scenario, closed_forms=False)
    assert fast == slow
    assert sum(fast[0].values()) == 1
    assert {"round_winner", "cr.A", "cr.B", "cr.difference"} <= set(fast[1])


def test_one_round_equals_plain_enumeration_of_play() -> None:
    # Plain enumeration plays the whole combat once per path of faces: no steps, no
    # merging, no closed forms. Unbreakable units keep the paths few enough to walk
    # (no break tests, no pursuit); each metric's law must be the same fractions.
    scenario = tiny(max_rounds=1)
    units = tuple(replace(unit, rules=frozenset({"unbreakable"})) for unit in scenario.combat.units)
    scenario = replace(scenario, combat=replace(scenario.combat, units=units))
    plain = enumerate_outcomes(
        lambda dice: tuple(RULESET.summarize(scenario, RULESET.play(scenario, dice)).items()),
        max_paths=200_000,
    )
    joint, settled = joint_and_settled(scenario, closed_forms=True)
    for metric in [name for name, _ in next(iter(joint))]:
        assert marginal(dict(plain.items()), metric) == marginal(joint, metric), metric
    for metric, values in settled.items():
        assert marginal(dict(plain.items()), metric) == values, metric


def marginal(distribution: dict[Any, Fraction], metric: str) -> dict[Any, Fraction]:
    out: dict[Any, Fraction] = {}
    for outcome, p in distribution.items():
        value = dict(outcome)[metric]
        out[value] = out.get(value, Fraction(0)) + p
    return out


def two_fleeing_units() -> RankflankScenario:
    """Two small units of goblins, each with a character, lose to one block of knights
    that chases both; a challenge between the leaders adds overkill."""
    combat = combat_from(
        {
            "parameters": {"max_rounds": 1, "edition": "eighth"},
            "units": [
                unit_doc(
                    "Knights",
                    "Empire",
                    models=10,
                    files=5,
                    profile="4 4 3 4 3 1 3 1 8",
                    armour=4,
                    charged=True,
                    characters=[{"name": "Baron", "profile": "4 5 3 4 4 2 5 3 8", "armour": 3}],
                ),
                unit_doc("Left", "Goblins", models=6, files=3, profile="4 2 3 3 3 1 2 1 5"),
                unit_doc(
                    "Right",
                    "Goblins",
                    models=6,
                    files=3,
                    profile="4 2 3 3 3 1 2 1 5",
                    characters=[{"name": "Boss", "profile": "4 3 3 4 4 2 3 2 6"}],
                ),
            ],
            "engagements": [engage("Left", "Knights"), engage("Right", "Knights", "left")],
            "challenge": {"challenger": "Baron", "opponent": "Boss"},
        }
    )
    return RankflankScenario(combat, "two fleeing units")


class Unsettled:
    """The combat's steps without :meth:`CombatProcess.settle`: every final fight keeps
    every metric, so the walk gives the joint law of the whole summary."""

    def __init__(self, combat: Any) -> None:
        self.process = CombatProcess(combat, SUMMING)
        self.start, self.step = self.process.start, self.process.step
        self.finished, self.branch = self.process.finished, self.process.branch


def whole_summaries(
    scenario: RankflankScenario, *, fractions: bool
) -> tuple[dict[tuple[tuple[str, Any], ...], Any], int]:
    """The joint law of the whole summary, and the step plays it took."""
    answer = exact_states(Unsettled(scenario.combat), budget=5_000_000, fractions=fractions)
    assert not answer.settled
    joint: dict[tuple[tuple[str, Any], ...], Any] = {}
    for state, p in answer.states.items():
        key = tuple(RULESET.metrics(scenario, state).items())
        joint[key] = joint.get(key, 0) + p
    return joint, answer.work


def test_two_fleeing_units_share_one_pursuit_roll_jointly() -> None:
    scenario = two_fleeing_units()
    joint: Counter[tuple[bool, bool]] = Counter()
    exact: dict[tuple[bool, bool], float] = {}
    for outcome, p in whole_summaries(scenario, fractions=False)[0].items():
        metrics = dict(outcome)
        key = (bool(metrics["caught.Left"]), bool(metrics["caught.Right"]))
        exact[key] = exact.get(key, 0.0) + float(p)
    assert abs(sum(exact.values()) - 1) < 1e-9
    # Both broken units are chased by the same roll, so "both caught" is far likelier
    # than independent rolls would make it: the joint law is what is tested here.
    runs = 3000
    for seed in range(runs):
        played = RULESET.summarize(scenario, RULESET.play(scenario, SeededDice(seed)))
        joint[(bool(played["caught.Left"]), bool(played["caught.Right"]))] += 1
    assert exact[(True, True)] > 0.01, "the scenario must make both flee and be caught"
    for key in [(True, True), (True, False), (False, True), (False, False)]:
        low, high = wilson_interval(joint[key], runs, 0.9999)
        assert low <= exact.get(key, 0.0) <= high, (key, exact.get(key), joint[key] / runs)


def test_fates_handed_over_on_the_way_keep_every_metrics_law() -> None:
    # Two fights side by side: when a unit of one flees (caught or not) and the other
    # fight goes on, exact odds count the fled unit's fate apart and merge the fights
    # that differ only by what it lost: each metric's law must stay the same as a walk
    # that keeps everything (floats, every branch kept: equal but for the order of sums).
    combat = combat_from(
        {
            "parameters": {"max_rounds": 2},
            "units": [
                unit_doc(
                    "Knights",
                    "Empire",
                    models=3,
                    files=3,
                    profile="4 4 3 4 3 1 3 1 8",
                    armour=4,
                    charged=True,
                    troop_type="cavalry",
                ),
                unit_doc("Goblins", "Orcs", models=3, files=3, profile="4 2 3 3 3 1 2 1 5"),
                unit_doc("Spears", "Empire", models=3, files=3, armour=5),
                unit_doc(
                    "Boyz",
                    "Orcs",
                    models=3,
                    files=3,
                    profile="4 3 3 3 4 1 2 1 7",
                    armour=6,
                    characters=[{"name": "Boss", "profile": "4 4 3 4 4 2 3 2 7"}],
                ),
            ],
            "engagements": [engage("Knights", "Goblins"), engage("Spears", "Boyz")],
        }
    )
    scenario = RankflankScenario(combat, "two fights side by side")
    whole, work = whole_summaries(scenario, fractions=False)
    handed, _ = exact_outcomes(RULESET, scenario, budget=2_000_000, fractions=False)
    assert set(handed.settled["caught.Goblins"]) == {True, False}  # caught or not, gone
    merged = odds(scenario, ruleset=RULESET, method="exact", exact_tolerance=0)
    assert merged.work < work  # the fights that differed only by it merged
    for metric in merged.metrics:
        expected = marginal(whole, metric.name)
        got = {e.value: e.probability for e in metric.values}
        assert set(got) == {value for value, p in expected.items() if p}, metric.name
        for value, p in got.items():
            assert p == pytest.approx(float(expected[value]), abs=1e-12), (metric.name, value)


def bearer_in_a_challenge() -> RankflankScenario:
    """The battle-standard bearer fights a challenge he may well lose (W2 against a
    warlord striking first with 5 attacks)."""
    combat = combat_from(
        {
            "parameters": {"max_rounds": 1},
            "units": [
                unit_doc(
                    "Guard", "Empire", models=10, files=5, armour=5,
                    command={"battle_standard": "Ensign"},
                    characters=[{"name": "Ensign", "profile": "4 4 3 3 3 2 3 1 8"}],
                ),
                unit_doc(
                    "Orcs", "Greenskins", models=10, files=5, charged=True,
                    characters=[{"name": "Grukk", "profile": "4 6 3 5 5 3 5 5 9"}],
                ),
            ],
            "engagements": [engage("Orcs", "Guard")],
            "challenge": {"challenger": "Grukk", "opponent": "Ensign"},
        }
    )  # fmt: skip
    return RankflankScenario(combat, "bearer in a challenge")


def test_the_battle_standard_counts_exactly_while_its_bearer_stands() -> None:
    scenario = bearer_in_a_challenge()
    seen: Counter[bool] = Counter()
    for seed in range(200):
        outcome = play_combat(scenario.combat, SeededDice(seed))
        fought = outcome.rounds[0]
        standing = fought.state_after_blows["Guard"].character_wounds[0] > 0
        rows = [row.label for row in fought.result.scores["Empire"].rows]
        assert ("Battle standard" in rows) == standing, seed
        seen[standing] += 1
    assert seen[True], "the bearer must survive in some plays"
    assert seen[False], "the bearer must die in some plays"


def test_exact_odds_with_a_bearer_who_can_die_agree_with_monte_carlo() -> None:
    from fracas.analysis import odds

    scenario = bearer_in_a_challenge()
    exact = odds(scenario, ruleset=RULESET, method="exact")
    sampled = odds(scenario, ruleset=RULESET, method="mc", runs=3000, seed=9, confidence=0.9999)
    for metric in ("cr.Empire", "cr.Greenskins", "round_winner", "winner"):
        for entry in exact.metric(metric).values:
            low, high = sampled.interval(metric, entry.value)
            assert low <= entry.probability <= high, (metric, entry.value)


class Replaying(CombatProcess):
    """The combat with no step taken as one group: every step is replayed per branch."""

    def branch(self, fight: Fight) -> None:
        return None


@pytest.mark.parametrize("example", ["flank_charge", "shared_arc", "challenge_overkill"])
def test_steps_taken_as_one_group_give_what_replaying_them_gives(example: str) -> None:
    # Blows, single break tests and flights are taken key by key from their group's law;
    # replaying the step per branch must reach the very same fights with the same odds
    # (two rounds: several units flee and are chased in these examples).
    scenario = load_scenario(EXAMPLES / f"{example}.yaml").model
    combat = replace(scenario.combat, options=replace(scenario.combat.options, max_rounds=2))
    grouped = exact_states(
        CombatProcess(combat, SUMMING), budget=2_000_000, fractions=False, tolerance=1e-9
    )
    replayed = exact_states(
        Replaying(combat, SUMMING), budget=2_000_000, fractions=False, tolerance=1e-9
    )
    assert grouped.states == replayed.states
    assert grouped.settled == replayed.settled
    assert grouped.work == replayed.work


def test_exact_odds_build_no_breakdown_row(monkeypatch: pytest.MonkeyPatch) -> None:
    # Exact odds hand the combat a summing recorder: no combat result, strike or round
    # may build a single explained row (they cost most of a one-round question once).
    combat = load_scenario(EXAMPLES / "flank_charge.yaml").model.combat

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a row was built for exact odds")

    monkeypatch.setattr(Breakdown, "__init__", refuse)
    walked = exact_states(RULESET.process(RankflankScenario(combat, ""), SUMMING), budget=2_000_000)
    assert sum(walked.states.values()) == 1  # every way the combat ends, exactly


def test_a_fall_back_move_is_the_higher_of_two_dice_against_a_2d6_pursuit() -> None:
    # Highest of 2D6 is h with chance (2h - 1)/36: 1/36, 3/36, 5/36, 7/36, 9/36, 11/36.
    # A 2D6 pursuit reaches h or more with chance 1 for h ≤ 2, 35/36 for 3, 33/36 for 4,
    # 30/36 for 5, 26/36 for 6. Caught: (1 + 3 + 5·35/36 + 7·33/36 + 9·30/36 + 11·26/36) / 36
    # = (144 + 175 + 231 + 270 + 286) / 1296 = 1106/1296.
    law = dict(ChaseRoll(MoveRoll(2, 1), ((None, M2),)).law())
    assert law[((True,), ())] == Fraction(1106, 1296)
