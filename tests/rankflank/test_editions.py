"""Edition presets, and single options overriding them."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from fracas.rulesets.rankflank.document import RankflankParams
from fracas.rulesets.rankflank.scenario import EDITIONS, Options

# The edition table, written out option by option: ninth, eighth, oldworld
# (docs/rules/rankflank.md, "Editions" and "The Old World preset").
TABLE = {
    "outnumber_bonus": (True, False, False),
    "disrupted_by": ("unit_strength", "ranks", "unit_strength"),
    "steadfast": ("unit_strength", "ranks", "none"),
    "disrupted_can_be_steadfast": (False, True, False),
    "overkill_max": (3, 5, 5),
    "charger_initiative_bonus": (1, 0, 3),
    "caught": ("wounds", "destroyed", "destroyed"),
    "supporting_attacks": (1, 1, 1),
    "disrupt_unit_strength": (10, 10, 5),
    "max_rounds": (5, 5, 5),
    "charge_bonus": (True, True, False),
    "ranks_by": ("rank_width", "rank_width", "troop_type"),
    "rank_bonus_per": ("arc", "arc", "side"),
    "combat_order": (False, False, True),
    "massed_infantry": (False, False, True),
    "standard_per": ("unit", "unit", "side"),
    "musician_tie": (False, False, True),
    "steady_min_us": (None, None, 10),
    "break_test": ("pass_fail", "pass_fail", "three_outcomes"),
    "overwhelmed": (False, False, True),
    "press_of_battle": (False, False, True),
    "charge_initiative": ("flat", "flat", "distance"),
    "stepping_forward": (False, False, True),
    "to_hit_table": ("classic", "classic", "oldworld"),
    "to_wound_table": ("classic", "classic", "oldworld"),
    "saves_worsened_by": ("strength", "strength", "ap"),
    "armour_cap": (False, False, True),
    "parry_as": ("ward", "ward", "armour"),
    "weapon_profiles": ("classic", "classic", "oldworld"),
    "impact_and_stomp": ("classic", "classic", "oldworld"),
    "strike_first_last": ("steps", "steps", "initiative"),
    "frenzy_attacks": ("always", "always", "charging"),
    "skirmisher_arc_bonus": (True, True, False),
    "flank_fighters": ("ranks", "ranks", "largest"),
    "swiftstride_roll": ("drop_lowest", "drop_lowest", "add_d6"),
}


@pytest.mark.parametrize(("edition", "column"), [("ninth", 0), ("eighth", 1), ("oldworld", 2)])
def test_presets_follow_the_table(edition: str, column: int) -> None:
    options = asdict(Options.from_params(RankflankParams(edition=edition)))
    assert {key: options[key] for key in TABLE} == {key: row[column] for key, row in TABLE.items()}
    assert set(EDITIONS[edition]) == set(TABLE)


def test_ninth_is_the_default() -> None:
    assert Options.from_params(RankflankParams()) == Options()


def test_an_explicit_option_overrides_the_preset() -> None:
    params = RankflankParams(edition="eighth", outnumber_bonus=True, overkill_max=2)
    options = Options.from_params(params)
    # eighth everywhere except the two options set.
    assert (options.outnumber_bonus, options.overkill_max, options.caught) == (True, 2, "destroyed")


def test_every_option_is_a_parameter() -> None:
    assert set(asdict(Options())) == set(RankflankParams.model_fields)
