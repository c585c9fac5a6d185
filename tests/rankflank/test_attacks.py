"""Attack rules: each one's law worked by hand, then checked against brute force.

Three independent checks of every rule's dice:

* a number worked out by hand (the arithmetic is in each test);
* one blow's law (:func:`blow_law`, written with closed-form chances) against icepool's
  enumeration of every face of every die the blow rolls (``icepool.map``);
* many blows (:class:`Blows`' law, a chain over wounds removed) against
  :func:`check_group`, which enumerates every face play rolls die by die.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.core.distribution import check_group
from fracas.rulesets.rankflank.blows import (
    SLAY,
    Blow,
    Blows,
    blow_law,
    blows_law,
    count_law,
    removed_by,
    rerolled,
)
from fracas.rulesets.rankflank.formation import initial_state
from fracas.rulesets.rankflank.report import explanation_text
from fracas.rulesets.rankflank.strikes import StrikeRecord, strike_records
from fracas.rulesets.rankflank.tables import passes

from .conftest import combat_from, engage, unit_doc


def notes(record: StrikeRecord) -> tuple[str, ...]:
    """The record's explanations as the report prints them."""
    return tuple(map(explanation_text, record.explained))


def law(blow: Blow) -> dict[int, Fraction]:
    return dict(blow_law(blow))


def unsaved(blow: Blow) -> Fraction:
    return sum((p for v, p in blow_law(blow) if v), Fraction(0))


def dice_of(record: StrikeRecord, cap: int | None, left: int) -> Blows:
    """The record's blows on a target of ``left`` wounds; ``cap`` ``None``: a challenge."""
    return Blows(
        record.blow, record.attacks, left, record.model_wounds, record.auto_hits, cap is None
    )


def plain(**changes: Any) -> Blow:
    return replace(Blow(to_hit=4, to_wound=4, armour=None, ward=None), **changes)


def record_of(
    attacker: dict[str, Any], defender: dict[str, Any], **parameters: Any
) -> StrikeRecord:
    combat = combat_from(
        {
            "parameters": parameters,
            "units": [attacker, defender],
            "engagements": [engage(attacker["name"], defender["name"])],
        }
    )
    found = strike_records(combat, initial_state(combat), 1)
    return next(r for r in found if r.attacker_unit == attacker["name"] and r.kind == "blows")


# Re-rolls -----------------------------------------------------------------------------


def test_rerolls_of_failed_dice_and_of_ones() -> None:
    # Re-roll failed 4+ to hit: 1/2 + 1/2 × 1/2 = 3/4; then 4+ to wound: 3/8.
    assert unsaved(plain(hit_reroll="failed")) == Fraction(3, 8)
    # Re-roll 1s to hit: 1/2 + 1/6 × 1/2 = 7/12; × 1/2 = 7/24.
    assert unsaved(plain(hit_reroll="ones")) == Fraction(7, 24)
    # Re-roll failed to wound: 1/2 × 3/4 = 3/8.
    assert unsaved(plain(wound_reroll="failed")) == Fraction(3, 8)
    # Armour 5+ re-rolling failed saves saves 1/3 + 2/3 × 1/3 = 5/9: 1/4 × 4/9 = 1/9.
    assert unsaved(plain(armour=5, armour_reroll="failed")) == Fraction(1, 9)
    # Ward 5+ re-rolling 1s saves 1/3 + 1/6 × 1/3 = 7/18: 1/4 × 11/18 = 11/72.
    assert unsaved(plain(ward=5, ward_reroll="ones")) == Fraction(11, 72)


def test_a_unit_reroll_is_on_the_record_with_its_source() -> None:
    record = record_of(
        unit_doc("Zealots", "A", rerolls=[{"roll": "to_wound", "which": "ones", "source": "Icon"}]),
        unit_doc("Foe", "B", rerolls=[{"roll": "armour", "source": "Blessing"}], armour=5),
    )
    assert (record.blow.wound_reroll, record.blow.armour_reroll) == ("ones", "failed")
    assert "re-rolled 1s to wound (Icon)" in notes(record)
    assert "re-rolled failed armour saves (Blessing)" in notes(record)


