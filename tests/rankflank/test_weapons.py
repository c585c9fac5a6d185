"""Weapons: each one's effect on Strength, Attacks, strike order, saves — worked by hand."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fracas.core.modifiers import Breakdown
from fracas.core.record import SUMMING
from fracas.rulesets.rankflank.formation import initial_state
from fracas.rulesets.rankflank.report import explanation_text
from fracas.rulesets.rankflank.scenario import Combat
from fracas.rulesets.rankflank.strikes import (
    StrikeRecord,
    initiative_steps,
    strike_records,
    unsaved_wound_chance,
)

from .conftest import combat_from, engage, unit_doc


def notes(record: StrikeRecord) -> tuple[str, ...]:
    """The record's explanations as the report prints them."""
    return tuple(map(explanation_text, record.explained))


def duel_of(attacker: dict[str, Any], defender: dict[str, Any], **parameters: Any) -> Combat:
    return combat_from(
        {
            "parameters": parameters,
            "units": [attacker, defender],
            "engagements": [engage(attacker["name"], defender["name"])],
        }
    )


def records(combat: Combat, round_number: int = 1) -> dict[str, StrikeRecord]:
    found = strike_records(combat, initial_state(combat), round_number)
    return {(r.striker if r.kind == "blows" else f"{r.striker} {r.kind}"): r for r in found}


def test_great_weapon_adds_two_strength_and_strikes_last() -> None:
    combat = duel_of(
        unit_doc("Greatswords", "A", weapon="great weapon", charged=True),
        unit_doc("Foe", "B", armour=4),
    )
    record = records(combat)["Greatswords"]
    # S 3 + 2 = 5 against T 3: 2+ to wound; armour 4+ worsened by 5 - 3 = 2: 6+.
    assert (record.strength, record.blow.to_wound, record.blow.armour) == (5, 2, 6)
    assert "S 5 = 3 + 2 (great weapon)" in notes(record)
    # I 3 + 1 for the charge would be 4, but a great weapon strikes last: step 0.
    assert record.initiative == 0
    assert initiative_steps(combat, initial_state(combat), 1) == (3, 0)


def test_the_breakdowns_a_record_explains_are_the_numbers_its_dice_use() -> None:
    combat = duel_of(
        unit_doc("Berserkers", "A", weapon="great weapon", rules=["frenzy"]),
        unit_doc("Foe", "B"),
    )
    record = records(combat)["Berserkers"]
    strength, attacks = (b for b in record.explained if isinstance(b, Breakdown))
    # S 3 + 2 (great weapon) = 5; A 1 + 1 (frenzy) = 2: each total is the number the
    # rules go on with: 5 fighting × 2 A + 5 supporting × 1 = 15 attacks, and S 5 against
    # T 3 wounds on 2+.
    assert [(row.label, int(row.value)) for row in strength.rows] == [("S", 3), ("great weapon", 2)]
    assert int(strength.total) == record.strength == 5
    assert record.blow.to_wound == 2
    assert [(row.label, int(row.value)) for row in attacks.rows] == [("A", 1), ("frenzy", 1)]
    assert int(attacks.total) == 2
    assert record.attacks == 5 * int(attacks.total) + 5 * 1 == 15
    assert notes(record) == ("S 5 = 3 + 2 (great weapon)", "A 2 = 1 + 1 (frenzy)")
    # Exact odds gather the same records with a summing recorder: the same numbers, and
    # no row built at all.
    (summed,) = (r for r in strike_records(combat, initial_state(combat), 1, record=SUMMING)
                 if r.striker == "Berserkers")  # fmt: skip
    assert (summed.strength, summed.attacks, summed.explained) == (5, 15, ())


def test_halberd_adds_one_strength() -> None:
    combat = duel_of(unit_doc("Halberdiers", "A", weapon="halberd"), unit_doc("Foe", "B"))
    record = records(combat)["Halberdiers"]
    # S 3 + 1 = 4 against T 3: 3+ to wound; it strikes at its own I 3.
    assert (record.strength, record.blow.to_wound, record.initiative) == (4, 3, 3)
    assert notes(record) == ("S 4 = 3 + 1 (halberd)",)


def test_infantry_spears_fight_in_an_extra_rank_unless_charging() -> None:
    # 20 spearmen 5 wide: 5 fight (5 × 1 A) and two ranks of 5 support: 5 + 10 = 15.
    holding = duel_of(unit_doc("Spears", "A", weapon="spear"), unit_doc("Foe", "B"))
    assert records(holding)["Spears"].attacks == 15
    # Charging, only the second rank supports: 5 + 5 = 10.
    charging = duel_of(unit_doc("Spears", "A", weapon="spear", charged=True), unit_doc("Foe", "B"))
    assert records(charging)["Spears"].attacks == 10
    # spear_extra_ranks: 0 turns the rule off.
    plain = duel_of(
        unit_doc("Spears", "A", weapon="spear"), unit_doc("Foe", "B"), spear_extra_ranks=0
    )
    assert records(plain)["Spears"].attacks == 10


