"""Edition presets, and single options overriding them."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from fracas.rulesets.rankflank.document import RankflankParams
from fracas.rulesets.rankflank.scenario import EDITIONS, Options

# The edition table, written out option by option.
TABLE = {
    "outnumber_bonus": (True, False),
    "disrupted_by": ("unit_strength", "ranks"),
    "steadfast": ("unit_strength", "ranks"),
    "disrupted_can_be_steadfast": (False, True),
    "overkill_max": (3, 5),
    "charger_initiative_bonus": (1, 0),
    "caught": ("wounds", "destroyed"),
    "supporting_attacks": (1, 1),
}


@pytest.mark.parametrize(("edition", "column"), [("ninth", 0), ("eighth", 1)])
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
