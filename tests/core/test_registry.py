from __future__ import annotations

from importlib.metadata import EntryPoint
from typing import Any

import pytest

import fracas.rulesets as registry
from fracas.core.errors import RulesetNotFoundError
from fracas.rulesets import find_ruleset
from fracas.rulesets.hex import HexRuleset


def test_builtins_are_listed_in_order_and_found_by_alias() -> None:
    names = [cls.name for cls in registry.available_rulesets()]
    assert names[:3] == ["hex", "d100", "rankflank"]
    for cls in registry.available_rulesets():
        for alias in cls.aliases:
            assert find_ruleset(alias.upper()).name == cls.name
    with pytest.raises(RulesetNotFoundError, match="known: hex, d100, rankflank"):
        find_ruleset("chess")


def test_third_party_rulesets_come_from_the_entry_point_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A package declaring [project.entry-points."fracas.rulesets"] hexagon = "pkg:Hexagon"
    # is found without importing anything by hand.
    class Hexagon(HexRuleset):
        name = "hexagon"
        aliases = ("hexes",)

    plugin = EntryPoint(name="hexagon", value="pkg:Hexagon", group=registry.ENTRY_POINT_GROUP)
    seen: list[str] = []

    def fake_entry_points(*, group: str) -> list[EntryPoint]:
        seen.append(group)
        return [plugin]

    def load(self: EntryPoint) -> Any:
        return Hexagon

    monkeypatch.setattr(registry, "entry_points", fake_entry_points)
    monkeypatch.setattr(EntryPoint, "load", load)
    registry.available_rulesets.cache_clear()
    try:
        assert find_ruleset("hexes").name == "hexagon"
        assert [cls.name for cls in registry.available_rulesets()][-1] == "hexagon"
        assert seen == ["fracas.rulesets"]
    finally:
        monkeypatch.undo()
        registry.available_rulesets.cache_clear()
    assert "hexagon" not in [cls.name for cls in registry.available_rulesets()]
