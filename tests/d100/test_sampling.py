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
from fracas.analysis.sample import CACHED_STEP_EVENTS, _longest_step, sampler
from fracas.core.dice import LawDice, SeededDice
from fracas.core.process import run
from fracas.core.record import SUMMING
from fracas.core.sampling import SamplingDice
from fracas.io.scenario import load_scenario
from fracas.rulesets.d100 import D100Ruleset

from .test_properties import documents

RULESET = D100Ruleset()


def sampled_play(battle: Any, seed: int) -> dict[str, Any]:
    """What a Monte Carlo repetition with ``seed`` plays: where a step rolls too many dice
    to repeat, the battle seeded play gives that seed, die by die; elsewhere the summing
    process with each dice group drawn from its law."""
    process = RULESET.process(battle, SUMMING)
    if _longest_step(process) > CACHED_STEP_EVENTS:
        return dict(RULESET.summarize(battle, RULESET.play(battle, SeededDice(seed))))
    return dict(RULESET.metrics(battle, run(process, LawDice(SamplingDice(seed)))))


@settings(max_examples=60, deadline=None)
@given(documents(), st.lists(st.integers(0, 2**63), min_size=1, max_size=6))
def test_sampling_play_gives_the_recorded_outcome(
    document: dict[str, Any], seeds: list[int]
) -> None:
    battle = RULESET.load(document)
    summing = RULESET.process(battle, SUMMING)
    sample = sampler(RULESET, battle)
    for seed in seeds:
        played = RULESET.play(battle, SeededDice(seed))
        # The recorder never changes the battle: the same dice end in the same state.
        assert run(summing, SeededDice(seed)) == played.state
        assert RULESET.metrics(battle, played.state) == RULESET.summarize(battle, played)
        assert dict(sample(SamplingDice(seed))) == sampled_play(battle, seed)


@pytest.mark.parametrize("path", sorted(Path("examples/d100").glob("*.yaml")), ids=str)
def test_each_repetition_is_the_play_of_its_seed(path: Path) -> None:
    # Monte Carlo lends one generator to every play of a chunk; repetition i is still the
    # play of its own seed (`fracas resolve --seed` where the steps are long).
    scenario = load_scenario(path)
    sample = sampler(RULESET, scenario.model)
    lent = random.Random()
    for index in range(40):
        seed = repetition_seed(3, index)
        outcome = sample(SamplingDice(seed, rng=lent))
        assert dict(outcome) == sampled_play(scenario.model, seed)
