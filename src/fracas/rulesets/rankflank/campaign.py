"""rankflank in a campaign: a force is its units (models, wounds taken, characters); the
battle file gives the engagements (default: the attacker's one unit charges the
defender's, front). A battle carries over the wounds left to each unit and character,
and takes out a destroyed unit and a slain character.

>>> from fracas.rulesets import find_ruleset
>>> rules = find_ruleset("rankflank").campaign_rules()
>>> rules.size_key, rules.battle_keys
('models', ('side',))
"""

from __future__ import annotations

import copy
import math
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


class RankflankCampaign(CampaignRules):
    """The campaign rules of rankflank (see the module's text)."""

    size_key: ClassVar[str] = "models"
    battle_keys: ClassVar[tuple[str, ...]] = ("side",)
    battle_document_keys: ClassVar[tuple[str, ...]] = (
        "units",
        "engagements",
        "challenge",
        "other_wounds",
    )
    battle_unit_keys: ClassVar[tuple[str, ...]] = ("charged", "charged_downhill")

    def unit_model(self) -> type[Any]:
        from fracas.rulesets.rankflank.document import UnitSpec

        return UnitSpec

    def unit_for_check(self, force: str, unit: Mapping[str, Any]) -> dict[str, Any]:
        return {**unit, "side": force}

    def document(
        self,
        base: Mapping[str, Any],
        forces: Sequence[tuple[str, Roster]],
        extra: Mapping[str, Any],
    ) -> dict[str, Any]:
        document: dict[str, Any] = {
            "fracas": 1,
            "ruleset": "rankflank",
            **copy.deepcopy(dict(base)),
        }
        units = [
            {**copy.deepcopy(unit), "side": name}
            for name, roster in forces
            for unit in roster["units"]
        ]
        document["units"] = units
        merge_battle_file(document, extra, keep=("ruleset", "units"))
        if "engagements" not in document:
            if any(len(roster["units"]) != 1 for _, roster in forces):
                raise ScenarioError(
                    "with more than one unit a side, the battle file lists the engagements",
                    source="battle file",
                    path=("engagements",),
                )
            attacker, defender = (roster["units"][0]["name"] for _, roster in forces)
            units[0]["charged"] = True
            document["engagements"] = [{"unit": attacker, "enemy": defender, "arc": "front"}]
        return document

    def changes(
        self,
        document: Mapping[str, Any],
        model: Any,
        played: Played[Any],
        summary: Mapping[str, Any],
        report: Report,
    ) -> list[Change]:
        from fracas.rulesets.rankflank.formation import initial_state

        combat = model.combat
        start = initial_state(combat)
        built = {unit.name: unit for unit in combat.units}
        statuses = dict(zip(built, played.state.units, strict=True))
        found: list[Change] = []
        for unit in document["units"]:
            name, force = unit["name"], unit["side"]
            now, before = statuses[name], start[name]
            if now == before:
                continue
            wounds = built[name].profile.W
            if now.rank_and_file_wounds <= 0 and not any(now.character_wounds):
                found.append({"force": force, "op": "remove", "unit": name, "why": "destroyed"})
                continue
            # The wounds left fill whole models first; the rest is the wounds taken by the
            # last model standing.
            models = math.ceil(now.rank_and_file_wounds / wounds)
            taken = models * wounds - now.rank_and_file_wounds
            if models != unit["models"]:
                found.append(
                    {"force": force, "op": "set", "unit": name, "key": "models", "value": models}
                )
            if taken != unit.get("wounds_taken", 0):
                found.append(
                    {
                        "force": force,
                        "op": "set",
                        "unit": name,
                        "key": "wounds_taken",
                        "value": taken,
                    }
                )
            characters = []
            pairs = zip(unit.get("characters", ()), built[name].characters, strict=True)
            for (character, character_model), left in zip(pairs, now.character_wounds, strict=True):
                taken = character_model.profile.W - left
                if left <= 0:
                    continue
                if taken != character.get("wounds_taken", 0):
                    character = {**character, "wounds_taken": taken}
                characters.append(character)
            if characters != list(unit.get("characters", ())):
                found.append(
                    {
                        "force": force,
                        "op": "set",
                        "unit": name,
                        "key": "characters",
                        "value": characters,
                    }
                )
        return found

    def losses(self, document: Mapping[str, Any], summary: Mapping[str, Any], force: str) -> float:
        return float(
            sum(summary[f"casualties.{unit['name']}"] for unit in units_of(document, force))
        )

    def breaks(
        self, document: Mapping[str, Any], summary: Mapping[str, Any], force: str
    ) -> int | None:
        return sum(bool(summary[f"breaks.{unit['name']}"]) for unit in units_of(document, force))
