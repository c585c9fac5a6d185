"""hex in a campaign: a force is its units (strength, level, statuses); the battle file
gives the map, the orders and where each unit stands (``placements: {unit id: [q, r]}``).
A battle carries each unit's strength and level over, and takes out the destroyed.

>>> from fracas.rulesets import find_ruleset
>>> rules = find_ruleset("hex").campaign_rules()
>>> rules.unit_key, rules.size_key, rules.full_key
('id', 'strength', 'max_strength')
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from fracas.core.errors import ScenarioError
from fracas.core.process import Played
from fracas.core.report import Report
from fracas.rulesets.campaign import (
    CampaignRules,
    Change,
    Roster,
    merge_battle_file,
    units_of,
)


class HexCampaign(CampaignRules):
    """The campaign rules of hex (see the module's text)."""

    unit_key: ClassVar[str] = "id"
    size_key: ClassVar[str] = "strength"
    full_key: ClassVar[str | None] = "max_strength"
    battle_keys: ClassVar[tuple[str, ...]] = ("side", "hex")
    battle_document_keys: ClassVar[tuple[str, ...]] = ("units", "map", "orders")

    def unit_model(self) -> type[Any]:
        from fracas.rulesets.hex.document import UnitSpec

        return UnitSpec

    def unit_for_check(self, force: str, unit: Mapping[str, Any]) -> dict[str, Any]:
        return {**unit, "side": force, "hex": [0, 0]}

    def document(
        self,
        base: Mapping[str, Any],
        forces: Sequence[tuple[str, Roster]],
        extra: Mapping[str, Any],
    ) -> dict[str, Any]:
        document: dict[str, Any] = {"fracas": 1, "ruleset": "hex", **copy.deepcopy(dict(base))}
        placements = extra.get("placements", {})
        if not isinstance(placements, Mapping):
            raise ScenarioError(
                "a mapping of unit id to [q, r]", source="battle file", path=("placements",)
            )
        units = []
        for name, roster in forces:
            for unit in roster["units"]:
                if unit["id"] not in placements:
                    raise ScenarioError(
                        "no hex for this unit",
                        source="battle file",
                        path=("placements", unit["id"]),
                    )
                units.append({**copy.deepcopy(unit), "side": name, "hex": placements[unit["id"]]})
        unknown = sorted(set(placements) - {u["id"] for u in units})
        if unknown:
            raise ScenarioError(
                "no such unit in the battle's forces",
                source="battle file",
                path=("placements", unknown[0]),
            )
        document["units"] = units
        merge_battle_file(
            document,
            {k: v for k, v in extra.items() if k != "placements"},
            keep=("ruleset", "units"),
        )
        return document

    def changes(
        self,
        document: Mapping[str, Any],
        model: Any,
        played: Played[Any],
        summary: Mapping[str, Any],
        report: Report,
    ) -> list[Change]:
        found: list[Change] = []
        for unit in document["units"]:
            name, force = unit["id"], unit["side"]
            if summary[f"destroyed.{name}"]:
                found.append({"force": force, "op": "remove", "unit": name, "why": "destroyed"})
                continue
            for key in ("strength", "level"):
                now = summary[f"{key}.{name}"]
                if now != unit.get(key, 0):
                    found.append(
                        {"force": force, "op": "set", "unit": name, "key": key, "value": now}
                    )
        return found

    def losses(self, document: Mapping[str, Any], summary: Mapping[str, Any], force: str) -> float:
        return float(sum(summary[f"losses.{unit['id']}"] for unit in units_of(document, force)))
