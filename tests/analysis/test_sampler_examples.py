"""Every example of every ruleset: runs sampled many at once are the runs played one by one."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fracas.analysis.sample import block_sampler, sampler
from fracas.core.process import run
from fracas.core.record import SUMMING
from fracas.core.streams import StreamDice, run_key, run_keys
from fracas.io.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(ROOT.glob("examples/*/*.yaml"))
# A deterministic ruleset (hex) is played once by odds, never sampled.
SAMPLED = [path for path in EXAMPLES if not load_scenario(path).ruleset.deterministic]


def frozen(summary: Any) -> tuple[tuple[str, str], ...]:
    return tuple((metric, repr(value)) for metric, value in summary.items())


@pytest.mark.parametrize("path", SAMPLED, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_runs_at_once_are_the_runs_one_by_one(path: Path) -> None:
    # The same summaries, metric by metric in the same order, and the same numbers used.
    loaded = load_scenario(path)
    ruleset, model = loaded.ruleset, loaded.model
    keys = run_keys(5, 0, 250)
    found, used = block_sampler(ruleset, model).play(keys)
    one = sampler(ruleset, model)
    plain: Counter[Any] = Counter()
    numbers: list[int] = []
    for key in keys:
        dice = StreamDice(int(key))
        plain[frozen(one(dice))] += 1
        numbers.append(dice.used)
    at_once: Counter[Any] = Counter()
    for summary, times in found:
        at_once[frozen(summary)] += times
    assert at_once == plain
    assert used == numbers


@pytest.mark.parametrize(
    "path",
    SAMPLED,
    ids=lambda path: f"{path.parent.name}/{path.stem}",
)
def test_a_sampled_run_sums_up_as_its_play_step_by_step(path: Path) -> None:
    # A sampled run settles metrics on the way (round 1, the fates of units gone): it
    # says exactly what the same stream says played step by step without settling and
    # summed up from the final state, metric by metric in the same order.
    loaded = load_scenario(path)
    ruleset, model = loaded.ruleset, loaded.model
    one = sampler(ruleset, model)
    for run_number in range(150):
        key = run_key(5, run_number)
        final = run(ruleset.process(model, SUMMING), StreamDice(key))
        plain = ruleset.metrics(model, final)
        assert list(one(StreamDice(key)).items()) == list(plain.items()), run_number