def test_hatred_rerolls_misses_in_the_first_round_only() -> None:
    combat = combat_from(
        {
            "units": [unit_doc("Haters", "A", rules=["hatred"]), unit_doc("Foe", "B")],
            "engagements": [engage("Haters", "Foe")],
        }
    )
    first = next(r for r in strike_records(combat, initial_state(combat), 1) if r.side == "A")
    second = next(r for r in strike_records(combat, initial_state(combat), 2) if r.side == "A")
    assert (first.blow.hit_reroll, second.blow.hit_reroll) == ("failed", None)
    assert "re-rolled failed to hit (hatred, first round)" in notes(first)


# Poisoned attacks, killing blow, armour piercing ---------------------------------------


def test_poisoned_attacks_wound_on_a_natural_six_to_hit() -> None:
    # Hit 4+, wound 6+: a 6 to hit wounds at once (1/6); a 4 or 5 (2/6) then needs a 6
    # (1/6): 1/6 + 2/36 = 8/36 = 2/9. Without poison: 1/2 × 1/6 = 1/12.
    assert unsaved(plain(to_wound=6, poisoned=True)) == Fraction(2, 9)
    assert unsaved(plain(to_wound=6)) == Fraction(1, 12)
    # With hatred the re-rolled miss can still come up 6: P(6) = 1/6 + 1/2 × 1/6 = 1/4;
    # other hits 3/4 - 1/4 = 1/2, wounding 1/6: 1/4 + 1/12 = 1/3.
    assert unsaved(plain(to_wound=6, poisoned=True, hit_reroll="failed")) == Fraction(1, 3)


def test_poison_does_nothing_when_a_six_would_not_hit() -> None:
    # Needing 7+ to hit, no face hits, a 6 included: poison adds nothing, 0 wounds. A blow
    # that hits without a roll (impact hits) is never poisoned either: 1 × 1/2 = 1/2.
    assert unsaved(plain(to_hit=7, poisoned=True)) == 0
    assert unsaved(plain(to_hit=None, poisoned=True)) == Fraction(1, 2)


def test_killing_blow_slays_on_a_six_to_wound_without_armour() -> None:
    # Hit 4+ (1/2); a 6 to wound (1/6) slays, no armour; a 4 or 5 (2/6) wounds and the
    # 3+ armour fails 2/6: slain 1/2 × 1/6 = 1/12, wounded 1/2 × 2/6 × 2/6 = 1/18.
    assert law(plain(armour=3, killing_blow=True)) == {
        SLAY: Fraction(1, 12),
        1: Fraction(1, 18),
        0: 1 - Fraction(1, 12) - Fraction(1, 18),
    }
    # A ward save still applies to a killing blow: 5+ ward, slain 1/12 × 2/3 = 1/18.
    assert law(plain(armour=3, ward=5, killing_blow=True))[SLAY] == Fraction(1, 18)


def test_killing_blow_only_against_infantry_and_cavalry_unless_heroic() -> None:
    assert record_of(
        unit_doc("Execs", "A", rules=["killing blow"]), unit_doc("Foe", "B")
    ).blow.killing_blow
    monster = unit_doc("Beast", "B", troop_type="monster", models=1, files=1,
                       profile="6 4 0 5 5 6 2 4 6")  # fmt: skip
    assert not record_of(unit_doc("Execs", "A", rules=["killing blow"]), monster).blow.killing_blow
    assert record_of(
        unit_doc("Hero", "A", rules=["heroic killing blow"]), monster, edition="eighth"
    ).blow.killing_blow


