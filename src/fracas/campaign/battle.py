"""One battle of a campaign: built from the rosters now, played by the ruleset, recorded.

The scenario is the rosters of the two forces plus the campaign's shared rules plus the
battle file (map, orders, engagements, each side's action…), then ``--set`` overrides; it is
played by the ruleset's own rules with a seed, or with the fair-dice protocol
(:mod:`fracas.io.fair`), so its post verifies with ``fracas verify`` as any other. The
odds of the outcomes that matter (the winner, each force's losses and breaks, its luck
score) are worked out from the scenario alone, before the event is written, and stored with
it: the luck audit reads them and never recomputes them; ``verify`` recomputes and checks
them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fracas.campaign.carry import Adapter, Change
from fracas.campaign.rosters import CampaignState
from fracas.core.dice import SeededDice
from fracas.core.errors import ScenarioError
from fracas.core.report import Report
from fracas.io.scenario import Scenario, scenario_from_document, set_path

#: Plays of a Monte Carlo luck law when exact odds are out of reach.
LUCK_RUNS = 2000
#: Step plays the exact odds of one battle may take before Monte Carlo is used instead.
LUCK_EXACT_BUDGET = 20_000


@dataclass(frozen=True)
class Fought:
    """A battle played: its scenario, seed, report and what it changes."""

    scenario: Scenario
    seed: int
    report: Report
    changes: list[Change]
    summary: dict[str, Any]


def build_scenario(
    state: CampaignState,
    attacker: str,
    defender: str,
    *,
    extra: Mapping[str, Any] | None = None,
    overrides: Sequence[tuple[str, Any]] = (),
    only: Sequence[str] = (),
    battle_file: str | None = None,
) -> Scenario:
    """The battle's scenario from the rosters now (see the module's text).

    ``only`` names the units that fight (default: every unit of both forces); naming a unit
    that fell in an earlier battle is an error that says which battle. ``battle_file``
    names the file ``extra`` was read from, for the errors it causes.
    """
    try:
        return _build(state, attacker, defender, extra, overrides, only, battle_file)
    except ScenarioError as exc:
        if battle_file is not None and exc.source == "battle file":
            raise ScenarioError(
                exc.problem, source=battle_file, path=exc.path, hint=exc.hint
            ) from None
        raise


def _build(
    state: CampaignState,
    attacker: str,
    defender: str,
    extra: Mapping[str, Any] | None,
    overrides: Sequence[tuple[str, Any]],
    only: Sequence[str],
    battle_file: str | None,
) -> Scenario:
    adapter = state.adapter
    if attacker == defender:
        raise ScenarioError(
            "a force cannot fight itself", source="command line", path=("defender",)
        )
    forces = []
    for role, name in (("attacker", attacker), ("defender", defender)):
        if name not in state.forces:
            known = ", ".join(state.forces) or "none yet"
            raise ScenarioError(
                f"no force {name!r} in the campaign (there are: {known})",
                source="command line",
                path=(role,),
            )
        roster = copy.deepcopy(state.forces[name].roster)
        if not roster["units"]:
            fell = ", ".join(
                f"{unit} {why} in event {seq}"
                for unit, (why, seq) in state.forces[name].fallen.items()
            )
            raise ScenarioError(
                f"{name} has no unit left to fight ({fell or 'none entered'}): buy or enter "
                "new units first",
                source="command line",
                path=(role,),
            )
        forces.append((name, roster))
    if only:
        forces = _only(state, adapter, forces, only)
    document = adapter.document(state.base, forces, extra or {})
    document.setdefault(
        "title", f"{state.name}: battle {state.battles + 1}, {attacker} v {defender}"
    )
    for path, value in overrides:
        document = set_path(document, path, value, source="--set")
    where = f"{state.name} battle {state.battles + 1}"
    if battle_file is not None:
        where += f" (rosters and {battle_file})"
    return scenario_from_document(document, source=where)


def _only(
    state: CampaignState, adapter: Adapter, forces: list[tuple[str, Any]], only: Sequence[str]
) -> list[tuple[str, Any]]:
    wanted = set(only)
    for index, name in enumerate(only):
        present = any(u[adapter.unit_key] == name for _, r in forces for u in r["units"])
        if present:
            continue
        for force_name, _ in forces:
            fallen = state.forces[force_name].fallen.get(name)
            if fallen is not None:
                raise ScenarioError(
                    f"{name!r} of {force_name} was {fallen[0]} in event {fallen[1]}: it cannot "
                    "fight",
                    source="command line",
                    path=("only", index),
                )
        raise ScenarioError(
            f"no unit {name!r} in either force", source="command line", path=("only", index)
        )
    chosen = []
    for force_name, roster in forces:
        roster["units"] = [u for u in roster["units"] if u[adapter.unit_key] in wanted]
        if not roster["units"]:
            raise ScenarioError(
                f"--only leaves {force_name} no unit", source="command line", path=("only",)
            )
        chosen.append((force_name, roster))
    return chosen


def fight(
    state: CampaignState,
    scenario: Scenario,
    *,
    seed: int | None = None,
    secret: str | None = None,
    nonces: Sequence[str] = (),
) -> Fought:
    """Play ``scenario`` with ``seed`` or the fair dice of ``secret`` and ``nonces``."""
    from fracas.io.fair import fair_resolve

    if secret is not None:
        report = fair_resolve(scenario, secret, nonces)
        chosen = report.seed if report.seed is not None else 0
    else:
        chosen = seed or 0
        report = scenario.resolve(seed=chosen)
    played = scenario.ruleset.play(scenario.model, SeededDice(chosen))
    summary = dict(scenario.ruleset.summarize(scenario.model, played))
    changes = state.adapter.changes(scenario, played, summary, report)
    return Fought(scenario, chosen, report, changes, summary)


def luck_law(state: CampaignState, scenario: Scenario) -> dict[str, Any]:
    """The odds of the outcomes the luck audit asks about, worked out before the battle:
    exact when they can be, else :data:`LUCK_RUNS` sampled runs.

    ``{"method": "exact" | "mc", "runs": n, "winner": {name: p}, "scores": {force: law},
    "losses": {force: law}, "breaks": {force: law}}``, each law a list of ``[value, p]``
    by ascending value; ``breaks`` only where the ruleset has them. They depend on the
    scenario alone, not on the battle's dice: the plays of ``mc`` are seeded from the
    scenario's canonical hash, so the odds can be known before the dice fall, and anyone
    gets the same law again (``verify`` does).
    """
    return odds_law(state.adapter, scenario)


def odds_law(adapter: Adapter, scenario: Scenario) -> dict[str, Any]:
    """:func:`luck_law` with the ruleset's campaign adapter given (no campaign state).

    The exact walk is always tried first, with the budget alone deciding, recording or
    verifying: a journal whose line says "sampled" for a battle whose exact walk fits the
    budget gets the exact law here, and so fails ``verify``. Without that walk a forger
    could choose which of a scenario's two laws the luck audit reads.
    """
    from fracas.analysis import exact_outcomes
    from fracas.analysis.sample import block_sampler
    from fracas.core.distribution import EnumerationBudgetError
    from fracas.core.streams import run_keys

    ruleset, model = scenario.ruleset, scenario.model
    outcomes: list[tuple[Mapping[str, Any], float]]
    try:
        # The budget alone says whether a law is exact: a journal's laws must come out
        # the same when verified, and the walk's look ahead is an estimate.
        answer, _ = exact_outcomes(
            ruleset, model, budget=LUCK_EXACT_BUDGET, fractions=False, look_ahead=False
        )
        outcomes = [(dict(outcome), float(p)) for outcome, p in answer.outcomes.items()]
        laws = _laws(adapter, scenario, outcomes)
        method, runs = "exact", 0
    except (EnumerationBudgetError, KeyError):
        # KeyError: the exact walk settled a metric the outcomes need apart from the
        # outcomes; sampled runs give every metric.
        # Many runs at once, each its own stream of the seed (fracas.core.streams).
        found, _ = block_sampler(ruleset, model).play(run_keys(odds_seed(scenario), 0, LUCK_RUNS))
        outcomes = [(summary, times / LUCK_RUNS) for summary, times in found]
        laws = _laws(adapter, scenario, outcomes)
        method, runs = "mc", LUCK_RUNS
    return {"method": method, "runs": runs, **laws}


def odds_seed(scenario: Scenario) -> int:
    """The seed of a battle's Monte Carlo odds: from its scenario's canonical hash, so
    that the odds are fixed before its own seed (or fair dice) is known."""
    return int(scenario.canonical_sha256[:15], 16)


def _laws(
    adapter: Adapter, scenario: Scenario, outcomes: Sequence[tuple[Mapping[str, Any], float]]
) -> dict[str, Any]:
    forces = adapter.forces_of(scenario)
    laws: dict[str, dict[str, dict[float, float]]] = {"scores": {f: {} for f in forces}}
    winners: dict[str, float] = {}
    for summary, p in outcomes:
        for force in forces:
            value = adapter.score(scenario, summary, force)
            laws["scores"][force][value] = laws["scores"][force].get(value, 0.0) + p
        for kind, per_force in adapter.outcomes(scenario, summary).items():
            for force, value in per_force.items():
                law = laws.setdefault(kind, {}).setdefault(force, {})
                law[float(value)] = law.get(float(value), 0.0) + p
        if "winner" in summary:
            name = str(summary["winner"])
            winners[name] = winners.get(name, 0.0) + p
    found: dict[str, Any] = {
        kind: {f: [[v, p] for v, p in sorted(law.items())] for f, law in per_force.items()}
        for kind, per_force in laws.items()
    }
    found["winner"] = dict(sorted(winners.items()))
    return found


def battle_body(
    state: CampaignState,
    attacker: str,
    defender: str,
    fought: Fought,
    law: Mapping[str, Any],
    *,
    options: Mapping[str, Any],
) -> dict[str, Any]:
    """The ``battle_resolved`` event's body."""
    scenario = fought.scenario
    adapter = state.adapter
    forces = adapter.forces_of(scenario)
    return {
        "battle": state.battles + 1,
        "attacker": attacker,
        "defender": defender,
        "options": dict(options),
        "scenario": scenario.document,
        "scenario_sha256": scenario.canonical_sha256,
        "seed": fought.seed,
        "fair": dict(fought.report.fair) if fought.report.fair else None,
        "version": fought.report.version,
        "summary": fought.summary,
        "scores": {force: adapter.score(scenario, fought.summary, force) for force in forces},
        "outcomes": adapter.outcomes(scenario, fought.summary),
        "odds": dict(law),
        "changes": fought.changes,
    }
