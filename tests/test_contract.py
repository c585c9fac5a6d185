"""One contract for every ruleset: it hands over build, process, metrics and report, and the
framework derives play, replay, exact odds and sampling. No ruleset overrides what is
derived or picks an evaluator of its own, and the recorder a ruleset is given never changes
what its rules do."""

from __future__ import annotations

from pathlib import Path

import pytest

from fracas.core.dice import SeededDice
from fracas.core.process import run
from fracas.core.record import SUMMING
from fracas.io.scenario import load_scenario
from fracas.rulesets import AnyRuleset, available_rulesets, find_ruleset
from fracas.rulesets.base import ACTIONS, DERIVED, OPTIONAL_HOOKS, Ruleset

EXAMPLES = sorted(p for p in (Path(__file__).resolve().parents[1] / "examples").glob("*/*.yaml"))
#: Names of the roads a ruleset could once take around the contract; none may come back.
RETIRED = ("sampler", "exact", "exact_odds", "exact_tolerance", "summarize_state")


def overridden(ruleset: type[AnyRuleset]) -> set[str]:
    """What ``ruleset`` (or a class between it and :class:`Ruleset`) defines of the derived
    methods, and of the retired roads around the contract."""
    found: set[str] = set()
    for klass in ruleset.__mro__:
        if klass is Ruleset:
            break
        found |= {name for name in (*DERIVED, *RETIRED) if name in vars(klass)}
    return found


@pytest.mark.parametrize("ruleset", available_rulesets(), ids=lambda r: r.name)
def test_no_ruleset_overrides_what_the_framework_derives(ruleset: type[AnyRuleset]) -> None:
    assert overridden(ruleset) == set()
    assert not any(hasattr(ruleset, name) for name in RETIRED)


def test_a_ruleset_that_overrides_play_or_samples_its_own_way_is_caught() -> None:
    class Sneaky(type(find_ruleset("d100"))):  # type: ignore[misc]
        def play(self, scenario, dice):  # type: ignore[no-untyped-def]
            return None

        def sampler(self, scenario):  # type: ignore[no-untyped-def]
            return None

    assert overridden(Sneaky) == {"play", "sampler"}


def test_the_actions_are_declared_once() -> None:
    names = ["forecast", "advise", "plan", "picture", "threats", "reply", "focus"]
    assert [action.name for action in ACTIONS] == names
    assert ("metrics", *names) == OPTIONAL_HOOKS
    for action in ACTIONS:
        assert callable(getattr(Ruleset, action.name))


def test_capabilities_list_every_action_a_ruleset_implements() -> None:
    for ruleset in available_rulesets():
        offered = ruleset.capabilities()
        for action in ACTIONS:
            assert (action.name in offered) == ruleset.implements(action.name)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_recorder_never_changes_the_rules(path: Path) -> None:
    # The same dice through the keeping recorder (rows and notes for the report) and the
    # summing one (bare totals, what odds use) end in states with the same metrics.
    scenario = load_scenario(path)
    ruleset, model = scenario.ruleset, scenario.model
    for seed in range(1, 6):
        kept = ruleset.summarize(model, ruleset.play(model, SeededDice(seed)))
        summed = ruleset.metrics(model, run(ruleset.process(model, SUMMING), SeededDice(seed)))
        assert dict(kept) == dict(summed), seed