def test_killing_blow_takes_every_wound_of_the_front_model() -> None:
    # Two W3 models (6 wounds); the front one has lost 1 (left 5): a killing blow takes
    # its 2, a second one the next model's 3.
    assert removed_by((SLAY,), left=5, model_wounds=3, duel=False) == 2
    assert removed_by((SLAY, SLAY), left=5, model_wounds=3, duel=False) == 5


def test_armour_piercing_worsens_the_save() -> None:
    target = unit_doc("Foe", "B", armour=4)
    # S 3: the 4+ stays 4+; armour piercing (1): 5+; (2): 6+; (3): no save.
    assert record_of(unit_doc("A1", "A"), target).blow.armour == 4
    assert record_of(unit_doc("A1", "A", rules=["armour piercing"]), target).blow.armour == 5
    assert record_of(unit_doc("A1", "A", rules=["armour piercing (2)"]), target).blow.armour == 6
    assert record_of(unit_doc("A1", "A", rules=["AP (3)"]), target).blow.armour is None


# Multiple wounds, devastating charge, impact hits, stomp ---------------------------------


def test_multiple_wounds_d3_law() -> None:
    # Hit 4+ and wound 4+ (1/4), then D3 wounds: 1/12 each of 1, 2, 3.
    assert law(plain(multiple="D3")) == {
        0: Fraction(3, 4),
        1: Fraction(1, 12),
        2: Fraction(1, 12),
        3: Fraction(1, 12),
    }


def test_multiple_wounds_never_spill_onto_the_next_model() -> None:
    # Two blows of 2 wounds on two W3 models: the first leaves the front model on 1, the
    # second can only take that 1: 3 wounds, not 4.
    assert removed_by((2, 2), left=6, model_wounds=3, duel=False) == 3
    # Each blow gets through with 1/4: none 9/16, one 2 × 1/4 × 3/4 = 6/16, both 1/16.
    two = dict(blows_law(plain(multiple="2"), count=((2, Fraction(1)),), left=6,
                         model_wounds=3, duel=False))  # fmt: skip
    assert two == {0: Fraction(9, 16), 2: Fraction(6, 16), 3: Fraction(1, 16)}
    # In a challenge every wound counts (overkill): both blows score 4.
    duel = dict(blows_law(plain(multiple="2"), count=((2, Fraction(1)),), left=3,
                          model_wounds=3, duel=True))  # fmt: skip
    assert duel[4] == Fraction(1, 16)


def test_devastating_charge_adds_attacks_on_the_charge() -> None:
    charging = record_of(
        unit_doc("Bulls", "A", rules=["devastating charge"], charged=True), unit_doc("Foe", "B")
    )
    # 5 fighting × (1 + 1) + 5 supporting = 15; without the charge 5 + 5 = 10.
    assert charging.attacks == 15
    standing = record_of(unit_doc("Bulls", "A", rules=["devastating charge"]), unit_doc("Foe", "B"))
    assert standing.attacks == 10


def test_impact_hits_d3_at_the_models_strength_before_any_blow() -> None:
    combat = combat_from(
        {
            "units": [
                unit_doc("Chariot", "A", troop_type="chariot", models=1, files=1,
                         profile="8 3 0 5 4 4 3 2 7", rules=["impact hits (D3)"], charged=True),
                unit_doc("Foe", "B"),
            ],
            "engagements": [engage("Chariot", "Foe")],
        }
    )  # fmt: skip
    found = strike_records(combat, initial_state(combat), 1)
    impact = next(r for r in found if r.kind == "impact hits")
    assert (impact.initiative, impact.blow.to_hit, impact.strength, impact.blow.to_wound) == (
        100,
        None,
        5,
        2,
    )
    # D3 hits, each wounding on 2+ (5/6), no armour: no wound at all has chance
    # 1/3 × (1/6 + 1/36 + 1/216) = 1/3 × 43/216 = 43/648.
    assert dict(dice_of(impact, 20, 20).law())[0] == Fraction(43, 648)
    # Round 2: no charge, no impact hits.
    assert all(r.kind != "impact hits" for r in strike_records(combat, initial_state(combat), 2))


