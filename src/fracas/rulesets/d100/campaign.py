"""d100 in a campaign: a force is a side (lair, Napoleon, targeting, effects, units with
PAX, equipment, missions and costs); the action is the battle's (attack and defend by
default). A battle carries each unit's PAX over, takes out the units killed or disbanded
(a fled or bottled-out unit stays, at its remaining PAX), and banks the loot for the winner.

>>> from fracas.rulesets import find_ruleset
>>> rules = find_ruleset("d100").campaign_rules()
>>> rules.forces_of({"sides": [{"name": "Fenwick"}, {"name": "Thornwall"}]})
('Fenwick', 'Thornwall')
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from fracas.core.errors import ScenarioError
from fracas.core.process import Played
from fracas.core.report import Report
from fracas.rulesets.campaign import CampaignRules, Change, Roster, merge_battle_file
from fracas.rulesets.d100.odds import BOTTLED, DISBANDED


class D100Campaign(CampaignRules):
    """The campaign rules of d100 (see the module's text)."""

    size_key: ClassVar[str] = "pax"
    full_key: ClassVar[str | None] = "max_pax"
    battle_document_keys: ClassVar[tuple[str, ...]] = ("sides",)

    def split(self, document: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, Roster]]]:
        base, _ = super().split(document)
        forces = [
            (
                str(side["name"]),
                {
                    k: copy.deepcopy(v)
                    for k, v in side.items()
                    if k not in ("name", "action", "location")
                },
            )
            for side in document["sides"]
        ]
        return base, forces

    def unit_model(self) -> type[Any]:
        from fracas.rulesets.d100.document import UnitSpec

        return UnitSpec

    def full_size(self, base: Mapping[str, Any], unit: Mapping[str, Any]) -> int | None:
        from fracas.rulesets.d100.params import D100Params

        if unit.get("max_pax") is not None:
            return int(unit["max_pax"])
        return D100Params(**base.get("parameters", {})).default_max_pax

    def check_rest(self, roster: Mapping[str, Any], *, source: str) -> None:
        from fracas.core.schema import validate
        from fracas.rulesets.d100.document import SideSpec

        if "action" in roster or "name" in roster:
            key = "action" if "action" in roster else "name"
            raise ScenarioError("set by the battle, not the roster", source=source, path=(key,))
        validate(SideSpec, {**roster, "name": "x", "action": "defend"}, source=source)

    def check_playable(
        self, base: Mapping[str, Any], force: str, roster: Roster, *, source: str
    ) -> None:
        """Build a battle of the roster against a copy of itself (its units renamed): what
        d100 checks when it builds (PAX above max_pax, equipment unknown or carried twice,
        ranged attacks without a ranged weapon, unknown traits) is refused now, at the
        roster's key path, not at the force's first battle."""
        from fracas.core.schema import validate
        from fracas.rulesets.d100.document import D100Document
        from fracas.rulesets.d100.scenario import build_battle

        # A side's targeting names the enemy's units: known only when the battle is.
        alone = {key: value for key, value in roster.items() if key != "targeting"}
        mirror = {
            **alone,
            "units": [{**unit, "name": f"{unit['name']} (copy)"} for unit in alone["units"]],
        }
        document = self.document(base, [(force, alone), (f"{force} (copy)", mirror)], {})
        try:
            build_battle(validate(D100Document, document, source=source))
        except ScenarioError as exc:
            path = exc.path[2:] if exc.path[:2] == ("sides", 0) else exc.path
            raise ScenarioError(exc.problem, source=source, path=path, hint=exc.hint) from None

    def document(
        self,
        base: Mapping[str, Any],
        forces: Sequence[tuple[str, Roster]],
        extra: Mapping[str, Any],
    ) -> dict[str, Any]:
        document: dict[str, Any] = {"fracas": 1, "ruleset": "d100", **copy.deepcopy(dict(base))}
        sides = []
        per_side = extra.get("sides", {})
        if not isinstance(per_side, Mapping):
            raise ScenarioError(
                "a mapping of force name to the side's battle keys (action, location, …)",
                source="battle file",
                path=("sides",),
            )
        fighting = [name for name, _ in forces]
        for name in per_side:
            if name not in fighting:
                raise ScenarioError(
                    f"no force of this battle ({' and '.join(fighting)}): a force's keys "
                    "go under its name",
                    source="battle file",
                    path=("sides", str(name)),
                )
        for (name, roster), action in zip(forces, ("attack", "defend"), strict=True):
            side = {"name": name, "action": action, **copy.deepcopy(roster)}
            more = per_side.get(name, {})
            if not isinstance(more, Mapping) or "units" in more:
                raise ScenarioError(
                    "the side's battle keys (action, location, targeting, effects)",
                    source="battle file",
                    path=("sides", name),
                )
            side.update(copy.deepcopy(dict(more)))
            sides.append(side)
        document["sides"] = sides
        merge_battle_file(
            document, {k: v for k, v in extra.items() if k != "sides"}, keep=("ruleset",)
        )
        return document

    def forces_of(self, document: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(str(side["name"]) for side in document["sides"])

    def changes(
        self,
        document: Mapping[str, Any],
        model: Any,
        played: Played[Any],
        summary: Mapping[str, Any],
        report: Report,
    ) -> list[Change]:
        found: list[Change] = []
        for side in document["sides"]:
            for unit in side["units"]:
                name, force = unit["name"], side["name"]
                fate, pax = summary[f"fate.{name}"], summary[f"pax.{name}"]
                if fate == "killed" or fate in DISBANDED:
                    found.append({"force": force, "op": "remove", "unit": name, "why": fate})
                elif pax != unit["pax"]:
                    found.append(
                        {"force": force, "op": "set", "unit": name, "key": "pax", "value": pax}
                    )
        winner = summary["winner"]
        loot = (report.data.get("goods") or {}).get("loot")
        if loot and winner in self.forces_of(document):
            found.append(
                {
                    "force": winner,
                    "op": "bank",
                    "gold": loot["gold"],
                    "resources": loot["resources"],
                    "items": loot["items"],
                }
            )
        return found

    def _side(self, document: Mapping[str, Any], force: str) -> Mapping[str, Any]:
        return next(side for side in document["sides"] if side["name"] == force)

    def losses(self, document: Mapping[str, Any], summary: Mapping[str, Any], force: str) -> float:
        # A disbanded unit leaves the campaign: all the PAX it had are lost to it.
        total = 0.0
        for unit in self._side(document, force)["units"]:
            fate = summary[f"fate.{unit['name']}"]
            left = 0 if fate in DISBANDED else summary[f"pax.{unit['name']}"]
            total += unit["pax"] - left
        return total

    def breaks(
        self, document: Mapping[str, Any], summary: Mapping[str, Any], force: str
    ) -> int | None:
        # The units that left the field alive: fled, bottled out, disbanded.
        fates = ("fled", *BOTTLED)
        units = self._side(document, force)["units"]
        return sum(summary[f"fate.{unit['name']}"] in fates for unit in units)