def test_cavalry_spear_and_lance_only_on_the_charge() -> None:
    rider: dict[str, Any] = {"troop_type": "cavalry", "models": 5, "files": 5, "charged": True}
    spear = duel_of(unit_doc("Riders", "A", weapon="spear", **rider), unit_doc("Foe", "B"))
    assert records(spear)["Riders"].strength == 4  # 3 + 1 (spear, on the charge)
    lance = duel_of(unit_doc("Knights", "A", weapon="lance", **rider), unit_doc("Foe", "B"))
    assert records(lance)["Knights"].strength == 5  # 3 + 2 (lance, on the charge)
    assert notes(records(lance)["Knights"]) == ("S 5 = 3 + 2 (lance, on the charge)",)
    # Round 2: no charge any more, plain S 3.
    assert records(lance, 2)["Knights"].strength == 3


def test_flail_adds_two_strength_in_the_first_round_only() -> None:
    combat = duel_of(unit_doc("Flails", "A", weapon="flail"), unit_doc("Foe", "B"))
    assert records(combat, 1)["Flails"].strength == 5  # 3 + 2 (flail, first round)
    assert records(combat, 2)["Flails"].strength == 3


def test_paired_weapons_add_an_attack_to_the_fighting_rank() -> None:
    combat = duel_of(unit_doc("Pairs", "A", weapon="paired weapons"), unit_doc("Foe", "B"))
    record = records(combat)["Pairs"]
    # 5 fighting × (1 + 1) A + 5 supporting × 1 = 15.
    assert record.attacks == 15
    assert notes(record) == ("A 2 = 1 + 1 (paired weapons)",)
    eighth = duel_of(
        unit_doc("Pairs", "A", weapon="additional hand weapon"), unit_doc("Foe", "B"),
        edition="eighth",
    )  # fmt: skip
    assert notes(records(eighth)["Pairs"]) == ("A 2 = 1 + 1 (additional hand weapon)",)


def test_shield_improves_the_save_and_parries_blows_from_the_front() -> None:
    combat = duel_of(unit_doc("Foe", "A"), unit_doc("Shields", "B", armour=6, shield=True))
    record = records(combat)["Foe"]
    # 6+ light armour + shield = 5+ against S 3; hand weapon and shield: 6+ parry.
    assert (record.blow.armour, record.blow.ward) == (5, 6)
    # One blow: hit 1/2 × wound 1/2 × armour fails 4/6 × parry fails 5/6 = 20/144 = 5/36.
    assert unsaved_wound_chance(record) == Fraction(5, 36)


def test_no_parry_from_the_flank_or_with_a_great_weapon_and_no_shield_bonus_two_handed() -> None:
    flank = combat_from(
        {
            "units": [unit_doc("Foe", "A"), unit_doc("Shields", "B", armour=6, shield=True)],
            "engagements": [engage("Foe", "Shields", "left")],
        }
    )
    assert records(flank)["Foe"].blow.ward is None
    two_handed = duel_of(
        unit_doc("Foe", "A"), unit_doc("Greats", "B", armour=5, shield=True, weapon="great weapon")
    )
    record = records(two_handed)["Foe"]
    # The shield does nothing with a great weapon: the plain 5+, no parry.
    assert (record.blow.armour, record.blow.ward) == (5, None)


def test_parry_option_turns_parry_off() -> None:
    combat = duel_of(
        unit_doc("Foe", "A"), unit_doc("Shields", "B", armour=6, shield=True), parry=False
    )
    assert records(combat)["Foe"].blow.ward is None


def test_always_strikes_first_and_last_and_both_cancel() -> None:
    first = duel_of(unit_doc("Elves", "A", rules=["always strikes first"]), unit_doc("Foe", "B"))
    elves = records(first)["Elves"]
    assert elves.initiative == 10
    # Same I 3 as the target: no re-roll of misses.
    assert elves.blow.hit_reroll is None
    quick = duel_of(
        unit_doc("Elves", "A", profile="5 4 3 3 3 1 5 1 8", rules=["ASF"]), unit_doc("Foe", "B")
    )
    # I 5 against I 3: re-roll failed to hit.
    assert records(quick)["Elves"].blow.hit_reroll == "failed"
    both = duel_of(
        unit_doc("Odd", "A", weapon="great weapon", rules=["always strikes first"]),
        unit_doc("Foe", "B"),
    )
    # Cancelled, it strikes at its I 3 and, with I 5 against I 3, re-rolls nothing.
    assert records(both)["Odd"].initiative == 3
    cancelled = duel_of(
        unit_doc("Odd", "A", profile="5 4 3 3 3 1 5 1 8", weapon="great weapon", rules=["ASF"]),
        unit_doc("Foe", "B"),
    )
    assert (records(cancelled)["Odd"].initiative, records(cancelled)["Odd"].blow.hit_reroll) == (
        5,
        None,
    )
    last = duel_of(unit_doc("Slow", "A", rules=["always strikes last"]), unit_doc("Foe", "B"))
    assert records(last)["Slow"].initiative == 0


def test_the_schema_shows_weapons_rules_and_rerolls() -> None:
    from fracas.rulesets.rankflank.document import RankflankDocument

    schema = RankflankDocument.model_json_schema()
    unit = schema["$defs"]["UnitSpec"]["properties"]
    character = schema["$defs"]["CharacterSpec"]["properties"]
    for fields in (unit, character):
        assert {"weapon", "shield", "rules", "rerolls"} <= set(fields)
    assert "great_weapon" in unit["weapon"]["description"]
    assert "multiple_wounds" in unit["rules"]["items"]["description"]
    reroll = schema["$defs"]["RerollSpec"]["properties"]
    assert reroll["which"]["enum"] == ["failed", "ones"]