def test_stomp_hits_infantry_only_at_the_last_step() -> None:
    def stomp_records(troop_type: str) -> list[StrikeRecord]:
        combat = combat_from(
            {
                "units": [
                    unit_doc("Giant", "A", troop_type="monster", models=1, files=1,
                             profile="6 3 0 6 5 6 3 3 10", rules=["stomp (D6)"]),
                    unit_doc("Foe", "B", troop_type=troop_type, models=5, files=5),
                ],
                "engagements": [engage("Giant", "Foe")],
            }
        )  # fmt: skip
        found = strike_records(combat, initial_state(combat), 1)
        return [r for r in found if r.kind == "stomp"]

    (stomp,) = stomp_records("infantry")
    assert (stomp.initiative, stomp.auto_hits, stomp.attacks) == (0, "D6", 1)
    assert stomp_records("cavalry") == []


def test_flaming_attacks_stop_regeneration_and_the_better_save_counts() -> None:
    trolls = unit_doc("Trolls", "B", troop_type="monstrous_infantry", models=3, files=3,
                      profile="6 3 1 5 4 3 1 3 4", rules=["regeneration (4+)"], ward=5)  # fmt: skip
    # Regeneration 4+ and a 5+ ward are not combined: the 4+ counts.
    assert record_of(unit_doc("Foe", "A"), trolls).blow.ward == 4
    # Flaming attacks: no regeneration, the 5+ ward is left.
    burning = record_of(unit_doc("Foe", "A", rules=["flaming attacks"]), trolls)
    assert burning.blow.ward == 5
    assert "no regeneration against flaming attacks" in notes(burning)


# Brute force --------------------------------------------------------------------------

BLOWS = [
    plain(),
    plain(hit_reroll="failed", wound_reroll="ones"),
    plain(to_hit=3, to_wound=6, poisoned=True, armour=5),
    plain(to_hit=5, poisoned=True, hit_reroll="ones", ward=6),
    plain(to_wound=5, killing_blow=True, armour=4, ward=5, ward_reroll="failed"),
    plain(killing_blow=True, poisoned=True, armour=2, armour_reroll="failed"),
    plain(to_wound=2, multiple="D3", armour=6, ward=4),
    plain(to_hit=3, multiple="D6", killing_blow=True),
    plain(to_hit=None, to_wound=3, armour=5),
    plain(to_wound=None, killing_blow=True, poisoned=True),
    plain(multiple="3", armour=3, armour_reroll="ones"),
]


def _stage(target: int | None, reroll: str | None) -> icepool.Die:
    return icepool.d6.reroll(lambda face: rerolled(face, target, reroll), depth=1)


def icepool_blow(blow: Blow) -> icepool.Die:
    """The blow, built independently: every final face of every stage, mapped to a value."""

    def value(hit: int, wound: int, armour: int, ward: int, many: int) -> int:
        if blow.to_hit is not None:
            poisoned = blow.poisoned and hit == 6
            if not passes(hit, blow.to_hit):
                return 0
        else:
            poisoned = False
        slain = False
        if not poisoned:
            slain = blow.killing_blow and wound == 6 and blow.to_wound is not None
            if not slain and not passes(wound, blow.to_wound):
                return 0
        if not slain and passes(armour, blow.armour):
            return 0
        if passes(ward, blow.ward):
            return 0
        return SLAY if slain else many

    many = {"D3": icepool.d3, "D6": icepool.d6}.get(blow.multiple or "")
    if many is None:
        many = icepool.Die([int(blow.multiple or "1")])
    return icepool.map(
        value,
        _stage(blow.to_hit, blow.hit_reroll),
        _stage(blow.to_wound, blow.wound_reroll),
        _stage(blow.armour, blow.armour_reroll),
        _stage(blow.ward, blow.ward_reroll),
        many,
    )


