"""The sampling play (Monte Carlo) gives the outcome of the recording play, for any battle.

One process serves both: the sampling play hands it a summing recorder, which keeps no
log, and its process remembers each state's step. A remembered step must never carry a
bonus from one state of the battle into another, so each property plays several seeds
through the same sampler, in an order Hypothesis chooses.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.analysis.odds import repetition_seed
from fracas.core.dice import SeededDice
from fracas.core.evaluate import run
from fracas.core.record import KeepingRecorder
from fracas.core.sampling import SamplingDice
from fracas.io.scenario import load_scenario
from fracas.rulesets.d100 import D100Ruleset, play_battle

from .test_properties import documents

RULESET = D100Ruleset()


@settings(max_examples=60, deadline=None)
@given(documents(), st.lists(st.integers(0, 2**63), min_size=1, max_size=6))
def test_sampling_play_gives_the_recorded_outcome(
    document: dict[str, Any], seeds: list[int]
) -> None:
    battle = RULESET.load(document)
    summing = RULESET.process(battle)
    sample = RULESET.sampler(battle)
    for seed in seeds:
        full = play_battle(battle, SeededDice(seed))
        kept = run(RULESET.process(battle, KeepingRecorder()), SeededDice(seed))
        assert run(summing, SamplingDice(seed)) == kept
        assert sample(SamplingDice(seed)) == RULESET.summarize(battle, full)
        assert RULESET.summarize_state(battle, kept) == RULESET.summarize(battle, full)


def test_sampling_dice_count_what_the_recorded_play_rolls() -> None:
    # Counting dice make the budget of Monte Carlo: both plays must roll the same number.
    scenario = load_scenario("examples/d100/lair_raid.yaml")
    sample = RULESET.sampler(scenario.model)
    for seed in range(20):
        fast, slow = SamplingDice(seed), SamplingDice(seed)
        sample(fast)
        play_battle(scenario.model, slow)
        assert fast.used == slow.used > 0


@pytest.mark.parametrize("path", sorted(Path("examples/d100").glob("*.yaml")), ids=str)
def test_each_repetition_is_the_battle_resolve_gives_its_seed(path: Path) -> None:
    # Monte Carlo lends one generator to every play of a chunk and reads the d100s inline;
    # repetition i must still be `fracas resolve --seed <its seed>`, outcome and dice count.
    scenario = load_scenario(path)
    sample = RULESET.sampler(scenario.model)
    lent = random.Random()
    for index in range(40):
        seed = repetition_seed(3, index)
        fast, slow = SamplingDice(seed, rng=lent), SamplingDice(seed)
        outcome = sample(fast)
        full = play_battle(scenario.model, slow)
        assert outcome == RULESET.summarize(scenario.model, full)
        assert fast.used == slow.used
