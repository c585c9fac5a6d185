"""What a ruleset tells campaigns: how its battles carry over to the next one.

A ruleset that can be played in a campaign returns a :class:`CampaignRules` from its
:meth:`~fracas.rulesets.base.Ruleset.campaign_rules` hook; :mod:`fracas.campaign` asks
that hook and never names a ruleset. The rules know the ruleset's scenario documents, and
decide no outcome:

* a force's roster: which keys name and count a unit, which keys one battle sets, the
  ruleset's own model of a unit (it checks a roster);
* how two rosters, the campaign's shared rules and a battle file become one battle's
  document;
* which of a played battle's numbers change the rosters (read from its metrics, its report
  or its final state);
* the outcomes its luck audit asks about: each force's losses and, where the ruleset has
  them, its breaks (units that fled or broke), and a luck score, higher for the better
  result (by default what the enemy lost minus what the force lost).

A plugin joins campaigns by overriding the hook; nothing else is registered.

>>> from fracas.rulesets import find_ruleset
>>> rules = find_ruleset("d100").campaign_rules()
>>> rules.size_key, rules.unit_key
('pax', 'name')
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from fracas.core.errors import ScenarioError
from fracas.core.process import Played
from fracas.core.report import Report

#: One change a battle makes to the rosters, as the journal stores it:
#: ``{"force", "op": "set", "unit", "key", "value"}``, ``{"force", "op": "remove", "unit",
#: "why"}`` or ``{"force", "op": "bank", "gold", "resources", "items"}``.
Change = dict[str, Any]
Roster = dict[str, Any]

#: The header every scenario has: none of it is a campaign's.
HEADER_KEYS = ("fracas", "ruleset", "title", "description", "seed")


class CampaignRules:
    """The part of campaigns that differs from one ruleset to the next (see the module).

    ``document`` is a battle's scenario document (canonical, as played), ``model`` the
    scenario the ruleset built from it, ``summary`` one outcome's metrics.
    """

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

    def unit_for_check(self, force: str, unit: Mapping[str, Any]) -> dict[str, Any]:
        """A roster unit as the unit model reads it (the battle's keys filled in)."""
        return dict(unit)

    def check_playable(
        self, base: Mapping[str, Any], force: str, roster: Roster, *, source: str
    ) -> None:
        """Refuse a roster that fits the schema but that no battle could be built from
        (what the ruleset checks only when it builds a scenario), at the roster's own key
        paths. By default nothing more is checked; a ruleset that can build a battle of
        one roster alone says so here. Rosters already in a journal are not checked again
        (``verify`` keeps verifying journals written before a ruleset checked more)."""

    def check_rest(self, roster: Mapping[str, Any], *, source: str) -> None:
        """Check the roster's keys other than ``units``."""
        extra = sorted(set(roster) - {"units"})
        if extra:
            raise ScenarioError("unknown key", source=source, path=(extra[0],))

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

    def document(
        self,
        base: Mapping[str, Any],
        forces: Sequence[tuple[str, Roster]],
        extra: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The battle's scenario document: the shared rules, the rosters, the battle file."""
        raise NotImplementedError

    def changes(
        self,
        document: Mapping[str, Any],
        model: Any,
        played: Played[Any],
        summary: Mapping[str, Any],
        report: Report,
    ) -> list[Change]:
        """What the played battle changes in the rosters, in unit order."""
        raise NotImplementedError

    def forces_of(self, document: Mapping[str, Any]) -> tuple[str, ...]:
        """The two forces of a battle, attacker first: the sides of its units, in the
        order they first appear (a ruleset whose forces are listed otherwise says so)."""
        sides: list[str] = []
        for unit in document["units"]:
            if unit["side"] not in sides:
                sides.append(unit["side"])
        return tuple(sides)

    def losses(self, document: Mapping[str, Any], summary: Mapping[str, Any], force: str) -> float:
        """What ``force`` lost in one outcome (PAX, models, strength)."""
        raise NotImplementedError

    def breaks(
        self, document: Mapping[str, Any], summary: Mapping[str, Any], force: str
    ) -> int | None:
        """How many of ``force``'s units broke or fled in one outcome; ``None`` when the
        ruleset has no such thing (then the luck audit leaves breaks out)."""
        return None

    def score(self, document: Mapping[str, Any], summary: Mapping[str, Any], force: str) -> float:
        """The luck score of ``force`` in one outcome, higher for the better result: what
        the enemy lost minus what the force lost."""
        total = 0.0
        for other in self.forces_of(document):
            loss = self.losses(document, summary, other)
            total += -loss if other == force else loss
        return total


def units_of(document: Mapping[str, Any], force: str) -> list[Mapping[str, Any]]:
    """The units of ``force`` in a document whose units each name their ``side``."""
    return [unit for unit in document["units"] if unit["side"] == force]


def merge_battle_file(
    document: dict[str, Any], extra: Mapping[str, Any], *, keep: Sequence[str]
) -> None:
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
