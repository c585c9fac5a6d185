"""The sampling play (Monte Carlo) gives the outcome of the recording play, for any battle.

One process serves both: the sampling play hands it a summing recorder, which keeps no
log, and its process remembers each state's step. A remembered step must never carry a
bonus from one state of the battle into another, so each property plays several streams
through the same sampler, in an order Hypothesis chooses.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.analysis.sample import block_sampler, sampler
from fracas.core.dice import SeededDice
from fracas.core.process import run
from fracas.core.record import SUMMING
from fracas.core.streams import StreamDice
from fracas.rulesets.d100 import D100Ruleset

from .test_properties import documents

RULESET = D100Ruleset()


def sampled_play(battle: Any, key: int) -> dict[str, Any]:
    """What a Monte Carlo run with the stream of ``key`` plays: the summing process, each
    dice group drawn from its law, summed up from its final state."""
    process = RULESET.process(battle, SUMMING)
    return dict(RULESET.metrics(battle, run(process, StreamDice(key))))


@settings(max_examples=60, deadline=None)
@given(documents(), st.lists(st.integers(0, 2**63), min_size=1, max_size=6))
def test_sampling_play_gives_the_recorded_outcome(
    document: dict[str, Any], seeds: list[int]
) -> None:
    battle = RULESET.load(document)
    summing = RULESET.process(battle, SUMMING)
    for seed in seeds:
        played = RULESET.play(battle, SeededDice(seed))
        # The recorder never changes the battle: the same dice end in the same state.
        assert run(summing, SeededDice(seed)) == played.state
        assert RULESET.metrics(battle, played.state) == RULESET.summarize(battle, played)
    # The sampler remembers states' steps: what it says of a run must not depend on the
    # runs played beside it (several streams through the same sampler, twice).
    sample = block_sampler(RULESET, battle)
    expected = Counter(frozen(sampled_play(battle, seed)) for seed in seeds)
    for _ in range(2):
        found, _ = sample.play(np.array(seeds, dtype=np.uint64))
        at_once: Counter[Any] = Counter()
        for summary, times in found:
            at_once[frozen(summary)] += times
        assert at_once == expected
        assert dict(sampler(RULESET, battle)(StreamDice(seeds[0]))) == sampled_play(
            battle, seeds[0]
        )


def frozen(summary: Any) -> tuple[tuple[str, str], ...]:
    return tuple((metric, repr(value)) for metric, value in dict(summary).items())
