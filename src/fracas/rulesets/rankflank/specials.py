"""Weapons and special rules: their names in each edition, how a scenario writes them.

A rule is written as a name, with its value in brackets where it takes one, the way army
lists print it: ``hatred``, ``"armour piercing (1)"``, ``"multiple wounds (D3)"``,
``"regeneration (5+)"``. Case, spaces and hyphens do not matter, and each edition's own
name of a rule is accepted in the other preset too (``killing blow`` / ``lethal strike``).

>>> parse_rule("Multiple Wounds (D3)")
RuleEntry(name='multiple_wounds', value='D3')
>>> parse_rule("lethal-strike")
RuleEntry(name='killing_blow', value=None)
>>> canonical_weapon("additional hand weapon")
'paired_weapons'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

#: Every rule the engine knows, by its canonical name, with the kind of value it takes:
#: ``None`` a plain rule, ``"amount"`` N / D3 / D6, ``"number"`` a whole number,
#: ``"save"`` an N+ save.
RULES: Mapping[str, str | None] = {
    "stubborn": None,
    "unbreakable": None,
    "swiftstride": None,
    "always_strikes_first": None,
    "always_strikes_last": None,
    "poisoned_attacks": None,
    "killing_blow": None,
    "heroic_killing_blow": None,
    "armour_piercing": "number",
    "armour_bane": "number",
    "multiple_wounds": "amount",
    "devastating_charge": "number",
    "impact_hits": "amount",
    "stomp": "amount",
    "flaming_attacks": None,
    "fear": None,
    "frenzy": None,
    "hatred": None,
    "immune_to_psychology": None,
    "regeneration": "save",
    "unstable": None,
    "terror": None,
    "warband": None,
    "shieldwall": None,
    "undisciplined": None,
    "furious_charge": None,
    "choppas": None,
    "resolute": None,
}

#: Other names players use, each edition's own included, mapped to the canonical name.
RULE_ALIASES: Mapping[str, str] = {
    "lethal_strike": "killing_blow",
    "poison_attacks": "poisoned_attacks",
    "poisoned": "poisoned_attacks",
    "stomp_attacks": "stomp",
    "ap": "armour_piercing",
    "armor_piercing": "armour_piercing",
    "asf": "always_strikes_first",
    "asl": "always_strikes_last",
    "strikes_first": "always_strikes_first",
    "strikes_last": "always_strikes_last",
    "flaming": "flaming_attacks",
    "immune_psychology": "immune_to_psychology",
    "choppa": "choppas",
}

_OLDWORLD_ONLY = (
    "unstable",
    "armour_bane",
    "terror",
    "warband",
    "shieldwall",
    "undisciplined",
    "furious_charge",
    "choppas",
    "resolute",
)
#: Rules a preset does not have. The ninth preset's lethal strike has no heroic form.
MISSING_RULES: Mapping[str, frozenset[str]] = {
    "ninth": frozenset({"heroic_killing_blow", *_OLDWORLD_ONLY}),
    "eighth": frozenset(_OLDWORLD_ONLY),
    "oldworld": frozenset(),
}

#: How each preset names a rule where the editions differ (the report uses these).
EDITION_NAMES: Mapping[str, Mapping[str, str]] = {
    "ninth": {
        "killing_blow": "lethal strike",
        "poisoned_attacks": "poison attacks",
        "stomp": "stomp attacks",
        "paired_weapons": "paired weapons",
    },
    "eighth": {
        "killing_blow": "killing blow",
        "poisoned_attacks": "poisoned attacks",
        "stomp": "stomp",
        "paired_weapons": "additional hand weapon",
    },
    "oldworld": {
        "killing_blow": "killing blow",
        "poisoned_attacks": "poisoned attacks",
        "stomp": "stomp attacks",
        "paired_weapons": "additional hand weapon",
    },
}

WeaponName = Literal[
    "hand_weapon",
    "great_weapon",
    "halberd",
    "spear",
    "lance",
    "flail",
    "paired_weapons",
    "morning_star",
]
#: Every weapon the engine knows, in the order the schema lists them.
WEAPONS: tuple[str, ...] = get_args(WeaponName)
#: Weapons of one preset only.
EDITION_WEAPONS: Mapping[str, str] = {"morning_star": "oldworld"}
WEAPON_ALIASES: Mapping[str, str] = {
    "additional_hand_weapon": "paired_weapons",
    "two_hand_weapons": "paired_weapons",
    "great_axe": "great_weapon",
    "two_handed_weapon": "great_weapon",
    "spears": "spear",
    "halberds": "halberd",
    "lances": "lance",
    "flails": "flail",
    "morning_stars": "morning_star",
    "thrusting_spear": "spear",
    "cavalry_spear": "spear",
}
#: Weapons held in both hands: no shield bonus in close combat, no parry.
TWO_HANDED = frozenset({"great_weapon", "halberd", "flail"})
#: The oldworld profiles hold an additional hand weapon in both hands too.
OLDWORLD_TWO_HANDED = TWO_HANDED | {"paired_weapons"}

#: The Old World's weapon profiles (``weapon_profiles: oldworld``): Strength bonus, Armour
#: Piercing and Armour Bane, in a round the unit did not charge and in one it charged.
#: ``cavalry_spear`` is a spear carried by a mounted model; the others are their weapons.
OLDWORLD_WEAPONS: Mapping[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "great_weapon": ((2, 2, 1), (2, 2, 1)),
    "halberd": ((1, 1, 1), (1, 2, 1)),  # AP −2 against models it charged
    "flail": ((0, 2, 0), (2, 2, 1)),  # Strength and Armour Bane on the charge only
    "morning_star": ((0, 1, 0), (1, 1, 1)),
    "lance": ((0, 0, 0), (2, 2, 1)),  # the charge turn only
    "cavalry_spear": ((0, 0, 0), (1, 1, 0)),
}
#: Troop types that carry no weapon but their own (claws, crew, the swarm itself).
NO_WEAPONS = frozenset({"monster", "swarm", "war_machine"})
#: Troop types that may carry a lance.
LANCE_BEARERS = frozenset({"cavalry", "monstrous_cavalry"})
#: Troop types that count as cavalry for a spear's charge.
MOUNTED = frozenset({"cavalry", "monstrous_cavalry", "chariot"})

Reroll = Literal["failed", "ones"]
RerollRoll = Literal["to_hit", "to_wound", "armour", "ward"]

_AMOUNT = re.compile(r"^(?:[1-9]\d?|D3|D6)$")
_WRITTEN = re.compile(r"^\s*([A-Za-z][A-Za-z _-]*?)\s*(?:\(\s*([^)]*?)\s*\))?\s*$")


def normalise(name: str) -> str:
    """The key form of a written name: lower case, words joined by ``_``.

    >>> normalise("Always Strikes-First ")
    'always_strikes_first'
    """
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def canonical_weapon(name: str) -> str:
    """The engine's name of a weapon written ``name``; ``ValueError`` if unknown."""
    key = normalise(name)
    key = WEAPON_ALIASES.get(key, key)
    if key not in WEAPONS:
        raise ValueError(f"unknown weapon {name!r} (weapons: {', '.join(WEAPONS)})")
    return key


