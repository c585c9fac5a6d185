"""What each ruleset's battles carry over to the next: one adapter per ruleset.

An adapter knows three things about its ruleset's scenario documents, and no rule:

* how a force's roster is checked (by the ruleset's own document model) and how two rosters
  become one battle's document;
* which of a played battle's numbers change the rosters (d100: each unit's PAX and fate,
  and the loot; rankflank: the wounds left to each unit and character; hex: strength and
  level), read from the ruleset's metrics, report data or final state;
* a luck score: one number per force and battle, higher is better for that force (the PAX,
  models or strength the enemy lost minus those the force lost).

The carried values come from the ruleset's own play; nothing here decides an outcome.
Adding a ruleset to campaigns is adding an adapter to :data:`ADAPTERS`.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from fracas.core.errors import ScenarioError
from fracas.core.process import Played
from fracas.core.report import Report
from fracas.io.scenario import Scenario

#: One change a battle makes to the rosters, as the journal stores it:
#: ``{"force", "op": "set", "unit", "key", "value"}``, ``{"force", "op": "remove", "unit",
#: "why"}`` or ``{"force", "op": "bank", "gold", "resources", "items"}``.
Change = dict[str, Any]
Roster = dict[str, Any]


class Adapter:
    """The part of campaigns that differs from one ruleset to the next (see the module)."""

    ruleset: ClassVar[str]
    #: The key that names a unit (``name`` or ``id``).
    unit_key: ClassVar[str] = "name"
    #: The key a unit's size is counted in (replacements add to it).
    size_key: ClassVar[str]
    #: The key a unit's full size is kept in, if the ruleset has one (replacements stop there).
    full_key: ClassVar[str | None] = None
    #: Keys a roster's units may not hold: the battle sets them.
    battle_keys: ClassVar[tuple[str, ...]] = ()

    #: Top-level keys of a scenario that belong to one battle, not to the campaign's rules.
    battle_document_keys: ClassVar[tuple[str, ...]] = ("units",)
    #: Keys of a scenario's unit that belong to one battle (left out of its roster).
    battle_unit_keys: ClassVar[tuple[str, ...]] = ()

    def unit_model(self) -> type[Any]:
        """The ruleset's own model of one unit (it checks a roster's units)."""
        raise NotImplementedError

    def split(self, document: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, Roster]]]:
        """A scenario document as a campaign's start: the rules every battle shares, and each
        side's roster (its units, without the keys one battle sets)."""
        base = {
            k: copy.deepcopy(v)
            for k, v in document.items()
            if k not in (*HEADER_KEYS, *self.battle_document_keys)
        }
        forces: dict[str, Roster] = {}
        dropped = (*self.battle_keys, *self.battle_unit_keys)
        for unit in document.get("units", ()):
            roster = forces.setdefault(str(unit["side"]), {"units": []})
            roster["units"].append(
                {k: copy.deepcopy(v) for k, v in unit.items() if k not in dropped}
            )
        return base, list(forces.items())

    def full_size(self, base: Mapping[str, Any], unit: Mapping[str, Any]) -> int | None:
        """A unit's full size, where the ruleset has one (``None``: no limit)."""
        if self.full_key is None or unit.get(self.full_key) is None:
            return None
        return int(unit[self.full_key])

    def check(self, force: str, roster: Any, *, source: str) -> Roster:
        """The roster, checked against the ruleset's schema; one error naming the key path."""
        from fracas.core.schema import validate
        from fracas.io.canonical import canonical_document

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
            for key in self.battle_keys:
                if key in unit:
                    raise ScenarioError(
                        "set by the battle, not the roster", source=source, path=(*path, key)
                    )
            try:
                validate(self.unit_model(), self.unit_for_check(force, unit), source=source)
            except ScenarioError as exc:
                raise ScenarioError(exc.problem, source=source, path=(*path, *exc.path)) from None
            name = unit.get(self.unit_key)
            if name in names:
                raise ScenarioError(
                    "two units of the same name", source=source, path=(*path, self.unit_key)
                )
            names.add(str(name))
        self.check_rest(roster, source=source)
        return dict(roster)

    def unit_for_check(self, force: str, unit: Mapping[str, Any]) -> dict[str, Any]:
        """A roster unit as the unit model reads it (the battle's keys filled in)."""
        return dict(unit)

    def check_rest(self, roster: Mapping[str, Any], *, source: str) -> None:
        """Check the roster's keys other than ``units``."""
        extra = sorted(set(roster) - {"units"})
        if extra:
            raise ScenarioError("unknown key", source=source, path=(extra[0],))

    def document(
        self,
        base: Mapping[str, Any],
        forces: Sequence[tuple[str, Roster]],
        extra: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The battle's scenario document: the shared rules, the rosters, the battle file."""
        raise NotImplementedError

    def changes(self, scenario: Scenario, played: Played[Any], report: Report) -> list[Change]:
        """What the played battle changes in the rosters, in unit order."""
        raise NotImplementedError

    def score(self, scenario: Scenario, summary: Mapping[str, Any], force: str) -> float:
        """The luck score of ``force`` in one outcome (higher: better for the force)."""
        raise NotImplementedError

    def forces_of(self, scenario: Scenario) -> tuple[str, ...]:
        """The two forces of a battle, attacker first: the sides of its units, in the
        order they first appear (a ruleset whose forces are listed otherwise says so)."""
        sides: list[str] = []
        for unit in scenario.document["units"]:
            if unit["side"] not in sides:
                sides.append(unit["side"])
        return tuple(sides)


def _loss_margin(
    scenario: Scenario, summary: Mapping[str, Any], force: str, metric: str, key: str
) -> float:
    """What the enemy lost less what ``force`` lost, by each unit's ``metric.<key>``."""
    total = 0.0
    for unit in scenario.document["units"]:
        sign = -1 if unit["side"] == force else 1
        total += sign * summary[f"{metric}.{unit[key]}"]
    return total


#: The header every scenario has: none of it is a campaign's.
HEADER_KEYS = ("fracas", "ruleset", "title", "description", "seed")


def _merge(document: dict[str, Any], extra: Mapping[str, Any], *, keep: Sequence[str]) -> None:
    """Add the battle file's keys; the keys in ``keep`` are the campaign's, not the file's."""
    for key, value in extra.items():
        if key in keep:
            raise ScenarioError(
                "the campaign sets this key from the rosters", source="battle file", path=(key,)
            )
        if key == "parameters" and isinstance(value, Mapping):
            document["parameters"] = {**document.get("parameters", {}), **value}
        else:
            document[key] = copy.deepcopy(value)


class D100Adapter(Adapter):
    """d100: a force is a side (lair, Napoleon, targeting, effects, units with PAX, equipment,
    missions and costs); the action is the battle's (attack and defend by default)."""

    ruleset: ClassVar[str] = "d100"
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
        _merge(document, {k: v for k, v in extra.items() if k != "sides"}, keep=("ruleset",))
        return document

    def forces_of(self, scenario: Scenario) -> tuple[str, ...]:
        return tuple(str(side["name"]) for side in scenario.document["sides"])

    def changes(self, scenario: Scenario, played: Played[Any], report: Report) -> list[Change]:
        from fracas.rulesets.d100.odds import DISBANDED

        summary = scenario.ruleset.summarize(scenario.model, played)
        found: list[Change] = []
        for side in scenario.document["sides"]:
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
        if loot and winner in self.forces_of(scenario):
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

    def score(self, scenario: Scenario, summary: Mapping[str, Any], force: str) -> float:
        from fracas.rulesets.d100.odds import DISBANDED

        total = 0.0
        for side in scenario.document["sides"]:
            sign = -1 if side["name"] == force else 1
            for unit in side["units"]:
                fate = summary[f"fate.{unit['name']}"]
                left = 0 if fate in DISBANDED else summary[f"pax.{unit['name']}"]
                total += sign * (unit["pax"] - left)
        return total


class RankflankAdapter(Adapter):
    """rankflank: a force is its units (models, wounds taken, characters); the battle file
    gives the engagements (default: the attacker's one unit charges the defender's, front)."""

    ruleset: ClassVar[str] = "rankflank"
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
        _merge(document, extra, keep=("ruleset", "units"))
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

    def changes(self, scenario: Scenario, played: Played[Any], report: Report) -> list[Change]:
        from fracas.rulesets.rankflank.formation import initial_state

        combat = scenario.model.combat
        start = initial_state(combat)
        built = {unit.name: unit for unit in combat.units}
        statuses = dict(zip(built, played.state.units, strict=True))
        found: list[Change] = []
        for unit in scenario.document["units"]:
            name, force = unit["name"], unit["side"]
            now, before = statuses[name], start[name]
            if now == before:
                continue
            wounds = built[name].profile.W
            if now.rank_and_file_wounds <= 0 and not any(now.character_wounds):
                found.append({"force": force, "op": "remove", "unit": name, "why": "destroyed"})
                continue
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
            for (character, model), left in zip(pairs, now.character_wounds, strict=True):
                taken = model.profile.W - left
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

    def score(self, scenario: Scenario, summary: Mapping[str, Any], force: str) -> float:
        return _loss_margin(scenario, summary, force, "casualties", "name")


class HexAdapter(Adapter):
    """hex: a force is its units (strength, level, statuses); the battle file gives the map,
    the orders and where each unit stands (``placements: {unit id: [q, r]}``)."""

    ruleset: ClassVar[str] = "hex"
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
        _merge(
            document,
            {k: v for k, v in extra.items() if k != "placements"},
            keep=("ruleset", "units"),
        )
        return document

    def changes(self, scenario: Scenario, played: Played[Any], report: Report) -> list[Change]:
        summary = scenario.ruleset.summarize(scenario.model, played)
        found: list[Change] = []
        for unit in scenario.document["units"]:
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

    def score(self, scenario: Scenario, summary: Mapping[str, Any], force: str) -> float:
        return _loss_margin(scenario, summary, force, "losses", "id")


ADAPTERS: dict[str, Adapter] = {
    a.ruleset: a for a in (D100Adapter(), RankflankAdapter(), HexAdapter())
}


def adapter_for(ruleset: str) -> Adapter:
    """The campaign adapter of ``ruleset`` (by its name or an alias)."""
    from fracas.rulesets import find_ruleset

    name = find_ruleset(ruleset).name
    if name not in ADAPTERS:
        raise ScenarioError(
            f"ruleset {name!r} has no campaign adapter (campaigns know: {', '.join(ADAPTERS)})",
            source="command line",
            path=("ruleset",),
        )
    return ADAPTERS[name]
