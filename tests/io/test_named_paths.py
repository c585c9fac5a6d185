"""Key paths by name: ``units[Halberdiers].models`` wherever a key path is taken, indices
still accepted, and shown by name where a person reads them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from fracas.cli import app
from fracas.core.errors import ScenarioError
from fracas.io.scenario import get_path, index_path, named_path, set_path

ROOT = Path(__file__).resolve().parents[2]
FRONTAL = ROOT / "examples" / "rankflank" / "frontal_charge.yaml"
BOTTLE = ROOT / "examples" / "d100" / "bottle_out.yaml"
runner = CliRunner()

DOCUMENT: dict[str, Any] = {
    "units": [{"name": "Spears", "models": 25}, {"name": "Orcs", "models": 20}],
    "sides": [{"name": "Fenwick", "units": [{"name": "Fen Scouts", "pax": 6}]}],
    "board": [{"id": "lead", "strength": 100}],
}


def test_a_name_reads_and_writes_the_entry_an_index_does() -> None:
    assert get_path(DOCUMENT, "units[Orcs].models") == 20 == get_path(DOCUMENT, "units[1].models")
    assert get_path(DOCUMENT, "sides[Fenwick].units[Fen Scouts].pax") == 6
    assert get_path(DOCUMENT, "board[lead].strength") == 100  # an id names it too
    changed = set_path(DOCUMENT, "units[Spears].models", 30)
    assert changed["units"][0]["models"] == 30
    assert DOCUMENT["units"][0]["models"] == 25  # a copy is changed, not the document


def test_an_unknown_or_shared_name_is_one_clear_error() -> None:
    with pytest.raises(
        ScenarioError, match=r"units: no entry named 'Elves' \(names: Spears, Orcs\)"
    ):
        get_path(DOCUMENT, "units[Elves].models")
    twins = {"units": [{"name": "A"}, {"name": "A"}]}
    with pytest.raises(ScenarioError, match="2 entries are named 'A'; give the index"):
        set_path(twins, "units[A].models", 1)
    with pytest.raises(ScenarioError, match="names a list entry, but this is not a list"):
        get_path(DOCUMENT, "units[0].models[Orcs]")


def test_paths_are_worked_on_by_index_and_shown_by_name() -> None:
    assert index_path(DOCUMENT, "sides[Fenwick].units[Fen Scouts].pax") == "sides[0].units[0].pax"
    assert named_path(DOCUMENT, "sides[0].units[0].pax") == "sides[Fenwick].units[Fen Scouts].pax"
    # A name that could not be read back as a name keeps its index.
    odd = {"units": [{"name": "7"}, {"name": "a]b"}]}
    assert named_path(odd, "units[0].x") == "units[0].x"
    assert named_path(odd, "units[1].x") == "units[1].x"


@given(
    st.lists(
        st.text(st.characters(blacklist_characters="[]."), min_size=1, max_size=8),
        min_size=1,
        max_size=5,
        unique=True,
    )
)
def test_a_shown_path_leads_back_to_the_same_place(names: list[str]) -> None:
    document = {"units": [{"name": name, "models": index} for index, name in enumerate(names)]}
    for index in range(len(names)):
        shown = named_path(document, f"units[{index}].models")
        assert index_path(document, shown) == f"units[{index}].models"
        assert get_path(document, shown) == index


def strip(text: str) -> dict[str, object]:
    """A JSON report without its overrides (which name the path as it was typed)."""
    return {k: v for k, v in json.loads(text).items() if k != "overrides"}


def test_set_solve_and_vary_take_names() -> None:
    by_index = runner.invoke(
        app, ["resolve", str(FRONTAL), "--set", "units[1].models=30", "-f", "json"]
    )
    by_name = runner.invoke(
        app, ["resolve", str(FRONTAL), "--set", "units[Goblins].models=30", "-f", "json"]
    )
    assert by_index.exit_code == 0, by_index.output
    assert strip(by_index.stdout) == strip(by_name.stdout)
    d100 = runner.invoke(
        app, ["resolve", str(BOTTLE), "--set", "sides[Fenwick].units[Fen Scouts].pax=2"]
    )
    assert d100.exit_code == 0, d100.output
    sweep = ["sweep", str(FRONTAL), "--method", "mc", "--runs", "40", "--metric", "winner=Empire"]
    named = runner.invoke(app, [*sweep, "--vary", "units[Halberdiers].models=10,20"])
    counted = runner.invoke(app, [*sweep, "--vary", "units[0].models=10,20"])
    assert named.exit_code == 0, named.output
    # The same cells, the same seeds, the same numbers; the table names the unit.
    assert named.stdout.splitlines()[:6] == counted.stdout.splitlines()[:6]
    assert "units[Halberdiers].models" in counted.stdout
