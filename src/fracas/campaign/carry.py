"""What each ruleset's battles carry over to the next, asked of the ruleset itself.

A ruleset that can be played in a campaign answers its
:meth:`~fracas.rulesets.base.Ruleset.campaign_rules` hook with a
:class:`~fracas.rulesets.campaign.CampaignRules`: how a roster is checked and two rosters
become a battle, which of a played battle's numbers change the rosters, and the outcomes of
its luck audit (losses, breaks, a luck score). The :class:`Adapter` here is the same for
every ruleset: it checks rosters in the one way campaigns do (canonical text, one error
naming the key path) and hands a played scenario's document and model to those rules.
Nothing in this package names a ruleset (``tests/test_architecture.py`` checks it).

>>> from fracas.rulesets import find_ruleset
>>> adapter = adapter_for(find_ruleset("rankflank").name)
>>> adapter.size_key
'models'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from fracas.core.errors import ScenarioError
from fracas.core.process import Played
from fracas.core.report import Report
from fracas.io.scenario import Scenario
from fracas.rulesets.campaign import CampaignRules, Change, Roster

__all__ = ["Adapter", "Change", "Roster", "adapter_for"]


class Adapter:
    """A ruleset's campaign rules, as the campaign reads them (see the module's text)."""

    def __init__(self, ruleset: str, rules: CampaignRules) -> None:
        self.ruleset = ruleset
        self.rules = rules
        self.unit_key = rules.unit_key
        self.size_key = rules.size_key
        self.full_key = rules.full_key

    def split(self, document: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, Roster]]]:
        """A scenario document as a campaign's start: the shared rules, each side's roster."""
        return self.rules.split(document)

    def full_size(self, base: Mapping[str, Any], unit: Mapping[str, Any]) -> int | None:
        """A unit's full size, where the ruleset has one (``None``: no limit)."""
        return self.rules.full_size(base, unit)

    def check(self, force: str, roster: Any, *, source: str) -> Roster:
        """The roster, checked against the ruleset's schema; one error naming the key path."""
        from fracas.core.schema import validate
        from fracas.io.canonical import canonical_document

        rules = self.rules
        if not isinstance(roster, Mapping):
            raise ScenarioError("a roster is a mapping with a units list", source=source)
        roster = canonical_document(dict(roster), source=source)
        units = roster.get("units")
        if not isinstance(units, list) or not units:
            raise ScenarioError("a roster needs a list of units", source=source, path=("units",))
        names: set[str] = set()
        for index, unit in enumerate(units):
            path = ("units", index)
            if not isinstance(unit, dict):
                raise ScenarioError("a unit is a mapping of keys", source=source, path=path)
            for key in rules.battle_keys:
                if key in unit:
                    raise ScenarioError(
                        "set by the battle, not the roster", source=source, path=(*path, key)
                    )
            try:
                validate(rules.unit_model(), rules.unit_for_check(force, unit), source=source)
            except ScenarioError as exc:
                raise ScenarioError(exc.problem, source=source, path=(*path, *exc.path)) from None
            name = unit.get(rules.unit_key)
            if name in names:
                raise ScenarioError(
                    "two units of the same name", source=source, path=(*path, rules.unit_key)
                )
            names.add(str(name))
        rules.check_rest(roster, source=source)
        return dict(roster)

    def document(
        self,
        base: Mapping[str, Any],
        forces: Sequence[tuple[str, Roster]],
        extra: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The battle's scenario document: the shared rules, the rosters, the battle file."""
        return self.rules.document(base, forces, extra)

    def check_playable(
        self, base: Mapping[str, Any], force: str, roster: Roster, *, source: str
    ) -> None:
        """Refuse a roster no battle could be built from (the ruleset's check)."""
        self.rules.check_playable(base, force, roster, source=source)

    def changes(
        self, scenario: Scenario, played: Played[Any], summary: Mapping[str, Any], report: Report
    ) -> list[Change]:
        """What the played battle changes in the rosters, in unit order."""
        return self.rules.changes(scenario.document, scenario.model, played, summary, report)

    def forces_of(self, scenario: Scenario) -> tuple[str, ...]:
        """The battle's two forces, attacker first."""
        return self.rules.forces_of(scenario.document)

    def score(self, scenario: Scenario, summary: Mapping[str, Any], force: str) -> float:
        """The luck score of ``force`` in one outcome (higher: better for the force)."""
        return self.rules.score(scenario.document, summary, force)

    def outcomes(self, scenario: Scenario, summary: Mapping[str, Any]) -> dict[str, Any]:
        """What the luck audit asks of one outcome, per force: ``{"losses": {force: n},
        "breaks": {force: n}}`` (``breaks`` only where the ruleset has them)."""
        document = scenario.document
        forces = self.rules.forces_of(document)
        found: dict[str, Any] = {
            "losses": {f: self.rules.losses(document, summary, f) for f in forces}
        }
        breaks = {f: self.rules.breaks(document, summary, f) for f in forces}
        if all(value is not None for value in breaks.values()):
            found["breaks"] = breaks
        return found


@cache
def adapter_for(ruleset: str) -> Adapter:
    """The campaign adapter of ``ruleset`` (by its name or an alias), from its hook."""
    from fracas.rulesets import find_ruleset

    found = find_ruleset(ruleset)
    rules = found.campaign_rules()
    if rules is None:
        raise ScenarioError(
            f"ruleset {found.name!r} cannot be played in a campaign (its campaign_rules hook "
            "gives none)",
            source="command line",
            path=("ruleset",),
        )
    return Adapter(found.name, rules)