@dataclass(frozen=True, slots=True)
class RuleEntry:
    """One special rule as written on a unit: its canonical name and its value."""

    name: str
    value: str | None = None

    def written(self) -> str:
        """The rule as a player reads it: ``multiple wounds (D3)``."""
        words = self.name.replace("_", " ")
        return words if self.value is None else f"{words} ({self.value})"


def parse_rule(text: str) -> RuleEntry:
    """Read one written rule; ``ValueError`` with the reason when it is not one."""
    match = _WRITTEN.match(text)
    if match is None:
        raise ValueError(f"cannot read the rule {text!r}: write a name, e.g. 'armour piercing (1)'")
    name = normalise(match.group(1))
    name = RULE_ALIASES.get(name, name)
    if name not in RULES:
        raise ValueError(f"unknown rule {text!r} (rules: {', '.join(RULES)})")
    kind, value = RULES[name], match.group(2)
    if kind is None:
        if value is not None:
            raise ValueError(f"{name} takes no value, got ({value})")
        return RuleEntry(name)
    if kind == "number":
        value = value or "1"
        if not value.isdigit() or not 1 <= int(value) <= 6:
            raise ValueError(f"{name} needs a whole number from 1 to 6, got ({value})")
        return RuleEntry(name, str(int(value)))
    if kind == "save":
        number = (value or "").rstrip("+")
        if not number.isdigit() or not 2 <= int(number) <= 6:
            raise ValueError(f"{name} needs a save from 2+ to 6+, e.g. '{name} (5+)'")
        return RuleEntry(name, f"{int(number)}+")
    amount = (value or "").upper()
    if amount.isdigit() and int(amount) < 1:
        raise ValueError(f"{name} must be at least 1, got ({value})")
    if not _AMOUNT.match(amount):
        raise ValueError(f"{name} needs N (1-99), D3 or D6, e.g. '{name} (D3)', got ({value})")
    return RuleEntry(name, amount)


def amount_law(amount: str) -> tuple[tuple[int, int], ...]:
    """Each value of an amount N / D3 / D6 with its weight out of 6.

    >>> amount_law("D3")
    ((1, 2), (2, 2), (3, 2))
    >>> amount_law("2")
    ((2, 6),)
    """
    if amount == "D6":
        return tuple((face, 1) for face in range(1, 7))
    if amount == "D3":
        return ((1, 2), (2, 2), (3, 2))
    return ((int(amount), 6),)


def edition_name(edition: str, name: str) -> str:
    """What ``edition`` calls a rule or a weapon.

    >>> edition_name("ninth", "killing_blow"), edition_name("eighth", "killing_blow")
    ('lethal strike', 'killing blow')
    """
    return EDITION_NAMES.get(edition, {}).get(name, name.replace("_", " "))
