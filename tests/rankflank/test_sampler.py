"""rank-and-flank's Monte Carlo sampler: the cached plays summarize as an uncached play."""

from __future__ import annotations

from pathlib import Path

import pytest

from fracas.analysis.odds import repetition_seed
from fracas.analysis.sample import sampler
from fracas.core.dice import LawDice
from fracas.core.process import run
from fracas.core.record import SUMMING
from fracas.core.sampling import SamplingDice
from fracas.io.scenario import load_scenario
from fracas.rulesets.rankflank.play import CombatProcess

EXAMPLES = sorted(Path(__file__).resolve().parents[2].glob("examples/rankflank/*.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_sampled_summaries_are_those_of_the_plain_play(path: Path) -> None:
    # Each repetition, played through the step cache (round 1 settled on the way, the
    # units' fates kept per final fight), says exactly what the same dice say played
    # step by step without a cache and summarized from the final fight: the same metrics
    # with the same values, in the same order (a tally counts them in that order).
    loaded = load_scenario(path)
    ruleset, scenario = loaded.ruleset, loaded.model
    sample = sampler(ruleset, scenario)
    for index in range(300):
        seed = repetition_seed(5, index)
        cached = sample(SamplingDice(seed))
        final = run(CombatProcess(scenario.combat, SUMMING), LawDice(SamplingDice(seed)))
        plain = ruleset.metrics(scenario, final)
        assert list(cached.items()) == list(plain.items()), (path.stem, index)
