"""The scenario hash follows the meaning of a document, not the bytes of its file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fracas.core.errors import ScenarioError
from fracas.io.canonical import canonical_document, canonical_json, scenario_sha256
from fracas.io.scenario import load_scenario, parse_scenario

EXAMPLE = Path(__file__).parents[2] / "examples" / "d100" / "lair_raid.yaml"


def test_formatting_comments_and_final_newline_do_not_change_the_hash(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    original = load_scenario(EXAMPLE)
    variants = {
        "no_newline.yaml": text.rstrip("\n"),
        "crlf.yaml": text.replace("\n", "\r\n"),
        "comment.yaml": "# copied from the forum\n" + text + "\n# end\n",
        "as.json": json.dumps(dict(original.document), indent=4),
    }
    for name, variant in variants.items():
        path = tmp_path / name
        path.write_bytes(variant.encode("utf-8"))
        assert load_scenario(path).sha256 == original.sha256, name


def test_a_changed_value_or_a_set_override_changes_the_hash() -> None:
    base = "fracas: 1\nruleset: d100\nsides:\n - {name: A, action: raid, units: [{name: X, pax: 10}]}\n - {name: B, action: defend, units: [{name: Y, pax: 10}]}\n"  # noqa: E501
    one = parse_scenario(base)
    assert (
        parse_scenario(base.replace("pax: 10}]}\n - {name: B", "pax: 9}]}\n - {name: B")).sha256
        != one.sha256
    )
    overridden = parse_scenario(base, overrides=[("sides[0].units[0].pax", 9)])
    assert overridden.sha256 != one.sha256
    # The same value written as 9 in the file or set with --set is the same scenario.
    written = parse_scenario(base.replace("{name: X, pax: 10}", "{name: X, pax: 9}"))
    assert written.canonical_sha256 == overridden.canonical_sha256


def test_numbers_and_text_are_normalised() -> None:
    # 3.0 and 3 are one number; "é" composed or decomposed is one letter; CRLF is LF.
    assert (
        canonical_json(canonical_document({"n": 3.0, "t": "e\u0301\r\n"})) == '{"n":3,"t":"é\\n"}'
    )
    assert scenario_sha256({"x": 0.1}) != scenario_sha256({"x": 0.10000000000000002})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), b"bytes"])
def test_values_json_cannot_carry_are_one_error_with_their_path(bad: object) -> None:
    with pytest.raises(ScenarioError) as caught:
        canonical_document({"units": [{"pax": bad}]}, source="odd.yaml")
    assert caught.value.path == ("units", 0, "pax")
    assert caught.value.source == "odd.yaml"