@pytest.mark.parametrize("blow", BLOWS, ids=repr)
def test_one_blow_law_equals_icepool_enumeration(blow: Blow) -> None:
    oracle = icepool_blow(blow)
    expected = {v: Fraction(oracle.quantity(v), oracle.denominator()) for v in oracle.outcomes()}
    assert law(blow) == {v: p for v, p in expected.items() if p}


def special(blow: Blow, attacks: int, model_wounds: int, **changes: Any) -> StrikeRecord:
    return StrikeRecord(
        round=1, initiative=3, side="a", attacker_unit="u", striker="u", target_unit="v",
        target_character=None, attacks=attacks, weapon_skill=3, target_weapon_skill=3,
        strength=3, toughness=3, blow=blow, model_wounds=model_wounds, **changes,
    )  # fmt: skip


@pytest.mark.parametrize(
    "group",
    [
        dice_of(special(plain(hit_reroll="failed"), 2, 1), 2, 2),
        dice_of(special(plain(multiple="D3"), 2, 2), 3, 3),
        dice_of(special(plain(multiple="D3"), 2, 3), None, 3),
        dice_of(special(plain(killing_blow=True, armour=4), 2, 3), 5, 5),
        dice_of(special(plain(killing_blow=True, armour=4), 2, 3), None, 2),
        dice_of(special(plain(poisoned=True, to_wound=6, ward=5), 2, 1), 1, 1),
        dice_of(special(plain(to_hit=None), 1, 1, kind="impact hits", auto_hits="D3"), 2, 2),
        dice_of(special(plain(to_hit=None, multiple="2"), 2, 2, auto_hits="1"), 4, 4),
    ],
    ids=repr,
)
def test_many_blows_law_equals_every_face_rolled(group: Blows) -> None:
    assert check_group(group)


def test_count_law_of_random_hits() -> None:
    # Two models with D3 impact hits each: 2 hits needs 1 + 1 (1/9); 4 hits: 1+3, 2+2,
    # 3+1 (3/9).
    law = dict(count_law("D3", 2))
    assert (law[2], law[4], law[6]) == (Fraction(1, 9), Fraction(3, 9), Fraction(1, 9))
    assert count_law(None, 7) == ((7, Fraction(1)),)
    assert dict(count_law("3", 2)) == {6: Fraction(1)}


targets = st.one_of(st.none(), st.integers(2, 6))
rerolls = st.sampled_from([None, "failed", "ones"])


@st.composite
def small_groups(draw: st.DrawFn) -> Blows:
    blow = Blow(
        to_hit=draw(st.one_of(st.none(), st.integers(2, 6))),
        to_wound=draw(targets),
        armour=draw(targets),
        ward=draw(targets),
        hit_reroll=draw(rerolls),
        wound_reroll=draw(rerolls),
        armour_reroll=draw(rerolls),
        ward_reroll=draw(rerolls),
        poisoned=draw(st.booleans()),
        killing_blow=draw(st.booleans()),
        multiple=draw(st.sampled_from([None, "2", "D3"])),
    )
    attacks = draw(st.integers(0, 2))
    if attacks == 2:
        # Two blows in the order they were rolled (where wounds land matters), with only
        # the stages that keep every face of both countable.
        blow = replace(blow, armour=None, ward=None, hit_reroll=None, wound_reroll=None)
    model_wounds = draw(st.integers(1, 3))
    left = draw(st.integers(1, 2 * model_wounds))
    duel = draw(st.booleans())
    record = special(blow, attacks, model_wounds)
    return dice_of(record, None if duel else left, left)


@settings(max_examples=40, deadline=None)
@given(small_groups())
def test_any_blow_law_equals_every_face_and_sums_to_one(group: Blows) -> None:
    # Whatever the rules, targets, re-rolls and wounds left, the law built blow by blow
    # is the enumeration of every face play rolls, and never removes more than is left.
    law = dict(group.law())
    assert sum(law.values()) == 1
    if not group.duel:
        assert max(law) <= group.left
    assert check_group(group)
